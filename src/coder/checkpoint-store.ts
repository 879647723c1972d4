// Owns where a session's checkpoint data lives: a journal of records plus content-addressed blobs (file bytes keyed by
// their sha256), in memory (MemoryJournal: gone with the process) or on disk (CheckpointStore: one folder per session,
// survives a window reload or a crash), with size limits and cleanup of old sessions. Knows nothing of what the
// records mean (checkpoints.ts does).
//
// Layout of a store folder:
//   <session id>/index.log        one record per line, "<crc32 hex8> <json>\n", appended with one fsynced write
//   <session id>/blobs/<sha256>   file contents, written atomically before any record names them
// Removing a session renames its folder to ".trash-…" first, so a crash mid-removal never leaves half a session.

import {createHash, randomBytes} from "node:crypto";
import {mkdirSync} from "node:fs";
import {lstat, readdir, readFile, rename, rm, stat} from "node:fs/promises";
import {join} from "node:path";
import {appendLineSync, decodeLines, TEMP_MARK, writeFileAtomic} from "../common/durable";
import {NanoError} from "../common/errors";

/** A journal record: a JSON object with a `type`. */
export type JournalRecord = {type: string} & Record<string, unknown>;

/** What a checkpoint recorder keeps its state in. */
export interface CheckpointJournal {
    /** Keeps `data` and returns its id (sha256, hex). Throws NanoError CHECKPOINT_LIMIT when a size limit forbids it. */
    putBlob(data: Buffer): Promise<string>;
    /** The bytes kept under `id`; undefined when missing or damaged (their hash no longer matches). */
    getBlob(id: string): Promise<Buffer | undefined>;
    /** Appends one record; once this returns the record survives a crash (on disk). */
    append(record: JournalRecord): void;
    /** Every intact record, oldest first. */
    records(): Promise<JournalRecord[]>;
}

export function sha256(data: Buffer): string {
    return createHash("sha256").update(data).digest("hex");
}

export interface JournalLimits {
    /** Largest single file kept. Default 16 MiB. */
    maxFileBytes?: number;
    /** Blob bytes one session may keep. Default 256 MiB. */
    maxSessionBytes?: number;
}

export interface CheckpointStoreOptions extends JournalLimits {
    /** cleanup() keeps at most this many sessions (newest first). Default 20. */
    maxSessions?: number;
    /** cleanup() removes sessions untouched for longer. Default 14 days. */
    maxAgeMs?: number;
    /** cleanup() removes the oldest sessions until the store holds at most this much. Default 1 GiB. */
    maxTotalBytes?: number;
}

const MiB = 1 << 20;
const DEFAULTS = {maxFileBytes: 16 * MiB, maxSessionBytes: 256 * MiB, maxSessions: 20, maxAgeMs: 14 * 24 * 3600_000, maxTotalBytes: 1024 * MiB};
const SESSION_ID = /^[\w-][\w.-]{0,127}$/;
const BLOB_ID = /^[0-9a-f]{64}$/;

const limitError = (what: string, bytes: number, limit: number) =>
    new NanoError("CHECKPOINT_LIMIT", `cannot keep an undo copy of ${what} (${(bytes / MiB).toFixed(1)} MiB; the limit is ${(limit / MiB).toFixed(1)} MiB)`);

/** Checks the size limits before a new blob is kept; `used` is what the session keeps already. */
function checkLimits(size: number, used: number, limits: Required<JournalLimits>): void {
    if (size > limits.maxFileBytes) throw limitError("a file this large", size, limits.maxFileBytes);
    if (used + size > limits.maxSessionBytes) throw limitError("more files in this session", used + size, limits.maxSessionBytes);
}

/** A journal in memory (the CLI, tests): the same behaviour and limits, nothing survives the process. */
export class MemoryJournal implements CheckpointJournal {
    private readonly blobs = new Map<string, Buffer>();
    private readonly log: JournalRecord[] = [];
    private used = 0;
    private readonly limits: Required<JournalLimits>;

    constructor(limits: JournalLimits = {}) {
        this.limits = {maxFileBytes: limits.maxFileBytes ?? DEFAULTS.maxFileBytes, maxSessionBytes: limits.maxSessionBytes ?? DEFAULTS.maxSessionBytes};
    }

    async putBlob(data: Buffer): Promise<string> {
        const id = sha256(data);
        if (this.blobs.has(id)) return id;
        checkLimits(data.length, this.used, this.limits);
        this.blobs.set(id, Buffer.from(data));
        this.used += data.length;
        return id;
    }

    async getBlob(id: string): Promise<Buffer | undefined> { return this.blobs.get(id); }
    append(record: JournalRecord): void { this.log.push(structuredClone(record)); }
    async records(): Promise<JournalRecord[]> { return this.log.map(r => structuredClone(r)); }
}

/** One session's folder in a CheckpointStore. */
export class SessionJournal implements CheckpointJournal {
    readonly indexPath: string;
    readonly blobsDir: string;
    private used: Promise<number> | undefined;

    constructor(readonly dir: string, private readonly limits: Required<JournalLimits>) {
        this.indexPath = join(dir, "index.log");
        this.blobsDir = join(dir, "blobs");
    }

