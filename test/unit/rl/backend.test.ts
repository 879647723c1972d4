// Backend bootstrap: choice precedence, forced backends, gradients registered, and the wasm matmul kernel
// agreeing with the cpu backend on every transpose / batch form autograd produces.
import {test} from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs-core";
import {BACKEND_ENV, currentBackend, initBackend, parseBackendChoice, wasmHeapBytes} from "../../../src/rl/backend";
import {wasmMatMulPatched} from "../../../src/rl/wasm-matmul";
import {maxAbsDiff, randArray} from "./helpers";

test("parseBackendChoice accepts the four names and auto, rejects others", () => {
    assert.equal(parseBackendChoice(undefined), undefined);
    assert.equal(parseBackendChoice(" AUTO "), undefined);
    assert.equal(parseBackendChoice("wasm"), "wasm");
    assert.equal(parseBackendChoice("node-gpu"), "node-gpu");
    assert.throws(() => parseBackendChoice("webgl"), /unknown tfjs backend/);
});

test("auto picks the first backend that starts (native packages are absent here → wasm) and logs it", async () => {
    const lines: string[] = [];
    const saved = process.env[BACKEND_ENV];
    delete process.env[BACKEND_ENV];
    try {
        const info = await initBackend({log: {log: (_l, m) => lines.push(m)}});
        assert.equal(info.choice, "wasm");
        assert.deepEqual(info.skipped.map(s => s.choice), ["node-gpu", "node"]);
        assert.equal(tf.getBackend(), "wasm");
        assert.ok(wasmMatMulPatched());
        assert.ok((wasmHeapBytes() ?? 0) > 0);
        assert.match(lines.join("\n"), /tfjs backend: wasm/);
    } finally {
        if (saved !== undefined) process.env[BACKEND_ENV] = saved;
    }
});

test("env var forces a backend; an explicit option beats it; a forced missing backend fails", async () => {
    const saved = process.env[BACKEND_ENV];
    try {
        process.env[BACKEND_ENV] = "cpu";
        assert.equal((await initBackend()).choice, "cpu");
        assert.equal(tf.getBackend(), "cpu");
        assert.equal((await initBackend({backend: "wasm"})).choice, "wasm");
        await assert.rejects(initBackend({backend: "node"}), /no tfjs backend could start/);
        assert.equal(currentBackend()?.choice, "wasm");
    } finally {
        if (saved === undefined) delete process.env[BACKEND_ENV]; else process.env[BACKEND_ENV] = saved;
    }
});

test("gradients are registered (tf.grad works)", async () => {
    await initBackend({backend: "cpu"});
    const g = tf.grad((x: tf.Tensor) => tf.sum(tf.square(x)))(tf.tensor1d([1, 2, 3]));
    assert.deepEqual(Array.from(await g.data()), [2, 4, 6]);
    g.dispose();
});

test("patched wasm BatchMatMul equals cpu for transposes, batches and broadcasts", async () => {
    const cases: {a: number[]; b: number[]; tA: boolean; tB: boolean}[] = [
        {a: [5, 7], b: [7, 3], tA: false, tB: false},
        {a: [7, 5], b: [7, 3], tA: true, tB: false},
        {a: [5, 7], b: [3, 7], tA: false, tB: true},
        {a: [7, 5], b: [3, 7], tA: true, tB: true},
        {a: [4, 5, 7], b: [4, 7, 3], tA: false, tB: false},
        {a: [4, 5, 7], b: [4, 3, 7], tA: false, tB: true},
        {a: [4, 5, 7], b: [7, 3], tA: false, tB: false},        // shared right operand
        {a: [1, 5, 7], b: [4, 7, 3], tA: false, tB: false},     // broadcast left
        {a: [2, 3, 5, 7], b: [2, 3, 7, 4], tA: false, tB: false},
    ];
    const run = async (backend: "cpu" | "wasm") => {
        await initBackend({backend});
        const out: Float32Array[] = [];
        for (const [i, c] of cases.entries()) {
            const n = (s: number[]) => s.reduce((x, y) => x * y, 1);
            const y = tf.tidy(() => tf.matMul(tf.tensor(randArray(n(c.a), i + 1), c.a), tf.tensor(randArray(n(c.b), i + 100), c.b), c.tA, c.tB));
            out.push((await y.data()) as Float32Array);
            y.dispose();
        }
        return out;
    };
    const cpu = await run("cpu"), wasm = await run("wasm");
    for (let i = 0; i < cases.length; i++) assert.ok(maxAbsDiff(cpu[i]!, wasm[i]!) < 1e-5, `case ${i}`);
});
