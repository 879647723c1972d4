// Owns one growing model context (a "window"): the exact token list in the model's context, which of them are
// already evaluated, and the turn API on top of it. New tokens are only ever appended, so each turn evaluates
// only what is new (the KV cache carries the rest). Starting a new window is the only way tokens leave.

import {NanoError} from "../common/errors";
import {generateTurn, type TurnHost, type TurnOptions, type TurnResult} from "./generate";
import {TokenMasker} from "./grammar/tokenMask";
import {ContextOverflowError, type LogitSource} from "./logits";
import type {Vocabulary} from "./vocab";

export class TokenSession {
    private readonly context: number[] = [];
    private evaluatedUpTo = 0;
    private windowIndex = 0;
    private busy = false;
    readonly masker: TokenMasker;

    constructor(readonly source: LogitSource, readonly vocab: Vocabulary) {
        this.masker = new TokenMasker(vocab);
    }

    /** The tokens in the model's context in this window, in order (including appended, not yet evaluated ones). */
    get tokens(): readonly number[] { return this.context; }
    get window(): number { return this.windowIndex; }
    get contextSize(): number { return this.source.contextSize; }
    get free(): number { return this.source.contextSize - this.context.length; }
    /** Tokens of this window in the context but not evaluated yet (the last sampled token, closing tokens, …). */
    get pending(): number { return this.context.length - this.evaluatedUpTo; }
    /** Tokens evaluated by the model since the session began (all windows). */
    get evaluated(): number { return this.source.evaluated; }

    /** Appends forced tokens (prompt, observation). They are evaluated with the next generation or `flush`. */
    append(tokens: readonly number[]): void {
        if (tokens.length > this.free) throw new ContextOverflowError(tokens.length, this.free);
        this.context.push(...tokens);
    }

    /** Samples one model turn after the current context. */
    async generate(options: TurnOptions): Promise<TurnResult> {
        if (this.busy) throw new NanoError("session-busy", "a turn is already being generated");
        this.busy = true;
        try {
            return await generateTurn(this.host(), options);
        } finally {
            this.busy = false;
        }
    }

    /** Evaluates appended tokens now (e.g. before scoring or measuring). */
    async flush(): Promise<void> {
        const pending = this.context.slice(this.evaluatedUpTo);
        await this.source.feed(pending);
        this.evaluatedUpTo = this.context.length;
    }

    /** Empties the context: the next tokens open a new window (after an overflow the history is re-rendered). */
    async newWindow(): Promise<void> {
        await this.source.clear();
        this.context.length = 0;
        this.evaluatedUpTo = 0;
        this.windowIndex++;
    }

    private host(): TurnHost {
        const free = () => this.free;
        return {
            source: this.source, vocab: this.vocab, masker: this.masker,
            get free() { return free(); },
            takePending: () => {
                const p = this.context.slice(this.evaluatedUpTo);
                this.evaluatedUpTo = this.context.length;
                return p;
            },
            pushSampled: t => {
                // A sampled token enters the context now and is evaluated with the next request.
                this.context.push(t);
                this.evaluatedUpTo = this.context.length - 1;
            },
            pushForced: ts => { this.context.push(...ts); },
        };
    }
}
