// The panel's chat view model (media/chat-state.ts): events fold into keyed items; duplicates and other sessions'
// events are ignored; replay after a reload gives the same state.

import assert from "node:assert/strict";
import {test} from "node:test";
import {applyEvent, emptyChat, OUTCOME_KEY, replay} from "../../../media/chat-state";
import type {SessionEvent} from "../../../src/protocol/session";

const E = (seq: number, body: Record<string, unknown>): SessionEvent => ({sessionId: "s1", seq, ...body}) as SessionEvent;
const events: SessionEvent[] = [
    E(0, {type: "started", task: "fix", model: "m", at: ""}),
    E(1, {type: "token", turn: 0, text: "Hel"}), E(2, {type: "token", turn: 0, text: "lo"}),
    E(3, {type: "tool", call: {callId: "c1", turn: 0, tool: "run_command", title: "run `ls`", argsText: "{}", approval: "none", command: "ls"}}),
    E(4, {type: "approval", callId: "c1", approval: "pending"}),
    E(5, {type: "approval", callId: "c1", approval: "approved"}),
    E(6, {type: "result", result: {callId: "c1", ok: true, output: "a", durationMs: 3, tests: {passed: true}}}),
    E(7, {type: "turn", turn: 0, tokens: {forced: 1, sampled: 2}, durationMs: 5}),
    E(8, {type: "token", turn: 1, text: "Done"}),
    E(9, {type: "finished", status: "finished", tokens: {forced: 1, sampled: 3}, durationMs: 9, traceId: "t"}),
    E(10, {type: "label", label: "accepted"}),
];

test("events fold into task, text, tool card, turn footer and outcome", () => {
    const s = emptyChat();
    const changed = events.map(e => applyEvent(s, e));
    assert.deepEqual(s.items.map(i => i.kind), ["task", "text", "tool", "turn", "text"]);
    const text = s.items[1]!;
    assert.equal(text.kind === "text" && text.text, "Hello");
    const card = s.items[2]!;
    assert.equal(card.kind === "tool" && card.call.approval, "approved");
    assert.equal(card.kind === "tool" && card.result?.output, "a");
    assert.deepEqual(s.tests, {passed: true, by: "agent"});
    assert.equal(s.running, false);
    assert.equal(s.label, "accepted");
    assert.equal(s.outcome?.traceId, "t");
    assert.deepEqual(changed[2], [text.key], "a token re-renders only its text item");
    assert.ok(changed[9]!.includes(OUTCOME_KEY));
});

test("duplicates and other sessions' events change nothing; replay equals live application", () => {
    const s = replay(events);
    assert.deepEqual(applyEvent(s, events[3]!), []);
    assert.deepEqual(applyEvent(s, {...events[8]!, sessionId: "other", seq: 99} as SessionEvent), []);
    assert.deepEqual(JSON.parse(JSON.stringify(replay(events))), JSON.parse(JSON.stringify(s)));
    const again = applyEvent(s, E(0, {type: "started", task: "next", model: "m", at: ""}));
    assert.deepEqual(again, ["task"]);
    assert.equal(s.items.length, 1);
    assert.equal(s.running, true);
});

test("a tool card takes over its turn's streamed text as its 'why' and goes before the turn footer", () => {
    const s = replay([
        E(0, {type: "started", task: "fix", model: "m", at: ""}),
        E(1, {type: "token", turn: 0, text: "Run the tests.\n"}),
        E(2, {type: "turn", turn: 0, tokens: {forced: 1, sampled: 2}, durationMs: 5}),
    ]);
    const textKey = s.items[1]!.key;
    const changed = applyEvent(s, E(3, {type: "tool", call: {callId: "c1", turn: 0, tool: "run_tests", title: "run tests", argsText: "{}", approval: "none", why: "Run the tests."}}));
    assert.deepEqual(s.items.map(i => i.kind), ["task", "tool", "turn"]);
    assert.deepEqual(changed, [textKey, "tool-c1"], "the text item goes away, the card appears");
});
