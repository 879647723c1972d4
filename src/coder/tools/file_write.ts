// Owns how tools change a file: record it in the checkpoint first, create missing folders, write, record what was
// written, and describe the change as a diff. Shared by write_file and edit_file.

import {mkdir, writeFile} from "node:fs/promises";
import {dirname} from "node:path";
import {displayPath} from "../sandbox/paths";
import {unifiedDiff} from "./diff";
import type {ToolContext} from "./types";

export interface FileChange {
    path: string;
    created: boolean;
    bytes: number;
    added: number;
    removed: number;
    /** Unified diff (bounded) for the UI and traces. */
    diff: string;
}

/** Writes `content` to `abs` (already confined to the workspace). `before` is the old text, undefined for a new file. */
export async function writeTracked(ctx: ToolContext, abs: string, content: string, before: string | undefined): Promise<FileChange> {
    await ctx.checkpoints?.beforeWrite(abs);
    await mkdir(dirname(abs), {recursive: true});
    await writeFile(abs, content, "utf8");
    await ctx.checkpoints?.afterWrite(abs);
    const rel = displayPath(ctx.workspace, abs);
    const d = unifiedDiff(before ?? "", content, rel);
    return {path: rel, created: before === undefined, bytes: Buffer.byteLength(content), added: d.added, removed: d.removed, diff: d.text.length > 100_000 ? `${d.text.slice(0, 100_000)}\n[diff truncated]` : d.text};
}
