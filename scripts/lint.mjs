// Lint: only src/host/ and src/extension.ts may import `vscode`; media/ may import only src/protocol/; the lock
// file must be installable with `npm ci`.
import {readdirSync, readFileSync, statSync} from "node:fs";
import {dirname, join, relative} from "node:path";
import {spawnSync} from "node:child_process";

function walk(dir, out = []) {
    let names = [];
    try { names = readdirSync(dir); } catch { return out; }
    for (const n of names) {
        const p = join(dir, n);
        if (statSync(p).isDirectory()) walk(p, out);
        else if (/\.(ts|tsx|js|mjs|cjs)$/.test(n)) out.push(p);
    }
    return out;
}

const problems = [];
const importRe = /(?:from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)["']([^"']+)["']/g;
for (const file of [...walk("src"), ...walk("media")]) {
    const rel = relative(".", file).split("\\").join("/");
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(importRe)) {
        const spec = m[1];
        const line = text.slice(0, m.index).split("\n").length;
        if (spec === "vscode" && !rel.startsWith("src/host/") && rel !== "src/extension.ts")
            problems.push(`${rel}:${line}: imports "vscode" outside src/host/ and src/extension.ts`);
        if (rel.startsWith("media/") && spec.startsWith(".")) {
            const target = relative(".", join(dirname(file), spec)).split("\\").join("/");
            if (!target.startsWith("media/") && !target.startsWith("src/protocol"))
                problems.push(`${rel}:${line}: the webview may import only media/ and src/protocol/ (got "${spec}")`);
        }
    }
}
// `npm ci` must accept the lock on a fresh machine (see scripts/lock-platforms.mjs).
const lockCheck = spawnSync(process.execPath, ["scripts/lock-platforms.mjs", "--check"], {encoding: "utf8"});
if (lockCheck.status !== 0) problems.push(lockCheck.stderr.trim());

if (problems.length) {
    console.error("layering lint failed:\n" + problems.join("\n"));
    process.exit(1);
}
console.log("layering lint: ok");
