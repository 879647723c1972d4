// Owns LoRA adapters in tfjs: which modules they target, their trainable (A, B) variables, PEFT-style
// initialisation, and the ggml-layout view used by the exporters. Knows nothing of files (adapter/ writes them).
//
// Orientation: tfjs computes x·W with W [n_in, n_out], so here A is [n_in, r] and B is [r, n_out] and
//   y = x·W + (alpha / r) · (x·A)·B
// The file layouts are the transposes: llama.cpp `lora_a` ne = [n_in, r] (row-major [r][n_in], = PEFT lora_A.weight)
// and `lora_b` ne = [r, n_out] (row-major [n_out][r], = PEFT lora_B.weight).
import * as tf from "@tensorflow/tfjs-core";
import {NanoError} from "../common/errors";
import {blockMatrices, type ModelConfig} from "../gguf/arch";

export const LORA_TARGETS = ["q", "k", "v", "o", "gate", "up", "down"] as const;
export type LoraTarget = (typeof LORA_TARGETS)[number];

/** ggml tensor stem of each target (blk.N.<stem>.weight). */
export const GGML_MODULE: Record<LoraTarget, string> = {
    q: "attn_q", k: "attn_k", v: "attn_v", o: "attn_output", gate: "ffn_gate", up: "ffn_up", down: "ffn_down",
};

export interface LoraConfig {
    /** Rank r. Default 8. */
    rank?: number;
    /** Scale numerator: the update is (alpha / r)·B·A. Default 2·rank (PEFT examples' habit). */
    alpha?: number;
    /** Default all seven: q, k, v, o, gate, up, down. */
    targets?: readonly LoraTarget[];
    /** Layers that get adapters. Default all. */
    layers?: readonly number[];
    /** Seed of A's initialisation. Default 0. */
    seed?: number;
}

export interface LoraPair {
    /** [n_in, r] */
    a: tf.Variable;
    /** [r, n_out] */
    b: tf.Variable;
    nIn: number;
    nOut: number;
}

/** One adapter tensor pair in llama.cpp/PEFT layout (row-major, ggml ne order). */
export interface LoraFileTensors {
    /** Base weight name, e.g. "blk.3.attn_q.weight". */
    base: string;
    /** ne = [n_in, r]: row-major [r][n_in]. */
    a: Float32Array;
    /** ne = [r, n_out]: row-major [n_out][r]. */
    b: Float32Array;
    nIn: number;
    nOut: number;
}

