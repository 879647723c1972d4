// Owns the agent loop: render the task with the model's chat template, let the model write a turn (free text or one
// grammar-constrained tool call), run the tool, append its observation, repeat — within limits (turns, tokens,
// wall time), cancellable at any point, recording a token-exact trace. Fires AgentEvents; never touches UI.

import {Emitter} from "../../common/events";
import type {Disposable} from "../../common/disposable";
import {errorMessage, NanoError} from "../../common/errors";
import {continuation, type ChatFormat, type ChatMessage, type TextPart} from "../../llm/chatFormat";
import type {TurnResult} from "../../llm/generate";
import {parseToolCall, toolCallGrammar, type ParsedToolCall, type ToolSpec} from "../../llm/grammar/toolCall";
import {ContextOverflowError} from "../../llm/logits";
import {resolveSampling, Rng} from "../../llm/sampler";
import type {TokenSession} from "../../llm/session";
import {TraceRecorder} from "../../traces/recorder";
import type {OutcomeStatus, SamplingSettings, Trace, TraceAdapter, TraceModel, TraceOutcome, TraceToolCall} from "../../traces/schema";
import type {TraceStore} from "../../traces/store";
import type {ApprovalRequest, ToolContext, ToolResult} from "../tools/types";
import {compactions, truncateMiddle} from "./compaction";
import type {AgentEvent} from "./events";
import {defaultSystemPrompt} from "./prompt";

/** The model side of a run: a fresh token session and the chat format of its model. */
export interface AgentModel {
    readonly tokens: TokenSession;
    readonly format: ChatFormat;
    describe(): Promise<{model: TraceModel; adapter: TraceAdapter | null}>;
}

/** The tool side: a ToolRegistry, or anything shaped like it (tests use fakes). `invoke` never throws. */
export interface AgentTools {
    definitions(): readonly {name: string; description: string; parameters: object}[];
    invoke(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolResult>;
}

export interface AgentLimits {
    maxTurns: number;
    /** Sampled tokens over the whole run. */
    maxTokens: number;
    maxTokensPerTurn: number;
    wallTimeMs: number;
}

export const DEFAULT_LIMITS: AgentLimits = {maxTurns: 30, maxTokens: 32_768, maxTokensPerTurn: 1024, wallTimeMs: 15 * 60_000};

export interface AgentOptions {
    model: AgentModel;
    tools: AgentTools;
    /** Workspace, sandbox, checkpoints: what every tool call gets (signal, output and approval are added per call). */
    toolContext: Omit<ToolContext, "signal" | "onOutput" | "approve">;
    systemPrompt?: string;
    sampling?: Partial<SamplingSettings>;
    limits?: Partial<AgentLimits>;
    /** auto: the model may answer in text or call a tool; required: every turn is a tool call. Default auto. */
    toolChoice?: "auto" | "required";
    /** Calls the approval policy asks about: ask (fire approval_needed and wait), auto (approve), deny. Default ask. */
    approvals?: "ask" | "auto" | "deny";
    /** Where the trace is appended when the run ends (whatever the outcome). */
    store?: TraceStore;
    /** Id of the workspace snapshot taken before the run, recorded in the trace. */
    snapshot?: string | null;
    /** Largest single observation, tokens. Default: a quarter of the context. */
    maxObservationTokens?: number;
}

export interface AgentRunResult {
    trace: Trace;
    outcome: TraceOutcome;
}

type Ending = {status: OutcomeStatus; message?: string; finalAnswer?: string};

export class Agent implements Disposable {
    private readonly emitter = new Emitter<AgentEvent>();
    /** Subscribe to the run's events. */
    readonly onEvent = this.emitter.event;
    private readonly approvals = new Map<string, (ok: boolean) => void>();
    private running = false;

    constructor(private readonly o: AgentOptions) {}

    /** Answers an approval_needed event. */
    resolveApproval(id: string, approved: boolean): void {
        const r = this.approvals.get(id);
        if (r) { this.approvals.delete(id); r(approved); }
    }

    async run(task: string, opts: {signal?: AbortSignal} = {}): Promise<AgentRunResult> {
        if (this.running) throw new NanoError("agent-busy", "this agent is already running");
        this.running = true;
        try { return await new Run(this.o, task, opts.signal, e => this.emitter.fire(e), (id, turn, req, s) => this.ask(id, turn, req, s)).execute(); } finally {
            this.running = false;
        }
    }

