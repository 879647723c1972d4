// Owns the narrow contract between the panel's session controller and the agent engine: what starting a session takes
// (task, stop signal, approval callback) and the events it reports. The adapter over coder/agent (agent-adapter.ts)
// implements it; tests use scripted fakes. Knows nothing of VS Code or of the webview protocol.

import type {SessionStatus, TokenCounts} from "../protocol/session";

/** A file a tool call proposes to change or changed, with both versions (null: absent). */
export interface EngineFileChange {
    /** Workspace-relative path. */
    path: string;
    before: string | null;
    after: string | null;
}

/** Proposed: what a call would change, before it runs; applied: what it changed. */
export type ChangePhase = "proposed" | "applied";

export type EngineEvent =
    /** Streamed model text (free text, not tool-call JSON). */
    | {type: "token"; turn: number; text: string}
    /** The model proposed a tool call (before approval and before it runs). */
    | {type: "tool_call"; callId: string; turn: number; tool: string; argsText: string; summary: string; why?: string;
        command?: string; changes?: EngineFileChange[]}
    /** The call ran (or was refused). */
    | {type: "tool_result"; callId: string; ok: boolean; observation: string; durationMs: number;
        approval: "auto" | "approved" | "denied"; changes?: EngineFileChange[]; checkpointId?: string; tests?: {passed: boolean}}
    | {type: "turn_end"; turn: number; tokens: TokenCounts; durationMs: number};

export interface EngineApprovalRequest {
    /** The call being asked about (the latest tool_call event's id). */
    callId: string;
    tool: string;
    summary: string;
    reason: string;
}

export interface EngineOutcome {
    status: Exclude<SessionStatus, "running">;
    message?: string;
    finalAnswer?: string;
    tokens: TokenCounts;
    durationMs: number;
    /** Id of the trace written for the session (absent when none could be written). */
    traceId?: string;
    /** Display name of the model that ran. */
    model?: string;
}

export interface EngineSessionOptions {
    /** The panel's id of the session (names its undo points and file versions, which outlive the engine). */
    sessionId: string;
    task: string;
    signal: AbortSignal;
    onEvent(e: EngineEvent): void;
    /** Asked for calls the approval policy does not allow by itself; true runs the call. */
    approve(req: EngineApprovalRequest): Promise<boolean>;
}

export interface EngineSession {
    /** Resolves when the session ends; a failure inside the agent resolves with status "error" rather than rejecting. */
    readonly done: Promise<EngineOutcome>;
}

export interface AgentEngine {
    /** Display name of the model sessions will run on (for the "started" event), or undefined when none is chosen. */
    modelName(): string | undefined;
    start(opts: EngineSessionOptions): EngineSession;
    /**
     * Restores the workspace files of session `sessionId` to a checkpoint — while it runs, after it ended, or after a
     * window reload (when its undo points were kept on disk). Returns the paths it changed.
     */
    restore?(sessionId: string, checkpointId: string): Promise<string[]>;
    /**
     * Both versions of `path` as tool call `callId` of session `sessionId` proposed ("proposed") or left them
     * ("applied"; without a phase: the latest), when they were kept.
     */
    change?(sessionId: string, callId: string, path: string, phase?: ChangePhase): Promise<EngineFileChange | undefined>;
}
