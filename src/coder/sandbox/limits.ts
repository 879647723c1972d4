// Owns turning SandboxLimits into argv prefixes: rlimits (prlimit, or a `sh` ulimit shim where prlimit is missing) and,
// as root, a pid namespace with its own pid_max (the process cap RLIMIT_NPROC cannot give root). Knows nothing of bwrap.

import {readdirSync, statSync} from "node:fs";
import type {HostSandboxing} from "./detect";
import type {SandboxLimits} from "./types";

/** Lowest pid_max the kernel accepts (RESERVED_PIDS + 1). */
const pidMaxFloor = 301;

/** Argv prefix applying the rlimits; `nproc` undefined leaves RLIMIT_NPROC alone. */
export function rlimitPrefix(host: HostSandboxing, l: SandboxLimits, nproc: number | undefined): string[] {
    const cpu = Math.max(1, Math.ceil(l.cpuSeconds));
    if (host.prlimit) {
        return [
            host.prlimit, `--cpu=${cpu}:${cpu + 5}`, `--data=${l.memoryBytes}`, `--fsize=${l.fileBytes}`,
            `--nofile=${l.openFiles}`, "--core=0", ...(nproc ? [`--nproc=${nproc}`] : []), "--",
        ];
    }
    // POSIX sh: -t seconds, -d/-v kilobytes; -f is 512-byte blocks in dash and 1024 in bash: 1024 errs on the strict side.
    const kb = (b: number) => Math.max(1, Math.floor(b / 1024));
    const script = [
        `ulimit -t ${cpu}`, `ulimit -d ${kb(l.memoryBytes)}`, `ulimit -f ${kb(l.fileBytes)}`, `ulimit -n ${l.openFiles}`, "ulimit -c 0",
        ...(nproc ? [`ulimit -u ${nproc}`] : []),
    ].map(s => `${s} 2>/dev/null`).join("; ");
    return ["/bin/sh", "-c", `${script}; exec "$@"`, "nano-limits"];
}

/** Argv prefix that runs the rest as pid 1 of a fresh pid namespace capped at about `processes` processes (root only). */
export function pidNamespacePrefix(host: HostSandboxing, processes: number): string[] {
    if (!host.pidNamespaceLimit || !host.unshare) return [];
    // After pids wrap, the kernel reuses only pids >= 300, so capacity lies between `processes` and `processes + 299`.
    const pidMax = Math.max(pidMaxFloor, processes + 300);
    // The shell stays as the namespace's pid 1 (no exec): the command must not be pid 1, which ignores SIGXCPU/SIGXFSZ.
    return [host.unshare, "--pid", "--fork", "--kill-child", "/bin/sh", "-c", `echo ${pidMax} > /proc/sys/kernel/pid_max && "$@"`, "nano-pidns"];
}

/** Processes owned by this user now (Linux), so that a weak-mode RLIMIT_NPROC (which counts them all) leaves `extra` free. */
export function userProcessCount(): number {
    if (process.platform !== "linux" || typeof process.getuid !== "function") return 0;
    const uid = process.getuid();
    let n = 0;
    for (const name of readdirSync("/proc")) {
        if (!/^\d+$/.test(name)) continue;
        try { if (statSync(`/proc/${name}`).uid === uid) n++; } catch { /* exited */ }
    }
    return n;
}

/** How the process count is capped in each mode, in words (for describe()). */
export function processCapNote(host: HostSandboxing, mode: "strong" | "weak"): string {
    if (host.isRoot) return host.pidNamespaceLimit ? "pid namespace cap" : mode === "strong" ? "watchdog: root on Linux < 6.14, polled, may overshoot" : "process limit NOT enforced (root, Linux < 6.14)";
    if (mode === "strong") return "RLIMIT_NPROC in a user namespace";
    return process.platform === "linux" ? "RLIMIT_NPROC (counts all your processes)" : "process limit NOT enforced";
}
