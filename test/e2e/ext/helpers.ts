// Shared by the in-editor suites: the extension's API, settings changes that wait until the extension saw them, and
// waiting for session events.

import * as vscode from "vscode";
import type {NanoCoderApi} from "../../../src/host/activate";
import type {SessionEvent} from "../../../src/protocol/session";

export const EXT_ID = "nano-coder.nano-coder";

export async function api(): Promise<NanoCoderApi> {
    const ext = vscode.extensions.getExtension<NanoCoderApi>(EXT_ID);
    if (!ext) throw new Error(`${EXT_ID} is not installed`);
    return ext.isActive ? ext.exports : ext.activate();
}

/** The folder the test workbench opened (a fresh copy of test/e2e/fixtures/workspace). */
export function workspaceDir(): string {
    const f = vscode.workspace.workspaceFolders?.[0];
    if (!f) throw new Error("no workspace folder is open");
    return f.uri.fsPath;
}

export async function waitUntil(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!(await cond())) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise(r => setTimeout(r, 50));
    }
}

/** Sets a `nanoCoder.*` user setting and waits until the extension's settings reflect it. */
export async function setSetting(key: string, value: unknown): Promise<void> {
    await vscode.workspace.getConfiguration("nanoCoder").update(key, value, vscode.ConfigurationTarget.Global);
    await waitUntil(`nanoCoder.${key} to apply`, () =>
        JSON.stringify(vscode.workspace.getConfiguration("nanoCoder").inspect(key)?.globalValue) === JSON.stringify(value));
}

/** Resolves with the session's "finished" event; `onEvent` sees every event of it. */
export function nextFinish(a: NanoCoderApi, onEvent?: (e: SessionEvent) => void): Promise<Extract<SessionEvent, {type: "finished"}>> {
    return new Promise(resolve => {
        const sub = a.sessions.onEvent(e => {
            onEvent?.(e);
            if (e.type === "finished") { sub.dispose(); resolve(e); }
        });
    });
}

export function escapeRegExp(s: string): string {
    return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