    private ask(id: string, turn: number, req: ApprovalRequest, signal: AbortSignal): Promise<boolean> {
        const mode = this.o.approvals ?? "ask";
        if (mode !== "ask") return Promise.resolve(mode === "auto");
        if (this.emitter.listenerCount === 0 || signal.aborted) return Promise.resolve(false);
        return new Promise<boolean>(resolve => {
            const done = (ok: boolean) => { signal.removeEventListener("abort", onAbort); this.emitter.fire({type: "approval_resolved", id, approved: ok}); resolve(ok); };
            const onAbort = () => { this.approvals.delete(id); done(false); };
            signal.addEventListener("abort", onAbort, {once: true});
            this.approvals.set(id, done);
            this.emitter.fire({type: "approval_needed", turn, id, request: {tool: req.tool, args: req.args, summary: req.summary, reason: req.reason}});
        });
    }

    dispose(): void {
        for (const r of this.approvals.values()) r(false);
        this.approvals.clear();
        this.emitter.dispose();
    }
}

/** One run's state (kept apart from Agent so a run cannot leak into the next). */
class Run {
    private readonly limits: AgentLimits;
    private readonly session: TokenSession;
    private readonly format: ChatFormat;
    private readonly specs: ToolSpec[];
    private readonly sampling: SamplingSettings;
    private readonly ac = new AbortController();
    private abortReason?: "cancelled" | "timeout";
    private messages: ChatMessage[] = [];
    private rec?: TraceRecorder;
    private sampled = 0;
    private forced = 0;

    constructor(private readonly o: AgentOptions, private readonly task: string, private readonly signal: AbortSignal | undefined,
        private readonly emit: (e: AgentEvent) => void,
        private readonly ask: (id: string, turn: number, req: ApprovalRequest, s: AbortSignal) => Promise<boolean>) {
        this.limits = {...DEFAULT_LIMITS, ...o.limits};
        this.session = o.model.tokens;
        this.format = o.model.format;
        this.specs = o.tools.definitions().map(d => ({name: d.name, description: d.description, parameters: d.parameters as ToolSpec["parameters"]}));
        this.sampling = resolveSampling(o.sampling);
    }

