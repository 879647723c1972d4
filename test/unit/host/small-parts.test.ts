// Small host pieces: trigger hold-back in streamed text, test-command matching, the panel's CSP, trace projection.

import assert from "node:assert/strict";
import {test} from "node:test";
import {panelHtml} from "../../../src/host/panel-html";
import {runsTestCommand} from "../../../src/host/test-command-match";
import {traceView} from "../../../src/host/trace-views";
import {TriggerHoldback} from "../../../src/host/trigger-holdback";
import {summarize, type Trace} from "../../../src/traces/schema";

test("the tool-call trigger never reaches the streamed text; look-alikes do", () => {
    const h = new TriggerHoldback("<tool_call>");
    const shown = ["Let me look", ".\n<", "tool", "_c"].map(d => h.push(d)).join("");
    assert.equal(shown, "Let me look.\n");
    h.drop();
    assert.equal(h.push("a <b> c"), "a <b> c");
    assert.equal(h.push(" x <to"), " x ");
    assert.equal(h.flush(), "<to");
});

test("user commands that run the tests", () => {
    assert.ok(runsTestCommand("npm test", "npm test"));
    assert.ok(runsTestCommand("npm t -- --grep x", "npm test"));
    assert.ok(runsTestCommand("pytest -q tests/", "pytest"));
    assert.ok(!runsTestCommand("npm run build", "npm test"));
    assert.ok(!runsTestCommand("echo pytest", "pytest"));
    assert.ok(!runsTestCommand("anything", ""));
});

test("the panel HTML: nonce'd script only, no inline handlers, resources from the webview origin", () => {
    const html = panelHtml({cspSource: "vscode-resource:", scriptUri: "vscode-resource:/dist/webview.js", styleUri: "vscode-resource:/media/panel.css", nonce: "abc123"});
    assert.match(html, /Content-Security-Policy" content="default-src &#39;none&#39;; style-src vscode-resource:; script-src &#39;nonce-abc123&#39;/);
    assert.equal(html.match(/<script /g)?.length, 1);
    assert.match(html, /<script nonce="abc123" src="vscode-resource:\/dist\/webview.js">/);
    assert.doesNotMatch(html, /\son[a-z]+=/i, "no inline event handlers");
    for (const id of ["task-input", "send", "stop", "log", "model"]) assert.match(html, new RegExp(`data-testid="${id}"`));
});

test("trace projection: turns with sampled text, forced/sampled counts, tools and labels", () => {
    const t: Trace = {version: 1, id: "t1", createdAt: "2026-01-01T00:00:00.000Z", task: "do it",
        model: {file: "/m/a.gguf", sha256: "ab", sizeBytes: 1, chatFormat: "chatml", contextSize: 512}, adapter: null,
        sampling: {temperature: 0, topK: 0, topP: 1, minP: 0, seed: 1}, limits: {maxTurns: 3, maxTokens: 10, maxTokensPerTurn: 5, wallTimeMs: 1},
        workspace: {path: "/w", snapshot: null}, tools: [],
        segments: [{window: 0, turn: 0, role: "system", kind: "prompt", text: "p", tokens: [1, 2, 3], sampled: false},
            {window: 0, turn: 0, role: "assistant", kind: "text", text: "hello", tokens: [4, 5], sampled: true, logprobs: [-0.1, -0.2]},
            {window: 0, turn: 0, role: "assistant", kind: "end_of_turn", text: "<e>", tokens: [6], sampled: true, logprobs: [-0.1]}],
        toolCalls: [{turn: 0, name: "read_file", args: {}, argsText: "{}", approval: "auto", result: {ok: true, observation: "x"}, startedAt: "", durationMs: 4}],
        outcome: {status: "finished", finalAnswer: "done", turns: 1, tokens: {forced: 3, sampled: 3, evaluated: 6}, durationMs: 10},
        labels: [{name: "accepted", at: "2026-01-01T00:00:01.000Z", by: "user"}]};
    const v = traceView(t, summarize(t));
    assert.equal(v.summary.model, "a.gguf");
    assert.deepEqual(v.summary.labels, ["accepted"]);
    assert.deepEqual(v.turns, [{turn: 0, text: "hello", tokens: {forced: 3, sampled: 3}, tools: [{name: "read_file", argsText: "{}", approval: "auto", ok: true, observation: "x", durationMs: 4}]}]);
    assert.equal(v.sampling, "greedy, seed 1");
    assert.equal(v.finalAnswer, "done");
});
