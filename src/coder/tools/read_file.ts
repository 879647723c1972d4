// Owns the read_file tool: a text file (or a line range of it) from the workspace, size-capped with a clear
// "truncated" marker, binary files refused politely.

import {readFile, stat} from "node:fs/promises";
import {displayPath, resolveInWorkspace} from "../sandbox/paths";
import {binaryReason} from "./text";
import type {Tool} from "./types";

export interface ReadFileArgs { path: string; start_line?: number; end_line?: number }

export interface ReadFileOptions {
    /** Characters of file text per observation. Default 12 000. */
    maxChars?: number;
    /** Larger files are refused (use a line range on a smaller file, or search). Default 8 MiB. */
    maxFileBytes?: number;
}

export function readFileTool(opts: ReadFileOptions = {}): Tool<ReadFileArgs> {
    const maxChars = opts.maxChars ?? 12_000;
    const maxBytes = opts.maxFileBytes ?? 8 * 1024 * 1024;
    return {
        definition: {
            name: "read_file",
            description: "Read a text file from the workspace. Optionally a range of lines (1-based, inclusive). Long files are truncated; read further with start_line.",
            parameters: {
                type: "object",
                properties: {
                    path: {type: "string", description: "File path relative to the workspace root", minLength: 1, maxLength: 4096},
                    start_line: {type: "integer", description: "First line to read (1-based)", minimum: 1},
                    end_line: {type: "integer", description: "Last line to read (inclusive)", minimum: 1},
                },
                required: ["path"],
                additionalProperties: false,
            },
            approval: "never",
            readOnly: true,
            summarize: a => `read ${a.path}${a.start_line || a.end_line ? ` lines ${a.start_line ?? 1}-${a.end_line ?? "end"}` : ""}`,
        },
        async run(a, ctx) {
            const abs = await resolveInWorkspace(ctx.workspace, a.path, {mustExist: true});
            const rel = displayPath(ctx.workspace, abs);
            const st = await stat(abs);
            if (st.isDirectory()) return {ok: false, observation: `${rel} is a folder, not a file. Use list_files to see what it contains.`};
            if (!st.isFile()) return {ok: false, observation: `${rel} is not a regular file.`};
            if (st.size > maxBytes) {
                return {ok: false, observation: `${rel} is too large to read (${st.size} bytes; the limit is ${maxBytes}). Use search to find the part you need.`};
            }
            const buf = await readFile(abs);
            const why = binaryReason(buf);
            if (why) return {ok: false, observation: `${rel} is not shown: ${why} (${buf.length} bytes). Only text files can be read.`, data: {path: rel, binary: true, bytes: buf.length}};
            const text = buf.toString("utf8");
            const lines = text.split("\n");
            if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
            const total = text === "" ? 0 : lines.length;
            const start = a.start_line ?? 1;
            if (total === 0) return {ok: true, observation: `${rel} is empty.`, data: {path: rel, totalLines: 0, bytes: 0}};
            if (start > total) return {ok: false, observation: `start_line ${start} is past the end of ${rel}, which has ${total} lines.`};
            const end = Math.min(total, a.end_line ?? total);
            if (end < start) return {ok: false, observation: `end_line ${end} is before start_line ${start}.`};
            let out = "";
            let last = start - 1;
            for (let i = start - 1; i < end; i++) {
                const line = lines[i]!;
                if (out.length + line.length + 1 > maxChars && i > start - 1) break;
                out += (line.length > maxChars ? `${line.slice(0, maxChars)} [… line cut at ${maxChars} characters]` : line) + "\n";
                last = i + 1;
            }
            const truncated = last < end;
            const range = start === 1 && last === total ? `${total} lines` : `lines ${start}-${last} of ${total}`;
            let observation = `${rel} (${range}):\n${out}`;
            if (truncated) observation += `[truncated: showing lines ${start}-${last} of ${total}. Read more with start_line=${last + 1}.]`;
            return {ok: true, observation, data: {path: rel, startLine: start, endLine: last, totalLines: total, truncated, bytes: buf.length}};
        },
    };
}
