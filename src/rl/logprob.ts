// Owns the memory-lean vocabulary projection: log p(target_t) = logit_t[target_t] − logsumexp(logit_t) as ONE
// custom-gradient op over row chunks of the [V, H] output matrix E. No [T, V] tensor (logits or softmax) ever lives
// for backward — with V = 151936 and T = 256 that would be 156 MB per copy, and autograd keeps several.
//
// Frozen E (LoRA): the gradient is dh[t] = dy[t] · (E[tgt_t] − ē[t]) with ē[t] = Σ_v p[t, v] E[v] the expected
// output embedding. dy factors out per row, so the forward pass computes ē chunk by chunk with an online softmax
// (running max and rescaled sums, as flash attention does) and saves only D = E[tgt] − ē [T, H]: backward costs
// nothing, and the vocabulary is streamed once (2 matmuls per chunk instead of 3 with a backward recompute).
// Trainable E (full-parameter training) needs p per chunk again in backward: it saves lse [T] and recomputes.
//   forward:  l_c = E_c·hᵀ [n, T];  lse = logsumexp_v l;  lp[t] = h[t]·E[tgt_t] − lse[t]
//   backward: dh = dy ⊙ D                     (frozen E)
//             dh = dy ⊙ E[tgt] − Σ_c (p_cᵀ ⊙ dy)ᵀ·E_c;  dE_c = onehot_cᵀ·(dy ⊙ h) − (p_cᵀ ⊙ dy)·h   (trainable E)
// The big matrix is the LEFT operand of the forward matmul, and chunks default to 4096 rows: XNNPACK (wasm) runs a
// [T, n]·[n, H] product at ~16 GFLOP/s for n = 4096 but ~5 for n = 16384.
import * as tf from "@tensorflow/tfjs-core";
import {customOp} from "./custom-grad";
import {gatherRows} from "./embedding";

export interface VocabProjection {
    /** First vocabulary row of each chunk. */
    starts: readonly number[];
    /** Rows of each chunk. */
    sizes: readonly number[];
    /**
     * Chunk c [n_c, H]. Either a long-lived tensor, or one created for this call (streamed weights), which the
     * op's tidy scopes then release after use.
     */
    chunk(c: number): tf.Tensor2D;
    /** When the chunks are trainable (full-parameter training): these exact tensors, passed as op inputs. */
    trainable?: readonly tf.Tensor2D[];
    /** Rows E[ids] [T, H] straight from JS memory (streamed weights): spares one gather per chunk. */
    rows?: (ids: readonly number[]) => tf.Tensor2D;
}

/**
 * Exponents are clamped at −80 before exp: e^−80 ≈ 2e−35 is nothing next to the row's max term (1), but below
 * ≈ −87 float32 goes subnormal, and wasm (no flush-to-zero) then runs exp and the following matmul ~10× slower —
 * measured 49 s instead of ~15 s for a 256-token step on a model with confident (±100) logits.
 */
const EXP_FLOOR = -80;

function localIds(ids: readonly number[], v0: number, n: number): number[] {
    return ids.map(id => (id >= v0 && id < v0 + n ? id - v0 : -1));
}

/** True while a gradient tape records (inside tf.grads / variableGrads / minimize). */
function recording(): boolean {
    return ((tf.engine() as unknown as {state: {gradientDepth: number}}).state.gradientDepth ?? 0) > 0;
}

/** Online log-sum-exp (and optionally Σ softmax·E) over vocabulary chunks. */
interface Accum {
    /** running max [T] */
    m?: tf.Tensor1D;
    /** running Σ exp(l − m) [T] */
    s?: tf.Tensor1D;
    /** running Σ exp(l − m)·E[v] [T, H] (only when ē is needed) */
    u?: tf.Tensor2D;
}

/** Folds chunk logitsᵀ lt [n, T] (rows of E) into acc; returns the new accumulator (old one disposed). */
function fold(acc: Accum, lt: tf.Tensor2D, E: tf.Tensor2D, withU: boolean): Accum {
    return tf.tidy(() => {
        const mc = tf.max(lt, 0) as tf.Tensor1D;                                           // [T]
        const m = acc.m ? tf.maximum(acc.m, mc) as tf.Tensor1D : mc;                        // [T]
        const e = tf.exp(tf.maximum(tf.sub(lt, m), EXP_FLOOR));                              // [n, T]
        let s = tf.sum(e, 0) as tf.Tensor1D;                                                // [T]
        let u = withU ? tf.matMul(e, E, true, false) as tf.Tensor2D : undefined;            // [T, H]
        if (acc.m) {
            const w = tf.exp(tf.sub(acc.m, m));                                             // rescale old sums [T]
            s = tf.add(s, tf.mul(acc.s!, w)) as tf.Tensor1D;
            if (u) u = tf.add(u, tf.mul(acc.u!, tf.reshape(w, [-1, 1]))) as tf.Tensor2D;
        }
        return {m, s, u};
    });
}

/**
 * log p(targets[t] | h[t]) [T] for final hidden states h [T, H] (after the output norm).
 * Differentiable in h (and in `proj.trainable` when given). Targets are plain ids (not a tensor).
 */
