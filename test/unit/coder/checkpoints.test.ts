// Checkpoints restore the agent's changes exactly and never delete or overwrite what the agent did not write.

import {after, before, describe, it} from "node:test";
import assert from "node:assert/strict";
import {chmod, mkdir, readFile, stat, writeFile} from "node:fs/promises";
import {existsSync} from "node:fs";
import {join} from "node:path";
import {CheckpointRecorder} from "../../../src/coder/checkpoints";
import {workspace, type TempWorkspace} from "./helpers";

async function agentWrite(cp: CheckpointRecorder, p: string, content: string | Buffer): Promise<void> {
    await cp.beforeWrite(p);
    await mkdir(join(p, ".."), {recursive: true});
    await writeFile(p, content);
    await cp.afterWrite(p);
}

describe("CheckpointRecorder", () => {
    let ws: TempWorkspace;
    before(async () => { ws = await workspace({"a.txt": "original a\n", "keep/user.txt": "user's file\n", "bin.dat": Buffer.from([0, 1, 2, 255])}); });
    after(async () => { await ws.cleanup(); });

    it("restores modified files byte for byte (and their mode), deletes only files it created, prunes its empty folders", async () => {
        const cp = new CheckpointRecorder(ws.dir);
        await chmod(join(ws.dir, "a.txt"), 0o640);
        const id = cp.begin("turn 1");
        await agentWrite(cp, join(ws.dir, "a.txt"), "changed\n");
        await agentWrite(cp, join(ws.dir, "bin.dat"), Buffer.from([9, 9]));
        await agentWrite(cp, join(ws.dir, "new/deep/file.ts"), "created\n");
        // Meanwhile the user adds a file the agent never touched.
        await writeFile(join(ws.dir, "new/user-added.txt"), "mine");
        await writeFile(join(ws.dir, "untracked.txt"), "also mine");
        const r = await cp.restore(id);
        assert.deepEqual(r.restored.sort(), ["a.txt", "bin.dat"]);
        assert.deepEqual(r.deleted, ["new/deep/file.ts"]);
        assert.equal(await readFile(join(ws.dir, "a.txt"), "utf8"), "original a\n");
        assert.equal((await stat(join(ws.dir, "a.txt"))).mode & 0o777, 0o640);
        assert.deepEqual([...await readFile(join(ws.dir, "bin.dat"))], [0, 1, 2, 255]);
        assert.ok(!existsSync(join(ws.dir, "new/deep")), "the folder the agent created is gone");
        assert.equal(await readFile(join(ws.dir, "new/user-added.txt"), "utf8"), "mine", "a user file in an agent-created folder survives");
        assert.equal(await readFile(join(ws.dir, "untracked.txt"), "utf8"), "also mine");
        assert.equal(await readFile(join(ws.dir, "keep/user.txt"), "utf8"), "user's file\n");
        assert.equal(cp.list().length, 0);
    });

    it("leaves files changed by someone else after the agent, and reports them (force overrides)", async () => {
        const cp = new CheckpointRecorder(ws.dir);
        const id = cp.begin();
        await agentWrite(cp, join(ws.dir, "a.txt"), "agent\n");
        await agentWrite(cp, join(ws.dir, "made.txt"), "agent made\n");
        await writeFile(join(ws.dir, "a.txt"), "user edited after the agent\n");
        await writeFile(join(ws.dir, "made.txt"), "user edited the agent's new file\n");
        const r = await cp.restore(id);
        assert.deepEqual(r.skipped.map(s => s.path).sort(), ["a.txt", "made.txt"]);
        assert.equal(await readFile(join(ws.dir, "a.txt"), "utf8"), "user edited after the agent\n");
        assert.ok(existsSync(join(ws.dir, "made.txt")));
        // Force: back to the state before the checkpoint.
        const cp2 = new CheckpointRecorder(ws.dir);
        const id2 = cp2.begin();
        await agentWrite(cp2, join(ws.dir, "a.txt"), "agent again\n");
        await writeFile(join(ws.dir, "a.txt"), "user again\n");
        const f = await cp2.restore(id2, {force: true});
        assert.deepEqual(f.restored, ["a.txt"]);
        assert.equal(await readFile(join(ws.dir, "a.txt"), "utf8"), "user edited after the agent\n");
    });

    it("restoring an earlier checkpoint undoes later ones too, to the state at its beginning", async () => {
        await writeFile(join(ws.dir, "a.txt"), "v0\n");
        const cp = new CheckpointRecorder(ws.dir);
        const first = cp.begin("1");
        await agentWrite(cp, join(ws.dir, "a.txt"), "v1\n");
        const second = cp.begin("2");
        await agentWrite(cp, join(ws.dir, "a.txt"), "v2\n");
        await agentWrite(cp, join(ws.dir, "b.txt"), "b\n");
        assert.deepEqual(cp.list().map(c => c.files), [["a.txt"], ["a.txt", "b.txt"]]);
        const r2 = await cp.restore(second);
        assert.equal(await readFile(join(ws.dir, "a.txt"), "utf8"), "v1\n");
        assert.deepEqual(r2.deleted, ["b.txt"]);
        await agentWrite(cp, join(ws.dir, "a.txt"), "v3\n");
        await cp.restore(first);
        assert.equal(await readFile(join(ws.dir, "a.txt"), "utf8"), "v0\n");
        await assert.rejects(cp.restore(second), {code: "CHECKPOINT_UNKNOWN"});
    });

    it("refuses paths outside the workspace", async () => {
        const cp = new CheckpointRecorder(ws.dir);
        await assert.rejects(cp.beforeWrite("/etc/passwd"), {code: "CHECKPOINT_OUTSIDE"});
    });
});
