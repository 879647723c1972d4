// Activation, contributions and commands of the extension inside a real VS Code (code-server's Node extension host).

import * as assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {join} from "node:path";
import {suite, test} from "mocha";
import * as vscode from "vscode";
import {api, escapeRegExp, EXT_ID} from "./helpers";

suite("activation", () => {
    test("the extension is installed, activates, and returns its API", async () => {
        const a = await api();
        assert.equal(vscode.extensions.getExtension(EXT_ID)?.isActive, true);
        assert.equal(typeof a.sessions.start, "function");
    });

    test("the extension host is plain Node (native addons such as node-llama-cpp can load)", () => {
        assert.equal(process.release.name, "node");
        assert.equal(typeof process.versions.electron, "undefined");
    });

    test("every contributed command is registered", async () => {
        await api();
        const ext = vscode.extensions.getExtension(EXT_ID)!;
        const pkg = JSON.parse(readFileSync(join(ext.extensionPath, "package.json"), "utf8")) as {contributes: {commands: {command: string}[]}};
        const all = new Set(await vscode.commands.getCommands(true));
        for (const c of pkg.contributes.commands) assert.ok(all.has(c.command), `${c.command} is registered`);
        assert.ok(all.has("nanoCoder.agentView.focus"), "the view's focus command exists");
    });

    test("the status bar shows the configured model", async () => {
        const a = await api();
        const model = a.settings().model;
        assert.ok(model, "the test profile configures a model");
        assert.match(a.statusText(), new RegExp(escapeRegExp(model.split("/").pop()!)));
    });
});
