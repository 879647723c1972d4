// Owns the parity check between the tfjs network and llama.cpp (node-llama-cpp, CPU) on the same GGUF, adapter
// and tokens: raw logits after each token and the log-prob of each next token. llama.cpp runs in its exact mode
// (no flash attention, F32 KV cache), so with an F32 base the two agree to ~1e-5; quantized bases differ by
// llama.cpp's activation quantization (see test/parity/parity.test.ts for the bounds and their reasons).
import type {Llama, LlamaModel} from "node-llama-cpp";
import {NanoError} from "../common/errors";
import {loadLoraGguf} from "./adapter/gguf";
import {currentBackend, initBackend, type BackendChoice} from "./backend";
import {loadNanoModel} from "./load";

export interface ParityOptions {
    model: string;
    adapter?: string;
    /** Token ids to score, or a count (default 32) of tokens of a fixed code sample. */
    tokens?: readonly number[] | number;
    /** llama.cpp threads. Default 1. */
    threads?: number;
    /** tfjs backend. Default: the running one, or auto. */
    backend?: BackendChoice;
    /** An existing CPU Llama (tests share one); else one is created and disposed. */
    llama?: Llama;
    /** Also return both engines' logits (tests compare them with a reference). */
    keepLogits?: boolean;
}

export interface ParityResult {
    tokens: number[];
    nVocab: number;
    backend: string;
    /** max over positions and vocabulary of |logit_tfjs − logit_llama.cpp| */
    maxAbsLogit: number;
    /** max over positions of |log p_tfjs(next) − log p_llama.cpp(next)| */
    maxAbsLogprob: number;
    /** max |logit| seen (scale of the figures above) */
    maxLogit: number;
    /** With keepLogits: [T][V] from tfjs and from llama.cpp. */
    logits?: {tfjs: Float32Array[]; llama: Float32Array[]};
}

const SAMPLE = `def fibonacci(n: int) -> int:
    """Return the n-th Fibonacci number."""
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a

if __name__ == "__main__":
    print([fibonacci(i) for i in range(10)])
`;

/** log-softmax of one row at index `k` (float64). */
function logprobAt(row: ArrayLike<number>, k: number): number {
    let m = -Infinity;
    for (let i = 0; i < row.length; i++) m = Math.max(m, row[i]!);
    let z = 0;
    for (let i = 0; i < row.length; i++) z += Math.exp(row[i]! - m);
    return row[k]! - m - Math.log(z);
}

async function sampleTokens(model: LlamaModel, n: number): Promise<number[]> {
    const base = model.tokenize(SAMPLE).map(Number);
    if (base.length === 0) throw new NanoError("rl.parity.tokens", "the model tokenizes the sample to nothing");
    const out: number[] = [];
    while (out.length < n) out.push(...base);
    return out.slice(0, n);
}

/** llama.cpp's raw logits [T][V] after each token (teacher forcing). */
async function llamaLogits(model: LlamaModel, tokens: number[], nVocab: number, adapter: string | undefined, threads: number): Promise<Float32Array[]> {
    const ctx = await model.createContext({
        contextSize: Math.max(64, tokens.length + 8), threads, flashAttention: false,
        experimentalKvCacheKeyType: "F32", experimentalKvCacheValueType: "F32",
        ...(adapter ? {lora: {adapters: [{filePath: adapter}]}} : {}),
    });
    const seq = ctx.getSequence();
    try {
        type Item = Parameters<typeof seq.controlledEvaluate>[0][number];
        const out = await seq.controlledEvaluate(tokens.map(t => [t, {generateNext: {logits: true}}] as Item));
        return out.map((o, i) => {
            const m = o?.next?.logits;
            if (!m) throw new NanoError("rl.parity.llama", `llama.cpp returned no logits at position ${i}`);
            const row = new Float32Array(nVocab);
            for (const [k, v] of m) row[k] = v;
            return row;
        });
    } finally {
        seq.dispose();
        await ctx.dispose();
    }
}

export async function runParity(opts: ParityOptions): Promise<ParityResult> {
    const backend = opts.backend ? await initBackend({backend: opts.backend}) : currentBackend() ?? await initBackend();
    const own = !opts.llama;
    const llama = opts.llama ?? await (async () => {
        const m = await import("node-llama-cpp");
        return m.getLlama({gpu: false, build: "never", logLevel: m.LlamaLogLevel.error});
    })();
    const lmodel = await llama.loadModel({modelPath: opts.model});
    const nano = await loadNanoModel(opts.model);
    const adapter = opts.adapter ? await loadLoraGguf(opts.adapter, nano.config) : undefined;
    nano.adapter = adapter;
    try {
        const tokens = typeof opts.tokens === "object" ? [...opts.tokens] : await sampleTokens(lmodel, opts.tokens ?? 32);
        if (tokens.length < 2) throw new NanoError("rl.parity.tokens", "parity needs at least two tokens");
        const V = nano.config.nVocab;
        const ref = await llamaLogits(lmodel, tokens, V, opts.adapter, opts.threads ?? 1);
        const lt = nano.logits(tokens);                                                // [T, V]
        const got = (await lt.data()) as Float32Array;
        lt.dispose();
        let maxAbsLogit = 0, maxAbsLogprob = 0, maxLogit = 0;
        for (let t = 0; t < tokens.length; t++) {
            const row = got.subarray(t * V, (t + 1) * V), r = ref[t]!;
            for (let k = 0; k < V; k++) {
                maxAbsLogit = Math.max(maxAbsLogit, Math.abs(row[k]! - r[k]!));
                maxLogit = Math.max(maxLogit, Math.abs(r[k]!));
            }
            if (t + 1 < tokens.length) maxAbsLogprob = Math.max(maxAbsLogprob, Math.abs(logprobAt(row, tokens[t + 1]!) - logprobAt(r, tokens[t + 1]!)));
        }
        const logits = opts.keepLogits ? {tfjs: tokens.map((_, t) => got.slice(t * V, (t + 1) * V)), llama: ref} : undefined;
        return {tokens, nVocab: V, backend: backend.choice, maxAbsLogit, maxAbsLogprob, maxLogit, logits};
    } finally {
        adapter?.dispose();
        nano.dispose();
        await lmodel.dispose();
        if (own) await llama.dispose();
    }
}
