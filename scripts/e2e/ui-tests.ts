// Runs the Playwright UI suite (test/e2e/ui) against code-server in Debian's headless Chromium: a fresh profile and
// workspace, the extension installed from a .vsix (--vsix FILE) or loaded from the repo (development path), the scripted
// scenario as the model, then a session on a factory GGUF. Screenshots go to test/e2e/.screenshots/ui/.
// usage: node --import tsx scripts/e2e/ui-tests.ts [--vsix FILE]     Closing line: "N passed, N failed".
// NANO_E2E_UI_ONLY=factory runs only the factory-model steps.

import {existsSync, mkdirSync, rmSync} from "node:fs";
import {dirname, join, resolve} from "node:path";
import {fileURLToPath} from "node:url";
import {SCRIPTED_PREFIX} from "../../src/host/runnable-model";
import {writeScenarioScript} from "../../test/e2e/fixtures/scenario";
import {factorySteps} from "../../test/e2e/ui/factory.ui";
import {panelSteps} from "../../test/e2e/ui/panel.ui";
import {Workbench} from "../../test/e2e/ui/workbench";
import {launchBrowser, type Browser} from "./browser";
import {startCodeServer, type CodeServer} from "./code-server";
import {e2eSettings, e2eUiModel} from "./setup";
import {freshWorkspace} from "./workspace";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const t0 = Date.now();
const lap = (m: string): void => console.log(`[ui-tests ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);

async function main(): Promise<number> {
    const vsixArg = process.argv.indexOf("--vsix");
    const vsix = vsixArg > 0 ? resolve(process.argv[vsixArg + 1] ?? "") : undefined;
    if (!vsix && !existsSync(join(root, "dist/extension.cjs"))) throw new Error("dist/ is missing: run `npm run build` first");
    const workspace = freshWorkspace(root, "ui");
    const runDir = `${workspace}-run`;
    mkdirSync(runDir, {recursive: true});
    const script = writeScenarioScript(join(runDir, "scenario.json"), 20);
    const tracesDir = join(runDir, "traces");
    const model = e2eUiModel();
    const shots = join(root, "test/e2e/.screenshots/ui");
    rmSync(shots, {recursive: true, force: true});
    let cs: CodeServer | undefined;
    let browser: Browser | undefined;
    let passed = 0, failed = 0;
    try {
        cs = await startCodeServer({name: "nano-e2e-ui", ...(vsix ? {vsix} : {}),
            settings: {...e2eSettings(SCRIPTED_PREFIX + script), "nanoCoder.traces.dir": tracesDir}});
        lap(`code-server up at ${cs.url}${vsix ? ` with ${vsix}` : " (extension from the repo)"}; logs ${cs.root}`);
        browser = await launchBrowser();
        const page = browser.page;
        page.on("pageerror", e => console.log(`  pageerror: ${e.message.slice(0, 200)}`));
        const wb = new Workbench(page, shots);
        const server = cs;
        const open = async (): Promise<void> => {
            const auth = `127.0.0.1:${server.port}`;
            const payload = vsix ? "" : `&payload=${encodeURIComponent(JSON.stringify([["extensionDevelopmentPath", `vscode-remote://${auth}${root}`]]))}`;
            await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}${payload}`);
        };
        const ctx = {wb, open, tracesDir, workspace, model, userSettings: server.userSettings};
        const only = process.env.NANO_E2E_UI_ONLY;
        const steps = [...(only === "factory" ? [] : panelSteps(ctx)), ...factorySteps(ctx, {standalone: only === "factory"})];
        let broken: string | undefined;
        for (const step of steps) {
            const s0 = Date.now();
            if (broken) { failed++; console.log(`✘ ${step.name} (not run: an earlier step failed)`); continue; }
            try {
                await step.run();
                passed++;
                console.log(`✔ ${step.name} (${Date.now() - s0} ms)`);
            } catch (e) {
                failed++;
                broken = step.name;
                console.log(`✘ ${step.name} (${Date.now() - s0} ms)\n    ${(e instanceof Error ? e.message : String(e)).split("\n").slice(0, 8).join("\n    ")}`);
                await wb.screenshot("FAILED").catch(() => {});
            }
        }
        lap(`screenshots in ${shots}`);
    } finally {
        await browser?.close().catch(() => {});
        await cs?.stop();
        const ok = failed === 0 && passed > 0;
        if (ok && !process.env.NANO_E2E_KEEP) for (const d of [cs?.root, workspace, runDir]) if (d) rmSync(d, {recursive: true, force: true});
        else if (!ok) console.log(`kept for inspection: ${cs?.root ?? ""} ${workspace} ${runDir}`);
    }
    console.log(`${passed} passed, ${failed} failed`);
    return failed === 0 && passed > 0 ? 0 : 1;
}

main().then(code => { lap("done"); process.exit(code); },
    e => { console.error(e instanceof Error ? e.stack : e); console.log("0 passed, 1 failed"); process.exit(1); });
