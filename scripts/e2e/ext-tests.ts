// Runs the VS Code API integration tests (test/e2e/ext, mocha) inside code-server's Node extension host: code-server's
// CLI refuses --extensionTestsPath, so the test run is requested through the workbench URL's `payload`, and the
// workbench reports the end through `codeAutomationExit`, which the page exposes.
// usage: node --import tsx scripts/e2e/ext-tests.ts      Closing line: "N passed, N failed". Exit status 0 when all pass.

import {existsSync, mkdirSync, readFileSync, rmSync, writeFileSync} from "node:fs";
import {dirname, join, resolve} from "node:path";
import {fileURLToPath} from "node:url";
import {launchBrowser, type Browser} from "./browser";
import {bundleExtTests} from "./bundle-tests";
import {startCodeServer, type CodeServer} from "./code-server";
import {e2eModel, e2eSettings} from "./setup";
import {freshWorkspace} from "./workspace";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const t0 = Date.now();
const lap = (m: string): void => console.log(`[ext-tests ${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);

/** console.log-style `%s`/`%d`/`%c` substitution. */
function formatConsole(args: unknown[]): string {
    const [first, ...rest] = args;
    if (typeof first !== "string") return args.map(a => typeof a === "string" ? a : JSON.stringify(a)).join(" ");
    const text = first.replace(/%[sdioOjc]/g, m => { const v = rest.shift(); return m === "%c" ? "" : String(v); });
    return [text, ...rest.map(a => typeof a === "string" ? a : JSON.stringify(a))].join(" ");
}

interface Report { rows: {title: string; state: string; ms: number; error?: string}[]; passed: number; failed: number; summary: string }

async function main(): Promise<number> {
    if (!existsSync(join(root, "dist/extension.cjs"))) throw new Error("dist/extension.cjs is missing: run `npm run build` first");
    const testsPath = await bundleExtTests(root);
    const workspace = freshWorkspace(root, "ext");
    const model = e2eModel();
    lap(`bundled tests; workspace ${workspace}; model ${model}`);
    const resultFile = join(workspace, "..", `${workspace.split("/").pop()}-result.json`);
    let cs: CodeServer | undefined;
    let browser: Browser | undefined;
    const limit = Number(process.env.NANO_E2E_TIMEOUT_MS ?? 300_000);
    let timer: NodeJS.Timeout | undefined;
    let ok = false;
    try {
        cs = await startCodeServer({name: "nano-e2e-ext", settings: e2eSettings(model),
            env: {NANO_E2E_RESULT: resultFile, NANO_E2E_MODEL: model, NANO_E2E_WORKSPACE: workspace,
                ...(process.env.NANO_E2E_GREP ? {NANO_E2E_GREP: process.env.NANO_E2E_GREP} : {})}});
        lap(`code-server up at ${cs.url} (logs ${cs.root})`);
        browser = await launchBrowser();
        const page = browser.page;
        let exit!: (code: number) => void;
        const exited = new Promise<number>(r => { exit = r; });
        // the workbench forwards its console (and the test host's) here; shown with NANO_E2E_VERBOSE=1
        await page.exposeFunction("codeAutomationLog", (type: string, args: unknown) => {
            if (process.env.NANO_E2E_VERBOSE) console.log(`[${type}] ${formatConsole(Array.isArray(args) ? args : [args])}`);
        });
        await page.exposeFunction("codeAutomationExit", (code: number) => exit(code));
        const auth = `127.0.0.1:${cs.port}`;
        const payload = [["extensionDevelopmentPath", `vscode-remote://${auth}${root}`], ["extensionTestsPath", `vscode-remote://${auth}${testsPath}`]];
        await page.goto(`${cs.url}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`);
        const code = await Promise.race([exited, new Promise<number>(r => { timer = setTimeout(() => r(124), limit); })]);
        lap(`workbench reported exit ${code}`);
        if (!existsSync(resultFile)) {
            console.log(code === 124 ? `timed out after ${limit} ms` : "the test run wrote no report");
            console.log("0 passed, 1 failed");
            return 1;
        }
        const report = JSON.parse(readFileSync(resultFile, "utf8")) as Report;
        const shots = join(root, "test/e2e/.screenshots");
        mkdirSync(shots, {recursive: true});
        writeFileSync(join(shots, "ext-tests.json"), JSON.stringify(report, null, 2));
        for (const r of report.rows) console.log(`${r.state === "passed" ? "✔" : "✘"} ${r.title} (${r.ms} ms)${r.error ? `\n    ${r.error.split("\n").slice(0, 6).join("\n    ")}` : ""}`);
        console.log(report.summary);
        ok = report.failed === 0 && code === 0;
        return ok ? 0 : 1;
    } finally {
        clearTimeout(timer);
        await browser?.close().catch(() => {});
        await cs?.stop();
        // keep everything of a failed run (server log, profile, workspace) for a look; NANO_E2E_KEEP=1 keeps all
        if (ok && !process.env.NANO_E2E_KEEP) for (const d of [cs?.root, workspace, resultFile]) if (d) rmSync(d, {recursive: true, force: true});
        else if (!ok) console.log(`kept for inspection: ${cs?.root ?? ""} ${workspace}`);
    }
}

main().then(code => { lap("done"); process.exit(code); },
    e => { console.error(e instanceof Error ? e.stack : e); console.log("0 passed, 1 failed"); process.exit(1); });
