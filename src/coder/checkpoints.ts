// Owns checkpoints and undo of the agent's file changes: before a tool writes a file, the file's state is recorded
// (its bytes and mode, or "did not exist"); restoring puts those states back exactly. It never deletes or overwrites a
// file the agent did not write: a file created by the agent is deleted only if it still holds what the agent wrote, and
// a file changed by someone else since the agent's write is left alone and reported (unless `force`). No `git clean`.
// Changes made by shell commands are not recorded here (see the issue notes: snapshot-based undo for commands).

import {createHash, randomBytes} from "node:crypto";
import {chmod, lstat, mkdir, readFile, rm, rmdir, writeFile} from "node:fs/promises";
import {dirname} from "node:path";
import {NanoError} from "../common/errors";
import {displayPath, isInside} from "./sandbox/paths";

/** A file's state before the agent first touched it within a checkpoint. */
type Before = {exists: false; createdDirs: string[]} | {exists: true; content: Buffer; mode: number};

interface Checkpoint {
    id: string;
    label: string;
    createdAt: number;
    /** Absolute path -> state before the first write in this checkpoint. */
    before: Map<string, Before>;
}

export interface CheckpointInfo { id: string; label: string; createdAt: number; files: string[] }

export interface RestoreReport {
    /** Files put back to their earlier content. */
    restored: string[];
    /** Files the agent had created, now removed. */
    deleted: string[];
    /** Files left as they are because someone else changed them after the agent (workspace-relative), with the reason. */
    skipped: {path: string; reason: string}[];
}

function sha(b: Buffer): string {
    return createHash("sha256").update(b).digest("hex");
}

export class CheckpointRecorder {
    private readonly checkpoints: Checkpoint[] = [];
    /** Absolute path -> hash of what the agent last wrote there. */
    private readonly agentWrote = new Map<string, string>();

    /** `workspace` is a real path; every recorded path must lie inside it. */
    constructor(readonly workspace: string) {}

    /** Starts a checkpoint (e.g. one per agent turn); later writes are recorded into it. Returns its id. */
    begin(label = "checkpoint"): string {
        const id = `cp-${this.checkpoints.length + 1}-${randomBytes(3).toString("hex")}`;
        this.checkpoints.push({id, label, createdAt: Date.now(), before: new Map()});
        return id;
    }

    list(): CheckpointInfo[] {
        return this.checkpoints.map(c => ({id: c.id, label: c.label, createdAt: c.createdAt, files: [...c.before.keys()].map(p => displayPath(this.workspace, p))}));
    }

    /** Records `absPath`'s current state (once per checkpoint) before the agent writes it. Starts a checkpoint if none is open. */
    async beforeWrite(absPath: string): Promise<void> {
        if (!isInside(this.workspace, absPath)) throw new NanoError("CHECKPOINT_OUTSIDE", `${absPath} is outside the workspace`);
        if (!this.checkpoints.length) this.begin("automatic");
        const cp = this.checkpoints[this.checkpoints.length - 1]!;
        if (cp.before.has(absPath)) return;
        try {
            const st = await lstat(absPath);
            if (!st.isFile()) throw new NanoError("CHECKPOINT_NOT_FILE", `${displayPath(this.workspace, absPath)} is not a regular file`);
            cp.before.set(absPath, {exists: true, content: await readFile(absPath), mode: st.mode & 0o7777});
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
            // Remember which folders the write is about to create, so that undo can remove them again (if empty).
            const createdDirs: string[] = [];
            for (let d = dirname(absPath); isInside(this.workspace, d) && d !== this.workspace; d = dirname(d)) {
                try { await lstat(d); break; } catch { createdDirs.push(d); }
            }
            cp.before.set(absPath, {exists: false, createdDirs});
        }
    }

    /** Records what the agent wrote (call after the write), so that restore can tell the agent's content from a person's. */
    async afterWrite(absPath: string): Promise<void> {
        try { this.agentWrote.set(absPath, sha(await readFile(absPath))); } catch { this.agentWrote.delete(absPath); }
    }

    /**
     * Puts every file written since checkpoint `id` began back as it was then, and drops that checkpoint and later ones.
     * Without `force`, a file whose content is no longer what the agent wrote is skipped and reported.
     */
    async restore(id: string, opts: {force?: boolean} = {}): Promise<RestoreReport> {
        const at = this.checkpoints.findIndex(c => c.id === id);
        if (at < 0) throw new NanoError("CHECKPOINT_UNKNOWN", `no checkpoint ${id}`);
        // The earliest record at or after `at` is the state as of begin(id).
        const original = new Map<string, Before>();
        for (const cp of this.checkpoints.slice(at)) for (const [p, b] of cp.before) if (!original.has(p)) original.set(p, b);
        const report: RestoreReport = {restored: [], deleted: [], skipped: []};
        const dirsToPrune: string[] = [];
        for (const [p, before] of original) {
            const rel = displayPath(this.workspace, p);
            let current: Buffer | undefined;
            try {
                const st = await lstat(p);
                current = st.isFile() ? await readFile(p) : undefined;
                if (!st.isFile()) { report.skipped.push({path: rel, reason: "it is no longer a regular file"}); continue; }
            } catch { current = undefined; }
            const mine = this.agentWrote.get(p);
            const untouched = current === undefined ? mine === undefined : mine === sha(current);
            if (!untouched && !opts.force) {
                if (current !== undefined || before.exists) report.skipped.push({path: rel, reason: current === undefined ? "it was deleted after the agent's change" : "it was changed after the agent's change"});
                continue;
            }
            if (before.exists) {
                await mkdir(dirname(p), {recursive: true});
                await writeFile(p, before.content);
                await chmod(p, before.mode);
                report.restored.push(rel);
            } else {
                if (current !== undefined) { await rm(p, {force: true}); report.deleted.push(rel); }
                dirsToPrune.push(...before.createdDirs);
            }
            this.agentWrote.delete(p);
        }
        // Folders the agent created, deepest first, only if now empty (rmdir refuses otherwise).
        for (const d of [...new Set(dirsToPrune)].sort((a, b) => b.length - a.length)) { try { await rmdir(d); } catch { /* not empty or gone */ } }
        this.checkpoints.splice(at);
        return report;
    }
}
