// Owns activation checkpointing: run a function keeping only its input for backward, and recompute its
// activations under a fresh tape when the gradient is needed (≈ one extra forward, memory of one layer).
import * as tf from "@tensorflow/tfjs-core";
import {customOp, gradsInBackward} from "./custom-grad";

/**
 * y = f(x, params, consts) where only x (and `consts`) are saved for backward.
 * - params: tensors that need gradients besides x (the trainable variables f uses).
 * - consts: tensors f reads that the caller's scope may dispose before backward runs (RoPE tables, masks): tf.grads
 *   tidies the forward pass away, so anything f closes over that is not long-lived must come through here.
 * Frozen weights may be closed over when long-lived, or re-created inside f (streamed).
 */
export function checkpointed(
    f: (x: tf.Tensor, params: tf.Tensor[], consts: tf.Tensor[]) => tf.Tensor,
    x: tf.Tensor, params: tf.Tensor[], consts: tf.Tensor[] = [],
): tf.Tensor {
    const op = customOp(([xIn, ...ps], save) => {
        save([xIn!, ...consts]);
        const value = tf.tidy(() => f(xIn!, ps, consts));
        return {
            value,
            gradFunc: (dy, saved) => {
                const [xs, ...cs] = saved;
                return gradsInBackward((x_, ...ps_) => f(x_!, ps_, cs), [xs!, ...ps], dy);
            },
        };
    });
    return op(x, ...params);
}
