// Owns the mapping between ggml tensor names and Hugging Face (transformers / PEFT) module names for llama and
// qwen2, including the one layout difference: for llama, llama.cpp's converter permutes the output rows of q_proj
// and k_proj (HF's rotate-half RoPE order → ggml NORM's adjacent pairs); qwen2 (NEOX) is stored unpermuted.
// A LoRA update B·A changes W's output rows through B only, so B's rows carry the same permutation.
import type {ModelConfig} from "../../gguf/arch";
import {GGML_MODULE, type LoraTarget} from "../lora";

export const HF_MODULE: Record<LoraTarget, string> = {
    q: "self_attn.q_proj", k: "self_attn.k_proj", v: "self_attn.v_proj", o: "self_attn.o_proj",
    gate: "mlp.gate_proj", up: "mlp.up_proj", down: "mlp.down_proj",
};

/** PEFT's key prefix for a causal LM adapter. */
export const PEFT_PREFIX = "base_model.model.model.layers.";

/** "blk.3.attn_q.weight" → {layer 3, target q}; undefined for names that are not LoRA targets. */
export function parseGgmlBase(base: string): {layer: number; target: LoraTarget} | undefined {
    const m = /^blk\.(\d+)\.([a-z_]+)\.weight$/.exec(base);
    if (!m) return undefined;
    const target = (Object.entries(GGML_MODULE).find(([, s]) => s === m[2]) ?? [])[0] as LoraTarget | undefined;
    return target ? {layer: Number(m[1]), target} : undefined;
}

export function ggmlBase(layer: number, target: LoraTarget): string {
    return `blk.${layer}.${GGML_MODULE[target]}.weight`;
}

/** "…layers.3.self_attn.q_proj.lora_A.weight" → {layer, target, factor}; tolerant of prefixes and adapter names. */
export function parsePeftKey(key: string): {layer: number; target: LoraTarget; factor: "A" | "B"} | undefined {
    const m = /(?:^|\.)layers\.(\d+)\.(self_attn\.[qkvo]_proj|mlp\.(?:gate|up|down)_proj)\.lora_([AB])(?:\.[A-Za-z0-9_]+)?\.weight$/.exec(key);
    if (!m) return undefined;
    const target = (Object.entries(HF_MODULE).find(([, s]) => s === m[2]) ?? [])[0] as LoraTarget;
    return {layer: Number(m[1]), target, factor: m[3] as "A" | "B"};
}

export function peftKey(layer: number, target: LoraTarget, factor: "A" | "B"): string {
    return `${PEFT_PREFIX}${layer}.${HF_MODULE[target]}.lora_${factor}.weight`;
}

/** Heads whose rows are permuted for this target and architecture (0: none). */
function permutedHeads(c: ModelConfig, target: LoraTarget): number {
    if (c.arch !== "llama") return 0;
    return target === "q" ? c.nHead : target === "k" ? c.nHeadKv : 0;
}

/**
 * Reorders the output rows of a row-major [n_out][cols] matrix between ggml and HF order. Within each head of size
 * d, HF row j·d/2 + i (j ∈ {0, 1}: rotate-half member) is ggml row 2i + j (convert_hf_to_gguf.py `permute`).
 */
export function permuteRows(c: ModelConfig, target: LoraTarget, data: Float32Array, cols: number, to: "hf" | "ggml"): Float32Array {
    const nh = permutedHeads(c, target);
    if (!nh) return data;
    const d = c.headDim, out = new Float32Array(data.length);
    for (let h = 0; h < nh; h++) for (let j = 0; j < 2; j++) for (let i = 0; i < d / 2; i++) {
        const hf = h * d + j * (d / 2) + i, gg = h * d + 2 * i + j;
        const [src, dst] = to === "hf" ? [gg, hf] : [hf, gg];
        out.set(data.subarray(src * cols, (src + 1) * cols), dst * cols);
    }
    return out;
}
