// Gradients of the tfjs network: only LoRA variables receive them (base frozen, bit-identical after steps);
// they agree with finite differences (LoRA, and full-parameter training through the embedding and tied output);
// checkpointing does not change them; loss falls on a fixed target; no tensors leak across steps.
import {test} from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs-core";
import {LoraAdapter} from "../../../src/rl/lora";
import {NanoModel} from "../../../src/rl/model";
import {BaseWeights} from "../../../src/rl/weights";
import {maxAbsDiff, memModel, numTensors, randArray, testBackends, useBackend} from "./helpers";

const tokens = [5, 61, 200, 7, 7, 130, 44, 2, 90];
const adv = [1, -0.5, 2, 0.3, 1, -1, 0.7, 1.5];      // per-position weights: a GRPO-like surrogate

function loss(model: NanoModel, checkpoint = true): tf.Scalar {
    return tf.neg(tf.sum(tf.mul(model.tokenLogprobs(tokens, {checkpoint}), adv))) as tf.Scalar;
}

/** Σ_v ⟨∂L/∂v, d_v⟩ vs (L(θ+εd) − L(θ−εd)) / 2ε over the given variables. */
async function directional(model: NanoModel, vars: tf.Variable[], eps: number): Promise<{analytic: number; numeric: number}> {
    const {grads} = tf.variableGrads(() => loss(model), vars);
    const dirs = vars.map((v, i) => tf.tensor(randArray(v.size, 1000 + i), v.shape));
    let analytic = 0;
    for (const [i, v] of vars.entries()) analytic += (await tf.sum(tf.mul(grads[v.name]!, dirs[i]!)).data())[0]!;
    const orig = vars.map(v => v.clone());
    const at = async (s: number) => {
        vars.forEach((v, i) => tf.tidy(() => v.assign(tf.add(orig[i]!, tf.mul(dirs[i]!, s)))));
        const l = tf.tidy(() => loss(model));
        const x = (await l.data())[0]!;
        l.dispose();
        return x;
    };
    const numeric = (await at(eps) - await at(-eps)) / (2 * eps);
    vars.forEach((v, i) => v.assign(orig[i]!));
    tf.dispose([...Object.values(grads), ...dirs, ...orig]);
    return {analytic, numeric};
}

