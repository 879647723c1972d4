// Owns the trace schema: the token-exact record of one agent session (what the model saw and sampled, with
// log-probs), its summary row, labels, and structural validation. Knows nothing about storage or models.

/** Bumped on any incompatible change; readers reject versions they do not know. */
export const TRACE_VERSION = 1;

/** Who authored a segment's text. `template` = chat-template glue (role headers, end-of-turn markers). */
export type SegmentRole = "system" | "user" | "assistant" | "tool" | "template";

/** What a segment is, finer than its role. */
export type SegmentKind =
    | "prompt"        // system prompt + task rendered by the chat template (forced)
    | "text"          // free text the model sampled (thoughts, final answer)
    | "tool_call"     // the model's tool call: envelope + grammar-constrained JSON (sampled)
    | "end_of_turn"   // end-of-generation token the model sampled
    | "close"         // tokens the runtime forced to close an unfinished call or turn (budget exhausted)
    | "observation"   // a tool result (or a runtime notice) rendered by the chat template (forced)
    | "compacted";    // the re-rendered, compacted history that opens a new context window (forced)

export interface TraceSegment {
    /**
     * Context window this segment belongs to. A session normally has one window (0); when the context overflows,
     * the history is compacted and re-evaluated in a fresh window. The tokens of all segments of window w, in
     * order, are exactly the tokens that were in the model's context in window w.
     */
    window: number;
    /** Turn (0-based model turn) the segment belongs to or precedes. */
    turn: number;
    role: SegmentRole;
    kind: SegmentKind;
    /** Detokenized text of `tokens` (special tokens as text). Informational: `tokens` is the truth. */
    text: string;
    tokens: number[];
    /** True: the model sampled these tokens (loss on). False: forced into the context (prompt, tool output; mask 0). */
    sampled: boolean;
    /**
     * For sampled segments: per token, the model's log-probability of that token given everything before it in the
     * window — the full-vocabulary softmax of the raw logits (temperature 1, before truncation and grammar masking).
     * This is exactly what teacher-forced scoring of the window reproduces.
     */
    logprobs?: number[];
    /** Sampled under the tool-call grammar (the sampler could only choose tokens the grammar allowed). */
    constrained?: boolean;
}

export interface SamplingSettings {
    /** 0 = greedy. */
    temperature: number;
    /** 0 = no top-k truncation. */
    topK: number;
    /** 1 = no nucleus truncation. */
    topP: number;
    /** 0 = no min-p truncation. */
    minP: number;
    seed: number;
}

export interface TraceToolCall {
    turn: number;
    name: string;
    /** The parsed arguments object. */
    args: unknown;
    /** The exact JSON text the model produced for the call. */
    argsText: string;
    /** Approval outcome: allowed by policy, approved or denied by the user, or denied by policy. */
    approval: "auto" | "approved" | "denied";
    result: {ok: boolean; observation: string; finished?: boolean};
    startedAt: string;
    durationMs: number;
}

export type OutcomeStatus =
    | "finished"          // the model gave a final answer or a tool signalled completion
    | "max_turns" | "max_tokens" | "timeout"
    | "cancelled"
    | "context_overflow"  // the context could not be compacted enough to continue
    | "error";

export interface TraceOutcome {
    status: OutcomeStatus;
    message?: string;
    finalAnswer?: string;
    turns: number;
    /** forced = prompt/observation tokens, sampled = model tokens, evaluated = tokens the engine ran through the model. */
    tokens: {forced: number; sampled: number; evaluated: number};
    durationMs: number;
}

export type LabelName = "accepted" | "rejected" | "tests_passed" | "tests_failed";
export const LABEL_NAMES: readonly LabelName[] = ["accepted", "rejected", "tests_passed", "tests_failed"];

export interface TraceLabel {
    name: LabelName;
    at: string;
    /** Who set it: "user", "verifier", a trainer's name. */
    by?: string;
    note?: string;
}

export interface TraceModel {
    file: string;
    name?: string;
    /** sha256 of the model file (hex). */
    sha256: string;
    sizeBytes: number;
    chatFormat: string;
    contextSize: number;
}

export interface TraceAdapter {
    /** The adapter version (e.g. "v7"); distinct files per version. */
    version: string;
    file: string;
    sha256: string;
    scale: number;
}

