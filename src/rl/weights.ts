// Owns the base network's weights on the tfjs side: where they live (backend memory, JS memory, or trainable
// variables), their orientation ([n_in, n_out] so x·W is a plain matmul), and the vocabulary row chunks.
// Knows ggml tensor names, not files (load.ts reads GGUF) and not the network's maths (block.ts, model.ts).
//
// Residency:
// - "resident": every weight is a backend tensor (fast; native backends, cpu, and models that fit the wasm heap).
// - "streamed": matrices stay in JS memory (off the wasm heap) and are uploaded for each use, inside the caller's
//   tidy scope, so the wasm heap holds one layer's weights at a time (the plan for 0.5B+ on wasm's 4 GiB heap).
// - "trainable": every weight is a trainable variable (full-parameter training of tiny models from scratch).
import * as tf from "@tensorflow/tfjs-core";
import {NanoError} from "../common/errors";
import {blockMatrices, type ModelConfig} from "../gguf/arch";
import {gatherRows, gatherRowsJs, embedTrainable} from "./embedding";
import {makeVariable} from "./lora";
import type {VocabProjection} from "./logprob";

export type Residency = "resident" | "streamed" | "trainable";

/** Reads one base tensor by ggml name as float32, row-major with ne[0] fastest (as GgufFile.readTensorF32). */
export interface WeightReader {
    has(name: string): boolean;
    read(name: string): Promise<Float32Array> | Float32Array;
}

export interface BaseWeightsOptions {
    /** Default "resident". */
    residency?: Residency;
    /** Vocabulary rows per chunk of the embedding / output matrix. Default 4096 (see logprob.ts). */
    vocabChunk?: number;
}

/** ggml names of every tensor the network reads. */
export function tensorNames(c: ModelConfig): {matrices: string[]; vectors: string[]} {
    const matrices: string[] = [], vectors = ["output_norm.weight"];
    for (let i = 0; i < c.nLayer; i++) {
        const p = `blk.${i}.`;
        vectors.push(p + "attn_norm.weight", p + "ffn_norm.weight");
        if (c.qkvBias) vectors.push(p + "attn_q.bias", p + "attn_k.bias", p + "attn_v.bias");
        for (const m of blockMatrices(c)) matrices.push(`${p}${m.name}.weight`);
    }
    return {matrices, vectors};
}

/** Row-major [rows][cols] → [cols][rows]. */
export function transposeRows(src: Float32Array, rows: number, cols: number): Float32Array {
    const out = new Float32Array(src.length);
    const B = 64;   // blocked: keeps both sides in cache
    for (let i0 = 0; i0 < rows; i0 += B) for (let j0 = 0; j0 < cols; j0 += B) {
        const i1 = Math.min(rows, i0 + B), j1 = Math.min(cols, j0 + B);
        for (let i = i0; i < i1; i++) for (let j = j0; j < j1; j++) out[j * rows + i] = src[i * cols + j]!;
    }
    return out;
}

interface Matrix {
    nIn: number;
    nOut: number;
    /** [n_in, n_out] row-major (streamed) */
    js?: Float32Array;
    /** [n_in, n_out] (resident / trainable) */
    t?: tf.Tensor2D;
}

export class BaseWeights {
    private readonly mats = new Map<string, Matrix>();
    private readonly vecs = new Map<string, tf.Tensor1D>();
    /** Vocabulary chunks of token_embd [n_c, H] and (untied) output [n_c, H]. */
    private embedChunks: tf.Tensor2D[] = [];
    private outChunks: tf.Tensor2D[] = [];
    private embedJs?: Float32Array;
    private outJs?: Float32Array;
    readonly starts: number[] = [];
    readonly sizes: number[] = [];
    private disposed = false;

    private constructor(readonly config: ModelConfig, readonly residency: Residency) {}

