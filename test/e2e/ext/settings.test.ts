// Settings changes reach the running extension: model (status bar + model manager), approval lists, bad values.

import * as assert from "node:assert/strict";
import {suite, test} from "mocha";
import * as vscode from "vscode";
import {api, escapeRegExp, setSetting, waitUntil} from "./helpers";

suite("settings", () => {
    test("a new model setting is picked up (idle until the first task) and shown in the status bar", async () => {
        const a = await api();
        const original = a.settings().model;
        try {
            await setSetting("model", "/nowhere/other-model.gguf");
            await waitUntil("the model manager to see it", () => a.models.configured.source === "/nowhere/other-model.gguf");
            assert.equal(a.models.status.state, "idle");
            assert.match(a.statusText(), /other-model\.gguf/);
        } finally {
            await setSetting("model", original);
        }
        await waitUntil("the original model back", () => a.models.configured.source === original);
    });

    test("approval lists and modes apply at once; out-of-range values fall back to defaults", async () => {
        const a = await api();
        const threads = a.settings().threads;
        await setSetting("approval.allowCommands", ["npm test", "npm run *"]);
        await waitUntil("allowCommands", () => a.settings().allowCommands.length === 2);
        await setSetting("approval.mode", "read-only");
        await waitUntil("approval mode", () => a.settings().approvalMode === "read-only");
        await setSetting("threads", -5);
        await waitUntil("threads", () => a.settings().threads === 0);
        await setSetting("approval.allowCommands", undefined);
        await setSetting("approval.mode", undefined);
        await setSetting("threads", threads);
        await waitUntil("defaults back", () => a.settings().approvalMode === "ask" && a.settings().allowCommands.length === 0);
    });

    test("Select Model… with a path stores the setting and loads the model at once (status bar: ready)", async function () {
        this.timeout(120_000);
        const a = await api();
        const model = process.env.NANO_E2E_MODEL!;
        await setSetting("model", "");
        await waitUntil("no model", () => a.models.status.state === "none");
        assert.match(a.statusText(), /no model/);
        const chosen = await vscode.commands.executeCommand<string>("nanoCoder.selectModel", model);
        assert.equal(chosen, model);
        assert.equal(vscode.workspace.getConfiguration("nanoCoder").get("model"), model);
        assert.equal(a.models.status.state, "ready", a.models.status.detail);
        assert.match(a.statusText(), new RegExp(escapeRegExp(model.split("/").pop()!)));
    });
});
