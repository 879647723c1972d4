// Owns the panel's sessions: starts one agent session at a time, turns engine events into the protocol's numbered
// session events (kept for replay after a panel reload), holds approvals until the user answers, stops, restores
// checkpoints (through the engine, which keeps them past the session and a window reload), and stores labels
// (accepted / rejected, tests passed / failed) on the session's trace.
// Knows nothing of VS Code: the host wires it to the webview, commands and settings.

import {unifiedDiff} from "../coder/tools/diff";
import {Emitter} from "../common/events";
import {errorMessage, NanoError} from "../common/errors";
import type {ApprovalDecision, FileChangeView, SessionEvent, SessionLabel} from "../protocol/session";
import type {AgentEngine, EngineEvent, EngineFileChange, EngineOutcome, EngineSession} from "./engine";

type EventBody = SessionEvent extends infer E ? E extends SessionEvent ? Omit<E, "sessionId" | "seq"> : never : never;
type LabelName = SessionLabel | "tests_passed" | "tests_failed";

/** Where labels go: the trace store satisfies it. */
export interface TraceLabeler {
    label(traceId: string, name: LabelName, opts: {by: string}): Promise<unknown>;
}

export interface SessionControllerOptions {
    engine: AgentEngine;
    labels: TraceLabeler;
    /** "Always allow this command": adds it to the allow list (settings). */
    allowCommand(command: string): Promise<void>;
    log?(level: "info" | "warn" | "error", message: string): void;
    /** Longest patch text sent to the panel per file (the diff editor shows everything). Default 20 000 characters. */
    maxPatchChars?: number;
}

interface Running {
    id: string;
    abort: AbortController;
    engine?: EngineSession;
    pending: Map<string, (ok: boolean) => void>;
    /** Commands of calls, for "always allow". */
    commands: Map<string, string>;
}

let counter = 0;

export class SessionController {
    private events: SessionEvent[] = [];
    private running: Running | undefined;
    private last: {id: string; outcome?: EngineOutcome; agentTests?: boolean} | undefined;
    /** callId → path → both versions, for the diff editor (proposed, then applied). */
    private readonly changes = new Map<string, Map<string, EngineFileChange>>();
    private readonly eventEmitter = new Emitter<SessionEvent>();
    private readonly resetEmitter = new Emitter<void>();
    private readonly historyEmitter = new Emitter<void>();
    readonly onEvent = this.eventEmitter.event;
    readonly onReset = this.resetEmitter.event;
    /** A trace was written or labelled. */
    readonly onHistoryChanged = this.historyEmitter.event;

    constructor(private readonly o: SessionControllerOptions) {}

    get isRunning(): boolean { return this.running !== undefined; }
    get currentId(): string | undefined { return this.last?.id; }
    /** Events of the current (or last) session, from "started". */
    get history(): readonly SessionEvent[] { return this.events; }
    /** The trace id of the current session, once it has finished and its trace was written. */
    get traceId(): string | undefined { return this.last?.outcome?.traceId; }

    /** The current session's events for saving (streamed tokens merged per turn, renumbered). */
    snapshot(): SessionEvent[] {
        return compactEvents(this.events);
    }

    /**
     * Shows a saved session again (after a window reload): its events become the replay log, labels go to its trace.
     * A session that was still running when saved is closed as cancelled. Its undo points and file versions stay
     * available where the engine kept them (on disk).
     */
    load(events: readonly SessionEvent[]): void {
        if (this.running || !events.length || events[0]!.type !== "started") return;
        this.events = compactEvents(events);
        const id = events[0]!.sessionId;
        const fin = this.events.find(e => e.type === "finished");
        this.last = {id, ...(fin?.type === "finished" ? {outcome: {status: fin.status === "running" ? "cancelled" : fin.status, tokens: fin.tokens,
            durationMs: fin.durationMs, ...(fin.traceId ? {traceId: fin.traceId} : {})}} : {})};
        if (!fin) this.emit(id, {type: "finished", status: "cancelled", message: "The window was reloaded while this session ran.",
            tokens: {forced: 0, sampled: 0}, durationMs: 0});
    }