    static async load(config: ModelConfig, reader: WeightReader, opts: BaseWeightsOptions = {}): Promise<BaseWeights> {
        const residency = opts.residency ?? "resident", chunk = opts.vocabChunk ?? 4096;
        const w = new BaseWeights(config, residency);
        try {
            const {matrices, vectors} = tensorNames(config);
            const nameOf = (n: string) => `base/${n}`;
            const toTensor = (v: Float32Array, shape: number[], name: string) =>
                residency === "trainable" ? makeVariable(v, shape, nameOf(name) + `/${uid()}`) : tf.tensor(v, shape, "float32");
            for (const name of vectors) {
                if (!reader.has(name)) throw new NanoError("rl.weights.missing", `model has no tensor "${name}"`);
                const v = await reader.read(name);
                w.vecs.set(name, toTensor(v, [v.length], name) as tf.Tensor1D);
            }
            const dims = new Map(blockMatrices(config).map(m => [m.name, m]));
            for (const name of matrices) {
                if (!reader.has(name)) throw new NanoError("rl.weights.missing", `model has no tensor "${name}"`);
                const m = dims.get(name.split(".")[2]!)!;
                const raw = await reader.read(name);                                 // [n_out][n_in]
                if (raw.length !== m.nIn * m.nOut) throw new NanoError("rl.weights.shape", `"${name}" has ${raw.length} values, expected ${m.nIn}×${m.nOut}`);
                const t = transposeRows(raw, m.nOut, m.nIn);                        // [n_in][n_out]
                w.mats.set(name, residency === "streamed" ? {nIn: m.nIn, nOut: m.nOut, js: t}
                    : {nIn: m.nIn, nOut: m.nOut, t: toTensor(t, [m.nIn, m.nOut], name) as tf.Tensor2D});
            }
            const V = config.nVocab, H = config.nEmbd;
            for (let v0 = 0; v0 < V; v0 += chunk) { w.starts.push(v0); w.sizes.push(Math.min(chunk, V - v0)); }
            const split = async (name: string): Promise<{js?: Float32Array; chunks: tf.Tensor2D[]}> => {
                const all = await reader.read(name);                                 // [V][H]
                if (all.length !== V * H) throw new NanoError("rl.weights.shape", `"${name}" has ${all.length} values, expected ${V}×${H}`);
                if (residency === "streamed") return {js: all, chunks: []};
                return {chunks: w.starts.map((v0, c) => toTensor(all.subarray(v0 * H, (v0 + w.sizes[c]!) * H), [w.sizes[c]!, H], `${name}#${c}`) as tf.Tensor2D)};
            };
            const e = await split("token_embd.weight");
            w.embedJs = e.js; w.embedChunks = e.chunks;
            if (!config.tiedOutput) {
                if (!reader.has("output.weight")) throw new NanoError("rl.weights.missing", `model has no tensor "output.weight"`);
                const o = await split("output.weight");
                w.outJs = o.js; w.outChunks = o.chunks;
            }
            return w;
        } catch (e) {
            w.dispose();
            throw e;
        }
    }

    /** Base matrix [n_in, n_out] by ggml name. Streamed: a NEW tensor (call inside a tidy / grads scope). */
    matrix(name: string): tf.Tensor2D {
        const m = this.mats.get(name);
        if (!m) throw new NanoError("rl.weights.missing", `no base matrix "${name}"`);
        return m.t ?? tf.tensor2d(m.js!, [m.nIn, m.nOut]);
    }

    /** Norm weight or bias [n] by ggml name, if the model has it. */
    vector(name: string): tf.Tensor1D | undefined { return this.vecs.get(name); }

    /** Token embeddings E[ids] [T, H]; differentiable into the embedding when trainable. */
    embed(ids: readonly number[]): tf.Tensor2D {
        for (const id of ids) if (!Number.isInteger(id) || id < 0 || id >= this.config.nVocab)
            throw new NanoError("rl.token", `token id ${id} is outside the vocabulary (0..${this.config.nVocab - 1})`);
        if (this.embedJs) return gatherRowsJs(this.embedJs, this.config.nEmbd, ids);
        return this.residency === "trainable" ? embedTrainable(this.embedChunks, this.starts, ids) : gatherRows(this.embedChunks, this.starts, ids);
    }

