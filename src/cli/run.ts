// Owns `nano-coder run`: one agent session from the terminal — load the model (path or hf: URI, optional LoRA
// adapter), open the workspace in the sandbox, stream the session to the terminal, ask approvals on stdin, and store
// the trace.

import {createInterface} from "node:readline/promises";
import {join, resolve} from "node:path";
import {parseArgs} from "node:util";
import {Agent} from "../coder/agent/agent";
import type {AgentEvent} from "../coder/agent/events";
import {ApprovalPolicy} from "../coder/approvals/policy";
import {createSandbox, snapshotWorkspace} from "../coder/sandbox";
import {createDefaultTools} from "../coder/tools";
import {errorMessage} from "../common/errors";
import {LlmHost} from "../llm/host";
import {defaultTraceDir, TraceStore} from "../traces/store";
import {UsageError, type CliCommand, type CliIO} from "./command";

const usage = `usage: nano-coder run --model M [--adapter A] --workspace DIR [--approve auto|ask|deny] [options] "task"
  --model M            GGUF path, or hf:<user>/<repo>:<quant> (downloaded once, with progress)
  --adapter A          LoRA adapter GGUF (attached to this session's context)
  --workspace DIR      project folder the tools work in (default: the current folder)
  --approve MODE       ask (default: prompt on stdin), auto (run everything not denied), deny (refuse what needs approval)
  --tool-choice C      auto (default) or required (every turn is a tool call)
  --max-turns N        default 30          --max-tokens N      sampled tokens per run, default 32768
  --turn-tokens N      per turn, default 1024   --timeout S      wall time, seconds, default 900
  --context N          context size, tokens (default: min(model's, 8192))   --threads N   CPU threads (default: all cores)
  --temperature T  --top-k K  --top-p P  --min-p P  --seed S     sampling (defaults 0.7, 20, 0.8, 0, random)
  --gpu auto|cpu       default auto (CUDA / Vulkan / Metal when available)
  --sandbox auto|strong|weak    default auto
  --traces DIR         trace store (default ${defaultTraceDir()})
  --no-snapshot        do not snapshot the workspace before the run
  --json               print events as JSON lines instead of text`;

const num = (v: string | undefined, name: string): number | undefined => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isFinite(n)) throw new UsageError(`--${name} must be a number`);
    return n;
};

export const runCommand: CliCommand = {
    name: "run",
    summary: "run the coding agent on a task in a workspace (streams the session, stores its trace)",
    usage,
    async run(argv, io) {
        const {values: v, positionals} = parseArgs({args: argv, allowPositionals: true, strict: true, options: {
            model: {type: "string"}, adapter: {type: "string"}, workspace: {type: "string"}, approve: {type: "string"},
            "tool-choice": {type: "string"}, "max-turns": {type: "string"}, "max-tokens": {type: "string"}, "turn-tokens": {type: "string"},
            timeout: {type: "string"}, context: {type: "string"}, threads: {type: "string"}, temperature: {type: "string"},
            "top-k": {type: "string"}, "top-p": {type: "string"}, "min-p": {type: "string"}, seed: {type: "string"},
            gpu: {type: "string"}, sandbox: {type: "string"}, traces: {type: "string"}, "no-snapshot": {type: "boolean"}, json: {type: "boolean"},
        }});
        if (!v.model) throw new UsageError("--model is required");
        const task = positionals.join(" ").trim();
        if (!task) throw new UsageError("give the task as the last argument");
        const approve = (v.approve ?? "ask") as "ask" | "auto" | "deny";
        if (!["ask", "auto", "deny"].includes(approve)) throw new UsageError("--approve must be ask, auto or deny");
        const toolChoice = (v["tool-choice"] ?? "auto") as "auto" | "required";
        if (!["auto", "required"].includes(toolChoice)) throw new UsageError("--tool-choice must be auto or required");
        const workspace = resolve(v.workspace ?? process.cwd());
        const sampling = Object.fromEntries(Object.entries({temperature: num(v.temperature, "temperature"), topK: num(v["top-k"], "top-k"),
            topP: num(v["top-p"], "top-p"), minP: num(v["min-p"], "min-p"), seed: num(v.seed, "seed")}).filter(([, x]) => x !== undefined));

        const host = await LlmHost.create({gpu: v.gpu === "cpu" ? false : "auto"});
        const sandbox = await createSandbox({workspace, mode: (v.sandbox ?? "auto") as "auto" | "strong" | "weak"});
        try {
            let lastPct = -1;
            const loaded = await host.loadModel(v.model, {signal: io.signal, onProgress: p => {
                const pct = p.totalBytes ? Math.floor((100 * p.downloadedBytes) / p.totalBytes) : 0;
                if (pct !== lastPct) { lastPct = pct; io.err(`\rdownloading ${v.model}: ${pct}%`); }
            }});
            if (lastPct >= 0) io.err("\n");
            const session = await loaded.createSession({contextSize: num(v.context, "context"), threads: num(v.threads, "threads"),
                ...(v.adapter ? {adapter: {file: resolve(v.adapter)}} : {})});
            const store = TraceStore.open(resolve(v.traces ?? defaultTraceDir()));
            const snapshot = v["no-snapshot"] ? null
                : (await snapshotWorkspace(workspace, join(host.cacheDir, "snapshots"), {exclude: [".git", "node_modules"]})).id;
            io.err(`model ${loaded.path} · ${host.gpu || "cpu"} · context ${session.tokens.contextSize} · ${sandbox.describe()}\n`);
            const agent = new Agent({
                model: session, tools: createDefaultTools({policy: approve === "auto" ? ApprovalPolicy.auto() : new ApprovalPolicy()}),
                toolContext: {workspace: sandbox.workspace, sandbox}, store, snapshot, toolChoice, approvals: approve, sampling,
                limits: Object.fromEntries(Object.entries({maxTurns: num(v["max-turns"], "max-turns"), maxTokens: num(v["max-tokens"], "max-tokens"),
                    maxTokensPerTurn: num(v["turn-tokens"], "turn-tokens"), wallTimeMs: (num(v.timeout, "timeout") ?? 900) * 1000}).filter(([, x]) => x !== undefined)),
            });
            const printer = v.json ? (e: AgentEvent) => io.out(JSON.stringify(e) + "\n") : textPrinter(io);
            agent.onEvent(printer);
            if (approve === "ask") agent.onEvent(e => { if (e.type === "approval_needed") void askOnStdin(e, io).then(ok => agent.resolveApproval(e.id, ok)); });
            const {trace, outcome} = await agent.run(task, {signal: io.signal});
            io.err(`\ntrace ${trace.id} stored in ${store.dir}\n`);
            await session.dispose();
            return outcome.status === "finished" ? 0 : outcome.status === "cancelled" ? 130 : outcome.status === "error" ? 1 : 3;
        } finally {
            await sandbox.dispose();
            await host.dispose();
        }
    },
};

