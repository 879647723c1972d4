// Owns the list_files tool: the files and folders under a workspace path, breadth-first (top levels first), capped,
// skipping version-control and dependency folders by default. Symlinks are shown, never followed.

import {readdir, readlink, stat} from "node:fs/promises";
import {join} from "node:path";
import {displayPath, resolveInWorkspace} from "../sandbox/paths";
import type {Tool} from "./types";

export interface ListFilesArgs { path?: string; depth?: number; max_entries?: number }

/** Folders listed by name but not entered. */
export const skippedDirs = new Set([".git", "node_modules", ".venv", "venv", "__pycache__", ".cache", ".mypy_cache", ".pytest_cache", "target", ".next", ".tox"]);

export function listFilesTool(): Tool<ListFilesArgs> {
    return {
        definition: {
            name: "list_files",
            description: "List files and folders under a path of the workspace (folders end with /). Top levels come first; dependency folders such as node_modules and .git are not entered.",
            parameters: {
                type: "object",
                properties: {
                    path: {type: "string", description: "Folder relative to the workspace root (default: the root)", maxLength: 4096},
                    depth: {type: "integer", description: "How many levels deep (default 4)", minimum: 1, maximum: 20},
                    max_entries: {type: "integer", description: "Most entries to show (default 300)", minimum: 1, maximum: 2000},
                },
                required: [],
                additionalProperties: false,
            },
            approval: "never",
            readOnly: true,
            summarize: a => `list ${a.path || "."}`,
        },
        async run(a, ctx) {
            const root = await resolveInWorkspace(ctx.workspace, a.path || ".", {mustExist: true});
            const rel = displayPath(ctx.workspace, root);
            if (!(await stat(root)).isDirectory()) return {ok: false, observation: `${rel} is a file, not a folder. Use read_file to read it.`};
            const depth = a.depth ?? 4, max = a.max_entries ?? 300;
            const entries: string[] = [];
            let more = 0;
            let queue: {dir: string; level: number}[] = [{dir: root, level: 1}];
            while (queue.length) {
                const next: typeof queue = [];
                for (const {dir, level} of queue) {
                    if (ctx.signal?.aborted) break;
                    let items;
                    try { items = await readdir(dir, {withFileTypes: true}); } catch { continue; }
                    items.sort((x, y) => Number(y.isDirectory()) - Number(x.isDirectory()) || x.name.localeCompare(y.name));
                    for (const it of items) {
                        const p = join(dir, it.name);
                        const shown = displayPath(ctx.workspace, p);
                        if (entries.length >= max) { more++; continue; }
                        if (it.isSymbolicLink()) entries.push(`${shown} -> ${await readlink(p).catch(() => "?")}`);
                        else if (it.isDirectory()) {
                            const skip = skippedDirs.has(it.name);
                            entries.push(`${shown}/${skip ? " (not listed)" : ""}`);
                            if (!skip && level < depth) next.push({dir: p, level: level + 1});
                        } else entries.push(shown);
                    }
                }
                queue = next;
            }
            if (!entries.length) return {ok: true, observation: `${rel} is empty.`, data: {path: rel, entries}};
            let observation = `${rel === "." ? "Workspace" : rel} (${entries.length}${more ? "+" : ""} entries):\n${entries.join("\n")}`;
            if (more) observation += `\n[truncated: ${more} more entries not shown; list a subfolder or raise max_entries.]`;
            return {ok: true, observation, data: {path: rel, entries, more}};
        },
    };
}
