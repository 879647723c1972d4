// Owns path confinement for file tools: a path the model gives is resolved against the workspace, symlinks followed to
// their real target, and anything that ends up outside the workspace refused with a message the model can act on.

import {lstat, readlink, realpath} from "node:fs/promises";
import {dirname, isAbsolute, relative, resolve, sep} from "node:path";
import {NanoError} from "../../common/errors";

/** Whether `p` is `root` or lies below it (both absolute, normalised). */
export function isInside(root: string, p: string): boolean {
    const rel = relative(root, p);
    return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** The workspace-relative form of an absolute path, for messages ("." for the root). */
export function displayPath(workspace: string, p: string): string {
    return relative(workspace, p) || ".";
}

function refuse(message: string): never {
    throw new NanoError("PATH_REFUSED", message);
}

export interface ResolveOptions {
    /** The path must exist (reads). Default false (writes may create it). */
    mustExist?: boolean;
}

/**
 * Resolves `given` (relative to the workspace, or absolute inside it) to a real path inside `workspace` (itself a real path).
 * Refuses, with NanoError("PATH_REFUSED"), paths that are not strings, contain NUL, climb out with `..`, are absolute
 * elsewhere, or pass through a symlink whose target is outside. A missing path is allowed unless `mustExist`.
 */
export async function resolveInWorkspace(workspace: string, given: unknown, opts: ResolveOptions = {}): Promise<string> {
    if (typeof given !== "string" || given.trim() === "") refuse("path must be a non-empty string");
    if (given.includes("\0")) refuse("path contains a NUL character");
    const abs = resolve(workspace, given);
    if (!isInside(workspace, abs)) {
        refuse(isAbsolute(given)
            ? `"${given}" is outside the workspace; use a path inside it (relative paths are resolved from the workspace root)`
            : `"${given}" climbs out of the workspace with ".."; only paths inside the workspace are allowed`);
    }
    // Walk up to the deepest part that exists, and resolve it for real: a symlink anywhere on the way is followed.
    let existing = abs;
    const missing: string[] = [];
    for (;;) {
        try {
            const st = await lstat(existing);
            if (st.isSymbolicLink()) {
                let target: string;
                try { target = await realpath(existing); } catch {
                    const link = await readlink(existing).catch(() => "?");
                    refuse(`"${given}" goes through a symlink (${displayPath(workspace, existing)} -> ${link}) whose target does not exist`);
                }
                if (!isInside(workspace, target)) {
                    refuse(`"${given}" goes through a symlink (${displayPath(workspace, existing)}) that points outside the workspace, to ${target}`);
                }
            }
            break;
        } catch (e) {
            if (e instanceof NanoError) throw e;
            const code = (e as NodeJS.ErrnoException).code;
            if (code !== "ENOENT" && code !== "ENOTDIR") throw e;
            if (opts.mustExist) refuse(code === "ENOTDIR" ? `"${given}": a part of this path is a file, not a folder` : `"${given}" does not exist`);
            missing.unshift(existing.slice(dirname(existing).length).replace(/^[\\/]/, ""));
            const up = dirname(existing);
            if (up === existing) break;
            existing = up;
        }
    }
    const real = await realpath(existing);
    if (!isInside(workspace, real)) {
        refuse(`"${given}" resolves to ${real}, which is outside the workspace (through a symlink)`);
    }
    return missing.length ? resolve(real, ...missing) : real;
}
