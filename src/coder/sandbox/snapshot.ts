// Owns workspace snapshots: a private copy of a folder at a point in time (reflinked where the file system can,
// copied byte for byte elsewhere; never hard links, so a rollout writing its copy cannot touch the original).
// The trainer snapshots a task's workspace once and clones the snapshot G times, one per rollout.

import {randomBytes} from "node:crypto";
import {constants} from "node:fs";
import {copyFile, lstat, mkdir, readdir, readlink, realpath, rm, symlink} from "node:fs/promises";
import {join} from "node:path";
import {NanoError} from "../../common/errors";
import {isInside} from "./paths";

export interface SnapshotOptions {
    /** Entry names skipped anywhere in the tree (e.g. [".git", "node_modules"]). Default none. */
    exclude?: string[];
    /** Files copied at once. Default 32. */
    concurrency?: number;
}

export interface Snapshot {
    /** Unique id (also the folder's name under the destination root). */
    id: string;
    /** Absolute path of the copy. */
    path: string;
    files: number;
    dirs: number;
    symlinks: number;
    /** Bytes of regular files copied (or reflinked). */
    bytes: number;
    /** Sockets, fifos and devices are not copied. */
    skipped: number;
    durationMs: number;
}

/**
 * Copies `src` into a new folder `<destRoot>/<id>`. Symlinks are copied as links (not followed); file modes are kept.
 * Copies use FICLONE (copy-on-write) when the file system supports it, a plain copy otherwise.
 */
export async function snapshotWorkspace(src: string, destRoot: string, opts: SnapshotOptions = {}): Promise<Snapshot> {
    const t0 = performance.now();
    const from = await realpath(src);
    await mkdir(destRoot, {recursive: true});
    const root = await realpath(destRoot);
    if (isInside(from, root)) throw new NanoError("SNAPSHOT_INSIDE_SOURCE", `snapshot destination ${root} lies inside the folder being copied (${from})`);
    const id = `${Date.now().toString(36)}-${randomBytes(4).toString("hex")}`;
    const to = join(root, id);
    const exclude = new Set(opts.exclude ?? []);
    const s: Snapshot = {id, path: to, files: 0, dirs: 0, symlinks: 0, bytes: 0, skipped: 0, durationMs: 0};

    // Directories are created depth-first before their files; files are copied through a bounded pool.
    const pending: Promise<void>[] = [];
    const limit = Math.max(1, opts.concurrency ?? 32);
    let active = 0;
    const waiters: (() => void)[] = [];
    const copy = async (a: string, b: string) => {
        while (active >= limit) await new Promise<void>(r => waiters.push(r));
        active++;
        try {
            await copyFile(a, b, constants.COPYFILE_FICLONE | constants.COPYFILE_EXCL); // libuv keeps the mode
            const size = (await lstat(b)).size; // (not `s.bytes += await …`: that reads s.bytes before the await)
            s.files++;
            s.bytes += size;
        } finally {
            active--;
            waiters.shift()?.();
        }
    };

    const walk = async (a: string, b: string, mode: number): Promise<void> => {
        await mkdir(b, {mode: mode & 0o7777});
        s.dirs++;
        for (const e of await readdir(a, {withFileTypes: true})) {
            if (exclude.has(e.name)) continue;
            const pa = join(a, e.name), pb = join(b, e.name);
            if (e.isDirectory()) await walk(pa, pb, (await lstat(pa)).mode);
            else if (e.isSymbolicLink()) { await symlink(await readlink(pa), pb); s.symlinks++; }
            else if (e.isFile()) {
                const p = copy(pa, pb);
                pending.push(p);
                if (pending.length > 4 * limit) await Promise.all(pending.splice(0));
            } else s.skipped++;
        }
    };
    try {
        await walk(from, to, (await lstat(from)).mode);
        await Promise.all(pending);
    } catch (e) {
        await Promise.allSettled(pending);
        await rm(to, {recursive: true, force: true});
        throw new NanoError("SNAPSHOT_FAILED", `could not snapshot ${from}: ${(e as Error).message}`, {cause: e});
    }
    s.durationMs = performance.now() - t0;
    return s;
}

/** Deletes a snapshot folder (only one that `snapshotWorkspace` made: its name must look like an id). */
export async function removeSnapshot(snapshot: Pick<Snapshot, "path" | "id">): Promise<void> {
    if (!snapshot.path.endsWith(snapshot.id) || !/^[0-9a-z]+-[0-9a-f]{8}$/.test(snapshot.id)) {
        throw new NanoError("SNAPSHOT_NOT_OURS", `${snapshot.path} is not a snapshot folder`);
    }
    await rm(snapshot.path, {recursive: true, force: true});
}
