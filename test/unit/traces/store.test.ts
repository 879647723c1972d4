import {test} from "node:test";
import assert from "node:assert/strict";
import {spawn} from "node:child_process";
import {mkdtempSync, readFileSync, readdirSync, truncateSync, writeFileSync, appendFileSync, statSync} from "node:fs";
import {tmpdir} from "node:os";
import {dirname, join} from "node:path";
import {fileURLToPath} from "node:url";
import {TraceStore, decodeRecords, encodeRecord} from "../../../src/traces/store";
import {effectiveLabels, newTraceId, validateTrace, windowTokens} from "../../../src/traces/schema";
import {sampleTrace} from "./sample";

const here = dirname(fileURLToPath(import.meta.url));
const tmp = () => mkdtempSync(join(tmpdir(), "nano-traces-"));

test("append, get, list, label round-trip; filters by label, date, model, status", async () => {
    const store = TraceStore.open(tmp());
    await store.append(sampleTrace({id: "a1", createdAt: "2025-01-01T00:00:00.000Z", model: "qwen-small"}));
    await store.append(sampleTrace({id: "b2", createdAt: "2025-02-01T00:00:00.000Z", model: "llama-tiny", status: "cancelled"}));
    await store.append(sampleTrace({id: "c3", createdAt: "2025-03-01T00:00:00.000Z", model: "qwen-small"}));
    assert.deepEqual((await store.list()).map(s => s.id), ["c3", "b2", "a1"], "newest first");
    await store.label("a1", "accepted", {by: "user"});
    await store.label("c3", "accepted");
    await store.label("c3", "rejected", {note: "changed my mind"});
    await store.label("c3", "tests_passed", {by: "verifier"});
    assert.deepEqual((await store.list({label: "accepted"})).map(s => s.id), ["a1"]);
    assert.deepEqual((await store.list({label: "rejected"})).map(s => s.id), ["c3"]);
    assert.deepEqual((await store.list({label: "tests_passed"})).map(s => s.id), ["c3"]);
    assert.deepEqual((await store.list({unlabelled: true})).map(s => s.id), ["b2"]);
    assert.deepEqual((await store.list({since: "2025-01-15", until: "2025-03-01"})).map(s => s.id), ["b2"]);
    assert.deepEqual((await store.list({model: "qwen"})).map(s => s.id), ["c3", "a1"]);
    assert.deepEqual((await store.list({status: "cancelled"})).map(s => s.id), ["b2"]);
    assert.deepEqual((await store.list({limit: 1})).map(s => s.id), ["c3"]);
    const c3 = await store.get("c3");
    assert.ok(c3);
    assert.deepEqual(c3.labels.map(l => l.name), ["accepted", "rejected", "tests_passed"]);
    assert.deepEqual([...effectiveLabels(c3.labels)].sort(), ["rejected", "tests_passed"]);
    assert.deepEqual(windowTokens(c3, 0), [1, 2, 3, 4]);
    assert.equal((await store.get("b"))?.id, "b2", "unique prefix");
    assert.equal(await store.get("zz"), undefined);
    await assert.rejects(store.label("nope", "accepted"), /no trace/);
    await assert.rejects(store.label("a1", "great" as never), /unknown label/);
});

test("a torn index tail at any byte loses only the record being written, and appends continue cleanly", async () => {
    const dir = tmp();
    const store = TraceStore.open(dir);
    for (const id of ["r0", "r1", "r2"]) await store.append(sampleTrace({id}));
    await store.label("r1", "accepted");
    const full = readFileSync(store.indexPath);
    const lineEnds: number[] = [];
    full.forEach((b, i) => { if (b === 0x0a) lineEnds.push(i + 1); });
    for (let cut = 0; cut <= full.length; cut += 7) {
        writeFileSync(store.indexPath, full.subarray(0, cut));
        const complete = lineEnds.filter(e => e <= cut).length;
        const {traces, skipped} = await store.readIndex();
        assert.equal(traces.size, Math.min(complete, 3), `cut at ${cut}`);
        assert.ok(skipped <= 1);
        // The next append after a crash must be readable, whatever the torn tail looked like.
        await store.append(sampleTrace({id: `after${cut}`}));
        const ids = (await store.list()).map(s => s.id);
        assert.ok(ids.includes(`after${cut}`), `append after cut ${cut}`);
    }
});

