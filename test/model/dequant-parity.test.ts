// Dequantization checked against llama.cpp itself: a quantized model and its F32 twin, written from OUR
// dequantized values, must give the same llama.cpp logits.
//
// Two checks per type:
// 1. Embedding-only: only token_embd.weight is quantized (output untied). llama.cpp reads embeddings with
//    ggml_get_rows, which dequantizes with ggml's own dequantize_row_* and does no other rounding, so the
//    twin must match to float32 round-off: max |Δlogit| ≤ 1e-6 (measured: exactly 0 for every type, i.e. our
//    dequantization is bit-identical to ggml's). A wrong scale, nibble order or sign changes logits by O(0.1–1).
// 2. All matrices quantized: llama.cpp's CPU matmuls also round the activations (to Q8_0/Q8_K for the
//    quantized types, F16 for F16, BF16 for BF16), which the F32 twin does not. That rounding error is what
//    remains, so the bound is per type and relative to the error of the F32 *original* (the unquantized
//    random weights): the twin must be ≥ 4× closer than the original for the ≤ 5-bit types (2× for Q6_K, whose
//    weight error is itself near the activation rounding), and within the stated absolute bound. If our
//    dequantization were wrong, the twin would be no closer than the original.
//    Measured (max |logit| ≈ 4): twin Δ 1.6e-3 (F16), 1.2–1.4e-2 (BF16), 4–8e-2 (8-bit activations, all
//    quantized types); original Δ 0.2 (Q6_K) … 2.3 (Q2_K).

import {test} from "node:test";
import assert from "node:assert/strict";
import {rmSync} from "node:fs";
import {convertGguf} from "../../src/gguf/convert";
import {GgmlType, parseTypeName} from "../../src/gguf/types";
import {exactContext, loadTestModel, teacherForcedLogits} from "../helpers/llama";
import {scratchPath, testModel, type TestModelSpec} from "../helpers/models";

const TEXT = "def fizzbuzz(n):\n    for i in range(1, n + 1):\n        print(i) # ✓";
const base = {nEmbd: 256, nFf: 512, nLayer: 2, nHead: 4, nHeadKv: 2, tiedOutput: false} as const;

async function logits(path: string): Promise<{rows: Float64Array[]; max: number}> {
    const model = await loadTestModel(path);
    try {
        const ctx = await exactContext(model);
        const toks = model.tokenize(TEXT);
        const rows = await teacherForcedLogits(ctx, toks);
        await ctx.dispose();
        let max = 0;
        for (const r of rows) for (const v of r) max = Math.max(max, Math.abs(v));
        return {rows, max};
    } finally { await model.dispose(); }
}

function maxDiff(a: Float64Array[], b: Float64Array[]): number {
    let m = 0;
    for (let i = 0; i < a.length; i++) for (let j = 0; j < a[i]!.length; j++) m = Math.max(m, Math.abs(a[i]![j]! - b[i]![j]!));
    return m;
}

async function twinOf(path: string, name: string): Promise<string> {
    const twin = scratchPath(`${name}-twin-f32.gguf`);
    await convertGguf(path, twin, () => GgmlType.F32);
    return twin;
}

const TYPES = ["f16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k"];

/** Bound on |Δlogit| quantized-vs-twin with all matrices quantized; logits of these models are O(5). */
// F16: activations rounded to F16 (rel. 2^-11); BF16: to BF16 (rel. 2^-8); the rest: activations rounded to
// 8 bits per 32/256-block (rel. ~1/254 per element), accumulated over 2 layers and a 256–512-wide dot product.
const ALL_BOUND: Record<string, number> = {
    f16: 0.01, bf16: 0.05, q8_0: 0.15, q4_0: 0.15, q4_1: 0.15, q5_0: 0.15, q5_1: 0.15,
    q2_k: 0.15, q3_k: 0.15, q4_k: 0.15, q5_k: 0.15, q6_k: 0.15,
};
/** How much closer than the unquantized original the twin must be. */
const CLOSER: Record<string, number> = {q6_k: 2, q5_k: 4, q4_k: 4, q3_k: 4, q2_k: 4, q4_0: 4, q4_1: 4, q5_0: 4, q5_1: 4};

for (const arch of ["llama", "qwen2"] as const) {
    for (const type of TYPES) {
        test(`${arch} ${type}: llama.cpp logits of the quantized model equal those of its F32 twin`, async t => {
            const tid = parseTypeName(type)!;
            // 1. Embedding only (exact path through ggml_get_rows).
            const embSpec: TestModelSpec = {arch, ...base, type: "f32", overrides: [{match: "token_embd.weight", type: tid}]};
            const emb = testModel(embSpec);
            const embTwin = await twinOf(emb, `${arch}-${type}-emb`);
            const [q1, t1] = [await logits(emb), await logits(embTwin)];
            const dEmb = maxDiff(q1.rows, t1.rows);
            rmSync(embTwin, {force: true});

            // 2. Every matrix quantized, against the twin and against the unquantized original.
            const all = testModel({arch, ...base, type});
            const allTwin = await twinOf(all, `${arch}-${type}-all`);
            const orig = testModel({arch, ...base, type: "f32"});
            const [q2, t2, o2] = [await logits(all), await logits(allTwin), await logits(orig)];
            rmSync(allTwin, {force: true});
            const dTwin = maxDiff(q2.rows, t2.rows), dOrig = maxDiff(q2.rows, o2.rows);
            t.diagnostic(`embedding-only max|Δ| ${dEmb.toExponential(2)}; all-quantized vs twin ${dTwin.toExponential(2)}, vs original ${dOrig.toExponential(2)} (max |logit| ${q2.max.toFixed(2)})`);

            assert.ok(dEmb <= 1e-6, `embedding-only twin differs by ${dEmb}`);
            assert.ok(dTwin <= ALL_BOUND[type]!, `all-quantized twin differs by ${dTwin} > ${ALL_BOUND[type]}`);
            const k = CLOSER[type];
            if (k) assert.ok(dTwin * k <= dOrig, `twin (${dTwin}) must be ≥ ${k}× closer than the unquantized original (${dOrig})`);
        });
    }
}
