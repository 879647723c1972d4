// Owns the public (de)quantization API of src/gguf/quant: type dispatch and size checks. Other code imports
// only this file. The codecs themselves live in half.ts (F16, BF16), legacy.ts (Q4_0..Q8_0), kquants.ts.

import {GgmlType, typeLayout, typeName} from "../types";
import {dequantizeBf16, dequantizeF16, quantizeBf16, quantizeF16} from "./half";
import {
    dequantizeQ4_0, dequantizeQ4_1, dequantizeQ5_0, dequantizeQ5_1, dequantizeQ8_0,
    quantizeQ4_0, quantizeQ4_1, quantizeQ5_0, quantizeQ5_1, quantizeQ8_0,
} from "./legacy";
import {
    dequantizeQ2_K, dequantizeQ3_K, dequantizeQ4_K, dequantizeQ5_K, dequantizeQ6_K,
    quantizeQ2_K, quantizeQ3_K, quantizeQ4_K, quantizeQ5_K, quantizeQ6_K,
} from "./kquants";

interface Codec {
    /** Decodes `nb` blocks of src into out[0 .. nb·blockSize). */
    dequantize(src: Uint8Array, nb: number, out: Float32Array): void;
    /** Encodes `nb` blocks of x into dst (already sized, zero-filled). */
    quantize(x: Float32Array, nb: number, dst: Uint8Array): void;
}

function f32Bytes(a: Float32Array, count: number): Uint8Array {
    return new Uint8Array(a.buffer, a.byteOffset, count * 4);
}

const CODECS: Partial<Record<GgmlType, Codec>> = {
    // F32: a byte copy (little-endian host, like the file), whatever src's alignment.
    [GgmlType.F32]: {dequantize: (s, n, o) => f32Bytes(o, n).set(s), quantize: (x, n, d) => d.set(f32Bytes(x, n))},
    [GgmlType.F16]: {dequantize: dequantizeF16, quantize: (x, _n, d) => quantizeF16(x, d)},
    [GgmlType.BF16]: {dequantize: dequantizeBf16, quantize: (x, _n, d) => quantizeBf16(x, d)},
    [GgmlType.Q4_0]: {dequantize: dequantizeQ4_0, quantize: quantizeQ4_0},
    [GgmlType.Q4_1]: {dequantize: dequantizeQ4_1, quantize: quantizeQ4_1},
    [GgmlType.Q5_0]: {dequantize: dequantizeQ5_0, quantize: quantizeQ5_0},
    [GgmlType.Q5_1]: {dequantize: dequantizeQ5_1, quantize: quantizeQ5_1},
    [GgmlType.Q8_0]: {dequantize: dequantizeQ8_0, quantize: quantizeQ8_0},
    [GgmlType.Q2_K]: {dequantize: dequantizeQ2_K, quantize: quantizeQ2_K},
    [GgmlType.Q3_K]: {dequantize: dequantizeQ3_K, quantize: quantizeQ3_K},
    [GgmlType.Q4_K]: {dequantize: dequantizeQ4_K, quantize: quantizeQ4_K},
    [GgmlType.Q5_K]: {dequantize: dequantizeQ5_K, quantize: quantizeQ5_K},
    [GgmlType.Q6_K]: {dequantize: dequantizeQ6_K, quantize: quantizeQ6_K},
};

/** True for the 3 float types, i.e. the ones that store any float32 value (NaN/Inf included) without a scale. */
function isFloatType(type: GgmlType): boolean {
    return type === GgmlType.F32 || type === GgmlType.F16 || type === GgmlType.BF16;
}

function codecOf(type: GgmlType, what: "dequantize" | "quantize"): {codec: Codec; blockSize: number; typeSize: number} {
    const codec = CODECS[type];
    const layout = typeLayout(type);
    if (!codec || !layout) throw new Error(`cannot ${what} tensor type ${typeName(type)}: not supported`);
    return {codec, ...layout};
}

export function canDequantize(type: GgmlType): boolean {
    return CODECS[type] !== undefined;
}

export function canQuantize(type: GgmlType): boolean {
    return CODECS[type] !== undefined;
}

/**
 * Decodes `count` elements of `type` from `src` (exactly count/blockSize blocks, nothing more or less) into
 * `out` (its first `count` floats; a new array if omitted). Bit-identical to ggml's dequantize_row_*.
 */
export function dequantize(type: GgmlType, src: Uint8Array, count: number, out?: Float32Array): Float32Array {
    const {codec, blockSize, typeSize} = codecOf(type, "dequantize");
    if (!Number.isSafeInteger(count) || count < 0 || count % blockSize !== 0) {
        throw new Error(`dequantize ${typeName(type)}: element count ${count} is not a multiple of the block size ${blockSize}`);
    }
    const nb = count / blockSize;
    if (src.length !== nb * typeSize) {
        throw new Error(`dequantize ${typeName(type)}: ${count} elements need ${nb * typeSize} bytes ` +
            `(${nb} blocks of ${typeSize}), got ${src.length}`);
    }
    if (out && out.length < count) {
        throw new Error(`dequantize ${typeName(type)}: output holds ${out.length} floats, ${count} needed`);
    }
    const y = out ?? new Float32Array(count);
    codec.dequantize(src, nb, y);
    return y;
}

/**
 * Encodes `src` (length a multiple of the type's block size) as ggml blocks of `type`. Block types refuse
 * NaN/Inf (a block shares one scale: one bad value would spoil all its neighbours) and values whose block
 * scale would overflow fp16; the float types store every value as is (rounded to nearest even).
 */
export function quantize(type: GgmlType, src: Float32Array): Uint8Array {
    const {codec, blockSize, typeSize} = codecOf(type, "quantize");
    if (src.length % blockSize !== 0) {
        throw new Error(`quantize ${typeName(type)}: ${src.length} elements is not a multiple of the block size ${blockSize}`);
    }
    if (!isFloatType(type)) {
        for (let i = 0; i < src.length; i++) {
            const v = src[i];
            if (v - v !== 0) throw new Error(`quantize ${typeName(type)}: element ${i} is ${v} (only finite values quantize)`);
        }
    }
    const nb = src.length / blockSize;
    const dst = new Uint8Array(nb * typeSize);
    codec.quantize(src, nb, dst);
    return dst;
}
