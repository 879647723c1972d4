// Owns building a NanoModel from a GGUF file: reads the config and the (dequantized) base weights through the
// GGUF toolkit, choosing where the weights live for the running backend (memory.ts).
import {openGguf, type GgufFile} from "../gguf/reader";
import {modelConfig} from "../gguf/arch";
import {currentBackend, initBackend} from "./backend";
import {chooseResidency} from "./memory";
import {NanoModel} from "./model";
import {BaseWeights, type BaseWeightsOptions, type Residency} from "./weights";
import type {LoraAdapter} from "./lora";

export interface LoadModelOptions extends Omit<BaseWeightsOptions, "residency"> {
    /** Default "auto": resident, or streamed on wasm for models above 1 GiB of fp32 weights. */
    residency?: Residency | "auto";
    adapter?: LoraAdapter;
}

/** Weight reader over an open GGUF file (dequantizes any type the toolkit reads). */
export function ggufReader(f: GgufFile): {has(name: string): boolean; read(name: string): Promise<Float32Array>} {
    return {has: n => f.has(n), read: n => f.readTensorF32(n)};
}

/** Loads the base network of a llama / qwen2 GGUF into tfjs (starting the backend if needed). */
export async function loadNanoModel(path: string, opts: LoadModelOptions = {}): Promise<NanoModel> {
    const backend = currentBackend() ?? await initBackend();
    const f = await openGguf(path);
    try {
        const config = modelConfig(f);
        const residency = !opts.residency || opts.residency === "auto" ? chooseResidency(config, backend.choice) : opts.residency;
        const weights = await BaseWeights.load(config, ggufReader(f), {...opts, residency});
        return new NanoModel(weights, opts.adapter);
    } finally {
        f.close();
    }
}
