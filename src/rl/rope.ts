// Owns rotary position embeddings as llama.cpp computes them: NORM (llama: rotates adjacent pairs (2i, 2i+1)) and
// NEOX (qwen2: rotates (i, i + d/2)), with the file's frequency base. Knows nothing of attention or weights.
//
// Angles are computed the way ggml's CPU kernel does (float32 recurrence θ_{i+1} = θ_i · base^(−2/d), θ_0 = pos),
// not as pos · base^(−2i/d) in double: at pos 256 the two differ by ~1e-4 rad, which alone would exceed the
// 1e-4 logit parity budget. Both modes are one formula: rope(x) = x ⊙ cos + (x · R) ⊙ sin, where R is the signed
// permutation that maps each pair (a, b) to (−b, a) — a tiny [d, d] matmul, differentiable on every backend.
import * as tf from "@tensorflow/tfjs-core";
import type {RopeType} from "../gguf/arch";

export interface RopeTables {
    /** [T, d] cos θ per position and channel (both channels of a pair share θ). */
    cos: tf.Tensor2D;
    /** [T, d] sin θ. */
    sin: tf.Tensor2D;
    /** [d, d] signed pair permutation: (x·R)[first] = −x[second], (x·R)[second] = x[first]. */
    rot: tf.Tensor2D;
}

/** Channel index of the two members of pair i (0 ≤ i < d/2). */
function pair(type: RopeType, d: number, i: number): [number, number] {
    return type === "norm" ? [2 * i, 2 * i + 1] : [i, i + d / 2];
}

/** Angles θ[pos][i] (float32, as ggml_rope_cache_init), i < d/2. */
export function ropeAngles(T: number, d: number, base: number, pos0 = 0): Float32Array {
    const f = Math.fround, half = d / 2;
    const thetaScale = f(Math.pow(f(base), f(-2 / d)));
    const out = new Float32Array(T * half);
    for (let t = 0; t < T; t++) {
        let theta = f(pos0 + t);
        for (let i = 0; i < half; i++) { out[t * half + i] = theta; theta = f(theta * thetaScale); }
    }
    return out;
}

/** Tables for positions pos0 .. pos0+T−1 (caller disposes, e.g. inside tf.tidy). */
export function ropeTables(T: number, d: number, base: number, type: RopeType, pos0 = 0): RopeTables {
    if (d % 2 !== 0) throw new Error(`rope: head dim ${d} is odd`);
    const theta = ropeAngles(T, d, base, pos0), half = d / 2;
    const cos = new Float32Array(T * d), sin = new Float32Array(T * d), rot = new Float32Array(d * d);
    for (let t = 0; t < T; t++) for (let i = 0; i < half; i++) {
        const th = theta[t * half + i]!, c = Math.fround(Math.cos(th)), s = Math.fround(Math.sin(th));
        const [a, b] = pair(type, d, i);
        cos[t * d + a] = c; cos[t * d + b] = c;
        sin[t * d + a] = s; sin[t * d + b] = s;
    }
    for (let i = 0; i < half; i++) {
        const [a, b] = pair(type, d, i);
        rot[b * d + a] = -1;   // out[a] = −x[b]
        rot[a * d + b] = 1;    // out[b] =  x[a]
    }
    return {cos: tf.tensor2d(cos, [T, d]), sin: tf.tensor2d(sin, [T, d]), rot: tf.tensor2d(rot, [d, d])};
}

/** x: [nH, T, d] → rotated [nH, T, d]. */
export function applyRope(x: tf.Tensor3D, r: RopeTables): tf.Tensor3D {
    return tf.tidy(() => {
        const [nH, T, d] = x.shape;
        const xr = tf.reshape(tf.matMul(tf.reshape(x, [nH * T, d]), r.rot), [nH, T, d]);   // [nH, T, d]
        return tf.add(tf.mul(x, r.cos), tf.mul(xr, r.sin)) as tf.Tensor3D;               // cos/sin broadcast over heads
    });
}

/** Gradient through applyRope: dy [nH, T, d] → dx = dy ⊙ cos + (dy ⊙ sin) · Rᵀ  [nH, T, d]. */
export function applyRopeBackward(dy: tf.Tensor3D, r: RopeTables): tf.Tensor3D {
    return tf.tidy(() => {
        const [nH, T, d] = dy.shape;
        const ds = tf.reshape(tf.mul(dy, r.sin), [nH * T, d]);                           // [nH·T, d]
        return tf.add(tf.mul(dy, r.cos), tf.reshape(tf.matMul(ds, r.rot, false, true), [nH, T, d])) as tf.Tensor3D;
    });
}
