// Owns causal grouped-query self-attention over already-projected, already-rotated heads (no KV cache: training
// and scoring always see the whole sequence). Knows nothing of projections, RoPE or LoRA.
import * as tf from "@tensorflow/tfjs-core";

/** Additive causal mask [g·T, T] for g query heads stacked per KV head: 0 where key j ≤ query i, −1e9 after. */
export function causalMask(T: number, g: number): tf.Tensor2D {
    const m = new Float32Array(g * T * T);
    for (let r = 0; r < g * T; r++) {
        const i = r % T;
        for (let j = i + 1; j < T; j++) m[r * T + j] = -1e9;
    }
    return tf.tensor2d(m, [g * T, T]);
}

/**
 * softmax(q·kᵀ / √d + mask) · v with GQA: query heads h·g … h·g+g−1 share KV head h (llama.cpp's order), done
 * without repeating K/V by stacking each group's queries as rows.
 * q: [nHead, T, d], k/v: [nHeadKv, T, d], mask: causalMask(T, nHead/nHeadKv) → [T, nHead·d].
 */
export function gqaAttention(q: tf.Tensor3D, k: tf.Tensor3D, v: tf.Tensor3D, mask: tf.Tensor2D): tf.Tensor2D {
    return tf.tidy(() => {
        const [nHead, T, d] = q.shape, nKv = k.shape[0], g = nHead / nKv;
        const qg = tf.reshape(q, [nKv, g * T, d]);                                       // [nKv, g·T, d]
        const s = tf.add(tf.mul(tf.matMul(qg, k, false, true), 1 / Math.sqrt(d)), mask);  // [nKv, g·T, T]
        const o = tf.matMul(tf.softmax(s), v);                                            // [nKv, g·T, d]
        const heads = tf.transpose(tf.reshape(o, [nHead, T, d]), [1, 0, 2]);              // [T, nHead, d]
        return tf.reshape(heads, [T, nHead * d]) as tf.Tensor2D;
    });
}
