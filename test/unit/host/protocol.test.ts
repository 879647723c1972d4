// The panel protocol's guard: only known requests with well-formed data pass; the reason names the problem.

import assert from "node:assert/strict";
import {test} from "node:test";
import {parseRequest, REQUEST_TYPES} from "../../../src/protocol/validate";

test("well-formed requests pass", () => {
    for (const [type, data] of [["panel/ready", {}], ["session/start", {task: "fix it"}], ["tool/approve", {sessionId: "s1", callId: "call_0", decision: "always"}],
        ["session/label", {sessionId: "s1", label: "rejected"}], ["trace/get", {id: "20260101T000000Z-abcdef"}], ["command/run", {command: "selectModel"}]] as const) {
        const r = parseRequest({kind: "request", id: 7, type, data});
        assert.ok(r.ok, `${type}: ${r.ok ? "" : r.error}`);
    }
    assert.ok(REQUEST_TYPES.includes("checkpoint/restore"));
});

test("malformed requests are refused with a reason (and the id, to answer)", () => {
    const bad: [unknown, RegExp][] = [
        [null, /not an object/], [{kind: "notify"}, /kind/], [{kind: "request", type: "session/start", data: {task: "x"}}, /id/],
        [{kind: "request", id: 1, type: "fs/delete", data: {}}, /unknown request/],
        [{kind: "request", id: 1, type: "session/start", data: {task: "   "}}, /empty/],
        [{kind: "request", id: 1, type: "session/start", data: {task: 3}}, /task/],
        [{kind: "request", id: 1, type: "tool/approve", data: {sessionId: "s", callId: "c", decision: "yes"}}, /decision/],
        [{kind: "request", id: 1, type: "trace/get", data: {id: "../../etc/passwd"}}, /id/],
        [{kind: "request", id: 1, type: "command/run", data: {command: "workbench.action.quit"}}, /command/],
        [{kind: "request", id: 1, type: "session/label", data: []}, /object/],
    ];
    for (const [raw, re] of bad) {
        const r = parseRequest(raw);
        assert.equal(r.ok, false, JSON.stringify(raw));
        if (!r.ok) assert.match(r.error, re);
    }
    const r = parseRequest({kind: "request", id: 9, type: "nope"});
    assert.equal(!r.ok && r.id, 9);
});
