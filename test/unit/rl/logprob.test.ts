// The chunked custom-gradient log-prob op against plain autograd (full logits → logSoftmax → one-hot pick):
// values and gradients (into h, and into the chunks when trainable) within 1e-6, on every test backend.
import {test} from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs-core";
import {projectLogits, tokenLogprobs, type VocabProjection} from "../../../src/rl/logprob";
import {maxAbsDiff, numTensors, randArray, testBackends, useBackend} from "./helpers";

const T = 6, H = 8, V = 23;

function setup(chunk: number, trainable: boolean) {
    const E = tf.tensor2d(randArray(V * H, 7, 0.8), [V, H]);                       // [V, H]
    const starts: number[] = [], sizes: number[] = [];
    for (let v0 = 0; v0 < V; v0 += chunk) { starts.push(v0); sizes.push(Math.min(chunk, V - v0)); }
    const chunks = starts.map((v0, c) => tf.slice(E, [v0, 0], [sizes[c]!, H]) as tf.Tensor2D);
    const proj: VocabProjection = {starts, sizes, chunk: c => chunks[c]!, trainable: trainable ? chunks : undefined};
    return {E, chunks, proj};
}

const targets = [0, 22, 5, 16, 16, 9];   // first and last vocab rows, repeats, several chunks
const dyValues = [1, -0.5, 2, 0.25, 1, -1];      // dy per position

/** Reference: autograd through the full [T, V] logits. */
function reference(h: tf.Tensor2D, E: tf.Tensor2D): tf.Tensor1D {
    const lp = tf.logSoftmax(tf.matMul(h, E, false, true));                        // [T, V]
    return tf.sum(tf.mul(lp, tf.oneHot(tf.tensor1d(targets, "int32"), V)), 1) as tf.Tensor1D;
}

for (const backend of testBackends()) {
    for (const [chunk, jsRows] of [[V, false], [7, false], [5, false], [7, true]] as const) {
        test(`${backend}: log-probs and d/dh match autograd (chunk ${chunk}${jsRows ? ", rows from JS" : ""})`, async () => {
            await useBackend(backend);
            const {E, chunks, proj: p0} = setup(chunk, false);
            const Ejs = (await E.data()) as Float32Array;
            const proj: VocabProjection = jsRows ? {...p0, rows: ids => tf.tensor2d(ids.flatMap(id => Array.from(Ejs.subarray(id * H, (id + 1) * H))), [ids.length, H])} : p0;
            const h = tf.tensor2d(randArray(T * H, 3, 1.5), [T, H]);
            const before = numTensors();
            const [lp, lpRef] = tf.tidy(() => [tokenLogprobs(h, targets, proj), reference(h, E)]);
            assert.ok(maxAbsDiff(await lp.data(), await lpRef.data()) < 1e-6);
            const g = tf.grad((x: tf.Tensor) => tf.sum(tf.mul(tokenLogprobs(x as tf.Tensor2D, targets, proj), dyValues)))(h);
            const gRef = tf.grad((x: tf.Tensor) => tf.sum(tf.mul(reference(x as tf.Tensor2D, E), dyValues)))(h);
            assert.ok(maxAbsDiff(await g.data(), await gRef.data()) < 1e-6, `grad diff ${maxAbsDiff(await g.data(), await gRef.data())}`);
            tf.dispose([lp, lpRef, g, gRef]);
            assert.equal(numTensors(), before, "no tensor leaks");
            tf.dispose([E, h, ...chunks]);
        });
    }

    test(`${backend}: trainable chunks get the autograd gradient`, async () => {
        await useBackend(backend);
        const {E, chunks, proj} = setup(7, true);
        const h = tf.tensor2d(randArray(T * H, 4, 1.5), [T, H]);
        const gs = tf.grads((x: tf.Tensor, ...cs: tf.Tensor[]) =>
            tf.sum(tf.mul(tokenLogprobs(x as tf.Tensor2D, targets, {...proj, trainable: cs as tf.Tensor2D[]}), dyValues)))([h, ...chunks]);
        const [gh, gE] = tf.grads((x: tf.Tensor, e: tf.Tensor) => tf.sum(tf.mul(reference(x as tf.Tensor2D, e as tf.Tensor2D), dyValues)))([h, E]);
        assert.ok(maxAbsDiff(await gs[0]!.data(), await gh!.data()) < 1e-6);
        const gChunks = tf.concat(gs.slice(1), 0);
        assert.ok(maxAbsDiff(await gChunks.data(), await gE!.data()) < 1e-6);
        tf.dispose([...gs, gh!, gE!, gChunks, E, h, ...chunks]);
    });

    test(`${backend}: projectLogits equals h·Eᵀ`, async () => {
        await useBackend(backend);
        const {E, chunks, proj} = setup(5, false);
        const h = tf.tensor2d(randArray(T * H, 5), [T, H]);
        const [a, b] = tf.tidy(() => [projectLogits(h, proj), tf.matMul(h, E, false, true)]);
        assert.deepEqual(a.shape, [T, V]);
        assert.ok(maxAbsDiff(await a.data(), await b.data()) < 1e-6);
        tf.dispose([a, b, E, h, ...chunks]);
    });
}
