// Owns the 32-element "legacy" block codecs: Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 (not F16/BF16, not the K-quants).
// Dequantizers repeat ggml's dequantize_row_* float32 arithmetic step for step (Math.fround where C rounds to
// float). Quantizers follow ggml's quantize_row_*_ref, the deterministic ones llama-quantize uses without an
// importance matrix, so our blocks are byte-identical to ggml's for the same floats.
// Element j of a 4/5-bit block sits in the low nibble of qs[j] (j < 16) or the high nibble of qs[j - 16].

import {f32FromBits, halfBitsTable, readHalf, writeScale} from "./half";

const fr = Math.fround;

// ---- Q4_0: d f16, qs[16] = 18 bytes; x = d * (q - 8) ----

export function dequantizeQ4_0(src: Uint8Array, nb: number, out: Float32Array): void {
    const h = halfBitsTable();
    for (let b = 0, o = 0, y = 0; b < nb; b++, o += 18, y += 32) {
        const d = f32FromBits(h[readHalf(src, o)]);
        for (let j = 0; j < 16; j++) {
            const q = src[o + 2 + j];
            out[y + j] = fr(((q & 15) - 8) * d);
            out[y + j + 16] = fr(((q >> 4) - 8) * d);
        }
    }
}

/** Largest-magnitude value (signed) of x[off .. off+n), first one wins ties, as ggml scans. */
function signedAbsMax(x: Float32Array, off: number, n: number): number {
    let amax = 0, max = 0;
    for (let j = 0; j < n; j++) {
        const v = x[off + j];
        const a = Math.abs(v);
        if (amax < a) { amax = a; max = v; }
    }
    return max;
}

export function quantizeQ4_0(x: Float32Array, nb: number, dst: Uint8Array): void {
    for (let b = 0, o = 0, i = 0; b < nb; b++, o += 18, i += 32) {
        // The extreme value maps to -8 exactly, so the full [-8, 7] range is used on its side.
        const d = fr(signedAbsMax(x, i, 32) / -8);
        const id = d ? fr(1 / d) : 0;
        writeScale(dst, o, d, "Q4_0");
        for (let j = 0; j < 16; j++) {
            const q0 = Math.min(15, Math.trunc(fr(fr(x[i + j] * id) + 8.5)));
            const q1 = Math.min(15, Math.trunc(fr(fr(x[i + j + 16] * id) + 8.5)));
            dst[o + 2 + j] = q0 | (q1 << 4);
        }
    }
}

// ---- Q4_1: d f16, m f16, qs[16] = 20 bytes; x = d * q + m ----

export function dequantizeQ4_1(src: Uint8Array, nb: number, out: Float32Array): void {
    const h = halfBitsTable();
    for (let b = 0, o = 0, y = 0; b < nb; b++, o += 20, y += 32) {
        const d = f32FromBits(h[readHalf(src, o)]);
        const m = f32FromBits(h[readHalf(src, o + 2)]);
        for (let j = 0; j < 16; j++) {
            const q = src[o + 4 + j];
            out[y + j] = fr(fr((q & 15) * d) + m);
            out[y + j + 16] = fr(fr((q >> 4) * d) + m);
        }
    }
}

/** [min, max] of x[off .. off+n) into mm. */
function minMax(x: Float32Array, off: number, n: number, mm: Float64Array): void {
    let lo = Infinity, hi = -Infinity;
    for (let j = 0; j < n; j++) {
        const v = x[off + j];
        if (v < lo) lo = v;
        if (v > hi) hi = v;
    }
    mm[0] = lo;
    mm[1] = hi;
}

const mm = new Float64Array(2);

export function quantizeQ4_1(x: Float32Array, nb: number, dst: Uint8Array): void {
    for (let b = 0, o = 0, i = 0; b < nb; b++, o += 20, i += 32) {
        minMax(x, i, 32, mm);
        const lo = mm[0];
        const d = fr(fr(mm[1] - lo) / 15);
        const id = d ? fr(1 / d) : 0;
        writeScale(dst, o, d, "Q4_1");
        writeScale(dst, o + 2, lo, "Q4_1");
        for (let j = 0; j < 16; j++) {
            const q0 = Math.min(15, Math.trunc(fr(fr(fr(x[i + j] - lo) * id) + 0.5)));
            const q1 = Math.min(15, Math.trunc(fr(fr(fr(x[i + j + 16] - lo) * id) + 0.5)));
            dst[o + 4 + j] = q0 | (q1 << 4);
        }
    }
}

// ---- Q5_0: d f16, qh u32, qs[16] = 22 bytes; x = d * (q - 16); bit j of qh is the 5th bit of element j ----

function readU32(src: Uint8Array, o: number): number {
    return (src[o] | (src[o + 1] << 8) | (src[o + 2] << 16) | (src[o + 3] << 24)) >>> 0;
}

function writeU32(dst: Uint8Array, o: number, v: number): void {
    dst[o] = v & 0xff;
    dst[o + 1] = (v >>> 8) & 0xff;
    dst[o + 2] = (v >>> 16) & 0xff;
    dst[o + 3] = v >>> 24;
}

