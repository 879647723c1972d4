// Owns the chat's view model: folds the host's session events into an ordered list of keyed items (the task, streamed
// text, tool cards, turn footers, notices) plus the outcome and label. Pure data in, keys of changed items out, so the
// view re-renders only what changed and the whole state can be saved with the webview and replayed after a reload.

import type {SessionEvent, SessionLabel, SessionStatus, TokenCounts, ToolCallView, ToolResultView} from "../src/protocol/session";

export type ChatItem =
    | {kind: "task"; key: string; text: string; model: string}
    | {kind: "text"; key: string; turn: number; text: string}
    | {kind: "tool"; key: string; call: ToolCallView; result?: ToolResultView}
    | {kind: "turn"; key: string; turn: number; tokens: TokenCounts; durationMs: number}
    | {kind: "notice"; key: string; text: string; tone: "info" | "error"};

export interface Outcome {
    status: SessionStatus;
    message?: string;
    finalAnswer?: string;
    tokens: TokenCounts;
    durationMs: number;
    traceId?: string;
}

export interface ChatState {
    sessionId?: string;
    running: boolean;
    items: ChatItem[];
    outcome?: Outcome;
    label?: SessionLabel;
    tests?: {passed: boolean; by: "agent" | "user"};
    /** The last applied event's seq (events at or below it are duplicates and ignored). */
    seq: number;
}

export const OUTCOME_KEY = "outcome";

export function emptyChat(): ChatState {
    return {running: false, items: [], seq: -1};
}

function find(s: ChatState, key: string): ChatItem | undefined {
    return s.items.find(i => i.key === key);
}

/**
 * Applies `e` to `s` in place; returns the keys of the items that changed, appeared (anywhere in the list) or went
 * away ("outcome" for the end bar).
 */
export function applyEvent(s: ChatState, e: SessionEvent): string[] {
    if (e.type === "started") {
        Object.assign(s, emptyChat(), {sessionId: e.sessionId, running: true});
    } else if (e.sessionId !== s.sessionId || e.seq <= s.seq) {
        return [];
    }
    s.seq = e.seq;
    switch (e.type) {
        case "started":
            s.items.push({kind: "task", key: "task", text: e.task, model: e.model});
            return ["task"];
        case "token": {
            const last = s.items[s.items.length - 1];
            if (last?.kind === "text" && last.turn === e.turn) {
                last.text += e.text;
                return [last.key];
            }
            const key = `text-${e.seq}`;
            s.items.push({kind: "text", key, turn: e.turn, text: e.text});
            return [key];
        }
        case "tool": {
            const key = `tool-${e.call.callId}`;
            const item = find(s, key);
            if (item?.kind === "tool") { item.call = e.call; return [key]; }
            // The card goes before its turn's footer, and the turn's streamed text becomes the card's "why".
            let at = s.items.length;
            while (at > 0 && s.items[at - 1]!.kind === "turn" && (s.items[at - 1] as {turn: number}).turn === e.call.turn) at--;
            const prev = s.items[at - 1];
            const changed: string[] = [];
            if (prev?.kind === "text" && prev.turn === e.call.turn && e.call.why && prev.text.trim() === e.call.why.trim()) {
                s.items.splice(--at, 1);
                changed.push(prev.key);
            }
            s.items.splice(at, 0, {kind: "tool", key, call: e.call});
            return [...changed, key];
        }
        case "approval": {
            const item = find(s, `tool-${e.callId}`);
            if (item?.kind !== "tool") return [];
            item.call = {...item.call, approval: e.approval};
            return [item.key];
        }
        case "result": {
            const item = find(s, `tool-${e.result.callId}`);
            if (item?.kind !== "tool") return [];
            item.result = e.result;
            const changed = [item.key];
            if (e.result.tests) { s.tests = {passed: e.result.tests.passed, by: "agent"}; changed.push(OUTCOME_KEY); }
            return changed;
        }
        case "turn": {
            const key = `turn-${e.turn}`;
            s.items.push({kind: "turn", key, turn: e.turn, tokens: e.tokens, durationMs: e.durationMs});
            return [key];
        }
        case "tests":
            s.tests = {passed: e.passed, by: e.by};
            return [OUTCOME_KEY];
        case "finished":
            s.running = false;
            s.outcome = {status: e.status, tokens: e.tokens, durationMs: e.durationMs,
                ...(e.message ? {message: e.message} : {}), ...(e.finalAnswer ? {finalAnswer: e.finalAnswer} : {}),
                ...(e.traceId ? {traceId: e.traceId} : {})};
            // cards still waiting for a decision will never get one
            return [OUTCOME_KEY, ...s.items.filter(i => i.kind === "tool" && i.call.approval === "pending").map(i => i.key)];
        case "label":
            s.label = e.label;
            return [OUTCOME_KEY];
        case "restored": {
            const key = `restored-${e.seq}`;
            const files = e.files.length ? e.files.join(", ") : "no files changed";
            s.items.push({kind: "notice", key, tone: "info", text: `Restored the checkpoint before this change (${files}).`});
            return [key];
        }
    }
}

/** A fresh state with every event applied in order. */
export function replay(events: readonly SessionEvent[]): ChatState {
    const s = emptyChat();
    for (const e of events) applyEvent(s, e);
    return s;
}
