// End to end with a factory model (random weights): the agent loop in a real temporary workspace with the default
// tools in the sandbox. Grammar-valid calls every turn, the trace stored, token-exact, with correct masks, and
// re-scoring the recorded windows by teacher forcing reproduces the recorded sampling log-probs.

import {test, after} from "node:test";
import assert from "node:assert/strict";
import {mkdtempSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {Agent} from "../../src/coder/agent/agent";
import type {AgentEvent} from "../../src/coder/agent/events";
import {ApprovalPolicy} from "../../src/coder/approvals/policy";
import {createSandbox} from "../../src/coder/sandbox";
import {createDefaultTools} from "../../src/coder/tools";
import {LlmHost} from "../../src/llm/host";
import {MatchState} from "../../src/llm/grammar/matcher";
import {toolCallGrammar} from "../../src/llm/grammar/toolCall";
import {validateTrace, windowCount, windowTokens} from "../../src/traces/schema";
import {TraceStore} from "../../src/traces/store";
import {testModel} from "../helpers/models";

let hostP: Promise<LlmHost> | undefined;
after(async () => { if (hostP) await (await hostP).dispose(); });

test("factory model, real workspace and sandbox: grammar-valid calls, token-exact trace, re-scoring identity", async () => {
    const host = await (hostP ??= LlmHost.create({gpu: false, cacheDir: mkdtempSync(join(tmpdir(), "nano-cache-"))}));
    const loaded = await host.loadModel(testModel({arch: "qwen2", type: "f32", contextLength: 16384}));
    const ws = mkdtempSync(join(tmpdir(), "nano-e2e-"));
    writeFileSync(join(ws, "add.js"), "export const add = (a, b) => a - b;\n");
    const sandbox = await createSandbox({workspace: ws});
    const tools = createDefaultTools({policy: ApprovalPolicy.auto(), commandTimeoutS: 5});
    const store = TraceStore.open(join(ws, ".nano-traces"));
    const session = await loaded.createSession({contextSize: 8192, threads: 1, exact: true});
    const agent = new Agent({
        model: session, tools, toolContext: {workspace: sandbox.workspace, sandbox}, store, toolChoice: "required",
        sampling: {temperature: 1, topK: 0, topP: 1, minP: 0, seed: 42},
        limits: {maxTurns: 4, maxTokensPerTurn: 96, wallTimeMs: 120_000},
    });
    const events: AgentEvent[] = [];
    agent.onEvent(e => events.push(e));
    const {trace, outcome} = await agent.run("Fix add() so that the tests pass.");

    assert.ok(["max_turns", "finished"].includes(outcome.status), `${outcome.status}: ${outcome.message ?? ""}`);
    assert.deepEqual(validateTrace(trace), []);
    assert.ok(trace.toolCalls.length >= 1);
    // Grammar-valid every time: each call's text matches the tool-call grammar and names a real tool.
    const grammar = toolCallGrammar(trace.tools as never, session.format.syntax);
    const callTexts = new Map<number, string>();
    for (const s of trace.segments) if (s.kind === "tool_call" || (s.kind === "close" && callTexts.has(s.turn))) callTexts.set(s.turn, (callTexts.get(s.turn) ?? "") + s.text.replace(/<\|im_end\|>$/, ""));
    for (const [turn, text] of callTexts) assert.ok(MatchState.start(grammar).feed(text)?.accepting, `turn ${turn}: ${text}`);
    const names = new Set(tools.definitions().map(d => d.name));
    for (const c of trace.toolCalls) {
        assert.ok(names.has(c.name), c.name);
        assert.deepEqual(JSON.parse(c.argsText), c.args);
        assert.notEqual((c.result as {refused?: string}).refused, "unknown-tool");
    }
    // Tools ran (in the sandbox) and their observations went back to the model.
    assert.equal(events.filter(e => e.type === "tool_result").length, trace.toolCalls.length);
    // Token-exact: the trace's last window is exactly the context; masks: sampled = assistant tokens with log-probs.
    assert.deepEqual(windowTokens(trace, windowCount(trace) - 1), [...session.tokens.tokens]);
    for (const s of trace.segments) {
        if (s.sampled) { assert.equal(s.role, "assistant"); assert.equal(s.logprobs!.length, s.tokens.length); }
        else assert.equal(s.logprobs, undefined);
        assert.equal(loaded.vocab.detokenize(s.tokens), s.text);
    }
    // KV cache reused: every context token evaluated exactly once, except the turn's trailing tokens never fed back.
    assert.equal(outcome.tokens.evaluated + session.tokens.pending, session.tokens.tokens.length);
    assert.ok(session.tokens.pending >= 1 && session.tokens.pending < 20);
    // Stored, and identical when read back.
    assert.deepEqual(await store.get(trace.id), trace);
    // Re-scoring identity: teacher forcing each window reproduces the recorded sampling log-probs.
    let maxDiff = 0, n = 0;
    for (let w = 0; w < windowCount(trace); w++) {
        const tokens = windowTokens(trace, w);
        const scores = await loaded.score(tokens, {threads: 1, exact: true});
        let at = 0;
        for (const s of trace.segments.filter(x => x.window === w)) {
            if (s.sampled) s.logprobs!.forEach((lp, i) => { maxDiff = Math.max(maxDiff, Math.abs(scores[at + i]! - lp)); n++; });
            at += s.tokens.length;
        }
    }
    assert.ok(n > 20, `scored ${n} sampled tokens`);
    assert.ok(maxDiff < 1e-4, `max |recorded − rescored| = ${maxDiff}`);
    await session.dispose();
    await sandbox.dispose?.();
});
