// Settings: package.json's contributes.configuration documents exactly the keys and defaults of DEFAULT_SETTINGS; bad
// values fall back to the defaults; the contributed commands and views match what the host registers.

import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {test} from "node:test";
import {DEFAULT_SETTINGS, sanitize, SETTING_KEYS, SETTINGS_SECTION} from "../../../src/host/settings";

const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8"));

test("every setting is contributed with its default and a description, and nothing else is", () => {
    const props = pkg.contributes.configuration.properties as Record<string, {default: unknown; description?: string; markdownDescription?: string}>;
    const keys = Object.values(SETTING_KEYS).map(k => `${SETTINGS_SECTION}.${k}`);
    assert.deepEqual(Object.keys(props).sort(), [...keys].sort());
    for (const [field, key] of Object.entries(SETTING_KEYS)) {
        const p = props[`${SETTINGS_SECTION}.${key}`]!;
        assert.deepEqual(p.default, DEFAULT_SETTINGS[field as keyof typeof DEFAULT_SETTINGS], key);
        assert.ok(p.description || p.markdownDescription, `${key} is documented`);
    }
});

test("out-of-range or mistyped values fall back to the defaults", () => {
    const s = sanitize({model: "  m.gguf ", threads: -1, contextSize: 1.5, approvalMode: "yolo", allowCommands: ["npm test", 3], gpu: "off", maxTurns: 5});
    assert.equal(s.model, "m.gguf");
    assert.equal(s.threads, DEFAULT_SETTINGS.threads);
    assert.equal(s.contextSize, DEFAULT_SETTINGS.contextSize);
    assert.equal(s.approvalMode, "ask");
    assert.deepEqual(s.allowCommands, []);
    assert.equal(s.gpu, "off");
    assert.equal(s.maxTurns, 5);
});

test("the contributed commands, view container and view", () => {
    const ids = (pkg.contributes.commands as {command: string; title: string; category: string}[]).map(c => `${c.category}: ${c.title}`);
    for (const t of ["Nano Coder: New Session", "Nano Coder: Select Model…", "Nano Coder: Show Session Traces", "Nano Coder: Stop"]) assert.ok(ids.includes(t), t);
    assert.equal(pkg.contributes.viewsContainers.activitybar[0].id, "nanoCoder");
    assert.equal(pkg.contributes.views.nanoCoder[0].id, "nanoCoder.agentView");
    assert.equal(pkg.contributes.views.nanoCoder[0].type, "webview");
});
