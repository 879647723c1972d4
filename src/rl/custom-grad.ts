// Owns the two tfjs autograd helpers nano-rl's ops are built on: a typed `tf.customGrad` wrapper, and gradients
// computed INSIDE a backward pass (for recomputation), which plain tf.grads cannot do.
import * as tf from "@tensorflow/tfjs-core";

export interface CustomOpResult {
    value: tf.Tensor;
    /** One gradient per input, in input order (tfjs asks for all of them). */
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.Tensor[];
}

/**
 * An op with a hand-written gradient. Everything `f` closes over is a constant to autograd: pass as inputs only
 * the tensors that may need a gradient (each costs its gradient's computation in backward).
 */
export function customOp(f: (inputs: tf.Tensor[], save: tf.GradSaveFunc) => CustomOpResult): (...inputs: tf.Tensor[]) => tf.Tensor {
    const op = tf.customGrad(((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
        const save = args.pop() as tf.GradSaveFunc;
        return f(args as tf.Tensor[], save);
    }) as Parameters<typeof tf.customGrad>[0]);
    return (...inputs: tf.Tensor[]) => op(...inputs);
}

/**
 * d(f(xs)·dy)/dxs, callable from inside a gradFunc. tfjs keeps one global tape: a tf.grads() during the outer
 * backward pass would null it ("Cannot read properties of null (reading 'forEach')"), so it is saved and restored.
 */
export function gradsInBackward(f: (...xs: tf.Tensor[]) => tf.Tensor, xs: tf.Tensor[], dy: tf.Tensor): tf.Tensor[] {
    const state = (tf.engine() as unknown as {state: {activeTape: unknown}}).state;
    const outer = state.activeTape;
    try {
        return tf.grads(f)(xs, dy);
    } finally {
        state.activeTape = outer;
    }
}
