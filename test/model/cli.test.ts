// `nano-coder run` and `nano-coder traces` in process, on a factory model in a temporary workspace.

import {test} from "node:test";
import assert from "node:assert/strict";
import {mkdtempSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import type {CliIO} from "../../src/cli/command";
import {runCommand} from "../../src/cli/run";
import {tracesCommand} from "../../src/cli/traces";
import {testModel} from "../helpers/models";

function io(): CliIO & {stdout: string; stderr: string} {
    const o = {stdout: "", stderr: "", signal: new AbortController().signal, out: (t: string) => { o.stdout += t; }, err: (t: string) => { o.stderr += t; }};
    return o;
}

test("run streams a session and stores its trace; traces list / show / label work on it", async () => {
    const ws = mkdtempSync(join(tmpdir(), "nano-cli-ws-"));
    writeFileSync(join(ws, "add.js"), "export const add = (a, b) => a - b;\n");
    const traces = mkdtempSync(join(tmpdir(), "nano-cli-traces-"));
    process.env.NANO_CODER_CACHE = mkdtempSync(join(tmpdir(), "nano-cli-cache-"));
    const r = io();
    const code = await runCommand.run(["--model", testModel({arch: "qwen2", type: "f32", contextLength: 16384}), "--workspace", ws, "--approve", "auto",
        "--tool-choice", "required", "--max-turns", "2", "--turn-tokens", "40", "--threads", "1", "--context", "8192", "--gpu", "cpu",
        "--traces", traces, "--temperature", "1", "--seed", "3", "Fix add"], r);
    assert.equal(code, 3, "max_turns is not success");
    assert.match(r.stdout, /── turn 1/);
    assert.match(r.stdout, /<tool_call>/);
    assert.match(r.stdout, /── max_turns · 2 turns/);
    assert.match(r.stderr, /trace \S+ stored in/);

    const list = io();
    assert.equal(await tracesCommand.run(["list", "--dir", traces, "--json"], list), 0);
    const rows = JSON.parse(list.stdout) as {id: string; status: string}[];
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.status, "max_turns");
    const id = rows[0]!.id;
    const lab = io();
    assert.equal(await tracesCommand.run(["label", id.slice(0, 10), "accepted", "--dir", traces], lab), 0);
    const acc = io();
    await tracesCommand.run(["list", "--dir", traces, "--label", "accepted"], acc);
    assert.match(acc.stdout, new RegExp(id));
    const show = io();
    assert.equal(await tracesCommand.run(["show", id, "--dir", traces, "--tokens"], show), 0);
    assert.match(show.stdout, /S assistant\/tool_call \(grammar\)/);
    assert.match(show.stdout, /logprobs: -/);
    assert.match(show.stdout, /labels: accepted by user/);
    await assert.rejects(tracesCommand.run(["label", id, "great", "--dir", traces], io()), /label must be one of/);
});
