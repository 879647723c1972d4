// Owns projecting stored traces into the panel's history rows and trace viewer: turns with their sampled text, tools,
// token counts and timings, and the labels in effect. Read-only; knows nothing of VS Code.

import type {SessionSummaryView, TraceTurnView, TraceView} from "../protocol/traces";
import {effectiveLabels, type Trace, type TraceSummary} from "../traces/schema";

const MAX_OBSERVATION = 4000;

export function summaryView(s: TraceSummary): SessionSummaryView {
    return {
        id: s.id, createdAt: s.createdAt, task: s.task, model: s.model.name ?? basename(s.model.file), adapter: s.adapter,
        status: s.status, turns: s.turns, tokens: s.tokens, durationMs: s.durationMs, labels: [...effectiveLabels(s.labels)],
    };
}

function basename(p: string): string {
    return p.slice(Math.max(p.lastIndexOf("/"), p.lastIndexOf("\\")) + 1);
}

function cut(s: string, max: number): string {
    return s.length > max ? `${s.slice(0, max)}\n… (${s.length - max} more characters)` : s;
}

export function traceView(t: Trace, summary: TraceSummary): TraceView {
    const turns = new Map<number, TraceTurnView>();
    const turn = (n: number): TraceTurnView => {
        let v = turns.get(n);
        if (!v) turns.set(n, v = {turn: n, text: "", tokens: {forced: 0, sampled: 0}, tools: []});
        return v;
    };
    for (const s of t.segments) {
        const v = turn(s.turn);
        if (s.sampled) { v.tokens.sampled += s.tokens.length; if (s.kind !== "end_of_turn") v.text += s.text; }
        else v.tokens.forced += s.tokens.length;
    }
    for (const c of t.toolCalls) {
        turn(c.turn).tools.push({name: c.name, argsText: c.argsText, approval: c.approval, ok: c.result.ok,
            observation: cut(c.result.observation, MAX_OBSERVATION), durationMs: c.durationMs});
    }
    const s = t.sampling;
    return {
        summary: summaryView(summary),
        modelFile: t.model.file,
        sampling: s.temperature === 0 ? `greedy, seed ${s.seed}` : `temperature ${s.temperature}, top-k ${s.topK}, top-p ${s.topP}, min-p ${s.minP}, seed ${s.seed}`,
        workspace: t.workspace.path,
        turns: [...turns.values()].sort((a, b) => a.turn - b.turn),
        ...(t.outcome.finalAnswer ? {finalAnswer: t.outcome.finalAnswer} : {}),
        ...(t.outcome.message ? {message: t.outcome.message} : {}),
        labels: t.labels.map(l => ({name: l.name, at: l.at, ...(l.by ? {by: l.by} : {})})),
        tokens: {...t.outcome.tokens},
    };
}
