// `nano-coder parity`: prints both figures (text and --json) for a factory model with an adapter; usage errors.
import {test} from "node:test";
import assert from "node:assert/strict";
import {mkdtempSync, rmSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {parityCommand} from "../../src/cli/parity";
import {UsageError, type CliIO} from "../../src/cli/command";
import {modelConfig} from "../../src/gguf/arch";
import {openGguf} from "../../src/gguf/reader";
import {exportAdapterVersion} from "../../src/rl/adapter/gguf";
import {initBackend} from "../../src/rl/backend";
import {LoraAdapter} from "../../src/rl/lora";
import {testModel} from "../helpers/models";

function io(): CliIO & {text: () => string} {
    let out = "";
    return {out: t => { out += t; }, err: () => {}, signal: new AbortController().signal, text: () => out};
}

test("parity CLI prints max |Δlogit| and |Δlogprob| (text and JSON)", async () => {
    await initBackend({backend: "wasm"});
    const model = testModel({arch: "llama", type: "f32", seed: 31});
    const f = await openGguf(model);
    const ad = LoraAdapter.create(modelConfig(f), {rank: 2, seed: 1});
    f.close();
    ad.randomizeB(0.2, 2);
    const dir = mkdtempSync(join(tmpdir(), "nano-parity-cli-"));
    try {
        const {path} = await exportAdapterVersion(dir, ad);
        const a = io();
        assert.equal(await parityCommand.run(["--model", model, "--adapter", path, "--tokens", "12"], a), 0);
        assert.match(a.text(), /max \|Δlogit\| +\d\.\d+e-\d+\nmax \|Δlogprob\| +\d\.\d+e-\d+/);
        const b = io();
        assert.equal(await parityCommand.run(["--model", model, "--tokens", "8", "--json"], b), 0);
        const j = JSON.parse(b.text());
        assert.equal(j.tokens, 8);
        assert.ok(j.maxAbsLogit < 1e-4 && j.maxAbsLogprob < 1e-4);
        await assert.rejects(parityCommand.run(["--tokens", "8"], io()), UsageError);
        await assert.rejects(parityCommand.run(["--model", model, "--tokens", "1"], io()), UsageError);
    } finally {
        ad.dispose();
        rmSync(dir, {recursive: true, force: true});
    }
});
