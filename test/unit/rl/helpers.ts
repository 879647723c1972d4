// Test helpers for nano-rl: factory weights held in memory (no file), the backend under test, and comparisons.
import * as tf from "@tensorflow/tfjs-core";
import {buildModel, type ModelSpec} from "../../../src/factory/model";
import type {ModelConfig} from "../../../src/gguf/arch";
import {GgmlType} from "../../../src/gguf/types";
import {initBackend, parseBackendChoice, type BackendChoice} from "../../../src/rl/backend";
import type {WeightReader} from "../../../src/rl/weights";
import type {RefWeights} from "./ref-forward";

/** Backends the unit tests run on: $NANO_TEST_BACKENDS (comma list) or cpu + wasm. */
export function testBackends(): BackendChoice[] {
    const env = process.env.NANO_TEST_BACKENDS;
    return env ? env.split(",").map(s => parseBackendChoice(s)!).filter(Boolean) : ["cpu", "wasm"];
}

export async function useBackend(b: BackendChoice): Promise<void> {
    await initBackend({backend: b});
}

export interface MemModel {
    config: ModelConfig;
    weights: RefWeights;
    reader: WeightReader;
}

/** A factory model's float weights (before any quantization), in memory. */
export function memModel(spec: Partial<ModelSpec> & Pick<ModelSpec, "arch">): MemModel {
    const built = buildModel({type: GgmlType.F32, nEmbd: 32, nLayer: 2, nHead: 4, nHeadKv: 2, nFf: 48, ...spec});
    const weights: RefWeights = new Map();
    for (const t of built.tensors) {
        const d = t.data;
        weights.set(t.name, typeof d === "function" ? d() : d instanceof Float32Array ? d : (() => { throw new Error("raw bytes"); })());
    }
    return {config: built.config, weights, reader: {has: n => weights.has(n), read: n => weights.get(n)!}};
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
    if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
    let m = 0;
    for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
    return m;
}

/** Deterministic pseudo-random floats in [−1, 1). */
export function randArray(n: number, seed: number, scale = 1): Float32Array {
    let s = seed >>> 0;
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        out[i] = ((s / 4294967296) * 2 - 1) * scale;
    }
    return out;
}

export function numTensors(): number {
    return tf.memory().numTensors;
}
