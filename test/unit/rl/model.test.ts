// The tfjs network against the independent float64 reference (test/unit/rl/ref-forward.ts): both architectures,
// with and without a non-zero LoRA adapter, every residency, checkpointing on and off, cpu and wasm.
import {test} from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs-core";
import {LoraAdapter} from "../../../src/rl/lora";
import {NanoModel} from "../../../src/rl/model";
import {BaseWeights, type Residency} from "../../../src/rl/weights";
import {logSoftmax, mergeLora, refForward, type RefLora} from "./ref-forward";
import {maxAbsDiff, memModel, numTensors, testBackends, useBackend} from "./helpers";

const tokens = [3, 77, 150, 9, 9, 260, 41, 5, 300, 12, 88];

async function refLora(ad: LoraAdapter): Promise<RefLora> {
    const pairs = new Map((await ad.toFileTensors()).map(t => [t.base, {a: t.a, b: t.b, nIn: t.nIn, nOut: t.nOut}]));
    return {scale: ad.scale, rank: ad.rank, pairs};
}

for (const backend of testBackends()) {
    for (const arch of ["llama", "qwen2"] as const) {
        test(`${backend} ${arch}: logits and log-probs equal the float64 reference (base and LoRA)`, async () => {
            await useBackend(backend);
            const m = memModel({arch, seed: 11});
            const weights = await BaseWeights.load(m.config, m.reader, {vocabChunk: 100});
            const model = new NanoModel(weights);
            const before = numTensors();
            const check = async (refW: typeof m.weights, what: string) => {
                const ref = refForward(m.config, refW, tokens);
                const logits = model.logits(tokens);
                const got = (await logits.data()) as Float32Array;
                logits.dispose();
                const flatRef = Float64Array.from(ref.flatMap(r => Array.from(r)));
                const dl = maxAbsDiff(got, flatRef);
                assert.ok(dl < 2e-5, `${what}: max |Δlogit| ${dl}`);
                const lp = tf.tidy(() => model.tokenLogprobs(tokens));
                const lpRef = tokens.slice(1).map((t, i) => logSoftmax(ref[i]!)[t]!);
                const dlp = maxAbsDiff(await lp.data(), lpRef);
                lp.dispose();
                assert.ok(dlp < 2e-5, `${what}: max |Δlogprob| ${dlp}`);
            };
            await check(m.weights, "base");
            const ad = LoraAdapter.create(m.config, {rank: 4, alpha: 8, seed: 3});
            model.adapter = ad;
            await check(m.weights, "zero-B adapter");
            ad.randomizeB(0.3, 5);
            await check(mergeLora(m.weights, await refLora(ad)), "random adapter");
            const lpBase = tf.tidy(() => model.tokenLogprobs(tokens, {adapter: null}));
            const lpAd = tf.tidy(() => model.tokenLogprobs(tokens));
            assert.ok(maxAbsDiff(await lpBase.data(), await lpAd.data()) > 1e-3, "the adapter changes the output");
            tf.dispose([lpBase, lpAd]);
            assert.equal(numTensors(), before + ad.variables().length, "forward passes leak no tensors");
            ad.dispose();
            model.dispose();
        });
    }

    test(`${backend}: resident, streamed and trainable weights and checkpointing give the same log-probs`, async () => {
        await useBackend(backend);
        const m = memModel({arch: "qwen2", seed: 12, tiedOutput: false});
        const results: Float32Array[] = [];
        for (const residency of ["resident", "streamed", "trainable"] as Residency[]) {
            const model = new NanoModel(await BaseWeights.load(m.config, m.reader, {residency, vocabChunk: 64}));
            for (const checkpoint of [true, false]) {
                const lp = tf.tidy(() => model.tokenLogprobs(tokens, {checkpoint}));
                results.push((await lp.data()) as Float32Array);
                lp.dispose();
            }
            model.dispose();
        }
        for (const r of results.slice(1)) assert.ok(maxAbsDiff(r, results[0]!) < 1e-6);
    });
}
