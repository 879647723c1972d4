// Owns the attention half of a layer with a frozen base and optional LoRA on q/k/v/o as ONE custom-gradient op:
//   h = rmsNorm(x),  q/k/v = h·W + b + s·(h·A)·B,  q̂, k̂ = rope(q, k),  o = softmax(q̂·k̂ᵀ/√d + mask)·v  (GQA),
//   y = x + o·Wo + s·(o·Ao)·Bo
// Autograd would keep ≈ 26·nHead·T² floats per layer (the tape saves the inputs of most ops), which forced
// per-layer recomputation of the whole half — q/k/v/o projections and their streamed weights included. This op
// keeps x and q̂, k̂, v only (T·(H + (nHead + 2·nHeadKv)·d) floats); backward recomputes just the cheap parts
// (the norm, the [nKv, g·T, T] probabilities: 2 small matmuls per KV head) and never the projections. Frozen
// weights are fetched again in backward, always as the LEFT matmul operand (see frozen-matmul.ts).
// Forward runs exactly the ops of the unfused attentionBlock (block.ts), so logits are bit-identical.
import * as tf from "@tensorflow/tfjs-core";
import {attentionProbs, gqaAttention, heads, mergeHeads} from "./attention";
import {customOp} from "./custom-grad";
import {frozenBackward} from "./frozen-matmul";
import {rmsNorm, rmsNormBackward} from "./norm";
import {applyRope, applyRopeBackward, type RopeTables} from "./rope";

type T2 = tf.Tensor2D;
type T3 = tf.Tensor3D;
const KEYS = ["q", "k", "v", "o"] as const;
type Key = (typeof KEYS)[number];

export interface AttnWeights {
    /** [H] attention RMSNorm weight */
    norm: tf.Tensor1D;
    /** [H, nHead·d] */
    q: () => T2;
    /** [H, nHeadKv·d] */
    k: () => T2;
    /** [H, nHeadKv·d] */
    v: () => T2;
    /** [nHead·d, H] */
    o: () => T2;
    /** optional biases [n_out] of q, k, v (long-lived: closed over, never differentiated) */
    bias: Partial<Record<"q" | "k" | "v", tf.Tensor1D>>;
}

/** LoRA factors (a [n_in, r], b [r, n_out]) per projection, scale s = alpha / r. */
export type AttnLora = Partial<Record<Key, {a: tf.Tensor; b: tf.Tensor}>> & {scale: number};

export interface AttnShape {
    nHead: number;
    nHeadKv: number;
    headDim: number;
    rmsEps: number;
}

/**
 * x [T, H] → x + attention(rmsNorm(x))  [T, H]. Gradients flow into x and the LoRA factors given.
 * `rope` and `mask` (causalMask(T, nHead/nHeadKv)) may be short-lived: the op saves them for backward.
 */
