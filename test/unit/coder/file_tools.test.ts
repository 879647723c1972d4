// File tools on real temporary workspaces: read_file, write_file, edit_file, list_files, search (ripgrep and JS).

import {after, before, describe, it} from "node:test";
import assert from "node:assert/strict";
import {readFile, symlink, writeFile} from "node:fs/promises";
import {existsSync} from "node:fs";
import {join} from "node:path";
import {ApprovalPolicy} from "../../../src/coder/approvals/policy";
import {findExecutable} from "../../../src/coder/sandbox/detect";
import {createDefaultTools} from "../../../src/coder/tools/index";
import {context, workspace, type TempWorkspace} from "./helpers";

const lines = (n: number) => Array.from({length: n}, (_, i) => `line ${i + 1}`).join("\n") + "\n";

describe("file tools", () => {
    let ws: TempWorkspace, outside: TempWorkspace;
    let ctx: Awaited<ReturnType<typeof context>>;
    const tools = createDefaultTools({policy: ApprovalPolicy.auto(), read: {maxChars: 2000}});
    const call = (name: string, args: unknown) => tools.invoke(name, args, ctx);
    before(async () => {
        ws = await workspace({
            "src/app.ts": "export function add(a: number, b: number) {\n    return a + b;\n}\n\nexport const x = 1;\nexport const x2 = 1;\n",
            "long.txt": lines(1000),
            "img.png": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d]),
            "latin1.txt": Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
            "crlf.txt": "one\r\ntwo\r\nthree\r\n",
            "empty.txt": "",
            "node_modules/dep/index.js": "module.exports = 'needle';\n",
            "docs/guide.md": "# Guide\nfind the needle here\n",
            "calc/special.txt": "total = a + b * (c)\n",
        });
        outside = await workspace({"secret.txt": "TOP SECRET\n"});
        await symlink(join(outside.dir, "secret.txt"), join(ws.dir, "sneaky"));
        ctx = await context(ws.dir);
    });
    after(async () => { await ctx.sandbox.dispose(); await ws.cleanup(); await outside.cleanup(); });

    describe("read_file", () => {
        it("reads a whole file with a header", async () => {
            const r = await call("read_file", {path: "src/app.ts"});
            assert.equal(r.ok, true);
            assert.match(r.observation, /^src\/app.ts \(6 lines\):\nexport function add/);
        });
        it("reads line ranges", async () => {
            const r = await call("read_file", {path: "long.txt", start_line: 10, end_line: 12});
            assert.equal(r.observation, "long.txt (lines 10-12 of 1000):\nline 10\nline 11\nline 12\n");
        });
        it("truncates long files with a clear marker saying how to read on", async () => {
            const r = await call("read_file", {path: "long.txt"});
            assert.equal(r.ok, true);
            const m = /\[truncated: showing lines 1-(\d+) of 1000. Read more with start_line=(\d+).\]$/.exec(r.observation);
            assert.ok(m, r.observation.slice(-200));
            assert.equal(Number(m![2]), Number(m![1]) + 1);
            assert.ok(r.observation.length < 2200);
            assert.equal((r.data as {truncated: boolean}).truncated, true);
        });
        it("refuses binary and non-UTF-8 files politely", async () => {
            const b = await call("read_file", {path: "img.png"});
            assert.equal(b.ok, false);
            assert.match(b.observation, /img.png is not shown: it contains NUL bytes \(binary data\) \(8 bytes\). Only text files can be read./);
            const l = await call("read_file", {path: "latin1.txt"});
            assert.match(l.observation, /not valid UTF-8/);
        });
        it("explains empty files, folders, missing files, ranges past the end", async () => {
            assert.match((await call("read_file", {path: "empty.txt"})).observation, /empty/);
            assert.match((await call("read_file", {path: "src"})).observation, /is a folder.*list_files/);
            assert.match((await call("read_file", {path: "nope.ts"})).observation, /"nope.ts" does not exist/);
            assert.match((await call("read_file", {path: "src/app.ts", start_line: 50})).observation, /past the end of src\/app.ts, which has 6 lines/);
        });
        it("refuses paths outside the workspace: .., absolute, symlinks", async () => {
            for (const p of ["../../etc/passwd", "/etc/passwd", "sneaky", join(outside.dir, "secret.txt")]) {
                const r = await call("read_file", {path: p});
                assert.equal(r.ok, false, p);
                assert.match(r.observation, /outside the workspace|climbs out/, p);
                assert.doesNotMatch(r.observation, /TOP SECRET/);
            }
        });
    });

    describe("write_file", () => {
        it("creates files (and folders), records them for undo, reports a diff", async () => {
            const r = await call("write_file", {path: "new/dir/hello.py", content: "print('hi')\n"});
            assert.equal(r.ok, true, r.observation);
            assert.equal(r.observation, "Created new/dir/hello.py (1 line, 12 bytes).");
            assert.equal(await readFile(join(ws.dir, "new/dir/hello.py"), "utf8"), "print('hi')\n");
            assert.match((r.data as {diff: string}).diff, /\+print\('hi'\)/);
            const cp = ctx.checkpoints.list();
            assert.ok(cp.at(-1)!.files.includes("new/dir/hello.py"));
        });
        it("replaces files, says when nothing changed, refuses outside paths and symlinks out", async () => {
            await writeFile(join(ws.dir, "r.txt"), "a\nb\n");
            assert.match((await call("write_file", {path: "r.txt", content: "a\nc\n"})).observation, /Replaced r.txt \(2 lines; \+1 -1 lines\)/);
            assert.match((await call("write_file", {path: "r.txt", content: "a\nc\n"})).observation, /nothing changed/);
            const out = await call("write_file", {path: "sneaky", content: "pwned"});
            assert.equal(out.ok, false);
            assert.equal(await readFile(join(outside.dir, "secret.txt"), "utf8"), "TOP SECRET\n");
            assert.equal((await call("write_file", {path: "../escape.txt", content: "x"})).ok, false);
            assert.ok(!existsSync(join(ws.dir, "../escape.txt")));
            assert.match((await call("write_file", {path: "src", content: "x"})).observation, /is a folder/);
            assert.match((await call("write_file", {path: "img.png", content: "x"})).observation, /binary/);
            assert.match((await call("write_file", {path: "n.txt", content: "a\0b"})).observation, /NUL/);
        });
    });

    describe("edit_file", () => {
        it("applies exact blocks in order and reports the diff", async () => {
            const r = await call("edit_file", {path: "src/app.ts", edits: [{search: "return a + b;", replace: "return a + b + 0;"}, {search: "export const x2 = 1;", replace: "export const x2 = 2;"}]});
            assert.equal(r.ok, true, r.observation);
            assert.match(r.observation, /Edited src\/app.ts: 2 blocks applied \(\+2 -2 lines\)/);
            assert.match(await readFile(join(ws.dir, "src/app.ts"), "utf8"), /a \+ b \+ 0;[\s\S]*x2 = 2;/);
        });
        it("a block matching 0 times shows the closest text; nothing is written", async () => {
            const before = await readFile(join(ws.dir, "src/app.ts"), "utf8");
            const r = await call("edit_file", {path: "src/app.ts", edits: [{search: "return a + b + 0;", replace: "ok"}, {search: "export function add(a: string, b: number) {", replace: "x"}]});
            assert.equal(r.ok, false);
            assert.match(r.observation, /Block 2 of 2 was not found in src\/app.ts \(after applying the 1 earlier block\). Nothing was changed./);
            assert.match(r.observation, /closest text is at lines 1-\d+:\n1\| export function add\(a: number, b: number\) \{/);
            assert.equal(await readFile(join(ws.dir, "src/app.ts"), "utf8"), before, "all or nothing");
        });
        it("says when only whitespace differs", async () => {
            await writeFile(join(ws.dir, "ws.ts"), "function f() {\n    return 1;\n}\n");
            const t = await call("edit_file", {path: "ws.ts", edits: [{search: "function f() {\n\treturn 1;\n}", replace: "z"}]});
            assert.equal(t.ok, false);
            assert.match(t.observation, /matches lines 1-3 only if whitespace is ignored; search must match exactly, including indentation. The file has:\n1\| function f\(\) \{\n2\|     return 1;/);
        });
        it("a block matching more than once names the lines", async () => {
            await writeFile(join(ws.dir, "dup.ts"), "const a = 1;\nexport const x = 1;\nexport const x2 = 1;\n");
            const r = await call("edit_file", {path: "dup.ts", edits: [{search: "export const", replace: "const"}]});
            assert.equal(r.ok, false);
            assert.match(r.observation, /matches 2 times in dup.ts \(at lines 2, 3\). Nothing was changed. Include more surrounding lines/);
        });
        it("matches LF blocks in CRLF files and keeps CRLF", async () => {
            const r = await call("edit_file", {path: "crlf.txt", edits: [{search: "one\ntwo", replace: "uno\ndos"}]});
            assert.equal(r.ok, true, r.observation);
            assert.equal(await readFile(join(ws.dir, "crlf.txt"), "utf8"), "uno\r\ndos\r\nthree\r\n");
        });
        it("refuses missing files and outside paths", async () => {
            assert.match((await call("edit_file", {path: "missing.ts", edits: [{search: "a", replace: "b"}]})).observation, /does not exist/);
            assert.equal((await call("edit_file", {path: "sneaky", edits: [{search: "TOP", replace: "NOT"}]})).ok, false);
            assert.equal(await readFile(join(outside.dir, "secret.txt"), "utf8"), "TOP SECRET\n");
        });
        it("its changes can be undone through the checkpoint", async () => {
            await writeFile(join(ws.dir, "u.txt"), "before\n");
            const id = ctx.checkpoints.begin("undo test");
            await call("edit_file", {path: "u.txt", edits: [{search: "before", replace: "after"}]});
            await call("write_file", {path: "u-new.txt", content: "new\n"});
            const rep = await ctx.checkpoints.restore(id);
            assert.deepEqual([rep.restored, rep.deleted], [["u.txt"], ["u-new.txt"]]);
            assert.equal(await readFile(join(ws.dir, "u.txt"), "utf8"), "before\n");
        });
    });

    describe("list_files", () => {
        it("lists breadth-first, marks folders, does not enter node_modules, shows symlinks without following", async () => {
            const r = await call("list_files", {});
            assert.equal(r.ok, true);
            assert.match(r.observation, /^Workspace \(\d+ entries\):/);
            assert.match(r.observation, /\nnode_modules\/ \(not listed\)\n/);
            assert.doesNotMatch(r.observation, /node_modules\/dep/);
            assert.match(r.observation, /\nsrc\/app.ts\n/);
            assert.match(r.observation, /sneaky -> /);
            assert.ok(r.observation.indexOf("src/\n") < r.observation.indexOf("src/app.ts"));
        });
        it("caps entries and refuses files and outside folders", async () => {
            const r = await call("list_files", {max_entries: 3});
            assert.match(r.observation, /\[truncated: \d+ more entries not shown/);
            assert.match((await call("list_files", {path: "long.txt"})).observation, /is a file/);
            assert.equal((await call("list_files", {path: ".."})).ok, false);
        });
    });

    for (const engine of ["ripgrep", "js"] as const) {
        describe(`search (${engine})`, {skip: engine === "ripgrep" && !findExecutable("rg") ? "ripgrep is not installed" : undefined}, () => {
            const t = createDefaultTools({policy: ApprovalPolicy.auto(), ripgrep: engine === "ripgrep"});
            const s = (args: unknown) => t.invoke("search", args, ctx);
            it("finds literal text (special characters included) with path:line", async () => {
                const r = await s({pattern: "a + b * (c)"});
                assert.equal(r.ok, true);
                assert.match(r.observation, /^1 match in 1 file:\ncalc\/special.txt:1: total = a \+ b \* \(c\)$/);
                assert.equal((r.data as {engine: string}).engine, engine);
            });
            it("supports regex, case-insensitivity, path and glob; reports no matches plainly", async () => {
                assert.match((await s({pattern: "line 99\\d", regex: true, path: "long.txt"})).observation, /10 matches in 1 file/);
                assert.match((await s({pattern: "GUIDE", case_sensitive: false, glob: "*.md"})).observation, /docs\/guide.md:1: # Guide/);
                assert.match((await s({pattern: "no-such-text-anywhere"})).observation, /^No matches for "no-such-text-anywhere"/);
            });
            it("caps results and skips node_modules", async () => {
                const r = await s({pattern: "line", path: "long.txt", max_results: 5});
                assert.match(r.observation, /^5\+ matches/);
                assert.match(r.observation, /\[truncated: showing the first 5/);
                const n = await s({pattern: "needle"});
                assert.doesNotMatch(n.observation, /node_modules/);
                assert.match(n.observation, /docs\/guide.md:2/);
            });
            it("reports an invalid regex and refuses outside paths", async () => {
                const r = await s({pattern: "(unclosed", regex: true});
                assert.equal(r.ok, false);
                assert.match(r.observation, /search failed/);
                assert.equal((await s({pattern: "x", path: "../"})).ok, false);
                const leaked = await s({pattern: "TOP SECRET"});
                assert.deepEqual((leaked.data as {matches: unknown[]}).matches, [], "the symlink out of the workspace is not followed");
            });
        });
    }
});
