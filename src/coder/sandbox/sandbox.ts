// Owns createSandbox: picks strong (bubblewrap) or weak mode — never silently — and runs commands in it with limits.
// The mount plan lives in bwrap.ts, rlimits in limits.ts, process handling in process.ts.

import {mkdtemp, realpath, rm, stat} from "node:fs/promises";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {NanoError} from "../../common/errors";
import {bwrapArgv, planMounts, unsafeWorkspace, type MountPlan} from "./bwrap";
import {probeHost, type HostSandboxing} from "./detect";
import {sandboxEnv} from "./env";
import {pidNamespacePrefix, processCapNote, rlimitPrefix, userProcessCount} from "./limits";
import {resolveInWorkspace} from "./paths";
import {limitFromStatus, runBounded} from "./process";
import {watchProcessCount} from "./watchdog";
import {defaultLimits, type RunOptions, type RunResult, type Sandbox, type SandboxLimits, type SandboxMode, type SandboxOptions} from "./types";

export interface DisposableSandbox extends Sandbox {
    /** Removes the weak mode's private home folder. Idempotent. */
    dispose(): Promise<void>;
}

function mib(b: number): string {
    return b >= 1024 ** 3 ? `${+(b / 1024 ** 3).toFixed(1)} GiB` : `${+(b / 1024 ** 2).toFixed(1)} MiB`;
}

/**
 * Creates a sandbox for `workspace`. mode "auto" (default) is strong where bubblewrap works and weak otherwise;
 * asking for "strong", or `requireStrong`, where it does not work throws NanoError("SANDBOX_STRONG_UNAVAILABLE").
 * Probing the host happens once per process.
 */
export async function createSandbox(opts: SandboxOptions): Promise<DisposableSandbox> {
    let workspace: string;
    try {
        workspace = await realpath(opts.workspace);
        if (!(await stat(workspace)).isDirectory()) throw new Error("not a folder");
    } catch (e) {
        throw new NanoError("SANDBOX_WORKSPACE", `workspace ${opts.workspace} is not an existing folder (${(e as Error).message})`);
    }
    const host = {...(await probeHost()), ...(opts.hostOverride ?? {})};
    const limits: SandboxLimits = {...defaultLimits, ...(opts.limits ?? {})};
    const wanted = opts.mode ?? "auto";
    let mode: SandboxMode;
    let weakReason: string | undefined;
    if (wanted === "weak") {
        if (opts.requireStrong) throw new NanoError("SANDBOX_STRONG_UNAVAILABLE", "weak mode was asked for, but the settings require the strong sandbox");
        mode = "weak";
        weakReason = "weak mode was asked for";
    } else if (host.bwrapWorks) {
        mode = "strong";
    } else if (wanted === "strong" || opts.requireStrong) {
        throw new NanoError("SANDBOX_STRONG_UNAVAILABLE", `the strong sandbox is required but unavailable: ${host.bwrapProblem}`);
    } else {
        mode = "weak";
        weakReason = host.bwrapProblem;
    }
    let plan: MountPlan | undefined;
    if (mode === "strong") {
        plan = planMounts({workspace, hide: opts.hidePaths, expose: opts.exposePaths});
        const unsafe = unsafeWorkspace(workspace, plan);
        if (unsafe) throw new NanoError("SANDBOX_WORKSPACE_UNSAFE", unsafe);
    }
    return new SandboxImpl(workspace, mode, limits, host, plan, weakReason, opts.envAllowlist ?? []);
}

class SandboxImpl implements DisposableSandbox {
    private weakHome: Promise<string> | undefined;

    constructor(
        readonly workspace: string,
        readonly mode: SandboxMode,
        readonly limits: Readonly<SandboxLimits>,
        private readonly host: HostSandboxing,
        private readonly plan: MountPlan | undefined,
        readonly weakReason: string | undefined,
        private readonly envAllowlist: string[],
    ) {}

