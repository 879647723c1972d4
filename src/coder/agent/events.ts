// Owns the agent's event vocabulary: everything a session reports, as one typed union. The agent only fires these;
// panels and the CLI render them.

import type {OutcomeStatus, TraceOutcome} from "../../traces/schema";

export interface ApprovalRequestInfo {
    tool: string;
    args: unknown;
    summary: string;
    reason: string;
}

export type AgentEvent =
    | {type: "turn_start"; turn: number; window: number; contextTokens: number}
    /** Streamed model text; phase "tool_call" while it writes a call. */
    | {type: "token"; turn: number; text: string; phase: "text" | "tool_call"}
    /** The model proposed a call (grammar-valid by construction). */
    | {type: "tool_call"; turn: number; id: string; name: string; args: Record<string, unknown>; argsText: string}
    /** Answer with Agent.resolveApproval(id, approved). Cancelling the session denies it. */
    | {type: "approval_needed"; turn: number; id: string; request: ApprovalRequestInfo}
    | {type: "approval_resolved"; id: string; approved: boolean}
    | {type: "tool_output"; id: string; chunk: string}
    | {type: "tool_result"; turn: number; id: string; name: string; ok: boolean; observation: string; data?: unknown; durationMs: number}
    | {type: "context_compacted"; window: number; droppedTurns: number; elidedObservations: number; tokensBefore: number; tokensAfter: number}
    | {type: "turn_end"; turn: number; stop: "end_of_turn" | "tool_call" | "max_tokens" | "aborted"; sampledTokens: number}
    | {type: "finished"; status: OutcomeStatus; outcome: TraceOutcome; traceId: string; finalAnswer?: string}
    | {type: "error"; message: string; code?: string};

export type AgentEventType = AgentEvent["type"];
