// Owns running the real agent (coder/agent) for the panel: per session it leases the shared model, opens a context,
// a sandbox, a checkpoint recorder and the tool registry under the approval settings, runs Agent.run(task), and
// translates AgentEvents into the panel's engine events (with proposed / applied file changes and per-call undo points).
// Undo points and file versions are kept per session by SessionFiles (on disk when a store is given), so restore and
// diffs work after the session ended and after a window reload. Knows nothing of VS Code.

import {Agent} from "../coder/agent/agent";
import type {AgentEvent} from "../coder/agent/events";
import {ApprovalPolicy} from "../coder/approvals/policy";
import type {CheckpointStore} from "../coder/checkpoint-store";
import type {CheckpointRecorder} from "../coder/checkpoints";
import {createSandbox} from "../coder/sandbox";
import {createDefaultTools} from "../coder/tools";
import {errorMessage, NanoError} from "../common/errors";
import type {TraceStore} from "../traces/store";
import type {AgentEngine, ChangePhase, EngineEvent, EngineFileChange, EngineOutcome, EngineSession, EngineSessionOptions} from "./engine";
import {appliedChange, EDIT_TOOLS, proposedChange} from "./file-changes";
import type {ModelManager} from "./model-manager";
import {displayName} from "./model-manager";
import type {RunnableModel} from "./runnable-model";
import {SessionFiles} from "./session-files";
import type {Settings} from "./settings";
import {TriggerHoldback} from "./trigger-holdback";

/** The approval policy of the settings as they are at each call ("Always allow" applies to the rest of the session too). */
class LivePolicy extends ApprovalPolicy {
    constructor(private readonly current: () => Settings) { super(); }

    private now(): ApprovalPolicy {
        const s = this.current();
        return new ApprovalPolicy({mode: s.approvalMode, allowCommands: s.allowCommands, denyCommands: s.denyCommands,
            allowReadOnlyCommands: s.allowReadOnlyCommands});
    }

    override evaluate(...args: Parameters<ApprovalPolicy["evaluate"]>): ReturnType<ApprovalPolicy["evaluate"]> { return this.now().evaluate(...args); }
    override checkCommand(line: string): ReturnType<ApprovalPolicy["checkCommand"]> { return this.now().checkCommand(line); }
}

export interface AgentAdapterDeps {
    models: ModelManager<RunnableModel>;
    settings(): Settings;
    /** The workspace folder sessions work in (the first folder), or undefined when none is open. */
    workspace(): string | undefined;
    store(): TraceStore;
    /** Where sessions keep their undo points and file versions (the extension's storage). Default: in memory only. */
    checkpoints?(): CheckpointStore | undefined;
    log(level: "info" | "warn" | "error", message: string): void;
}

export class AgentAdapter implements AgentEngine {
    private readonly files: SessionFiles;

    constructor(private readonly d: AgentAdapterDeps) {
        this.files = new SessionFiles({store: () => d.checkpoints?.(), log: d.log});
    }

    modelName(): string | undefined {
        return displayName(this.d.models.configured.source) || undefined;
    }

    start(opts: EngineSessionOptions): EngineSession {
        return {done: new AgentRun(this.d, this.files, opts).execute()};
    }

    async restore(sessionId: string, checkpointId: string): Promise<string[]> {
        const workspace = this.d.workspace();
        if (!workspace) throw new NanoError("no-workspace", "Open the session's folder first.");
        const r = await this.files.restore(sessionId, workspace, checkpointId);
        if (r.skipped.length) this.d.log("warn", `undo left ${r.skipped.map(s => `${s.path} (${s.reason})`).join(", ")}`);
        return [...r.restored, ...r.deleted];
    }

    change(sessionId: string, callId: string, path: string, phase?: ChangePhase): Promise<EngineFileChange | undefined> {
        return this.files.change(sessionId, callId, path, phase);
    }

    /** Removes old sessions' undo points from the store, keeping `keep` (e.g. the panel's session after a reload). */
    cleanup(keep: Iterable<string>): Promise<void> {
        return this.files.cleanup(keep);
    }
}

