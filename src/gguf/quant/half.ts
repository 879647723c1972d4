// Owns float32 <-> IEEE half (F16) and bfloat16 (BF16): scalar conversions and the F16/BF16 tensor codecs.
// Results are bit-identical to ggml's ggml_compute_fp16_to_fp32 / ggml_compute_fp32_to_fp16 (round to nearest
// even; NaN -> sign | 0x7E00) and ggml_compute_fp32_to_bf16 (round to nearest even; NaN made quiet).
// Assumes a little-endian host (every platform node-llama-cpp ships for), like the GGUF files themselves.

// One shared scratch word for bit casts: no allocation per element.
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Bits of `x` rounded to float32. */
export function f32Bits(x: number): number {
    f32[0] = x;
    return u32[0];
}

/** The float32 whose bits are `bits`. */
export function f32FromBits(bits: number): number {
    u32[0] = bits;
    return f32[0];
}

function decodeHalf(h: number): number {
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >> 10) & 0x1f;
    const mant = h & 0x3ff;
    if (exp === 0x1f) return mant === 0 ? sign * Infinity : NaN; // NaN bits are set by the table below
    // Subnormals: mant * 2^-24; normals: (1024 + mant) * 2^(exp-25). Both exact in float32.
    return exp === 0 ? sign * mant * 2 ** -24 : sign * (1024 + mant) * 2 ** (exp - 25);
}

let halfTable: Uint32Array | undefined;

/** Float32 bits of all 65536 halves (256 KB, built on first use): decoding is then one lookup.
 *  Kept as bits, not floats, so NaN payloads survive (JS engines may canonicalize NaN numbers). */
export function halfBitsTable(): Uint32Array {
    if (!halfTable) {
        const t = new Uint32Array(65536);
        for (let h = 0; h < 65536; h++) t[h] = f32Bits(decodeHalf(h));
        // NaNs: sign, payload << 13, quiet bit, exactly as ggml's bit shuffle on x86 gives them.
        for (let m = 1; m < 0x400; m++) {
            t[0x7c00 | m] = (0x7f800000 | m << 13 | 0x400000) >>> 0;
            t[0xfc00 | m] = (0xff800000 | m << 13 | 0x400000) >>> 0;
        }
        halfTable = t;
    }
    return halfTable;
}

/** IEEE half bits -> float (exact). */
export function halfToFloat(h: number): number {
    return f32FromBits(halfBitsTable()[h & 0xffff]);
}

/** Float32 bits -> IEEE half bits, round to nearest even. */
export function halfFromF32Bits(w: number): number {
    const sign = (w >>> 16) & 0x8000;
    const a = w & 0x7fffffff;
    if (a > 0x7f800000) return sign | 0x7e00;            // NaN -> canonical quiet NaN (ggml does the same)
    if (a >= 0x477ff000) return sign | 0x7c00;           // >= 65520 rounds to Inf (65504 + half an ulp, ties to even)
    if (a >= 0x38800000) {                               // normal half: drop 13 mantissa bits, round to even
        const r = a + 0xfff + ((a >>> 13) & 1);          // a carry may step the exponent: still the right half
        return sign | ((r - 0x38000000) >>> 13);
    }
    if (a <= 0x33000000) return sign;                    // <= 2^-25 (half the smallest subnormal): signed zero
    // Subnormal half: |x| * 2^24 < 1024 is exact in a double; round that to an integer, ties to even.
    const v = f32FromBits(a) * 16777216;
    let i = Math.floor(v);
    const frac = v - i;
    if (frac > 0.5 || (frac === 0.5 && (i & 1) === 1)) i++;
    return sign | i;                                      // i may reach 1024 = the smallest normal: still right
}

/** float -> IEEE half bits: `x` is first rounded to float32, then to half with round-to-nearest-even. */
export function floatToHalf(x: number): number {
    return halfFromF32Bits(f32Bits(x));
}

/** Rounds `x` to the nearest half and returns it as a number (float32-exact). */
export function roundToHalf(x: number): number {
    return f32FromBits(halfBitsTable()[floatToHalf(x)]);
}

/** bfloat16 bits -> float (exact: the top half of a float32). */
export function bf16ToFloat(b: number): number {
    return f32FromBits((b & 0xffff) << 16);
}

/** Float32 bits -> bfloat16 bits, as ggml_compute_fp32_to_bf16: round to nearest even, NaN kept and quieted. */
export function bf16FromF32Bits(w: number): number {
    if ((w & 0x7fffffff) > 0x7f800000) return (w >>> 16) | 64;
    // No overflow past 2^32: the largest non-NaN word is 0xff800000.
    return (w + 0x7fff + ((w >>> 16) & 1)) >>> 16;
}

/** float -> bfloat16 bits (`x` first rounded to float32). */
export function floatToBf16(x: number): number {
    return bf16FromF32Bits(f32Bits(x));
}

// ---- fp16 fields inside quantized blocks (little-endian) ----

export function readHalf(src: Uint8Array, o: number): number {
    return src[o] | (src[o + 1] << 8);
}

export function writeHalf(dst: Uint8Array, o: number, h: number): void {
    dst[o] = h & 0xff;
    dst[o + 1] = h >>> 8;
}

/** Stores a block's fp16 scale; a scale past the half range (|v| >= 65520) would decode as Inf: refuse it. */
export function writeScale(dst: Uint8Array, o: number, v: number, type: string): number {
    const h = floatToHalf(v);
    if ((h & 0x7c00) === 0x7c00) throw new Error(`${type}: block scale ${v} does not fit in fp16 (values too large for ${type})`);
    writeHalf(dst, o, h);
    return h;
}

// ---- tensor codecs: F16 and BF16 are 2 bytes per element, little-endian. They work on bit views (Uint32Array)
// of the float arrays, so every value, NaN payloads included, goes through unchanged.

function bitsOf(a: Float32Array, count: number): Uint32Array {
    return new Uint32Array(a.buffer, a.byteOffset, count);
}

export function dequantizeF16(src: Uint8Array, count: number, out: Float32Array): void {
    const t = halfBitsTable();
    const ow = bitsOf(out, count);
    for (let i = 0, o = 0; i < count; i++, o += 2) ow[i] = t[src[o] | (src[o + 1] << 8)];
}

export function quantizeF16(src: Float32Array, dst: Uint8Array): void {
    const sw = bitsOf(src, src.length);
    for (let i = 0, o = 0; i < sw.length; i++, o += 2) {
        writeHalf(dst, o, halfFromF32Bits(sw[i]));
    }
}

export function dequantizeBf16(src: Uint8Array, count: number, out: Float32Array): void {
    const ow = bitsOf(out, count);
    for (let i = 0, o = 0; i < count; i++, o += 2) ow[i] = (src[o] << 16 | src[o + 1] << 24) >>> 0;
}

export function quantizeBf16(src: Float32Array, dst: Uint8Array): void {
    const sw = bitsOf(src, src.length);
    for (let i = 0, o = 0; i < sw.length; i++, o += 2) {
        writeHalf(dst, o, bf16FromF32Bits(sw[i]));
    }
}
