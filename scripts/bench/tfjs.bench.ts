// Benchmarks nano-rl's training step: LoRA (rank 8 on q,k,v,o,gate,up,down) forward + backward of T tokens on a
// Qwen2.5-0.5B-shaped factory model (random weights), on the chosen tfjs backend — beside, in the same run, the
// backend's own matmul GFLOP/s and stock tfjs-wasm (its BatchMatMul kernel unpatched) on a slice of the model.
// Knobs: NANO_BENCH_TFJS_TOKENS (256), NANO_BENCH_TFJS_LAYERS (24), NANO_BENCH_TFJS_SLICE (layers in the stock
// comparison, 2), NANO_TF_BACKEND (auto).
//
// effective FLOPs = forward 2·T·(matmul params) + 4·T²·d·heads·layers (causal attention counted in full), plus the
// same again for the backward's input gradients (base frozen: no weight gradients) — checkpoint recompute and the
// vocabulary op's recompute are NOT counted (they are the price of the memory plan).
import * as tf from "@tensorflow/tfjs-core";
import {buildModel} from "../../src/factory/model";
import type {ModelConfig} from "../../src/gguf/arch";
import {GgmlType} from "../../src/gguf/types";
import {initBackend, wasmHeapBytes} from "../../src/rl/backend";
import {LoraAdapter} from "../../src/rl/lora";
import {chooseResidency, paramCount, shouldCheckpoint} from "../../src/rl/memory";
import {NanoModel} from "../../src/rl/model";
import {patchWasmBatchMatMul, unpatchWasmBatchMatMul} from "../../src/rl/wasm-matmul";
import {BaseWeights, type WeightReader} from "../../src/rl/weights";
import type {Bench, BenchRow} from "./types";

const env = (k: string, d: number) => Number(process.env[k] ?? d);

function flops(c: ModelConfig, T: number): number {
    const matmul = paramCount(c) - c.nLayer * (2 * c.nEmbd + (c.qkvBias ? (c.nHead + 2 * c.nHeadKv) * c.headDim : 0)) - c.nEmbd;
    const attn = 4 * T * T * c.headDim * c.nHead * c.nLayer;
    return 2 * (2 * T * matmul + attn);
}

/** One LoRA forward + backward (gradients computed and released); returns seconds. */
async function step(model: NanoModel, tokens: number[]): Promise<number> {
    const t0 = performance.now();
    const {value, grads} = tf.variableGrads(() => tf.neg(tf.mean(model.tokenLogprobs(tokens))) as tf.Scalar, model.adapter!.variables());
    await value.data();
    tf.dispose([value, ...Object.values(grads)]);
    return (performance.now() - t0) / 1000;
}

/** GFLOP/s of x [T, K] · W [K, N] with a long-lived W (the backend at its best). */
async function matmulGflops(T: number, K: number, N: number, reps: number): Promise<number> {
    const x = tf.randomNormal([T, K]), w = tf.randomNormal([K, N]);
    const run = async () => { const y = tf.matMul(x, w); await y.data(); y.dispose(); };
    await run();
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) await run();
    const s = (performance.now() - t0) / 1000 / reps;
    tf.dispose([x, w]);
    return (2 * T * K * N) / s / 1e9;
}

