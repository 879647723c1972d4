// Owns the panel's view of a live agent session: the events the host pushes while a session runs (streamed tokens,
// tool-call cards, approvals, diffs, results, turn ends, the outcome, labels). Plain data; knows nothing of the engine.

export type ApprovalDecision = "approve" | "deny" | "always";

/** How a tool call got permission to run: "none" until the policy allowed it ("auto") or asked ("pending"). */
export type ApprovalState = "none" | "pending" | "auto" | "approved" | "denied";

export type SessionLabel = "accepted" | "rejected";

/** One file a tool call proposes to change or changed. The host opens VS Code's diff editor on request. */
export interface FileChangeView {
    /** Workspace-relative path. */
    path: string;
    kind: "create" | "modify" | "delete";
    added: number;
    removed: number;
    /** Unified diff text (may be cut short for display; the diff editor shows everything). */
    patch: string;
}

export interface ToolCallView {
    callId: string;
    turn: number;
    /** The tool's name, e.g. "run_command". */
    tool: string;
    /** What the call does, one line for people ("Run `npm test`", "Edit greet.js"). */
    title: string;
    /** Why: the model's text that led to the call, when it wrote any. */
    why?: string;
    /** The arguments as the model wrote them (JSON text). */
    argsText: string;
    /** The shell command, for command tools: the "always allow" choice keys on it. */
    command?: string;
    approval: ApprovalState;
    /** Proposed file changes, known before the call runs (edit tools). */
    changes?: FileChangeView[];
}

export interface ToolResultView {
    callId: string;
    ok: boolean;
    /** The observation the model gets back (possibly cut short for display). */
    output: string;
    durationMs: number;
    /** Files the call changed. */
    changes?: FileChangeView[];
    /** The checkpoint taken before the call changed files: "undo to here" restores it. */
    checkpointId?: string;
    /** Set when the call ran the workspace's tests. */
    tests?: {passed: boolean};
}

export interface TokenCounts {
    /** Tokens forced into the context (prompt, tool output). */
    forced: number;
    /** Tokens the model sampled. */
    sampled: number;
}

export type SessionStatus = "running" | "finished" | "max_turns" | "max_tokens" | "timeout" | "cancelled"
    | "context_overflow" | "error";

/** What the host pushes about one session, in order. `seq` increases by one per event of a session. */
export type SessionEvent = {sessionId: string; seq: number} & (
    | {type: "started"; task: string; model: string; at: string}
    | {type: "token"; turn: number; text: string}
    | {type: "tool"; call: ToolCallView}
    | {type: "approval"; callId: string; approval: ApprovalState}
    | {type: "result"; result: ToolResultView}
    | {type: "turn"; turn: number; tokens: TokenCounts; durationMs: number}
    | {type: "tests"; passed: boolean; by: "agent" | "user"; command?: string}
    | {type: "finished"; status: SessionStatus; message?: string; finalAnswer?: string; tokens: TokenCounts; durationMs: number;
        traceId?: string}
    | {type: "label"; label: SessionLabel}
    | {type: "restored"; checkpointId: string; files: string[]}
);

export type SessionEventType = SessionEvent["type"];