    async execute(): Promise<AgentRunResult> {
        const started = Date.now();
        const evaluatedBefore = this.session.evaluated;
        const onAbort = () => { this.abortReason ??= "cancelled"; this.ac.abort(); };
        this.signal?.addEventListener("abort", onAbort, {once: true});
        if (this.signal?.aborted) onAbort();
        const timer = setTimeout(() => { this.abortReason ??= "timeout"; this.ac.abort(); }, this.limits.wallTimeMs);
        let ending: Ending | undefined;
        let turns = 0;
        try {
            const {model, adapter} = await this.o.model.describe();
            this.rec = new TraceRecorder({task: this.task, model, adapter, sampling: this.sampling, limits: this.limits,
                workspace: {path: this.o.toolContext.workspace, snapshot: this.o.snapshot ?? null}, tools: this.specs});
            if (this.session.tokens.length > 0) throw new NanoError("agent-session-used", "the agent needs a fresh model session");
            this.messages = [{role: "system", content: this.o.systemPrompt ?? defaultSystemPrompt(this.o.toolContext.workspace)}, {role: "user", content: this.task}];
            if (!this.appendParts(continuation(this.format, [], this.messages, this.specs), "prompt", true))
                ending = {status: "context_overflow", message: "the system prompt and task do not fit in the context"};
            const rng = new Rng(this.sampling.seed);
            const tools = this.specs.length
                ? {grammar: toolCallGrammar(this.specs, this.format.syntax), syntax: this.format.syntax, choice: this.o.toolChoice ?? "auto"}
                : undefined;
            // The last observation enters the context only when another turn follows: a trace holds no tokens the
            // model never read.
            let observation: string | undefined;
            for (let turn = 0; !ending && turn < this.limits.maxTurns; turn++) {
                if (this.ac.signal.aborted) { ending = {status: this.abortReason ?? "cancelled"}; break; }
                const left = this.limits.maxTokens - this.sampled;
                if (left <= 0) { ending = {status: "max_tokens", message: "the run's token budget is spent"}; break; }
                if (observation !== undefined && !(await this.addObservation(observation))) {
                    ending = {status: "context_overflow", message: "the conversation cannot be compacted enough to continue"};
                    break;
                }
                observation = undefined;
                if (this.session.free < this.minTurnRoom() && !(await this.compact([]))) {
                    ending = {status: "context_overflow", message: "no room left for another turn"};
                    break;
                }
                this.rec.setTurn(turn);
                turns = turn + 1;
                this.emit({type: "turn_start", turn, window: this.session.window, contextTokens: this.session.tokens.length});
                const r = await this.session.generate({
                    sampling: this.sampling, rng, maxTokens: Math.min(this.limits.maxTokensPerTurn, left), tools, signal: this.ac.signal,
                    onText: (text, phase) => { if (phase !== "end_of_turn") this.emit({type: "token", turn, text, phase}); },
                });
                const content = this.recordTurn(r);
                this.messages.push({role: "assistant", content});
                this.emit({type: "turn_end", turn, stop: r.stop, sampledTokens: r.sampled.length});
                if (r.stop === "aborted") { ending = {status: this.abortReason ?? "cancelled"}; break; }
                if (!r.callText) {
                    ending = r.stop === "end_of_turn"
                        ? {status: "finished", finalAnswer: content}
                        : {status: "max_tokens", message: "the turn hit its token limit without a tool call", finalAnswer: content};
                    break;
                }
                const call = parseToolCall(r.callText, this.format.syntax);
                const result = call
                    ? await this.callTool(turn, call)
                    : {ok: false, observation: "Your tool call could not be read. Write exactly one call in the documented format."};
                if (result.finished) { ending = {status: "finished", finalAnswer: result.observation}; break; }
                observation = result.observation;
            }
            ending ??= {status: "max_turns"};
        } catch (e) {
            ending = {status: "error", message: errorMessage(e)};
            this.emit({type: "error", message: errorMessage(e), ...(e instanceof NanoError ? {code: e.code} : {})});
        } finally {
            clearTimeout(timer);
            this.signal?.removeEventListener("abort", onAbort);
        }
        const outcome: TraceOutcome = {
            status: ending.status, ...(ending.message ? {message: ending.message} : {}), ...(ending.finalAnswer !== undefined ? {finalAnswer: ending.finalAnswer} : {}),
            turns, tokens: {forced: this.forced, sampled: this.sampled, evaluated: this.session.evaluated - evaluatedBefore}, durationMs: Date.now() - started,
        };
        const trace = (this.rec ?? new TraceRecorder({task: this.task, model: {file: "", sha256: "", sizeBytes: 0, chatFormat: this.format.name, contextSize: 0},
            adapter: null, sampling: this.sampling, limits: this.limits, workspace: {path: this.o.toolContext.workspace, snapshot: null}, tools: this.specs})).finish(outcome);
        if (this.o.store) {
            try { await this.o.store.append(trace); } catch (e) { this.emit({type: "error", message: `could not store the trace: ${errorMessage(e)}`}); }
        }
        this.emit({type: "finished", status: outcome.status, outcome, traceId: trace.id, ...(outcome.finalAnswer !== undefined ? {finalAnswer: outcome.finalAnswer} : {})});
        return {trace, outcome};
    }

    /** Room a turn needs to be worth taking. */
    private minTurnRoom(): number {
        return Math.min(this.limits.maxTokensPerTurn, Math.max(32, Math.floor(this.session.contextSize / 8)));
    }

    /** Appends rendered parts as forced tokens; false (nothing appended) if they do not fit. */
    private appendParts(parts: readonly TextPart[], kind: "prompt" | "observation" | "compacted", checkOnly = false): boolean {
        const vocab = this.session.vocab;
        const toks = parts.map(p => vocab.tokenize(p.text, p.special));
        const n = toks.reduce((a, t) => a + t.length, 0);
        if (n > this.session.free || (checkOnly && n + this.minTurnRoom() > this.session.free)) return false;
        parts.forEach((p, i) => {
            this.session.append(toks[i]!);
            this.rec!.forced(p.special ? "template" : p.role ?? "user", kind, toks[i]!, p.text);
        });
        this.forced += n;
        return true;
    }

