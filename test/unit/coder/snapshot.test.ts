// Workspace snapshots: a faithful, independent copy (no hard links), symlinks kept as links, excludes honoured.

import {after, before, describe, it} from "node:test";
import assert from "node:assert/strict";
import {chmod, lstat, readFile, readlink, stat, symlink, writeFile} from "node:fs/promises";
import {existsSync} from "node:fs";
import {join} from "node:path";
import {removeSnapshot, snapshotWorkspace} from "../../../src/coder/sandbox/snapshot";
import {workspace, type TempWorkspace} from "./helpers";

describe("snapshotWorkspace", () => {
    let src: TempWorkspace, dest: TempWorkspace;
    before(async () => {
        src = await workspace({"a.txt": "A", "src/b.ts": "B", "node_modules/x/index.js": "X", "bin/run.sh": "#!/bin/sh\necho hi\n"});
        await chmod(join(src.dir, "bin/run.sh"), 0o755);
        await symlink("src/b.ts", join(src.dir, "link"));
        await symlink("/etc/passwd", join(src.dir, "abs-link"));
        dest = await workspace();
    });
    after(async () => { await src.cleanup(); await dest.cleanup(); });

    it("copies files, folders, modes and symlinks (as links) and counts bytes", async () => {
        const s = await snapshotWorkspace(src.dir, dest.dir);
        assert.equal(s.path, join(dest.dir, s.id));
        assert.equal(await readFile(join(s.path, "src/b.ts"), "utf8"), "B");
        assert.equal((await stat(join(s.path, "bin/run.sh"))).mode & 0o777, 0o755);
        assert.equal(await readlink(join(s.path, "link")), "src/b.ts");
        assert.equal(await readlink(join(s.path, "abs-link")), "/etc/passwd");
        assert.equal(s.files, 4);
        assert.equal(s.symlinks, 2);
        assert.equal(s.bytes, 1 + 1 + 1 + "#!/bin/sh\necho hi\n".length);
        assert.equal((await lstat(join(s.path, "a.txt"))).nlink, 1, "not a hard link");
        // Independent: writing the copy leaves the source alone, and the other way round.
        await writeFile(join(s.path, "a.txt"), "changed in copy");
        await writeFile(join(src.dir, "src/b.ts"), "changed in source");
        assert.equal(await readFile(join(src.dir, "a.txt"), "utf8"), "A");
        assert.equal(await readFile(join(s.path, "src/b.ts"), "utf8"), "B");
        await writeFile(join(src.dir, "src/b.ts"), "B");
        await removeSnapshot(s);
        assert.ok(!existsSync(s.path));
    });

    it("skips excluded names, and clones a snapshot into another", async () => {
        const s = await snapshotWorkspace(src.dir, dest.dir, {exclude: ["node_modules"]});
        assert.ok(!existsSync(join(s.path, "node_modules")));
        const clone = await snapshotWorkspace(s.path, dest.dir);
        assert.notEqual(clone.id, s.id);
        assert.equal(await readFile(join(clone.path, "a.txt"), "utf8"), "A");
    });

    it("refuses a destination inside the source, and removing a folder that is not a snapshot", async () => {
        await assert.rejects(snapshotWorkspace(src.dir, join(src.dir, "snaps")), {code: "SNAPSHOT_INSIDE_SOURCE"});
        await assert.rejects(removeSnapshot({id: "home", path: "/home"}), {code: "SNAPSHOT_NOT_OURS"});
    });
});
