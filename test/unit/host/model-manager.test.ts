// ModelManager: one load shared by concurrent users, status changes, a new model disposes the old one (after its last
// session), load errors are reported and retried on the next acquire.

import assert from "node:assert/strict";
import {test} from "node:test";
import {ModelManager, type ModelSpec} from "../../../src/host/model-manager";

const spec = (source: string): ModelSpec => ({source, gpu: "off", threads: 1, contextSize: 512});

function fakeLoader() {
    const disposed: string[] = [];
    let loads = 0;
    const load = async (s: ModelSpec, progress: (p: {phase: "downloading" | "loading"; fraction?: number}) => void) => {
        loads++;
        if (s.source.startsWith("hf:")) progress({phase: "downloading", fraction: 0.5});
        await new Promise(r => setTimeout(r, 5));
        if (s.source === "bad.gguf") throw new Error("not a GGUF");
        return {name: s.source, dispose: () => { disposed.push(s.source); }};
    };
    return {load, disposed, loads: () => loads};
}

test("loads once for concurrent sessions and reports idle → loading → ready", async () => {
    const f = fakeLoader();
    const m = new ModelManager(f.load, spec("a.gguf"));
    const states: string[] = [];
    m.onDidChangeStatus(s => states.push(s.state));
    assert.equal(m.status.state, "idle");
    const [a, b] = await Promise.all([m.acquire(), m.acquire()]);
    assert.equal(a.model, b.model);
    assert.equal(f.loads(), 1);
    assert.deepEqual(states, ["loading", "ready"]);
    a.release(); b.release();
    (await m.acquire()).release();
    assert.equal(f.loads(), 1, "the loaded model is reused");
});

test("switching model disposes the old one, but only after its last session released it", async () => {
    const f = fakeLoader();
    const m = new ModelManager(f.load, spec("a.gguf"));
    const lease = await m.acquire();
    await m.configure(spec("hf:x/y"));
    assert.deepEqual(f.disposed, [], "still in use");
    const states: string[] = [];
    m.onDidChangeStatus(s => states.push(`${s.state}${s.progress ?? ""}`));
    const next = await m.acquire();
    assert.equal(next.model.name, "hf:x/y");
    assert.deepEqual(states, ["loading", "downloading0.5", "ready"]);
    lease.release();
    await new Promise(r => setTimeout(r, 1));
    assert.deepEqual(f.disposed, ["a.gguf"]);
    next.release();
    await m.dispose();
    assert.deepEqual(f.disposed, ["a.gguf", "hf:x/y"]);
});

test("no model: acquire says how to choose one; a failing load reports error and is retried", async () => {
    const f = fakeLoader();
    const m = new ModelManager(f.load, spec(""));
    assert.equal(m.status.state, "none");
    await assert.rejects(m.acquire(), /Select Model/);
    await m.configure(spec("bad.gguf"));
    await assert.rejects(m.acquire(), /not a GGUF/);
    assert.equal(m.status.state, "error");
    assert.equal(m.status.detail, "not a GGUF");
    await assert.rejects(m.acquire(), /not a GGUF/);
    assert.equal(f.loads(), 2, "tried again");
});
