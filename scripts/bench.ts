// `npm run bench`: runs every benchmark module in scripts/bench/ (or those named on the command line) and
// prints their rows. Benchmarks report ratios measured side by side in one run (the machines are shared
// and noisy); absolute times are printed for context only. `--json FILE` also writes the rows as JSON.
import {readdirSync, writeFileSync} from "node:fs";
import {join, dirname} from "node:path";
import {fileURLToPath, pathToFileURL} from "node:url";
import type {Bench, BenchRow} from "./bench/types";

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const jsonAt = argv.indexOf("--json");
const jsonOut = jsonAt >= 0 ? argv[jsonAt + 1] : undefined;
const only = argv.filter((a, i) => !a.startsWith("--") && (jsonAt < 0 || i !== jsonAt + 1));

const files = readdirSync(join(here, "bench")).filter(f => /\.bench\.ts$/.test(f)).sort();
const all: {bench: string; rows: BenchRow[]}[] = [];
let failed = 0;
for (const f of files) {
    const mod = (await import(pathToFileURL(join(here, "bench", f)).href)) as {default: Bench};
    const b = mod.default;
    if (only.length && !only.some(o => b.name.includes(o) || f.includes(o))) continue;
    process.stdout.write(`\n## ${b.name} — ${b.description}\n`);
    const t0 = performance.now();
    try {
        const rows = await b.run({log: s => process.stdout.write(`   ${s}\n`)});
        for (const r of rows) process.stdout.write(`   ${r.metric.padEnd(48)} ${fmt(r.value).padStart(12)} ${r.unit}${r.note ? `   (${r.note})` : ""}\n`);
        all.push({bench: b.name, rows});
    } catch (e) {
        failed++;
        process.stdout.write(`   FAILED: ${(e as Error).stack ?? e}\n`);
    }
    process.stdout.write(`   [${((performance.now() - t0) / 1000).toFixed(1)} s]\n`);
}
if (jsonOut) writeFileSync(jsonOut, JSON.stringify(all, null, 2));
process.exitCode = failed ? 1 : 0;

function fmt(v: number): string {
    if (!Number.isFinite(v)) return String(v);
    const a = Math.abs(v);
    return a >= 1000 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 0.01 ? v.toFixed(3) : v.toExponential(2);
}
