// Owns the token-embedding lookup over a vocabulary split in row chunks, differentiable on every backend.
// tf.gather's gradient needs UnsortedSegmentSum, which tfjs-backend-wasm lacks, so the trainable lookup is a
// custom-gradient op whose backward is a one-hot matmul per chunk: dE_c [n, H] = onehot_cᵀ [n, T] · dy [T, H].
import * as tf from "@tensorflow/tfjs-core";
import {customOp} from "./custom-grad";

/** Chunk-local index of each id (−1 where the id falls outside chunk [v0, v0+n)). */
function localIds(ids: readonly number[], v0: number, n: number): number[] {
    return ids.map(id => (id >= v0 && id < v0 + n ? id - v0 : -1));
}

/** rows E[ids] [T, H] from chunks E_c [n_c, H] starting at row starts[c] (no gradient). */
export function gatherRows(chunks: readonly tf.Tensor2D[], starts: readonly number[], ids: readonly number[]): tf.Tensor2D {
    return tf.tidy(() => {
        const parts: tf.Tensor2D[] = [];
        chunks.forEach((E, c) => {
            const loc = localIds(ids, starts[c]!, E.shape[0]);
            if (!loc.some(x => x >= 0)) return;
            const g = tf.gather(E, tf.tensor1d(loc.map(x => Math.max(x, 0)), "int32"));          // [T, H]
            parts.push(tf.mul(g, tf.tensor2d(loc.map(x => (x >= 0 ? 1 : 0)), [ids.length, 1])));  // zero foreign rows
        });
        return (parts.length === 1 ? parts[0]! : tf.addN(parts)) as tf.Tensor2D;
    });
}

/** rows E[ids] [T, H] whose gradient flows into the chunk tensors (full-parameter training). */
export function embedTrainable(chunks: readonly tf.Tensor2D[], starts: readonly number[], ids: readonly number[]): tf.Tensor2D {
    const op = customOp(es => ({
        value: gatherRows(es as tf.Tensor2D[], starts, ids),
        gradFunc: dy => es.map((E, c) => tf.tidy(() => {
            const oh = tf.oneHot(tf.tensor1d(localIds(ids, starts[c]!, E.shape[0]!), "int32"), E.shape[0]!);  // [T, n]
            return tf.matMul(tf.cast(oh, "float32"), dy, true, false);                                         // [n, H]
        })),
    }));
    return op(...chunks) as tf.Tensor2D;
}

/** rows E[ids] [T, H] read straight from row-major JS memory (streamed weights; no gradient). */
export function gatherRowsJs(E: Float32Array, nEmbd: number, ids: readonly number[]): tf.Tensor2D {
    const out = new Float32Array(ids.length * nEmbd);
    ids.forEach((id, t) => out.set(E.subarray(id * nEmbd, (id + 1) * nEmbd), t * nEmbd));
    return tf.tensor2d(out, [ids.length, nEmbd]);
}
