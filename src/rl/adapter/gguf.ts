// Owns llama.cpp LoRA adapter files (GGUF): writing an adapter (a NEW file per version — node-llama-cpp caches
// adapters by path, so an overwritten file would silently keep serving the old weights) and reading one back.
// Layout: general.architecture = the base's, general.type = "adapter", adapter.type = "lora", adapter.lora.alpha;
// tensors "<base>.lora_a" ne = [n_in, r] and "<base>.lora_b" ne = [r, n_out]; y = W x + scale·(alpha/r)·B(A x).
import {existsSync, mkdirSync, readdirSync} from "node:fs";
import {join} from "node:path";
import {NanoError} from "../../common/errors";
import type {ModelConfig} from "../../gguf/arch";
import {kv} from "../../gguf/metadata";
import {openGguf} from "../../gguf/reader";
import {GgmlType} from "../../gguf/types";
import {writeGguf, type GgufWriteTensor} from "../../gguf/writer";
import {LoraAdapter, type LoraFileTensors} from "../lora";

/** An adapter's content as stored in a file, independent of tfjs. */
export interface LoraFile {
    arch: string;
    rank: number;
    alpha: number;
    tensors: LoraFileTensors[];
}

export interface WriteLoraOptions {
    /** F32 (default, exact) or F16. */
    type?: GgmlType.F32 | GgmlType.F16;
    /** Extra metadata, e.g. general.name or training step. */
    name?: string;
}

/** Writes `lora` as a llama.cpp adapter GGUF at `path` (atomic). Returns the file size. */
export function writeLoraGguf(path: string, lora: LoraFile, opts: WriteLoraOptions = {}): number {
    const type = opts.type ?? GgmlType.F32;
    const tensors: GgufWriteTensor[] = [];
    for (const t of lora.tensors) {
        tensors.push({name: `${t.base}.lora_a`, shape: [t.nIn, lora.rank], type, data: t.a});
        tensors.push({name: `${t.base}.lora_b`, shape: [lora.rank, t.nOut], type, data: t.b});
    }
    return writeGguf(path, {
        metadata: [
            kv.str("general.architecture", lora.arch),
            kv.str("general.type", "adapter"),
            kv.str("adapter.type", "lora"),
            kv.f32("adapter.lora.alpha", lora.alpha),
            ...(opts.name ? [kv.str("general.name", opts.name)] : []),
        ],
        tensors,
    });
}

/** Reads a llama.cpp LoRA adapter GGUF. */
export async function readLoraGguf(path: string): Promise<LoraFile> {
    const f = await openGguf(path);
    try {
        const m = f.metadata;
        if (m.getString("general.type") !== "adapter" || m.getString("adapter.type") !== "lora")
            throw new NanoError("rl.adapter.kind", `${path} is not a LoRA adapter (general.type "${m.getString("general.type")}", adapter.type "${m.getString("adapter.type")}")`);
        const pairs = new Map<string, {a?: Float32Array; b?: Float32Array; nIn?: number; nOut?: number; r?: number}>();
        for (const t of f.tensors) {
            const mt = /^(.*)\.lora_([ab])$/.exec(t.name);
            if (!mt) throw new NanoError("rl.adapter.tensor", `${path}: unexpected tensor "${t.name}"`);
            const p = pairs.get(mt[1]!) ?? {};
            const data = await f.readTensorF32(t);
            if (mt[2] === "a") { p.a = data; p.nIn = t.shape[0]; p.r = t.shape[1]; } else { p.b = data; p.nOut = t.shape[1]; }
            pairs.set(mt[1]!, p);
        }
        let rank = 0;
        const tensors: LoraFileTensors[] = [];
        for (const [base, p] of pairs) {
            if (!p.a || !p.b) throw new NanoError("rl.adapter.tensor", `${path}: "${base}" has only one of lora_a / lora_b`);
            if (rank && p.r !== rank) throw new NanoError("rl.adapter.rank", `${path}: mixed ranks (${rank}, ${p.r}) are not supported`);
            rank = p.r!;
            tensors.push({base, a: p.a, b: p.b, nIn: p.nIn!, nOut: p.nOut!});
        }
        const alpha = m.getNumber("adapter.lora.alpha") ?? rank;   // llama.cpp: alpha 0/absent → scale 1
        return {arch: f.architecture ?? "", rank, alpha: alpha || rank, tensors};
    } finally {
        f.close();
    }
}

/** The tfjs adapter as a LoraFile. */
export async function adapterToFile(ad: LoraAdapter): Promise<LoraFile> {
    return {arch: ad.model.arch, rank: ad.rank, alpha: ad.alpha, tensors: await ad.toFileTensors()};
}

/** Loads an adapter GGUF into trainable tfjs variables (checks the architecture and shapes against the model). */
export async function loadLoraGguf(path: string, model: ModelConfig): Promise<LoraAdapter> {
    const f = await readLoraGguf(path);
    if (f.arch !== model.arch) throw new NanoError("rl.adapter.arch", `${path} is for "${f.arch}", the model is "${model.arch}"`);
    return LoraAdapter.fromFileTensors(model, f.rank, f.alpha, f.tensors);
}

/**
 * Writes the adapter as `<dir>/<prefix>-vNNNN.gguf` with the next unused version number; never overwrites.
 * Returns the path and version.
 */
export async function exportAdapterVersion(dir: string, ad: LoraAdapter, opts: WriteLoraOptions & {prefix?: string} = {}): Promise<{path: string; version: number}> {
    const prefix = opts.prefix ?? "adapter";
    mkdirSync(dir, {recursive: true});
    const re = new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}-v(\\d+)\\.gguf$`);
    let version = 1;
    for (const n of readdirSync(dir)) { const m = re.exec(n); if (m) version = Math.max(version, Number(m[1]) + 1); }
    let path = join(dir, `${prefix}-v${String(version).padStart(4, "0")}.gguf`);
    while (existsSync(path)) path = join(dir, `${prefix}-v${String(++version).padStart(4, "0")}.gguf`);
    writeLoraGguf(path, await adapterToFile(ad), {...opts, name: opts.name ?? `${prefix} v${version}`});
    return {path, version};
}