export function tokenLogprobs(h: tf.Tensor2D, targets: readonly number[], proj: VocabProjection): tf.Tensor1D {
    const T = h.shape[0], C = proj.starts.length, trainable = proj.trainable;
    if (targets.length !== T) throw new Error(`tokenLogprobs: ${targets.length} targets for ${T} positions`);
    const chunkAt = (c: number, inputs: tf.Tensor[]) => (trainable ? inputs[1 + c] as tf.Tensor2D : proj.chunk(c));
    const locs = proj.starts.map((v0, c) => localIds(targets, v0, proj.sizes[c]!));
    const withU = !trainable && recording();
    const jsRows = trainable ? undefined : proj.rows;
    const op = customOp((inputs, save) => {
        const hIn = inputs[0] as tf.Tensor2D;
        const [value, lse, D] = tf.tidy(() => {
            const hT = tf.transpose(hIn) as tf.Tensor2D;                                    // [H, T]
            let acc: Accum = {};
            const rows: tf.Tensor[] = [];
            for (let c = 0; c < C; c++) {
                const {row, ...next} = tf.tidy(() => {
                    const E = chunkAt(c, inputs);
                    const row = !jsRows && locs[c]!.some(x => x >= 0) ? gatherRows([E], [0], locs[c]!) : undefined; // E[tgt] ∩ chunk [T, H]
                    return {...fold(acc, tf.matMul(E, hT) as tf.Tensor2D, E, withU), row};  // logitsᵀ [n, T]
                });
                if (row) rows.push(row);
                tf.dispose([acc.m, acc.s, acc.u].filter(t => t !== undefined) as tf.Tensor[]);
                acc = next;
            }
            const eTgt = (jsRows ? jsRows(targets) : rows.length === 1 ? rows[0]! : tf.addN(rows)) as tf.Tensor2D; // E[tgt] [T, H]
            const lse = tf.add(acc.m!, tf.log(acc.s!)) as tf.Tensor1D;                      // [T]
            const picked = tf.sum(tf.mul(hIn, eTgt), 1);                                   // [T]
            const D = acc.u ? tf.sub(eTgt, tf.div(acc.u, tf.reshape(acc.s!, [-1, 1]))) : undefined; // E[tgt] − ē [T, H]
            return [tf.sub(picked, lse) as tf.Tensor1D, lse, D] as const;
        });
        save(trainable ? [hIn, lse] : D ? [D] : []);
        if (!trainable) lse.dispose();
        return {
            value,
            gradFunc: (dy, saved) => tf.tidy(() => {
                const dyCol = tf.reshape(dy, [T, 1]);
                if (!trainable) {
                    if (!saved[0]) throw new Error("tokenLogprobs: gradient requested outside the recording scope");
                    return [tf.mul(saved[0], dyCol)];                                       // dh = dy ⊙ (E[tgt] − ē)
                }
                return trainableGrads(saved[0] as tf.Tensor2D, saved[1] as tf.Tensor1D, dy, c => chunkAt(c, inputs), locs);
            }),
        };
    });
    return op(h, ...(trainable ?? [])) as tf.Tensor1D;
}

/** Backward for trainable chunks: recompute each chunk's softmax; grads [dh, dE_0, …]. */
function trainableGrads(hs: tf.Tensor2D, lse: tf.Tensor1D, dy: tf.Tensor, chunk: (c: number) => tf.Tensor2D, locs: number[][]): tf.Tensor[] {
    const T = hs.shape[0];
    const dyRow = tf.reshape(dy, [1, T]), dyCol = tf.reshape(dy, [T, 1]);
    const hT = tf.transpose(hs) as tf.Tensor2D;                                             // [H, T]
    const dyh = tf.mul(hs, dyCol);                                                          // [T, H]
    let dh: tf.Tensor = tf.zeros([T, hs.shape[1]]);                                          // [T, H]
    const dE: tf.Tensor[] = [];
    for (let c = 0; c < locs.length; c++) {
        const [dhNext, dEc] = tf.tidy(() => {
            const E = chunk(c), loc = locs[c]!;
            const g = tf.mul(tf.exp(tf.maximum(tf.sub(tf.matMul(E, hT), tf.reshape(lse, [1, T])), EXP_FLOOR)), dyRow); // softmaxᵀ ⊙ dy [n, T]
            let next = tf.sub(dh, tf.matMul(g, E, true, false));                                 // [T, H]
            if (loc.some(x => x >= 0)) next = tf.add(next, tf.mul(gatherRows([E], [0], loc), dyCol)); // + dy[t]·E[tgt_t]
            const oh = tf.cast(tf.oneHot(tf.tensor1d(loc, "int32"), E.shape[0]), "float32");      // [T, n]
            return [next, tf.sub(tf.matMul(oh, dyh, true, false), tf.matMul(g, hs))];             // dE_c [n, H]
        });
        dh.dispose();
        dh = dhNext;
        dE.push(dEc);
    }
    return [dh, ...dE];
}

/** Full logits [T, V] (no gradient; parity checks and small vocabularies only). */
export function projectLogits(h: tf.Tensor2D, proj: VocabProjection): tf.Tensor2D {
    return tf.tidy(() => {
        const parts = proj.starts.map((_, c) => tf.matMul(h, proj.chunk(c), false, true));  // [T, n_c]
        return (parts.length === 1 ? parts[0]! : tf.concat(parts, 1)) as tf.Tensor2D;
    });
}
