// Owns logging for the core: a tiny Logger interface (host/ routes it to a LogOutputChannel, the CLI to stderr).

export type LogLevel = "trace" | "debug" | "info" | "warn" | "error";
export interface Logger {
    log(level: LogLevel, message: string): void;
}

const order: Record<LogLevel, number> = {trace: 0, debug: 1, info: 2, warn: 3, error: 4};

export function stderrLogger(min: LogLevel = (process.env.NANO_LOG as LogLevel) || "warn"): Logger {
    return {log: (level, message) => { if (order[level] >= order[min]) process.stderr.write(`[${level}] ${message}\n`); }};
}

export const silentLogger: Logger = {log: () => {}};
