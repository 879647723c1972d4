// The memory plan's arithmetic: Qwen2.5-0.5B's parameter count, and streamed weights on wasm above the limit.
import {test} from "node:test";
import assert from "node:assert/strict";
import type {ModelConfig} from "../../../src/gguf/arch";
import {chooseResidency, estimateMemory, paramCount} from "../../../src/rl/memory";

const QWEN05: ModelConfig = {
    arch: "qwen2", nEmbd: 896, nHead: 14, nHeadKv: 2, headDim: 64, nLayer: 24, nFf: 4864, nVocab: 151936,
    contextLength: 32768, ropeBase: 1e6, ropeType: "neox", rmsEps: 1e-6, tiedOutput: true, qkvBias: true,
};

test("Qwen2.5-0.5B has 494,032,768 parameters (as published)", () => {
    assert.equal(paramCount(QWEN05), 494_032_768);
});

test("0.5B streams on wasm, stays resident elsewhere; the streamed wasm footprint is far under 4 GiB", () => {
    assert.equal(chooseResidency(QWEN05, "wasm"), "streamed");
    assert.equal(chooseResidency(QWEN05, "cpu"), "resident");
    assert.equal(chooseResidency(QWEN05, "node"), "resident");
    assert.equal(chooseResidency({...QWEN05, nLayer: 2, nVocab: 1000}, "wasm"), "resident");
    assert.equal(chooseResidency(QWEN05, "wasm", true), "trainable");
    const e = estimateMemory(QWEN05, 256, "streamed");
    assert.ok(e.backendWeights + e.activations < 512 * 2 ** 20, `${(e.backendWeights + e.activations) / 2 ** 20} MiB`);
    assert.ok(e.weights > 1.9e9);
});