/** One session: resources, event translation, undo points. */
class AgentRun {
    private checkpoints: CheckpointRecorder | undefined;
    private workspace = "";
    /** Events are handled in order, one at a time (some read files). */
    private queue: Promise<void> = Promise.resolve();
    private readonly turnText = new Map<number, string>();
    private readonly calls = new Map<string, {tool: string; before?: EngineFileChange; checkpointId?: string; asked?: boolean; approved?: boolean}>();
    private turnStart = 0;
    private contextAtStart = 0;
    private contextAtTurnEnd = 0;
    private forcedThisTurn = 0;
    private storeFailed = false;
    private holdback = new TriggerHoldback("");

    constructor(private readonly d: AgentAdapterDeps, private readonly files: SessionFiles, private readonly o: EngineSessionOptions) {}

    async execute(): Promise<EngineOutcome> {
        const t0 = Date.now();
        const settings = this.d.settings();
        const workspace = this.d.workspace();
        if (!workspace) throw new NanoError("no-workspace", "Open a folder first: the agent works inside the workspace.");
        const lease = await this.d.models.acquire();
        const cleanups: (() => Promise<void> | void)[] = [() => lease.release()];
        try {
            const model = await lease.model.openSession({contextSize: lease.spec.contextSize, threads: lease.spec.threads});
            cleanups.push(() => model.dispose());
            this.holdback = new TriggerHoldback(model.format.syntax.trigger);
            const sandbox = await createSandbox({workspace, mode: settings.sandboxMode, requireStrong: settings.requireStrongSandbox});
            cleanups.push(() => sandbox.dispose());
            if (sandbox.mode === "weak") this.d.log("warn", `sandbox: ${sandbox.describe()}`);
            this.workspace = sandbox.workspace;
            this.checkpoints = this.files.create(this.o.sessionId, sandbox.workspace);
            const policy = new LivePolicy(() => this.d.settings());
            const tools = createDefaultTools({policy, ...(settings.testCommand ? {testCommand: settings.testCommand} : {})});
            const agent = new Agent({model, tools, toolContext: {workspace: sandbox.workspace, sandbox, checkpoints: this.checkpoints},
                store: this.d.store(), limits: {maxTurns: settings.maxTurns, maxTokens: settings.maxTokens, maxTokensPerTurn: settings.turnTokens}});
            cleanups.push(() => agent.dispose());
            let finished: Extract<AgentEvent, {type: "finished"}> | undefined;
            const sub = agent.onEvent(e => {
                if (e.type === "finished") finished = e;
                this.onAgentEvent(agent, tools, e);
            });
            cleanups.push(() => sub.dispose());
            const r = await agent.run(this.o.task, {signal: this.o.signal});
            await this.queue;
            const traceId = finished && !this.storeFailed ? finished.traceId : undefined;
            return {status: r.outcome.status, ...(r.outcome.message ? {message: r.outcome.message} : {}),
                ...(r.outcome.finalAnswer !== undefined ? {finalAnswer: r.outcome.finalAnswer} : {}),
                tokens: {forced: r.outcome.tokens.forced, sampled: r.outcome.tokens.sampled}, durationMs: Date.now() - t0,
                ...(traceId ? {traceId} : {}), model: lease.model.name};
        } finally {
            for (const c of cleanups.reverse()) {
                try { await c(); } catch (e) { this.d.log("warn", `session cleanup: ${errorMessage(e)}`); }
            }
        }
    }

    private emit(e: EngineEvent): void { this.o.onEvent(e); }

    private text(turn: number, text: string): void {
        this.turnText.set(turn, (this.turnText.get(turn) ?? "") + text);
        this.enqueue(() => this.emit({type: "token", turn, text}));
    }

    private enqueue(fn: () => Promise<void> | void): void {
        this.queue = this.queue.then(fn).catch(e => this.d.log("warn", `panel event: ${errorMessage(e)}`));
    }

