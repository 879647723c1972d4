// Owns the run_command tool and the text form of a sandboxed run (also printed by `nano-coder sandbox`):
// a shell command in the sandbox with a timeout; exit code, stdout/stderr tails, and the sandbox mode, stated.

import type {RunResult} from "../sandbox/types";
import {cleanTerminal} from "./text";
import type {Tool} from "./types";

export interface RunCommandArgs { command: string; timeout_s?: number; cwd?: string }

function seconds(ms: number): string {
    return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

const killedText: Record<string, string> = {
    "timeout": "it ran past its time limit; use a narrower command, or a larger timeout_s if it really needs longer",
    "output-limit": "it printed more than the output limit; filter its output (grep, head, tail, --quiet)",
    "aborted": "the session was cancelled",
    "cpu-limit": "it used more CPU time than allowed",
    "file-size-limit": "it tried to write a file larger than allowed",
    "process-limit": "it started more processes than allowed",
};

/** The observation for one sandboxed run: status line, then stdout and stderr (heads and tails of long output). */
export function formatRun(command: string, r: RunResult, timeoutMs?: number): string {
    const mode = r.mode === "strong" ? "sandbox: strong" : "sandbox: WEAK (no bubblewrap)";
    const parts = [`$ ${command.length > 500 ? `${command.slice(0, 500)}…` : command}`];
    if (r.error && r.exitCode === null && !r.killedReason) {
        parts.push(`could not run: ${r.error} · ${mode}`);
        return parts.join("\n");
    }
    const status = r.killedReason
        ? `killed (${r.killedReason}${r.killedReason === "timeout" && timeoutMs ? ` after ${seconds(timeoutMs)}` : ""}): ${killedText[r.killedReason] ?? ""}`
        : r.exitCode !== null ? `exit code ${r.exitCode}` : `ended by signal ${r.signal}`;
    parts.push(`${status} · ${seconds(r.durationMs)} · ${mode}`);
    const out = cleanTerminal(r.stdoutTail).trimEnd(), err = cleanTerminal(r.stderrTail).trimEnd();
    if (out) parts.push(`stdout:\n${out}`);
    if (err) parts.push(`stderr:\n${err}`);
    if (!out && !err) parts.push("(no output)");
    if (r.truncated) parts.push(`[output truncated: ${r.stdoutBytes} bytes on stdout, ${r.stderrBytes} on stderr; the middle is omitted]`);
    return parts.join("\n");
}

export function runCommandTool(opts: {defaultTimeoutS?: number; maxTimeoutS?: number} = {}): Tool<RunCommandArgs> {
    const def = opts.defaultTimeoutS ?? 60, maxT = opts.maxTimeoutS ?? 600;
    return {
        definition: {
            name: "run_command",
            description: `Run a shell command in the workspace, in a sandbox (no network; only the workspace is writable). Returns the exit code and the end of stdout/stderr. Default timeout ${def} s.`,
            parameters: {
                type: "object",
                properties: {
                    command: {type: "string", description: "Shell command line, e.g. `ls src && npm run build`", minLength: 1, maxLength: 10_000},
                    timeout_s: {type: "integer", description: `Seconds before it is killed (default ${def}, at most ${maxT})`, minimum: 1, maximum: maxT},
                    cwd: {type: "string", description: "Working folder relative to the workspace root (default: the root)", maxLength: 4096},
                },
                required: ["command"],
                additionalProperties: false,
            },
            approval: "ask",
            readOnly: false,
            summarize: a => `run \`${a.command.length > 120 ? `${a.command.slice(0, 120)}…` : a.command}\``,
        },
        async run(a, ctx) {
            const timeoutMs = (a.timeout_s ?? def) * 1000;
            const r = await ctx.sandbox.run(a.command, {timeoutMs, signal: ctx.signal, cwd: a.cwd, onOutput: ctx.onOutput ? c => ctx.onOutput!(c) : undefined});
            const observation = formatRun(a.command, r, timeoutMs);
            const ok = !r.killedReason && !(r.error && r.exitCode === null);
            return {ok, observation, data: {command: a.command, ...r}};
        },
    };
}
