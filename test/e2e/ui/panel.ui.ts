// The UI suite: a real session driven from the agent panel in Chromium, on the scripted stand-in model — type a task,
// watch tokens stream, approve a command (always allow), review the proposed diff in the panel and in VS Code's diff
// editor, approve the edits and the test run, accept; then the history and trace viewer, a reload of the window after
// which Open diff and Undo still work (from the checkpoints kept on disk), and a light theme.
// Steps run in order and share the page; each saves a screenshot.

import * as assert from "node:assert/strict";
import {existsSync, readFileSync, writeFileSync} from "node:fs";
import {join} from "node:path";
import {TraceStore} from "../../../src/traces/store";
import {SCENARIO_TASK} from "../fixtures/scenario";
import type {Workbench} from "./workbench";

export interface UiContext {
    wb: Workbench;
    /** Opens the workbench on the test workspace. */
    open(): Promise<void>;
    /** The run's trace store folder (nanoCoder.traces.dir). */
    tracesDir: string;
    /** The workspace folder the workbench has open. */
    workspace: string;
}

export interface Step { name: string; run(): Promise<void> }

export function panelSteps(c: UiContext): Step[] {
    const {wb} = c;
    const page = wb.page;
    const panel = () => wb.panel();
    const card = (tool: string, nth = 0) => panel().locator(`[data-testid="tool-card"][data-tool="${tool}"]`).nth(nth);

    return [
        {name: "the workbench opens with the Nano Coder activity-bar entry and the model in the status bar", run: async () => {
            await c.open();
            await wb.ready();
            await wb.statusItem(/scenario/).waitFor({timeout: 30_000});
            await wb.screenshot("workbench");
        }},
        {name: "the command palette lists the Nano Coder commands", run: async () => {
            const rows = await wb.paletteRows("Nano Coder:");
            for (const t of ["Nano Coder: New Session", "Nano Coder: Select Model…", "Nano Coder: Show Session Traces", "Nano Coder: Stop"]) {
                assert.ok(rows.some(r => r.includes(t)), `palette lists "${t}" (got ${rows.join(" | ")})`);
            }
            await wb.screenshot("palette");
            await page.keyboard.press("Escape");
        }},
        {name: "New Session opens the agent panel, ready for a task", run: async () => {
            await wb.runCommand("Nano Coder: New Session");
            await panel().locator('[data-testid="task-input"]').waitFor({timeout: 30_000});
            await panel().locator('main:not([aria-busy])').waitFor({timeout: 30_000});
            assert.match(await panel().locator('[data-testid="model"]').innerText(), /scenario/);
            await wb.screenshot("panel-empty");
        }},
        {name: "typing a task and pressing Enter starts a session whose tokens stream in", run: async () => {
            const input = panel().locator('[data-testid="task-input"]');
            await input.click();
            // Record every rendered length of the reply inside the webview (polling from here can miss the stream
            // when the machine is loaded and a screenshot takes a second).
            await panel().locator("body").evaluate(() => {
                const g = globalThis as unknown as {document: any; MutationObserver: any; __nanoLens: number[]};
                g.__nanoLens = [];
                new g.MutationObserver(() => {
                    const el = g.document.querySelector('[data-testid="assistant-text"]');
                    if (el) g.__nanoLens.push((el.textContent ?? "").length);
                }).observe(g.document.body, {subtree: true, childList: true, characterData: true});
            });
            await page.keyboard.type(SCENARIO_TASK);
            await page.keyboard.press("Enter");
            await panel().locator('[data-testid="task"]').waitFor({timeout: 15_000});
            const text = panel().locator('[data-testid="assistant-text"]').first();
            await text.waitFor({timeout: 30_000});
            const seen = new Set<number>();
            let shotTaken = false;
            for (let i = 0; i < 200; i++) {
                const t = await text.innerText();
                seen.add(t.length);
                if (!shotTaken && t.length > 12) { await page.screenshot({path: `${wb.shotsDir}/streaming-partial.png`}); shotTaken = true; }
                if (t.includes("stand.")) break;
                await page.waitForTimeout(25);
            }
            const rendered = await panel().locator("body").evaluate(() => (globalThis as unknown as {__nanoLens: number[]}).__nanoLens);
            for (const n of rendered) seen.add(n);
            assert.ok(seen.size >= 3, `text grew in steps while streaming (lengths rendered: ${[...seen].join(", ")})`);
            assert.match(await text.innerText(), /Let me run the tests first to see where things stand\./);
            assert.doesNotMatch(await text.innerText(), /tool_call/);
            assert.equal(await panel().locator('[data-testid="stop"]').isVisible(), true, "Stop is offered while running");
        }},
        {name: "the command card asks for approval; 'Always allow this command' runs it", run: async () => {
            const cmd = card("run_command");
            await cmd.locator('[data-testid="approve"]').waitFor({timeout: 30_000});
            assert.match(await cmd.innerText(), /node --test/);
            await cmd.scrollIntoViewIfNeeded();
            await wb.screenshot("approve-command");
            await cmd.locator('[data-testid="always"]').click();
            await cmd.locator('[data-testid="tool-result"]').waitFor({timeout: 60_000});
            assert.match(await cmd.locator('[data-testid="approval-state"]').innerText(), /Approved/);
            assert.match(await cmd.locator('[data-testid="tool-result"]').innerText(), /done/);
        }},
        {name: "the edit card shows the proposed diff; Open diff shows it in VS Code's diff editor", run: async () => {
            const edit = card("edit_file");
            await edit.locator('[data-testid="approve"]').waitFor({timeout: 30_000});
            const proposed = edit.locator('[data-testid="proposed-changes"]');
            assert.match(await proposed.innerText(), /greet\.js/);
            assert.match(await proposed.locator(".line.add").first().innerText(), /\+\s+return "Hello, " \+ name \+ "!";/);
            await edit.scrollIntoViewIfNeeded();
            await wb.screenshot("proposed-diff");
            await proposed.locator('[data-testid="open-diff"]').click();
            await wb.diffEditor().waitFor({timeout: 20_000});
            await wb.tab(/greet\.js \(proposed\)/).waitFor({timeout: 10_000});
            await page.locator(".monaco-diff-editor .line-insert, .monaco-diff-editor .char-insert").first().waitFor({timeout: 10_000});
            await wb.screenshot("diff-editor");
        }},
        {name: "approving the edits applies them (diff shown as applied, with undo); the test run is approved and passes", run: async () => {
            await card("edit_file").locator('[data-testid="approve"]').click();
            await card("edit_file").locator('[data-testid="applied-changes"]').waitFor({timeout: 30_000});
            assert.equal(await card("edit_file").locator('[data-testid="undo"]').count(), 1, "undo to the checkpoint before the edit");
            await card("edit_file", 1).locator('[data-testid="approve"]').click({timeout: 30_000});
            await card("edit_file", 1).locator('[data-testid="applied-changes"]').waitFor({timeout: 30_000});
            await card("run_tests").locator('[data-testid="approve"]').click({timeout: 30_000});
            await card("run_tests").locator('[data-testid="tool-result"]').waitFor({timeout: 60_000});
            assert.match(await card("run_tests").innerText(), /tests passed/);
        }},
        {name: "the session ends with Accept / Reject; Accept stores the label on the trace", run: async () => {
            const outcome = panel().locator('[data-testid="outcome"]');
            await outcome.waitFor({timeout: 60_000});
            assert.match(await panel().locator('[data-testid="outcome-status"]').innerText(), /Finished/);
            assert.match(await panel().locator('[data-testid="tests-badge"]').innerText(), /tests passed/);
            await outcome.scrollIntoViewIfNeeded();
            await panel().locator('[data-testid="accept"]').click();
            await panel().locator('[data-testid="label-state"]', {hasText: "Labelled accepted"}).waitFor({timeout: 15_000});
            assert.equal(await panel().locator('[data-testid="accept"]').getAttribute("aria-pressed"), "true");
            await wb.screenshot("accepted");
            const rows = await TraceStore.open(c.tracesDir).list();
            assert.equal(rows.length, 1, "one trace written");
            const names = rows[0]!.labels.map(l => l.name);
            assert.ok(names.includes("accepted") && names.includes("tests_passed"), `labels on the trace: ${names.join(", ")}`);
            assert.equal(rows[0]!.status, "finished");
        }},
        {name: "the history lists the session with its labels; the trace viewer shows turns, tools and tokens", run: async () => {
            await panel().locator("#tab-history").click();
            const row = panel().locator('[data-testid="history-row"]').first();
            await row.waitFor({timeout: 15_000});
            assert.match(await row.innerText(), /accepted/);
            assert.match(await row.innerText(), /tests passed/);
            await wb.screenshot("history");
            await row.click();
            const trace = panel().locator('[data-testid="trace"]');
            await trace.waitFor({timeout: 15_000});
            const text = await trace.innerText();
            for (const re of [/Turn 1/, /Turn 5/, /run_command/, /edit_file/, /run_tests/, /sampled/, /accepted/]) assert.match(text, re);
            await wb.screenshot("trace-viewer");
        }},
        {name: "the panel keeps its state across a reload of the window", run: async () => {
            writeFileSync(join(c.workspace, "notes.txt"), "the user's own file\n");   // made while the agent's edits stand
            await panel().locator("#tab-chat").click();
            await page.waitForTimeout(500);   // the webview saves its state asynchronously
            await page.reload();
            await wb.ready();
            await wb.runCommand("Nano Coder: Focus on Agent View");   // focuses (never toggles) the view
            await panel().locator("main:not([aria-busy])").waitFor({timeout: 60_000});
            await panel().locator("#tab-chat").click();
            await panel().locator('[data-testid="task"]').waitFor({timeout: 30_000});
            assert.match(await panel().locator('[data-testid="task"]').innerText(), /exclamation mark/);
            await panel().locator('[data-testid="outcome"]').waitFor({timeout: 15_000});
            assert.equal(await panel().locator('[data-testid="tool-card"]').count(), 5);
            assert.equal(await panel().locator('[data-testid="undo"]').count(), 2, "both edits still offer their undo point");
            assert.equal(await panel().locator('[data-testid="accept"]').getAttribute("aria-pressed"), "true");
        }},
        {name: "after the reload, Open diff shows an applied edit in VS Code's diff editor (its versions were kept on disk)", run: async () => {
            const edit = card("edit_file", 1);
            await edit.scrollIntoViewIfNeeded();
            await edit.locator('[data-testid="applied-changes"] [data-testid="open-diff"]').click();
            await wb.tab(/greet\.test\.js \(applied\)/).waitFor({timeout: 20_000});
            const modified = page.locator(".monaco-diff-editor .editor.modified .view-lines").first();
            await modified.waitFor({timeout: 10_000});
            assert.match(await modified.innerText(), /Hello,\s+Ada!/);   // Monaco renders spaces as U+00A0
            assert.equal(await panel().locator("#error").isVisible(), false, "no error in the panel");
            await wb.screenshot("diff-after-reload");
        }},
        {name: "after the reload, 'Undo to here' on the first edit restores both files on disk, and spares the user's file", run: async () => {
            const undo = card("edit_file").locator('[data-testid="undo"]');
            await undo.scrollIntoViewIfNeeded();
            await undo.click();
            const notice = panel().locator(".notice", {hasText: "Restored the checkpoint"});
            await notice.waitFor({timeout: 15_000});
            await notice.scrollIntoViewIfNeeded();
            assert.match(await panel().locator(".notice").last().innerText(), /greet\.js, greet\.test\.js|greet\.test\.js, greet\.js/);
            const fixture = (f: string) => readFileSync(new URL(`../fixtures/workspace/${f}`, import.meta.url), "utf8");
            assert.equal(readFileSync(join(c.workspace, "greet.js"), "utf8"), fixture("greet.js"), "greet.js is back to its old text");
            assert.equal(readFileSync(join(c.workspace, "greet.test.js"), "utf8"), fixture("greet.test.js"), "greet.test.js too");
            assert.ok(existsSync(join(c.workspace, "notes.txt")), "the user's file is still there");
            assert.equal(readFileSync(join(c.workspace, "notes.txt"), "utf8"), "the user's own file\n");
            await wb.screenshot("undo-after-reload");
        }},
        {name: "keyboard: the task box is reachable and the tabs switch with the arrow keys", run: async () => {
            await panel().locator("#tab-chat").focus();
            await page.keyboard.press("ArrowRight");
            assert.equal(await panel().locator("#tab-history").getAttribute("aria-selected"), "true");
            await page.keyboard.press("ArrowLeft");
            assert.equal(await panel().locator("#tab-chat").getAttribute("aria-selected"), "true");
            await panel().locator('[data-testid="task-input"]').focus();
            assert.equal(await panel().locator('[data-testid="task-input"]').evaluate(el => el === (el.ownerDocument as {activeElement: unknown}).activeElement), true);
        }},
        {name: "the panel follows the theme (light)", run: async () => {
            await wb.runCommand("Preferences: Color Theme");
            await page.keyboard.type("Default Light Modern");
            await page.locator(".quick-input-list .monaco-list-row", {hasText: "Default Light Modern"}).first().click({timeout: 10_000});
            await page.locator(".monaco-workbench.vs").waitFor({timeout: 20_000});
            await page.waitForTimeout(800);
            const bg = await panel().locator("body").evaluate(el => (globalThis as unknown as {getComputedStyle(e: unknown): {backgroundColor: string}}).getComputedStyle(el).backgroundColor);
            const [r, g, b] = (bg.match(/\d+/g) ?? []).map(Number);
            assert.ok((r ?? 0) + (g ?? 0) + (b ?? 0) > 600, `light background in the panel (got ${bg})`);
            await wb.screenshot("light-theme");
        }},
    ];
}
