// Owns the supported model architectures (llama, qwen2): their hyper-parameters as read from GGUF metadata
// and tensor names, and the rope layout llama.cpp uses for each. Knows nothing of how the network is computed.

import {NanoError} from "../common/errors";
import type {GgufMetadata} from "./metadata";

export type Arch = "llama" | "qwen2";
export const ARCHS: readonly Arch[] = ["llama", "qwen2"];

/** llama.cpp LLAMA_ROPE_TYPE_NORM rotates adjacent pairs (2i, 2i+1); NEOX rotates (i, i + headDim/2). */
export type RopeType = "norm" | "neox";
export const ROPE_TYPE: Record<Arch, RopeType> = {llama: "norm", qwen2: "neox"};

export interface ModelConfig {
    arch: Arch;
    nEmbd: number;
    nHead: number;
    nHeadKv: number;
    headDim: number;
    nLayer: number;
    nFf: number;
    nVocab: number;
    contextLength: number;
    ropeBase: number;
    ropeType: RopeType;
    rmsEps: number;
    /** No output.weight: logits use token_embd.weight (Qwen2.5-0.5B ships this way). */
    tiedOutput: boolean;
    /** q/k/v projections carry biases (qwen2). */
    qkvBias: boolean;
}

/** What modelConfig needs from a file: its metadata and which tensors exist (with their shapes). */
export interface ModelSource {
    metadata: GgufMetadata;
    has(name: string): boolean;
    tensor(name: string): {shape: number[]};
}

export function isArch(a: string | undefined): a is Arch {
    return a === "llama" || a === "qwen2";
}

export function modelConfig(f: ModelSource): ModelConfig {
    const m = f.metadata;
    const arch = m.getString("general.architecture");
    if (!isArch(arch))
        throw new NanoError("unsupported-arch", `architecture "${arch ?? "(none)"}" is not supported (supported: ${ARCHS.join(", ")})`);
    const n = (k: string) => m.requireNumber(`${arch}.${k}`);
    const nEmbd = n("embedding_length");
    const nHead = n("attention.head_count");
    const nHeadKv = m.getNumber(`${arch}.attention.head_count_kv`) ?? nHead;
    const headDim = m.getNumber(`${arch}.attention.key_length`) ?? nEmbd / nHead;
    if (!f.has("token_embd.weight")) throw new NanoError("bad-model", "model has no token_embd.weight");
    const nVocab = f.tensor("token_embd.weight").shape[1]!;
    const cfg: ModelConfig = {
        arch, nEmbd, nHead, nHeadKv, headDim,
        nLayer: n("block_count"),
        nFf: n("feed_forward_length"),
        nVocab,
        contextLength: n("context_length"),
        ropeBase: m.getNumber(`${arch}.rope.freq_base`) ?? 10000,
        ropeType: ROPE_TYPE[arch],
        rmsEps: n("attention.layer_norm_rms_epsilon"),
        tiedOutput: !f.has("output.weight"),
        qkvBias: f.has("blk.0.attn_q.bias"),
    };
    if (!Number.isInteger(headDim) || nHead % nHeadKv !== 0)
        throw new NanoError("bad-model", `inconsistent heads: n_embd ${nEmbd}, heads ${nHead}, kv heads ${nHeadKv}`);
    return cfg;
}

/** The 2-D weight tensors of one block, ggml names, with their [n_in, n_out] (ne order). */
export function blockMatrices(c: ModelConfig): {name: string; nIn: number; nOut: number}[] {
    const q = c.nHead * c.headDim, kv = c.nHeadKv * c.headDim;
    return [
        {name: "attn_q", nIn: c.nEmbd, nOut: q},
        {name: "attn_k", nIn: c.nEmbd, nOut: kv},
        {name: "attn_v", nIn: c.nEmbd, nOut: kv},
        {name: "attn_output", nIn: q, nOut: c.nEmbd},
        {name: "ffn_gate", nIn: c.nEmbd, nOut: c.nFf},
        {name: "ffn_up", nIn: c.nEmbd, nOut: c.nFf},
        {name: "ffn_down", nIn: c.nFf, nOut: c.nEmbd},
    ];
}
