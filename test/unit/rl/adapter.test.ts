// Adapter files: safetensors container, llama.cpp LoRA GGUF export/import (versioned, never overwritten),
// PEFT export → import → identical GGUF adapter tensors (both architectures), and llama's q/k row permutation.
import {test} from "node:test";
import assert from "node:assert/strict";
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import {adapterToFile, exportAdapterVersion, loadLoraGguf, readLoraGguf, writeLoraGguf} from "../../../src/rl/adapter/gguf";
import {permuteRows} from "../../../src/rl/adapter/hf-names";
import {exportPeft, importPeft, PEFT_CONFIG} from "../../../src/rl/adapter/peft";
import {readSafetensors, writeSafetensors} from "../../../src/rl/adapter/safetensors";
import {LoraAdapter} from "../../../src/rl/lora";
import {NanoModel} from "../../../src/rl/model";
import {BaseWeights} from "../../../src/rl/weights";
import {maxAbsDiff, memModel, randArray, useBackend} from "./helpers";

const dir = mkdtempSync(join(tmpdir(), "nano-adapter-"));
process.on("exit", () => rmSync(dir, {recursive: true, force: true}));

test("safetensors: F32 round trip; F16 and BF16 read as float32", () => {
    const p = join(dir, "a.safetensors");
    const t = new Map([["b.weight", {shape: [2, 3], data: randArray(6, 1)}], ["a.weight", {shape: [4], data: randArray(4, 2)}]]);
    writeSafetensors(p, t);
    const r = readSafetensors(p);
    assert.deepEqual([...r.tensors.keys()].sort(), ["a.weight", "b.weight"]);
    for (const [k, v] of t) { assert.deepEqual(r.tensors.get(k)!.shape, v.shape); assert.deepEqual(r.tensors.get(k)!.data, v.data); }
    assert.equal(r.metadata.format, "pt");
    // hand-made F16 [1.0, -2.0] and BF16 [0.5]
    const header = JSON.stringify({h: {dtype: "F16", shape: [2], data_offsets: [0, 4]}, g: {dtype: "BF16", shape: [1], data_offsets: [4, 6]}});
    const buf = Buffer.alloc(8 + header.length + 6);
    buf.writeBigUInt64LE(BigInt(header.length));
    buf.write(header, 8);
    buf.writeUInt16LE(0x3c00, 8 + header.length); buf.writeUInt16LE(0xc000, 10 + header.length); buf.writeUInt16LE(0x3f00, 12 + header.length);
    writeFileSync(p, buf);
    const h = readSafetensors(p);
    assert.deepEqual(Array.from(h.tensors.get("h")!.data), [1, -2]);
    assert.deepEqual(Array.from(h.tensors.get("g")!.data), [0.5]);
});

test("GGUF adapter: export, read back bit-identical, load into tfjs, versions never overwrite", async () => {
    await useBackend("cpu");
    const m = memModel({arch: "qwen2", seed: 41});
    const ad = LoraAdapter.create(m.config, {rank: 4, alpha: 16, targets: ["q", "v", "down"], seed: 1});
    ad.randomizeB(0.1, 2);
    const v1 = await exportAdapterVersion(join(dir, "versions"), ad);
    const v2 = await exportAdapterVersion(join(dir, "versions"), ad);
    assert.equal(v1.version, 1); assert.equal(v2.version, 2);
    assert.notEqual(v1.path, v2.path);
    assert.match(v2.path, /adapter-v0002\.gguf$/);
    const file = await readLoraGguf(v1.path);
    const mine = await adapterToFile(ad);
    assert.equal(file.arch, "qwen2"); assert.equal(file.rank, 4); assert.equal(file.alpha, 16);
    assert.deepEqual(file.tensors.map(t => t.base), mine.tensors.map(t => t.base));
    file.tensors.forEach((t, i) => { assert.deepEqual(t.a, mine.tensors[i]!.a); assert.deepEqual(t.b, mine.tensors[i]!.b); });
    // loading it back gives the same network
    const model = new NanoModel(await BaseWeights.load(m.config, m.reader), ad);
    const tokens = [1, 50, 99, 7, 200];
    const a = tf.tidy(() => model.tokenLogprobs(tokens));
    const ad2 = await loadLoraGguf(v2.path, m.config);
    const b = tf.tidy(() => model.tokenLogprobs(tokens, {adapter: ad2}));
    assert.equal(maxAbsDiff(await a.data(), await b.data()), 0);
    await assert.rejects(loadLoraGguf(v2.path, {...m.config, arch: "llama"}), /is for "qwen2"/);
    tf.dispose([a, b]); ad.dispose(); ad2.dispose(); model.dispose();
});

