// Tests src/gguf/quant: bit-exactness against llama.cpp's own C (test/fixtures/quant-golden.json, made by
// scripts/gen-quant-golden.sh), fp16/bf16 edge cases, round-trip error bounds, zero/constant blocks, and errors.
import {test} from "node:test";
import assert from "node:assert/strict";
import {createHash} from "node:crypto";
import {readFileSync} from "node:fs";
import {canDequantize, canQuantize, dequantize, quantize} from "../../../src/gguf/quant/index";
import {
    bf16FromF32Bits, bf16ToFloat, f32Bits, floatToBf16, floatToHalf, halfFromF32Bits, halfToFloat,
} from "../../../src/gguf/quant/half";
import {GgmlType, parseTypeName, typeLayout, typeName} from "../../../src/gguf/types";

interface Golden {
    llamaCppCommit: string;
    types: Record<string, {
        dequant: {blocks: number; src: string; out: string};
        quant: {blocks: number; x: string; ref: string; refOut: string};
    }>;
    half: {
        lowPatterns: number[];
        edges: [number, number, number][];
        f16ToF32Sha256: string; f32ToF16Sha256: string; f32ToBf16Sha256: string;
    };
}

const golden: Golden = JSON.parse(readFileSync(new URL("../../fixtures/quant-golden.json", import.meta.url), "utf8"));

const ALL = [GgmlType.F32, GgmlType.F16, GgmlType.BF16, GgmlType.Q8_0, GgmlType.Q4_0, GgmlType.Q4_1, GgmlType.Q5_0,
    GgmlType.Q5_1, GgmlType.Q2_K, GgmlType.Q3_K, GgmlType.Q4_K, GgmlType.Q5_K, GgmlType.Q6_K];
const BLOCK_TYPES = ALL.slice(3);
const LEGACY = new Set(["Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q8_0"]);

function bytes(b64: string): Uint8Array {
    return new Uint8Array(Buffer.from(b64, "base64"));
}

function floats(b64: string): Float32Array {
    const b = bytes(b64);
    return new Float32Array(b.buffer, b.byteOffset, b.length / 4);
}

function sha256(a: ArrayBufferView): string {
    return createHash("sha256").update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength)).digest("hex");
}

/** Asserts two float arrays are identical bit for bit (so -0 vs 0 and NaN payloads count), naming the first miss. */
function assertBitsEqual(got: Float32Array, want: Float32Array, what: string): void {
    assert.equal(got.length, want.length, `${what}: length`);
    const g = new Uint32Array(got.buffer, got.byteOffset, got.length);
    const w = new Uint32Array(want.buffer, want.byteOffset, want.length);
    for (let i = 0; i < w.length; i++) {
        if (g[i] !== w[i]) assert.fail(`${what}: element ${i} is ${got[i]} (0x${g[i].toString(16)}), ggml gives ${want[i]} (0x${w[i].toString(16)})`);
    }
}

// Seeded gaussian data (LCG + Box-Muller): the bounds below are for exactly this data, so they cannot flake.
function gaussian(n: number, seed: number): Float32Array {
    let s = seed >>> 0;
    const u = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return (s + 0.5) / 2 ** 32; };
    const x = new Float32Array(n);
    for (let i = 0; i < n; i++) x[i] = Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
    return x;
}

function sqErr(x: Float32Array, y: Float32Array, from = 0, to = x.length): number {
    let e = 0;
    for (let i = from; i < to; i++) e += (x[i] - y[i]) ** 2;
    return e;
}

function relRmse(x: Float32Array, y: Float32Array): number {
    let s = 0;
    for (const v of x) s += v * v;
    return Math.sqrt(sqErr(x, y) / s);
}

// ---- golden vectors from llama.cpp ----

test("golden: dequantize of random blocks equals ggml's dequantize_row_* bit for bit", () => {
    assert.equal(Object.keys(golden.types).length, 10);
    for (const [name, t] of Object.entries(golden.types)) {
        const type = parseTypeName(name)!;
        const want = floats(t.dequant.out);
        // Exact, not 1 ulp: we round where C rounds (Math.fround), and every product that feeds an addition
        // (q·d + m, dl·q − ml) is exact in float32, so FMA contraction could not change a bit either (the
        // harness is built with -ffp-contract=off all the same).
        assertBitsEqual(dequantize(type, bytes(t.dequant.src), want.length), want, `${name} random blocks`);
        const refOut = floats(t.quant.refOut);
        assertBitsEqual(dequantize(type, bytes(t.quant.ref), refOut.length), refOut, `${name} ggml-quantized blocks`);
    }
});

