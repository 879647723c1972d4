// The model host on a real (factory) GGUF: loading, vocabulary and format, token-exact generation that matches
// node-llama-cpp's own greedy decoding, teacher-forced scoring, LoRA adapters and the path-cache trap, hf: URIs.

import {test, after} from "node:test";
import assert from "node:assert/strict";
import {createHash} from "node:crypto";
import {mkdtempSync, readFileSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import type {Token} from "node-llama-cpp";
import {kv} from "../../src/gguf/metadata";
import {GgmlType} from "../../src/gguf/types";
import {writeGguf} from "../../src/gguf/writer";
import {chatmlHermes, continuation} from "../../src/llm/chatFormat";
import {HERMES_SYNTAX, toolCallGrammar, type ToolSpec} from "../../src/llm/grammar/toolCall";
import {MatchState} from "../../src/llm/grammar/matcher";
import {LlmHost, resolveModelPath, type LoadedModel} from "../../src/llm/host";
import {ContextOverflowError} from "../../src/llm/logits";
import {GREEDY, Rng} from "../../src/llm/sampler";
import {testModel} from "../helpers/models";

const modelPath = testModel({arch: "qwen2", type: "f32"});
const cache = mkdtempSync(join(tmpdir(), "nano-llm-"));
let hostP: Promise<LlmHost> | undefined;
let modelP: Promise<LoadedModel> | undefined;
const host = () => (hostP ??= LlmHost.create({gpu: false, cacheDir: cache}));
const loaded = () => (modelP ??= host().then(h => h.loadModel(modelPath)));
after(async () => { if (hostP) await (await hostP).dispose(); });

const tools: ToolSpec[] = [
    {name: "read_file", description: "Read a file", parameters: {type: "object", properties: {path: {type: "string"}}, required: ["path"]}},
    {name: "finish", description: "Done", parameters: {type: "object", properties: {summary: {type: "string"}}, required: ["summary"]}},
];
const promptParts = () => continuation(chatmlHermes, [], [{role: "system", content: "You are terse."}, {role: "user", content: "Say hi."}], tools);

test("loads a factory GGUF: vocabulary, ChatML format, model record with sha256", async () => {
    const m = await loaded();
    const v = m.vocab;
    assert.equal(v.piece(v.eos), "");
    assert.equal(v.detokenize([v.eos]), "<|im_end|>");
    assert.ok(v.isEog(v.eos) && v.isControl(v.eos));
    const open = v.tokenize("<tool_call>", false);
    assert.equal(open.length, 1, "<tool_call> is one (user-defined) token");
    assert.equal(v.piece(open[0]!), "<tool_call>");
    assert.equal(m.format.name, "chatml-hermes");
    const d = await m.describe(512);
    assert.equal(d.sha256, createHash("sha256").update(readFileSync(modelPath)).digest("hex"));
    assert.equal(d.chatFormat, "chatml-hermes");
});

test("greedy free text is token-for-token node-llama-cpp's own greedy generation", async () => {
    const m = await loaded();
    const s = await m.createSession({contextSize: 1024, threads: 1});
    const prompt = promptParts().flatMap(p => m.vocab.tokenize(p.text, p.special));
    s.tokens.append(prompt);
    const r = await s.tokens.generate({sampling: GREEDY, rng: new Rng(1), maxTokens: 24});
    const mine = r.sampled.map(t => t.token);
    await s.dispose();
    const {context} = await m.createContext({contextSize: 1024, threads: 1});
    const ref: number[] = [];
    for await (const t of context.getSequence().evaluate(prompt as Token[], {temperature: 0, yieldEogToken: true})) {
        ref.push(t);
        if (ref.length === mine.length || m.vocab.isEog(t)) break;
    }
    await context.dispose();
    assert.deepEqual(mine, ref);
});

test("sampled log-probs equal teacher-forced scores of the same tokens; only new tokens are evaluated", async () => {
    const m = await loaded();
    const s = await m.createSession({contextSize: 1024, threads: 1, exact: true});
    const v = m.vocab;
    s.tokens.append(promptParts().flatMap(p => v.tokenize(p.text, p.special)));
    const grammar = {grammar: toolCallGrammar(tools, HERMES_SYNTAX), syntax: HERMES_SYNTAX, choice: "required" as const};
    const sampledAt: {index: number; logprob: number}[] = [];
    for (let turn = 0; turn < 3; turn++) {
        const base = s.tokens.tokens.length;
        const r = await s.tokens.generate({sampling: {temperature: 0.9, topK: 0, topP: 1, minP: 0, seed: 7 + turn}, rng: new Rng(7 + turn), maxTokens: 120, tools: grammar});
        assert.ok(r.callText && MatchState.start(grammar.grammar).feed(r.callText)?.accepting, `grammar-valid call: ${r.callText}`);
        r.sampled.forEach((t, i) => sampledAt.push({index: base + i, logprob: t.logprob}));
        s.tokens.append(v.tokenize(`\n<|im_start|>user\n<tool_response>\nok ${turn}\n</tool_response><|im_end|>\n<|im_start|>assistant\n`, true));
    }
    await s.tokens.flush();
    assert.equal(s.tokens.evaluated, s.tokens.tokens.length, "each token evaluated exactly once");
    const scores = await m.score(s.tokens.tokens, {threads: 1, exact: true});
    let maxDiff = 0;
    for (const {index, logprob} of sampledAt) maxDiff = Math.max(maxDiff, Math.abs(scores[index]! - logprob));
    assert.ok(maxDiff < 1e-4, `max |sampled − rescored| = ${maxDiff}`);
    await s.dispose();
});

test("context limits are enforced, never silently shifted", async () => {
    const m = await loaded();
    const s = await m.createSession({contextSize: 256, threads: 1});
    assert.throws(() => s.tokens.append(new Array(400).fill(65)), ContextOverflowError);
    s.tokens.append(new Array(200).fill(65));
    const r = await s.tokens.generate({sampling: GREEDY, rng: new Rng(1), maxTokens: 500});
    assert.ok(s.tokens.tokens.length <= s.tokens.contextSize);
    assert.ok(r.stop === "max_tokens" || r.stop === "end_of_turn");
    await s.dispose();
});

/** A LoRA adapter GGUF on every attention q/v matrix of the factory model. */
function writeAdapter(path: string, seed: number, zeroB = false): void {
    const nEmbd = 64, r = 4;
    let x = seed;
    const rand = () => { x = (x * 1103515245 + 12345) % 2 ** 31; return (x / 2 ** 31 - 0.5) * 0.5; };
    const tensors = [];
    for (let l = 0; l < 2; l++) for (const name of ["attn_q", "attn_v"]) {
        const nOut = name === "attn_q" ? nEmbd : 32;
        tensors.push({name: `blk.${l}.${name}.weight.lora_a`, shape: [nEmbd, r], type: GgmlType.F32, data: Float32Array.from({length: nEmbd * r}, rand)});
        tensors.push({name: `blk.${l}.${name}.weight.lora_b`, shape: [r, nOut], type: GgmlType.F32, data: Float32Array.from({length: r * nOut}, () => (zeroB ? 0 : rand() * 4))});
    }
    writeGguf(path, {metadata: [kv.str("general.architecture", "qwen2"), kv.str("general.type", "adapter"), kv.str("adapter.type", "lora"), kv.f32("adapter.lora.alpha", 8)], tensors});
}

test("LoRA adapters per context: zero adapter = base; overwriting the file in place still takes effect", async () => {
    const m = await loaded();
    const dir = mkdtempSync(join(tmpdir(), "nano-lora-"));
    const tokens = m.vocab.tokenize("def add(a, b):\n    return a + b\n", false);
    const score = (adapter?: string) => m.score(tokens, {threads: 1, exact: true, ...(adapter ? {adapter: {file: adapter}} : {})});
    const base = await score();
    writeAdapter(join(dir, "zero.gguf"), 1, true);
    const zero = await score(join(dir, "zero.gguf"));
    assert.ok(zero.slice(1).every((v, i) => Math.abs(v - base[i + 1]!) < 1e-5), "zero B: same log-probs");
    const file = join(dir, "adapter.gguf");
    writeAdapter(file, 1);
    const v1 = await score(file);
    assert.ok(v1.slice(1).some((v, i) => Math.abs(v - base[i + 1]!) > 1e-3), "a random adapter changes log-probs");
    writeAdapter(file, 2); // same path, new weights: llama.cpp alone would keep serving v1
    const v2 = await score(file);
    writeAdapter(join(dir, "fresh-v2.gguf"), 2);
    const fresh = await score(join(dir, "fresh-v2.gguf"));
    assert.ok(v2.slice(1).some((v, i) => Math.abs(v - v1[i + 1]!) > 1e-3), "new weights are used");
    assert.ok(v2.slice(1).every((v, i) => Math.abs(v - fresh[i + 1]!) < 1e-5), "exactly the new weights");
    const s = await m.createSession({contextSize: 256, threads: 1, adapter: {file, version: "v2", scale: 1}});
    const d = await s.describe();
    assert.equal(d.adapter?.version, "v2");
    assert.equal(d.adapter?.sha256, createHash("sha256").update(readFileSync(file)).digest("hex"));
    await s.dispose();
});

test("hf: URIs go through the resolver (with progress); local paths are checked", async () => {
    const seen: string[] = [];
    const progress: number[] = [];
    const path = await resolveModelPath("hf:Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF:Q8_0", {
        directory: cache,
        onProgress: p => progress.push(p.downloadedBytes / p.totalBytes),
        resolver: async (uri, o) => {
            seen.push(`${uri} -> ${o.directory}`);
            for (const n of [0, 50, 100]) o.onProgress?.({downloadedBytes: n, totalBytes: 100});
            return modelPath;
        },
    });
    assert.equal(path, modelPath);
    assert.deepEqual(seen, [`hf:Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF:Q8_0 -> ${cache}`]);
    assert.deepEqual(progress, [0, 0.5, 1]);
    await assert.rejects(resolveModelPath(join(cache, "missing.gguf")), /no model file/);
    const h = await host();
    const viaHost = await h.loadModel("hf:x/y:Q8_0", {resolver: async () => modelPath});
    assert.equal(viaHost.path, modelPath);
    await viaHost.dispose();
});

test("after maxAdaptersPerModel distinct adapters the model reloads itself (frees llama.cpp's adapter cache)", async () => {
    const h = await LlmHost.create({gpu: false, cacheDir: mkdtempSync(join(tmpdir(), "nano-reload-")), maxAdaptersPerModel: 2});
    try {
        const m = await h.loadModel(modelPath);
        const dir = mkdtempSync(join(tmpdir(), "nano-lora-"));
        const tokens = m.vocab.tokenize("x = 1\n", false);
        const first = m.model;
        const scores: number[][] = [];
        for (const seed of [3, 4, 5]) {
            writeAdapter(join(dir, `a${seed}.gguf`), seed);
            scores.push(await m.score(tokens, {threads: 1, exact: true, adapter: {file: join(dir, `a${seed}.gguf`)}}));
        }
        assert.notEqual(m.model, first, "reloaded");
        writeAdapter(join(dir, "again3.gguf"), 3);
        const again = await m.score(tokens, {threads: 1, exact: true, adapter: {file: join(dir, "again3.gguf")}});
        assert.ok(again.slice(1).every((v, i) => Math.abs(v - scores[0]![i + 1]!) < 1e-5), "same adapter content, same log-probs after the reload");
    } finally {
        await h.dispose();
    }
});