    describe(): string {
        const l = this.limits;
        const lim = `limits: cpu ${l.cpuSeconds}s, memory ${mib(l.memoryBytes)}, ${l.processes} processes (${processCapNote(this.host, this.mode)}), files ${mib(l.fileBytes)}, output ${mib(l.outputBytes)}`;
        if (this.mode === "strong") {
            return `strong (bubblewrap): no network, writes only to ${this.workspace} and a private /tmp, home folders and credentials hidden, clean environment; ${lim}`;
        }
        return `WEAK (no bubblewrap: rlimits + timeout only): network, your files and home folder are reachable; ${lim}; why: ${this.weakReason ?? "unknown"}`;
    }

    async run(cmd: string | string[], opts: RunOptions = {}): Promise<RunResult> {
        const base = {stdoutTail: "", stderrTail: "", stdoutBytes: 0, stderrBytes: 0, truncated: false, durationMs: 0, mode: this.mode, timedOut: false, signal: null};
        if (typeof cmd === "string" ? cmd.trim() === "" : !Array.isArray(cmd) || cmd.length === 0 || cmd.some(a => typeof a !== "string")) {
            return {...base, exitCode: null, error: "empty command"};
        }
        let cwd: string;
        try {
            cwd = await resolveInWorkspace(this.workspace, opts.cwd ?? ".", {mustExist: true});
            if (!(await stat(cwd)).isDirectory()) return {...base, exitCode: null, error: `working directory ${opts.cwd} is not a folder`};
        } catch (e) {
            return {...base, exitCode: null, error: (e as Error).message};
        }
        const argv = typeof cmd === "string" ? ["/bin/sh", "-c", cmd] : cmd;
        const l = this.limits;
        let full: string[];
        let env: Record<string, string>;
        if (this.mode === "strong") {
            env = sandboxEnv({home: "/tmp", tmp: "/tmp", mode: "strong", allowlist: this.envAllowlist, extra: opts.env});
            full = [
                ...pidNamespacePrefix(this.host, l.processes),
                ...bwrapArgv({bwrap: this.host.bwrap!, workspace: this.workspace, cwd, plan: this.plan!, tmpBytes: l.tmpBytes}),
                ...rlimitPrefix(this.host, l, l.processes),
                ...argv,
            ];
        } else {
            const home = await this.home();
            env = sandboxEnv({home, tmp: home, mode: "weak", allowlist: this.envAllowlist, extra: opts.env});
            const pidns = pidNamespacePrefix(this.host, l.processes);
            const nproc = this.host.isRoot || process.platform !== "linux" ? undefined : l.processes + userProcessCount();
            full = [...pidns, ...rlimitPrefix(this.host, l, pidns.length ? undefined : nproc), ...argv];
        }
        // Root on Linux < 6.14 in strong mode: no kernel process cap applies, so a watchdog counts the namespace's processes.
        const needsWatchdog = this.mode === "strong" && this.host.isRoot && !this.host.pidNamespaceLimit;
        const r = await runBounded({
            argv: full, cwd, env, timeoutMs: opts.timeoutMs ?? 60_000, signal: opts.signal,
            outputBytes: l.outputBytes, headBytes: l.headBytes, tailBytes: l.tailBytes, onOutput: opts.onOutput,
            watch: needsWatchdog ? (pid, kill) => watchProcessCount(pid, l.processes, () => kill("process-limit")) : undefined,
        });
        const killedReason = r.killedReason ?? limitFromStatus(r.exitCode)
            ?? (r.signal === "SIGXCPU" ? "cpu-limit" : r.signal === "SIGXFSZ" ? "file-size-limit" : undefined);
        return {
            exitCode: r.exitCode, signal: r.signal, timedOut: r.killedReason === "timeout", killedReason,
            stdoutTail: r.stdout.text(), stderrTail: r.stderr.text(), stdoutBytes: r.stdout.total, stderrBytes: r.stderr.total,
            truncated: r.cutOff || r.stdout.omitted > 0 || r.stderr.omitted > 0, durationMs: r.durationMs, mode: this.mode, error: r.error,
        };
    }

    /** Weak mode: a private HOME/TMPDIR per sandbox so that tools do not write dotfiles into the real home. */
    private home(): Promise<string> {
        this.weakHome ??= mkdtemp(join(tmpdir(), "nano-sandbox-home-"));
        return this.weakHome;
    }

    async dispose(): Promise<void> {
        const h = this.weakHome;
        this.weakHome = undefined;
        if (h) await rm(await h, {recursive: true, force: true});
    }
}
