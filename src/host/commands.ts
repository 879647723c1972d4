// Owns the command palette: every `nanoCoder.*` command and what it does (New Session, Select Model…, Show Session
// Traces, Stop, Run Task, Open Settings, Show Logs). IDs and titles must match package.json's contributes.commands.

import * as vscode from "vscode";
import type {PanelProvider} from "./panel-provider";
import type {SessionController} from "./session-controller";

export const COMMANDS = {
    newSession: "nanoCoder.newSession",
    selectModel: "nanoCoder.selectModel",
    showTraces: "nanoCoder.showTraces",
    stop: "nanoCoder.stop",
    runTask: "nanoCoder.runTask",
    openSettings: "nanoCoder.openSettings",
    showLogs: "nanoCoder.showLogs",
} as const;

export interface CommandDeps {
    panel: PanelProvider;
    sessions: SessionController;
    log: vscode.LogOutputChannel;
    /** Picks a model (or takes `source`): resolves with the choice, undefined when cancelled. */
    selectModel(source?: string): Promise<string | undefined>;
    extensionId: string;
}

export function registerCommands(d: CommandDeps): vscode.Disposable {
    const reg = (id: string, fn: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, fn);
    return vscode.Disposable.from(
        reg(COMMANDS.newSession, async () => {
            d.sessions.reset();
            await d.panel.show();
            d.panel.notify("panel/show", {view: "chat"});
        }),
        reg(COMMANDS.selectModel, (source?: string) => d.selectModel(typeof source === "string" ? source : undefined)),
        reg(COMMANDS.showTraces, async (traceId?: string) => {
            await d.panel.show();
            d.panel.notify("panel/show", {view: "history", ...(typeof traceId === "string" ? {traceId} : {})});
        }),
        reg(COMMANDS.stop, () => {
            if (!d.sessions.isRunning) { void vscode.window.setStatusBarMessage("Nano Coder: no session is running", 3000); return false; }
            d.sessions.stop();
            return true;
        }),
        reg(COMMANDS.runTask, async (task?: string) => {
            const t = typeof task === "string" ? task : await vscode.window.showInputBox({title: "Nano Coder: Run Task", prompt: "What should the agent do?", ignoreFocusOut: true});
            if (!t?.trim()) return undefined;
            await d.panel.show(true);
            return d.sessions.start(t.trim());
        }),
        reg(COMMANDS.openSettings, () => vscode.commands.executeCommand("workbench.action.openSettings", `@ext:${d.extensionId}`)),
        reg(COMMANDS.showLogs, () => d.log.show()),
    );
}
