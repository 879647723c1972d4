// Page objects for driving code-server's workbench with Playwright: readiness, the command palette, notifications,
// the agent panel's webview (two nested iframes), the diff editor, and screenshots into one folder.

import {mkdirSync} from "node:fs";
import {join} from "node:path";
import type {FrameLocator, Locator, Page} from "playwright-core";

export class Workbench {
    private shot = 0;

    constructor(readonly page: Page, readonly shotsDir: string) {
        mkdirSync(shotsDir, {recursive: true});
    }

    /** The workbench is rendered and the extension's activity-bar entry is there (its contributions are in). */
    async ready(containerTitle = "Nano Coder"): Promise<void> {
        await this.page.locator(".monaco-workbench").waitFor({timeout: 90_000});
        await this.activityIcon(containerTitle).waitFor({timeout: 90_000});
    }

    activityIcon(title: string): Locator {
        return this.page.locator(`.activitybar a.action-label[aria-label^="${title}"]`);
    }

    statusItem(text: string | RegExp): Locator {
        return this.page.locator(".statusbar-item", {hasText: text});
    }

    /** Runs a palette command by its label (F1, type, click). Retries while the palette has not listed it yet. */
    async runCommand(label: string, tries = 6): Promise<void> {
        for (let i = 1; i <= tries; i++) {
            await this.page.keyboard.press("F1");
            await this.page.locator(".quick-input-widget input.input").waitFor({state: "visible", timeout: 15_000});
            await this.page.keyboard.type(label);
            const row = this.page.locator(".quick-input-list .monaco-list-row", {hasText: label}).first();
            try {
                await row.waitFor({timeout: 5_000});
            } catch {
                await this.page.keyboard.press("Escape");
                continue;
            }
            await row.click();
            await this.page.locator(".quick-input-widget").waitFor({state: "hidden", timeout: 5_000}).catch(() => {});
            return;
        }
        throw new Error(`command not found in the palette: ${label}`);
    }

    /** The labels the palette lists for `query` (the palette is left open). */
    async paletteRows(query: string): Promise<string[]> {
        await this.page.keyboard.press("F1");
        await this.page.locator(".quick-input-widget input.input").waitFor({state: "visible", timeout: 15_000});
        await this.page.keyboard.type(query);
        await this.page.locator(".quick-input-list .monaco-list-row").first().waitFor({timeout: 10_000});
        await this.page.waitForTimeout(300);
        return this.page.locator(".quick-input-list .monaco-list-row .label-name").allInnerTexts();
    }

    /** The agent panel's own document: webview view = outer iframe.webview → inner iframe#active-frame. */
    panel(): FrameLocator {
        return this.page.frameLocator("iframe.webview.ready").frameLocator("iframe#active-frame");
    }

    diffEditor(): Locator {
        return this.page.locator(".monaco-diff-editor").first();
    }

    tab(title: string | RegExp): Locator {
        return this.page.locator(".tabs-container .tab", {hasText: title});
    }

    async screenshot(name: string): Promise<string> {
        const file = join(this.shotsDir, `${String(++this.shot).padStart(2, "0")}-${name}.png`);
        await this.page.waitForTimeout(250);   // let transitions settle
        await this.page.screenshot({path: file});
        return file;
    }
}
