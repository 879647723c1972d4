// The project's test command (`npm test`): layering lint, type check, then every test file under test/
// with node's test runner (TypeScript through tsx). Args narrow the run: `npm test -- test/unit/gguf` or a file.
import {spawnSync} from "node:child_process";
import {readdirSync, statSync} from "node:fs";
import {join} from "node:path";

const args = process.argv.slice(2);
const quick = args.includes("--no-check");
const roots = args.filter(a => !a.startsWith("--"));

function collect(dir, out) {
    for (const name of readdirSync(dir).sort()) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) { if (name !== "fixtures" && name !== "e2e") collect(p, out); }
        else if (name.endsWith(".test.ts")) out.push(p);
    }
    return out;
}

function run(cmd, argv) {
    const r = spawnSync(cmd, argv, {stdio: "inherit"});
    if (r.status !== 0) process.exit(r.status ?? 1);
}

if (!quick && roots.length === 0) {
    run(process.execPath, ["scripts/lint.mjs"]);
    run(process.execPath, ["node_modules/typescript/bin/tsc", "-p", ".", "--noEmit"]);
}
const files = (roots.length ? roots : ["test"]).flatMap(r => statSync(r).isDirectory() ? collect(r, []) : [r]);
if (files.length === 0) { console.error("no test files found"); process.exit(1); }
run(process.execPath, ["--import", "tsx", "--test", "--test-reporter=spec", ...files]);
