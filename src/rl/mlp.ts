// Owns the SwiGLU MLP with a frozen base and optional LoRA on gate/up/down as ONE custom-gradient op:
//   g = h·Wg + s·(h·Ag)·Bg,  u = h·Wu + s·(h·Au)·Bu,  a = silu(g) ⊙ u,  y = a·Wd + s·(a·Ad)·Bd
// Autograd would keep ≈ 44 [T, nFf] tensors per layer (tfjs saves the inputs of most ops: 236 MiB per 0.5B layer at
// T = 256), which forces per-layer recomputation; this op keeps h, g and u only (≈ 2·T·nFf floats) and writes the
// backward by hand, so the MLP — 88 % of a layer's FLOPs — is never recomputed. Frozen weights are fetched again in
// backward (streamed weights stay off the heap between uses), always as the LEFT matmul operand (see frozen-matmul.ts).
import * as tf from "@tensorflow/tfjs-core";
import {customOp} from "./custom-grad";
import {rmsNorm, rmsNormBackward} from "./norm";

type T2 = tf.Tensor2D;

export interface MlpWeights {
    /** [H, nFf] */
    gate: () => T2;
    /** [H, nFf] */
    up: () => T2;
    /** [nFf, H] */
    down: () => T2;
}

/** LoRA factors (a [n_in, r], b [r, n_out]) per projection, scale s = alpha / r. */
export interface MlpLora {
    gate?: {a: tf.Tensor; b: tf.Tensor};
    up?: {a: tf.Tensor; b: tf.Tensor};
    down?: {a: tf.Tensor; b: tf.Tensor};
    scale: number;
}

const KEYS = ["gate", "up", "down"] as const;

/** x·Wᵀ-free dX for a frozen W [n_in, n_out]: dX [T, n_in] = (W · dYᵀ)ᵀ */
const backThrough = (W: T2, dY: tf.Tensor) => tf.transpose(tf.matMul(W, dY as T2, false, true)) as T2;

/**
 * h [T, H] → [T, H]. Gradients flow into h and the LoRA factors given. With `norm` the op takes the residual stream
 * x instead and returns x + MLP(rmsNorm(x)): the norm is recomputed in backward, so the tape keeps x alone
 * (autograd's norm and residual add would keep 3 more [T, H] tensors per layer).
 */
export function swigluMlp(h: T2, w: MlpWeights, lora: MlpLora, norm?: {w: tf.Tensor1D; eps: number}): T2 {
    const present = KEYS.filter(k => lora[k]);
    const s = lora.scale;
    const op = customOp((inputs, save) => {
        const [hIn, ...flat] = inputs as [T2, ...tf.Tensor[]];
        const L = Object.fromEntries(present.map((k, i) => [k, {a: flat[2 * i]! as T2, b: flat[2 * i + 1]! as T2}])) as Partial<Record<(typeof KEYS)[number], {a: T2; b: T2}>>;
        const proj = (x: T2, k: (typeof KEYS)[number], W: T2) => {
            const y = tf.matMul(x, W);
            const l = L[k];
            return (l ? tf.add(y, tf.mul(tf.matMul(tf.matMul(x, l.a), l.b), s)) : y) as T2;
        };
        const [g, u, value] = tf.tidy(() => {
            const hn = norm ? rmsNorm(hIn, norm.w, norm.eps) : hIn;                            // [T, H]
            const g = proj(hn, "gate", w.gate()), u = proj(hn, "up", w.up());                // [T, nFf]
            const a = tf.mul(tf.mul(g, tf.sigmoid(g)), u) as T2;                               // silu(g) ⊙ u
            const y = proj(a, "down", w.down());                                              // [T, H]
            return [g, u, norm ? tf.add(hIn, y) : y];
        });
        save([hIn, g, u]);
        return {
            value,
            gradFunc: (dy, saved) => tf.tidy(() => {
                const [xs, gs, us] = saved as [T2, T2, T2];
                const hs = norm ? rmsNorm(xs, norm.w, norm.eps) : xs;                           // [T, H]
                const sg = tf.sigmoid(gs), silu = tf.mul(gs, sg), a = tf.mul(silu, us) as T2;  // [T, nFf]
                const grads: Partial<Record<(typeof KEYS)[number], {a: tf.Tensor; b: tf.Tensor}>> = {};
                /** dX of y = x·W + s·(x·A)·B for upstream dY; records dA, dB. */
                const back = (k: (typeof KEYS)[number], x: T2, dY: tf.Tensor, W: () => T2): tf.Tensor => {
                    let dx: tf.Tensor = backThrough(W(), dY);
                    const l = L[k];
                    if (l) {
                        const t = tf.matMul(dY as T2, l.b, false, true);                     // dY·Bᵀ [T, r]
                        dx = tf.add(dx, tf.mul(tf.matMul(t, l.a, false, true), s));           // + s·t·Aᵀ
                        grads[k] = {
                            a: tf.mul(tf.matMul(x, t, true, false), s),                       // dA = s·xᵀ·t   [n_in, r]
                            b: tf.mul(tf.matMul(tf.matMul(x, l.a), dY as T2, true, false), s), // dB = s·(x·A)ᵀ·dY [r, n_out]
                        };
                    }
                    return dx;
                };
                const da = back("down", a, dy, w.down);                                       // [T, nFf]
                const dg = tf.mul(tf.mul(da, us), tf.mul(sg, tf.add(1, tf.mul(gs, tf.sub(1, sg))))); // silu'(g) = σ(1 + g(1 − σ))
                const du = tf.mul(da, silu);
                const dh = tf.add(back("gate", hs, dg, w.gate), back("up", hs, du, w.up));    // [T, H]
                const dx = norm ? tf.add(dy, rmsNormBackward(xs, norm.w, norm.eps, dh as T2)) : dh;   // residual + norm
                return [dx, ...present.flatMap(k => [grads[k]!.a, grads[k]!.b])];
            }),
        };
    });
    return op(h, ...present.flatMap(k => [lora[k]!.a, lora[k]!.b])) as T2;
}
