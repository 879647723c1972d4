// Owns probing the host for sandboxing means: bubblewrap that actually works, prlimit, a per-namespace pid limit.
// Probes once per process (cached); knows nothing of how the results are used.

import {spawn} from "node:child_process";
import {accessSync, constants} from "node:fs";
import {release} from "node:os";
import {delimiter, join} from "node:path";

export interface HostSandboxing {
    platform: NodeJS.Platform;
    isRoot: boolean;
    /** Path of bwrap when found. */
    bwrap?: string;
    /** Whether bwrap ran a trivial sandbox here (it can be installed and still fail, e.g. user namespaces disabled). */
    bwrapWorks: boolean;
    /** Why strong mode is unavailable, in words, when it is. */
    bwrapProblem?: string;
    prlimit?: string;
    unshare?: string;
    /** Root on Linux >= 6.14: `unshare --pid` + writing pid_max inside caps the process count of that namespace alone.
     *  (On older kernels pid_max is global: writing it would change the host's, so it is never tried there.) */
    pidNamespaceLimit: boolean;
}

/** First executable called `name` on PATH or in the usual system folders. */
export function findExecutable(name: string, pathVar = process.env.PATH ?? ""): string | undefined {
    const dirs = [...pathVar.split(delimiter).filter(Boolean), "/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"];
    for (const d of dirs) {
        const p = join(d, name);
        try { accessSync(p, constants.X_OK); return p; } catch { /* next */ }
    }
    return undefined;
}

/** Runs argv with a timeout; resolves with exit code and stderr (never rejects). */
export function probeRun(argv: string[], timeoutMs = 10_000): Promise<{code: number | null; stderr: string}> {
    return new Promise(resolve => {
        let stderr = "";
        let settled = false;
        const child = spawn(argv[0]!, argv.slice(1), {stdio: ["ignore", "ignore", "pipe"], detached: true});
        const timer = setTimeout(() => { try { process.kill(-child.pid!, "SIGKILL"); } catch { /* gone */ } }, timeoutMs);
        child.stderr!.on("data", (d: Buffer) => { if (stderr.length < 4000) stderr += d.toString(); });
        const done = (code: number | null, err?: string) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve({code, stderr: err ?? stderr.trim()});
        };
        child.on("error", e => done(null, e.message));
        child.on("close", code => done(code));
    });
}

function kernelAtLeast(major: number, minor: number): boolean {
    const m = /^(\d+)\.(\d+)/.exec(release());
    if (!m) return false;
    const [a, b] = [Number(m[1]), Number(m[2])];
    return a > major || (a === major && b >= minor);
}

/** The arguments every strong sandbox starts with; the probe uses the same ones so that "works" means what it says. */
export const bwrapBaseArgs = [
    "--die-with-parent", "--new-session", "--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL",
    "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
];

let cached: Promise<HostSandboxing> | undefined;

/** Probes once per process; `fresh` forces a new probe (tests). */
export function probeHost(fresh = false): Promise<HostSandboxing> {
    if (!cached || fresh) cached = probe();
    return cached;
}

async function probe(): Promise<HostSandboxing> {
    const platform = process.platform;
    const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
    const h: HostSandboxing = {platform, isRoot, bwrapWorks: false, pidNamespaceLimit: false};
    if (platform !== "linux") {
        h.bwrapProblem = `bubblewrap needs Linux (this is ${platform})`;
        return h;
    }
    h.prlimit = findExecutable("prlimit");
    h.unshare = findExecutable("unshare");
    h.bwrap = findExecutable("bwrap");
    if (!h.bwrap) h.bwrapProblem = "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)";
    else {
        const r = await probeRun([h.bwrap, ...bwrapBaseArgs, "--tmpfs", "/tmp", "true"]);
        h.bwrapWorks = r.code === 0;
        if (!h.bwrapWorks) h.bwrapProblem = `bubblewrap is installed but cannot create a sandbox here: ${r.stderr || `exit ${r.code}`}`;
    }
    if (isRoot && h.unshare && kernelAtLeast(6, 14)) {
        const r = await probeRun([h.unshare, "--pid", "--fork", "--kill-child", "/bin/sh", "-c", "echo 1000 > /proc/sys/kernel/pid_max"]);
        h.pidNamespaceLimit = r.code === 0;
    }
    return h;
}