    /** The output projection (token_embd when tied) as vocabulary chunks. */
    projection(): VocabProjection {
        const js = this.config.tiedOutput ? this.embedJs : this.outJs;
        const chunks = this.config.tiedOutput ? this.embedChunks : this.outChunks;
        const H = this.config.nEmbd;
        return {
            starts: this.starts, sizes: this.sizes,
            chunk: c => js ? tf.tensor2d(js.subarray(this.starts[c]! * H, (this.starts[c]! + this.sizes[c]!) * H), [this.sizes[c]!, H]) : chunks[c]!,
            trainable: this.residency === "trainable" ? chunks : undefined,
            rows: js ? ids => gatherRowsJs(js, H, ids) : undefined,
        };
    }

    /** Trainable base variables of layer i, keyed by ggml name ([] unless residency is "trainable"). */
    layerVariables(i: number): {key: string; v: tf.Tensor}[] {
        if (this.residency !== "trainable") return [];
        const pre = `blk.${i}.`, out: {key: string; v: tf.Tensor}[] = [];
        for (const [k, v] of this.vecs) if (k.startsWith(pre)) out.push({key: k, v});
        for (const [k, m] of this.mats) if (k.startsWith(pre)) out.push({key: k, v: m.t!});
        return out;
    }

    /** Every trainable base variable (full-parameter training). */
    variables(): tf.Variable[] {
        if (this.residency !== "trainable") return [];
        return [...this.vecs.values(), ...[...this.mats.values()].map(m => m.t!), ...this.embedChunks, ...this.outChunks] as tf.Variable[];
    }

    /** Current values in ggml layout (row-major, ne[0] fastest), e.g. to write a trained model back to GGUF. */
    async toGgml(): Promise<Map<string, {shape: number[]; data: Float32Array}>> {
        const out = new Map<string, {shape: number[]; data: Float32Array}>();
        for (const [k, v] of this.vecs) out.set(k, {shape: [v.shape[0]], data: (await v.data()) as Float32Array});
        for (const [k, m] of this.mats) {
            const d = m.js ?? ((await m.t!.data()) as Float32Array);
            out.set(k, {shape: [m.nIn, m.nOut], data: transposeRows(d, m.nIn, m.nOut)});
        }
        const H = this.config.nEmbd, V = this.config.nVocab;
        const join = async (js: Float32Array | undefined, chunks: tf.Tensor2D[]) => {
            if (js) return js;
            const all = new Float32Array(V * H);
            for (let c = 0; c < chunks.length; c++) all.set((await chunks[c]!.data()) as Float32Array, this.starts[c]! * H);
            return all;
        };
        out.set("token_embd.weight", {shape: [H, V], data: await join(this.embedJs, this.embedChunks)});
        if (!this.config.tiedOutput) out.set("output.weight", {shape: [H, V], data: await join(this.outJs, this.outChunks)});
        return out;
    }

    /** Bytes held in backend memory and in JS memory. */
    bytes(): {backend: number; js: number} {
        let backend = 0, js = 0;
        for (const v of this.vecs.values()) backend += v.size * 4;
        for (const m of this.mats.values()) { if (m.t) backend += m.t.size * 4; if (m.js) js += m.js.byteLength; }
        for (const c of [...this.embedChunks, ...this.outChunks]) backend += c.size * 4;
        js += (this.embedJs?.byteLength ?? 0) + (this.outJs?.byteLength ?? 0);
        return {backend, js};
    }

    dispose(): void {
        if (this.disposed) return;
        this.disposed = true;
        for (const v of this.vecs.values()) v.dispose();
        for (const m of this.mats.values()) m.t?.dispose();
        for (const c of [...this.embedChunks, ...this.outChunks]) c.dispose();
        this.vecs.clear(); this.mats.clear(); this.embedChunks = []; this.outChunks = [];
        this.embedJs = this.outJs = undefined;
    }
}

let counter = 0;
function uid(): number { return ++counter; }
