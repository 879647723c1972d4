// Owns the shape of a CLI command (name, usage, run) and the output sink commands write to.

export interface CliIO {
    out(text: string): void;
    err(text: string): void;
    /** Aborted on SIGINT: long commands stop cleanly. */
    signal: AbortSignal;
}

export interface CliCommand {
    name: string;
    summary: string;
    usage: string;
    /** Returns the process exit status. Throwing a UsageError prints the usage and exits 2. */
    run(argv: string[], io: CliIO): Promise<number>;
}

export class UsageError extends Error {}
