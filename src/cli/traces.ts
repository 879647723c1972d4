// Owns `nano-coder traces`: list stored traces (filtered by label, date, model, status), show one (summary, tool
// calls, segments with their masks, optionally token ids and log-probs), and label one.

import {parseArgs} from "node:util";
import {effectiveLabels, LABEL_NAMES, type LabelName, type Trace, type TraceSummary} from "../traces/schema";
import {defaultTraceDir, TraceStore} from "../traces/store";
import {UsageError, type CliCommand, type CliIO} from "./command";

const usage = `usage: nano-coder traces list [--label L] [--since DATE] [--until DATE] [--model M] [--status S] [--limit N] [--json]
       nano-coder traces show ID [--tokens] [--json]
       nano-coder traces label ID accepted|rejected|tests_passed|tests_failed [--note TEXT]
  --dir DIR   trace store (default ${defaultTraceDir()})
  ID may be a unique prefix.`;

export const tracesCommand: CliCommand = {
    name: "traces",
    summary: "list, show and label stored session traces",
    usage,
    async run(argv, io) {
        const [sub, ...rest] = argv;
        const {values: v, positionals} = parseArgs({args: rest, allowPositionals: true, strict: true, options: {
            dir: {type: "string"}, label: {type: "string"}, since: {type: "string"}, until: {type: "string"}, model: {type: "string"},
            status: {type: "string"}, limit: {type: "string"}, json: {type: "boolean"}, tokens: {type: "boolean"}, note: {type: "string"},
        }});
        const store = TraceStore.open(v.dir ?? defaultTraceDir());
        switch (sub) {
            case "list": {
                if (v.label && !LABEL_NAMES.includes(v.label as LabelName)) throw new UsageError(`--label must be one of ${LABEL_NAMES.join(", ")}`);
                const rows = await store.list({
                    ...(v.label ? {label: v.label as LabelName} : {}), ...(v.since ? {since: v.since} : {}), ...(v.until ? {until: v.until} : {}),
                    ...(v.model ? {model: v.model} : {}), ...(v.status ? {status: v.status as TraceSummary["status"]} : {}),
                    ...(v.limit ? {limit: Number(v.limit)} : {}),
                });
                if (v.json) io.out(JSON.stringify(rows, null, 2) + "\n");
                else printList(rows, io);
                return 0;
            }
            case "show": {
                if (positionals.length !== 1) throw new UsageError("give one trace id");
                const t = await store.get(positionals[0]!);
                if (!t) { io.err(`no trace ${positionals[0]}\n`); return 1; }
                if (v.json) io.out(JSON.stringify(t, null, 2) + "\n");
                else printTrace(t, !!v.tokens, io);
                return 0;
            }
            case "label": {
                if (positionals.length !== 2) throw new UsageError("give a trace id and a label");
                const [id, label] = positionals as [string, string];
                if (!LABEL_NAMES.includes(label as LabelName)) throw new UsageError(`label must be one of ${LABEL_NAMES.join(", ")}`);
                const t = await store.get(id);
                if (!t) { io.err(`no trace ${id}\n`); return 1; }
                await store.label(t.id, label as LabelName, {by: "user", ...(v.note ? {note: v.note} : {})});
                io.out(`${t.id}: ${label}\n`);
                return 0;
            }
            default:
                throw new UsageError(sub ? `unknown subcommand "${sub}"` : "give a subcommand: list, show or label");
        }
    },
};

function printList(rows: TraceSummary[], io: CliIO): void {
    if (rows.length === 0) { io.out("no traces\n"); return; }
    for (const r of rows) {
        const labels = [...effectiveLabels(r.labels)].join(",") || "-";
        const model = r.model.name ?? r.model.file.split("/").pop();
        io.out(`${r.id}  ${r.createdAt.slice(0, 19).replace("T", " ")}  ${r.status.padEnd(16)} ${String(r.turns).padStart(3)} turns ${String(r.tokens).padStart(7)} tok  ${labels.padEnd(20)} ${model}${r.adapter ? `+${r.adapter}` : ""}  ${r.task.replace(/\s+/g, " ").slice(0, 60)}\n`);
    }
}

function printTrace(t: Trace, tokens: boolean, io: CliIO): void {
    const o = t.outcome;
    io.out(`trace ${t.id}  ${t.createdAt}\n`);
    io.out(`task: ${t.task}\n`);
    io.out(`model: ${t.model.file} (${t.model.chatFormat}, sha256 ${t.model.sha256.slice(0, 16)}…, context ${t.model.contextSize})${t.adapter ? ` + adapter ${t.adapter.version} (${t.adapter.file})` : ""}\n`);
    io.out(`sampling: ${JSON.stringify(t.sampling)}  limits: ${JSON.stringify(t.limits)}\n`);
    io.out(`workspace: ${t.workspace.path}${t.workspace.snapshot ? ` (snapshot ${t.workspace.snapshot})` : ""}\n`);
    io.out(`outcome: ${o.status}${o.message ? ` — ${o.message}` : ""}; ${o.turns} turns; tokens forced ${o.tokens.forced}, sampled ${o.tokens.sampled}, evaluated ${o.tokens.evaluated}; ${(o.durationMs / 1000).toFixed(1)} s\n`);
    io.out(`labels: ${t.labels.map(l => `${l.name}${l.by ? ` by ${l.by}` : ""} (${l.at})`).join(", ") || "none"}\n`);
    if (o.finalAnswer) io.out(`answer: ${o.finalAnswer}\n`);
    io.out(`\ntool calls:\n`);
    for (const c of t.toolCalls) io.out(`  turn ${c.turn + 1}: ${c.name} ${c.argsText.slice(0, 200)} [${c.approval}] → ${c.result.ok ? "ok" : "failed"} (${c.durationMs} ms)\n`);
    io.out(`\nsegments (S = sampled, loss on; F = forced, mask 0):\n`);
    for (const s of t.segments) {
        const text = s.text.length > 160 ? `${s.text.slice(0, 160)}…` : s.text;
        io.out(`  w${s.window} t${s.turn + 1} ${s.sampled ? "S" : "F"} ${s.role}/${s.kind}${s.constrained ? " (grammar)" : ""} ${s.tokens.length} tok: ${JSON.stringify(text)}\n`);
        if (tokens) {
            io.out(`      ids: ${s.tokens.join(" ")}\n`);
            if (s.logprobs) io.out(`      logprobs: ${s.logprobs.map(x => x.toFixed(3)).join(" ")}\n`);
        }
    }
}
