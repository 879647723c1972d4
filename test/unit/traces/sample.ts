// Test helper: a small valid trace with a given id, date, model and size.

import {TRACE_VERSION, type Trace} from "../../../src/traces/schema";

export function sampleTrace(opts: {id: string; createdAt?: string; model?: string; status?: Trace["outcome"]["status"]; padTokens?: number}): Trace {
    const pad = Array.from({length: opts.padTokens ?? 0}, (_, i) => i % 300);
    return {
        version: TRACE_VERSION, id: opts.id, createdAt: opts.createdAt ?? "2025-01-02T03:04:05.000Z", task: `task of ${opts.id}`,
        model: {file: `/models/${opts.model ?? "tiny-qwen2"}.gguf`, name: opts.model ?? "tiny-qwen2", sha256: "ab".repeat(32), sizeBytes: 1000, chatFormat: "chatml-hermes", contextSize: 512},
        adapter: null,
        sampling: {temperature: 0, topK: 0, topP: 1, minP: 0, seed: 1},
        limits: {maxTurns: 4, maxTokens: 1000, maxTokensPerTurn: 100, wallTimeMs: 60000},
        workspace: {path: "/tmp/ws", snapshot: null},
        tools: [],
        segments: [
            {window: 0, turn: 0, role: "system", kind: "prompt", text: "hi", tokens: [1, 2, ...pad], sampled: false},
            {window: 0, turn: 0, role: "assistant", kind: "text", text: "ok", tokens: [3, 4], sampled: true, logprobs: [-0.5, -1.25]},
        ],
        toolCalls: [],
        outcome: {status: opts.status ?? "finished", turns: 1, tokens: {forced: 2 + pad.length, sampled: 2, evaluated: 4 + pad.length}, durationMs: 12},
        labels: [],
    };
}