export function attentionFused(x: T2, c: AttnShape, w: AttnWeights, lora: AttnLora, rope: RopeTables, mask: T2): T2 {
    const present = KEYS.filter(k => lora[k]);
    const s = lora.scale, {nHead, nHeadKv: nKv, headDim: d, rmsEps: eps} = c, g = nHead / nKv;
    const op = customOp((inputs, save) => {
        const [xIn, ...flat] = inputs as [T2, ...tf.Tensor[]];
        const L: Partial<Record<Key, {a: T2; b: T2}>> = Object.fromEntries(present.map((k, i) => [k, {a: flat[2 * i] as T2, b: flat[2 * i + 1] as T2}]));
        /** h [T, n_in] → h·W (+ bias) + s·(h·A)·B  [T, n_out], the op order of block.ts's `linear` */
        const proj = (h: T2, k: Key, W: T2, bias?: tf.Tensor1D): T2 => {
            let y: tf.Tensor = tf.matMul(h, W);
            if (bias) y = tf.add(y, bias);
            const l = L[k];
            if (l) y = tf.add(y, tf.mul(tf.matMul(tf.matMul(h, l.a), l.b), s));
            return y as T2;
        };
        const [qr, kr, vh, value] = tf.tidy(() => {
            const h = rmsNorm(xIn, w.norm, eps);                                             // [T, H]
            const q = proj(h, "q", w.q(), w.bias.q), k = proj(h, "k", w.k(), w.bias.k);       // [T, nHead·d], [T, nKv·d]
            const v = proj(h, "v", w.v(), w.bias.v);                                          // [T, nKv·d]
            const qr = applyRope(heads(q, nHead, d), rope);                                   // [nHead, T, d]
            const kr = applyRope(heads(k, nKv, d), rope);                                     // [nKv, T, d]
            const vh = heads(v, nKv, d);                                                      // [nKv, T, d]
            const att = gqaAttention(qr, kr, vh, mask);                                       // [T, nHead·d]
            return [qr, kr, vh, tf.add(xIn, proj(att, "o", w.o()))];                          // …, [T, H]
        });
        save([xIn, qr, kr, vh, rope.cos, rope.sin, rope.rot, mask]);
        return {
            value,
            gradFunc: (dy, saved) => tf.tidy(() => {
                const [xs, qs, ks, vs, cos, sin, rot, m] = saved as [T2, T3, T3, T3, T2, T2, T2, T2];
                const T = xs.shape[0], r = {cos, sin, rot};
                const grads: Partial<Record<Key, tf.Tensor[]>> = {};
                /** dX of y = x·W + s·(x·A)·B for upstream dY [T, n_out]; records dA, dB. x: () => [T, n_in] */
                const back = (k: Key, x: () => T2, dY: T2, W: () => T2): T2 => {
                    let dx: tf.Tensor = frozenBackward(W, dY);                               // dY·Wᵀ [T, n_in]
                    const l = L[k];
                    if (l) {
                        const xv = x(), t = tf.matMul(dY, l.b, false, true);                 // dY·Bᵀ [T, r]
                        dx = tf.add(dx, tf.mul(tf.matMul(t, l.a, false, true), s));           // + s·t·Aᵀ
                        grads[k] = [
                            tf.mul(tf.matMul(xv, t, true, false), s),                         // dA = s·xᵀ·t       [n_in, r]
                            tf.mul(tf.matMul(tf.matMul(xv, l.a), dY, true, false), s),        // dB = s·(x·A)ᵀ·dY  [r, n_out]
                        ];
                    }
                    return dx as T2;
                };
                const qg = tf.reshape(qs, [nKv, g * T, d]) as T3;                              // [nKv, g·T, d]
                const p = attentionProbs(qg, ks, m);                                          // [nKv, g·T, T]
                const att = () => mergeHeads(tf.reshape(tf.matMul(p, vs), [nHead, T, d]) as T3); // [T, nHead·d]
                const dO = tf.reshape(heads(back("o", att, dy as T2, w.o), nHead, d), [nKv, g * T, d]) as T3; // [nKv, g·T, d]
                const dV = tf.matMul(p, dO, true, false) as T3;                               // Pᵀ·dO   [nKv, T, d]
                const dP = tf.matMul(dO, vs, false, true);                                    // dO·vᵀ   [nKv, g·T, T]
                const dS = tf.mul(tf.mul(p, tf.sub(dP, tf.sum(tf.mul(dP, p), -1, true))), 1 / Math.sqrt(d)); // softmax' / √d
                const dQ = tf.reshape(tf.matMul(dS, ks), [nHead, T, d]) as T3;                // dS·k    [nHead, T, d]
                const dK = tf.matMul(dS, qg, true, false) as T3;                              // dSᵀ·q   [nKv, T, d]
                let hv: T2 | undefined;
                const h = () => (hv ??= rmsNorm(xs, w.norm, eps));                            // [T, H] (LoRA grads only)
                const dh = tf.addN([
                    back("q", h, mergeHeads(applyRopeBackward(dQ, r)), w.q),
                    back("k", h, mergeHeads(applyRopeBackward(dK, r)), w.k),
                    back("v", h, mergeHeads(dV), w.v),
                ]) as T2;                                                                      // [T, H]
                const dx = tf.add(dy, rmsNormBackward(xs, w.norm, eps, dh));                  // residual + norm
                return [dx, ...present.flatMap(k => grads[k]!)];
            }),
        };
    });
    return op(x, ...present.flatMap(k => [lora[k]!.a, lora[k]!.b])) as T2;
}
