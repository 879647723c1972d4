// Owns the history pane: the list of recorded sessions and the trace viewer (turns, tool calls, tokens, timings,
// labels) for one of them. Pure rendering from protocol views; loading is the caller's.

import type {SessionSummaryView, TraceView} from "../src/protocol/traces";
import {formatMs} from "./cards";
import {h, type El} from "./dom";

export interface HistoryActions {
    open(id: string): void;
    back(): void;
    refresh(): void;
}

function when(iso: string): string {
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

function labelChips(labels: readonly string[]): El {
    return h("span.labels", {}, ...labels.map(l => h(`span.chip.${l}`, {}, l.replace("_", " "))));
}

export function historyList(rows: SessionSummaryView[], act: HistoryActions): El {
    const head = h("div.pane-head", {}, h("h2", {}, "Sessions"),
        h("button.link", {type: "button", onclick: () => act.refresh(), "aria-label": "Refresh the session list"}, "Refresh"));
    if (!rows.length) return h("div", {}, head, h("p.muted.empty-state", {"data-testid": "history-empty"}, "No recorded sessions yet."));
    return h("div", {}, head, h("ul.history", {"data-testid": "history", "aria-label": "Recorded sessions"},
        ...rows.map(r => h("li", {},
            h("button.row", {type: "button", "data-testid": "history-row", "data-id": r.id, onclick: () => act.open(r.id)},
                h("span.task", {}, r.task),
                h("span.meta", {},
                    h(`span.status.${r.status}`, {}, r.status.replace("_", " ")), labelChips(r.labels),
                    h("span.muted", {}, `${when(r.createdAt)} · ${r.turns} turns · ${r.tokens} tokens · ${formatMs(r.durationMs)}`)))))));
}

export function traceView(t: TraceView, act: HistoryActions): El {
    const s = t.summary;
    const rows: [string, string][] = [
        ["Status", s.status.replace("_", " ")], ["Model", t.modelFile], ["Adapter", s.adapter ?? "none"], ["Sampling", t.sampling],
        ["Workspace", t.workspace], ["Tokens", `${t.tokens.sampled} sampled, ${t.tokens.forced} forced, ${t.tokens.evaluated} evaluated`],
        ["Duration", formatMs(s.durationMs)], ["Started", when(s.createdAt)],
    ];
    return h("div.trace", {"data-testid": "trace", "data-id": s.id},
        h("div.pane-head", {},
            h("button.link", {type: "button", onclick: () => act.back(), "aria-label": "Back to the session list"}, "← Sessions"),
            h("span.muted", {}, s.id)),
        h("h2", {}, s.task),
        h("dl.facts", {}, ...rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
        h("div.trace-labels", {"data-testid": "trace-labels"}, h("strong", {}, "Labels: "),
            t.labels.length ? h("span", {}, ...t.labels.map(l => h(`span.chip.${l.name}`, {title: `${l.by ?? ""} ${when(l.at)}`}, l.name.replace("_", " "))))
                : h("span.muted", {}, "none")),
        t.message ? h("p.muted", {}, t.message) : null,
        ...t.turns.map(turn => h("section.trace-turn", {"aria-label": `Turn ${turn.turn + 1}`},
            h("h3", {}, `Turn ${turn.turn + 1}`, h("span.muted", {}, ` · ${turn.tokens.sampled} sampled, ${turn.tokens.forced} forced`)),
            turn.text ? h("pre.turn-text", {}, turn.text) : null,
            ...turn.tools.map(tool => h("div.trace-tool", {},
                h("div", {}, h("span.tool-name", {}, tool.name), " ", h(`span.badge.${tool.ok ? "ok" : "fail"}`, {}, tool.ok ? "ok" : "failed"),
                    " ", h("span.muted", {}, `${tool.approval} · ${formatMs(tool.durationMs)}`)),
                h("details", {}, h("summary", {}, "Arguments and result"), h("pre", {}, tool.argsText), h("pre.output", {}, tool.observation)))))),
        t.finalAnswer ? h("section.trace-turn", {}, h("h3", {}, "Final answer"), h("div.final", {}, t.finalAnswer)) : null);
}
