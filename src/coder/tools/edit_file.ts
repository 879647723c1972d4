// Owns the edit_file tool: exact search/replace blocks applied in order, all or nothing. A block that matches 0 or
// more than 1 times is an error that shows the model what the file actually holds there.

import {readFile, stat} from "node:fs/promises";
import {displayPath, resolveInWorkspace} from "../sandbox/paths";
import {writeTracked} from "./file_write";
import {binaryReason, bound, plural} from "./text";
import type {Tool} from "./types";

export interface EditBlock { search: string; replace: string }
export interface EditFileArgs { path: string; edits: EditBlock[] }

function lineOf(text: string, index: number): number {
    let n = 1;
    for (let i = text.indexOf("\n"); i >= 0 && i < index; i = text.indexOf("\n", i + 1)) n++;
    return n;
}

function occurrences(text: string, needle: string): number[] {
    const at: number[] = [];
    for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length)) at.push(i);
    return at;
}

function numbered(lines: string[], from: number, to: number): string {
    const width = String(to).length;
    return lines.slice(from - 1, to).map((l, i) => `${String(from + i).padStart(width)}| ${l}`).join("\n");
}

/** Similarity of two lines: shared characters in order, 0..1 (cheap: common prefix + suffix after trimming). */
function similarity(a: string, b: string): number {
    const x = a.trim(), y = b.trim();
    if (!x || !y) return 0;
    if (x === y) return 1;
    let p = 0;
    while (p < x.length && p < y.length && x[p] === y[p]) p++;
    let s = 0;
    while (s < x.length - p && s < y.length - p && x[x.length - 1 - s] === y[y.length - 1 - s]) s++;
    return (p + s) / Math.max(x.length, y.length);
}

/** Explains why `search` was not found, showing the closest region of the file (line-numbered). */
export function explainNoMatch(content: string, search: string): string {
    const lines = content.split("\n");
    const want = search.split("\n");
    // Same lines apart from indentation or trailing spaces?
    const norm = (l: string) => l.trim();
    const wantNorm = want.map(norm);
    while (wantNorm.length && wantNorm[wantNorm.length - 1] === "") wantNorm.pop();
    for (let i = 0; wantNorm.length && i + wantNorm.length <= lines.length; i++) {
        if (wantNorm.every((w, j) => norm(lines[i + j]!) === w)) {
            return `It matches lines ${i + 1}-${i + wantNorm.length} only if whitespace is ignored; search must match exactly, including indentation. The file has:\n${numbered(lines, i + 1, i + wantNorm.length)}`;
        }
    }
    // Otherwise: the region around the best match of the most distinctive search line.
    const probe = [...want].sort((a, b) => b.trim().length - a.trim().length)[0] ?? "";
    const probeIdx = want.indexOf(probe);
    let best = -1, score = 0;
    for (let i = 0; i < lines.length; i++) {
        const sc = similarity(lines[i]!, probe);
        if (sc > score) { score = sc; best = i; }
    }
    if (best < 0 || score < 0.3) {
        const head = Math.min(lines.length, 20);
        return `Nothing in the file resembles it. The file has ${plural(lines.length, "line")}; it starts with:\n${numbered(lines, 1, head)}`;
    }
    const from = Math.max(1, best + 1 - probeIdx - 2), to = Math.min(lines.length, best + 1 - probeIdx + want.length + 2);
    return `The closest text is at lines ${from}-${to}:\n${numbered(lines, from, to)}`;
}

export function editFileTool(): Tool<EditFileArgs> {
    return {
        definition: {
            name: "edit_file",
            description: "Change part of an existing file with search/replace blocks. Each search text must appear exactly once in the file, character for character (including indentation). Blocks apply in order; if any block fails, nothing is changed.",
            parameters: {
                type: "object",
                properties: {
                    path: {type: "string", description: "File path relative to the workspace root", minLength: 1, maxLength: 4096},
                    edits: {
                        type: "array", minItems: 1, maxItems: 50,
                        items: {
                            type: "object",
                            properties: {
                                search: {type: "string", description: "Exact text to find (include enough lines to be unique)", minLength: 1, maxLength: 200_000},
                                replace: {type: "string", description: "Text to put in its place", maxLength: 200_000},
                            },
                            required: ["search", "replace"],
                            additionalProperties: false,
                        },
                    },
                },
                required: ["path", "edits"],
                additionalProperties: false,
            },
            approval: "ask",
            readOnly: false,
            summarize: a => `edit ${a.path} (${plural(a.edits.length, "block")})`,
        },
        async run(a, ctx) {
            const abs = await resolveInWorkspace(ctx.workspace, a.path, {mustExist: true});
            const rel = displayPath(ctx.workspace, abs);
            if ((await stat(abs)).isDirectory()) return {ok: false, observation: `${rel} is a folder, not a file.`};
            const buf = await readFile(abs);
            if (binaryReason(buf)) return {ok: false, observation: `${rel} is a binary file; it cannot be edited as text.`};
            const original = buf.toString("utf8");
            const crlf = original.includes("\r\n");
            let content = original;
            for (const [i, block] of a.edits.entries()) {
                let {search, replace} = block;
                // A file with CRLF line ends, a block written with LF: match it the file's way.
                if (crlf && !search.includes("\r") && search.includes("\n") && !content.includes(search)) {
                    search = search.replace(/\n/g, "\r\n");
                    replace = replace.replace(/\r?\n/g, "\r\n");
                }
                const found = occurrences(content, search);
                const label = a.edits.length > 1 ? `Block ${i + 1} of ${a.edits.length}` : "The search text";
                if (found.length === 0) {
                    const prior = i > 0 ? ` (after applying the ${plural(i, "earlier block")})` : "";
                    return {ok: false, observation: bound(`${label} was not found in ${rel}${prior}. Nothing was changed.\n${explainNoMatch(content, search)}`, 6000), data: {path: rel, failedBlock: i, matches: 0}};
                }
                if (found.length > 1) {
                    const where = found.slice(0, 10).map(f => lineOf(content, f)).join(", ");
                    return {ok: false, observation: `${label} matches ${found.length} times in ${rel} (at lines ${where}). Nothing was changed. Include more surrounding lines in search so that it matches exactly once.`, data: {path: rel, failedBlock: i, matches: found.length}};
                }
                content = content.slice(0, found[0]!) + replace + content.slice(found[0]! + search.length);
            }
            if (content === original) return {ok: true, observation: `The edits leave ${rel} unchanged (search and replace are the same).`, data: {path: rel, unchanged: true}};
            const change = await writeTracked(ctx, abs, content, original);
            const preview = change.diff.length <= 3000 ? `\n${change.diff}` : "";
            return {ok: true, observation: `Edited ${rel}: ${plural(a.edits.length, "block")} applied (+${change.added} -${change.removed} lines).${preview}`, data: change};
        },
    };
}
