// Owns the model factory: deterministic (seeded) tiny GGUF models of the supported architectures (llama, qwen2)
// in any writable tensor type — the test models of the whole project. Weights are random; the file layout,
// metadata and tokenizer are those of real llama / Qwen2.5 GGUFs.

import {NanoError} from "../common/errors";
import {blockMatrices, ROPE_TYPE, type Arch, type ModelConfig} from "../gguf/arch";
import {kv, type GgufKv} from "../gguf/metadata";
import {FILE_TYPE_OF, GgmlType, typeLayout, typeName} from "../gguf/types";
import {writeGguf, type GgufWriteTensor} from "../gguf/writer";
import {hashString, Rng} from "./rng";
import {buildTokenizer} from "./tokenizer";

export interface ModelSpec {
    arch: Arch;
    /** Type of the 2-D weight matrices; norms and biases stay F32 as in real files. */
    type: GgmlType;
    seed?: number;
    /** Defaults: 64 (or 256 when the type's block is 256, as K-quants need). */
    nEmbd?: number;
    nLayer?: number;
    nHead?: number;
    nHeadKv?: number;
    /** Defaults: 2 × nEmbd. */
    nFf?: number;
    contextLength?: number;
    /** Defaults: 10000 (llama), 1e6 (qwen2, as Qwen2.5). */
    ropeBase?: number;
    /** Defaults: 1e-5 (llama), 1e-6 (qwen2). */
    rmsEps?: number;
    /** No output.weight (logits from token_embd). Defaults: false (llama), true (qwen2, as Qwen2.5-0.5B). */
    tiedOutput?: boolean;
    /** BPE merges learned from the factory corpus. Default 64. */
    merges?: number;
    padVocabTo?: number;
    /** Per-tensor type overrides: the first entry whose pattern matches the tensor name wins. */
    overrides?: {match: RegExp | string; type: GgmlType}[];
    name?: string;
}

export interface BuiltModel {
    config: ModelConfig;
    metadata: GgufKv[];
    /** Lazy: each tensor's values are generated when it is written. */
    tensors: GgufWriteTensor[];
}

export function resolveSpec(spec: ModelSpec): Required<Omit<ModelSpec, "overrides" | "name" | "padVocabTo">> & Pick<ModelSpec, "overrides" | "name" | "padVocabTo"> {
    const block = typeLayout(spec.type)?.blockSize ?? 1;
    const nEmbd = spec.nEmbd ?? (block >= 256 ? 256 : 64);
    const qwen = spec.arch === "qwen2";
    return {
        ...spec,
        seed: spec.seed ?? 1234,
        nEmbd,
        nLayer: spec.nLayer ?? 2,
        nHead: spec.nHead ?? 4,
        nHeadKv: spec.nHeadKv ?? 2,
        nFf: spec.nFf ?? nEmbd * 2,
        contextLength: spec.contextLength ?? 32768, // as Qwen2.5; sessions pick their own context size
        ropeBase: spec.ropeBase ?? (qwen ? 1e6 : 10000),
        rmsEps: spec.rmsEps ?? (qwen ? 1e-6 : 1e-5),
        tiedOutput: spec.tiedOutput ?? qwen,
        merges: spec.merges ?? 64,
    };
}