    /** Starts a session; throws when one is running. Resolves with its id at once (the session runs on). */
    start(task: string): string {
        if (this.running) throw new NanoError("session-running", "a session is already running: stop it first");
        const id = `s${Date.now().toString(36)}-${(++counter).toString(36)}`;
        const run: Running = {id, abort: new AbortController(), pending: new Map(), commands: new Map()};
        this.running = run;
        this.last = {id};
        this.events = [];
        this.changes.clear();
        this.emit(id, {type: "started", task, model: this.o.engine.modelName() ?? "(no model)", at: new Date().toISOString()});
        const t0 = Date.now();
        let outcome: Promise<EngineOutcome>;
        try {
            run.engine = this.o.engine.start({
                sessionId: id, task, signal: run.abort.signal,
                onEvent: e => { if (this.running === run) this.onEngineEvent(run, e); },
                approve: req => this.ask(run, req.callId),
            });
            outcome = run.engine.done;
        } catch (e) {
            outcome = Promise.reject(e);
        }
        void outcome.catch((e): EngineOutcome => ({status: "error", message: errorMessage(e), tokens: {forced: 0, sampled: 0}, durationMs: Date.now() - t0}))
            .then(o => this.finish(run, o));
        return id;
    }

    /** Stops the running session (pending approvals are denied). No-op when none runs. */
    stop(): void {
        const run = this.running;
        if (!run) return;
        run.abort.abort();
        for (const [callId, resolve] of run.pending) { resolve(false); this.emit(run.id, {type: "approval", callId, approval: "denied"}); }
        run.pending.clear();
    }

    /** Clears the panel's session (stopping a running one). */
    reset(): void {
        this.stop();
        this.running = undefined;
        this.last = undefined;
        this.events = [];
        this.changes.clear();
        this.resetEmitter.fire();
    }

    async approve(sessionId: string, callId: string, decision: ApprovalDecision): Promise<void> {
        const run = this.running;
        const resolve = run?.id === sessionId ? run.pending.get(callId) : undefined;
        if (!run || !resolve) throw new NanoError("no-approval", "this tool call is no longer waiting for approval");
        run.pending.delete(callId);
        const command = run.commands.get(callId);
        if (decision === "always" && command) {
            try { await this.o.allowCommand(command); } catch (e) { this.o.log?.("warn", `could not add "${command}" to the allow list: ${errorMessage(e)}`); }
        }
        const ok = decision !== "deny";
        this.emit(run.id, {type: "approval", callId, approval: ok ? "approved" : "denied"});
        resolve(ok);
    }

    async label(sessionId: string, label: SessionLabel): Promise<void> {
        const traceId = this.last?.id === sessionId ? this.last.outcome?.traceId : undefined;
        if (!traceId) throw new NanoError("no-trace", this.running ? "the session is still running" : "this session has no stored trace");
        await this.o.labels.label(traceId, label, {by: "user"});
        this.emit(sessionId, {type: "label", label});
        this.historyEmitter.fire();
    }

    /** Tests the user ran (a test task or the test command in a terminal): recorded on the current session's trace. */
    async recordUserTests(passed: boolean, command?: string): Promise<void> {
        const last = this.last;
        if (!last) return;
        this.emit(last.id, {type: "tests", passed, by: "user", ...(command ? {command} : {})});
        const traceId = last.outcome?.traceId;
        if (traceId) {
            await this.o.labels.label(traceId, passed ? "tests_passed" : "tests_failed", {by: "user"});
            this.historyEmitter.fire();
        }
    }

    async restore(sessionId: string, checkpointId: string): Promise<string[]> {
        if (this.last?.id !== sessionId) throw new NanoError("no-session", "that session is no longer the panel's session");
        if (!this.o.engine.restore) throw new NanoError("no-checkpoints", "checkpoints are not available for this session");
        const files = await this.o.engine.restore(sessionId, checkpointId);
        this.emit(sessionId, {type: "restored", checkpointId, files});
        return files;
    }

    /** Both versions of `path` as changed by `callId` of the panel's session (for the diff editor), also after a reload. */
    async change(callId: string, path: string): Promise<EngineFileChange | undefined> {
        const known = this.changes.get(callId)?.get(path);
        if (known || !this.last) return known;
        return this.o.engine.change?.(this.last.id, callId, path);
    }

    dispose(): void {
        this.stop();
        this.eventEmitter.dispose();
        this.resetEmitter.dispose();
        this.historyEmitter.dispose();
    }

    // ---- internals ----------------------------------------------------------------------------------------------
    private emit(sessionId: string, body: EventBody): void {
        const e = {...body, sessionId, seq: this.events.length} as SessionEvent;
        this.events.push(e);
        this.eventEmitter.fire(e);
    }

