// Owns the search tool: find text (literal or regex) in workspace files — ripgrep when it is installed (respects
// .gitignore, never follows symlinks), a JavaScript walk otherwise. Results are "path:line: text", capped.

import {readdir, readFile, stat} from "node:fs/promises";
import {join} from "node:path";
import {findExecutable} from "../sandbox/detect";
import {displayPath, resolveInWorkspace} from "../sandbox/paths";
import {runBounded} from "../sandbox/process";
import {skippedDirs} from "./list_files";
import {binaryReason} from "./text";
import type {Tool, ToolContext} from "./types";

export interface SearchArgs { pattern: string; path?: string; regex?: boolean; case_sensitive?: boolean; glob?: string; max_results?: number }
export interface SearchMatch { path: string; line: number; text: string }
export interface SearchOptions {
    /** Use ripgrep when found (default true); false forces the JavaScript fallback (tests). */
    ripgrep?: boolean;
}

const maxLineChars = 200;

function globToRegExp(glob: string): RegExp {
    let re = "";
    for (let i = 0; i < glob.length; i++) {
        const c = glob[i]!;
        if (c === "*") { if (glob[i + 1] === "*") { re += ".*"; i++; if (glob[i + 1] === "/") i++; } else re += "[^/]*"; }
        else if (c === "?") re += "[^/]";
        else if (c === "{") re += "(";
        else if (c === "}") re += ")";
        else if (c === "," ) re += "|";
        else re += c.replace(/[.+^$()|[\]\\]/g, "\\$&");
    }
    return new RegExp(glob.includes("/") ? `^${re}$` : `(^|/)${re}$`);
}

async function searchJs(root: string, ctx: ToolContext, re: RegExp, glob: RegExp | undefined, max: number): Promise<{matches: SearchMatch[]; more: boolean}> {
    const matches: SearchMatch[] = [];
    let more = false;
    const walk = async (dir: string): Promise<void> => {
        let items;
        try { items = await readdir(dir, {withFileTypes: true}); } catch { return; }
        items.sort((a, b) => a.name.localeCompare(b.name));
        for (const it of items) {
            if (more || ctx.signal?.aborted) return;
            const p = join(dir, it.name);
            if (it.isDirectory()) { if (!skippedDirs.has(it.name)) await walk(p); continue; }
            if (!it.isFile()) continue;
            const rel = displayPath(ctx.workspace, p);
            if (glob && !glob.test(rel)) continue;
            try { if ((await stat(p)).size > 2 * 1024 * 1024) continue; } catch { continue; }
            const buf = await readFile(p).catch(() => undefined);
            if (!buf || binaryReason(buf)) continue;
            const lines = buf.toString("utf8").split("\n");
            for (let i = 0; i < lines.length; i++) {
                re.lastIndex = 0;
                if (!re.test(lines[i]!)) continue;
                if (matches.length >= max) { more = true; return; }
                matches.push({path: rel, line: i + 1, text: lines[i]!.slice(0, maxLineChars)});
            }
        }
    };
    const st = await stat(root);
    if (st.isFile()) {
        const buf = await readFile(root);
        if (!binaryReason(buf)) buf.toString("utf8").split("\n").forEach((l, i) => {
            if (re.test(l)) { if (matches.length >= max) more = true; else matches.push({path: displayPath(ctx.workspace, root), line: i + 1, text: l.slice(0, maxLineChars)}); }
        });
    } else await walk(root);
    return {matches, more};
}

