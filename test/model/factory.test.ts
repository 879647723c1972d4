// Factory models in node-llama-cpp: every architecture × tensor type loads, tokenizes and detokenizes text
// exactly (special tokens included), renders its ChatML template, and generates.

import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync, rmSync} from "node:fs";
import {buildModel} from "../../src/factory/model";
import {modelConfig} from "../../src/gguf/arch";
import {openGguf} from "../../src/gguf/reader";
import {GgmlType, parseTypeName} from "../../src/gguf/types";
import {testLlama} from "../helpers/llama";
import {testModel} from "../helpers/models";

const ARCHS = ["llama", "qwen2"] as const;
const TYPES = ["f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k"];
const TEXT = "def add(a, b):\n    return a + b  # sum ✓\r\n\tüñíçødé 世界 🙂 <b>x</b>   trailing  \n\n'quoted' \"double\" 12345";

test("the factory is deterministic: the same spec gives the same bytes, another seed other weights", async () => {
    const a = testModel({arch: "qwen2", type: "q8_0", seed: 7});
    const {makeModel} = await import("../../src/factory/model");
    const {scratchPath} = await import("../helpers/models");
    const b = scratchPath("det.gguf"), c = scratchPath("det2.gguf");
    makeModel({arch: "qwen2", type: GgmlType.Q8_0, seed: 7}, b);
    makeModel({arch: "qwen2", type: GgmlType.Q8_0, seed: 8}, c);
    try {
        assert.ok(readFileSync(a).equals(readFileSync(b)));
        assert.ok(!readFileSync(a).equals(readFileSync(c)));
    } finally {
        rmSync(b, {force: true});
        rmSync(c, {force: true});
    }
});

for (const arch of ARCHS) {
    test(`${arch}: config read back from the file equals the factory's`, async () => {
        for (const type of ["f32", "q4_k"]) {
            const f = await openGguf(testModel({arch, type}));
            try {
                const built = buildModel({arch, type: f.tensor("blk.0.attn_q.weight").type});
                assert.deepEqual(modelConfig(f), built.config);
                assert.equal(f.has("blk.0.attn_q.bias"), arch === "qwen2");
                assert.equal(f.has("output.weight"), arch === "llama");
            } finally { f.close(); }
        }
    });

    for (const type of TYPES) {
        test(`${arch} ${type}: loads in node-llama-cpp, round-trips text exactly, and generates`, async () => {
            const llama = await testLlama();
            const model = await llama.loadModel({modelPath: testModel({arch, type})});
            try {
                const toks = model.tokenize(TEXT);
                assert.ok(toks.length > 0 && toks.length < Buffer.byteLength(TEXT), "merges shorten the byte sequence");
                assert.equal(model.detokenize(toks), TEXT);
                // Special tokens are single tokens when parsed as special, plain text otherwise.
                const special = model.tokenize("<|im_start|>user\nhi<|im_end|>", true);
                assert.equal(model.detokenize([special[0]!], true), "<|im_start|>");
                assert.equal(model.detokenize(special, true), "<|im_start|>user\nhi<|im_end|>");
                assert.ok(model.tokenize("<|im_start|>", false).length > 1, "not special unless asked");
                assert.equal(model.tokenize("<tool_call>").length, 1, "<tool_call> is one user-defined token");
                assert.equal(model.tokens.eos, special[special.length - 1], "eos is <|im_end|>");

                const ctx = await model.createContext({contextSize: 256, threads: 1});
                try {
                    const seq = ctx.getSequence();
                    const out: number[] = [];
                    for await (const t of seq.evaluate(model.tokenize("<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n", true), {temperature: 0})) {
                        out.push(t);
                        if (out.length >= 12) break;
                    }
                    assert.ok(out.length >= 1);
                    const nVocab = buildModel({arch, type: parseTypeName(type)!}).config.nVocab;
                    assert.ok(out.every(t => Number.isInteger(t) && t >= 0 && t < nVocab), `tokens in the vocabulary: ${out}`);
                } finally { await ctx.dispose(); }
            } finally { await model.dispose(); }
        });
    }
}

test("the ChatML template is picked by node-llama-cpp and renders a conversation", async () => {
    const {resolveChatWrapper, LlamaChatSession} = await import("node-llama-cpp");
    const llama = await testLlama();
    const model = await llama.loadModel({modelPath: testModel({arch: "qwen2", type: "f32"})});
    try {
        const wrapper = resolveChatWrapper(model);
        assert.ok(wrapper, "a chat wrapper is resolved");
        assert.match(wrapper!.wrapperName, /ChatML|Jinja/);
        const ctx = await model.createContext({contextSize: 512, threads: 1});
        const session = new LlamaChatSession({contextSequence: ctx.getSequence()});
        const reply = await session.prompt("Say hi", {maxTokens: 8, temperature: 0});
        assert.equal(typeof reply, "string");
        await ctx.dispose();
    } finally { await model.dispose(); }
});
