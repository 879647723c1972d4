// Test access to node-llama-cpp: one CPU Llama per test process, and a context factory that always sets threads
// and the exact-parity settings (no flash attention, F32 KV cache) unless told otherwise.

import type {Llama, LlamaContext, LlamaModel} from "node-llama-cpp";

let llamaP: Promise<Llama> | undefined;

export async function testLlama(): Promise<Llama> {
    llamaP ??= import("node-llama-cpp").then(m => m.getLlama({gpu: false, build: "never", logLevel: m.LlamaLogLevel.error}));
    return llamaP;
}

export async function loadTestModel(path: string): Promise<LlamaModel> {
    return (await testLlama()).loadModel({modelPath: path});
}

export async function exactContext(model: LlamaModel, opts: {contextSize?: number; lora?: {filePath: string; scale?: number}[]} = {}): Promise<LlamaContext> {
    return model.createContext({
        contextSize: opts.contextSize ?? 512, threads: 1, flashAttention: false,
        experimentalKvCacheKeyType: "F32", experimentalKvCacheValueType: "F32",
        ...(opts.lora ? {lora: {adapters: opts.lora}} : {}),
    });
}

/** Raw logits [T-1][V] after each of tokens[0..T-2], by teacher forcing (V = the whole vocabulary). */
export async function teacherForcedLogits(ctx: LlamaContext, tokens: number[]): Promise<Float64Array[]> {
    const seq = ctx.getSequence();
    try {
        const out = await seq.controlledEvaluate(tokens.map((t, i) => i < tokens.length - 1 ? [t, {generateNext: {logits: true}}] : t) as never);
        const rows: Float64Array[] = [];
        for (let i = 0; i < tokens.length - 1; i++) {
            const m = (out[i] as {next: {logits: Map<number, number>}}).next.logits;
            const row = new Float64Array(m.size);
            for (const [k, v] of m) row[k] = v;
            rows.push(row);
        }
        return rows;
    } finally {
        seq.dispose();
    }
}