test("golden: legacy quantizers make the same bytes as ggml's quantize_row_*_ref", () => {
    for (const [name, t] of Object.entries(golden.types)) {
        if (!LEGACY.has(name)) continue;
        const got = quantize(parseTypeName(name)!, floats(t.quant.x));
        assert.deepEqual(got, bytes(t.quant.ref), `${name} bytes`);
    }
});

test("golden: K-quantizers are at least as accurate as ggml's reference quantizer on the same floats", () => {
    // Ours is a different (plain least-squares) search, so bytes differ; what must hold is quality. Over all
    // blocks ours must not be worse; per block we allow 5% (ggml's weighted search wins a few blocks by ~1%).
    for (const [name, t] of Object.entries(golden.types)) {
        if (LEGACY.has(name)) continue;
        const type = parseTypeName(name)!;
        const x = floats(t.quant.x), ref = floats(t.quant.refOut);
        const ours = dequantize(type, quantize(type, x), x.length);
        assert.ok(sqErr(x, ours) <= sqErr(x, ref), `${name}: total squared error ${sqErr(x, ours)} > ggml's ${sqErr(x, ref)}`);
        for (let b = 0; b < t.quant.blocks; b++) {
            const e = sqErr(x, ours, 256 * b, 256 * b + 256), r = sqErr(x, ref, 256 * b, 256 * b + 256);
            assert.ok(e <= 1.05 * r + 1e-12, `${name} block ${b}: squared error ${e} vs ggml's ${r}`);
        }
    }
});

// ---- fp16 / bf16 ----

test("half: edge cases match ggml's fp32->fp16 and fp32->bf16 (Inf, NaN, ties, subnormals, overflow)", () => {
    const bits = new Uint32Array(golden.half.edges.map(e => e[0]));
    const x = new Float32Array(bits.buffer);
    const h = new Uint16Array(quantize(GgmlType.F16, x).buffer), b = new Uint16Array(quantize(GgmlType.BF16, x).buffer);
    golden.half.edges.forEach(([w, f16, bf16], i) => {
        const hex = `0x${w.toString(16)}`;
        assert.equal(halfFromF32Bits(w), f16, `fp16 of ${hex}`);
        assert.equal(h[i], f16, `F16 tensor of ${hex}`);
        assert.equal(bf16FromF32Bits(w), bf16, `bf16 of ${hex}`);
        assert.equal(b[i], bf16, `BF16 tensor of ${hex}`);
    });
    // the named cases, readable
    assert.equal(floatToHalf(65504), 0x7bff);
    assert.equal(floatToHalf(65519.99), 0x7bff);
    assert.equal(floatToHalf(65520), 0x7c00, "65520 ties to even: Inf");
    assert.equal(floatToHalf(-Infinity), 0xfc00);
    assert.equal(floatToHalf(NaN) & 0x7fff, 0x7e00);
    assert.equal(floatToHalf(2 ** -24), 0x0001, "smallest subnormal");
    assert.equal(floatToHalf(2 ** -25), 0x0000, "half of it ties to even: 0");
    assert.equal(floatToHalf(1.5 * 2 ** -24), 0x0002, "1.5 subnormal steps ties to even: 2");
    assert.equal(floatToHalf(-0), 0x8000);
    assert.equal(floatToHalf(1 + 2 ** -11), 0x3c00, "tie between 1 and its successor goes to even");
    assert.equal(floatToHalf(1 + 3 * 2 ** -11), 0x3c02);
    assert.equal(halfToFloat(0x7bff), 65504);
    assert.equal(halfToFloat(0x0001), 2 ** -24);
    assert.equal(halfToFloat(0x03ff), 1023 * 2 ** -24);
    assert.ok(Object.is(halfToFloat(0x8000), -0));
    assert.ok(Number.isNaN(halfToFloat(0x7e00)));
    assert.equal(floatToBf16(1 + 2 ** -8), 0x3f80, "bf16 tie to even");
    assert.equal(floatToBf16(1 + 3 * 2 ** -8), 0x3f82);
    assert.equal(bf16ToFloat(0x3f80), 1);
});

test("half: fp16->f32 for all 65536 halves equals ggml's (sha256 of the whole table)", () => {
    const all = new Uint8Array(new Uint16Array(65536).map((_, i) => i).buffer);
    const out = dequantize(GgmlType.F16, all, 65536);
    assert.equal(sha256(out), golden.half.f16ToF32Sha256);
    // and every non-NaN half survives f16 -> f32 -> f16
    for (let h = 0; h < 65536; h++) {
        if ((h & 0x7c00) === 0x7c00 && (h & 0x3ff) !== 0) continue;
        if (floatToHalf(halfToFloat(h)) !== h) assert.fail(`half 0x${h.toString(16)} does not round-trip`);
    }
});

