// Owns nano-rl's memory plan: where base weights live on each backend, and the estimate behind that choice.
//
// The plan for a 0.5B model (Qwen2.5-0.5B: H 896, 24 layers, 14/2 heads, ffn 4864, vocab 151936) on wasm:
// - wasm32 caps the heap at 4 GiB, and the fp32 base alone is 494 M params ≈ 1.98 GB (the tied [V, H] embedding is
//   545 MB of it); XNNPACK's cached packed copies would double the resident matrices. Measured before: resident
//   fp32 with the weight cache off and checkpointing peaked at 4041 MiB — too close to the cap.
// - Weights: on wasm, models above `WASM_RESIDENT_LIMIT` are "streamed": matrices and vocabulary chunks stay in JS
//   memory (outside the heap, in RSS: ≈ 2 GB) and are uploaded for each use inside the op's tidy scope, so the heap
//   holds one matrix (≤ 17 MB) or one 4096-row vocabulary chunk (15 MB) at a time. Frozen matmuls fetch their weight
//   again in backward instead of letting the tape pin it (frozen-matmul.ts, mlp.ts).
// - Activations: tfjs's tape keeps the inputs of most ops, ≈ 236 MiB per layer at T = 256 with plain autograd
//   (measured) — 5.7 GB for 24 layers. With a frozen base both halves are fused ops with hand-written backwards
//   that are never recomputed: the MLP (88 % of a layer's FLOPs, mlp.ts) keeps h, g, u only, the attention half
//   (attention-op.ts) keeps x, q̂, k̂, v only (≈ 11 + 2 MiB per layer at T = 256). Checkpointing (a half keeps
//   its input and is recomputed in backward) remains for a trainable base, whose halves run under plain autograd.
// - Vocabulary: one custom op streams 4096-row chunks with an online softmax and keeps E[tgt] − ē [T, H] only
//   (logprob.ts); no [T, V] tensor exists.
// - Measured (npm run bench -- tfjs): a 256-token LoRA step of the 0.5B shape peaks at ≈ 750 MiB of wasm heap and
//   ≈ 2.8 GB RSS (the JS-side weights).
// Native backends (tfjs-node, -gpu) and cpu have no such cap: weights stay resident.
import type {ModelConfig} from "../gguf/arch";
import type {BackendChoice} from "./backend";
import type {Residency} from "./weights";

/** Above this many bytes of fp32 base weights, wasm streams them from JS memory. */
export const WASM_RESIDENT_LIMIT = 1 << 30;
/** Activations autograd may keep (no checkpointing) before per-layer checkpointing turns on: wasm / others. */
export const ACTIVATION_BUDGET = {wasm: 1.5 * 2 ** 30, other: 8 * 2 ** 30};

/** Parameters of the base network (embedding counted once when tied). */
export function paramCount(c: ModelConfig): number {
    const q = c.nHead * c.headDim, kv = c.nHeadKv * c.headDim;
    const perLayer = c.nEmbd * (q + 2 * kv) + q * c.nEmbd + 3 * c.nEmbd * c.nFf + 2 * c.nEmbd + (c.qkvBias ? q + 2 * kv : 0);
    return c.nLayer * perLayer + c.nVocab * c.nEmbd * (c.tiedOutput ? 1 : 2) + c.nEmbd;
}

/** Where base weights should live for this backend. */
export function chooseResidency(c: ModelConfig, backend: BackendChoice, trainBase = false): Residency {
    if (trainBase) return "trainable";
    if (backend === "wasm" && paramCount(c) * 4 > WASM_RESIDENT_LIMIT) return "streamed";
    return "resident";
}

export interface MemoryEstimate {
    /** fp32 base weights in bytes */
    weights: number;
    /** bytes on the backend for weights (all, or the largest streamed unit) */
    backendWeights: number;
    /** checkpointed layer inputs + one layer's recompute + vocab chunk logits, bytes */
    activations: number;
}

/**
 * Bytes autograd keeps for one layer's backward at T tokens without checkpointing — fitted to measurements on a
 * 0.5B layer at T = 256 with LoRA on all seven targets: 118 MiB with the fused MLP (mlp.ts), 236 MiB without.
 * tfjs's tape keeps the inputs of most ops alive (even Add keeps both, for their shapes), so this is far above
 * the handful of tensors the maths needs.
 */
export function layerActivationBytes(c: ModelConfig, T: number, fusedMlp = true): number {
    return (T * (14 * c.nEmbd + (fusedMlp ? 3 : 28) * c.nFf) + 26 * c.nHead * T * T) * 4;
}

/**
 * Whether to checkpoint each layer for a T-token pass: only when keeping every layer's activations would pass the
 * budget (recomputing costs one more forward of the layers, ≈ +50 % of a step).
 */
export function shouldCheckpoint(c: ModelConfig, T: number, backend: string): boolean {
    return c.nLayer * layerActivationBytes(c, T) > (backend === "wasm" ? ACTIVATION_BUDGET.wasm : ACTIVATION_BUDGET.other);
}

/** Rough peak estimate for a T-token forward+backward (see the plan above). */
export function estimateMemory(c: ModelConfig, T: number, residency: Residency, vocabChunk = 16384): MemoryEstimate {
    const f = 4, weights = paramCount(c) * f;
    const q = c.nHead * c.headDim, kv = c.nHeadKv * c.headDim;
    const layer = (c.nEmbd * (q + 2 * kv) + q * c.nEmbd + 3 * c.nEmbd * c.nFf) * f;
    const chunk = Math.min(vocabChunk, c.nVocab) * c.nEmbd * f;
    const backendWeights = residency === "streamed" ? Math.max(layer, chunk) : weights * (residency === "trainable" ? 4 : 1); // Adam: + m, v, grad
    const layerActs = layerActivationBytes(c, T);
    const activations = c.nLayer * T * c.nEmbd * f + layerActs + 3 * Math.min(vocabChunk, c.nVocab) * T * f;
    return {weights, backendWeights, activations};
}
