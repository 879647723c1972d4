// Owns running one prepared argv as its own process group with a wall timeout, an abort signal and an output cap,
// killing the whole group (SIGKILL) when any of them fires. Knows nothing of bwrap or rlimits (callers build argv).

import {spawn} from "node:child_process";
import {constants} from "node:os";
import {StreamCapture} from "./output";
import type {KilledReason} from "./types";

export interface BoundedRun {
    argv: string[];
    cwd: string;
    env: Record<string, string>;
    timeoutMs: number;
    signal?: AbortSignal;
    outputBytes: number;
    headBytes: number;
    tailBytes: number;
    onOutput?(chunk: string, stream: "stdout" | "stderr"): void;
    /** After the main process exits, how long to wait for its output pipes to close (a background child may hold them). */
    drainMs?: number;
    /** Called once the process has started: may watch it and call `kill`; returns a function that stops watching. */
    watch?(pid: number, kill: (why: KilledReason) => void): () => void;
}

export interface BoundedResult {
    exitCode: number | null;
    signal: string | null;
    killedReason?: KilledReason;
    stdout: StreamCapture;
    stderr: StreamCapture;
    /** Output past the cap was not read. */
    cutOff: boolean;
    durationMs: number;
    error?: string;
}

/** Kills a process group; quiet when it is already gone. */
export function killGroup(pid: number | undefined): void {
    if (!pid) return;
    try { process.kill(-pid, "SIGKILL"); } catch { /* gone */ }
    try { process.kill(pid, "SIGKILL"); } catch { /* gone */ }
}

export function runBounded(o: BoundedRun): Promise<BoundedResult> {
    const t0 = performance.now();
    const stdout = new StreamCapture(o.headBytes, o.tailBytes);
    const stderr = new StreamCapture(o.headBytes, o.tailBytes);
    return new Promise(resolve => {
        let killedReason: KilledReason | undefined;
        let cutOff = false;
        let exit: {code: number | null; signal: string | null} | undefined;
        let settled = false;
        let drainTimer: NodeJS.Timeout | undefined;

        if (o.signal?.aborted) {
            resolve({exitCode: null, signal: null, killedReason: "aborted", stdout, stderr, cutOff, durationMs: 0});
            return;
        }
        const child = spawn(o.argv[0]!, o.argv.slice(1), {
            cwd: o.cwd, env: o.env, detached: true, stdio: ["ignore", "pipe", "pipe"], windowsHide: true,
        });
        const kill = (why: KilledReason) => {
            if (!killedReason && !exit) killedReason = why;
            killGroup(child.pid);
        };
        const timer = setTimeout(() => kill("timeout"), o.timeoutMs);
        const unwatch = child.pid && o.watch ? o.watch(child.pid, kill) : undefined;
        const onAbort = () => kill("aborted");
        o.signal?.addEventListener("abort", onAbort, {once: true});

        const finish = (error?: string) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            unwatch?.();
            if (drainTimer) clearTimeout(drainTimer);
            o.signal?.removeEventListener("abort", onAbort);
            killGroup(child.pid); // stragglers in the group (weak mode) die with the command
            child.stdout?.destroy();
            child.stderr?.destroy();
            resolve({
                exitCode: exit?.code ?? null, signal: exit?.signal ?? null, killedReason, stdout, stderr, cutOff,
                durationMs: performance.now() - t0, error,
            });
        };

        const onData = (cap: StreamCapture, stream: "stdout" | "stderr") => (d: Buffer) => {
            if (cutOff) return;
            const room = o.outputBytes - stdout.total - stderr.total;
            if (d.length > room) {
                d = d.subarray(0, Math.max(0, room));
                cutOff = true;
            }
            if (d.length) {
                cap.push(d);
                if (o.onOutput) { try { o.onOutput(d.toString("utf8"), stream); } catch { /* a listener's failure is not ours */ } }
            }
            if (cutOff) kill("output-limit");
        };
        child.stdout!.on("data", onData(stdout, "stdout"));
        child.stderr!.on("data", onData(stderr, "stderr"));
        child.on("error", e => { exit ??= {code: null, signal: null}; finish(`could not start ${o.argv[0]}: ${e.message}`); });
        child.on("exit", (code, signal) => {
            exit = {code, signal};
            // Pipes normally close right after; if a detached straggler holds them, stop waiting and kill it.
            drainTimer = setTimeout(() => finish(), o.drainMs ?? 300);
        });
        child.on("close", () => finish());
    });
}

/** Maps an exit status of 128+N to the rlimit that likely caused it. */
export function limitFromStatus(code: number | null): KilledReason | undefined {
    if (code === 128 + constants.signals.SIGXCPU) return "cpu-limit";
    if (code === 128 + constants.signals.SIGXFSZ) return "file-size-limit";
    return undefined;
}
