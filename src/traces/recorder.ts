// Owns building a Trace while a session runs: segments appended in context order (forced or sampled, per window),
// tool calls, and the final outcome. Adjacent pieces of the same kind are merged into one segment.

import {
    newTraceId, TRACE_VERSION,
    type SegmentKind, type SegmentRole, type Trace, type TraceOutcome, type TraceSegment, type TraceToolCall,
} from "./schema";

export type TraceHeader = Omit<Trace, "version" | "id" | "createdAt" | "segments" | "toolCalls" | "outcome" | "labels"> & {id?: string; createdAt?: Date};

export class TraceRecorder {
    readonly id: string;
    private readonly createdAt: string;
    private readonly segments: TraceSegment[] = [];
    private readonly calls: TraceToolCall[] = [];
    private window = 0;
    private turn = 0;

    constructor(private readonly header: TraceHeader) {
        this.id = header.id ?? newTraceId(header.createdAt);
        this.createdAt = (header.createdAt ?? new Date()).toISOString();
    }

    setTurn(turn: number): void { this.turn = turn; }
    /** Later segments belong to a fresh context window. */
    newWindow(): void { this.window++; }

    forced(role: SegmentRole, kind: SegmentKind, tokens: readonly number[], text: string): void {
        if (tokens.length === 0) return;
        const last = this.segments[this.segments.length - 1];
        if (last && !last.sampled && last.role === role && last.kind === kind && last.window === this.window && last.turn === this.turn) {
            last.tokens.push(...tokens);
            last.text += text;
            return;
        }
        this.segments.push({window: this.window, turn: this.turn, role, kind, text, tokens: [...tokens], sampled: false});
    }

    sampled(kind: SegmentKind, tokens: readonly number[], logprobs: readonly number[], text: string, constrained = false): void {
        if (tokens.length === 0) return;
        if (tokens.length !== logprobs.length) throw new Error("one logprob per sampled token");
        const last = this.segments[this.segments.length - 1];
        if (last && last.sampled && last.kind === kind && last.window === this.window && last.turn === this.turn && !!last.constrained === constrained) {
            last.tokens.push(...tokens);
            last.logprobs!.push(...logprobs);
            last.text += text;
            return;
        }
        this.segments.push({window: this.window, turn: this.turn, role: "assistant", kind, text, tokens: [...tokens], sampled: true,
            logprobs: [...logprobs], ...(constrained ? {constrained} : {})});
    }

    toolCall(call: TraceToolCall): void { this.calls.push(call); }

    /** Tokens in the current window so far (for consistency checks). */
    windowTokens(): number[] {
        return this.segments.filter(s => s.window === this.window).flatMap(s => s.tokens);
    }

    finish(outcome: TraceOutcome): Trace {
        return {
            version: TRACE_VERSION, id: this.id, createdAt: this.createdAt,
            task: this.header.task, model: this.header.model, adapter: this.header.adapter, sampling: this.header.sampling,
            limits: this.header.limits, workspace: this.header.workspace, tools: this.header.tools,
            segments: this.segments.map(s => ({...s, tokens: [...s.tokens], ...(s.logprobs ? {logprobs: [...s.logprobs]} : {})})),
            toolCalls: [...this.calls], outcome, labels: [],
        };
    }
}
