// Owns `nano-coder sandbox`: runs one command the way the agent would (same sandbox, same limits, same observation
// text) and exits with the command's status. The sandbox's description goes to stderr, the observation to stdout.

import {constants} from "node:os";
import {parseArgs} from "node:util";
import {createSandbox} from "../coder/sandbox/sandbox";
import {formatRun} from "../coder/tools/run_command";
import {UsageError, type CliCommand} from "./command";

const usage = `usage: nano-coder sandbox --workspace DIR [--mode strong|weak|auto] [--require-strong] [--timeout SEC] -- CMD...
Runs CMD in the agent's sandbox for DIR and prints the observation the model would get. One argument after --
is a shell command line ("npm test && echo ok"); several are an argv. Exit status: the command's; 124 when it
was killed at the timeout; 128+N when ended by signal N (limits).`;

export const sandboxCommand: CliCommand = {
    name: "sandbox",
    summary: "run one command in the agent's sandbox and print the observation",
    usage,
    async run(argv, io) {
        const dash = argv.indexOf("--");
        const opts = dash >= 0 ? argv.slice(0, dash) : argv;
        const cmd = dash >= 0 ? argv.slice(dash + 1) : [];
        const {values} = parseArgs({
            args: opts,
            options: {
                workspace: {type: "string", short: "w"},
                mode: {type: "string", default: "auto"},
                "require-strong": {type: "boolean", default: false},
                timeout: {type: "string", default: "60"},
            },
            allowPositionals: false,
        });
        if (!values.workspace) throw new UsageError("--workspace is required");
        if (!cmd.length) throw new UsageError("give the command after --");
        const mode = values.mode;
        if (mode !== "strong" && mode !== "weak" && mode !== "auto") throw new UsageError(`--mode must be strong, weak or auto (got ${mode})`);
        const timeoutS = Number(values.timeout);
        if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw new UsageError(`--timeout must be a positive number of seconds`);

        const sb = await createSandbox({workspace: values.workspace, mode, requireStrong: values["require-strong"]});
        try {
            io.err(`[nano-coder] sandbox: ${sb.describe()}\n`);
            const line = cmd.length === 1 ? cmd[0]! : cmd;
            const r = await sb.run(line, {timeoutMs: timeoutS * 1000, signal: io.signal});
            io.out(`${formatRun(cmd.length === 1 ? cmd[0]! : cmd.join(" "), r, timeoutS * 1000)}\n`);
            if (r.killedReason === "timeout") return 124;
            if (r.exitCode !== null) return r.exitCode;
            const sig = r.signal ? constants.signals[r.signal as keyof typeof constants.signals] : undefined;
            return sig ? 128 + sig : 1;
        } finally {
            await sb.dispose();
        }
    },
};
