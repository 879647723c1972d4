// Owns PEFT adapters (Hugging Face): export of a LoRA as `adapter_model.safetensors` + `adapter_config.json` with
// transformers module names, and import of such a folder back into the llama.cpp layout (then a GGUF adapter).
// PEFT's lora_A.weight [r, n_in] and lora_B.weight [n_out, r] have the bytes of ggml's lora_a / lora_b, except for
// llama's q/k row permutation (hf-names.ts). Scaling: PEFT uses alpha / r (or alpha / √r with use_rslora).
import {mkdirSync, readFileSync, writeFileSync} from "node:fs";
import {join} from "node:path";
import {NanoError} from "../../common/errors";
import type {ModelConfig} from "../../gguf/arch";
import {LORA_TARGETS, type LoraFileTensors, type LoraTarget} from "../lora";
import type {LoraFile} from "./gguf";
import {HF_MODULE, ggmlBase, parseGgmlBase, parsePeftKey, peftKey, permuteRows} from "./hf-names";
import {readSafetensors, writeSafetensors, type SafeTensor} from "./safetensors";

export const PEFT_WEIGHTS = "adapter_model.safetensors";
export const PEFT_CONFIG = "adapter_config.json";

export interface PeftExportOptions {
    /** adapter_config.json base_model_name_or_path (e.g. "Qwen/Qwen2.5-Coder-0.5B-Instruct"). */
    baseModel?: string;
}

/** Writes `lora` (llama.cpp layout) as a PEFT adapter folder. */
export function exportPeft(dir: string, model: ModelConfig, lora: LoraFile, opts: PeftExportOptions = {}): void {
    mkdirSync(dir, {recursive: true});
    const tensors = new Map<string, SafeTensor>(), targets = new Set<LoraTarget>(), r = lora.rank;
    for (const t of lora.tensors) {
        const p = parseGgmlBase(t.base);
        if (!p) throw new NanoError("rl.peft.target", `"${t.base}" has no Hugging Face module name`);
        targets.add(p.target);
        tensors.set(peftKey(p.layer, p.target, "A"), {shape: [r, t.nIn], data: t.a});
        tensors.set(peftKey(p.layer, p.target, "B"), {shape: [t.nOut, r], data: permuteRows(model, p.target, t.b, r, "hf")});
    }
    writeSafetensors(join(dir, PEFT_WEIGHTS), tensors);
    const config = {
        peft_type: "LORA", task_type: "CAUSAL_LM", base_model_name_or_path: opts.baseModel ?? null,
        r, lora_alpha: lora.alpha, lora_dropout: 0, bias: "none", fan_in_fan_out: false, use_rslora: false, use_dora: false,
        target_modules: LORA_TARGETS.filter(t => targets.has(t)).map(t => HF_MODULE[t].split(".")[1]),
        inference_mode: true, init_lora_weights: true, modules_to_save: null, layers_to_transform: null,
        rank_pattern: {}, alpha_pattern: {},
    };
    writeFileSync(join(dir, PEFT_CONFIG), JSON.stringify(config, null, 2) + "\n");
}

/** Reads a PEFT adapter folder into the llama.cpp layout (ready for writeLoraGguf). */
export function importPeft(dir: string, model: ModelConfig): LoraFile {
    let cfg: {r?: number; lora_alpha?: number; use_rslora?: boolean; use_dora?: boolean; peft_type?: string;
        fan_in_fan_out?: boolean; rank_pattern?: object; alpha_pattern?: object};
    try { cfg = JSON.parse(readFileSync(join(dir, PEFT_CONFIG), "utf8")); } catch (e) {
        throw new NanoError("rl.peft.config", `cannot read ${join(dir, PEFT_CONFIG)}: ${(e as Error).message}`);
    }
    const bad = (why: string): never => { throw new NanoError("rl.peft.unsupported", `${dir}: ${why}`); };
    if (cfg.peft_type && cfg.peft_type !== "LORA") bad(`peft_type ${cfg.peft_type} is not LORA`);
    if (cfg.use_dora) bad("DoRA adapters cannot be expressed as a llama.cpp LoRA");
    if (cfg.fan_in_fan_out) bad("fan_in_fan_out (Conv1D) adapters are not llama/qwen2 adapters");
    if (Object.keys(cfg.rank_pattern ?? {}).length || Object.keys(cfg.alpha_pattern ?? {}).length) bad("per-module rank/alpha patterns are not supported");
    const {tensors} = readSafetensors(join(dir, PEFT_WEIGHTS));
    const pairs = new Map<string, {a?: SafeTensor; b?: SafeTensor; layer: number; target: LoraTarget}>();
    for (const [key, t] of tensors) {
        const p = parsePeftKey(key);
        if (!p) bad(`tensor "${key}" is not a LoRA factor of a llama/qwen2 projection`);
        const base = ggmlBase(p!.layer, p!.target);
        const e = pairs.get(base) ?? {layer: p!.layer, target: p!.target};
        if (p!.factor === "A") e.a = t; else e.b = t;
        pairs.set(base, e);
    }
    const rank = cfg.r ?? [...pairs.values()][0]?.a?.shape[0] ?? bad("no LoRA tensors");
    const out: LoraFileTensors[] = [];
    for (const [base, e] of pairs) {
        if (!e.a || !e.b) bad(`"${base}" has only one of lora_A / lora_B`);
        const [ra, nIn] = e.a!.shape as [number, number], [nOut, rb] = e.b!.shape as [number, number];
        if (ra !== rank || rb !== rank) bad(`"${base}": rank ${ra}/${rb}, config says ${rank}`);
        out.push({base, nIn, nOut, a: e.a!.data, b: permuteRows(model, e.target, e.b!.data, rank, "ggml")});
    }
    out.sort((x, y) => order(x.base) - order(y.base));
    // rsLoRA scales by alpha/√r; llama.cpp by alpha/r: the same update with alpha' = alpha·√r.
    const alpha = (cfg.lora_alpha ?? rank) * (cfg.use_rslora ? Math.sqrt(rank) : 1);
    return {arch: model.arch, rank, alpha, tensors: out};
}

/** Layer-major, then target order — the order our exporter writes. */
function order(base: string): number {
    const p = parseGgmlBase(base)!;
    return p.layer * LORA_TARGETS.length + LORA_TARGETS.indexOf(p.target);
}