for (const backend of testBackends()) {
    test(`${backend}: only the LoRA variables receive gradients; finite differences agree`, async t => {
        await useBackend(backend);
        const m = memModel({arch: "qwen2", seed: 21});
        const model = new NanoModel(await BaseWeights.load(m.config, m.reader), LoraAdapter.create(m.config, {rank: 4, alpha: 8, seed: 1}));
        model.adapter!.randomizeB(0.2, 2);
        const {value, grads} = tf.variableGrads(() => loss(model));   // every trainable variable in the engine
        const names = new Set(model.adapter!.variables().map(v => v.name));
        assert.deepEqual(new Set(Object.keys(grads)), names, "gradients reach exactly the adapter's A and B");
        for (const g of Object.values(grads)) assert.ok((await tf.max(tf.abs(g)).data())[0]! > 0);
        tf.dispose([value, ...Object.values(grads)]);
        const {analytic, numeric} = await directional(model, model.adapter!.variables(), 1e-3);
        t.diagnostic(`directional derivative: analytic ${analytic.toFixed(5)}, central difference ${numeric.toFixed(5)}`);
        assert.ok(Math.abs(analytic - numeric) <= 2e-2 * Math.abs(analytic), `analytic ${analytic} vs numeric ${numeric}`);
        model.adapter!.dispose();
        model.dispose();
    });

    test(`${backend}: full-parameter gradients (embedding + tied output) agree with finite differences`, async t => {
        await useBackend(backend);
        const m = memModel({arch: "qwen2", seed: 22});
        const model = new NanoModel(await BaseWeights.load(m.config, m.reader, {residency: "trainable", vocabChunk: 128}));
        const vars = model.trainableVariables();
        const {grads, value} = tf.variableGrads(() => loss(model), vars);
        assert.equal(Object.keys(grads).length, vars.length, "every base tensor gets a gradient");
        tf.dispose([value, ...Object.values(grads)]);
        const {analytic, numeric} = await directional(model, vars, 1e-3);
        t.diagnostic(`directional derivative: analytic ${analytic.toFixed(5)}, central difference ${numeric.toFixed(5)}`);
        assert.ok(Math.abs(analytic - numeric) <= 2e-2 * Math.abs(analytic), `analytic ${analytic} vs numeric ${numeric}`);
        model.dispose();
    });

    test(`${backend}: checkpointing gives the same gradients as plain autograd`, async () => {
        await useBackend(backend);
        const m = memModel({arch: "llama", seed: 23});
        const model = new NanoModel(await BaseWeights.load(m.config, m.reader), LoraAdapter.create(m.config, {rank: 2, seed: 4}));
        model.adapter!.randomizeB(0.2, 3);
        const vars = model.adapter!.variables();
        const a = tf.variableGrads(() => loss(model, true), vars), b = tf.variableGrads(() => loss(model, false), vars);
        for (const v of vars) assert.ok(maxAbsDiff(await a.grads[v.name]!.data(), await b.grads[v.name]!.data()) < 1e-5);
        tf.dispose([a.value, b.value, ...Object.values(a.grads), ...Object.values(b.grads)]);
        model.adapter!.dispose();
        model.dispose();
    });

    test(`${backend}: streamed weights are never all on the backend at once during a gradient step`, async t => {
        await useBackend(backend);
        // weights ≫ activations here (4 tokens), so the peak shows whether the tape pins the streamed weights
        const m = memModel({arch: "qwen2", seed: 25, nEmbd: 256, nHead: 4, nFf: 1024, nLayer: 6});
        const weights = await BaseWeights.load(m.config, m.reader, {residency: "streamed", vocabChunk: 128});
        const model = new NanoModel(weights, LoraAdapter.create(m.config, {rank: 2, seed: 6}));
        const js = weights.bytes().js, short = tokens.slice(0, 5);
        for (const checkpoint of [false, true]) {
            const info = await tf.profile(() => {
                const {value, grads} = tf.variableGrads(() => tf.neg(tf.sum(model.tokenLogprobs(short, {checkpoint}))) as tf.Scalar, model.adapter!.variables());
                tf.dispose([value, ...Object.values(grads)]);
            });
            t.diagnostic(`checkpoint ${checkpoint}: peak ${(info.peakBytes / 2 ** 20).toFixed(1)} MiB of tensors vs ${(js / 2 ** 20).toFixed(1)} MiB of weights`);
            assert.ok(info.peakBytes < js / 3, `checkpoint ${checkpoint}: peak ${info.peakBytes} B on the backend vs ${js} B of weights`);
        }
        model.adapter!.dispose();
        model.dispose();
    });

    test(`${backend}: Adam on a fixed target lowers the loss, base stays bit-identical, no leaks across steps`, async t => {
        await useBackend(backend);
        const m = memModel({arch: "llama", seed: 24});
        const weights = await BaseWeights.load(m.config, m.reader);
        const model = new NanoModel(weights, LoraAdapter.create(m.config, {rank: 4, alpha: 8, seed: 5}));
        const baseBefore = await weights.toGgml();
        const opt = tf.train.adam(0.01);
        const losses: number[] = [], counts: number[] = [];
        for (let step = 0; step < 12; step++) {
            const l = opt.minimize(() => tf.neg(tf.mean(model.tokenLogprobs(tokens))) as tf.Scalar, true, model.trainableVariables())!;
            losses.push((await l.data())[0]!);
            l.dispose();
            counts.push(numTensors());
        }
        t.diagnostic(`loss ${losses.map(l => l.toFixed(3)).join(" → ")}; tensors after each step ${counts.join(",")}`);
        assert.ok(losses.at(-1)! < losses[0]! - 0.05, `loss ${losses[0]} → ${losses.at(-1)}`);
        assert.equal(new Set(counts.slice(1)).size, 1, `tensor count stable across steps: ${counts.join(",")}`);
        const baseAfter = await weights.toGgml();
        for (const [k, v] of baseBefore) assert.deepEqual(baseAfter.get(k)!.data, v.data, `${k} unchanged`);
        opt.dispose();
        model.adapter!.dispose();
        model.dispose();
    });
}