for (const arch of ["llama", "qwen2"] as const) {
    test(`${arch}: PEFT export → import → identical GGUF adapter tensors`, async () => {
        await useBackend("cpu");
        const m = memModel({arch, seed: 42});
        const ad = LoraAdapter.create(m.config, {rank: 8, alpha: 16, seed: 3});
        ad.randomizeB(0.1, 4);
        const gguf1 = join(dir, `${arch}-1.gguf`), gguf2 = join(dir, `${arch}-2.gguf`), peft = join(dir, `${arch}-peft`);
        writeLoraGguf(gguf1, await adapterToFile(ad));
        const before = await readLoraGguf(gguf1);
        exportPeft(peft, m.config, before, {baseModel: "nano/factory"});
        const cfg = JSON.parse(readFileSync(join(peft, PEFT_CONFIG), "utf8"));
        assert.deepEqual(cfg.target_modules, ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]);
        assert.equal(cfg.r, 8); assert.equal(cfg.lora_alpha, 16); assert.equal(cfg.peft_type, "LORA");
        const st = readSafetensors(join(peft, "adapter_model.safetensors")).tensors;
        assert.deepEqual(st.get("base_model.model.model.layers.1.self_attn.q_proj.lora_A.weight")!.shape, [8, m.config.nEmbd]);
        assert.deepEqual(st.get("base_model.model.model.layers.0.mlp.down_proj.lora_B.weight")!.shape, [m.config.nEmbd, 8]);
        const qB = st.get("base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight")!.data;
        const qBgguf = before.tensors.find(t => t.base === "blk.0.attn_q.weight")!.b;
        if (arch === "llama") assert.notDeepEqual(qB, qBgguf, "llama q rows are permuted to HF order");
        else assert.deepEqual(qB, qBgguf, "qwen2 is stored unpermuted");
        writeLoraGguf(gguf2, importPeft(peft, m.config));
        const after = await readLoraGguf(gguf2);
        assert.equal(after.arch, before.arch); assert.equal(after.rank, before.rank); assert.equal(after.alpha, before.alpha);
        assert.deepEqual(after.tensors.map(t => t.base), before.tensors.map(t => t.base));
        after.tensors.forEach((t, i) => {
            assert.deepEqual(t.a, before.tensors[i]!.a, `${t.base} lora_a`);
            assert.deepEqual(t.b, before.tensors[i]!.b, `${t.base} lora_b`);
        });
        ad.dispose();
    });
}

test("PEFT import: rsLoRA folds √r into alpha; DoRA and per-module patterns are refused", async () => {
    const m = memModel({arch: "qwen2", seed: 43});
    const ad = LoraAdapter.create(m.config, {rank: 4, alpha: 8, targets: ["v"], seed: 5});
    const peft = join(dir, "rs");
    exportPeft(peft, m.config, await adapterToFile(ad));
    ad.dispose();
    const cfgPath = join(peft, PEFT_CONFIG), cfg = JSON.parse(readFileSync(cfgPath, "utf8"));
    writeFileSync(cfgPath, JSON.stringify({...cfg, use_rslora: true}));
    assert.equal(importPeft(peft, m.config).alpha, 8 * 2);          // alpha/√r = (alpha·√r)/r
    writeFileSync(cfgPath, JSON.stringify({...cfg, use_dora: true}));
    assert.throws(() => importPeft(peft, m.config), /DoRA/);
    writeFileSync(cfgPath, JSON.stringify({...cfg, rank_pattern: {q_proj: 2}}));
    assert.throws(() => importPeft(peft, m.config), /patterns/);
    assert.ok(existsSync(join(peft, "adapter_model.safetensors")));
});

test("llama q/k permutation: HF rotate-half RoPE on HF rows equals ggml NORM RoPE on ggml rows", () => {
    const m = memModel({arch: "llama", seed: 44});
    const c = m.config, d = c.headDim, nOut = c.nHead * d, pos = 5;
    const q = randArray(nOut, 9);                                   // one token's q in ggml row order
    const angle = (i: number) => pos * Math.pow(c.ropeBase, -2 * i / d);
    const ropeGgml = new Float32Array(nOut), ropeHf = new Float32Array(nOut);
    const qHf = permuteRows(c, "q", q, 1, "hf");
    for (let h = 0; h < c.nHead; h++) for (let i = 0; i < d / 2; i++) {
        const cs = Math.cos(angle(i)), sn = Math.sin(angle(i));
        const [a, b] = [h * d + 2 * i, h * d + 2 * i + 1];           // NORM pairs
        ropeGgml[a] = q[a]! * cs - q[b]! * sn; ropeGgml[b] = q[a]! * sn + q[b]! * cs;
        const [x, y] = [h * d + i, h * d + i + d / 2];               // HF rotate_half pairs
        ropeHf[x] = qHf[x]! * cs - qHf[y]! * sn; ropeHf[y] = qHf[x]! * sn + qHf[y]! * cs;
    }
    assert.ok(maxAbsDiff(permuteRows(c, "q", ropeGgml, 1, "hf"), ropeHf) < 1e-6);
    assert.deepEqual(permuteRows(c, "q", qHf, 1, "ggml"), q);
});
