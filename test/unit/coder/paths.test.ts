// Path confinement: `..`, absolute paths elsewhere and symlinks out of the workspace are refused with clear messages.

import {after, before, describe, it} from "node:test";
import assert from "node:assert/strict";
import {mkdir, symlink, writeFile} from "node:fs/promises";
import {join} from "node:path";
import {resolveInWorkspace} from "../../../src/coder/sandbox/paths";
import {workspace, type TempWorkspace} from "./helpers";

describe("resolveInWorkspace", () => {
    let ws: TempWorkspace, outside: TempWorkspace;
    before(async () => {
        ws = await workspace({"src/a.ts": "a", "docs/readme.md": "r"});
        outside = await workspace({"secret.txt": "s"});
        await symlink(join(outside.dir, "secret.txt"), join(ws.dir, "link-out"));
        await symlink(outside.dir, join(ws.dir, "dir-out"));
        await symlink("src/a.ts", join(ws.dir, "link-in"));
        await symlink(join(ws.dir, "missing-target"), join(ws.dir, "dangling"));
        await mkdir(join(ws.dir, "deep/er"), {recursive: true});
        await symlink("../../..", join(ws.dir, "deep/er/up"));
    });
    after(async () => { await ws.cleanup(); await outside.cleanup(); });

    it("resolves relative and inside-absolute paths, including ones that do not exist yet", async () => {
        assert.equal(await resolveInWorkspace(ws.dir, "src/a.ts"), join(ws.dir, "src/a.ts"));
        assert.equal(await resolveInWorkspace(ws.dir, join(ws.dir, "docs/readme.md")), join(ws.dir, "docs/readme.md"));
        assert.equal(await resolveInWorkspace(ws.dir, "src/../docs/readme.md"), join(ws.dir, "docs/readme.md"));
        assert.equal(await resolveInWorkspace(ws.dir, "new/dir/file.txt"), join(ws.dir, "new/dir/file.txt"));
        assert.equal(await resolveInWorkspace(ws.dir, "."), ws.dir);
    });

    it("follows symlinks that stay inside", async () => {
        assert.equal(await resolveInWorkspace(ws.dir, "link-in", {mustExist: true}), join(ws.dir, "src/a.ts"));
    });

    it("refuses .. that climbs out, and absolute paths elsewhere", async () => {
        await assert.rejects(resolveInWorkspace(ws.dir, "../x"), {code: "PATH_REFUSED", message: /climbs out of the workspace/});
        await assert.rejects(resolveInWorkspace(ws.dir, "src/../../../etc/passwd"), {code: "PATH_REFUSED"});
        await assert.rejects(resolveInWorkspace(ws.dir, "/etc/passwd"), {code: "PATH_REFUSED", message: /outside the workspace/});
    });

    it("refuses symlinks pointing outside, even when writing below them", async () => {
        await assert.rejects(resolveInWorkspace(ws.dir, "link-out"), {code: "PATH_REFUSED", message: /symlink.*outside/});
        await assert.rejects(resolveInWorkspace(ws.dir, "dir-out/secret.txt"), {code: "PATH_REFUSED", message: /outside/});
        await assert.rejects(resolveInWorkspace(ws.dir, "dir-out/new-file.txt"), {code: "PATH_REFUSED", message: /outside/});
        await assert.rejects(resolveInWorkspace(ws.dir, "deep/er/up/x"), {code: "PATH_REFUSED", message: /outside/});
    });

    it("refuses dangling symlinks (a write would land wherever they point)", async () => {
        await assert.rejects(resolveInWorkspace(ws.dir, "dangling"), {code: "PATH_REFUSED", message: /does not exist/});
    });

    it("refuses non-strings, empty strings and NUL bytes; reports missing files when they must exist", async () => {
        for (const bad of [undefined, 42, {}, "", "  ", "a\0b"]) await assert.rejects(resolveInWorkspace(ws.dir, bad), {code: "PATH_REFUSED"});
        await assert.rejects(resolveInWorkspace(ws.dir, "nope.txt", {mustExist: true}), {message: /does not exist/});
        await writeFile(join(ws.dir, "file"), "x");
        await assert.rejects(resolveInWorkspace(ws.dir, "file/child", {mustExist: true}), {message: /is a file, not a folder/});
    });
});
