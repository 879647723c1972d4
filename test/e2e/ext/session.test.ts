// Whole sessions in a temporary workspace: one on the factory GGUF through node-llama-cpp (trace written, label
// stored), one on the scripted stand-in model (approvals, edits, undo kept in the workspace's storage, automatic test
// label, a user test run), and Stop.

import * as assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {tmpdir} from "node:os";   // the run's own folder (the runner gives code-server its own TMPDIR)
import {join} from "node:path";
import {suite, test} from "mocha";
import * as vscode from "vscode";
import {SCRIPTED_PREFIX} from "../../../src/host/runnable-model";
import type {SessionEvent} from "../../../src/protocol/session";
import {validateTrace} from "../../../src/traces/schema";
import {SCENARIO_TASK, writeScenarioScript} from "../fixtures/scenario";
import {api, nextFinish, setSetting, waitUntil, workspaceDir} from "./helpers";

const factoryModel = (): string => {
    const m = process.env.NANO_E2E_MODEL;
    if (!m) throw new Error("NANO_E2E_MODEL is not set (the runner passes the factory model's path)");
    return m;
};

suite("sessions", function () {
    this.timeout(240_000);

    test("a full session on the factory model: tokens stream, the trace is written, the label is stored", async () => {
        const a = await api();
        await setSetting("model", factoryModel());
        let tokens = 0;
        const finished = nextFinish(a, e => { if (e.type === "token") tokens++; });
        const id = await vscode.commands.executeCommand<string>("nanoCoder.runTask", "Say hello.");
        assert.ok(id, "runTask returns the session id");
        const fin = await finished;
        assert.notEqual(fin.status, "error", fin.message);
        assert.ok(fin.traceId, "a trace id");
        assert.ok(fin.tokens.sampled > 0, "the model sampled tokens");
        assert.ok(tokens > 0, "tokens were streamed");
        assert.equal(a.models.status.state, "ready");
        const trace = await a.store().get(fin.traceId!);
        assert.ok(trace, "the trace is in the store");
        assert.deepEqual(validateTrace(trace), []);
        assert.equal(trace.model.file, factoryModel());
        assert.ok(trace.segments.some(s => s.sampled), "sampled segments with log-probs");
        await a.sessions.label(id, "accepted");
        const row = (await a.store().list()).find(s => s.id === fin.traceId);
        assert.deepEqual(row?.labels.map(l => l.name), ["accepted"]);
    });

    test("the model is loaded once and shared by the next session", async () => {
        const a = await api();
        const loads = a.models.loads;
        const finished = nextFinish(a);
        a.sessions.start("Say hello again.");
        const fin = await finished;
        assert.notEqual(fin.status, "error", fin.message);
        assert.equal(a.models.loads, loads, "no second load");
    });

    test("a scripted session: approvals, proposed and applied diffs, undo, the tests label; a user test run labels it too", async () => {
        const a = await api();
        const ws = workspaceDir();
        const script = writeScenarioScript(join(tmpdir(), "scenario.json"), 0);
        await setSetting("model", SCRIPTED_PREFIX + script);
        await waitUntil("the scripted model", () => a.models.configured.source === SCRIPTED_PREFIX + script);
        const events: SessionEvent[] = [];
        const finished = nextFinish(a, e => {
            events.push(e);
            if (e.type === "approval" && e.approval === "pending") void a.sessions.approve(e.sessionId, e.callId, "approve");
        });
        const id = a.sessions.start(SCENARIO_TASK);
        const fin = await finished;
        assert.equal(fin.status, "finished", fin.message);
        const cards = events.flatMap(e => (e.type === "tool" ? [e.call] : []));
        assert.deepEqual(cards.map(c => c.tool), ["run_command", "edit_file", "edit_file", "run_tests", "finish"]);
        assert.equal(events.filter(e => e.type === "approval" && e.approval === "approved").length, 4);
        assert.ok(cards[1]!.changes?.[0]?.patch.includes('+  return "Hello, " + name + "!";'), "proposed diff");
        const results = events.flatMap(e => (e.type === "result" ? [e.result] : []));
        assert.deepEqual(results[3]!.tests, {passed: true});
        assert.match(readFileSync(join(ws, "greet.js"), "utf8"), /name \+ "!"/);

        await a.sessions.label(id, "rejected");
        await waitUntil("the agent's test label", async () =>
            !!(await a.store().list()).find(s => s.id === fin.traceId)?.labels.some(l => l.name === "tests_passed" && l.by === "agent"));

        // the user runs the tests as a Test-group task: recorded on the same trace
        const task = new vscode.Task({type: "shell"}, vscode.TaskScope.Workspace, "e2e tests", "nano-e2e", new vscode.ShellExecution("node --test"));
        task.group = vscode.TaskGroup.Test;
        await vscode.tasks.executeTask(task);
        await waitUntil("the user's test label", async () =>
            !!(await a.store().list()).find(s => s.id === fin.traceId)?.labels.some(l => l.name === "tests_passed" && l.by === "user"), 60_000);

        // undo to before the first edit puts both files back
        const cp = results[1]!.checkpointId!;
        const files = await a.sessions.restore(id, cp);
        assert.deepEqual([...files].sort(), ["greet.js", "greet.test.js"]);
        assert.doesNotMatch(readFileSync(join(ws, "greet.js"), "utf8"), /!/);
        const row = (await a.store().list()).find(s => s.id === fin.traceId)!;
        assert.ok(row.labels.some(l => l.name === "rejected"));
        // the undo points and diff versions live in this workspace's extension storage, where a reload finds them
        assert.ok(await a.checkpoints().has(id), `the session's checkpoint journal is in ${a.checkpoints().root}`);
        assert.match(a.checkpoints().root, /workspaceStorage/);
        assert.equal((await a.sessions.change(cards[1]!.callId, "greet.js"))?.path, "greet.js");
    });

    test("Stop ends a running session as cancelled", async () => {
        const a = await api();
        const script = writeScenarioScript(join(tmpdir(), "scenario-slow.json"), 40);
        await setSetting("model", SCRIPTED_PREFIX + script);
        await waitUntil("the slow model", () => a.models.configured.source === SCRIPTED_PREFIX + script);
        let sawToken!: () => void;
        const tokenSeen = new Promise<void>(r => { sawToken = r; });
        const finished = nextFinish(a, e => { if (e.type === "token") sawToken(); });
        a.sessions.start(SCENARIO_TASK);
        await tokenSeen;
        assert.equal(await vscode.commands.executeCommand("nanoCoder.stop"), true);
        const fin = await finished;
        assert.equal(fin.status, "cancelled");
        await setSetting("model", factoryModel());
    });
});
