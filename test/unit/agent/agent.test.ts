import {test} from "node:test";
import assert from "node:assert/strict";
import {mkdtempSync, readFileSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {Agent, type AgentOptions} from "../../../src/coder/agent/agent";
import type {AgentEvent} from "../../../src/coder/agent/events";
import {ApprovalPolicy} from "../../../src/coder/approvals/policy";
import {createSandbox} from "../../../src/coder/sandbox";
import {pyJson} from "../../../src/llm/chatFormat";
import {GREEDY} from "../../../src/llm/sampler";
import {scriptedModel, type Script} from "../../../src/llm/scripted";
import {validateTrace, windowCount, windowTokens, type Trace} from "../../../src/traces/schema";
import {TraceStore} from "../../../src/traces/store";
import {fakeTools} from "./fakeTools";

const call = (name: string, args: object) => `<tool_call>\n{"name": "${name}", "arguments": ${pyJson(args)}}\n</tool_call>`;

function workspace(files: Record<string, string> = {"add.js": "export const add = (a, b) => a - b;\n"}): string {
    const dir = mkdtempSync(join(tmpdir(), "nano-agent-"));
    for (const [f, c] of Object.entries(files)) writeFileSync(join(dir, f), c);
    return dir;
}

async function setup(script: readonly string[] | Script, o: {files?: Record<string, string>; contextSize?: number; delayMs?: number; policy?: ApprovalPolicy} & Partial<AgentOptions> = {}) {
    const ws = workspace(o.files);
    const model = scriptedModel({script, contextSize: o.contextSize ?? 8192, delayMs: o.delayMs});
    const sandbox = await createSandbox({workspace: ws});
    const store = TraceStore.open(join(ws, ".traces"));
    const agent = new Agent({model, tools: fakeTools(o.policy), toolContext: {workspace: ws, sandbox}, sampling: GREEDY, store,
        limits: {maxTurns: 10, maxTokensPerTurn: 300, ...o.limits}, ...(o.approvals ? {approvals: o.approvals} : {}),
        ...(o.maxObservationTokens ? {maxObservationTokens: o.maxObservationTokens} : {})});
    const events: AgentEvent[] = [];
    agent.onEvent(e => events.push(e));
    return {ws, model, agent, events, store};
}

/** The trace's token-exactness against the live session, and its structural validity. */
function checkTrace(trace: Trace, model: ReturnType<typeof scriptedModel>): void {
    assert.deepEqual(validateTrace(trace), []);
    assert.deepEqual(windowTokens(trace, windowCount(trace) - 1), [...model.tokens.tokens], "trace tokens = context tokens");
    for (const s of trace.segments) {
        assert.equal(model.vocab.detokenize(s.tokens), s.text, "segment text is its tokens' text");
        if (s.kind === "tool_call") assert.equal(s.constrained, true);
    }
}

test("fix after a failing test: run tests, edit (approved), rerun, finish", async () => {
    const script: Script = (turn, ctx) => {
        if (turn === 0) return `Let me run the tests first.${call("run_tests", {})}`;
        if (ctx.endsWith("</tool_response><|im_end|>\n<|im_start|>assistant\n") && ctx.includes("FAIL add(2, 3)") && turn === 1)
            return `The subtraction is wrong.${call("edit_file", {path: "add.js", old: "a - b", new: "a + b"})}`;
        if (turn === 2) return call("run_tests", {});
        return call("finish", {summary: "add() fixed; tests pass"});
    };
    const {ws, model, agent, events, store} = await setup(script);
    agent.onEvent(e => { if (e.type === "approval_needed") agent.resolveApproval(e.id, true); });
    const {trace, outcome} = await agent.run("Make the tests pass.");
    assert.equal(outcome.status, "finished");
    assert.equal(outcome.finalAnswer, "add() fixed; tests pass");
    assert.equal(readFileSync(join(ws, "add.js"), "utf8"), "export const add = (a, b) => a + b;\n");
    assert.deepEqual(trace.toolCalls.map(c => [c.name, c.approval, c.result.ok]),
        [["run_tests", "auto", true], ["edit_file", "approved", true], ["run_tests", "auto", true], ["finish", "auto", true]]);
    assert.match(trace.toolCalls[0]!.result.observation, /exit code 1/);
    assert.deepEqual(events.filter(e => e.type !== "token" && e.type !== "tool_output").map(e => e.type), [
        "turn_start", "turn_end", "tool_call", "tool_result",
        "turn_start", "turn_end", "tool_call", "approval_needed", "approval_resolved", "tool_result",
        "turn_start", "turn_end", "tool_call", "tool_result",
        "turn_start", "turn_end", "tool_call", "tool_result", "finished"]);
    const streamed = events.filter(e => e.type === "token").map(e => (e as {text: string}).text).join("");
    assert.ok(streamed.startsWith("Let me run the tests first.<tool_call>"));
    checkTrace(trace, model);
    const kinds = trace.segments.map(s => `${s.role}/${s.kind}/${s.sampled ? "S" : "F"}`);
    assert.deepEqual(kinds.slice(0, 7), ["template/prompt/F", "system/prompt/F", "template/prompt/F", "user/prompt/F", "template/prompt/F", "assistant/text/S", "assistant/tool_call/S"]);
    assert.ok(kinds.includes("tool/observation/F") && kinds.includes("assistant/end_of_turn/S"));
    assert.equal(outcome.tokens.evaluated, model.tokens.tokens.length - 1, "every context token evaluated once (the last is never fed)");
    assert.equal(outcome.tokens.forced + outcome.tokens.sampled, model.tokens.tokens.length);
    const stored = await store.get(trace.id);
    assert.deepEqual(stored, trace);
});

test("an edit that does not match becomes an observation the model acts on", async () => {
    const {ws, model, agent} = await setup([
        call("edit_file", {path: "add.js", old: "a-b", new: "a+b"}),
        call("read_file", {path: "add.js"}),
        call("edit_file", {path: "add.js", old: "a - b", new: "a + b"}),
        call("finish", {summary: "done"}),
    ], {approvals: "auto"});
    const {trace, outcome} = await agent.run("Fix add.");
    assert.equal(outcome.status, "finished");
    assert.equal(trace.toolCalls[0]!.result.ok, false);
    assert.match(trace.toolCalls[0]!.result.observation, /not found/);
    assert.equal(trace.toolCalls[2]!.result.ok, true);
    assert.match(readFileSync(join(ws, "add.js"), "utf8"), /a \+ b/);
    const obs = trace.segments.filter(s => s.kind === "observation" && s.role === "tool").map(s => s.text);
    assert.match(obs[0]!, /was not found in add\.js/);
    checkTrace(trace, model);
});

test("approval denied: the tool does not run and the model is told", async () => {
    const {ws, agent, events, model} = await setup([
        call("edit_file", {path: "add.js", old: "a - b", new: "a + b"}),
        "I was not allowed to edit; stopping.",
    ]);
    agent.onEvent(e => { if (e.type === "approval_needed") agent.resolveApproval(e.id, false); });
    const {trace, outcome} = await agent.run("Fix add.");
    assert.equal(outcome.status, "finished");
    assert.equal(outcome.finalAnswer, "I was not allowed to edit; stopping.");
    assert.equal(trace.toolCalls[0]!.approval, "denied");
    assert.match(trace.toolCalls[0]!.result.observation, /declined/);
    assert.match(readFileSync(join(ws, "add.js"), "utf8"), /a - b/, "workspace untouched");
    assert.ok(events.some(e => e.type === "approval_resolved" && !e.approved));
    checkTrace(trace, model);
    const deny = await setup([call("edit_file", {path: "add.js", old: "a - b", new: "a + b"}), "ok"], {approvals: "deny"});
    assert.equal((await deny.agent.run("x")).trace.toolCalls[0]!.approval, "denied");
});

test("cancellation mid-command kills the command and leaves a consistent trace", async () => {
    const {agent, events, model, store} = await setup([call("run_command", {command: "echo started; sleep 30"}), "never reached"], {approvals: "auto"});
    const ac = new AbortController();
    agent.onEvent(e => { if (e.type === "tool_output") ac.abort(); });
    const {trace, outcome} = await agent.run("Run something slow.", {signal: ac.signal});
    assert.equal(outcome.status, "cancelled");
    assert.equal(trace.toolCalls.length, 1);
    assert.equal(trace.toolCalls[0]!.result.ok, false);
    assert.ok(events.at(-1)?.type === "finished");
    checkTrace(trace, model);
    assert.equal((await store.list())[0]!.status, "cancelled");
});

test("cancellation mid-generation stops the turn; the partial turn is in the trace", async () => {
    const {agent, model} = await setup(["a reply that is long enough to be interrupted while it is being written"], {delayMs: 2});
    const ac = new AbortController();
    let n = 0;
    agent.onEvent(e => { if (e.type === "token" && ++n === 5) ac.abort(); });
    const {trace, outcome} = await agent.run("Say something.", {signal: ac.signal});
    assert.equal(outcome.status, "cancelled");
    const sampled = trace.segments.filter(s => s.sampled).flatMap(s => s.tokens);
    assert.equal(sampled.length, 5);
    checkTrace(trace, model);
});

test("context overflow: big observations are cut, then old ones elided into a new window", async () => {
    const big = Array.from({length: 400}, (_, i) => `line ${i}: ${"x".repeat(20)}`).join("\n");
    const script: Script = turn => (turn < 4 ? call("read_file", {path: `f${turn}.txt`}) : call("finish", {summary: "read them all"}));
    const files = Object.fromEntries([0, 1, 2, 3].map(i => [`f${i}.txt`, big]));
    const {agent, events, model} = await setup(script, {files, contextSize: 4096, maxObservationTokens: 1200});
    const {trace, outcome} = await agent.run("Read the four files.");
    assert.equal(outcome.status, "finished", outcome.message);
    const compacted = events.filter(e => e.type === "context_compacted");
    assert.ok(compacted.length >= 1, "at least one compaction");
    assert.ok(windowCount(trace) >= 2);
    const obs = trace.segments.filter(s => s.kind === "observation" && s.role === "tool");
    assert.ok(obs.every(s => s.tokens.length <= 1200), "observations capped");
    assert.match(obs[0]!.text, /characters cut to fit the context/);
    assert.ok(trace.segments.some(s => s.kind === "compacted" && /elided to fit the context/.test(s.text)));
    checkTrace(trace, model);
    // Each window starts with the full prompt: the compacted history is a complete conversation.
    for (let w = 0; w < windowCount(trace); w++) assert.ok(model.vocab.detokenize(windowTokens(trace, w)).startsWith("<|im_start|>system\n"));
});

test("a prompt that cannot fit ends with context_overflow, not a crash", async () => {
    const {agent} = await setup(["hi"], {contextSize: 600});
    const {outcome, trace} = await agent.run("x".repeat(1000));
    assert.equal(outcome.status, "context_overflow");
    assert.deepEqual(validateTrace(trace), []);
});

test("limits: max turns, per-run tokens and wall time", async () => {
    const loop: Script = () => call("read_file", {path: "add.js"});
    const a = await setup(loop, {limits: {maxTurns: 3}});
    assert.equal((await a.agent.run("loop")).outcome.status, "max_turns");
    const b = await setup(loop, {limits: {maxTokens: 100}});
    const rb = await b.agent.run("loop");
    assert.equal(rb.outcome.status, "max_tokens");
    assert.ok(rb.outcome.tokens.sampled <= 100);
    const c = await setup(["a very long answer ".repeat(20)], {delayMs: 5, limits: {wallTimeMs: 100}});
    assert.equal((await c.agent.run("slow")).outcome.status, "timeout");
});

test("a malformed call in the script still yields a grammar-valid call", async () => {
    const {agent, model} = await setup(['<tool_call>\n{"name": "read_file", "arguments": {"file": "add.js"}}\n</tool_call>', call("finish", {summary: "ok"})], {approvals: "auto"});
    const {trace} = await agent.run("Read.");
    assert.equal(trace.toolCalls[0]!.name, "read_file");
    assert.deepEqual(Object.keys(trace.toolCalls[0]!.args as object), ["path"]);
    checkTrace(trace, model);
});