test("half: f32->fp16 and f32->bf16 over every sign/exponent/top-mantissa x 16 rounding patterns equal ggml's", () => {
    const lows = golden.half.lowPatterns;
    const w = new Uint32Array(65536 * lows.length);
    for (let hi = 0, i = 0; hi < 65536; hi++) for (const lo of lows) w[i++] = (hi << 16 | lo) >>> 0;
    const x = new Float32Array(w.buffer);
    assert.equal(sha256(quantize(GgmlType.F16, x)), golden.half.f32ToF16Sha256, "fp16");
    assert.equal(sha256(quantize(GgmlType.BF16, x)), golden.half.f32ToBf16Sha256, "bf16");
});

// ---- round trips ----

// Relative RMSE bounds on 65536 seeded N(0,1) values. Each is the measured value (deterministic data) plus
// ~15% headroom, and each sits near the uniform-noise estimate step/√12, where step is the block's value
// range over its levels: e.g. Q8_0 step ≈ 2·amax/254 with E[amax of 32] ≈ 2.1σ → 0.0048; Q4_0 ≈ 2.1σ/8/√12
// ≈ 0.076 (+ the clamp of the far side); Q4_1 ≈ 4.1σ/15/√12 ≈ 0.079. K-quants are better than their bit
// counts suggest because every 16/32 values get their own scale (Q4_K measured 0.071, Q6_K 0.017).
const RMSE_BOUND: Partial<Record<GgmlType, number>> = {
    [GgmlType.Q8_0]: 0.0065, [GgmlType.Q4_0]: 0.10, [GgmlType.Q4_1]: 0.095, [GgmlType.Q5_0]: 0.05,
    [GgmlType.Q5_1]: 0.045, [GgmlType.Q2_K]: 0.30, [GgmlType.Q3_K]: 0.165, [GgmlType.Q4_K]: 0.08,
    [GgmlType.Q5_K]: 0.04, [GgmlType.Q6_K]: 0.02,
};

test("round trip: block types stay within their relative RMSE bound on gaussian data", () => {
    const x = gaussian(65536, 7);
    for (const type of BLOCK_TYPES) {
        const q = quantize(type, x);
        assert.equal(q.length, 65536 / typeLayout(type)!.blockSize * typeLayout(type)!.typeSize);
        const e = relRmse(x, dequantize(type, q, x.length));
        assert.ok(e <= RMSE_BOUND[type]!, `${typeName(type)}: relative RMSE ${e.toFixed(5)} > ${RMSE_BOUND[type]}`);
    }
});

test("round trip: F32 is exact, F16 within half an fp16 ulp, BF16 within half a bf16 ulp", () => {
    const x = gaussian(4096, 11);
    x[0] = NaN; x[1] = -Infinity; x[2] = -0;
    const f32 = dequantize(GgmlType.F32, quantize(GgmlType.F32, x), x.length);
    assert.deepEqual(new Uint32Array(f32.buffer), new Uint32Array(x.buffer));
    const f16 = dequantize(GgmlType.F16, quantize(GgmlType.F16, x), x.length);
    const bf16 = dequantize(GgmlType.BF16, quantize(GgmlType.BF16, x), x.length);
    assert.ok(Number.isNaN(f16[0]) && f16[1] === -Infinity && Object.is(f16[2], -0));
    assert.ok(Number.isNaN(bf16[0]) && bf16[1] === -Infinity && Object.is(bf16[2], -0));
    for (let i = 3; i < x.length; i++) {
        const a = Math.abs(x[i]);
        // round to nearest: |error| ≤ half a unit in the last place (10 / 7 stored mantissa bits), subnormal
        // halves (|x| < 2^-14) have a fixed ulp of 2^-24
        assert.ok(Math.abs(f16[i] - x[i]) <= Math.max(a * 2 ** -11, 2 ** -25), `F16 ${x[i]} -> ${f16[i]}`);
        assert.ok(Math.abs(bf16[i] - x[i]) <= a * 2 ** -8, `BF16 ${x[i]} -> ${bf16[i]}`);
    }
});

