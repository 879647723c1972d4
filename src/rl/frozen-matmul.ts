// Owns x·W for a FROZEN weight W that may be fetched anew for each use (streamed weights): a custom-gradient op
// that computes only dx = dy·Wᵀ and fetches W again in backward instead of letting the tape hold it. Without it,
// autograd would keep every layer's uploaded weights alive until backward — the whole model on the wasm heap.
import * as tf from "@tensorflow/tfjs-core";
import {customOp} from "./custom-grad";

/**
 * x [T, n_in] · W [n_in, n_out] → [T, n_out]; gradient flows into x only. `weight()` returns W: a long-lived tensor,
 * or a new one per call (then released by the op's tidy scopes).
 *
 * Backward computes dxᵀ = W · dyᵀ with the big W as the LEFT operand: wasm's XNNPACK packs (copies) its right
 * operand, and dy·Wᵀ would first transpose W and then pack the copy — measured 6 GFLOP/s instead of ~20.
 */
export function frozenMatMul(x: tf.Tensor2D, weight: () => tf.Tensor2D): tf.Tensor2D {
    const op = customOp(([xIn]) => ({
        value: tf.tidy(() => tf.matMul(xIn as tf.Tensor2D, weight())),
        gradFunc: dy => [frozenBackward(weight, dy as tf.Tensor2D)],
    }));
    return op(x) as tf.Tensor2D;
}

/** dx [T, n_in] = dy·Wᵀ for dy [T, n_out], computed as (W · dyᵀ)ᵀ with the frozen W [n_in, n_out] on the left. */
export function frozenBackward(weight: () => tf.Tensor2D, dy: tf.Tensor2D): tf.Tensor2D {
    return tf.tidy(() => tf.transpose(tf.matMul(weight(), dy, false, true)) as tf.Tensor2D);
}
