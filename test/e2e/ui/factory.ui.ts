// The UI suite's real-model part: a session on a factory GGUF run by node-llama-cpp in code-server's extension host,
// driven only through the UI — limits typed into the user settings.json, the model picked with the panel's model chip (Select
// Model… → the file dialog), a task typed into the panel, the model's own tokens streaming in, the session ending at its
// token limit, Accept — and the label checked in the trace store on disk. Runs after the scripted steps, or alone
// (NANO_E2E_UI_ONLY=factory). A random-weight model proposes nothing useful, so approvals are "read-only".

import * as assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {TraceStore} from "../../../src/traces/store";
import type {Step, UiContext} from "./panel.ui";

export interface FactoryContext extends UiContext {
    /** The factory GGUF's path. */
    model: string;
    /** code-server's user settings.json (read to keep what earlier steps put there). */
    userSettings: string;
}

/** The limits that end a session on a random model within seconds (the factory model's prompt alone is ~5k tokens). */
const LIMITS = {"nanoCoder.approval.mode": "read-only", "nanoCoder.agent.maxTurns": 2, "nanoCoder.agent.turnTokens": 160, "nanoCoder.agent.maxTokens": 320};

export function factorySteps(c: FactoryContext, opts: {standalone: boolean}): Step[] {
    const {wb} = c;
    const page = wb.page;
    const panel = () => wb.panel();
    const modelName = c.model.split("/").pop()!;
    let tracesBefore = 0;

    return [
        {name: "factory model: the limits are entered in settings.json in VS Code's editor and reach the panel", run: async () => {
            if (opts.standalone) { await c.open(); await wb.ready(); }
            tracesBefore = (await TraceStore.open(c.tracesDir).list()).length;
            // the settings as VS Code left them (earlier steps changed the theme and the allow list), plus the limits,
            // typed over the whole file in VS Code's own editor and saved, as a user would
            const settings = JSON.parse(readFileSync(c.userSettings, "utf8")) as Record<string, unknown>;
            await wb.runCommand("Preferences: Open User Settings (JSON)");
            await wb.tab("settings.json").waitFor({timeout: 15_000});
            await page.locator(".editor-instance .monaco-editor .view-lines").first().click();
            await page.keyboard.press("Control+A");
            // pasted, not typed: typing would trip the editor's auto-closing of quotes and braces
            await page.context().grantPermissions(["clipboard-read", "clipboard-write"], {origin: new URL(page.url()).origin});
            await page.evaluate(text => (globalThis as unknown as {navigator: {clipboard: {writeText(t: string): Promise<void>}}}).navigator.clipboard.writeText(text),
                JSON.stringify({...settings, ...LIMITS}, null, 4));
            await page.keyboard.press("Control+V");
            await page.keyboard.press("Control+S");
            await page.locator(".tabs-container .tab.active:not(.dirty)", {hasText: "settings.json"}).waitFor({timeout: 15_000});
            await wb.screenshot("factory-settings");
            await wb.runCommand("View: Close Editor");
            await wb.runCommand("Nano Coder: New Session");
            await panel().locator("#policy", {hasText: "read-only"}).waitFor({timeout: 30_000});
            await panel().locator("main:not([aria-busy])").waitFor({timeout: 60_000});
        }},
        {name: "factory model: the panel's model chip opens Select Model…; the GGUF is picked in the file dialog and loads", run: async () => {
            await panel().locator('[data-testid="model"]').click();
            const pick = page.locator(".quick-input-list .monaco-list-row", {hasText: "Choose a GGUF file"}).first();
            await pick.waitFor({timeout: 15_000});
            await wb.screenshot("factory-select-model");
            await pick.click();
            // code-server's file dialog is a quick input holding a path: replace it with the model's and accept
            const input = page.locator(".quick-input-widget input.input");
            await page.locator(".quick-input-widget .quick-input-title", {hasText: "Select a GGUF model"}).waitFor({timeout: 15_000});
            // Filled at once (typed keys race the dialog's own path completion); the dialog may still rewrite the value
            // while it settles (seen under load: its folder prefixed to ours), so fill until the value stays ours.
            for (let i = 0; i < 10; i++) {
                await input.fill(c.model);
                await page.waitForTimeout(300 + 200 * i);
                if (await input.inputValue() === c.model) break;
            }
            assert.equal(await input.inputValue(), c.model);
            await page.locator(".quick-input-widget .monaco-button", {hasText: "Use this model"}).click();
            await page.locator(".quick-input-widget").waitFor({state: "hidden", timeout: 15_000});
            // loads at once (a progress notification), then the chip names the model
            await panel().locator('[data-testid="model"][data-state="ready"]', {hasText: modelName}).waitFor({timeout: 120_000});
            await page.locator('.statusbar-item[id$="nanoCoder.status"]', {hasText: modelName}).waitFor({timeout: 15_000});
        }},
        {name: "factory model: a typed task streams the model's own tokens; the session stops at its token limit", run: async () => {
            // the model's text grows token by token; a factory model on a CPU thread is done in about a second, too fast
            // to poll from here, so the panel's own document records each length its streamed text is drawn at
            type Win = {lengths?: number[]; MutationObserver: new (cb: () => void) => {observe(el: unknown, o: object): void}};
            await panel().locator("#log").evaluate(log => {
                const w = globalThis as unknown as Win;
                const lengths: number[] = w.lengths = [];
                new w.MutationObserver(() => {
                    const text = (log as {querySelector(s: string): {textContent: string} | null}).querySelector('[data-testid="assistant-text"]');
                    if (text && text.textContent.length !== lengths.at(-1)) lengths.push(text.textContent.length);
                }).observe(log, {subtree: true, childList: true, characterData: true});
            });
            const input = panel().locator('[data-testid="task-input"]');
            await input.click();
            await page.keyboard.type("Say hello.");
            await page.keyboard.press("Enter");
            await panel().locator('[data-testid="task"]', {hasText: "Say hello."}).waitFor({timeout: 15_000});
            const outcome = panel().locator('[data-testid="outcome"]');
            for (let i = 0; i < 2400 && !(await outcome.isVisible()); i++) {
                if (i === 4) await page.screenshot({path: `${wb.shotsDir}/factory-streaming.png`});   // best effort: mid-stream or not
                await page.waitForTimeout(25);
            }
            await outcome.waitFor({timeout: 120_000});
            const lengths = await panel().locator("#log").evaluate(() => (globalThis as unknown as Win).lengths ?? []);
            // a drop starts another text: the next turn's, or the first became a tool card's "why" when the model called a tool
            const longestRun = Math.max(0, ...lengths.map((_, i) => { let j = i; while (j + 1 < lengths.length && lengths[j + 1]! > lengths[j]!) j++; return j - i + 1; }));
            assert.ok(longestRun >= 3, `the text was drawn growing, token by token (lengths: ${lengths.join(", ")})`);
            const status = await panel().locator('[data-testid="outcome-status"]').innerText();
            assert.match(status, /Stopped: token limit|Stopped: turn limit|Finished/);
            const turns = await panel().locator('[data-testid="turn-end"]').allInnerTexts();
            assert.ok(turns.length >= 1 && turns.length <= 2, `one or two turns (got ${turns.length})`);
            const sampled = turns.map(t => Number(/(\d+) sampled/.exec(t)?.[1] ?? 0));
            assert.ok(sampled.every(n => n > 0 && n <= 160), `each turn sampled within its limit (${sampled.join(", ")})`);
        }},
        {name: "factory model: Accept stores the label on its trace, on disk", run: async () => {
            const outcome = panel().locator('[data-testid="outcome"]');
            await outcome.scrollIntoViewIfNeeded();
            await panel().locator('[data-testid="accept"]').click();
            await panel().locator('[data-testid="label-state"]', {hasText: "Labelled accepted"}).waitFor({timeout: 15_000});
            await wb.screenshot("factory-accepted");
            const rows = await TraceStore.open(c.tracesDir).list();
            assert.equal(rows.length, tracesBefore + 1, "one more trace");
            const row = rows[0]!;   // newest first
            assert.equal(row.model.file, c.model);
            assert.deepEqual(row.labels.map(l => l.name), ["accepted"]);
            assert.match(row.status, /max_tokens|max_turns|finished/);
            const trace = await TraceStore.open(c.tracesDir).get(row.id);
            assert.ok(trace?.segments.some(s => s.sampled && s.tokens.length > 0 && s.logprobs?.length === s.tokens.length),
                "sampled tokens with their log-probs");
        }},
    ];
}
