// Owns one llama/qwen2 decoder layer as llama.cpp computes it: RMSNorm → q/k/v (+bias) (+LoRA) → RoPE → causal
// GQA attention → output projection → residual; RMSNorm → SwiGLU MLP → residual. A pure function of its inputs,
// so activation checkpointing can re-run it. Knows nothing of where weights live (BlockParams resolves them).
import * as tf from "@tensorflow/tfjs-core";
import type {ModelConfig} from "../gguf/arch";
import {gqaAttention, heads} from "./attention";
import {attentionFused, type AttnLora} from "./attention-op";
import {rmsNorm} from "./norm";
import {swigluMlp} from "./mlp";
import {applyRope, type RopeTables} from "./rope";

/** Resolves a layer's tensors by full ggml name ("blk.3.attn_q.weight"). */
export interface BlockParams {
    /** h [T, n_in] · W [n_in, n_out] for base matrix `name` (frozen or trainable, the resolver knows). */
    matmul(name: string, h: tf.Tensor2D): tf.Tensor2D;
    /** A fetcher of base matrix `name` [n_in, n_out] when it is frozen (then fused ops may use it), else undefined. */
    frozen(name: string): (() => tf.Tensor2D) | undefined;
    /** norm weight / bias [n], if present */
    vector(name: string): tf.Tensor1D | undefined;
    /** LoRA factors of a base matrix: a [n_in, r], b [r, n_out], if adapted */
    lora(name: string): {a: tf.Tensor; b: tf.Tensor} | undefined;
    /** alpha / r */
    loraScale: number;
}

export interface BlockContext {
    rope: RopeTables;
    /** causalMask(T, nHead / nHeadKv) */
    mask: tf.Tensor2D;
}

export {rmsNorm};

/** h [T, n_in] → h·W (+ bias) + scale·(h·A)·B  [T, n_out] */
function linear(p: BlockParams, name: string, h: tf.Tensor2D, bias?: tf.Tensor1D): tf.Tensor2D {
    let y: tf.Tensor = p.matmul(name, h);
    if (bias) y = tf.add(y, bias);
    const l = p.lora(name);
    if (l) y = tf.add(y, tf.mul(tf.matMul(tf.matMul(h, l.a as tf.Tensor2D), l.b as tf.Tensor2D), p.loraScale));
    return y as tf.Tensor2D;
}

const ATTN = ["attn_q", "attn_k", "attn_v", "attn_output"] as const;

/** Whether layer i's attention runs as the fused op (frozen base: it keeps only x, q̂, k̂, v for backward). */
export function attentionFusedFor(i: number, p: BlockParams): boolean {
    return ATTN.every(m => p.frozen(`blk.${i}.${m}.weight`));
}

/** Attention half of layer i (the fused op of attention-op.ts when the base is frozen): x + attn(norm(x))  [T, nEmbd] → [T, nEmbd]. */
export function attentionBlock(c: ModelConfig, i: number, p: BlockParams, x: tf.Tensor2D, ctx: BlockContext): tf.Tensor2D {
    const n = (s: string) => `blk.${i}.${s}`, v = (s: string) => p.vector(n(s));
    const [wq, wk, wv, wo] = ATTN.map(m => p.frozen(n(`${m}.weight`)));
    if (wq && wk && wv && wo) {
        const lora: AttnLora = {scale: p.loraScale};
        for (const [key, m] of [["q", "attn_q"], ["k", "attn_k"], ["v", "attn_v"], ["o", "attn_output"]] as const) lora[key] = p.lora(n(`${m}.weight`));
        const bias = {q: v("attn_q.bias"), k: v("attn_k.bias"), v: v("attn_v.bias")};
        return attentionFused(x, c, {norm: v("attn_norm.weight")!, q: wq, k: wk, v: wv, o: wo, bias}, lora, ctx.rope, ctx.mask);
    }
    const h = rmsNorm(x, v("attn_norm.weight")!, c.rmsEps);                                  // [T, H]
    const q = linear(p, n("attn_q.weight"), h, v("attn_q.bias"));                            // [T, nHead·d]
    const k = linear(p, n("attn_k.weight"), h, v("attn_k.bias"));                            // [T, nHeadKv·d]
    const val = linear(p, n("attn_v.weight"), h, v("attn_v.bias"));                          // [T, nHeadKv·d]
    const qh = applyRope(heads(q, c.nHead, c.headDim), ctx.rope);                            // [nHead, T, d]
    const kh = applyRope(heads(k, c.nHeadKv, c.headDim), ctx.rope);                          // [nHeadKv, T, d]
    const att = gqaAttention(qh, kh, heads(val, c.nHeadKv, c.headDim), ctx.mask);            // [T, nHead·d]
    return tf.add(x, linear(p, n("attn_output.weight"), att)) as tf.Tensor2D;                // [T, H]
}

/** Whether layer i's MLP runs as the fused op (frozen base: it keeps only h, g, u for backward). */
export function mlpFused(i: number, p: BlockParams): boolean {
    return ["ffn_gate", "ffn_up", "ffn_down"].every(m => p.frozen(`blk.${i}.${m}.weight`));
}

/** MLP half of layer i: x + SwiGLU(norm(x))  [T, nEmbd] → [T, nEmbd]. */
export function mlpBlock(c: ModelConfig, i: number, p: BlockParams, x: tf.Tensor2D): tf.Tensor2D {
    const n = (s: string) => `blk.${i}.${s}`, normW = p.vector(n("ffn_norm.weight"))!;
    const [wg, wu, wd] = ["ffn_gate", "ffn_up", "ffn_down"].map(m => p.frozen(n(`${m}.weight`)));
    if (wg && wu && wd) {
        const lora = {gate: p.lora(n("ffn_gate.weight")), up: p.lora(n("ffn_up.weight")), down: p.lora(n("ffn_down.weight")), scale: p.loraScale};
        return swigluMlp(x, {gate: wg, up: wu, down: wd}, lora, {w: normW, eps: c.rmsEps});   // x + MLP(norm(x))
    }
    const h2 = rmsNorm(x, normW, c.rmsEps);                                                  // [T, H]
    const gate = linear(p, n("ffn_gate.weight"), h2);                                        // [T, nFf]
    const act = tf.mul(tf.mul(gate, tf.sigmoid(gate)), linear(p, n("ffn_up.weight"), h2)) as tf.Tensor2D; // silu(gate)·up
    return tf.add(x, linear(p, n("ffn_down.weight"), act)) as tf.Tensor2D;                   // [T, H]
}

/** Layer i: x [T, nEmbd] → [T, nEmbd]. Call inside a tidy / gradient scope. */
export function blockForward(c: ModelConfig, i: number, p: BlockParams, x: tf.Tensor2D, ctx: BlockContext): tf.Tensor2D {
    return mlpBlock(c, i, p, attentionBlock(c, i, p, x, ctx));
}
