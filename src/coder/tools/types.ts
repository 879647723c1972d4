// Owns the tool contract the agent engine consumes: a tool's definition (data: name, description, JSON schema,
// approval class, how to summarise a call) kept apart from its `run`, the context a run gets, and its result.
//
// How the engine uses it:
//   const tools = createDefaultTools({testCommand});                  // a ToolRegistry
//   tools.definitions()                                               // -> prompt / grammar for tool calls
//   const r = await tools.invoke(name, rawArgs, ctx);                 // never throws
//   r.observation  -> appended for the model (plain text, bounded);  r.data -> UI and traces;  r.finished -> stop.
// `invoke` validates arguments against the schema and asks the approval policy (core-side, not UI-side) before `run`.

import type {CheckpointRecorder} from "../checkpoints";
import type {Sandbox} from "../sandbox/types";

/** The subset of JSON Schema the tools use (and the registry validates). Objects are closed: additionalProperties false. */
export interface JSONSchema {
    type: "object" | "string" | "integer" | "number" | "boolean" | "array";
    description?: string;
    properties?: Record<string, JSONSchema>;
    required?: string[];
    additionalProperties?: boolean;
    items?: JSONSchema;
    enum?: (string | number)[];
    minimum?: number;
    maximum?: number;
    minLength?: number;
    maxLength?: number;
    minItems?: number;
    maxItems?: number;
}

/** Default approval class: "never" runs without asking; "ask" asks unless the policy's allow list says otherwise. */
export type ApprovalClass = "never" | "ask";

export interface ToolDefinition<A = unknown> {
    name: string;
    /** For the model: what it does and when to use it. */
    description: string;
    /** type "object", with properties, required, additionalProperties: false. */
    parameters: JSONSchema;
    approval: ApprovalClass;
    /** Changes nothing in the workspace (reads only). */
    readOnly: boolean;
    /** One line for a person (approval prompt, timeline): `edit src/a.ts (2 blocks)`. Args are already validated. */
    summarize(args: A): string;
}

/** What the UI is asked to approve; the answer is a boolean. */
export interface ApprovalRequest {
    tool: string;
    args: unknown;
    summary: string;
    /** Why the policy asks (e.g. "`rm -rf build` is not in the allow list"). */
    reason: string;
}

export interface ToolContext {
    /** Real path of the workspace. */
    workspace: string;
    sandbox: Sandbox;
    signal: AbortSignal;
    /** Records file state before writes, for undo. */
    checkpoints?: CheckpointRecorder;
    /** Streams command output as it arrives. */
    onOutput?(chunk: string): void;
    /** Asked when the policy says "ask". Without it, such calls are refused (the core never runs them unasked). */
    approve?(req: ApprovalRequest): Promise<boolean>;
}

export interface ToolResult {
    /** false: the call failed or was refused (bad arguments, path outside the workspace, denied, I/O error, killed).
     *  A command that ran and exited non-zero, or tests that failed, are ok: true (the outcome is in data). */
    ok: boolean;
    /** Plain text for the model, bounded in size. */
    observation: string;
    /** Structured, for the UI and traces (diff, exit code, test summary, ...). */
    data?: unknown;
    /** Set by `finish`: the agent's final answer. */
    finished?: boolean;
}

export interface Tool<A = unknown> {
    definition: ToolDefinition<A>;
    run(args: A, ctx: ToolContext): Promise<ToolResult>;
}

/** Erases a tool's argument type for storage in the registry (arguments are validated there before `run`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>;

