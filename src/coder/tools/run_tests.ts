// Owns the run_tests tool: runs the workspace's test command (configured, or detected from its files) in the
// sandbox and reports a parsed pass/fail summary with the failing tests and the end of the output.

import {cleanTerminal} from "./text";
import {detectTestCommand} from "./test_command";
import {describeSummary, parseTestOutput} from "./test_summary";
import type {Tool} from "./types";

export interface RunTestsArgs { timeout_s?: number }
export interface RunTestsOptions {
    /** The configured test command; when absent it is detected (package.json, pytest, cargo, go, make). */
    testCommand?: string;
    /** Default 300 s. */
    defaultTimeoutS?: number;
}

export function runTestsTool(opts: RunTestsOptions = {}): Tool<RunTestsArgs> {
    const def = opts.defaultTimeoutS ?? 300;
    return {
        definition: {
            name: "run_tests",
            description: "Run the project's tests (its configured or detected test command) in the sandbox and get a pass/fail summary with the failing tests.",
            parameters: {
                type: "object",
                properties: {
                    timeout_s: {type: "integer", description: `Seconds before the run is killed (default ${def})`, minimum: 1, maximum: 1800},
                },
                required: [],
                additionalProperties: false,
            },
            approval: "ask",
            readOnly: false,
            summarize: () => `run tests${opts.testCommand ? ` (\`${opts.testCommand}\`)` : ""}`,
        },
        async run(a, ctx) {
            const found = opts.testCommand ? {command: opts.testCommand, source: "settings"} : await detectTestCommand(ctx.workspace);
            if (!found) {
                return {ok: false, observation: "No test command was found (no package.json test script, pytest, Cargo.toml, go.mod or Makefile test target). Use run_command to run tests directly."};
            }
            const timeoutMs = (a.timeout_s ?? def) * 1000;
            const r = await ctx.sandbox.run(found.command, {timeoutMs, signal: ctx.signal, onOutput: ctx.onOutput ? c => ctx.onOutput!(c) : undefined});
            const output = cleanTerminal(`${r.stdoutTail}\n${r.stderrTail}`);
            const summary = parseTestOutput(output);
            const verdict = r.killedReason
                ? `Tests did not finish: killed (${r.killedReason})${r.killedReason === "timeout" ? ` after ${timeoutMs / 1000} s` : ""}.`
                : r.exitCode === 0 ? "Tests passed." : `Tests failed (exit code ${r.exitCode ?? r.signal}).`;
            const counts = describeSummary(summary);
            const lines = [`$ ${found.command}   [${found.source}; sandbox: ${r.mode === "strong" ? "strong" : "WEAK (no bubblewrap)"}]`, verdict + (counts ? ` ${counts}.` : "")];
            if (summary.failures.length) lines.push(`Failing: ${summary.failures.slice(0, 10).join("; ")}`);
            const tail = output.trim().split("\n").slice(-60).join("\n");
            if (r.exitCode !== 0 || !counts) lines.push(`Output (end):\n${tail.length > 6000 ? tail.slice(-6000) : tail}`);
            const passed = r.exitCode === 0 && !r.killedReason;
            return {
                ok: !r.killedReason && !(r.error && r.exitCode === null),
                observation: lines.join("\n"),
                data: {command: found.command, source: found.source, passed, exitCode: r.exitCode, killedReason: r.killedReason, mode: r.mode, summary, durationMs: r.durationMs},
            };
        },
    };
}
