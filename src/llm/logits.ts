// Owns the LogitSource contract: the one thing the generation loop needs from a model — append tokens to a single
// growing context and get raw next-token logits (with the full-vocabulary normalizer) after the last one.
// Implemented over node-llama-cpp (llamaSource.ts) and by scripted fakes (scripted.ts).

import {NanoError} from "../common/errors";

export interface LogitRequest {
    /** Return (at least) the `top` highest-logit tokens. Always ≥ 1 in practice (the max fixes the normalizer). */
    top: number;
    /** Also return the logits of exactly these tokens (e.g. every token a grammar allows). */
    tokens?: readonly number[];
    /** Return every token's logit (costly for large vocabularies). */
    all?: boolean;
}

export interface NextLogits {
    /** Raw logits (temperature 1, no penalties), highest first: the requested top tokens, then the requested ones. */
    logits: Map<number, number>;
    /** log Σ_v exp(logit_v) over the whole vocabulary, so log p(t) = logits.get(t) − logZ. */
    logZ: number;
}

export interface LogitSource {
    readonly contextSize: number;
    /** Tokens currently in the model's context (evaluated). */
    readonly length: number;
    /** Total tokens evaluated since creation (a measure of KV-cache reuse). */
    readonly evaluated: number;
    /**
     * Evaluates `tokens` (non-empty) after the current context and returns the next-token logits after the last.
     * Throws a ContextOverflowError, evaluating nothing, when they do not fit.
     */
    next(tokens: readonly number[], req: LogitRequest): Promise<NextLogits>;
    /** Evaluates `tokens` without producing logits. */
    feed(tokens: readonly number[]): Promise<void>;
    /**
     * Asks again for the logits after the last context token with a different request (re-evaluates that one
     * token; counted in `evaluated`). Used only when a grammar rejects every candidate of a cheap request.
     */
    redo(req: LogitRequest): Promise<NextLogits>;
    /** Empties the context (a new window). */
    clear(): Promise<void>;
}

export class ContextOverflowError extends NanoError {
    constructor(readonly needed: number, readonly available: number) {
        super("context-overflow", `context overflow: ${needed} more tokens do not fit in the ${available} left`);
    }
}

/** log Σ exp over a logit list. */
export function logSumExp(values: Iterable<number>): number {
    let max = -Infinity;
    const xs = [...values];
    for (const v of xs) if (v > max) max = v;
    if (max === -Infinity) return -Infinity;
    let s = 0;
    for (const v of xs) s += Math.exp(v - max);
    return max + Math.log(s);
}
