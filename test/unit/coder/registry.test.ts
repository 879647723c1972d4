// ToolRegistry.invoke never throws: unknown tools, malformed arguments (wrong types, missing fields, huge strings,
// non-UTF-8, not JSON), refusals and exceptions inside tools all become ok:false observations naming the problem.

import {after, before, describe, it} from "node:test";
import assert from "node:assert/strict";
import {readFile} from "node:fs/promises";
import {existsSync} from "node:fs";
import {join} from "node:path";
import {ApprovalPolicy} from "../../../src/coder/approvals/policy";
import {createDefaultTools, ToolRegistry} from "../../../src/coder/tools/index";
import type {ToolContext} from "../../../src/coder/tools/types";
import {context, workspace, type TempWorkspace} from "./helpers";

describe("ToolRegistry.invoke", () => {
    let ws: TempWorkspace;
    let ctx: Awaited<ReturnType<typeof context>>;
    const tools = createDefaultTools({policy: ApprovalPolicy.auto()});
    before(async () => { ws = await workspace({"a.txt": "hello\nworld\n"}); ctx = await context(ws.dir); });
    after(async () => { await ctx.sandbox.dispose(); await ws.cleanup(); });

    it("lists the eight default tools with closed object schemas and summaries", () => {
        const defs = tools.definitions();
        assert.deepEqual(defs.map(d => d.name), ["read_file", "list_files", "search", "write_file", "edit_file", "run_command", "run_tests", "finish"]);
        for (const d of defs) {
            assert.equal(d.parameters.type, "object");
            assert.equal(d.parameters.additionalProperties, false);
            assert.ok(d.description.length > 20);
        }
        assert.equal(tools.summarize("edit_file", {path: "a.ts", edits: [{search: "a", replace: "b"}]}), "edit a.ts (1 block)");
        assert.match(tools.summarize("edit_file", "{not json"), /^edit_file\(/);
    });

    it("accepts arguments as an object, a JSON string or UTF-8 bytes", async () => {
        for (const raw of [{path: "a.txt"}, JSON.stringify({path: "a.txt"}), new TextEncoder().encode(JSON.stringify({path: "a.txt"}))]) {
            const r = await tools.invoke("read_file", raw, ctx);
            assert.equal(r.ok, true, r.observation);
            assert.match(r.observation, /hello\nworld/);
        }
    });

    const bad: [string, string, unknown, RegExp][] = [
        ["unknown tool", "rm_everything", {}, /Unknown tool "rm_everything". Available tools: read_file, list_files/],
        ["non-string tool name", 42 as unknown as string, {}, /Unknown tool "42"/],
        ["missing field", "read_file", {}, /missing required field "path"/],
        ["wrong type", "read_file", {path: 7}, /"path" must be a string \(got number 7\)/],
        ["wrong nested type", "edit_file", {path: "a.txt", edits: [{search: 1, replace: null}]}, /"edits\[0\].search" must be a string/],
        ["array instead of object", "read_file", ["a.txt"], /arguments must be an object \(got an array\)/],
        ["unknown field", "read_file", {path: "a.txt", encoding: "latin1"}, /unknown field "encoding" \(expected: path, start_line, end_line\)/],
        ["not an integer", "read_file", {path: "a.txt", start_line: 1.5}, /must be an integer/],
        ["below minimum", "read_file", {path: "a.txt", start_line: 0}, /at least 1/],
        ["not JSON", "read_file", "{path: a.txt", /not valid JSON/],
        ["non-UTF-8 bytes", "read_file", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), /not valid UTF-8/],
        ["lone surrogate", "write_file", {path: "s.txt", content: "bad \uD800 text"}, /not valid Unicode/],
        ["huge string", "write_file", {path: "big.txt", content: "x".repeat(2_000_000)}, /2000000 characters long; the limit is 1000000/],
        ["huge path", "read_file", {path: "a/".repeat(5000)}, /limit is 4096/],
        ["empty edits", "edit_file", {path: "a.txt", edits: []}, /needs at least 1 item/],
        ["bad enum-free boolean", "search", {pattern: "x", regex: "yes"}, /must be true or false/],
    ];
    for (const [what, name, args, expect] of bad) {
        it(`refuses ${what} with a clear observation`, async () => {
            const r = await tools.invoke(name, args, ctx);
            assert.equal(r.ok, false);
            assert.match(r.observation, expect);
            assert.ok(r.observation.length < 2000);
        });
    }

    it("coerces what small models commonly send: numeric strings and \"true\"", async () => {
        const r = await tools.invoke("read_file", {path: "a.txt", start_line: "2", end_line: "2"}, ctx);
        assert.equal(r.ok, true);
        assert.match(r.observation, /world/);
        assert.doesNotMatch(r.observation, /hello/);
        const s = await tools.invoke("search", {pattern: "WORLD", case_sensitive: "false"}, ctx);
        assert.match(s.observation, /a.txt:2: world/);
    });

    it("turns a tool's exception into an observation", async () => {
        const reg = new ToolRegistry({policy: ApprovalPolicy.auto()}).register({
            definition: {name: "boom", description: "throws", parameters: {type: "object", properties: {}, additionalProperties: false}, approval: "never", readOnly: true, summarize: () => "boom"},
            run: async () => { throw new TypeError("kaboom"); },
        });
        const r = await reg.invoke("boom", {}, ctx);
        assert.deepEqual([r.ok, r.observation], [false, "boom failed: TypeError: kaboom"]);
    });

    it("bounds every observation", async () => {
        const reg = new ToolRegistry({maxObservationChars: 500}).register({
            definition: {name: "chatty", description: "long", parameters: {type: "object", properties: {}, additionalProperties: false}, approval: "never", readOnly: true, summarize: () => "chatty"},
            run: async () => ({ok: true, observation: "y".repeat(100_000)}),
        });
        const r = await reg.invoke("chatty", {}, ctx);
        assert.ok(r.observation.length <= 600);
        assert.match(r.observation, /truncated/);
    });

    it("refuses a cancelled session before running", async () => {
        const ac = new AbortController();
        ac.abort();
        const r = await tools.invoke("write_file", {path: "x.txt", content: "x"}, {...ctx, signal: ac.signal});
        assert.equal(r.ok, false);
        assert.match(r.observation, /cancelled/);
        assert.ok(!existsSync(join(ws.dir, "x.txt")));
    });
});