test("a corrupted record in the middle is skipped by checksum; its neighbours survive", async () => {
    const store = TraceStore.open(tmp());
    for (const id of ["x0", "x1", "x2"]) await store.append(sampleTrace({id}));
    const text = readFileSync(store.indexPath, "utf8").split("\n");
    text[1] = text[1]!.replace('"x1"', '"y1"');
    writeFileSync(store.indexPath, text.join("\n"));
    const {traces, skipped} = await store.readIndex();
    assert.deepEqual([...traces.keys()].sort(), ["x0", "x2"]);
    assert.equal(skipped, 1);
    assert.equal(decodeRecords(encodeRecord({type: "label", id: "q", label: {name: "accepted", at: "t"}})).records.length, 1);
});

test("kill -9 of a writer mid-stream never corrupts earlier records", async () => {
    const dir = tmp();
    for (let round = 0; round < 2; round++) {
        const child = spawn(process.execPath, ["--import", "tsx", join(here, "fixtures", "append-forever.ts"), dir], {stdio: ["ignore", "pipe", "inherit"]});
        const acked: string[] = [];
        let buf = "";
        await new Promise<void>((resolve, reject) => {
            child.on("error", reject);
            child.on("exit", code => { if (code !== null) reject(new Error(`child exited ${code} before being killed`)); });
            child.stdout!.on("data", (d: Buffer) => {
                buf += d.toString();
                const lines = buf.split("\n");
                buf = lines.pop()!;
                acked.push(...lines);
                // Kill at a moment that depends on the machine's timing: mid-body, mid-index or between records.
                if (acked.length >= 6 + round * 3) { child.kill("SIGKILL"); resolve(); }
            });
        });
        await new Promise(r => child.once("close", r));
        const store = TraceStore.open(dir);
        const {traces, skipped} = await store.readIndex();
        assert.ok(skipped <= round + 1, `at most one torn record per crash (skipped ${skipped})`);
        for (const id of acked) {
            assert.ok(traces.has(id), `acknowledged ${id} survives`);
            const t = await store.get(id);
            assert.ok(t && validateTrace(t).length === 0, `body of ${id} intact`);
        }
        for (const id of traces.keys()) assert.ok(await store.get(id), `every indexed trace ${id} has its body`);
        // Leftover temp files never look like bodies.
        assert.ok(readdirSync(store.bodiesDir).filter(f => f.endsWith(".json")).length >= traces.size);
    }
    const store = TraceStore.open(dir);
    await store.append(sampleTrace({id: "final"}));
    assert.ok((await store.list()).some(s => s.id === "final"));
    assert.ok(statSync(store.indexPath).size > 0);
});

test("a torn tail written by a crash gets its own line before the next record", () => {
    const dir = tmp();
    const store = TraceStore.open(dir);
    appendFileSync(store.indexPath, '0000abcd {"type":"tra');
    return store.append(sampleTrace({id: "z9"})).then(async () => {
        const {traces, skipped} = await store.readIndex();
        assert.deepEqual([...traces.keys()], ["z9"]);
        assert.equal(skipped, 1);
        truncateSync(store.indexPath, 0);
        assert.equal((await store.list()).length, 0);
    });
});

test("validateTrace checks token ids, logprobs of sampled segments and windows", () => {
    const ok = sampleTrace({id: "v1"});
    assert.deepEqual(validateTrace(ok), []);
    const bad = sampleTrace({id: "v2"});
    bad.segments[1]!.logprobs = [-1];
    bad.segments[0]!.logprobs = [-1, -2];
    bad.segments.push({window: 0, turn: 1, role: "tool", kind: "observation", text: "", tokens: [-1], sampled: false});
    const problems = validateTrace(bad);
    assert.equal(problems.length, 3, problems.join("; "));
    assert.match(newTraceId(new Date("2025-06-07T08:09:10.123Z"), () => 0.5), /^20250607T080910Z-800000$/);
});