/** Mulberry32: small, seeded, identical on every machine. */
function rng(seed: number): () => number {
    let s = seed >>> 0;
    return () => {
        s = (s + 0x6d2b79f5) >>> 0;
        let t = s;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

function transpose(src: Float32Array, rows: number, cols: number): Float32Array {
    const out = new Float32Array(src.length);
    for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j * rows + i] = src[i * cols + j]!;
    return out;
}

/** Parses "q,v" / "all" / "attn" / "mlp" into targets. */
export function parseLoraTargets(s: string): LoraTarget[] {
    const out = new Set<LoraTarget>();
    for (const part of s.split(",").map(x => x.trim().toLowerCase()).filter(Boolean)) {
        if (part === "all") LORA_TARGETS.forEach(t => out.add(t));
        else if (part === "attn") (["q", "k", "v", "o"] as const).forEach(t => out.add(t));
        else if (part === "mlp") (["gate", "up", "down"] as const).forEach(t => out.add(t));
        else if ((LORA_TARGETS as readonly string[]).includes(part)) out.add(part as LoraTarget);
        else throw new NanoError("rl.lora.target", `unknown LoRA target "${part}" (expected ${LORA_TARGETS.join(", ")}, all, attn, mlp)`);
    }
    return LORA_TARGETS.filter(t => out.has(t));
}

export class LoraAdapter {
    readonly rank: number;
    readonly alpha: number;
    readonly targets: readonly LoraTarget[];
    private readonly pairs = new Map<string, LoraPair>();
    private disposed = false;

    private constructor(readonly model: ModelConfig, rank: number, alpha: number, targets: readonly LoraTarget[]) {
        if (!Number.isInteger(rank) || rank < 1) throw new NanoError("rl.lora.rank", `LoRA rank must be a positive integer (got ${rank})`);
        this.rank = rank; this.alpha = alpha; this.targets = targets;
    }

    /** y = x·W + scale·(x·A)·B */
    get scale(): number { return this.alpha / this.rank; }

    /**
     * A new adapter initialised as PEFT does: A ~ kaiming-uniform(a = √5) = U(−1/√n_in, 1/√n_in), B = 0
     * (so the adapted model starts equal to the base).
     */
    static create(model: ModelConfig, cfg: LoraConfig = {}): LoraAdapter {
        const rank = cfg.rank ?? 8;
        const ad = new LoraAdapter(model, rank, cfg.alpha ?? 2 * rank, cfg.targets ?? LORA_TARGETS);
        const rand = rng(cfg.seed ?? 0);
        ad.forEachSlot((base, nIn, nOut) => {
            const bound = 1 / Math.sqrt(nIn);
            const a = new Float32Array(nIn * rank);
            for (let i = 0; i < a.length; i++) a[i] = (2 * rand() - 1) * bound;
            ad.setPair(base, a, new Float32Array(rank * nOut), nIn, nOut, false);
        }, cfg.layers);
        return ad;
    }

    /** An adapter from file tensors (llama.cpp/PEFT layout); targets are inferred from the names. */
    static fromFileTensors(model: ModelConfig, rank: number, alpha: number, tensors: readonly LoraFileTensors[]): LoraAdapter {
        const stems = new Map(Object.entries(GGML_MODULE).map(([t, s]) => [s, t as LoraTarget]));
        const targets = new Set<LoraTarget>();
        for (const t of tensors) {
            const m = /^blk\.\d+\.([a-z_]+)\.weight$/.exec(t.base);
            const target = m ? stems.get(m[1]!) : undefined;
            if (!target) throw new NanoError("rl.lora.tensor", `LoRA tensor for "${t.base}" is not a supported target`);
            targets.add(target);
        }
        const ad = new LoraAdapter(model, rank, alpha, LORA_TARGETS.filter(t => targets.has(t)));
        const shapes = new Map<string, [number, number]>();
        ad.forEachSlot((base, nIn, nOut) => shapes.set(base, [nIn, nOut]));
        for (const t of tensors) {
            const s = shapes.get(t.base);
            if (!s || s[0] !== t.nIn || s[1] !== t.nOut || t.a.length !== rank * t.nIn || t.b.length !== t.nOut * rank)
                throw new NanoError("rl.lora.shape", `LoRA tensors for "${t.base}" do not fit the model (n_in ${t.nIn}, n_out ${t.nOut}, rank ${rank})`);
            ad.setPair(t.base, t.a, t.b, t.nIn, t.nOut, true);
        }
        return ad;
    }

    private forEachSlot(fn: (base: string, nIn: number, nOut: number) => void, layers?: readonly number[]): void {
        const mats = new Map(blockMatrices(this.model).map(m => [m.name, m]));
        for (const l of layers ?? [...Array(this.model.nLayer).keys()]) for (const t of this.targets) {
            const m = mats.get(GGML_MODULE[t])!;
            fn(`blk.${l}.${m.name}.weight`, m.nIn, m.nOut);
        }
    }

    /** a, b in file layout when `fileLayout`, else tfjs layout ([n_in, r], [r, n_out]). */
    private setPair(base: string, a: Float32Array, b: Float32Array, nIn: number, nOut: number, fileLayout: boolean): void {
        const r = this.rank, safe = base.replace(/[^A-Za-z0-9_.]/g, "_");
        const aT = fileLayout ? transpose(a, r, nIn) : a;       // → [n_in, r]
        const bT = fileLayout ? transpose(b, nOut, r) : b;      // → [r, n_out]
        this.pairs.set(base, {
            a: makeVariable(aT, [nIn, r], `lora/${safe}/A/${uid()}`),
            b: makeVariable(bT, [r, nOut], `lora/${safe}/B/${uid()}`),
            nIn, nOut,
        });
    }

    /** The pair adapting base weight `base` ("blk.N.attn_q.weight"), if any. */
    get(base: string): LoraPair | undefined { return this.pairs.get(base); }

    /** Base weight names that carry an adapter, in layer/target order. */
    bases(): string[] { return [...this.pairs.keys()]; }

    /** All trainable variables (A then B of each pair). */
    variables(): tf.Variable[] { return [...this.pairs.values()].flatMap(p => [p.a, p.b]); }

    /** Variables of one layer's pairs (for activation checkpointing). */
    layerVariables(layer: number): {key: string; v: tf.Variable}[] {
        const pre = `blk.${layer}.`, out: {key: string; v: tf.Variable}[] = [];
        for (const [base, p] of this.pairs) if (base.startsWith(pre)) out.push({key: `${base}#A`, v: p.a}, {key: `${base}#B`, v: p.b});
        return out;
    }

    /** Values in llama.cpp/PEFT layout (reads the variables back from the backend). */
    async toFileTensors(): Promise<LoraFileTensors[]> {
        const out: LoraFileTensors[] = [];
        for (const [base, p] of this.pairs) {
            const [a, b] = await Promise.all([p.a.data() as Promise<Float32Array>, p.b.data() as Promise<Float32Array>]);
            out.push({base, a: transpose(a, p.nIn, this.rank), b: transpose(b, this.rank, p.nOut), nIn: p.nIn, nOut: p.nOut});
        }
        return out;
    }

    /** Sets every B to N(0, std²)-ish uniform values (tests: a non-zero adapter without training). */
    randomizeB(std: number, seed = 1): void {
        const rand = rng(seed), k = std * Math.sqrt(3);
        for (const p of this.pairs.values()) {
            const v = new Float32Array(this.rank * p.nOut);
            for (let i = 0; i < v.length; i++) v[i] = (2 * rand() - 1) * k;
            tf.tidy(() => p.b.assign(tf.tensor2d(v, [this.rank, p.nOut])));
        }
    }

    dispose(): void {
        if (this.disposed) return;
        this.disposed = true;
        for (const p of this.pairs.values()) { p.a.dispose(); p.b.dispose(); }
        this.pairs.clear();
    }
}

/** A trainable variable holding `values` (the temporary tensor is released). */
export function makeVariable(values: Float32Array, shape: number[], name: string, trainable = true): tf.Variable {
    const t = tf.tensor(values, shape, "float32");
    const v = tf.variable(t, trainable, name);
    t.dispose();
    return v;
}

let counter = 0;
/** Variable names must be unique per process; adapters come and go. */
function uid(): number { return ++counter; }
