// The agent panel's provider: the view opens from its command, its webview loads under the CSP and talks to the host;
// Show Session Traces and New Session drive it.

import * as assert from "node:assert/strict";
import {suite, test} from "mocha";
import * as vscode from "vscode";
import {api} from "./helpers";

suite("panel", () => {
    test("focusing the Agent view resolves the provider and the webview reports ready", async () => {
        const a = await api();
        await vscode.commands.executeCommand("nanoCoder.agentView.focus");
        await a.panelReady();
    });

    test("Show Session Traces and New Session run with the panel open", async () => {
        const a = await api();
        await vscode.commands.executeCommand("nanoCoder.showTraces");
        await vscode.commands.executeCommand("nanoCoder.newSession");
        assert.equal(a.sessions.history.length, 0);
        assert.equal(a.sessions.isRunning, false);
    });

    test("Stop with nothing running says so and returns false", async () => {
        assert.equal(await vscode.commands.executeCommand("nanoCoder.stop"), false);
    });
});
