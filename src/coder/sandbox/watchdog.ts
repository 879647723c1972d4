// Owns the process-count watchdog: the fallback cap for root on Linux < 6.14 (where neither RLIMIT_NPROC nor a
// per-namespace pid_max applies). It finds the sandbox's pid namespace (bwrap's child) and, every few milliseconds,
// counts the processes in it; past the limit it asks for the whole sandbox to be killed. Coarser than a kernel cap
// (a fork bomb can overshoot between two polls), but it keeps the machine usable.

import {readdirSync, readFileSync, readlinkSync} from "node:fs";

/** Pid namespace link ("pid:[4026532]") of the first child of `pid`, once it has one. */
function childNamespace(pid: number): string | undefined {
    try {
        const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, "latin1").trim().split(/\s+/).filter(Boolean);
        for (const k of kids) {
            const ns = readlinkSync(`/proc/${k}/ns/pid`);
            if (ns !== readlinkSync(`/proc/self/ns/pid`)) return ns;
            // bwrap may fork twice (monitor, then the namespace's init): look one level further.
            const deeper = childNamespace(Number(k));
            if (deeper) return deeper;
        }
    } catch { /* not yet, or gone */ }
    return undefined;
}

function countIn(ns: string): number {
    let n = 0;
    for (const name of readdirSync("/proc")) {
        if (name.charCodeAt(0) > 57) continue; // not a pid
        try { if (readlinkSync(`/proc/${name}/ns/pid`) === ns) n++; } catch { /* exited */ }
    }
    return n;
}

/** Starts watching the sandbox started as `pid`; calls `onExceeded` once when more than `limit` processes run in it. Returns stop(). */
export function watchProcessCount(pid: number, limit: number, onExceeded: () => void, intervalMs = 25): () => void {
    let ns: string | undefined;
    let done = false;
    const timer = setInterval(() => {
        if (done) return;
        ns ??= childNamespace(pid);
        if (!ns) return;
        if (countIn(ns) > limit) { done = true; clearInterval(timer); onExceeded(); }
    }, intervalMs);
    timer.unref();
    return () => { done = true; clearInterval(timer); };
}
