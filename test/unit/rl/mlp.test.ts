// The fused SwiGLU MLP op against plain autograd: value and gradients (h and every LoRA factor), with LoRA on all,
// some or none of gate/up/down, on every test backend; and it releases everything it fetched.
import {test} from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs-core";
import {swigluMlp, type MlpLora} from "../../../src/rl/mlp";
import {maxAbsDiff, numTensors, randArray, testBackends, useBackend} from "./helpers";

const T = 5, H = 8, F = 12, r = 3, s = 1.7;

function reference(h: tf.Tensor2D, W: Record<string, tf.Tensor2D>, L: Record<string, {a: tf.Tensor; b: tf.Tensor} | undefined>): tf.Tensor2D {
    const proj = (x: tf.Tensor2D, k: string) => {
        const y = tf.matMul(x, W[k]!), l = L[k];
        return (l ? tf.add(y, tf.mul(tf.matMul(tf.matMul(x, l.a as tf.Tensor2D), l.b as tf.Tensor2D), s)) : y) as tf.Tensor2D;
    };
    const g = proj(h, "gate");
    return proj(tf.mul(tf.mul(g, tf.sigmoid(g)), proj(h, "up")) as tf.Tensor2D, "down");
}

for (const backend of testBackends()) {
    for (const targets of [["gate", "up", "down"], ["up"], []] as string[][]) {
        test(`${backend}: fused MLP equals autograd (LoRA on ${targets.join(", ") || "nothing"})`, async () => {
            await useBackend(backend);
            const W = {gate: tf.tensor2d(randArray(H * F, 1, 0.5), [H, F]), up: tf.tensor2d(randArray(H * F, 2, 0.5), [H, F]), down: tf.tensor2d(randArray(F * H, 3, 0.5), [F, H])};
            const L: Record<string, {a: tf.Tensor; b: tf.Tensor} | undefined> = {};
            let seed = 10;
            for (const k of targets) {
                const [nIn, nOut] = k === "down" ? [F, H] : [H, F];
                L[k] = {a: tf.tensor2d(randArray(nIn * r, seed++, 0.5), [nIn, r]), b: tf.tensor2d(randArray(r * nOut, seed++, 0.5), [r, nOut])};
            }
            const h = tf.tensor2d(randArray(T * H, 4, 1.2), [T, H]);
            const dy = tf.tensor2d(randArray(T * H, 5), [T, H]);
            const lora: MlpLora = {...L, scale: s};
            const xs = [h, ...targets.flatMap(k => [L[k]!.a, L[k]!.b])];
            const before = numTensors();
            // fetchers create fresh copies, like streamed weights: the op must release them
            const fetch = (k: "gate" | "up" | "down") => () => W[k].clone();
            const f = (...ts: tf.Tensor[]) => {
                const Lx = Object.fromEntries(targets.map((k, i) => [k, {a: ts[1 + 2 * i]!, b: ts[2 + 2 * i]!}]));
                return swigluMlp(ts[0] as tf.Tensor2D, {gate: fetch("gate"), up: fetch("up"), down: fetch("down")}, {...lora, ...Lx});
            };
            const fr = (...ts: tf.Tensor[]) => reference(ts[0] as tf.Tensor2D, W, Object.fromEntries(targets.map((k, i) => [k, {a: ts[1 + 2 * i]!, b: ts[2 + 2 * i]!}])));
            const [y, yRef] = tf.tidy(() => [f(...xs), fr(...xs)]);
            assert.ok(maxAbsDiff(await y.data(), await yRef.data()) < 1e-5);
            const g = tf.grads(f)(xs, dy), gRef = tf.grads(fr)(xs, dy);
            for (let i = 0; i < xs.length; i++) assert.ok(maxAbsDiff(await g[i]!.data(), await gRef[i]!.data()) < 1e-4, `grad ${i}: ${maxAbsDiff(await g[i]!.data(), await gRef[i]!.data())}`);
            tf.dispose([y, yRef, ...g, ...gRef]);
            assert.equal(numTensors(), before, "no tensors left behind");
            tf.dispose([...Object.values(W), h, dy, ...targets.flatMap(k => [L[k]!.a, L[k]!.b])]);
        });
    }
}
