// Sandbox benchmarks: the cost of running `true` in the sandbox (strong where bubblewrap works, and weak) against a
// plain spawn of `true`, side by side; and a snapshot of a 10k-file workspace (time, bytes) against `cp -a`.

import {spawn} from "node:child_process";
import {mkdir, mkdtemp, rm, writeFile} from "node:fs/promises";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {createSandbox} from "../../src/coder/sandbox/sandbox";
import {snapshotWorkspace} from "../../src/coder/sandbox/snapshot";
import {sideBySide, type Bench, type BenchRow} from "./types";

function spawnTrue(argv: string[] = ["true"]): Promise<void> {
    return new Promise((resolve, reject) => {
        const c = spawn(argv[0]!, argv.slice(1), {stdio: "ignore"});
        c.on("error", reject);
        c.on("close", () => resolve());
    });
}

async function makeWorkspace(root: string, files: number): Promise<number> {
    let bytes = 0;
    const perDir = 100;
    for (let d = 0; d < files / perDir; d++) {
        const dir = join(root, `pkg${d}`, "src");
        await mkdir(dir, {recursive: true});
        await Promise.all(Array.from({length: perDir}, (_, i) => {
            const body = `// file ${d}/${i}\n${"export const value = 42;\n".repeat(1 + ((d * perDir + i) % 80))}`;
            bytes += body.length;
            return writeFile(join(dir, `m${i}.ts`), body);
        }));
    }
    return bytes;
}

const bench: Bench = {
    name: "sandbox",
    description: "sandboxed `true` vs plain spawn (ratio, ms overhead); snapshot of a 10k-file workspace (time, bytes)",
    async run(ctx) {
        const rows: BenchRow[] = [];
        const root = await mkdtemp(join(tmpdir(), "nano-bench-sbx-"));
        try {
            const ws = join(root, "ws");
            await mkdir(ws);
            for (const mode of ["auto", "weak"] as const) {
                const sb = await createSandbox({workspace: ws, mode});
                if (mode === "auto") ctx.log(`sandbox: ${sb.describe()}`);
                await sb.run(["true"]); await spawnTrue(); // warm up
                const n = 30;
                const t = await sideBySide(n, async () => {
                    const r = await sb.run(["true"]);
                    if (r.exitCode !== 0) throw new Error(`sandboxed true failed: ${JSON.stringify(r)}`);
                }, () => spawnTrue());
                const label = sb.mode === "strong" ? "strong (bwrap)" : "weak";
                rows.push({metric: `${label} sandboxed true: median`, value: t.a, unit: "ms", note: `n=${n}`});
                rows.push({metric: `${label} plain spawn true: median`, value: t.b, unit: "ms"});
                rows.push({metric: `${label} sandbox / plain`, value: t.a / t.b, unit: "x"});
                rows.push({metric: `${label} overhead per command`, value: t.a - t.b, unit: "ms"});
                await sb.dispose();
            }

            const src = join(root, "src");
            await mkdir(src);
            const files = 10_000;
            const t0 = performance.now();
            const made = await makeWorkspace(src, files);
            ctx.log(`made a ${files}-file workspace (${(made / 1024 / 1024).toFixed(1)} MiB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
            const dest = join(root, "snaps");
            const snap = await snapshotWorkspace(src, dest);
            rows.push({metric: "snapshot 10k files: time", value: snap.durationMs, unit: "ms", note: `${snap.files} files, ${snap.dirs} dirs`});
            rows.push({metric: "snapshot 10k files: bytes copied", value: snap.bytes / 1024 / 1024, unit: "MiB"});
            rows.push({metric: "snapshot 10k files: throughput", value: snap.files / (snap.durationMs / 1000), unit: "files/s"});
            const cpDest = join(root, "cp-copy");
            const c0 = performance.now();
            await spawnTrue(["cp", "-a", src, cpDest]);
            const cpMs = performance.now() - c0;
            rows.push({metric: "cp -a of the same tree (reference)", value: cpMs, unit: "ms"});
            rows.push({metric: "snapshot / cp -a", value: snap.durationMs / cpMs, unit: "x", note: "one run each, same tree"});
        } finally {
            await rm(root, {recursive: true, force: true});
        }
        return rows;
    },
};

export default bench;