    private ask(run: Running, callId: string): Promise<boolean> {
        if (run.abort.signal.aborted || this.running !== run) return Promise.resolve(false);
        const answer = new Promise<boolean>(resolve => run.pending.set(callId, resolve));
        this.emit(run.id, {type: "approval", callId, approval: "pending"});   // listeners may answer at once
        return answer;
    }

    private views(callId: string, changes: EngineFileChange[] | undefined): FileChangeView[] | undefined {
        if (!changes?.length) return undefined;
        const byPath = this.changes.get(callId) ?? new Map<string, EngineFileChange>();
        this.changes.set(callId, byPath);
        const max = this.o.maxPatchChars ?? 20_000;
        return changes.map(c => {
            byPath.set(c.path, c);
            const d = unifiedDiff(c.before ?? "", c.after ?? "", c.path);
            return {path: c.path, kind: c.before === null ? "create" : c.after === null ? "delete" : "modify",
                added: d.added, removed: d.removed, patch: d.text.length > max ? `${d.text.slice(0, max)}\n…` : d.text};
        });
    }

    private onEngineEvent(run: Running, e: EngineEvent): void {
        switch (e.type) {
            case "token":
                this.emit(run.id, {type: "token", turn: e.turn, text: e.text});
                break;
            case "tool_call": {
                if (e.command) run.commands.set(e.callId, e.command);
                const changes = this.views(e.callId, e.changes);
                this.emit(run.id, {type: "tool", call: {callId: e.callId, turn: e.turn, tool: e.tool, title: e.summary, argsText: e.argsText,
                    approval: "none", ...(e.why ? {why: e.why} : {}), ...(e.command ? {command: e.command} : {}), ...(changes ? {changes} : {})}});
                break;
            }
            case "tool_result": {
                const changes = this.views(e.callId, e.changes);
                // the user's answer was already emitted; the policy's own allow or deny was not
                const answered = this.events.some(x => x.type === "approval" && x.callId === e.callId && x.approval !== "pending");
                if (!answered) this.emit(run.id, {type: "approval", callId: e.callId, approval: e.approval});
                if (e.tests && this.last?.id === run.id) this.last.agentTests = e.tests.passed;
                this.emit(run.id, {type: "result", result: {callId: e.callId, ok: e.ok, output: e.observation, durationMs: e.durationMs,
                    ...(changes ? {changes} : {}), ...(e.checkpointId ? {checkpointId: e.checkpointId} : {}), ...(e.tests ? {tests: e.tests} : {})}});
                break;
            }
            case "turn_end":
                this.emit(run.id, {type: "turn", turn: e.turn, tokens: e.tokens, durationMs: e.durationMs});
                break;
        }
    }

    private async finish(run: Running, o: EngineOutcome): Promise<void> {
        if (this.running !== run) return;   // reset while running: the panel has moved on
        for (const resolve of run.pending.values()) resolve(false);
        this.running = undefined;
        if (this.last?.id === run.id) this.last.outcome = o;
        this.emit(run.id, {type: "finished", status: o.status, tokens: o.tokens, durationMs: o.durationMs,
            ...(o.message ? {message: o.message} : {}), ...(o.finalAnswer ? {finalAnswer: o.finalAnswer} : {}), ...(o.traceId ? {traceId: o.traceId} : {})});
        this.o.log?.(o.status === "error" ? "error" : "info", `session ${run.id} ${o.status}${o.message ? `: ${o.message}` : ""}${o.traceId ? ` (trace ${o.traceId})` : ""}`);
        const tests = this.last?.agentTests;
        if (o.traceId && tests !== undefined) {
            try { await this.o.labels.label(o.traceId, tests ? "tests_passed" : "tests_failed", {by: "agent"}); }
            catch (e) { this.o.log?.("warn", `could not store the test label: ${errorMessage(e)}`); }
        }
        if (o.traceId) this.historyEmitter.fire();
    }
}

/** Merges consecutive streamed tokens of a turn into one event and renumbers `seq` from 0 (same replayed state). */
export function compactEvents(events: readonly SessionEvent[]): SessionEvent[] {
    const out: SessionEvent[] = [];
    for (const e of events) {
        const last = out[out.length - 1];
        if (e.type === "token" && last?.type === "token" && last.turn === e.turn && last.sessionId === e.sessionId) {
            out[out.length - 1] = {...last, text: last.text + e.text};
        } else out.push({...e});
    }
    return out.map((e, seq) => ({...e, seq}));
}
