// Owns what the adversarial sandbox tests share: temporary workspaces, a scan for processes left behind, and the
// reason strong-mode tests are skipped on a machine without working bubblewrap.

import {mkdtemp, realpath, rm} from "node:fs/promises";
import {readdirSync, readFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {randomBytes} from "node:crypto";
import {spawnSync} from "node:child_process";
import {probeHost} from "../../src/coder/sandbox/detect";

export async function tempWorkspace(prefix = "nano-sbx-"): Promise<{dir: string; cleanup(): Promise<void>}> {
    const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
    return {dir, cleanup: () => rm(dir, {recursive: true, force: true})};
}

/** A token unlikely to appear anywhere else, to find our processes by their command line. */
export function marker(): string {
    return `nanomark${randomBytes(5).toString("hex")}`;
}

/** Pids of live processes whose command line contains `text`. */
export function processesWith(text: string): number[] {
    const out: number[] = [];
    for (const name of readdirSync("/proc")) {
        if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
        try {
            const cmd = readFileSync(`/proc/${name}/cmdline`, "latin1");
            const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${name}/status`, "latin1"))?.[1];
            if (state !== "Z" && cmd.includes(text)) out.push(Number(name));
        } catch { /* exited */ }
    }
    return out;
}

/** Waits (up to `ms`) until no process carries `text`; returns what is left. Kills leftovers so that a failure does not spread. */
export async function settle(text: string, ms = 5000): Promise<number[]> {
    const end = Date.now() + ms;
    let left = processesWith(text);
    while (left.length && Date.now() < end) {
        await new Promise(r => setTimeout(r, 100));
        left = processesWith(text);
    }
    for (const p of left) { try { process.kill(p, "SIGKILL"); } catch { /* gone */ } }
    return left;
}

/** The machine can still start processes (a fork bomb did not exhaust it). */
export function canSpawn(): boolean {
    return spawnSync("true").status === 0;
}

/** Undefined when strong-mode tests can run; otherwise the reason they are skipped (printed by node:test). */
export async function strongSkipReason(): Promise<string | undefined> {
    const h = await probeHost();
    return h.bwrapWorks ? undefined : `SKIPPED — strong sandbox unavailable on this machine: ${h.bwrapProblem}`;
}
