// Agent-loop benchmarks on factory models, CPU, one thread: decode speed of the token-exact loop (JS sampling,
// raw log-probs, grammar) against node-llama-cpp's own generation on the same model and context, and KV-cache reuse
// over a 10-turn agent session (tokens evaluated vs tokens in the final context).

import {mkdtempSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import type {Token} from "node-llama-cpp";
import {Agent, type AgentTools} from "../../src/coder/agent/agent";
import {chatmlHermes, continuation} from "../../src/llm/chatFormat";
import {HERMES_SYNTAX, toolCallGrammar, type ToolSpec} from "../../src/llm/grammar/toolCall";
import {LlmHost, type LoadedModel} from "../../src/llm/host";
import {GREEDY, Rng} from "../../src/llm/sampler";
import type {SamplingSettings} from "../../src/traces/schema";
import {testModel} from "../../test/helpers/models";
import {median, type Bench, type BenchRow} from "./types";

const N = 96;
const tools: ToolSpec[] = [
    {name: "note", description: "Write a note", parameters: {type: "object", properties: {text: {type: "string", maxLength: 40}}, required: ["text"]}},
    {name: "finish", description: "Finish", parameters: {type: "object", properties: {summary: {type: "string"}}, required: ["summary"]}},
];

/** Per-token decode time of node-llama-cpp's own generator vs the agent loop, alternated, at the same settings. */
async function decodeRatio(m: LoadedModel, label: string, log: (s: string) => void): Promise<BenchRow[]> {
    const v = m.vocab;
    const prompt = continuation(chatmlHermes, [], [{role: "system", content: "You are a coder."}, {role: "user", content: "Write a function."}], [])
        .flatMap(p => v.tokenize(p.text, p.special));
    const {context} = await m.createContext({contextSize: 2048, threads: 1});
    const seq = context.getSequence();
    const session = await m.createSession({contextSize: 2048, threads: 1});
    const settings: [string, SamplingSettings][] = [["greedy", GREEDY], ["T 0.7, top-k 20, top-p 0.8", {temperature: 0.7, topK: 20, topP: 0.8, minP: 0, seed: 11}]];
    const rows: BenchRow[] = [];
    for (const [name, sampling] of settings) {
        // Both sides decode N tokens after the same prompt; the prompt is evaluated outside the timing.
        const raw = async () => {
            await seq.clearHistory();
            await seq.evaluateWithoutGeneratingNewTokens(prompt.slice(0, -1) as Token[]);
            const t0 = performance.now();
            let n = 0;
            const o = sampling.temperature > 0 ? {temperature: sampling.temperature, topK: sampling.topK, topP: sampling.topP, seed: sampling.seed} : {temperature: 0};
            for await (const _ of seq.evaluate(prompt.slice(-1) as Token[], {...o, yieldEogToken: true})) if (++n >= N) break;
            return (performance.now() - t0) / n;
        };
        const loop = async (grammar: boolean) => {
            await session.tokens.newWindow();
            session.tokens.append(prompt.slice(0, -1));
            await session.tokens.flush();
            session.tokens.append(prompt.slice(-1));
            const rng = new Rng(1);
            const t0 = performance.now();
            // Turns that end early are followed by more turns (their end-of-turn token fed back), up to N tokens,
            // like the raw generator that keeps going past end-of-generation tokens.
            let n = 0;
            while (n < N) {
                const r = await session.tokens.generate({sampling, rng, maxTokens: N - n,
                    ...(grammar ? {tools: {grammar: toolCallGrammar(tools, HERMES_SYNTAX), syntax: HERMES_SYNTAX, choice: "required" as const}} : {})});
                n += r.sampled.length;
            }
            return (performance.now() - t0) / n;
        };
        const rawMs: number[] = [], loopMs: number[] = [], gramMs: number[] = [];
        for (let i = 0; i < 9; i++) { rawMs.push(await raw()); loopMs.push(await loop(false)); gramMs.push(await loop(true)); }
        const rawTps = 1000 / median(rawMs), loopTps = 1000 / median(loopMs), gramTps = 1000 / median(gramMs);
        log(`${label}, ${name}: ${median(rawMs).toFixed(3)} / ${median(loopMs).toFixed(3)} / ${median(gramMs).toFixed(3)} ms per token (raw / loop / loop in a tool call)`);
        rows.push(
            {metric: `${label}, ${name}: raw decode`, value: rawTps, unit: "tok/s"},
            {metric: `${label}, ${name}: agent-loop decode`, value: loopTps, unit: "tok/s"},
            {metric: `${label}, ${name}: agent-loop / raw`, value: loopTps / rawTps, unit: "ratio", note: "goal ≥ 0.95"},
            {metric: `${label}, ${name}: in a tool call / raw`, value: gramTps / rawTps, unit: "ratio", note: "grammar-constrained"},
        );
    }
    await session.dispose();
    await context.dispose();
    return rows;
}

async function kvReuse(m: LoadedModel, log: (s: string) => void): Promise<BenchRow[]> {
    const session = await m.createSession({contextSize: 8192, threads: 1});
    const toolbox: AgentTools = {
        definitions: () => tools,
        invoke: async (name, args) => ({ok: true, observation: name === "note" ? `noted: ${JSON.stringify(args).slice(0, 60)}` : "ok"}),
    };
    const agent = new Agent({model: session, tools: toolbox, toolContext: {workspace: mkdtempSync(join(tmpdir(), "nano-bench-")), sandbox: {} as never},
        toolChoice: "required", sampling: {temperature: 1, topK: 0, topP: 1, minP: 0, seed: 5}, limits: {maxTurns: 10, maxTokensPerTurn: 48}});
    const {outcome} = await agent.run("Take ten notes.");
    const ctx = session.tokens.tokens.length, pending = session.tokens.pending, evaluated = outcome.tokens.evaluated;
    log(`10-turn session: ${outcome.turns} turns (${outcome.status}), ${ctx} tokens in the final context (${pending} trailing, never fed back), ${evaluated} evaluated`);
    await session.dispose();
    return [
        {metric: "10-turn session: tokens evaluated / final context", value: evaluated / ctx, unit: "ratio", note: "goal 1.0"},
        {metric: "10-turn session: tokens evaluated twice", value: evaluated - (ctx - pending), unit: "tokens", note: "goal 0"},
    ];
}

const bench: Bench = {
    name: "agent",
    description: "token-exact agent loop vs raw node-llama-cpp decode; KV-cache reuse over 10 turns (CPU, 1 thread)",
    async run({log}) {
        const host = await LlmHost.create({gpu: false, cacheDir: mkdtempSync(join(tmpdir(), "nano-bench-cache-"))});
        try {
            const tiny = await host.loadModel(testModel({arch: "qwen2", type: "f32", contextLength: 16384}));
            const small = await host.loadModel(testModel({arch: "qwen2", type: "f32", nEmbd: 512, nLayer: 8, nHead: 8, nHeadKv: 4, contextLength: 16384}));
            return [
                ...await decodeRatio(tiny, "tiny (64 wide, 2 layers)", log),
                ...await decodeRatio(small, "small (512 wide, 8 layers)", log),
                ...await kvReuse(tiny, log),
            ];
        } finally {
            await host.dispose();
        }
    },
};

export default bench;
