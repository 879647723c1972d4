// Owns the approval policy: for one tool call, "allow", "ask" or "deny", with the reason. Read-only tools run;
// writes and commands ask unless allowed; allow/deny lists apply to every simple command of a compound command line.
// Enforced by ToolRegistry.invoke (the core), so no UI can skip it.

import {parseShell, type SimpleCommand} from "./shell";

export type Decision = "allow" | "ask" | "deny";
export interface Verdict { decision: Decision; reason: string }

export interface ApprovalConfig {
    /** "ask" (default): read-only tools run, the rest ask unless allowed. "auto": all runs unless denied (headless runs in
     *  snapshots). "read-only": only read-only tools run; anything else is denied. */
    mode?: "ask" | "auto" | "read-only";
    /** Per-tool override, e.g. {run_tests: "allow"}. */
    tools?: Record<string, Decision>;
    /** Command prefixes that run without asking, word by word with `*` globs: "npm test", "git status", "ls", "npm run *". */
    allowCommands?: string[];
    /** Command prefixes always refused, even in "auto" mode: "rm -rf /", "git push", "curl". */
    denyCommands?: string[];
    /** Built-in read-only commands (ls, cat, grep, git status, ...) run without asking. Default true. */
    allowReadOnlyCommands?: boolean;
}

/** What the policy needs to know about a tool (from its definition). */
export interface ToolClass { approval: "never" | "ask"; readOnly: boolean }

/** Tools whose `command` argument is a shell command line. */
const commandTools = new Set(["run_command"]);