    async putBlob(data: Buffer): Promise<string> {
        const id = sha256(data);
        const path = join(this.blobsDir, id);
        if (await this.getBlob(id)) return id;   // content-addressed: an intact copy is already there
        this.used ??= dirBytes(this.blobsDir);
        const used = await this.used;
        checkLimits(data.length, used, this.limits);
        this.used = Promise.resolve(used + data.length);
        mkdirSync(this.blobsDir, {recursive: true});
        await writeFileAtomic(path, data);
        return id;
    }

    async getBlob(id: string): Promise<Buffer | undefined> {
        if (!BLOB_ID.test(id)) return undefined;
        try {
            const data = await readFile(join(this.blobsDir, id));
            return sha256(data) === id ? data : undefined;
        } catch {
            return undefined;
        }
    }

    append(record: JournalRecord): void {
        mkdirSync(this.dir, {recursive: true});
        appendLineSync(this.indexPath, record);
    }

    async records(): Promise<JournalRecord[]> {
        let text = "";
        try { text = await readFile(this.indexPath, "utf8"); } catch (e) { if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e; }
        return decodeLines<JournalRecord>(text).records.filter(r => r !== null && typeof r === "object" && typeof r.type === "string");
    }
}

export interface StoredSession { id: string; bytes: number; updatedAt: number }

/** The on-disk checkpoint store: one SessionJournal per session under `root`. */
export class CheckpointStore {
    private readonly o: Required<CheckpointStoreOptions>;

    private constructor(readonly root: string, opts: CheckpointStoreOptions) {
        this.o = {...DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined))};
    }

    /** Opens (creating if needed) the store in `root`. */
    static open(root: string, opts: CheckpointStoreOptions = {}): CheckpointStore {
        mkdirSync(root, {recursive: true});
        return new CheckpointStore(root, opts);
    }

    /** The journal of session `id` (its folder is created with the first record or blob). */
    session(id: string): SessionJournal {
        if (!SESSION_ID.test(id)) throw new NanoError("CHECKPOINT_SESSION", `bad session id ${JSON.stringify(id)}`);
        return new SessionJournal(join(this.root, id), {maxFileBytes: this.o.maxFileBytes, maxSessionBytes: this.o.maxSessionBytes});
    }

    /** Whether session `id` has anything stored. */
    async has(id: string): Promise<boolean> {
        if (!SESSION_ID.test(id)) return false;
        try { return (await stat(join(this.root, id, "index.log"))).isFile(); } catch { return false; }
    }

    /** The stored sessions, most recently changed first. */
    async list(): Promise<StoredSession[]> {
        const out: StoredSession[] = [];
        for (const name of await readdir(this.root).catch(() => [] as string[])) {
            if (!SESSION_ID.test(name)) continue;
            const dir = join(this.root, name);
            try {
                if (!(await lstat(dir)).isDirectory()) continue;
                const index = await stat(join(dir, "index.log")).catch(() => undefined);
                const st = index ?? await stat(dir);
                out.push({id: name, bytes: (index?.size ?? 0) + await dirBytes(join(dir, "blobs")), updatedAt: st.mtimeMs});
            } catch { /* removed meanwhile */ }
        }
        return out.sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? 1 : -1));
    }

    /**
     * Removes old sessions: beyond the newest `maxSessions`, untouched for longer than `maxAgeMs`, or past `maxTotalBytes`
     * (oldest first). Sessions in `keep` always stay. Also clears leftovers of crashed removals and writes.
     */
    async cleanup(keep: Iterable<string> = [], now = Date.now()): Promise<{removed: string[]}> {
        const keepSet = new Set(keep);
        const removed: string[] = [];
        let total = 0, count = 0;
        for (const s of await this.list()) {
            const kept = keepSet.has(s.id);
            const drop = !kept && (count >= this.o.maxSessions || now - s.updatedAt > this.o.maxAgeMs || total + s.bytes > this.o.maxTotalBytes);
            if (drop) {
                if (await this.remove(s.id)) removed.push(s.id);
                continue;
            }
            total += s.bytes;
            count++;
            await removeStaleTemps(join(this.root, s.id, "blobs"), now);
        }
        for (const name of await readdir(this.root).catch(() => [] as string[])) {
            if (name.startsWith(".trash-")) await rm(join(this.root, name), {recursive: true, force: true}).catch(() => {});
        }
        return {removed};
    }

    /** Removes session `id` (renamed aside first, then deleted). */
    async remove(id: string): Promise<boolean> {
        if (!SESSION_ID.test(id)) return false;
        const trash = join(this.root, `.trash-${id}-${randomBytes(3).toString("hex")}`);
        try { await rename(join(this.root, id), trash); } catch { return false; }
        await rm(trash, {recursive: true, force: true}).catch(() => {});
        return true;
    }
}

async function dirBytes(dir: string): Promise<number> {
    let n = 0;
    for (const name of await readdir(dir).catch(() => [] as string[])) {
        try { n += (await lstat(join(dir, name))).size; } catch { /* gone */ }
    }
    return n;
}

/** Temp files of writes killed mid-way (older than an hour, so a live writer's file is never touched). */
async function removeStaleTemps(dir: string, now: number): Promise<void> {
    for (const name of await readdir(dir).catch(() => [] as string[])) {
        if (!name.includes(TEMP_MARK)) continue;
        const p = join(dir, name);
        try { if (now - (await lstat(p)).mtimeMs > 3600_000) await rm(p, {force: true}); } catch { /* gone */ }
    }
}