    private onAgentEvent(agent: Agent, tools: {summarize(name: string, args: unknown): string}, e: AgentEvent): void {
        switch (e.type) {
            case "turn_start":
                this.turnStart = Date.now();
                this.contextAtStart = e.contextTokens;
                this.forcedThisTurn = Math.max(0, e.contextTokens - this.contextAtTurnEnd);
                break;
            case "token": {
                if (e.phase !== "text") { this.holdback.drop(); break; }
                const text = this.holdback.push(e.text);
                if (text) this.text(e.turn, text);
                break;
            }
            case "tool_call": {
                const call: {tool: string; before?: EngineFileChange; checkpointId?: string} = {tool: e.name};
                this.calls.set(e.id, call);
                // The undo point must exist before the tool writes: begin it now, synchronously, ahead of invoke().
                if (EDIT_TOOLS.has(e.name) && this.checkpoints) {
                    // (should the journal refuse this record, the write refuses too: no change without its undo copy)
                    try { call.checkpointId = this.checkpoints.begin(`${e.id}: ${e.name}`); } catch (err) { this.d.log("warn", `checkpoint: ${errorMessage(err)}`); }
                }
                const why = this.turnText.get(e.turn)?.trim();
                const command = e.name === "run_command" && typeof e.args.command === "string" ? e.args.command
                    : e.name === "run_tests" ? this.d.settings().testCommand || undefined : undefined;
                this.enqueue(async () => {
                    call.before = await proposedChange(this.workspace, e.name, e.args);
                    if (call.before) await this.files.saveChange(this.o.sessionId, e.id, call.before, "proposed");
                    this.emit({type: "tool_call", callId: e.id, turn: e.turn, tool: e.name, argsText: e.argsText, summary: tools.summarize(e.name, e.args),
                        ...(why ? {why} : {}), ...(command ? {command} : {}), ...(call.before ? {changes: [call.before]} : {})});
                });
                break;
            }
            case "approval_needed":
                this.enqueue(() => {
                    const c = this.calls.get(e.id);
                    if (c) c.asked = true;
                    void this.o.approve({callId: e.id, tool: e.request.tool, summary: e.request.summary, reason: e.request.reason})
                        .then(ok => agent.resolveApproval(e.id, ok), () => agent.resolveApproval(e.id, false));
                });
                break;
            case "approval_resolved": {
                const c = this.calls.get(e.id);
                if (c) c.approved = e.approved;
                break;
            }
            case "tool_result":
                this.enqueue(async () => {
                    const c = this.calls.get(e.id);
                    const data = e.data as {refused?: string; passed?: unknown; path?: unknown; unchanged?: boolean} | undefined;
                    const approval = c?.asked ? (c.approved ? "approved" : "denied") : data?.refused === "denied" ? "denied" : "auto";
                    let changes: EngineFileChange[] | undefined;
                    if (e.ok && c && EDIT_TOOLS.has(e.name) && typeof data?.path === "string" && !data.unchanged) {
                        const applied = await appliedChange(this.workspace, data.path, c.before?.before ?? null);
                        if (applied) {
                            changes = [applied];
                            await this.files.saveChange(this.o.sessionId, e.id, applied, "applied");
                        }
                    }
                    this.emit({type: "tool_result", callId: e.id, ok: e.ok, observation: e.observation, durationMs: e.durationMs, approval,
                        ...(changes ? {changes} : {}), ...(changes && c?.checkpointId ? {checkpointId: c.checkpointId} : {}),
                        ...(e.name === "run_tests" && typeof data?.passed === "boolean" ? {tests: {passed: data.passed}} : {})});
                });
                break;
            case "turn_end": {
                const rest = this.holdback.flush();
                if (rest) this.text(e.turn, rest);
                const forced = this.forcedThisTurn;
                this.contextAtTurnEnd = this.contextAtStart + e.sampledTokens;
                const durationMs = Date.now() - this.turnStart;
                this.enqueue(() => this.emit({type: "turn_end", turn: e.turn, tokens: {forced, sampled: e.sampledTokens}, durationMs}));
                break;
            }
            case "context_compacted":
                this.contextAtTurnEnd = 0;
                this.d.log("info", `context compacted: ${e.droppedTurns} turns dropped, ${e.tokensBefore} → ${e.tokensAfter} tokens`);
                break;
            case "error":
                if (e.message.startsWith("could not store the trace")) this.storeFailed = true;
                this.d.log("error", `agent: ${e.message}`);
                break;
            case "tool_output":
            case "finished":
                break;
        }
    }
}