test("zero blocks decode to zeros and constant blocks to the constant (≤ 0.5% off)", () => {
    for (const type of BLOCK_TYPES) {
        const zeros = dequantize(type, quantize(type, new Float32Array(512)), 512);
        assert.ok(zeros.every(v => v === 0), `${typeName(type)} zeros`);
        // Constants stress the degenerate paths of the searches (range 0, all labels equal). The error left is
        // the fp16 rounding of the scale(s), worst for 1e-3 where the K-quants' d is an fp16 subnormal.
        for (const c of [0.75, -1.5, 3, 1e-3, -1e-3]) {
            const y = dequantize(type, quantize(type, new Float32Array(512).fill(c)), 512);
            const worst = y.reduce((m, v) => Math.max(m, Math.abs(v - c)), 0);
            assert.ok(worst <= 5e-3 * Math.abs(c), `${typeName(type)} constant ${c}: off by ${worst}`);
        }
    }
});

test("decoding is position-exact: a row of blocks decodes as its blocks one by one, at any byte offset", () => {
    const x = gaussian(1024, 3);
    for (const type of ALL) {
        const {blockSize, typeSize} = typeLayout(type)!;
        const q = quantize(type, x);
        const whole = dequantize(type, q, x.length);
        // an odd byteOffset, as a tensor view into a file buffer may have
        const shifted = new Uint8Array(q.length + 1).subarray(1);
        shifted.set(q);
        assertBitsEqual(dequantize(type, shifted, x.length), whole, `${typeName(type)} unaligned`);
        const out = new Float32Array(x.length + 5);
        assert.equal(dequantize(type, q, x.length, out), out, "returns the given output");
        const per = 256 - (256 % blockSize);
        const part = dequantize(type, q.subarray(typeSize * (per / blockSize), typeSize * (2 * per / blockSize)), per);
        assertBitsEqual(part, whole.subarray(per, 2 * per), `${typeName(type)} second slice`);
        assertBitsEqual(out.subarray(0, x.length), whole, `${typeName(type)} into out`);
    }
});

// ---- errors ----

test("wrong sizes throw instead of decoding a wrong tensor", () => {
    const q = quantize(GgmlType.Q4_K, gaussian(512, 1));
    assert.throws(() => dequantize(GgmlType.Q4_K, q.subarray(1), 512), /Q4_K: 512 elements need 288 bytes \(2 blocks of 144\), got 287/);
    assert.throws(() => dequantize(GgmlType.Q4_K, q, 256), /need 144 bytes/);
    assert.throws(() => dequantize(GgmlType.Q4_K, q, 500), /Q4_K: element count 500 is not a multiple of the block size 256/);
    assert.throws(() => dequantize(GgmlType.Q4_K, q, 512, new Float32Array(511)), /output holds 511 floats, 512 needed/);
    assert.throws(() => dequantize(GgmlType.F16, new Uint8Array(7), 4), /F16: 4 elements need 8 bytes/);
    assert.throws(() => quantize(GgmlType.Q8_0, new Float32Array(33)), /Q8_0: 33 elements is not a multiple of the block size 32/);
    assert.throws(() => quantize(GgmlType.Q2_K, new Float32Array(128)), /block size 256/);
});

test("unsupported types, non-finite values and fp16-overflowing scales throw, naming the type", () => {
    for (const type of [GgmlType.Q8_K, GgmlType.IQ2_XXS, GgmlType.Q8_1, GgmlType.I32, GgmlType.MXFP4]) {
        assert.equal(canDequantize(type), false);
        assert.equal(canQuantize(type), false);
        assert.throws(() => dequantize(type, new Uint8Array(0), 0), new RegExp(`cannot dequantize tensor type ${typeName(type)}`));
        assert.throws(() => quantize(type, new Float32Array(0)), new RegExp(`cannot quantize tensor type ${typeName(type)}`));
    }
    assert.throws(() => quantize(99 as GgmlType, new Float32Array(0)), /unknown\(99\)/);
    for (const type of ALL) assert.ok(canDequantize(type) && canQuantize(type), typeName(type));
    const x = gaussian(256, 5);
    x[17] = NaN;
    assert.throws(() => quantize(GgmlType.Q4_K, x), /Q4_K: element 17 is NaN/);
    x[17] = Infinity;
    assert.throws(() => quantize(GgmlType.Q8_0, x), /Q8_0: element 17 is Infinity/);
    const big = new Float32Array(256).fill(1e9);
    for (const type of BLOCK_TYPES) assert.throws(() => quantize(type, big), new RegExp(`${typeName(type)}.*does not fit in fp16`));
    // the float types have no scale: out-of-range values become Inf in F16 (as in ggml), stay finite in BF16
    assert.equal(dequantize(GgmlType.F16, quantize(GgmlType.F16, big), 256)[0], Infinity);
    assert.equal(f32Bits(bf16ToFloat(floatToBf16(1e9))) >>> 16, floatToBf16(1e9));
});
