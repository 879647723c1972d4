// Owns the GGUF/ggml vocabulary: metadata value types, tensor types and their block layout (sizes per block).
// Numbers follow ggml.h (enum ggml_type) and gguf.h (enum gguf_type) of the llama.cpp bundled in node-llama-cpp.

/** GGUF metadata value types (gguf_type). */
export enum GgufValueType {
    UINT8 = 0, INT8 = 1, UINT16 = 2, INT16 = 3, UINT32 = 4, INT32 = 5, FLOAT32 = 6, BOOL = 7,
    STRING = 8, ARRAY = 9, UINT64 = 10, INT64 = 11, FLOAT64 = 12,
}

/** Tensor element types (ggml_type). Ids 4, 5 and 31–33, 36–38 are retired in ggml and rejected. */
export enum GgmlType {
    F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
    Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15,
    IQ2_XXS = 16, IQ2_XS = 17, IQ3_XXS = 18, IQ1_S = 19, IQ4_NL = 20, IQ3_S = 21, IQ2_S = 22, IQ4_XS = 23,
    I8 = 24, I16 = 25, I32 = 26, I64 = 27, F64 = 28, IQ1_M = 29, BF16 = 30,
    TQ1_0 = 34, TQ2_0 = 35, MXFP4 = 39,
}

export interface TypeLayout {
    /** Elements per block (1 for plain types). A row length ne[0] must be a multiple of it. */
    blockSize: number;
    /** Bytes per block. */
    typeSize: number;
}

/** Block layouts from ggml's type_traits (ggml.c). QK_K = 256 for the K-quants and i-quants. */
const LAYOUT: Record<number, TypeLayout> = {
    [GgmlType.F32]: {blockSize: 1, typeSize: 4},
    [GgmlType.F16]: {blockSize: 1, typeSize: 2},
    [GgmlType.Q4_0]: {blockSize: 32, typeSize: 18},
    [GgmlType.Q4_1]: {blockSize: 32, typeSize: 20},
    [GgmlType.Q5_0]: {blockSize: 32, typeSize: 22},
    [GgmlType.Q5_1]: {blockSize: 32, typeSize: 24},
    [GgmlType.Q8_0]: {blockSize: 32, typeSize: 34},
    [GgmlType.Q8_1]: {blockSize: 32, typeSize: 36},
    [GgmlType.Q2_K]: {blockSize: 256, typeSize: 84},
    [GgmlType.Q3_K]: {blockSize: 256, typeSize: 110},
    [GgmlType.Q4_K]: {blockSize: 256, typeSize: 144},
    [GgmlType.Q5_K]: {blockSize: 256, typeSize: 176},
    [GgmlType.Q6_K]: {blockSize: 256, typeSize: 210},
    [GgmlType.Q8_K]: {blockSize: 256, typeSize: 292},
    [GgmlType.IQ2_XXS]: {blockSize: 256, typeSize: 66},
    [GgmlType.IQ2_XS]: {blockSize: 256, typeSize: 74},
    [GgmlType.IQ3_XXS]: {blockSize: 256, typeSize: 98},
    [GgmlType.IQ1_S]: {blockSize: 256, typeSize: 50},
    [GgmlType.IQ4_NL]: {blockSize: 32, typeSize: 18},
    [GgmlType.IQ3_S]: {blockSize: 256, typeSize: 110},
    [GgmlType.IQ2_S]: {blockSize: 256, typeSize: 82},
    [GgmlType.IQ4_XS]: {blockSize: 256, typeSize: 136},
    [GgmlType.I8]: {blockSize: 1, typeSize: 1},
    [GgmlType.I16]: {blockSize: 1, typeSize: 2},
    [GgmlType.I32]: {blockSize: 1, typeSize: 4},
    [GgmlType.I64]: {blockSize: 1, typeSize: 8},
    [GgmlType.F64]: {blockSize: 1, typeSize: 8},
    [GgmlType.IQ1_M]: {blockSize: 256, typeSize: 56},
    [GgmlType.BF16]: {blockSize: 1, typeSize: 2},
    [GgmlType.TQ1_0]: {blockSize: 256, typeSize: 54},
    [GgmlType.TQ2_0]: {blockSize: 256, typeSize: 66},
    [GgmlType.MXFP4]: {blockSize: 32, typeSize: 17},
};

export function typeLayout(type: number): TypeLayout | undefined {
    return LAYOUT[type];
}

export function typeName(type: number): string {
    return GgmlType[type] ?? `unknown(${type})`;
}

/** Parses "q4_k", "Q4_K", "f32" ... into a GgmlType. */
export function parseTypeName(name: string): GgmlType | undefined {
    const t = (GgmlType as unknown as Record<string, number>)[name.toUpperCase()];
    return typeof t === "number" ? t : undefined;
}

/** Bytes of a tensor of `elements` elements of `type` (the caller checked divisibility by blockSize). */
export function tensorByteSize(type: GgmlType, elements: number): number {
    const l = LAYOUT[type];
    if (!l) throw new Error(`unknown ggml type ${type}`);
    return (elements / l.blockSize) * l.typeSize;
}

/** general.file_type values (llama_ftype) for a model whose large tensors are all of one type. */
export const FILE_TYPE_OF: Partial<Record<GgmlType, number>> = {
    [GgmlType.F32]: 0, [GgmlType.F16]: 1, [GgmlType.Q4_0]: 2, [GgmlType.Q4_1]: 3, [GgmlType.Q8_0]: 7,
    [GgmlType.Q5_0]: 8, [GgmlType.Q5_1]: 9, [GgmlType.Q2_K]: 10, [GgmlType.Q3_K]: 12 /* Q3_K_M */,
    [GgmlType.Q4_K]: 15 /* Q4_K_M */, [GgmlType.Q5_K]: 17 /* Q5_K_M */, [GgmlType.Q6_K]: 18, [GgmlType.BF16]: 32,
};

export const GGUF_MAGIC = 0x46554747; // "GGUF" read as little-endian u32
export const GGUF_DEFAULT_ALIGNMENT = 32;
export const GGML_MAX_DIMS = 4;
