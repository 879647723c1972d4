// Owns the in-editor test entry (VS Code's `extensionTestsPath`): runs every bundled `*.test.cjs` beside it with mocha
// inside the real Node extension host, and writes a JSON report (tests, failures, closing line) to $NANO_E2E_RESULT.

import {readdirSync, writeFileSync} from "node:fs";
import {join} from "node:path";
import Mocha from "mocha";

interface Row { title: string; state: "passed" | "failed"; ms: number; error?: string }

export function run(): Promise<void> {
    const mocha = new Mocha({ui: "tdd", color: false, timeout: 60_000, reporter: "spec"});
    const files = readdirSync(__dirname).filter(f => f.endsWith(".test.cjs")).sort();
    const only = process.env.NANO_E2E_GREP;
    if (only) mocha.grep(only);
    for (const f of files) mocha.addFile(join(__dirname, f));
    const rows: Row[] = [];
    return new Promise((resolve, reject) => {
        const runner = mocha.run(failures => {
            const passed = rows.filter(r => r.state === "passed").length;
            const summary = `${passed} passed, ${failures} failed`;
            console.log(summary);
            const out = process.env.NANO_E2E_RESULT;
            if (out) writeFileSync(out, JSON.stringify({rows, passed, failed: failures, summary}, null, 2));
            if (failures) reject(new Error(`${failures} test(s) failed`));
            else resolve();
        });
        runner.on("pass", t => rows.push({title: t.fullTitle(), state: "passed", ms: t.duration ?? 0}));
        runner.on("fail", (t, err: Error) => rows.push({title: t.fullTitle(), state: "failed", ms: t.duration ?? 0,
            error: String(err?.stack ?? err).slice(0, 2000)}));
    });
}
