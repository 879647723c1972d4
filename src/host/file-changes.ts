// Owns working out what an edit tool call will change (before it runs) and did change (after): both versions of the
// file, for the panel's diffs and VS Code's diff editor. Mirrors write_file / edit_file semantics; a call it cannot
// predict (a block that does not match exactly once, a path outside the workspace) simply has no proposed change.

import {readFile} from "node:fs/promises";
import {displayPath, resolveInWorkspace} from "../coder/sandbox/paths";
import type {EngineFileChange} from "./engine";

export const EDIT_TOOLS = new Set(["write_file", "edit_file"]);

async function readText(abs: string): Promise<string | null> {
    try { return await readFile(abs, "utf8"); } catch { return null; }
}

async function target(workspace: string, path: unknown): Promise<{abs: string; rel: string} | undefined> {
    try {
        const abs = await resolveInWorkspace(workspace, path);
        return {abs, rel: displayPath(workspace, abs)};
    } catch {
        return undefined;
    }
}

function applyBlocks(text: string, edits: unknown): string | undefined {
    if (!Array.isArray(edits)) return undefined;
    let out = text;
    for (const e of edits as {search?: unknown; replace?: unknown}[]) {
        if (typeof e?.search !== "string" || typeof e.replace !== "string" || !e.search) return undefined;
        const at = out.indexOf(e.search);
        if (at < 0 || out.indexOf(e.search, at + e.search.length) >= 0) return undefined;
        out = out.slice(0, at) + e.replace + out.slice(at + e.search.length);
    }
    return out;
}

/** The change `tool(args)` would make, read from the workspace now; undefined when it is not an edit or cannot be predicted. */
export async function proposedChange(workspace: string, tool: string, args: Record<string, unknown>): Promise<EngineFileChange | undefined> {
    if (!EDIT_TOOLS.has(tool)) return undefined;
    const t = await target(workspace, args.path);
    if (!t) return undefined;
    const before = await readText(t.abs);
    if (tool === "write_file") return typeof args.content === "string" ? {path: t.rel, before, after: args.content} : undefined;
    if (before === null) return undefined;
    const after = applyBlocks(before, args.edits);
    return after === undefined ? undefined : {path: t.rel, before, after};
}

/** The change a finished call made: `before` as read when it was proposed, `after` as the file is now. */
export async function appliedChange(workspace: string, path: string, before: string | null): Promise<EngineFileChange | undefined> {
    const t = await target(workspace, path);
    if (!t) return undefined;
    const after = await readText(t.abs);
    return after === before ? undefined : {path: t.rel, before, after};
}
