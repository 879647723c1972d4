// The real agent behind the panel, on the scripted stand-in model and the e2e fixture workspace: streamed text without
// the tool-call trigger, approval cards, proposed and applied diffs, undo to a checkpoint, the test label, the trace;
// and, with the on-disk checkpoint store, diffs and undo from a fresh adapter and controller (a window reload).

import assert from "node:assert/strict";
import {cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {test} from "node:test";
import {CheckpointStore} from "../../../src/coder/checkpoint-store";
import {AgentAdapter} from "../../../src/host/agent-adapter";
import {ModelManager} from "../../../src/host/model-manager";
import {ModelLoader, SCRIPTED_PREFIX} from "../../../src/host/runnable-model";
import {SessionController} from "../../../src/host/session-controller";
import {DEFAULT_SETTINGS, type Settings} from "../../../src/host/settings";
import type {SessionEvent} from "../../../src/protocol/session";
import {validateTrace} from "../../../src/traces/schema";
import {TraceStore} from "../../../src/traces/store";
import {SCENARIO_TASK, writeScenarioScript} from "../../e2e/fixtures/scenario";

function scenario(t: {after(fn: () => unknown): void}) {
    const root = mkdtempSync(join(tmpdir(), "nano-adapter-"));
    t.after(() => rmSync(root, {recursive: true, force: true}));
    const ws = join(root, "ws");
    cpSync(new URL("../../e2e/fixtures/workspace", import.meta.url), ws, {recursive: true});
    const model = SCRIPTED_PREFIX + writeScenarioScript(join(root, "script.json"), 0);
    const settings: Settings = {...DEFAULT_SETTINGS, model, gpu: "off", threads: 1, contextSize: 16384, maxTurns: 8};
    const loader = new ModelLoader(join(root, "cache"));
    const models = new ModelManager(loader.load, {source: model, gpu: "off", threads: 1, contextSize: 16384});
    t.after(async () => { await models.dispose(); await loader.dispose(); });
    const store = TraceStore.open(join(root, "traces"));
    const checkpoints = CheckpointStore.open(join(root, "checkpoints"));
    /** The host's parts; called again, what a window reload builds (same folders, fresh objects). */
    const host = (withStore: boolean) => {
        const engine = new AgentAdapter({models, settings: () => settings, workspace: () => ws, store: () => store, log: () => {},
            ...(withStore ? {checkpoints: () => checkpoints} : {})});
        return new SessionController({engine, labels: store, allowCommand: async c => { settings.allowCommands = [...settings.allowCommands, c]; }});
    };
    return {root, ws, settings, models, store, checkpoints, host};
}

test("a scripted session through the real agent, tools and sandbox", async t => {
    const {ws, settings, models, store, host} = scenario(t);
    const sessions = host(false);
    const events: SessionEvent[] = [];
    sessions.onEvent(e => {
        events.push(e);
        // "always" for the first command, plain approval for the rest
        if (e.type === "approval" && e.approval === "pending") void sessions.approve(e.sessionId, e.callId, e.callId === "call_0" ? "always" : "approve");
    });
    const finished = new Promise<void>(r => sessions.onEvent(e => { if (e.type === "finished") r(); }));
    const id = sessions.start(SCENARIO_TASK);
    await finished;

    const text = events.filter(e => e.type === "token").map(e => e.type === "token" ? e.text : "").join("");
    assert.match(text, /^Let me run the tests first/);
    assert.doesNotMatch(text, /<tool_call|tool_call>/, "the trigger is not shown as text");
    const tools = events.flatMap(e => (e.type === "tool" ? [e.call] : []));
    assert.deepEqual(tools.map(c => c.tool), ["run_command", "edit_file", "edit_file", "run_tests", "finish"]);
    assert.equal(tools[0]!.command, "node --test");
    assert.equal(tools[1]!.why, "The tests pass. Now I will add the exclamation mark to the greeting.");
    assert.match(tools[1]!.changes?.[0]?.patch ?? "", /\+ {2}return "Hello, " \+ name \+ "!";/, "proposed diff before approval");
    assert.deepEqual(settings.allowCommands, ["node --test"]);
    const results = events.flatMap(e => (e.type === "result" ? [e.result] : []));
    assert.ok(results.every(r => r.ok), JSON.stringify(results.filter(r => !r.ok)));
    assert.equal(results[1]!.changes?.[0]?.path, "greet.js");
    assert.ok(results[1]!.checkpointId);
    assert.deepEqual(results[3]!.tests, {passed: true});
    const fin = events.at(-1)!;
    assert.equal(fin.type === "finished" && fin.status, "finished");
    assert.match(readFileSync(join(ws, "greet.js"), "utf8"), /name \+ "!"/);

    const trace = await store.get(sessions.traceId!);
    assert.ok(trace);
    assert.deepEqual(validateTrace(trace), []);
    assert.equal(trace.toolCalls.length, 5);
    await sessions.label(id, "accepted");
    const [row] = await store.list();
    assert.deepEqual(row!.labels.map(l => l.name).sort(), ["accepted", "tests_passed"]);

    assert.deepEqual((await sessions.restore(id, results[1]!.checkpointId!)).sort(), ["greet.js", "greet.test.js"]);
    assert.doesNotMatch(readFileSync(join(ws, "greet.js"), "utf8"), /!/);
    assert.equal(models.loads, 1);
});

test("after a reload, Open diff and undo work from the on-disk checkpoint store, and spare the user's files", async t => {
    const {ws, store, checkpoints, host} = scenario(t);
    const sessions = host(true);
    const events: SessionEvent[] = [];
    sessions.onEvent(e => {
        events.push(e);
        if (e.type === "approval" && e.approval === "pending") void sessions.approve(e.sessionId, e.callId, "approve");
    });
    const finished = new Promise<void>(r => sessions.onEvent(e => { if (e.type === "finished") r(); }));
    const id = sessions.start(SCENARIO_TASK);
    await finished;
    const results = events.flatMap(e => (e.type === "result" ? [e.result] : []));
    const firstEdit = results[1]!;
    assert.ok(await checkpoints.has(id), "the session's journal is on disk");
    const saved = sessions.snapshot();
    sessions.dispose();

    const reloaded = host(true);   // nothing in memory: only the saved events and the folders on disk
    reloaded.load(saved);
    assert.deepEqual(await reloaded.change(firstEdit.callId, "greet.js"), {path: "greet.js",
        before: readFileSync(new URL("../../e2e/fixtures/workspace/greet.js", import.meta.url), "utf8"), after: readFileSync(join(ws, "greet.js"), "utf8")});
    writeFileSync(join(ws, "notes.txt"), "the user's own file\n");
    writeFileSync(join(ws, "greet.test.js"), "// the user rewrote the test after the agent\n");
    const files = await reloaded.restore(id, firstEdit.checkpointId!);
    assert.deepEqual(files, ["greet.js"], "greet.test.js was changed by the user since: left alone");
    assert.doesNotMatch(readFileSync(join(ws, "greet.js"), "utf8"), /!/);
    assert.equal(readFileSync(join(ws, "greet.test.js"), "utf8"), "// the user rewrote the test after the agent\n");
    assert.equal(readFileSync(join(ws, "notes.txt"), "utf8"), "the user's own file\n");
    assert.equal(reloaded.history.at(-1)!.type, "restored");
    await assert.rejects(reloaded.restore(id, firstEdit.checkpointId!), /no checkpoint/, "an undone checkpoint is gone, also on disk");
    assert.ok((await store.list()).length === 1);

    // without a store (memory only), a reload loses them, and says so
    const memoryOnly = host(false);
    memoryOnly.load(saved);
    await assert.rejects(memoryOnly.restore(id, firstEdit.checkpointId!), /were not kept/);
    assert.equal(await memoryOnly.change(firstEdit.callId, "greet.js"), undefined);
});
