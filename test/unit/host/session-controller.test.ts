// SessionController with a scripted fake engine: event numbering and replay, approvals (approve / deny / always),
// stop, reset, labels on the trace, user test runs, checkpoint restore.

import assert from "node:assert/strict";
import {test} from "node:test";
import type {AgentEngine, EngineEvent, EngineOutcome, EngineSessionOptions} from "../../../src/host/engine";
import {SessionController} from "../../../src/host/session-controller";
import type {SessionEvent} from "../../../src/protocol/session";

type Step = (o: EngineSessionOptions) => Promise<void> | void;

function fakeEngine(steps: Step[], outcome: Partial<EngineOutcome> = {}) {
    const restored: string[] = [];
    const started: string[] = [];
    const engine: AgentEngine = {
        modelName: () => "fake.gguf",
        start: o => {
            started.push(o.sessionId);
            return {done: (async () => {
                for (const s of steps) { if (o.signal.aborted) break; await s(o); }
                return {status: o.signal.aborted ? "cancelled" : "finished", tokens: {forced: 10, sampled: 5}, durationMs: 3, traceId: "t1", ...outcome};
            })()};
        },
        // what an engine keeps of its sessions (on disk, in the real one): undo points and file versions
        restore: async (sessionId, id) => { restored.push(`${sessionId}/${id}`); return ["a.txt"]; },
        change: async (sessionId, callId, path) => (callId === "kept" ? {path, before: `${sessionId} before`, after: "after"} : undefined),
    };
    return {engine, restored, started};
}

function setup(steps: Step[], outcome?: Partial<EngineOutcome>) {
    const labels: [string, string, string][] = [];
    const allowed: string[] = [];
    const {engine, restored, started} = fakeEngine(steps, outcome);
    const c = new SessionController({engine, labels: {label: async (id, name, o) => { labels.push([id, name, o.by]); }},
        allowCommand: async cmd => { allowed.push(cmd); }});
    const events: SessionEvent[] = [];
    c.onEvent(e => events.push(e));
    const finished = () => new Promise<void>(r => c.onEvent(e => { if (e.type === "finished") r(); }));
    return {c, events, labels, allowed, restored, started, finished};
}

const ev = (e: EngineEvent): Step => o => o.onEvent(e);
const call = (callId: string, command?: string): EngineEvent => ({type: "tool_call", callId, turn: 0, tool: command ? "run_command" : "edit_file",
    argsText: "{}", summary: command ? `run ${command}` : "edit a.txt", ...(command ? {command} : {}),
    ...(command ? {} : {changes: [{path: "a.txt", before: "x\n", after: "y\n"}]})});

test("events are numbered from 0 and carry the session id; tokens, tool cards, results and the end arrive in order", async () => {
    const s = setup([ev({type: "token", turn: 0, text: "hi"}), ev(call("c1")),
        ev({type: "tool_result", callId: "c1", ok: true, observation: "done", durationMs: 1, approval: "auto", changes: [{path: "a.txt", before: "x\n", after: "y\n"}], checkpointId: "cp1"}),
        ev({type: "turn_end", turn: 0, tokens: {forced: 10, sampled: 5}, durationMs: 2})]);
    const done = s.finished();
    const id = s.c.start("task");
    await done;
    assert.deepEqual(s.events.map(e => e.type), ["started", "token", "tool", "approval", "result", "turn", "finished"]);
    assert.deepEqual(s.events.map(e => e.seq), [0, 1, 2, 3, 4, 5, 6]);
    assert.ok(s.events.every(e => e.sessionId === id));
    const tool = s.events[2] as Extract<SessionEvent, {type: "tool"}>;
    assert.equal(tool.call.changes?.[0]?.added, 1);
    assert.match(tool.call.changes?.[0]?.patch ?? "", /-x\n\+y/);
    assert.equal((s.events[3] as Extract<SessionEvent, {type: "approval"}>).approval, "auto");
    assert.deepEqual(await s.c.change("c1", "a.txt"), {path: "a.txt", before: "x\n", after: "y\n"});
    assert.deepEqual(s.started, [id], "the engine knows the session by the panel's id");
    assert.deepEqual(s.c.history, s.events, "the replay log is what was sent");
    assert.equal(s.c.traceId, "t1");
});

test("approvals: the engine waits until the user answers; 'always' adds the command to the allow list", async () => {
    const answers: boolean[] = [];
    const s = setup([ev(call("c1", "npm test")), async o => { answers.push(await o.approve({callId: "c1", tool: "run_command", summary: "", reason: "ask"})); },
        ev(call("c2", "rm x")), async o => { answers.push(await o.approve({callId: "c2", tool: "run_command", summary: "", reason: "ask"})); }]);
    const done = s.finished();
    const id = s.c.start("task");
    const pending = async (callId: string) => { while (!s.events.some(e => e.type === "approval" && e.callId === callId && e.approval === "pending")) await new Promise(r => setTimeout(r, 1)); };
    await pending("c1");
    await assert.rejects(s.c.approve(id, "nope", "approve"), /no longer waiting/);
    await s.c.approve(id, "c1", "always");
    await pending("c2");
    await s.c.approve(id, "c2", "deny");
    await done;
    assert.deepEqual(answers, [true, false]);
    assert.deepEqual(s.allowed, ["npm test"]);
    const states = s.events.filter(e => e.type === "approval").map(e => e.type === "approval" && `${e.callId}:${e.approval}`);
    assert.deepEqual(states, ["c1:pending", "c1:approved", "c2:pending", "c2:denied"]);
});