export function buildModel(input: ModelSpec): BuiltModel {
    const s = resolveSpec(input);
    const {arch} = s;
    if (s.nEmbd % s.nHead !== 0) throw new NanoError("factory", `n_embd ${s.nEmbd} is not divisible by ${s.nHead} heads`);
    if (s.nHead % s.nHeadKv !== 0) throw new NanoError("factory", `${s.nHead} heads are not a multiple of ${s.nHeadKv} kv heads`);
    const headDim = s.nEmbd / s.nHead;
    if (headDim % 2 !== 0) throw new NanoError("factory", `head dim ${headDim} must be even for rope`);
    const tok = buildTokenizer({merges: s.merges, padVocabTo: s.padVocabTo});
    const config: ModelConfig = {
        arch, nEmbd: s.nEmbd, nHead: s.nHead, nHeadKv: s.nHeadKv, headDim, nLayer: s.nLayer, nFf: s.nFf,
        nVocab: tok.tokens.length, contextLength: s.contextLength,
        // Stored as f32 in the file: the config holds the value a reader gets back.
        ropeBase: Math.fround(s.ropeBase), ropeType: ROPE_TYPE[arch], rmsEps: Math.fround(s.rmsEps), tiedOutput: s.tiedOutput, qkvBias: arch === "qwen2",
    };

    const typeFor = (name: string, dflt: GgmlType): GgmlType => {
        for (const o of s.overrides ?? [])
            if (typeof o.match === "string" ? name === o.match || name.endsWith(o.match) : o.match.test(name)) return o.type;
        return dflt;
    };
    const tensors: GgufWriteTensor[] = [];
    /** A seeded tensor: values ~ N(mean, std²), generated on demand from (seed, name). */
    const add = (name: string, shape: number[], type: GgmlType, std: number, mean = 0) => {
        const t = typeFor(name, type);
        const block = typeLayout(t)!.blockSize;
        if (shape[0]! % block !== 0)
            throw new NanoError("factory", `${name}: row length ${shape[0]} is not a multiple of the ${typeName(t)} block size ${block}; choose sizes that are (e.g. --embd 256 --ff 512 for K-quants)`);
        const n = shape.reduce((a, b) => a * b, 1);
        tensors.push({name, shape, type: t, data: () => new Rng(hashString(name, s.seed)).normal(new Float32Array(n), std, mean)});
    };
    const F32 = GgmlType.F32;
    add("token_embd.weight", [s.nEmbd, config.nVocab], s.type, 1);
    for (let i = 0; i < s.nLayer; i++) {
        const p = `blk.${i}.`;
        // Norm weights near 1 (not exactly 1) so a forward pass that forgets them is caught by parity tests.
        add(p + "attn_norm.weight", [s.nEmbd], F32, 0.1, 1);
        for (const m of blockMatrices(config)) {
            add(`${p}${m.name}.weight`, [m.nIn, m.nOut], s.type, 1 / Math.sqrt(m.nIn));
            if (config.qkvBias && (m.name === "attn_q" || m.name === "attn_k" || m.name === "attn_v"))
                add(`${p}${m.name}.bias`, [m.nOut], F32, 0.1);
            if (m.name === "attn_output") add(p + "ffn_norm.weight", [s.nEmbd], F32, 0.1, 1);
        }
    }
    add("output_norm.weight", [s.nEmbd], F32, 0.1, 1);
    if (!s.tiedOutput) add("output.weight", [s.nEmbd, config.nVocab], s.type, 1 / Math.sqrt(s.nEmbd));

    const a = (k: string) => `${arch}.${k}`;
    const metadata: GgufKv[] = [
        kv.str("general.architecture", arch),
        kv.str("general.name", s.name ?? `nano-factory-${arch}-${typeName(s.type).toLowerCase()}`),
        kv.u32("general.file_type", FILE_TYPE_OF[s.type] ?? 0),
        kv.u32("general.quantization_version", 2),
        kv.u32(a("context_length"), s.contextLength),
        kv.u32(a("embedding_length"), s.nEmbd),
        kv.u32(a("block_count"), s.nLayer),
        kv.u32(a("feed_forward_length"), s.nFf),
        kv.u32(a("attention.head_count"), s.nHead),
        kv.u32(a("attention.head_count_kv"), s.nHeadKv),
        kv.f32(a("attention.layer_norm_rms_epsilon"), s.rmsEps),
        kv.f32(a("rope.freq_base"), s.ropeBase),
        ...(arch === "llama" ? [kv.u32(a("vocab_size"), config.nVocab), kv.u32(a("rope.dimension_count"), headDim)] : []),
        kv.u64("nano.factory.seed", s.seed),
        ...tok.metadata,
    ];
    return {config, metadata, tensors};
}

/** Builds and writes a factory model; returns its config and file size. */
export function makeModel(spec: ModelSpec, outPath: string): {config: ModelConfig; bytes: number} {
    const m = buildModel(spec);
    const bytes = writeGguf(outPath, {metadata: m.metadata, tensors: m.tensors});
    return {config: m.config, bytes};
}
