// Owns the browser side of an end-to-end run: Debian's headless Chromium driven by playwright-core (never a
// downloaded browser), with a throwaway profile.

import {mkdtempSync, rmSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {chromium, type BrowserContext, type Page} from "playwright-core";

export const CHROMIUM = process.env.NANO_E2E_CHROMIUM ?? "/usr/bin/chromium";

export interface Browser {
    readonly context: BrowserContext;
    readonly page: Page;
    close(): Promise<void>;
}

export async function launchBrowser(viewport = {width: 1400, height: 900}): Promise<Browser> {
    const profile = mkdtempSync(join(process.env.NANO_E2E_TMP ?? tmpdir(), "nano-e2e-chrome-"));
    const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM, headless: true, viewport,
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-dev-shm-usage",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    const page = context.pages()[0] ?? await context.newPage();
    return {
        context, page,
        close: async () => {
            try { await context.close(); } finally { rmSync(profile, {recursive: true, force: true}); }
        },
    };
}
