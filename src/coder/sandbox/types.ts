// Owns the sandbox contract: options, limits (with their defaults and why), run options and results.
// Knows nothing of how a mode is implemented (bwrap.ts, limits.ts, process.ts) or of tools.

import type {HostSandboxing} from "./detect";

export type SandboxMode = "strong" | "weak";

/** Resource limits for every command a sandbox runs. All optional in options; defaults below. */
export interface SandboxLimits {
    /** RLIMIT_CPU per process, seconds. Default 120: a test suite fits, a spinning loop does not (the wall timeout usually fires first). */
    cpuSeconds: number;
    /** RLIMIT_DATA per process (writable private memory), bytes. Default 2 GiB. RLIMIT_DATA rather than RLIMIT_AS: JIT runtimes
     *  (node, wasm) reserve huge PROT_NONE ranges that RLIMIT_AS counts and RLIMIT_DATA does not. */
    memoryBytes: number;
    /** Processes alive in the sandbox at once. Default 256. Strong mode: RLIMIT_NPROC inside a user namespace, or, as root
     *  (where RLIMIT_NPROC does not apply), a pid namespace whose own pid_max is capped (Linux >= 6.14). */
    processes: number;
    /** RLIMIT_FSIZE: the largest file a command may write, bytes. Default 256 MiB. */
    fileBytes: number;
    /** RLIMIT_NOFILE. Default 1024. */
    openFiles: number;
    /** Total stdout+stderr bytes read before the command is killed ("output-limit"). Default 8 MiB. */
    outputBytes: number;
    /** Bytes kept of each stream's beginning and end (the middle of long output is dropped, with a marker). Default 4 KiB / 16 KiB. */
    headBytes: number;
    tailBytes: number;
    /** Size of the private /tmp (and /dev/shm) tmpfs in strong mode, bytes. Default 512 MiB (tmpfs is RAM). */
    tmpBytes: number;
}

export const defaultLimits: Readonly<SandboxLimits> = Object.freeze({
    cpuSeconds: 120,
    memoryBytes: 2 * 1024 ** 3,
    processes: 256,
    fileBytes: 256 * 1024 ** 2,
    openFiles: 1024,
    outputBytes: 8 * 1024 ** 2,
    headBytes: 4 * 1024,
    tailBytes: 16 * 1024,
    tmpBytes: 512 * 1024 ** 2,
});

export interface SandboxOptions {
    /** The folder commands may write; resolved to its real path. */
    workspace: string;
    /** "auto" (default): strong when bubblewrap works here, else weak — labelled, never silent. */
    mode?: SandboxMode | "auto";
    /** Refuse to create a weak sandbox (a setting: "require strong sandbox"). */
    requireStrong?: boolean;
    limits?: Partial<SandboxLimits>;
    /** Environment variable names passed through besides the built-in allowlist (PATH, LANG, LC_*, TERM, TZ, ...). */
    envAllowlist?: string[];
    /** Extra paths hidden inside the strong sandbox (besides home directories, SSH and cloud credentials). */
    hidePaths?: string[];
    /** Extra paths kept visible read-only even though they lie under a hidden one (toolchains on PATH under $HOME are kept automatically). */
    exposePaths?: string[];
    /** Tests only: replaces the probed host facts (e.g. to exercise the watchdog where the kernel cap exists). */
    hostOverride?: Partial<HostSandboxing>;
}

export interface RunOptions {
    /** Wall-clock limit; the whole process tree is killed when it passes. Default 60 000. */
    timeoutMs?: number;
    signal?: AbortSignal;
    /** Extra variables for this command (names and values are the caller's choice; nothing else leaks from the host). */
    env?: Record<string, string>;
    /** Working directory, relative to the workspace (or absolute inside it). Default: the workspace. */
    cwd?: string;
    /** Streams output as it arrives (bounded by limits.outputBytes). */
    onOutput?(chunk: string, stream: "stdout" | "stderr"): void;
}

export type KilledReason = "timeout" | "output-limit" | "aborted" | "cpu-limit" | "file-size-limit" | "process-limit";

export interface RunResult {
    /** The command's exit status; null when it was killed by a signal (see `signal`) or could not start. */
    exitCode: number | null;
    signal: string | null;
    timedOut: boolean;
    /** Why the sandbox stopped the command, when it did (cpu/file-size limits are inferred from exit status 128+SIGXCPU/SIGXFSZ;
     *  "process-limit" comes from the watchdog, the fallback process cap for root on Linux < 6.14). */
    killedReason?: KilledReason;
    /** Head and tail of each stream (the middle of long output replaced by a "[… N bytes omitted …]" marker). */
    stdoutTail: string;
    stderrTail: string;
    stdoutBytes: number;
    stderrBytes: number;
    /** True when some output was dropped (middle omitted, or reading stopped at the output limit). */
    truncated: boolean;
    durationMs: number;
    mode: SandboxMode;
    /** Set when the command could not be started at all. */
    error?: string;
}

export interface Sandbox {
    readonly mode: SandboxMode;
    /** Real path of the workspace. */
    readonly workspace: string;
    readonly limits: Readonly<SandboxLimits>;
    /** Why the sandbox is weak, when it is (e.g. "bubblewrap is not installed"). */
    readonly weakReason?: string;
    /** One line for people: "strong (bubblewrap): …" or "WEAK (no bubblewrap: rlimits + timeout only): …". */
    describe(): string;
    /** Runs a shell command (a string, through /bin/sh -c) or an argv; never throws for the command's own failures. */
    run(cmd: string | string[], opts?: RunOptions): Promise<RunResult>;
}
