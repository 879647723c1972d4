// Owns checkpoints and undo of the agent's file changes: before a tool writes a file, the file's state is recorded
// (its bytes and mode, or "did not exist"); restoring puts those states back exactly. It never deletes or overwrites a
// file the agent did not write: a file created by the agent is deleted only if it still holds what the agent wrote, and
// a file changed by someone else since the agent's write is left alone and reported (unless `force`). No `git clean`.
// State lives in a CheckpointJournal (checkpoint-store.ts): in memory, or on disk so that undo survives a window reload
// (CheckpointRecorder.open replays the journal). Changes made by shell commands are not recorded here.

import {randomBytes} from "node:crypto";
import {chmod, lstat, mkdir, readFile, realpath, rm, rmdir, writeFile} from "node:fs/promises";
import {dirname, join} from "node:path";
import {NanoError} from "../common/errors";
import {MemoryJournal, sha256, type CheckpointJournal, type JournalRecord} from "./checkpoint-store";
import {displayPath, isInside} from "./sandbox/paths";

/** A file's state before the agent first touched it within a checkpoint (`blob`: its bytes, kept in the journal). */
type Before = {exists: false; createdDirs: string[]} | {exists: true; blob: string; mode: number};

interface Checkpoint {
    id: string;
    label: string;
    createdAt: number;
    /** Absolute path -> state before the first write in this checkpoint. */
    before: Map<string, Before>;
}

/** The journal records, paths relative to the workspace (in the order they are appended). */
type CheckpointRecord =
    | {type: "workspace"; path: string}
    | {type: "begin"; id: string; label: string; at: number}
    | {type: "before"; cp: string; path: string; exists: true; blob: string; mode: number}
    | {type: "before"; cp: string; path: string; exists: false; dirs: string[]}
    | {type: "wrote"; path: string; sha: string | null}
    | {type: "restore"; id: string; cleared: string[]};

export interface CheckpointInfo { id: string; label: string; createdAt: number; files: string[] }

export interface RestoreReport {
    /** Files put back to their earlier content. */
    restored: string[];
    /** Files the agent had created, now removed. */
    deleted: string[];
    /** Files left as they are because someone else changed them after the agent (workspace-relative), with the reason. */
    skipped: {path: string; reason: string}[];
}

export class CheckpointRecorder {
    private readonly checkpoints: Checkpoint[] = [];
    /** Absolute path -> hash of what the agent last wrote there. */
    private readonly agentWrote = new Map<string, string>();
    private started = false;

    /**
     * `workspace` is a real path; every recorded path must lie inside it. A fresh `journal` only (see open() for one
     * holding an earlier session). Default: in memory.
     */
    constructor(readonly workspace: string, private readonly journal: CheckpointJournal = new MemoryJournal()) {}

    /**
     * A recorder over `journal` with the checkpoints it holds (e.g. after a window reload). Refuses a journal written
     * for another workspace: restoring there could touch files the agent never wrote.
     */
    static async open(workspace: string, journal: CheckpointJournal): Promise<CheckpointRecorder> {
        const r = new CheckpointRecorder(workspace, journal);
        for (const rec of await journal.records() as CheckpointRecord[]) r.replay(rec);
        return r;
    }

    /** Starts a checkpoint (e.g. one per agent turn); later writes are recorded into it. Returns its id. */
    begin(label = "checkpoint"): string {
        const id = `cp-${this.checkpoints.length + 1}-${randomBytes(3).toString("hex")}`;
        const at = Date.now();
        this.record({type: "begin", id, label, at});
        this.checkpoints.push({id, label, createdAt: at, before: new Map()});
        return id;
    }

    list(): CheckpointInfo[] {
        return this.checkpoints.map(c => ({id: c.id, label: c.label, createdAt: c.createdAt, files: [...c.before.keys()].map(p => displayPath(this.workspace, p))}));
    }

    /**
     * Records `absPath`'s current state (once per checkpoint) before the agent writes it. Starts a checkpoint if none is
     * open. Throws (and the tool must not write) when the state cannot be kept: not a regular file, or over a size limit.
     */
    async beforeWrite(absPath: string): Promise<void> {
        if (!isInside(this.workspace, absPath)) throw new NanoError("CHECKPOINT_OUTSIDE", `${absPath} is outside the workspace`);
        if (!this.checkpoints.length) this.begin("automatic");
        const cp = this.checkpoints[this.checkpoints.length - 1]!;
        if (cp.before.has(absPath)) return;
        const path = displayPath(this.workspace, absPath);
        let st;
        try {
            st = await lstat(absPath);
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
            // Remember which folders the write is about to create, so that undo can remove them again (if empty).
            const createdDirs: string[] = [];
            for (let d = dirname(absPath); isInside(this.workspace, d) && d !== this.workspace; d = dirname(d)) {
                try { await lstat(d); break; } catch { createdDirs.push(d); }
            }
            this.record({type: "before", cp: cp.id, path, exists: false, dirs: createdDirs.map(d => displayPath(this.workspace, d))});
            cp.before.set(absPath, {exists: false, createdDirs});
            return;
        }
        if (!st.isFile()) throw new NanoError("CHECKPOINT_NOT_FILE", `${path} is not a regular file`);
        const blob = await this.journal.putBlob(await readFile(absPath));
        const mode = st.mode & 0o7777;
        this.record({type: "before", cp: cp.id, path, exists: true, blob, mode});
        cp.before.set(absPath, {exists: true, blob, mode});
    }

