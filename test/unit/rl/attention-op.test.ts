// The fused attention op (attention-op.ts) against plain autograd through the unfused attention half (block.ts):
// value and gradients (x and every LoRA factor) with GQA, a causal mask, both RoPE types, with/without q/k/v bias,
// LoRA on all, some or none of q/k/v/o, on every test backend; a finite-difference check; and no tensors left behind.
import {test} from "node:test";
import assert from "node:assert/strict";
import * as tf from "@tensorflow/tfjs-core";
import type {ModelConfig, RopeType} from "../../../src/gguf/arch";
import {causalMask} from "../../../src/rl/attention";
import {attentionBlock, type BlockParams} from "../../../src/rl/block";
import {ropeTables} from "../../../src/rl/rope";
import {maxAbsDiff, numTensors, randArray, testBackends, useBackend} from "./helpers";

const T = 7, H = 20, nHead = 6, nHeadKv = 2, d = 4, r = 3, s = 1.7;   // GQA: 3 query heads per KV head
const MATS = {attn_q: [H, nHead * d], attn_k: [H, nHeadKv * d], attn_v: [H, nHeadKv * d], attn_output: [nHead * d, H]} as const;
type Mat = keyof typeof MATS;

for (const backend of testBackends()) {
    for (const [ropeType, bias, targets] of [
        ["norm", false, ["attn_q", "attn_k", "attn_v", "attn_output"]],
        ["neox", true, ["attn_q", "attn_k", "attn_v", "attn_output"]],
        ["neox", true, ["attn_k", "attn_output"]],
        ["norm", true, []],
    ] as [RopeType, boolean, Mat[]][]) {
        test(`${backend}: fused attention equals autograd (${ropeType} RoPE, bias ${bias}, LoRA on ${targets.join(", ") || "nothing"})`, async t => {
            await useBackend(backend);
            const c = {nHead, nHeadKv, headDim: d, rmsEps: 1e-5, ropeBase: 10000, ropeType} as ModelConfig;
            let seed = 30;
            const W = Object.fromEntries(Object.entries(MATS).map(([k, [i, o]]) => [k, tf.tensor2d(randArray(i * o, seed++, 0.5), [i, o])])) as Record<Mat, tf.Tensor2D>;
            const vec = new Map<string, tf.Tensor1D>([["blk.0.attn_norm.weight", tf.tensor1d(randArray(H, seed++, 0.5).map(x => 1 + x))]]);
            if (bias) for (const m of ["attn_q", "attn_k", "attn_v"] as const) vec.set(`blk.0.${m}.bias`, tf.tensor1d(randArray(MATS[m][1], seed++, 0.3)));
            const L = new Map(targets.map(m => [m, {a: tf.tensor2d(randArray(MATS[m][0] * r, seed++, 0.5), [MATS[m][0], r]), b: tf.tensor2d(randArray(r * MATS[m][1], seed++, 0.5), [r, MATS[m][1]])}]));
            const x = tf.tensor2d(randArray(T * H, 4, 1.2), [T, H]), dy = tf.tensor2d(randArray(T * H, 5), [T, H]);
            const xs = [x, ...[...L.values()].flatMap(l => [l.a, l.b])];
            const mat = (name: string) => /^blk\.0\.(\w+)\.weight$/.exec(name)![1] as Mat;
            const params = (fused: boolean, ts: tf.Tensor[]): BlockParams => ({
                matmul: (name, h) => tf.matMul(h, W[mat(name)]),
                // fetchers create fresh copies, like streamed weights: the op must release them
                frozen: name => (fused ? () => W[mat(name)].clone() : undefined),
                vector: name => vec.get(name),
                lora: name => { const i = targets.indexOf(mat(name)); return i < 0 ? undefined : {a: ts[1 + 2 * i]!, b: ts[2 + 2 * i]!}; },
                loraScale: s,
            });
            // RoPE tables and mask are made inside the pass (short-lived, as in NanoModel.hidden): the op must keep them.
            const f = (fused: boolean) => (...ts: tf.Tensor[]) =>
                attentionBlock(c, 0, params(fused, ts), ts[0] as tf.Tensor2D, {rope: ropeTables(T, d, c.ropeBase, ropeType), mask: causalMask(T, nHead / nHeadKv)});
            const before = numTensors();
            const [y, yRef] = tf.tidy(() => [f(true)(...xs), f(false)(...xs)]);
            assert.ok(maxAbsDiff(await y.data(), await yRef.data()) < 1e-5, "forward");
            const g = tf.grads(f(true))(xs, dy), gRef = tf.grads(f(false))(xs, dy);
            for (let i = 0; i < xs.length; i++) {
                const e = maxAbsDiff(await g[i]!.data(), await gRef[i]!.data());
                assert.ok(e < 1e-4, `grad ${i}: ${e}`);
            }
            tf.dispose([y, yRef, ...g, ...gRef]);
            // ⟨∂L/∂θ, u⟩ vs a central difference of L = Σ dy ⊙ f(θ + εu), in float64 sums of float32 values
            const loss = async (e: number) => {
                const out = tf.tidy(() => f(true)(...xs.map((v, i) => tf.add(v, tf.mul(tf.tensor(randArray(v.size, 100 + i), v.shape), e)))));
                const [a, b] = [await out.data(), await dy.data()];
                out.dispose();
                let acc = 0;
                for (let i = 0; i < a.length; i++) acc += a[i]! * b[i]!;
                return acc;
            };
            const g2 = tf.grads(f(true))(xs, dy);
            let analytic = 0;
            for (const [i, gi] of g2.entries()) { const gd = await gi.data(), u = randArray(gi.size, 100 + i); for (let j = 0; j < gd.length; j++) analytic += gd[j]! * u[j]!; }
            tf.dispose(g2);
            const numeric = (await loss(1e-2) - await loss(-1e-2)) / 2e-2;
            t.diagnostic(`directional derivative: analytic ${analytic.toFixed(5)}, central difference ${numeric.toFixed(5)}`);
            assert.ok(Math.abs(analytic - numeric) <= 2e-2 * Math.abs(analytic) + 2e-3, `analytic ${analytic} vs numeric ${numeric}`);
            assert.equal(numTensors(), before, "no tensors left behind");
            tf.dispose([...Object.values(W), ...vec.values(), ...xs, dy]);
        });
    }
}
