// run_command, run_tests and finish on real temporary workspaces, through the registry and the real sandbox.

import {after, before, describe, it} from "node:test";
import assert from "node:assert/strict";
import {ApprovalPolicy} from "../../../src/coder/approvals/policy";
import {createSandbox} from "../../../src/coder/sandbox/sandbox";
import {createDefaultTools} from "../../../src/coder/tools/index";
import {detectTestCommand} from "../../../src/coder/tools/test_command";
import {context, workspace, type TempWorkspace} from "./helpers";

const nodeTests = `import {test} from "node:test";
import assert from "node:assert";
test("adds", () => assert.equal(1 + 1, 2));
test("subtracts wrongly", () => assert.equal(1 - 1, 5));
test.skip("later", () => {});
`;

describe("run_command", () => {
    let ws: TempWorkspace;
    let ctx: Awaited<ReturnType<typeof context>>;
    const tools = createDefaultTools({policy: ApprovalPolicy.auto()});
    before(async () => { ws = await workspace({"a.txt": "hi\n", "sub/b.txt": "b\n"}); ctx = await context(ws.dir); });
    after(async () => { await ctx.sandbox.dispose(); await ws.cleanup(); });

    it("runs a shell command and reports exit code, output and the sandbox mode", async () => {
        const streamed: string[] = [];
        const r = await tools.invoke("run_command", {command: "cat a.txt && echo oops >&2; exit 3"}, {...ctx, onOutput: c => streamed.push(c)});
        assert.equal(r.ok, true, "a non-zero exit is still a successful tool call");
        const mode = ctx.sandbox.mode === "strong" ? "strong" : "WEAK \\(no bubblewrap\\)";
        assert.match(r.observation, new RegExp(`^\\$ cat a.txt && echo oops >&2; exit 3\\nexit code 3 · \\d+ ms · sandbox: ${mode}\\nstdout:\\nhi\\nstderr:\\noops$`));
        const d = r.data as {exitCode: number; mode: string};
        assert.equal(d.exitCode, 3);
        assert.equal(d.mode, ctx.sandbox.mode);
        assert.match(streamed.join(""), /hi/);
    });

    it("honours cwd inside the workspace and refuses it outside", async () => {
        const r = await tools.invoke("run_command", {command: "cat b.txt", cwd: "sub"}, ctx);
        assert.match(r.observation, /stdout:\nb/);
        const o = await tools.invoke("run_command", {command: "pwd", cwd: "../.."}, ctx);
        assert.equal(o.ok, false);
        assert.match(o.observation, /could not run: .*climbs out of the workspace/);
    });

    it("kills at timeout_s and says so", async () => {
        const r = await tools.invoke("run_command", {command: "sleep 30", timeout_s: 1}, ctx);
        assert.equal(r.ok, false);
        assert.match(r.observation, /killed \(timeout after 1.0 s\): it ran past its time limit/);
    });

    it("labels the weak sandbox in every observation", async () => {
        const weak = await createSandbox({workspace: ws.dir, mode: "weak"});
        try {
            const r = await tools.invoke("run_command", {command: "true"}, {...ctx, sandbox: weak});
            assert.match(r.observation, /sandbox: WEAK \(no bubblewrap\)/);
            assert.equal((r.data as {mode: string}).mode, "weak");
        } finally {
            await weak.dispose();
        }
    });

    it("strips terminal colours from observations", async () => {
        const r = await tools.invoke("run_command", {command: "printf '\\033[31mred\\033[0m\\n'"}, ctx);
        assert.match(r.observation, /stdout:\nred$/);
    });
});

describe("run_tests", () => {
    let ws: TempWorkspace;
    let ctx: Awaited<ReturnType<typeof context>>;
    before(async () => {
        ws = await workspace({"package.json": JSON.stringify({name: "t", type: "module", scripts: {test: "node --test"}}), "math.test.mjs": nodeTests});
        ctx = await context(ws.dir);
    });
    after(async () => { await ctx.sandbox.dispose(); await ws.cleanup(); });

    it("runs the configured command and parses a pass/fail summary with the failing test", async () => {
        const tools = createDefaultTools({policy: ApprovalPolicy.auto(), testCommand: "node --test"});
        const r = await tools.invoke("run_tests", {}, ctx);
        assert.equal(r.ok, true, r.observation);
        assert.match(r.observation, /^\$ node --test   \[settings; sandbox: (strong|WEAK \(no bubblewrap\))\]\nTests failed \(exit code 1\). 1 passed, 1 failed, 1 skipped \(node:test\)./);
        assert.match(r.observation, /Failing: subtracts wrongly/);
        const d = r.data as {passed: boolean; summary: {passed: number; failed: number; failures: string[]}};
        assert.equal(d.passed, false);
        assert.deepEqual([d.summary.passed, d.summary.failed], [1, 1]);
    });

    it("detects the command from package.json", async () => {
        assert.deepEqual(await detectTestCommand(ws.dir), {command: "npm test", source: "package.json scripts.test (node --test)"});
    });

    it("says plainly when there is no test command", async () => {
        const empty = await workspace({"README.md": "nothing"});
        try {
            const tools = createDefaultTools({policy: ApprovalPolicy.auto()});
            const r = await tools.invoke("run_tests", {}, {...ctx, workspace: empty.dir});
            assert.equal(r.ok, false);
            assert.match(r.observation, /No test command was found/);
        } finally {
            await empty.cleanup();
        }
    });
});

describe("detectTestCommand", () => {
    const cases: [Record<string, string>, string | undefined][] = [
        [{"package.json": JSON.stringify({scripts: {test: "vitest run"}}), "pnpm-lock.yaml": ""}, "pnpm test"],
        [{"package.json": JSON.stringify({scripts: {test: "echo \"Error: no test specified\" && exit 1"}})}, undefined],
        [{"pyproject.toml": "[tool.pytest.ini_options]\n"}, "python3 -m pytest -q"],
        [{"Cargo.toml": "[package]\n"}, "cargo test"],
        [{"go.mod": "module x\n"}, "go test ./..."],
        [{"Makefile": "all:\n\ttrue\ntest:\n\ttrue\n"}, "make test"],
        [{"tests/test_x.py": "import unittest\n"}, "python3 -m unittest discover -v"],
        [{"package.json": "{ not json"}, undefined],
    ];
    for (const [files, expected] of cases) {
        it(`${Object.keys(files).join(" + ")} -> ${expected ?? "none"}`, async () => {
            const ws = await workspace(files);
            try { assert.equal((await detectTestCommand(ws.dir))?.command, expected); } finally { await ws.cleanup(); }
        });
    }
});

describe("finish", () => {
    it("returns the summary as the observation and marks the session finished", async () => {
        const ws = await workspace();
        const ctx = await context(ws.dir);
        try {
            const r = await createDefaultTools().invoke("finish", {summary: "Fixed the bug in add()."}, ctx);
            assert.deepEqual([r.ok, r.finished, r.observation], [true, true, "Fixed the bug in add()."]);
            assert.deepEqual(r.data, {summary: "Fixed the bug in add().", success: true});
        } finally {
            await ctx.sandbox.dispose();
            await ws.cleanup();
        }
    });
});
