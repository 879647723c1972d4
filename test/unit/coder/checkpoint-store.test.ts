// The checkpoint store: content-addressed blobs, size limits that stop a write rather than lose its undo, and cleanup
// of old sessions that never touches the sessions still in use.

import {afterEach, beforeEach, describe, it} from "node:test";
import assert from "node:assert/strict";
import {mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile} from "node:fs/promises";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {CheckpointStore, MemoryJournal, sha256, type CheckpointJournal} from "../../../src/coder/checkpoint-store";
import {CheckpointRecorder} from "../../../src/coder/checkpoints";
import {writeTracked} from "../../../src/coder/tools/file_write";
import type {ToolContext} from "../../../src/coder/tools/types";
import {workspace, type TempWorkspace} from "./helpers";

describe("CheckpointStore", () => {
    let root: string;
    beforeEach(async () => { root = await mkdtemp(join(tmpdir(), "nano-cpstore-")); });
    afterEach(async () => { await rm(root, {recursive: true, force: true}); });

    it("keeps each content once, under its sha256, and hands it back only while intact", async () => {
        const j = CheckpointStore.open(root).session("s1");
        const a = await j.putBlob(Buffer.from("same bytes"));
        assert.equal(await j.putBlob(Buffer.from("same bytes")), a);
        assert.equal(a, sha256(Buffer.from("same bytes")));
        assert.deepEqual(await readdir(j.blobsDir), [a]);
        assert.equal((await j.getBlob(a))?.toString(), "same bytes");
        await writeFile(join(j.blobsDir, a), "tampered");
        assert.equal(await j.getBlob(a), undefined);
        assert.equal(await j.getBlob("../../etc/passwd"), undefined);
        assert.equal(await j.putBlob(Buffer.from("same bytes")), a, "a damaged copy is written again");
        assert.equal((await j.getBlob(a))?.toString(), "same bytes");
        j.append({type: "x", n: 1});
        assert.deepEqual(await CheckpointStore.open(root).session("s1").records(), [{type: "x", n: 1}]);
        assert.throws(() => CheckpointStore.open(root).session("../evil"), {code: "CHECKPOINT_SESSION"});
        assert.throws(() => CheckpointStore.open(root).session(".hidden"), {code: "CHECKPOINT_SESSION"});
    });

    for (const kind of ["memory", "disk"] as const) {
        it(`size limits (${kind}): a file that cannot be kept is not written at all`, async () => {
            const ws: TempWorkspace = await workspace({"big.txt": "x".repeat(2000), "a.txt": "a".repeat(600), "b.txt": "b".repeat(600)});
            try {
                const limits = {maxFileBytes: 1000, maxSessionBytes: 1000};
                const journal: CheckpointJournal = kind === "memory" ? new MemoryJournal(limits) : CheckpointStore.open(root, limits).session("s1");
                const checkpoints = new CheckpointRecorder(ws.dir, journal);
                const ctx = {workspace: ws.dir, checkpoints} as unknown as ToolContext;
                await assert.rejects(writeTracked(ctx, join(ws.dir, "big.txt"), "agent", "x".repeat(2000)), {code: "CHECKPOINT_LIMIT"});
                assert.equal((await readFile(join(ws.dir, "big.txt"), "utf8")).length, 2000, "over the file limit: untouched");
                await writeTracked(ctx, join(ws.dir, "a.txt"), "agent a", "a".repeat(600));
                await assert.rejects(writeTracked(ctx, join(ws.dir, "b.txt"), "agent b", "b".repeat(600)), {code: "CHECKPOINT_LIMIT"});
                assert.equal(await readFile(join(ws.dir, "b.txt"), "utf8"), "b".repeat(600), "past the session limit: untouched");
                await writeTracked(ctx, join(ws.dir, "new.txt"), "a new file needs no copy", undefined);
                const r = await checkpoints.restore(checkpoints.list()[0]!.id);
                assert.deepEqual([r.restored, r.deleted, r.skipped], [["a.txt"], ["new.txt"], []]);
            } finally {
                await ws.cleanup();
            }
        });
    }

    it("cleanup drops sessions past the count, age and size limits, oldest first, never the kept ones", async () => {
        const store = CheckpointStore.open(root, {maxSessions: 3, maxAgeMs: 10 * 86_400_000, maxTotalBytes: 10_000});
        const now = Date.now();
        const make = async (id: string, daysAgo: number, bytes: number) => {
            const j = store.session(id);
            j.append({type: "begin"});
            await j.putBlob(Buffer.alloc(bytes, id));
            const t = new Date(now - daysAgo * 86_400_000);
            await utimes(j.indexPath, t, t);
        };
        await make("s-new", 0, 100);
        await make("s-1d", 1, 100);
        await make("s-big", 2, 9_900);   // past the total size once the newer ones are counted
        await make("s-3d", 3, 100);
        await make("s-4d", 4, 100);      // past the count of 3
        await make("s-old", 30, 100);    // past the age
        await make("s-kept", 40, 100);   // the panel's session: kept whatever its age
        await mkdir(join(root, ".trash-s-x-abc"), {recursive: true});   // a removal cut short by a crash
        await writeFile(join(root, "stray.txt"), "not a session folder");
        const {removed} = await store.cleanup(["s-kept"], now);
        assert.deepEqual(removed.sort(), ["s-4d", "s-big", "s-old"]);
        assert.deepEqual((await store.list()).map(s => s.id), ["s-new", "s-1d", "s-3d", "s-kept"]);
        assert.deepEqual((await readdir(root)).sort(), ["s-1d", "s-3d", "s-kept", "s-new", "stray.txt"]);
        assert.equal(await store.has("s-big"), false);
        assert.equal(await store.has("s-new"), true);
        assert.equal(await store.has("../s-new"), false);
    });
});