const readOnlyCommands = new Set([
    "ls", "cat", "head", "tail", "wc", "pwd", "echo", "printf", "grep", "egrep", "fgrep", "rg", "tree", "file", "stat", "du", "df",
    "which", "whoami", "date", "diff", "cmp", "uniq", "cut", "tr", "basename", "dirname", "realpath", "readlink", "true", "false",
    "test", "[", "[[", "nl", "less", "more", "env", "printenv", "uname", "id", "sha256sum", "md5sum", "jq", "column",
]);
const readOnlyGit = new Set(["status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "grep", "describe", "shortlog"]);
/** Options that make an otherwise read-only command write or run something. */
const writingFlags: Record<string, RegExp> = {
    find: /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/,
    sort: /^(-o|--output)/,
    tree: /^-o$/,
    env: /./, // `env` with arguments runs a command (handled by unwrapping); bare `env` only prints
    rg: /^--pre$/,
};

/** Wrappers whose real command follows (after their own options). */
const wrappers = new Set(["sudo", "env", "nice", "nohup", "time", "timeout", "command", "exec", "xargs", "stdbuf", "ionice", "doas"]);

function globWord(pattern: string, word: string): boolean {
    if (!pattern.includes("*")) return pattern === word;
    const re = new RegExp(`^${pattern.split("*").map(p => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
    return re.test(word);
}

function basename(w: string): string {
    return w.includes("/") ? w.slice(w.lastIndexOf("/") + 1) : w;
}

/** Parses "git push" / "npm run *" into words. */
function patternWords(p: string): string[] {
    return p.trim().split(/\s+/).filter(Boolean);
}

function matches(pattern: string, words: string[]): boolean {
    const pw = patternWords(pattern);
    if (!pw.length || words.length < pw.length && !(pw.length === words.length + 1 && pw[pw.length - 1] === "*")) return false;
    return pw.every((p, i) => (i === 0 ? globWord(p, basename(words[0] ?? "")) : words[i] !== undefined ? globWord(p, words[i]!) : p === "*"));
}

/** Expands wrappers (`sudo x`, `timeout 5 x`, `xargs x`) and `sh -c "..."` into the commands they run. */
function expand(cmd: SimpleCommand, depth = 0): {commands: string[][]; opaque?: string} {
    let w = [...cmd.words];
    const out: string[][] = [];
    while (w.length && wrappers.has(basename(w[0]!))) {
        const name = basename(w[0]!);
        out.push([w[0]!]);
        w = w.slice(1);
        while (w.length && (w[0]!.startsWith("-") || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w[0]!) || (name === "timeout" && /^\d/.test(w[0]!)))) {
            const flag = w.shift()!;
            if (name === "xargs" && /^-[nILPsdE]$/.test(flag)) w.shift();
            if (name === "nice" && flag === "-n") w.shift();
        }
    }
    if (!w.length) return {commands: out.length ? out : [cmd.words]};
    const sh = basename(w[0]!);
    if (["sh", "bash", "dash", "zsh"].includes(sh)) {
        const c = w.indexOf("-c");
        if (c < 0 || w[c + 1] === undefined) return {commands: [...out, w], opaque: `"${sh}" runs a script file`};
        if (depth > 3) return {commands: [...out, w], opaque: "nested too deeply"};
        const r = parseShell(w[c + 1]!);
        if (!r.ok) return {commands: [...out, w], opaque: `${sh} -c: ${r.reason}`};
        for (const inner of r.commands) {
            const e = expand(inner, depth + 1);
            if (e.opaque) return {commands: [...out, ...e.commands], opaque: e.opaque};
            out.push(...e.commands);
        }
        return {commands: out};
    }
    if (["eval", "source", "."].includes(sh)) return {commands: [...out, w], opaque: `"${sh}" runs code that cannot be checked beforehand`};
    out.push(w);
    return {commands: out};
}

function isReadOnly(words: string[], cmd: SimpleCommand): boolean {
    const name = basename(words[0] ?? "");
    if (cmd.redirects.some(r => /^(\d*)(>|>>|>\||&>|&>>)$/.test(r.op) && r.target !== "/dev/null")) return false;
    if (name === "git") return readOnlyGit.has(words[1] ?? "") && !words.some(w => /^--output/.test(w));
    if (!readOnlyCommands.has(name)) return false;
    const bad = writingFlags[name];
    return !bad || !words.slice(1).some(w => bad.test(w));
}

export class ApprovalPolicy {
    private readonly cfg: Required<Omit<ApprovalConfig, "tools">> & {tools: Record<string, Decision>};

    constructor(config: ApprovalConfig = {}) {
        this.cfg = {
            mode: config.mode ?? "ask", tools: {...(config.tools ?? {})}, allowCommands: [...(config.allowCommands ?? [])],
            denyCommands: [...(config.denyCommands ?? [])], allowReadOnlyCommands: config.allowReadOnlyCommands ?? true,
        };
    }

    /** Headless runs inside a sandboxed snapshot (trainer rollouts, CLI): everything not denied runs. */
    static auto(config: Omit<ApprovalConfig, "mode"> = {}): ApprovalPolicy {
        return new ApprovalPolicy({...config, mode: "auto"});
    }

    decide(tool: string, args: unknown, cls?: ToolClass): Decision {
        return this.evaluate(tool, args, cls).decision;
    }

    /** The decision and why, in words for the approval prompt and for the model when refused. */
    evaluate(tool: string, args: unknown, cls: ToolClass = {approval: "ask", readOnly: false}): Verdict {
        const rule = this.cfg.tools[tool];
        if (rule === "deny") return {decision: "deny", reason: `the tool ${tool} is denied by the settings`};
        const command = commandTools.has(tool) ? (args as {command?: unknown})?.command : undefined;
        const cmd = typeof command === "string" ? this.checkCommand(command) : undefined;
        if (cmd?.decision === "deny") return cmd;
        if (this.cfg.mode === "read-only" && !cls.readOnly) return {decision: "deny", reason: `read-only mode: ${tool} could change the workspace`};
        if (rule === "allow") return {decision: "allow", reason: `the tool ${tool} is allowed by the settings`};
        if (rule === "ask") return {decision: "ask", reason: `the settings ask before ${tool}`};
        if (this.cfg.mode === "auto") return {decision: "allow", reason: "auto-approve mode"};
        if (cmd) return cmd;
        if (cls.approval === "never" || cls.readOnly) return {decision: "allow", reason: `${tool} only reads`};
        return {decision: "ask", reason: `${tool} changes the workspace`};
    }

    /** Verdict for a shell command line: deny if any part is denied; allow if every part is allowed; else ask. */
    checkCommand(line: string): Verdict {
        const parsed = parseShell(line);
        if (!parsed.ok) {
            // Cannot see the parts: still refuse a denied prefix that appears anywhere in the text.
            const hit = this.cfg.denyCommands.find(d => new RegExp(`(^|[\\s;&|(\`$])${patternWords(d).map(w => w.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\\\*/g, "\\S*")).join("\\s+")}(\\s|$|[;&|)\`])`).test(line));
            if (hit) return {decision: "deny", reason: `the command contains "${hit}", which is denied`};
            return {decision: "ask", reason: `the command cannot be checked part by part (${parsed.reason})`};
        }
        const parts: {words: string[]; cmd: SimpleCommand}[] = [];
        let opaque: string | undefined;
        for (const c of parsed.commands) {
            if (!c.words.length) continue;
            const e = expand(c);
            opaque ??= e.opaque;
            for (const words of e.commands) parts.push({words, cmd: c});
        }
        for (const p of parts) {
            const d = this.cfg.denyCommands.find(pat => matches(pat, p.words));
            if (d) return {decision: "deny", reason: `"${p.words.join(" ")}" matches the deny rule "${d}"`};
        }
        if (opaque) return {decision: "ask", reason: opaque};
        if (!parts.length) return {decision: "ask", reason: "the command line has no command"};
        const unapproved = parts.find(p => {
            const name = basename(p.words[0]!);
            if (wrappers.has(name) && p.words.length === 1 && name !== "sudo" && name !== "doas") return false; // the wrapped command is checked itself
            if (this.cfg.allowCommands.some(a => matches(a, p.words))) return false;
            return !(this.cfg.allowReadOnlyCommands && isReadOnly(p.words, p.cmd));
        });
        if (unapproved) return {decision: "ask", reason: `"${unapproved.words.join(" ")}" is not in the allow list`};
        return {decision: "allow", reason: parts.length > 1 ? "every part of the command is allowed" : "the command is allowed"};
    }
}
