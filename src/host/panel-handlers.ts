// Owns what each panel request does: start / stop / reset sessions, answer approvals, open diffs, restore checkpoints,
// store labels, list and open traces, and run the few workbench commands the panel's controls trigger.

import * as vscode from "vscode";
import {NanoError} from "../common/errors";
import type {ModelStatusView, PanelCommand} from "../protocol/messages";
import type {TraceStore} from "../traces/store";
import type {DiffDocuments} from "./diff-documents";
import type {RequestHandlers} from "./panel-provider";
import type {SessionController} from "./session-controller";
import type {Settings} from "./settings";
import {summaryView, traceView} from "./trace-views";

export interface PanelHandlerDeps {
    sessions: SessionController;
    diffs: DiffDocuments;
    store(): TraceStore;
    modelStatus(): ModelStatusView;
    settings(): Settings;
}

const commandIds: Record<PanelCommand, string> = {
    selectModel: "nanoCoder.selectModel",
    showTraces: "nanoCoder.showTraces",
    openSettings: "nanoCoder.openSettings",
    showLogs: "nanoCoder.showLogs",
};

export function panelHandlers(d: PanelHandlerDeps): RequestHandlers {
    return {
        "panel/ready": () => ({
            model: d.modelStatus(), events: [...d.sessions.history], running: d.sessions.isRunning,
            approvalPolicy: describePolicy(d.settings()),
        }),
        "session/start": ({task}) => ({sessionId: d.sessions.start(task)}),
        "session/stop": () => { d.sessions.stop(); return null; },
        "session/new": () => { d.sessions.reset(); return null; },
        "tool/approve": async ({sessionId, callId, decision}) => { await d.sessions.approve(sessionId, callId, decision); return null; },
        "diff/open": async ({sessionId, callId, path}) => {
            const change = await d.sessions.change(callId, path);
            if (!change) throw new NanoError("no-diff", `no recorded change of ${path}`);
            const applied = d.sessions.history.some(e => e.type === "result" && e.result.callId === callId && !!e.result.changes?.length);
            await d.diffs.open(change, applied, {sessionId, callId});
            return null;
        },
        "checkpoint/restore": async ({sessionId, checkpointId}) => ({files: await d.sessions.restore(sessionId, checkpointId)}),
        "session/label": async ({sessionId, label}) => { await d.sessions.label(sessionId, label); return null; },
        "history/list": async () => (await d.store().list({limit: 200})).map(summaryView),
        "trace/get": async ({id}) => {
            const store = d.store();
            const trace = await store.get(id);
            const summary = (await store.list()).find(s => s.id === trace?.id);
            if (!trace || !summary) throw new NanoError("trace-not-found", `no trace ${id}`);
            return traceView(trace, summary);
        },
        "command/run": async ({command}) => { await vscode.commands.executeCommand(commandIds[command]); return null; },
    };
}

export function describePolicy(s: Settings): string {
    const allowed = s.allowCommands.length ? `, ${s.allowCommands.length} allowed command${s.allowCommands.length > 1 ? "s" : ""}` : "";
    return `${s.approvalMode}${allowed}`;
}