describe("approval is enforced by the registry", () => {
    let ws: TempWorkspace;
    let ctx: Awaited<ReturnType<typeof context>>;
    before(async () => { ws = await workspace({"a.txt": "a\n"}); ctx = await context(ws.dir); });
    after(async () => { await ctx.sandbox.dispose(); await ws.cleanup(); });

    it("runs read-only tools, refuses writes when no one can approve", async () => {
        const tools = createDefaultTools();
        assert.equal((await tools.invoke("read_file", {path: "a.txt"}, ctx)).ok, true);
        const w = await tools.invoke("write_file", {path: "b.txt", content: "b"}, ctx);
        assert.equal(w.ok, false);
        assert.match(w.observation, /needs approval and no one is there/);
        assert.ok(!existsSync(join(ws.dir, "b.txt")));
    });

    it("asks the approver with a summary and the reason, and obeys the answer", async () => {
        const tools = createDefaultTools({policy: new ApprovalPolicy({denyCommands: ["curl"]})});
        const asked: string[] = [];
        const yes: ToolContext = {...ctx, approve: async req => { asked.push(`${req.summary} | ${req.reason}`); return true; }};
        const no: ToolContext = {...ctx, approve: async () => false};
        assert.equal((await tools.invoke("write_file", {path: "b.txt", content: "b\n"}, yes)).ok, true);
        assert.equal(await readFile(join(ws.dir, "b.txt"), "utf8"), "b\n");
        assert.deepEqual(asked, ["write b.txt (2 lines) | write_file changes the workspace"]);
        const declined = await tools.invoke("write_file", {path: "c.txt", content: "c"}, no);
        assert.match(declined.observation, /the user declined/);
        const denied = await tools.invoke("run_command", {command: "ls && curl http://example.com"}, yes);
        assert.equal(denied.ok, false);
        assert.match(denied.observation, /refused by the approval policy: "curl http:\/\/example.com" matches the deny rule "curl"/);
        assert.equal(asked.length, 1, "a denied command is not even asked about");
        const ls = await tools.invoke("run_command", {command: "ls | wc -l"}, no);
        assert.equal(ls.ok, true, "read-only commands run without asking");
    });
});
