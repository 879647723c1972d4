// Owns the node-llama-cpp LogitSource: token-exact evaluation on one LlamaContextSequence through
// controlledEvaluate, asking llama.cpp only for the logits the sampler needs plus the full-vocabulary normalizer.
// Never lets node-llama-cpp shift the context (that would silently drop tokens the trace says were there).

import type {ControlledEvaluateInputItem, ControlledEvaluateIndexOutput, LlamaContextSequence, Token} from "node-llama-cpp";
import {ContextOverflowError, type LogitRequest, type LogitSource, type NextLogits} from "./logits";

export class LlamaLogitSource implements LogitSource {
    private evaluatedCount = 0;

    constructor(readonly sequence: LlamaContextSequence) {}

    /** llama.cpp keeps one cell free: a sequence holds at most contextSize − 1 tokens. */
    get contextSize(): number { return this.sequence.contextSize - 1; }
    get length(): number { return this.sequence.nextTokenIndex; }
    get evaluated(): number { return this.evaluatedCount; }

    async next(tokens: readonly number[], req: LogitRequest): Promise<NextLogits> {
        if (tokens.length === 0) throw new Error("next() needs at least one token");
        this.ensureFits(tokens.length);
        const last = tokens.length - 1;
        const items = tokens.map((t, i) => (i < last ? t : [t, {generateNext: generateOptions(req)}])) as ControlledEvaluateInputItem[];
        const out = await this.sequence.controlledEvaluate(items, {contextShift: noShift});
        this.evaluatedCount += tokens.length;
        return toNextLogits(out[last]);
    }

    async feed(tokens: readonly number[]): Promise<void> {
        if (tokens.length === 0) return;
        this.ensureFits(tokens.length);
        await this.sequence.evaluateWithoutGeneratingNewTokens([...tokens] as Token[], {contextShift: noShift});
        this.evaluatedCount += tokens.length;
    }

    async redo(req: LogitRequest): Promise<NextLogits> {
        const n = this.sequence.nextTokenIndex;
        if (n === 0) throw new Error("redo() needs a token in the context");
        const last = this.sequence.contextTokens[n - 1]!;
        await this.sequence.eraseContextTokenRanges([{start: n - 1, end: n}]);
        return this.next([last], req);
    }

    async clear(): Promise<void> {
        await this.sequence.clearHistory();
    }

    private ensureFits(n: number): void {
        const free = this.contextSize - this.length;
        if (n > free) throw new ContextOverflowError(n, free);
    }
}

const noShift = {
    strategy: () => { throw new ContextOverflowError(1, 0); },
};

function generateOptions(req: LogitRequest) {
    // Default sampler options are greedy: llama.cpp leaves the candidates' logits raw, so these are raw logits.
    return req.all
        ? {logits: true as const, totalLogitWeight: true}
        : {logits: {filter: {tokens: req.tokens ?? [], includeTop: Math.max(1, req.top)}}, totalLogitWeight: true};
}

function toNextLogits(out: ControlledEvaluateIndexOutput | undefined): NextLogits {
    const logits = out?.next.logits;
    const weight = out?.next.totalLogitWeight;
    if (!logits || logits.size === 0 || weight === undefined) throw new Error("llama.cpp returned no logits");
    // With includeTop ≥ 1 (or all logits) entries come sorted, highest first: the first is the max logit.
    const max = logits.values().next().value as number;
    return {logits, logZ: max + Math.log(weight)};
}
