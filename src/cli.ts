// Owns the `nano-coder` command line: dispatches argv to the registered commands (the headless face of the core).

import {NanoError, errorMessage} from "./common/errors";
import {UsageError, type CliCommand, type CliIO} from "./cli/command";
import {commands} from "./cli/commands";

function help(io: CliIO): void {
    io.out("usage: nano-coder <command> [options]\n\ncommands:\n");
    for (const c of commands) io.out(`  ${c.name.padEnd(12)} ${c.summary}\n`);
    io.out("\n`nano-coder <command> --help` shows a command's options.\n");
}

export async function main(argv: string[]): Promise<number> {
    // `nano-coder inspect m.gguf | head` closes the pipe early: that is not an error.
    process.stdout.on("error", e => { if ((e as NodeJS.ErrnoException).code === "EPIPE") process.exit(0); throw e; });
    const ac = new AbortController();
    const onInt = () => { if (ac.signal.aborted) process.exit(130); ac.abort(); };
    process.on("SIGINT", onInt);
    const io: CliIO = {out: t => process.stdout.write(t), err: t => process.stderr.write(t), signal: ac.signal};
    try {
        const [name, ...rest] = argv;
        if (!name || name === "--help" || name === "-h" || name === "help") { help(io); return name ? 0 : 2; }
        const cmd: CliCommand | undefined = commands.find(c => c.name === name);
        if (!cmd) { io.err(`nano-coder: unknown command "${name}"\n`); help(io); return 2; }
        if (rest.includes("--help") || rest.includes("-h")) { io.out(`${cmd.usage}\n`); return 0; }
        try {
            return await cmd.run(rest, io);
        } catch (e) {
            if (e instanceof UsageError || (e as {code?: string}).code?.startsWith("ERR_PARSE_ARGS")) {
                io.err(`nano-coder ${name}: ${errorMessage(e)}\n${cmd.usage}\n`);
                return 2;
            }
            throw e;
        }
    } catch (e) {
        io.err(`nano-coder: ${e instanceof NanoError ? `${e.message} [${e.code}]` : (e as Error)?.stack ?? String(e)}\n`);
        return 1;
    } finally {
        process.off("SIGINT", onInt);
    }
}

// Run when bundled as dist/cli.mjs or executed directly (not when imported by tests).
const entry = process.argv[1] ?? "";
if (/(^|[\\/])(cli\.mjs|cli\.ts|nano-coder(\.mjs)?)$/.test(entry)) {
    main(process.argv.slice(2)).then(code => { process.exitCode = code; });
}
