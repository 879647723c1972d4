// Owns causal grouped-query self-attention over already-projected, already-rotated heads (no KV cache: training
// and scoring always see the whole sequence), and the head layout helpers. Knows nothing of projections, RoPE or LoRA.
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

/** [T, n·d] → [n, T, d] */
export function heads(x: tf.Tensor2D, n: number, d: number): tf.Tensor3D {
    return tf.transpose(tf.reshape(x, [x.shape[0], n, d]), [1, 0, 2]) as tf.Tensor3D;
}

/** [n, T, d] → [T, n·d] (inverse of heads) */
export function mergeHeads(x: tf.Tensor3D): tf.Tensor2D {
    const [n, T, d] = x.shape;
    return tf.reshape(tf.transpose(x, [1, 0, 2]), [T, n * d]) as tf.Tensor2D;
}

/**
 * softmax(qg·kᵀ / √d + mask): qg [nKv, g·T, d] (each KV head's g query heads stacked as rows), k [nKv, T, d],
 * mask causalMask(T, g) → probabilities [nKv, g·T, T].
 */
export function attentionProbs(qg: tf.Tensor3D, k: tf.Tensor3D, mask: tf.Tensor2D): tf.Tensor3D {
    return tf.tidy(() => {
        const d = qg.shape[2];
        return tf.softmax(tf.add(tf.mul(tf.matMul(qg, k, false, true), 1 / Math.sqrt(d)), mask)) as tf.Tensor3D;
    });
}

/**
 * softmax(q·kᵀ / √d + mask) · v with GQA: query heads h·g … h·g+g−1 share KV head h (llama.cpp's order), done
 * without repeating K/V by stacking each group's queries as rows.
 * q: [nHead, T, d], k/v: [nHeadKv, T, d], mask: causalMask(T, nHead/nHeadKv) → [T, nHead·d].
 */
export function gqaAttention(q: tf.Tensor3D, k: tf.Tensor3D, v: tf.Tensor3D, mask: tf.Tensor2D): tf.Tensor2D {
    return tf.tidy(() => {
        const [nHead, T, d] = q.shape, nKv = k.shape[0], g = nHead / nKv;
        const qg = tf.reshape(q, [nKv, g * T, d]) as tf.Tensor3D;                          // [nKv, g·T, d]
        const o = tf.matMul(attentionProbs(qg, k, mask), v);                              // [nKv, g·T, d]
        return mergeHeads(tf.reshape(o, [nHead, T, d]) as tf.Tensor3D);                   // [T, nHead·d]
    });
}