    /** Records a turn's sampled and closing tokens; returns the assistant message text. */
    private recordTurn(r: TurnResult): string {
        const vocab = this.session.vocab;
        for (let i = 0; i < r.sampled.length;) {
            const phase = r.sampled[i]!.phase;
            let j = i;
            while (j < r.sampled.length && r.sampled[j]!.phase === phase) j++;
            const run = r.sampled.slice(i, j);
            const kind = phase === "text" ? "text" : phase === "tool_call" ? "tool_call" : "end_of_turn";
            const toks = run.map(t => t.token);
            this.rec!.sampled(kind, toks, run.map(t => t.logprob), vocab.detokenize(toks), phase === "tool_call");
            i = j;
        }
        this.rec!.forced("assistant", "close", r.closing, vocab.detokenize(r.closing));
        this.sampled += r.sampled.length;
        this.forced += r.closing.length;
        const body = [...r.sampled.map(t => t.token), ...r.closing].filter(t => !vocab.isEog(t));
        return vocab.detokenize(body);
    }

    private async callTool(turn: number, call: ParsedToolCall): Promise<ToolResult> {
        const id = `call_${turn}`;
        this.emit({type: "tool_call", turn, id, name: call.name, args: call.args, argsText: call.argsText});
        const startedAt = new Date();
        let approval: TraceToolCall["approval"] = "auto";
        const ctx: ToolContext = {
            ...this.o.toolContext, signal: this.ac.signal,
            onOutput: chunk => this.emit({type: "tool_output", id, chunk}),
            approve: async req => {
                const ok = await this.ask(id, turn, req, this.ac.signal);
                approval = ok ? "approved" : "denied";
                return ok;
            },
        };
        let result: ToolResult;
        try { result = await this.o.tools.invoke(call.name, call.args, ctx); } catch (e) {
            result = {ok: false, observation: `${call.name} failed: ${errorMessage(e)}`};
        }
        if ((result.data as {refused?: string} | undefined)?.refused === "denied") approval = "denied";
        const durationMs = Date.now() - startedAt.getTime();
        this.rec!.toolCall({turn, name: call.name, args: call.args, argsText: call.argsText, approval,
            result: {ok: result.ok, observation: result.observation, ...(result.finished ? {finished: true} : {})},
            startedAt: startedAt.toISOString(), durationMs});
        this.emit({type: "tool_result", turn, id, name: call.name, ok: result.ok, observation: result.observation,
            ...(result.data !== undefined ? {data: result.data} : {}), durationMs});
        return result;
    }

    /** Appends a tool observation (capped); compacts the history into a new window when it does not fit. */
    private async addObservation(observation: string): Promise<boolean> {
        const content = this.fitObservation(observation, this.o.maxObservationTokens ?? Math.floor(this.session.contextSize / 4));
        const msg: ChatMessage = {role: "tool", content};
        if (this.appendParts(continuation(this.format, this.messages, [msg], this.specs), "observation", true)) {
            this.messages.push(msg);
            return true;
        }
        return this.compact([msg]);
    }

    /** Re-renders a smaller history (plus `added`) into a fresh window; false if nothing fits. */
    private async compact(added: ChatMessage[]): Promise<boolean> {
        const all = [...this.messages, ...added];
        const before = this.session.tokens.length;
        for (const c of compactions(all)) {
            const parts = continuation(this.format, [], c.messages, this.specs);
            const n = parts.reduce((a, p) => a + this.session.vocab.tokenize(p.text, p.special).length, 0);
            if (n + this.minTurnRoom() > this.session.contextSize) continue;
            await this.session.newWindow();
            this.rec!.newWindow();
            if (!this.appendParts(parts, "compacted")) throw new ContextOverflowError(n, this.session.free);
            this.messages = c.messages;
            this.emit({type: "context_compacted", window: this.session.window, droppedTurns: c.droppedTurns,
                elidedObservations: c.elidedObservations, tokensBefore: before, tokensAfter: n});
            return true;
        }
        return false;
    }

    private fitObservation(text: string, maxTokens: number): string {
        let t = text;
        for (let i = 0; i < 6; i++) {
            const n = this.session.vocab.tokenize(t, false).length;
            if (n <= maxTokens) return t;
            t = truncateMiddle(text, Math.max(0, Math.floor(t.length * (maxTokens / n) * 0.9)));
        }
        return t;
    }
}