export interface ToolSpecRecord {
    name: string;
    description: string;
    parameters: unknown;
}

export interface Trace {
    version: typeof TRACE_VERSION;
    id: string;
    createdAt: string;
    task: string;
    model: TraceModel;
    adapter: TraceAdapter | null;
    sampling: SamplingSettings;
    limits: {maxTurns: number; maxTokens: number; maxTokensPerTurn: number; wallTimeMs: number};
    workspace: {path: string; snapshot: string | null};
    tools: ToolSpecRecord[];
    segments: TraceSegment[];
    toolCalls: TraceToolCall[];
    outcome: TraceOutcome;
    /** Added after the session (the stored body is immutable; the store merges labels on read). */
    labels: TraceLabel[];
}

/** The row a store lists without reading trace bodies. */
export interface TraceSummary {
    id: string;
    createdAt: string;
    task: string;
    model: {file: string; name?: string; sha256: string};
    adapter: string | null;
    status: OutcomeStatus;
    turns: number;
    tokens: number;
    durationMs: number;
    labels: TraceLabel[];
}

export function summarize(t: Trace): TraceSummary {
    return {
        id: t.id, createdAt: t.createdAt, task: t.task.length > 200 ? `${t.task.slice(0, 199)}…` : t.task,
        model: {file: t.model.file, ...(t.model.name ? {name: t.model.name} : {}), sha256: t.model.sha256},
        adapter: t.adapter?.version ?? null, status: t.outcome.status, turns: t.outcome.turns,
        tokens: t.outcome.tokens.forced + t.outcome.tokens.sampled, durationMs: t.outcome.durationMs, labels: t.labels,
    };
}

/**
 * Labels in effect: the latest of each exclusive pair wins (accepted/rejected, tests_passed/tests_failed).
 */
export function effectiveLabels(labels: readonly TraceLabel[]): Set<LabelName> {
    const out = new Set<LabelName>();
    const pairs: [LabelName, LabelName][] = [["accepted", "rejected"], ["tests_passed", "tests_failed"]];
    for (const l of labels) {
        const pair = pairs.find(p => p.includes(l.name));
        if (pair) for (const n of pair) out.delete(n);
        out.add(l.name);
    }
    return out;
}

/** Tokens of window `w`, in context order. */
export function windowTokens(t: Pick<Trace, "segments">, w: number): number[] {
    return t.segments.filter(s => s.window === w).flatMap(s => s.tokens);
}

export function windowCount(t: Pick<Trace, "segments">): number {
    return t.segments.reduce((m, s) => Math.max(m, s.window + 1), 0);
}

/** Structural problems of a trace (empty when valid). Checks the invariants trainers rely on. */
export function validateTrace(t: Trace): string[] {
    const p: string[] = [];
    if (t.version !== TRACE_VERSION) p.push(`version ${t.version} is not ${TRACE_VERSION}`);
    if (!t.id) p.push("missing id");
    let lastWindow = 0;
    t.segments.forEach((s, i) => {
        if (s.window < lastWindow) p.push(`segment ${i}: window goes back from ${lastWindow} to ${s.window}`);
        lastWindow = s.window;
        if (!Array.isArray(s.tokens) || s.tokens.some(x => !Number.isInteger(x) || x < 0)) p.push(`segment ${i}: bad token ids`);
        if (s.sampled) {
            if (!s.logprobs || s.logprobs.length !== s.tokens.length) p.push(`segment ${i}: sampled segment needs one logprob per token`);
            else if (s.logprobs.some(v => !(v <= 0) || !Number.isFinite(v))) p.push(`segment ${i}: logprobs must be finite and ≤ 0`);
            if (s.role !== "assistant") p.push(`segment ${i}: sampled segment with role ${s.role}`);
        } else if (s.logprobs) p.push(`segment ${i}: forced segment carries logprobs`);
    });
    for (const l of t.labels) if (!LABEL_NAMES.includes(l.name)) p.push(`unknown label ${l.name}`);
    return p;
}

/** A new time-sortable trace id: `YYYYMMDDTHHMMSSZ-xxxxxx`. */
export function newTraceId(now = new Date(), random = Math.random): string {
    const stamp = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
    const tail = Math.floor(random() * 0x1000000).toString(16).padStart(6, "0");
    return `${stamp}-${tail}`;
}
