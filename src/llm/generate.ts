// Owns one model turn at the token level: sample free text, detect the tool-call trigger, switch to the
// tool-call grammar, stop at end-of-turn, and close cleanly (forced tokens) when the budget runs out. Every token
// comes with its raw log-prob. Works on any LogitSource + Vocabulary (real model or scripted fake).

import {MatchState, type G} from "./grammar/matcher";
import {TokenMasker} from "./grammar/tokenMask";
import type {ToolCallSyntax} from "./grammar/toolCall";
import type {LogitRequest, LogitSource, NextLogits} from "./logits";
import {candidatesNeeded, sample, type Candidate, type Rng} from "./sampler";
import type {SamplingSettings} from "../traces/schema";
import type {Vocabulary} from "./vocab";

export type TokenPhase = "text" | "tool_call" | "end_of_turn";

export interface GeneratedToken {
    token: number;
    /** Raw log-prob: full-vocabulary softmax at temperature 1, before truncation and grammar masking. */
    logprob: number;
    phase: TokenPhase;
}

export interface ToolGrammar {
    grammar: G;
    syntax: ToolCallSyntax;
    /** auto: free text, a call once the model writes the trigger; required: the turn is one call. */
    choice: "auto" | "required";
}

export interface TurnOptions {
    sampling: SamplingSettings;
    rng: Rng;
    /** Sampled tokens allowed this turn (closing tokens come on top, within the context). */
    maxTokens: number;
    tools?: ToolGrammar;
    signal?: AbortSignal;
    /** Streamed text as it becomes valid UTF-8. */
    onText?: (delta: string, phase: TokenPhase) => void;
}

export type TurnStop = "end_of_turn" | "tool_call" | "max_tokens" | "aborted";

export interface TurnResult {
    sampled: GeneratedToken[];
    /** Tokens forced after the sampled ones to close an unfinished call and the turn (stop = max_tokens). */
    closing: number[];
    stop: TurnStop;
    /** Call text (envelope included, closing included) when the turn made a tool call. */
    callText?: string;
}

/** What a turn needs from the session that owns the context. */
export interface TurnHost {
    readonly source: LogitSource;
    readonly vocab: Vocabulary;
    readonly masker: TokenMasker;
    /** Room left in the context (tokens). */
    readonly free: number;
    /** Removes and returns the tokens appended but not yet evaluated (never empty when a turn starts). */
    takePending(): number[];
    /** Records a sampled token in the context (evaluated with the next request). */
    pushSampled(token: number): void;
    /** Appends forced tokens (closing). */
    pushForced(tokens: readonly number[]): void;
}