test("stop denies a pending approval and ends the session as cancelled; a second start while running is refused", async () => {
    let answer: boolean | undefined;
    const s = setup([ev(call("c1", "make")), async o => { answer = await o.approve({callId: "c1", tool: "run_command", summary: "", reason: "ask"}); }]);
    const done = s.finished();
    s.c.start("task");
    assert.throws(() => s.c.start("again"), /already running/);
    while (!s.events.some(e => e.type === "approval")) await new Promise(r => setTimeout(r, 1));
    s.c.stop();
    await done;
    assert.equal(answer, false);
    const fin = s.events.at(-1)!;
    assert.equal(fin.type === "finished" && fin.status, "cancelled");
    assert.equal(s.c.isRunning, false);
});

test("labels go to the session's trace; tests the agent ran are labelled automatically, user runs too", async () => {
    const s = setup([ev(call("c1", "npm test")), ev({type: "tool_result", callId: "c1", ok: true, observation: "ok", durationMs: 1, approval: "auto", tests: {passed: true}})]);
    const done = s.finished();
    const id = s.c.start("task");
    await done;
    await new Promise(r => setTimeout(r, 5));
    await s.c.label(id, "accepted");
    await s.c.label(id, "rejected");
    await s.c.recordUserTests(false, "npm test");
    assert.deepEqual(s.labels, [["t1", "tests_passed", "agent"], ["t1", "accepted", "user"], ["t1", "rejected", "user"], ["t1", "tests_failed", "user"]]);
    assert.deepEqual(s.events.filter(e => e.type === "label").map(e => e.type === "label" && e.label), ["accepted", "rejected"]);
    await assert.rejects(s.c.label("other", "accepted"), /no stored trace/);
});

test("restore asks the engine and reports the files; reset clears the replay log", async () => {
    const s = setup([]);
    const done = s.finished();
    const id = s.c.start("task");
    await done;
    assert.deepEqual(await s.c.restore(id, "cp1"), ["a.txt"]);
    assert.deepEqual(s.restored, [`${id}/cp1`]);
    await assert.rejects(s.c.restore("another", "cp1"), /no longer the panel's session/);
    let resets = 0;
    s.c.onReset(() => resets++);
    s.c.reset();
    assert.equal(resets, 1);
    assert.equal(s.c.history.length, 0);
});

test("an engine that throws ends the session with status error and its message", async () => {
    const s = setup([() => { throw new Error("model exploded"); }]);
    const done = s.finished();
    s.c.start("task");
    await done;
    const fin = s.events.at(-1)!;
    assert.equal(fin.type === "finished" && fin.status, "error");
    assert.equal(fin.type === "finished" && fin.message, "model exploded");
});

test("snapshot merges streamed tokens; load shows a saved session again, closing one that was cut off", async () => {
    const s = setup([ev({type: "token", turn: 0, text: "a"}), ev({type: "token", turn: 0, text: "b"}), ev({type: "token", turn: 1, text: "c"})]);
    const done = s.finished();
    const id = s.c.start("task");
    await done;
    const snap = s.c.snapshot();
    assert.deepEqual(snap.map(e => e.type), ["started", "token", "token", "finished"]);
    assert.deepEqual(snap.map(e => e.seq), [0, 1, 2, 3]);
    assert.equal(snap[1]!.type === "token" && snap[1]!.text, "ab");

    const reloaded = setup([]);
    reloaded.c.load(snap);
    assert.equal(reloaded.c.currentId, id);
    assert.equal(reloaded.c.traceId, "t1");
    await reloaded.c.label(id, "accepted");
    assert.deepEqual(reloaded.labels, [["t1", "accepted", "user"]]);

    // after the reload, undo and diffs go to what the engine kept of the session (it never ran in this controller)
    assert.deepEqual(await reloaded.c.restore(id, "cp9"), ["a.txt"]);
    assert.deepEqual(reloaded.restored, [`${id}/cp9`]);
    assert.equal(reloaded.c.history.at(-1)!.type, "restored");
    assert.deepEqual(await reloaded.c.change("kept", "a.txt"), {path: "a.txt", before: `${id} before`, after: "after"});
    assert.equal(await reloaded.c.change("unknown", "a.txt"), undefined);

    const cut = setup([]);
    cut.c.load(snap.slice(0, 2));
    const last = cut.c.history.at(-1)!;
    assert.equal(last.type === "finished" && last.status, "cancelled");
    await assert.rejects(cut.c.label(id, "accepted"), /no stored trace/);
});
