// Owns the scripted fake model: a LogitSource that "wants" to say a scripted reply each turn (its next token gets a
// high logit, every other token a small deterministic one), over a byte-level ChatML vocabulary. It runs through
// the real generation loop — sampling, grammar, budgets — so agent scenarios are deterministic without weights.

import type {TraceAdapter, TraceModel} from "../traces/schema";
import {chatmlHermes, type ChatFormat} from "./chatFormat";
import {ContextOverflowError, logSumExp, type LogitRequest, type LogitSource, type NextLogits} from "./logits";
import {TokenSession} from "./session";
import {byteVocabulary, type Vocabulary} from "./vocab";

/** The reply for a turn, given the turn number (0-based, across windows) and the context text so far. */
export type Script = (turn: number, context: string) => string;

export interface ScriptedModelOptions {
    /** Replies by turn, or a function of the context; past the end of an array the model ends its turn at once. */
    script: readonly string[] | Script;
    contextSize?: number;
    /** Logit of the scripted token (others get values in [0, 0.5)). Default 12. */
    confidence?: number;
    /** Delay per request, to make turns slow enough to cancel. */
    delayMs?: number;
}

export const CHATML_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"];

/** A byte-level ChatML vocabulary; EOS is <|im_end|>. */
export function scriptedVocabulary(): Vocabulary {
    return byteVocabulary(CHATML_SPECIALS, ["<|im_end|>", "<|endoftext|>"]);
}

export class ScriptedSource implements LogitSource {
    readonly contextSize: number;
    private readonly ctx: number[] = [];
    private evaluatedCount = 0;
    private turn = -1;
    private turnStart = -1;
    private reply: number[] = [];
    private readonly header: number[];
    /** Every request made (for tests that check what was evaluated). */
    readonly requests: {tokens: number; req: LogitRequest}[] = [];

    constructor(readonly vocab: Vocabulary, private readonly o: ScriptedModelOptions, readonly format: ChatFormat = chatmlHermes) {
        this.contextSize = o.contextSize ?? 4096;
        this.header = vocab.tokenize(format.render([], [], true), true);
    }

    get length(): number { return this.ctx.length; }
    get evaluated(): number { return this.evaluatedCount; }

    async next(tokens: readonly number[], req: LogitRequest): Promise<NextLogits> {
        if (this.ctx.length + tokens.length > this.contextSize) throw new ContextOverflowError(tokens.length, this.contextSize - this.ctx.length);
        if (this.o.delayMs) await new Promise(r => setTimeout(r, this.o.delayMs));
        this.ctx.push(...tokens);
        this.evaluatedCount += tokens.length;
        this.requests.push({tokens: tokens.length, req});
        return this.logits(req);
    }

    async feed(tokens: readonly number[]): Promise<void> {
        if (this.ctx.length + tokens.length > this.contextSize) throw new ContextOverflowError(tokens.length, this.contextSize - this.ctx.length);
        this.ctx.push(...tokens);
        this.evaluatedCount += tokens.length;
    }

    async redo(req: LogitRequest): Promise<NextLogits> {
        this.evaluatedCount++;
        return this.logits(req);
    }

    async clear(): Promise<void> {
        this.ctx.length = 0;
        this.turnStart = -1;
    }

    private logits(req: LogitRequest): NextLogits {
        const all = this.full();
        const logZ = logSumExp(all);
        const order = [...all.keys()].sort((a, b) => all[b]! - all[a]! || a - b);
        const want = req.all ? order : [...order.slice(0, Math.max(1, req.top)), ...(req.tokens ?? [])];
        return {logits: new Map(want.map(t => [t, all[t]!])), logZ};
    }

    private full(): Float64Array {
        const v = this.vocab.size;
        const out = new Float64Array(v);
        const n = this.ctx.length;
        for (let t = 0; t < v; t++) out[t] = (((n * 7919 + t * 104729) % 1000) / 1000) * 0.5;
        out[this.desired()] = this.o.confidence ?? 12;
        return out;
    }

    /** The scripted next token: the reply's next token, or end-of-turn once the reply is written (or abandoned). */
    private desired(): number {
        const start = lastIndexOfSeq(this.ctx, this.header);
        if (start < 0) return this.vocab.eos;
        const bodyStart = start + this.header.length;
        if (bodyStart !== this.turnStart) {
            this.turnStart = bodyStart;
            this.turn++;
            const s = this.o.script;
            const text = typeof s === "function" ? s(this.turn, this.vocab.detokenize(this.ctx.slice(0, bodyStart))) : s[this.turn];
            this.reply = text === undefined ? [] : this.vocab.tokenize(text, false);
        }
        const written = this.ctx.length - bodyStart;
        for (let i = 0; i < written; i++) if (this.ctx[bodyStart + i] !== this.reply[i]) return this.vocab.eos;
        return this.reply[written] ?? this.vocab.eos;
    }
}

function lastIndexOfSeq(hay: readonly number[], needle: readonly number[]): number {
    outer: for (let i = hay.length - needle.length; i >= 0; i--) {
        for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
        return i;
    }
    return -1;
}

/** A TokenSession over a scripted model with the byte-level ChatML vocabulary. */
export function scriptedSession(o: ScriptedModelOptions): {session: TokenSession; source: ScriptedSource; vocab: Vocabulary} {
    const vocab = scriptedVocabulary();
    const source = new ScriptedSource(vocab, o);
    return {session: new TokenSession(source, vocab), source, vocab};
}

/** A scripted model in the shape the agent takes (fresh session, ChatML + Hermes format, a fake model record). */
export function scriptedModel(o: ScriptedModelOptions) {
    const {session, source, vocab} = scriptedSession(o);
    return {
        tokens: session, format: chatmlHermes, source, vocab,
        describe: async (): Promise<{model: TraceModel; adapter: TraceAdapter | null}> => ({
            model: {file: "scripted", name: "scripted", sha256: "0".repeat(64), sizeBytes: 0, chatFormat: chatmlHermes.name, contextSize: session.contextSize},
            adapter: null,
        }),
    };
}
