// Owns the panel's view of recorded sessions: history rows and the trace viewer's turns, tool calls, token counts,
// timings and labels. A display projection of the trace store's records; never the token-exact trace itself.

import type {SessionStatus, TokenCounts} from "./session";

export type TraceLabelName = "accepted" | "rejected" | "tests_passed" | "tests_failed";

export interface TraceLabelView {
    name: TraceLabelName;
    at: string;
    by?: string;
}

export interface SessionSummaryView {
    id: string;
    createdAt: string;
    task: string;
    model: string;
    adapter: string | null;
    status: SessionStatus;
    turns: number;
    tokens: number;
    durationMs: number;
    /** Labels in effect (the latest of each exclusive pair). */
    labels: TraceLabelName[];
}

export interface TraceToolView {
    name: string;
    argsText: string;
    approval: "auto" | "approved" | "denied";
    ok: boolean;
    observation: string;
    durationMs: number;
}

export interface TraceTurnView {
    turn: number;
    /** The model's sampled text of the turn (tool-call JSON included). */
    text: string;
    tokens: TokenCounts;
    tools: TraceToolView[];
}

export interface TraceView {
    summary: SessionSummaryView;
    modelFile: string;
    sampling: string;
    workspace: string;
    turns: TraceTurnView[];
    finalAnswer?: string;
    message?: string;
    labels: TraceLabelView[];
    tokens: TokenCounts & {evaluated: number};
}