/** Human-readable streaming: model text as it comes, one line per call, result and turn boundary. */
function textPrinter(io: CliIO): (e: AgentEvent) => void {
    let midLine = false;
    const line = (s: string) => { io.out(`${midLine ? "\n" : ""}${s}\n`); midLine = false; };
    return e => {
        switch (e.type) {
            case "turn_start": line(`── turn ${e.turn + 1} (window ${e.window}, ${e.contextTokens} tokens in context)`); break;
            case "token": io.out(e.text); midLine = !e.text.endsWith("\n"); break;
            case "tool_call": line(`→ ${e.name} ${e.argsText.length > 300 ? `${e.argsText.slice(0, 300)}…` : e.argsText}`); break;
            case "tool_result": line(`${e.ok ? "✓" : "✗"} ${e.name} (${e.durationMs} ms)\n${indent(e.observation.length > 2000 ? `${e.observation.slice(0, 2000)}…` : e.observation)}`); break;
            case "context_compacted": line(`[context compacted: ${e.tokensBefore} → ${e.tokensAfter} tokens, ${e.elidedObservations} observations elided, ${e.droppedTurns} steps dropped]`); break;
            case "error": line(`error: ${e.message}`); break;
            case "finished": line(`── ${e.status}${e.outcome.message ? `: ${e.outcome.message}` : ""} · ${e.outcome.turns} turns · ${e.outcome.tokens.sampled} sampled / ${e.outcome.tokens.forced} forced tokens · ${(e.outcome.durationMs / 1000).toFixed(1)} s`); break;
            default: break;
        }
    };
}

const indent = (s: string) => s.split("\n").map(l => `   ${l}`).join("\n");

async function askOnStdin(e: Extract<AgentEvent, {type: "approval_needed"}>, io: CliIO): Promise<boolean> {
    if (!process.stdin.isTTY) { io.err(`(no terminal to approve "${e.request.summary}": denied)\n`); return false; }
    const rl = createInterface({input: process.stdin, output: process.stderr});
    try {
        const answer = await rl.question(`\nallow ${e.request.summary}? (${e.request.reason}) [y/N] `, {signal: io.signal});
        return /^y(es)?$/i.test(answer.trim());
    } catch (err) {
        io.err(`(approval: ${errorMessage(err)})\n`);
        return false;
    } finally {
        rl.close();
    }
}
