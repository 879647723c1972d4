// Owns teacher-forced scoring: the log-prob a model assigns to each token of a given sequence, read from one batched
// evaluation of the whole sequence (only the target token's logit and the normalizer cross from llama.cpp).

import type {ControlledEvaluateInputItem, LlamaContextSequence, Token} from "node-llama-cpp";

/**
 * result[i] = log p(tokens[i] | tokens[0..i-1]) for i ≥ 1; result[0] = NaN (nothing predicts the first token).
 * The sequence is cleared first and left holding `tokens`.
 */
export async function scoreTokens(sequence: LlamaContextSequence, tokens: readonly number[]): Promise<number[]> {
    await sequence.clearHistory();
    if (tokens.length === 0) return [];
    const items = tokens.map((t, i) => (i + 1 < tokens.length
        ? [t, {generateNext: {logits: {filter: {tokens: [tokens[i + 1]!], includeTop: 1}}, totalLogitWeight: true}}]
        : t)) as ControlledEvaluateInputItem[];
    const out = await sequence.controlledEvaluate(items);
    const result = [NaN];
    for (let i = 0; i + 1 < tokens.length; i++) {
        const next = out[i]?.next;
        if (!next?.logits || next.totalLogitWeight === undefined) throw new Error(`no logits at position ${i}`);
        const max = next.logits.values().next().value as number; // includeTop: 1 puts the max first
        result.push(next.logits.get(tokens[i + 1]! as Token)! - max - Math.log(next.totalLogitWeight));
    }
    return result;
}