async function searchRg(rg: string, root: string, ctx: ToolContext, a: SearchArgs, max: number): Promise<{matches: SearchMatch[]; more: boolean} | {error: string}> {
    const argv = [rg, "--line-number", "--no-heading", "--with-filename", "--color", "never", "--no-messages", "--max-filesize", "2M",
        "--max-columns", String(maxLineChars), "--max-columns-preview"];
    if (!a.regex) argv.push("--fixed-strings");
    argv.push(a.case_sensitive === false ? "--ignore-case" : "--case-sensitive");
    for (const d of skippedDirs) argv.push("--glob", `!${d}/`);
    if (a.glob) argv.push("--glob", a.glob);
    argv.push("--regexp", a.pattern, "--", root);
    const r = await runBounded({argv, cwd: ctx.workspace, env: {PATH: process.env.PATH ?? "/usr/bin:/bin"}, timeoutMs: 30_000, signal: ctx.signal,
        outputBytes: 4 * 1024 * 1024, headBytes: 4 * 1024 * 1024, tailBytes: 1024});
    if (r.exitCode === 2 && r.stdout.total === 0) return {error: r.stderr.text().trim() || "ripgrep failed"};
    if (r.killedReason === "timeout") return {error: "the search took longer than 30 s; narrow it with path or glob"};
    const matches: SearchMatch[] = [];
    let more = r.cutOff;
    for (const line of r.stdout.text().split("\n")) {
        const m = /^(.*?):(\d+):(.*)$/.exec(line);
        if (!m) continue;
        if (matches.length >= max) { more = true; break; }
        matches.push({path: displayPath(ctx.workspace, m[1]!), line: Number(m[2]), text: m[3]!});
    }
    return {matches, more};
}

export function searchTool(opts: SearchOptions = {}): Tool<SearchArgs> {
    const rg = opts.ripgrep === false ? undefined : findExecutable("rg");
    return {
        definition: {
            name: "search",
            description: "Search the workspace's text files for a string (or a regular expression with regex: true). Returns matching lines as path:line: text.",
            parameters: {
                type: "object",
                properties: {
                    pattern: {type: "string", description: "Text to find", minLength: 1, maxLength: 1000},
                    path: {type: "string", description: "Folder or file to search (default: the whole workspace)", maxLength: 4096},
                    regex: {type: "boolean", description: "Treat pattern as a regular expression (default false)"},
                    case_sensitive: {type: "boolean", description: "Default true"},
                    glob: {type: "string", description: "Only files matching this glob, e.g. *.ts", maxLength: 200},
                    max_results: {type: "integer", description: "Default 100", minimum: 1, maximum: 1000},
                },
                required: ["pattern"],
                additionalProperties: false,
            },
            approval: "never",
            readOnly: true,
            summarize: a => `search ${JSON.stringify(a.pattern)}${a.path ? ` in ${a.path}` : ""}`,
        },
        async run(a, ctx) {
            const root = await resolveInWorkspace(ctx.workspace, a.path || ".", {mustExist: true});
            const max = a.max_results ?? 100;
            let res: {matches: SearchMatch[]; more: boolean};
            let engine: "ripgrep" | "js";
            if (rg) {
                const r = await searchRg(rg, root, ctx, a, max);
                if ("error" in r) return {ok: false, observation: `search failed: ${r.error}`};
                res = r;
                engine = "ripgrep";
            } else {
                let re: RegExp;
                try {
                    re = new RegExp(a.regex ? a.pattern : a.pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), a.case_sensitive === false ? "i" : "");
                } catch (e) {
                    return {ok: false, observation: `search failed: invalid regular expression: ${(e as Error).message}`};
                }
                res = await searchJs(root, ctx, re, a.glob ? globToRegExp(a.glob) : undefined, max);
                engine = "js";
            }
            const {matches, more} = res;
            const data = {pattern: a.pattern, engine, matches, more};
            if (!matches.length) return {ok: true, observation: `No matches for ${JSON.stringify(a.pattern)}${a.path ? ` in ${a.path}` : ""}.`, data};
            const files = new Set(matches.map(m => m.path)).size;
            let observation = `${matches.length}${more ? "+" : ""} match${matches.length === 1 && !more ? "" : "es"} in ${files} file${files === 1 ? "" : "s"}:\n${matches.map(m => `${m.path}:${m.line}: ${m.text}`).join("\n")}`;
            if (more) observation += `\n[truncated: showing the first ${matches.length}; narrow the search with path or glob.]`;
            return {ok: true, observation, data};
        },
    };
}
