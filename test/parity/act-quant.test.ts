// Justifies the quantized-base parity bounds: llama.cpp's CPU matmul rounds the ACTIVATIONS to the weight type's
// dot-product partner before multiplying (F16 → F16; Q8_0 → Q8_0: int8 per 32 with an fp16 scale; Q4_K/Q6_K →
// Q8_K: int8 per 256). Emulating exactly that in the float64 reference (same dequantized weights) brings it to
// llama.cpp (typical position: float noise, ÷ 50 or better), while the exact reference sits as far from llama.cpp as tfjs does — so the
// tfjs ↔ llama.cpp gap on quantized bases is llama.cpp's approximation, not a tfjs error.
import {test} from "node:test";
import assert from "node:assert/strict";
import {modelConfig} from "../../src/gguf/arch";
import {roundToHalf} from "../../src/gguf/quant/half";
import {openGguf} from "../../src/gguf/reader";
import {GgmlType} from "../../src/gguf/types";
import {exactContext, loadTestModel, teacherForcedLogits} from "../helpers/llama";
import {testModel} from "../helpers/models";
import {refForward, type RefWeights} from "../unit/rl/ref-forward";

const f = Math.fround;
/** ggml nearest_int / _mm256_round_ps(NEAREST): round half to even, in float32. */
const rne = (v: number) => f(f(v) + 12582912) - 12582912;

/** quantize_row_q8_0 (x86 SIMD) then dequantize: per 32, d = amax/127 stored as fp16, q = rne(x·127/amax). */
function fakeQ8_0(x: Float64Array): Float64Array {
    const out = new Float64Array(x.length);
    for (let b = 0; b < x.length; b += 32) {
        let amax = 0;
        for (let j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(f(x[b + j]!)));
        const d = roundToHalf(f(amax / 127)), id = amax ? f(127 / amax) : 0;
        for (let j = 0; j < 32; j++) out[b + j] = rne(f(f(x[b + j]!) * id)) * d;
    }
    return out;
}

/** quantize_row_q8_K_ref then dequantize: per 256, iscale = −127/max (signed), q = min(127, rne(iscale·x)), d = 1/iscale. */
function fakeQ8_K(x: Float64Array): Float64Array {
    const out = new Float64Array(x.length);
    for (let b = 0; b < x.length; b += 256) {
        let amax = 0, max = 0;
        for (let j = 0; j < 256; j++) { const ax = Math.abs(f(x[b + j]!)); if (ax > amax) { amax = ax; max = f(x[b + j]!); } }
        if (!amax) continue;
        const iscale = f(-127 / max), d = f(1 / iscale);
        for (let j = 0; j < 256; j++) out[b + j] = Math.min(127, rne(f(iscale * f(x[b + j]!)))) * d;
    }
    return out;
}

const ACT: Partial<Record<GgmlType, (x: Float64Array) => Float64Array>> = {
    [GgmlType.F16]: x => x.map(v => roundToHalf(f(v))),
    [GgmlType.Q8_0]: fakeQ8_0,
    [GgmlType.Q4_K]: fakeQ8_K,
    [GgmlType.Q6_K]: fakeQ8_K,
};

/** Per position: max over the vocabulary of |a − b|; summarised as the max and the median over positions. */
const gap = (a: Float64Array[], b: Float64Array[]) => {
    const per = a.map((r, i) => r.reduce((m, v, k) => Math.max(m, Math.abs(v - b[i]![k]!)), 0)).sort((x, y) => x - y);
    return {max: per.at(-1)!, median: per[per.length >> 1]!};
};

for (const arch of ["llama", "qwen2"] as const) {
    for (const type of ["f16", "q8_0", "q4_k", "q6_k"] as const) {
        test(`${arch} ${type}: emulating llama.cpp's activation rounding closes the gap`, async t => {
            const path = testModel({arch, type, seed: 31});
            const file = await openGguf(path);
            const config = modelConfig(file);
            const weights: RefWeights = new Map();
            const types = new Map<string, GgmlType>();
            for (const ti of file.tensors) { weights.set(ti.name, await file.readTensorF32(ti)); types.set(ti.name, ti.type); }
            file.close();
            const model = await loadTestModel(path);
            const ctx = await exactContext(model);
            const tokens = model.tokenize("def add(a, b):\n    return a + b\n").map(Number).slice(0, 16);
            const llama = (await teacherForcedLogits(ctx, [...tokens, tokens[0]!])).slice(0, tokens.length);
            await ctx.dispose();
            await model.dispose();
            const exact = refForward(config, weights, tokens);
            const emulated = refForward(config, weights, tokens, {matIn: (name, x) => ACT[types.get(name)!]?.(x) ?? x});
            const ge = gap(exact, llama), gq = gap(emulated, llama);
            t.diagnostic(`|Δlogit| vs llama.cpp (max / median position): exact reference ${ge.max.toExponential(2)} / ${ge.median.toExponential(2)}, ` +
                `with activation rounding ${gq.max.toExponential(2)} / ${gq.median.toExponential(2)}`);
            // Not bit-exact everywhere: float noise upstream (~1e-7) now and then flips one rounding step, which
            // shows at that position (and the max); the typical position shows that the rest of the gap is gone.
            assert.ok(gq.median < ge.median / 50, `emulation should explain the gap: median ${gq.median} vs ${ge.median}`);
        });
    }
}
