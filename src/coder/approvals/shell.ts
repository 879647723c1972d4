// Owns splitting a shell command line into the simple commands it would run, for approval rules: `a && b | c`,
// `;`, `||`, `&`, subshells, `$( )` and backticks (their inner commands count too), redirections, leading assignments.
// It is deliberately conservative: anything it cannot read with certainty (heredocs, control flow, functions, a
// command name built from a variable, `$(( ))`, process substitution, unbalanced quotes) is "unparseable", and the
// policy then asks. It never executes or expands anything.

export interface Redirect {
    /** ">", ">>", "<", "&>", "2>", ">&", ... as written (without the fd digit for ">&N" forms). */
    op: string;
    target: string;
}

export interface SimpleCommand {
    /** Words after assignments, quotes removed. A word that contained an expansion keeps its raw text. */
    words: string[];
    /** Leading NAME=value assignments. */
    assignments: string[];
    redirects: Redirect[];
    /** Some word contains `$…` or backticks (its value is not known before running). */
    dynamic: boolean;
}

export type ParseResult = {ok: true; commands: SimpleCommand[]} | {ok: false; reason: string};

const keywords = new Set(["if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "function", "select", "coproc"]);

class Unparseable extends Error {}

/** Parses `src` into simple commands (depth-limited recursion into `$( )`, backticks and `sh -c` is the policy's job). */
export function parseShell(src: string): ParseResult {
    try {
        const commands: SimpleCommand[] = [];
        new Parser(src, commands).parseList(undefined);
        return {ok: true, commands};
    } catch (e) {
        if (e instanceof Unparseable) return {ok: false, reason: e.message};
        throw e;
    }
}

class Parser {
    private i = 0;
    private depth = 0;
    constructor(private readonly s: string, private readonly out: SimpleCommand[]) {}

    private fail(why: string): never {
        throw new Unparseable(why);
    }

    /** Parses commands until `close` (")" for subshells / $( ), or the end). */
    parseList(close: ")" | undefined): void {
        let cur = newCommand();
        let expectTarget: string | undefined;
        const flush = () => {
            if (expectTarget) this.fail(`redirection "${expectTarget}" has no target`);
            if (cur.words.length || cur.redirects.length || cur.assignments.length) this.out.push(cur);
            cur = newCommand();
        };
        const s = this.s;
        while (this.i < s.length) {
            const c = s[this.i]!;
            if (c === " " || c === "\t") { this.i++; continue; }
            if (c === "\\" && s[this.i + 1] === "\n") { this.i += 2; continue; }
            if (c === "#" ) { while (this.i < s.length && s[this.i] !== "\n") this.i++; continue; }
            if (c === "\n" || c === ";") {
                if (s.startsWith(";;", this.i)) this.fail("case syntax (;;) is not supported");
                flush(); this.i++; continue;
            }
            if (c === "&" || c === "|") {
                if (s.startsWith("&>", this.i)) { this.i += s.startsWith("&>>", this.i) ? 3 : 2; expectTarget = "&>"; continue; }
                flush();
                this.i += (s.startsWith("&&", this.i) || s.startsWith("||", this.i) || s.startsWith("|&", this.i)) ? 2 : 1;
                continue;
            }
            if (c === "(") {
                if (cur.words.length) this.fail("a function definition or misplaced ( is not supported");
                if (s.startsWith("((", this.i)) this.fail("arithmetic (( )) is not supported");
                flush(); this.i++; this.depth++;
                this.parseList(")");
                continue;
            }
            if (c === ")") {
                if (close !== ")") this.fail("unbalanced )");
                flush(); this.i++; this.depth--;
                return;
            }
            if (c === "<" || c === ">") {
                if (s.startsWith("<<<", this.i)) { this.i += 3; expectTarget = "<<<"; continue; }
                if (s.startsWith("<<", this.i)) this.fail("heredocs (<<) are not supported");
                if (s[this.i + 1] === "(") this.fail("process substitution is not supported");
                const m = /^(>>|>\||>&|<&|<>|>|<)/.exec(s.slice(this.i))!;
                this.i += m[0].length;
                if (m[0] === ">&" || m[0] === "<&") {
                    const fd = /^\s*(\d+|-)/.exec(s.slice(this.i));
                    if (fd) { this.i += fd[0].length; cur.redirects.push({op: m[0], target: `&${fd[1]}`}); continue; }
                }
                expectTarget = m[0];
                continue;
            }
            // A word (possibly an fd-prefixed redirection like 2> or 2>&1).
            const fdRedir = /^(\d+)(>>|>&|<&|>|<)/.exec(s.slice(this.i));
            if (fdRedir && (this.i === 0 || /[\s;&|()]/.test(s[this.i - 1]!))) {
                this.i += fdRedir[0].length;
                const op = `${fdRedir[1]}${fdRedir[2]}`;
                if (fdRedir[2] === ">&" || fdRedir[2] === "<&") {
                    const fd = /^\s*(\d+|-)/.exec(s.slice(this.i));
                    if (fd) { this.i += fd[0].length; cur.redirects.push({op, target: `&${fd[1]}`}); continue; }
                }
                expectTarget = op;
                continue;
            }
            const w = this.word();
            if (expectTarget) { cur.redirects.push({op: expectTarget, target: w.text}); if (w.dynamic) cur.dynamic = true; expectTarget = undefined; continue; }
            if (cur.words.length === 0) {
                if (!w.quoted && /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(w.text)) { cur.assignments.push(w.text); if (w.dynamic) cur.dynamic = true; continue; }
                if (!w.quoted && keywords.has(w.text)) this.fail(`shell control flow ("${w.text}") is not supported`);
                if (!w.quoted && (w.text === "{" || w.text === "}" || w.text === "!")) continue;
                if (w.dynamic) this.fail("the command name comes from an expansion ($…), so it is not known before running");
            }
            if (!w.quoted && w.text === "}" ) continue;
            cur.words.push(w.text);
            if (w.dynamic) cur.dynamic = true;
        }
        if (close) this.fail(`unbalanced ( — missing ${close}`);
        flush();
    }

    /** Reads one word; nested $( ) and backticks are parsed into `out` as commands of their own. */
    private word(): {text: string; dynamic: boolean; quoted: boolean} {
        const s = this.s;
        let text = "";
        let dynamic = false, quoted = false;
        while (this.i < s.length) {
            const c = s[this.i]!;
            if (/[\s;&|()<>]/.test(c)) break;
            if (c === "\\") { text += s[this.i + 1] ?? ""; this.i += 2; quoted = true; continue; }
            if (c === "'") {
                const end = s.indexOf("'", this.i + 1);
                if (end < 0) this.fail("unbalanced single quote");
                text += s.slice(this.i + 1, end); this.i = end + 1; quoted = true; continue;
            }
            if (c === '"') {
                quoted = true; this.i++;
                for (;;) {
                    if (this.i >= s.length) this.fail("unbalanced double quote");
                    const d = s[this.i]!;
                    if (d === '"') { this.i++; break; }
                    if (d === "\\") { const n = s[this.i + 1] ?? ""; text += "$`\"\\\n".includes(n) ? n : `\\${n}`; this.i += 2; continue; }
                    if (d === "$" || d === "`") { text += this.expansion(); dynamic = true; continue; }
                    text += d; this.i++;
                }
                continue;
            }
            if (c === "$" || c === "`") { text += this.expansion(); dynamic = true; continue; }
            text += c; this.i++;
        }
        return {text, dynamic, quoted};
    }

    /** Consumes `$name`, `${…}`, `$( … )` or `` `…` `` at this.i; returns its raw text. Inner commands are parsed. */
    private expansion(): string {
        const s = this.s, start = this.i;
        if (s[this.i] === "`") {
            let j = this.i + 1, inner = "";
            while (j < s.length && s[j] !== "`") { if (s[j] === "\\") { inner += s[j + 1] ?? ""; j += 2; } else inner += s[j++]; }
            if (j >= s.length) this.fail("unbalanced backtick");
            this.nested(inner);
            this.i = j + 1;
            return s.slice(start, this.i);
        }
        const next = s[this.i + 1];
        if (next === "(") {
            if (s[this.i + 2] === "(") this.fail("arithmetic $(( )) is not supported");
            this.i += 2;
            if (++this.depth > 8) this.fail("nested too deeply");
            this.parseList(")");
            return s.slice(start, this.i);
        }
        if (next === "{") {
            const end = s.indexOf("}", this.i + 2);
            if (end < 0) this.fail("unbalanced ${");
            if (/[`$]/.test(s.slice(this.i + 2, end))) this.fail("expansions inside ${…} are not supported");
            this.i = end + 1;
            return s.slice(start, this.i);
        }
        const m = /^\$([A-Za-z_][A-Za-z0-9_]*|[0-9#?$!@*-])/.exec(s.slice(this.i));
        if (m) { this.i += m[0].length; return m[0]; }
        this.i++;
        return "$";
    }

    private nested(inner: string): void {
        const r = parseShell(inner);
        if (!r.ok) this.fail(`inside backticks: ${r.reason}`);
        this.out.push(...r.commands);
    }
}

function newCommand(): SimpleCommand {
    return {words: [], assignments: [], redirects: [], dynamic: false};
}