export async function generateTurn(host: TurnHost, o: TurnOptions): Promise<TurnResult> {
    const {vocab, masker, source} = host;
    const tools = o.tools;
    const sampled: GeneratedToken[] = [];
    const stream = new TextStream(vocab, o.onText);
    let state: MatchState | undefined = tools?.choice === "required" ? MatchState.start(tools.grammar) : undefined;
    let text = "";          // pieces of this turn's free text, for trigger detection
    const starts: number[] = []; // offset in `text` of each sampled text token
    let inCall = state !== undefined;
    let toEval: number[] | undefined; // taken from the host at the first request, so an empty turn evaluates nothing
    // Sampled tokens stop at maxTokens; the context must also keep room to close the turn (one end-of-turn token,
    // plus the shortest completion of an open call).
    const room = host.free;
    let stop: TurnStop | undefined;

    while (!stop) {
        if (o.signal?.aborted) { stop = "aborted"; break; }
        const reserve = state ? closingTokens(vocab, state).length : 1;
        if (sampled.length >= o.maxTokens || sampled.length + 1 + reserve + 2 > room) { stop = "max_tokens"; break; }

        // What to ask llama.cpp for: outside strings the grammar's exact allowed set; otherwise the top candidates,
        // enough of them that sampling among the allowed ones is exact (or the whole vocabulary when untruncated).
        const allowed = state ? masker.allowed(state) : undefined;
        const need = o.sampling.temperature <= 0 ? 1 : o.sampling.topK > 0 ? o.sampling.topK : Infinity;
        const req: LogitRequest = Array.isArray(allowed) ? {top: 1, tokens: allowed}
            : !Number.isFinite(need) ? {top: 1, all: true}
            : {top: state ? Math.max(64, 4 * need) : candidatesNeeded(o.sampling)};
        if (!toEval) {
            toEval = host.takePending();
            if (toEval.length === 0) throw new Error("a turn needs at least one new token in the context (the turn header)");
        }
        let next = await source.next(toEval, req);
        let cands = filterCandidates(next, state, allowed);
        if (cands.length < Math.min(need, Array.isArray(allowed) ? allowed.length : need) && !req.all) {
            // Too few allowed tokens among the cheap request's candidates to sample exactly: ask again for the whole
            // vocabulary (re-evaluates one token; rare).
            next = await source.redo({top: 1, all: true});
            cands = filterCandidates(next, state, allowed);
        }
        if (cands.length === 0) throw new Error("the grammar allows no token of this vocabulary");
        const token = sample(cands, o.sampling, o.rng);
        const logprob = next.logits.get(token)! - next.logZ;
        host.pushSampled(token);
        toEval = [token];

        if (vocab.isEog(token)) {
            sampled.push({token, logprob, phase: "end_of_turn"});
            stop = state ? "tool_call" : "end_of_turn";
            break;
        }
        if (state) {
            state = masker.after(state, token)!;
            sampled.push({token, logprob, phase: "tool_call"});
            stream.push(token, "tool_call");
            continue;
        }
        const piece = vocab.piece(token);
        const from = text.length;
        text += piece;
        starts[sampled.length] = from;
        sampled.push({token, logprob, phase: "text"});
        const at = tools ? findTrigger(text, from, tools.syntax) : -1;
        if (at >= 0) {
            state = MatchState.start(tools!.grammar).feed(text.slice(at));
            inCall = true;
            // Tokens that wrote part of the trigger belong to the call.
            for (let i = sampled.length - 1; i >= 0 && sampled[i]!.phase === "text" && starts[i]! + vocab.piece(sampled[i]!.token).length > at; i--)
                sampled[i]!.phase = "tool_call";
            stream.push(token, "tool_call");
        } else stream.push(token, "text");
    }

    let closing: number[] = [];
    if (stop === "max_tokens") {
        closing = state ? closingTokens(vocab, state) : [vocab.eos];
        host.pushForced(closing);
    }
    stream.flush();
    if (!inCall || stop === "aborted") return {sampled, closing, stop};
    // The call's text, decoded from its tokens (the grammar saw partial UTF-8 bytes only as placeholders).
    const body = [...sampled.map(t => t.token), ...closing].filter(t => !vocab.isEog(t));
    const full = vocab.detokenize(body);
    const at = full.indexOf(tools!.syntax.trigger);
    return {sampled, closing, stop, callText: at >= 0 ? full.slice(at) : full};

    function filterCandidates(n: NextLogits, st: MatchState | undefined, allow: number[] | "many" | undefined): Candidate[] {
        const all = [...n.logits].map(([token, logit]) => ({token, logit}));
        if (st) {
            if (allow !== "many" && allow !== undefined) {
                const set = new Set(allow);
                return all.filter(c => set.has(c.token));
            }
            return all.filter(c => masker.allows(st, c.token));
        }
        return tools ? all.filter(c => textAllows(c.token)) : all;
    }

    /** In free text, a token that completes the trigger must also continue a valid call. */
    function textAllows(token: number): boolean {
        const syntax = tools!.syntax;
        const piece = vocab.piece(token);
        if (!piece) return true;
        const t = text + piece;
        const at = findTrigger(t, text.length, syntax);
        return at < 0 || MatchState.start(tools!.grammar).feed(t.slice(at)) !== undefined;
    }
}

/** Index where the trigger starts if `text` (whose new part begins at `from`) now contains it; else −1. */
export function findTrigger(text: string, from: number, syntax: ToolCallSyntax): number {
    if (syntax.atTurnStart) {
        const lead = text.length - text.trimStart().length;
        return text.startsWith(syntax.trigger, lead) && lead + syntax.trigger.length > from ? lead : -1;
    }
    const at = text.indexOf(syntax.trigger, Math.max(0, from - syntax.trigger.length + 1));
    return at;
}

function closingTokens(vocab: Vocabulary, state: MatchState): number[] {
    const rest = state.completion();
    return [...(rest ? vocab.tokenize(rest, false) : []), vocab.eos];
}

/** Incremental detokenization that only emits complete UTF-8. */
class TextStream {
    private tokens: number[] = [];
    private committed = 0;
    private phase: TokenPhase = "text";

    constructor(private readonly vocab: Vocabulary, private readonly onText?: (delta: string, phase: TokenPhase) => void) {}

    push(token: number, phase: TokenPhase): void {
        if (!this.onText) return;
        if (phase !== this.phase) { this.flush(); this.phase = phase; }
        this.tokens.push(token);
        const tail = this.decode();
        if (!tail.endsWith("\uFFFD")) this.emit(tail);
    }

    flush(): void {
        if (this.onText && this.committed < this.tokens.length) this.emit(this.decode());
    }

    private decode(): string {
        return this.vocab.detokenize(this.tokens.slice(this.committed), this.tokens.slice(Math.max(0, this.committed - 4), this.committed));
    }

    private emit(text: string): void {
        this.committed = this.tokens.length;
        if (text) this.onText!(text, this.phase);
    }
}
