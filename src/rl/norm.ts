// Owns RMSNorm as llama.cpp computes it (x · rsqrt(mean(x²) + eps) · w) and its hand-written input gradient for
// fused ops. Knows nothing of layers or weights.
import * as tf from "@tensorflow/tfjs-core";

/** x · rsqrt(mean(x²) + eps) · w;  x [T, H], w [H] */
export function rmsNorm(x: tf.Tensor2D, w: tf.Tensor1D, eps: number): tf.Tensor2D {
    return tf.mul(tf.mul(x, tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), eps))), w) as tf.Tensor2D;
}

/**
 * dL/dx of rmsNorm for upstream dh [T, H] (w frozen): with r = rsqrt(mean(x²) + eps), n = x·r, dn = dh ⊙ w,
 * dx = r ⊙ (dn − n ⊙ mean(dn ⊙ n)).
 */
export function rmsNormBackward(x: tf.Tensor2D, w: tf.Tensor1D, eps: number, dh: tf.Tensor2D): tf.Tensor2D {
    return tf.tidy(() => {
        const r = tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), eps));                  // [T, 1]
        const n = tf.mul(x, r), dn = tf.mul(dh, w);                                          // [T, H]
        return tf.mul(r, tf.sub(dn, tf.mul(n, tf.mean(tf.mul(dn, n), -1, true)))) as tf.Tensor2D;
    });
}