export function dequantizeQ5_0(src: Uint8Array, nb: number, out: Float32Array): void {
    const h = halfBitsTable();
    for (let b = 0, o = 0, y = 0; b < nb; b++, o += 22, y += 32) {
        const d = f32FromBits(h[readHalf(src, o)]);
        const qh = readU32(src, o + 2);
        for (let j = 0; j < 16; j++) {
            const q = src[o + 6 + j];
            const q0 = ((q & 15) | (((qh >>> j) & 1) << 4)) - 16;
            const q1 = ((q >> 4) | (((qh >>> (j + 16)) & 1) << 4)) - 16;
            out[y + j] = fr(q0 * d);
            out[y + j + 16] = fr(q1 * d);
        }
    }
}

export function quantizeQ5_0(x: Float32Array, nb: number, dst: Uint8Array): void {
    for (let b = 0, o = 0, i = 0; b < nb; b++, o += 22, i += 32) {
        const d = fr(signedAbsMax(x, i, 32) / -16);
        const id = d ? fr(1 / d) : 0;
        writeScale(dst, o, d, "Q5_0");
        let qh = 0;
        for (let j = 0; j < 16; j++) {
            const q0 = Math.min(31, Math.trunc(fr(fr(x[i + j] * id) + 16.5)));
            const q1 = Math.min(31, Math.trunc(fr(fr(x[i + j + 16] * id) + 16.5)));
            dst[o + 6 + j] = (q0 & 15) | ((q1 & 15) << 4);
            qh |= ((q0 >> 4) << j) | ((q1 >> 4) << (j + 16));
        }
        writeU32(dst, o + 2, qh >>> 0);
    }
}

// ---- Q5_1: d f16, m f16, qh u32, qs[16] = 24 bytes; x = d * q + m ----

export function dequantizeQ5_1(src: Uint8Array, nb: number, out: Float32Array): void {
    const h = halfBitsTable();
    for (let b = 0, o = 0, y = 0; b < nb; b++, o += 24, y += 32) {
        const d = f32FromBits(h[readHalf(src, o)]);
        const m = f32FromBits(h[readHalf(src, o + 2)]);
        const qh = readU32(src, o + 4);
        for (let j = 0; j < 16; j++) {
            const q = src[o + 8 + j];
            const q0 = (q & 15) | (((qh >>> j) & 1) << 4);
            const q1 = (q >> 4) | (((qh >>> (j + 16)) & 1) << 4);
            out[y + j] = fr(fr(q0 * d) + m);
            out[y + j + 16] = fr(fr(q1 * d) + m);
        }
    }
}

export function quantizeQ5_1(x: Float32Array, nb: number, dst: Uint8Array): void {
    for (let b = 0, o = 0, i = 0; b < nb; b++, o += 24, i += 32) {
        minMax(x, i, 32, mm);
        const lo = mm[0];
        const d = fr(fr(mm[1] - lo) / 31);
        const id = d ? fr(1 / d) : 0;
        writeScale(dst, o, d, "Q5_1");
        writeScale(dst, o + 2, lo, "Q5_1");
        let qh = 0;
        for (let j = 0; j < 16; j++) {
            // ggml has no clamp here (x - min <= max - min); ours only guards against a float round-up to 32.
            const q0 = Math.min(31, Math.trunc(fr(fr(fr(x[i + j] - lo) * id) + 0.5)));
            const q1 = Math.min(31, Math.trunc(fr(fr(fr(x[i + j + 16] - lo) * id) + 0.5)));
            dst[o + 8 + j] = (q0 & 15) | ((q1 & 15) << 4);
            qh |= ((q0 >> 4) << j) | ((q1 >> 4) << (j + 16));
        }
        writeU32(dst, o + 4, qh >>> 0);
    }
}

// ---- Q8_0: d f16, qs[32] int8 = 34 bytes; x = d * q ----

export function dequantizeQ8_0(src: Uint8Array, nb: number, out: Float32Array): void {
    const h = halfBitsTable();
    for (let b = 0, o = 0, y = 0; b < nb; b++, o += 34, y += 32) {
        const d = f32FromBits(h[readHalf(src, o)]);
        for (let j = 0; j < 32; j++) out[y + j] = fr(((src[o + 2 + j] << 24) >> 24) * d);
    }
}

export function quantizeQ8_0(x: Float32Array, nb: number, dst: Uint8Array): void {
    for (let b = 0, o = 0, i = 0; b < nb; b++, o += 34, i += 32) {
        let amax = 0;
        for (let j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(x[i + j]));
        const d = fr(amax / 127);
        const id = d ? fr(1 / d) : 0;
        writeScale(dst, o, d, "Q8_0");
        for (let j = 0; j < 32; j++) {
            // roundf: halves away from zero (Math.round would send -2.5 to -2).
            const v = fr(x[i + j] * id);
            const q = v < 0 ? -Math.floor(0.5 - v) : Math.floor(v + 0.5);
            dst[o + 2 + j] = q & 0xff;
        }
    }
}
