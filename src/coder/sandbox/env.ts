// Owns the environment a sandboxed command sees: an allowlist of harmless host variables plus the sandbox's own.
// Tokens, keys and anything else in the host environment never pass unless named explicitly.

/** Host variables passed through by default: locale, terminal, time zone, PATH. Nothing that usually holds a secret. */
export const defaultEnvAllowlist = ["PATH", "LANG", "LANGUAGE", "TERM", "TZ", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "LC_*"];

function allowed(name: string, list: string[]): boolean {
    return list.some(p => (p.endsWith("*") ? name.startsWith(p.slice(0, -1)) : name === p));
}

/** The environment of one command: allowlisted host variables, then the sandbox's fixed ones, then the caller's `extra`. */
export function sandboxEnv(opts: {home: string; tmp: string; mode: string; allowlist?: string[]; extra?: Record<string, string>; host?: NodeJS.ProcessEnv}): Record<string, string> {
    const host = opts.host ?? process.env;
    const list = [...defaultEnvAllowlist, ...(opts.allowlist ?? [])];
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(host)) if (v !== undefined && allowed(k, list)) env[k] = v;
    env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
    env.HOME = opts.home;
    env.TMPDIR = opts.tmp;
    env.NANO_SANDBOX = opts.mode;
    env.CI = "1"; // test runners and package managers: no prompts, no watch mode
    for (const [k, v] of Object.entries(opts.extra ?? {})) if (typeof v === "string") env[k] = v;
    return env;
}
