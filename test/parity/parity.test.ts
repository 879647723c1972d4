// Parity of the tfjs network with llama.cpp on factory models: llama and qwen2 × F32/F16/Q8_0/Q4_K/Q6_K bases,
// without and with a random non-zero LoRA adapter that WE export (GGUF) and node-llama-cpp loads
// (llama.cpp: no flash attention, F32 KV cache, 1 thread).
//
// Bounds.
// - F32 base: max |Δlogit| ≤ 1e-4 and max |Δlogprob| ≤ 1e-4 (the bar).
// - Every base: tfjs equals the EXACT network on the dequantized weights (float64 reference, adapter merged) within
//   float32 noise: max |Δlogit| ≤ 2e-6 · max(1, max|logit|) (measured ≤ 7e-7 relative).
// - Quantized bases vs llama.cpp: llama.cpp's CPU matmul rounds the activations to the weight type's dot partner
//   (F16; Q8_0 int8/32; Q8_K int8/256) — its own approximation of the exact product; act-quant.test.ts proves that
//   emulating that rounding closes the gap. So the bound is "no further from llama.cpp than exact arithmetic is":
//   max |Δ(tfjs, llama.cpp)| ≤ 1.25 · max |Δ(exact, llama.cpp)| + 1e-4, for logits and log-probs.
//   Measured (32 tokens): F16 ≈ 1.6e-3 (llama) / 1.7e-2 (qwen2, logits to ±60), int8 activations 1–2.5 % of max|logit|.
import {test} from "node:test";
import assert from "node:assert/strict";
import {mkdtempSync, rmSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {modelConfig, type ModelConfig} from "../../src/gguf/arch";
import {openGguf} from "../../src/gguf/reader";
import {exportAdapterVersion} from "../../src/rl/adapter/gguf";
import {initBackend, type BackendChoice} from "../../src/rl/backend";
import {LoraAdapter} from "../../src/rl/lora";
import {runParity} from "../../src/rl/parity";
import {testLlama} from "../helpers/llama";
import {testModel} from "../helpers/models";
import {logSoftmax, mergeLora, refForward, type RefLora, type RefWeights} from "../unit/rl/ref-forward";

const TYPES = ["f32", "f16", "q8_0", "q4_k", "q6_k"] as const;
const BACKEND = (process.env.NANO_PARITY_BACKEND as BackendChoice | undefined) ?? "wasm";
const dir = mkdtempSync(join(tmpdir(), "nano-parity-"));
process.on("exit", () => rmSync(dir, {recursive: true, force: true}));

async function loadRef(path: string): Promise<{config: ModelConfig; weights: RefWeights}> {
    const f = await openGguf(path);
    try {
        const weights: RefWeights = new Map();
        for (const t of f.tensors) weights.set(t.name, await f.readTensorF32(t));
        return {config: modelConfig(f), weights};
    } finally {
        f.close();
    }
}

/** max |a − b| over logits, and over the log-prob of each next token. */
function gaps(a: ArrayLike<number>[], b: ArrayLike<number>[], tokens: number[]): {logit: number; logprob: number; scale: number} {
    let logit = 0, logprob = 0, scale = 0;
    for (let t = 0; t < a.length; t++) {
        for (let k = 0; k < a[t]!.length; k++) { logit = Math.max(logit, Math.abs(a[t]![k]! - b[t]![k]!)); scale = Math.max(scale, Math.abs(b[t]![k]!)); }
        if (t + 1 < a.length) {
            const n = tokens[t + 1]!;
            logprob = Math.max(logprob, Math.abs(logSoftmax(Float64Array.from(a[t]!))[n]! - logSoftmax(Float64Array.from(b[t]!))[n]!));
        }
    }
    return {logit, logprob, scale};
}

const e = (x: number) => x.toExponential(2);

for (const arch of ["llama", "qwen2"] as const) {
    for (const type of TYPES) {
        test(`${arch} ${type}: tfjs matches llama.cpp, base and with our exported adapter`, async t => {
            await initBackend({backend: BACKEND});
            const model = testModel({arch, type, seed: 31});
            const {config, weights} = await loadRef(model);
            const ad = LoraAdapter.create(config, {rank: 4, alpha: 8, seed: 9});
            ad.randomizeB(0.25, 10);
            const lora: RefLora = {scale: ad.scale, rank: ad.rank, pairs: new Map((await ad.toFileTensors()).map(p => [p.base, p]))};
            const {path: adapter} = await exportAdapterVersion(join(dir, `${arch}-${type}`), ad);
            ad.dispose();
            const llama = await testLlama();
            for (const withAdapter of [false, true]) {
                const r = await runParity({model, adapter: withAdapter ? adapter : undefined, tokens: 32, llama, keepLogits: true});
                const exact = refForward(config, withAdapter ? mergeLora(weights, lora) : weights, r.tokens);
                const vsLlama = gaps(r.logits!.tfjs, r.logits!.llama, r.tokens);
                const vsExact = gaps(r.logits!.tfjs, exact, r.tokens);
                const exactVsLlama = gaps(exact, r.logits!.llama, r.tokens);
                t.diagnostic(`${arch} ${type}${withAdapter ? " +lora" : ""} (max|logit| ${vsLlama.scale.toFixed(1)}): tfjs↔llama.cpp |Δlogit| ${e(vsLlama.logit)} |Δlogprob| ${e(vsLlama.logprob)}; ` +
                    `tfjs↔exact ${e(vsExact.logit)}; exact↔llama.cpp ${e(exactVsLlama.logit)} / ${e(exactVsLlama.logprob)}`);
                assert.ok(vsExact.logit <= 2e-6 * Math.max(1, vsExact.scale), `tfjs vs exact network: ${vsExact.logit}`);
                if (type === "f32") {
                    assert.ok(vsLlama.logit <= 1e-4, `F32: max |Δlogit| ${vsLlama.logit} > 1e-4`);
                    assert.ok(vsLlama.logprob <= 1e-4, `F32: max |Δlogprob| ${vsLlama.logprob} > 1e-4`);
                } else {
                    assert.ok(vsLlama.logit <= 1.25 * exactVsLlama.logit + 1e-4, `max |Δlogit| ${vsLlama.logit} vs exact arithmetic's ${exactVsLlama.logit}`);
                    assert.ok(vsLlama.logprob <= 1.25 * exactVsLlama.logprob + 1e-4, `max |Δlogprob| ${vsLlama.logprob} vs exact arithmetic's ${exactVsLlama.logprob}`);
                }
            }
        });
    }
}

test("a zero-B adapter (fresh PEFT init) leaves llama.cpp's logits unchanged", async () => {
    await initBackend({backend: BACKEND});
    const model = testModel({arch: "qwen2", type: "f32", seed: 31});
    const f = await openGguf(model);
    const ad = LoraAdapter.create(modelConfig(f), {rank: 4, seed: 2});
    f.close();
    const {path} = await exportAdapterVersion(join(dir, "zero"), ad);
    ad.dispose();
    const llama = await testLlama();
    const [a, b] = [await runParity({model, tokens: 16, llama}), await runParity({model, adapter: path, tokens: 16, llama})];
    assert.equal(a.maxAbsLogit, b.maxAbsLogit);
});
