// Owns the write_file tool: create or replace a whole text file in the workspace (recorded for undo first).

import {lstat, readFile} from "node:fs/promises";
import {displayPath, resolveInWorkspace} from "../sandbox/paths";
import {writeTracked} from "./file_write";
import {binaryReason, plural} from "./text";
import type {Tool} from "./types";

export interface WriteFileArgs { path: string; content: string }

/** Largest content accepted, characters. */
export const maxWriteChars = 1_000_000;

export function writeFileTool(): Tool<WriteFileArgs> {
    return {
        definition: {
            name: "write_file",
            description: "Create a file, or replace a file's whole content. Missing folders are created. Prefer edit_file to change part of an existing file.",
            parameters: {
                type: "object",
                properties: {
                    path: {type: "string", description: "File path relative to the workspace root", minLength: 1, maxLength: 4096},
                    content: {type: "string", description: "The complete new content of the file", maxLength: maxWriteChars},
                },
                required: ["path", "content"],
                additionalProperties: false,
            },
            approval: "ask",
            readOnly: false,
            summarize: a => `write ${a.path} (${plural(a.content.split("\n").length, "line")})`,
        },
        async run(a, ctx) {
            const abs = await resolveInWorkspace(ctx.workspace, a.path);
            const rel = displayPath(ctx.workspace, abs);
            if (a.content.includes("\0")) return {ok: false, observation: `The content for ${rel} contains NUL characters; only text can be written.`};
            let before: string | undefined;
            try {
                const st = await lstat(abs);
                if (st.isDirectory()) return {ok: false, observation: `${rel} is a folder; give a file path.`};
                const buf = await readFile(abs);
                if (binaryReason(buf)) return {ok: false, observation: `${rel} is a binary file; it is not replaced by text.`};
                before = buf.toString("utf8");
            } catch (e) {
                if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
            }
            if (before === a.content) return {ok: true, observation: `${rel} already has exactly this content; nothing changed.`, data: {path: rel, unchanged: true}};
            const change = await writeTracked(ctx, abs, a.content, before);
            const lines = a.content === "" ? 0 : a.content.split("\n").length - (a.content.endsWith("\n") ? 1 : 0);
            const observation = change.created
                ? `Created ${rel} (${plural(lines, "line")}, ${change.bytes} bytes).`
                : `Replaced ${rel} (${plural(lines, "line")}; +${change.added} -${change.removed} lines).`;
            return {ok: true, observation, data: change};
        },
    };
}