    /** Records what the agent wrote (call after the write), so that restore can tell the agent's content from a person's. */
    async afterWrite(absPath: string): Promise<void> {
        let sha: string | null = null;
        try { sha = sha256(await readFile(absPath)); } catch { /* gone again */ }
        this.record({type: "wrote", path: displayPath(this.workspace, absPath), sha});
        if (sha) this.agentWrote.set(absPath, sha); else this.agentWrote.delete(absPath);
    }

    /**
     * Puts every file written since checkpoint `id` began back as it was then, and drops that checkpoint and later ones.
     * Without `force`, a file whose content is no longer what the agent wrote is skipped and reported. Never writes
     * through a folder that now leads outside the workspace, and never writes a saved copy that is missing or damaged.
     */
    async restore(id: string, opts: {force?: boolean} = {}): Promise<RestoreReport> {
        const at = this.checkpoints.findIndex(c => c.id === id);
        if (at < 0) throw new NanoError("CHECKPOINT_UNKNOWN", `no checkpoint ${id}`);
        // The earliest record at or after `at` is the state as of begin(id).
        const original = new Map<string, Before>();
        for (const cp of this.checkpoints.slice(at)) for (const [p, b] of cp.before) if (!original.has(p)) original.set(p, b);
        const report: RestoreReport = {restored: [], deleted: [], skipped: []};
        const cleared: string[] = [];
        const dirsToPrune: string[] = [];
        for (const [p, before] of original) {
            const rel = displayPath(this.workspace, p);
            const skip = (reason: string) => report.skipped.push({path: rel, reason});
            if (!(await this.stillInside(p))) { skip("a folder on its path now leads outside the workspace"); continue; }
            let current: Buffer | undefined;
            try {
                const st = await lstat(p);
                if (!st.isFile()) { skip("it is no longer a regular file"); continue; }
                current = await readFile(p);
            } catch { current = undefined; }
            const now = current === undefined ? undefined : sha256(current);
            const mine = this.agentWrote.get(p);
            // Already as it was (e.g. an undo cut short by a crash): nothing to write, nothing to fear.
            const alreadyBack = before.exists ? now === before.blob : current === undefined;
            const untouched = now === mine;
            if (!alreadyBack && !untouched && !opts.force) {
                if (current !== undefined || before.exists) skip(current === undefined ? "it was deleted after the agent's change" : "it was changed after the agent's change");
                continue;
            }
            if (before.exists) {
                if (!alreadyBack) {
                    const content = await this.journal.getBlob(before.blob);
                    if (!content) { skip("its saved copy is missing or damaged"); continue; }
                    await mkdir(dirname(p), {recursive: true});
                    await writeFile(p, content);
                    await chmod(p, before.mode);
                }
                report.restored.push(rel);
            } else {
                if (current !== undefined) { await rm(p, {force: true}); report.deleted.push(rel); }
                dirsToPrune.push(...before.createdDirs);
            }
            this.agentWrote.delete(p);
            cleared.push(rel);
        }
        // Folders the agent created, deepest first, only if now empty (rmdir refuses otherwise).
        for (const d of [...new Set(dirsToPrune)].sort((a, b) => b.length - a.length)) { try { await rmdir(d); } catch { /* not empty or gone */ } }
        this.record({type: "restore", id, cleared});
        this.checkpoints.splice(at);
        return report;
    }

    // ---- internals ----------------------------------------------------------------------------------------------
    /** Appends `r` to the journal, led by the workspace it belongs to. */
    private record(r: CheckpointRecord): void {
        if (!this.started) { this.journal.append({type: "workspace", path: this.workspace}); this.started = true; }
        this.journal.append(r as JournalRecord);
    }

    /** Applies one journal record to the in-memory state (the same changes the live calls made). */
    private replay(r: CheckpointRecord): void {
        const abs = (rel: string) => {
            const p = join(this.workspace, rel);
            if (!isInside(this.workspace, p)) throw new NanoError("CHECKPOINT_CORRUPT", `journal path ${rel} is outside the workspace`);
            return p;
        };
        switch (r.type) {
            case "workspace":
                if (r.path !== this.workspace) throw new NanoError("CHECKPOINT_WORKSPACE", `these checkpoints belong to ${r.path}, not ${this.workspace}`);
                this.started = true;
                break;
            case "begin":
                this.checkpoints.push({id: r.id, label: r.label, createdAt: r.at, before: new Map()});
                break;
            case "before": {
                const cp = this.checkpoints.find(c => c.id === r.cp);
                const p = abs(r.path);
                if (!cp || cp.before.has(p)) break;
                cp.before.set(p, r.exists ? {exists: true, blob: r.blob, mode: r.mode} : {exists: false, createdDirs: r.dirs.map(abs)});
                break;
            }
            case "wrote":
                if (r.sha) this.agentWrote.set(abs(r.path), r.sha); else this.agentWrote.delete(abs(r.path));
                break;
            case "restore": {
                const at = this.checkpoints.findIndex(c => c.id === r.id);
                if (at >= 0) this.checkpoints.splice(at);
                for (const rel of r.cleared) this.agentWrote.delete(abs(rel));
                break;
            }
        }
    }

    /** Whether the nearest existing folder above `p` still resolves (symlinks followed) inside the workspace. */
    private async stillInside(p: string): Promise<boolean> {
        for (let d = dirname(p); ; d = dirname(d)) {
            try {
                return isInside(this.workspace, await realpath(d));
            } catch {
                if (d === this.workspace || !isInside(this.workspace, d)) return false;
            }
        }
    }
}