const bench: Bench = {
    name: "tfjs",
    description: "nano-rl LoRA forward+backward on a 0.5B-shaped model vs the backend's matmul and stock tfjs-wasm",
    async run({log}) {
        const T = env("NANO_BENCH_TFJS_TOKENS", 256), layers = env("NANO_BENCH_TFJS_LAYERS", 24), slice = env("NANO_BENCH_TFJS_SLICE", 2);
        const backend = await initBackend();
        log(`backend: ${backend.detail}`);
        const built = buildModel({arch: "qwen2", type: GgmlType.F32, nEmbd: 896, nLayer: layers, nHead: 14, nHeadKv: 2, nFf: 4864, padVocabTo: 151936, seed: 5});
        const byName = new Map(built.tensors.map(t => [t.name, t]));
        const reader: WeightReader = {
            has: n => byName.has(n),
            read: n => { const d = byName.get(n)!.data; return typeof d === "function" ? d() : d as Float32Array; },
        };
        const full = built.config;
        const tokens = Array.from({length: T + 1}, (_, i) => (i * 7919 + 13) % full.nVocab);
        const rows: BenchRow[] = [];
        const row = (r: BenchRow) => { rows.push(r); log(`${r.metric}: ${r.value.toPrecision(4)} ${r.unit}`); };

        // The machine is shared: the backend's matmul rate is sampled at the start, middle and end; the best sample
        // is the reference (so the ratio below is conservative), and every timed step keeps its best of two.
        const mmSamples = [await matmulGflops(T, 896, 4864, 5)];

        // Slice of the model (first `slice` layers + full vocabulary): patched vs stock kernel, same weights.
        const sliceCfg = {...full, nLayer: slice};
        const sliceModel = new NanoModel(await BaseWeights.load(sliceCfg, reader, {residency: chooseResidency(full, backend.choice)}),
            LoraAdapter.create(sliceCfg, {rank: 8, seed: 1}));
        await step(sliceModel, tokens.slice(0, 33));                                 // warm-up (kernels, XNNPACK)
        let fast = await step(sliceModel, tokens);
        let stock: number | undefined;
        if (backend.choice === "wasm") {
            unpatchWasmBatchMatMul();
            try { stock = await step(sliceModel, tokens); } finally { patchWasmBatchMatMul(); }
            fast = Math.min(fast, await step(sliceModel, tokens));
        }
        mmSamples.push(await matmulGflops(T, 896, 4864, 5));
        sliceModel.adapter!.dispose();
        sliceModel.dispose();
        row({metric: `${slice}-layer slice fwd+bwd, ${T} tok`, value: fast, unit: "s"});
        if (stock !== undefined) {
            row({metric: `${slice}-layer slice, stock tfjs-wasm kernel`, value: stock, unit: "s"});
            row({metric: "speed-up vs stock tfjs-wasm", value: stock / fast, unit: "×", note: "goal ≥ 4"});
        }

        // The whole 0.5B-shaped model.
        const residency = chooseResidency(full, backend.choice);
        const t0 = performance.now();
        const model = new NanoModel(await BaseWeights.load(full, reader, {residency}), LoraAdapter.create(full, {rank: 8, seed: 1}));
        log(`built ${(paramCount(full) / 1e6).toFixed(0)} M-param model (${residency}, ${residency === "trainable" ? `checkpointing ${shouldCheckpoint(full, T, backend.choice) ? "on" : "off"}` : "frozen base: fused attention + MLP, no recompute"}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
        const s = Math.min(await step(model, tokens), await step(model, tokens));
        model.adapter!.dispose();
        model.dispose();
        mmSamples.push(await matmulGflops(T, 896, 4864, 5));
        const mm = Math.max(...mmSamples);
        row({metric: `matmul [${T}×896]·[896×4864], best of 3`, value: mm, unit: "GFLOP/s", note: `backend's own, same run; samples ${mmSamples.map(x => x.toFixed(1)).join(", ")}`});
        const gf = flops(full, T) / s / 1e9;
        row({metric: `0.5B LoRA fwd+bwd, ${T} tokens`, value: s, unit: "s"});
        row({metric: "0.5B LoRA fwd+bwd throughput", value: T / s, unit: "tok/s"});
        row({metric: "0.5B effective GFLOP/s", value: gf, unit: "GFLOP/s"});
        row({metric: "effective / backend matmul", value: gf / mm, unit: "ratio", note: "goal ≥ 0.6"});
        row({metric: "peak RSS", value: process.resourceUsage().maxRSS / 1024, unit: "MiB"});
        const heap = wasmHeapBytes();
        if (heap !== undefined) row({metric: "wasm heap (grows only: = peak)", value: heap / 2 ** 20, unit: "MiB", note: "cap 4096"});
        return rows;
    },
};

export default bench;
