// Owns each panel session's files: its checkpoint recorder (the live one while the session runs, reopened from the
// on-disk checkpoint store after a window reload) and the two versions of every file a tool call proposed or made,
// behind "Open diff". Both live in the session's journal (coder/checkpoint-store.ts), so undo and diffs outlive the
// extension host. Without a store, everything stays in memory. Knows nothing of VS Code.

import {realpath} from "node:fs/promises";
import {MemoryJournal, type CheckpointJournal, type CheckpointStore} from "../coder/checkpoint-store";
import {CheckpointRecorder, type RestoreReport} from "../coder/checkpoints";
import {errorMessage, NanoError} from "../common/errors";
import type {ChangePhase, EngineFileChange} from "./engine";

/** The journal record of one change's versions (blob ids; null: the file is absent on that side). */
interface ChangeRecord { type: "change"; callId: string; path: string; phase: ChangePhase; before: string | null; after: string | null }

export interface SessionFilesOptions {
    /** The on-disk store (under the extension's storage); undefined: memory only, nothing survives a reload. */
    store(): CheckpointStore | undefined;
    log(level: "info" | "warn" | "error", message: string): void;
    /** Sessions whose journals are kept open (the newest); older ones are reopened from disk on demand. Default 4. */
    keepOpen?: number;
}

interface Open { journal: CheckpointJournal; recorder?: Promise<CheckpointRecorder> }

export class SessionFiles {
    private readonly open = new Map<string, Open>();

    constructor(private readonly o: SessionFilesOptions) {}

    /** The recorder of a new session working in `workspace` (a real path). Old sessions are cleaned up meanwhile. */
    create(sessionId: string, workspace: string): CheckpointRecorder {
        const store = this.o.store();
        const journal = store ? store.session(sessionId) : new MemoryJournal();
        const recorder = new CheckpointRecorder(workspace, journal);
        this.remember(sessionId, {journal, recorder: Promise.resolve(recorder)});
        if (store) void this.cleanup([]);
        return recorder;
    }

    /** Undoes to `checkpointId` of session `sessionId` (live, or reopened from disk for `workspace`). */
    async restore(sessionId: string, workspace: string, checkpointId: string): Promise<RestoreReport> {
        const entry = await this.entry(sessionId);
        if (!entry) throw new NanoError("no-checkpoints", "the undo points of this session were not kept");
        entry.recorder ??= realpath(workspace).then(ws => CheckpointRecorder.open(ws, entry.journal));
        let recorder: CheckpointRecorder;
        try {
            recorder = await entry.recorder;
        } catch (e) {
            entry.recorder = undefined;   // try again next time (e.g. the folder was briefly missing)
            throw e;
        }
        return recorder.restore(checkpointId);
    }

    /** Keeps both versions of a file `callId` proposed or changed. Best effort (a failure is logged). */
    async saveChange(sessionId: string, callId: string, change: EngineFileChange, phase: ChangePhase): Promise<void> {
        const entry = await this.entry(sessionId);
        if (!entry) return;
        try {
            const put = (text: string | null) => (text === null ? Promise.resolve(null) : entry.journal.putBlob(Buffer.from(text, "utf8")));
            const record: ChangeRecord = {type: "change", callId, path: change.path, phase, before: await put(change.before), after: await put(change.after)};
            entry.journal.append({...record});
        } catch (e) {
            this.o.log("warn", `could not keep the versions of ${change.path} for its diff: ${errorMessage(e)}`);
        }
    }

    /**
     * Both versions of `path` as `callId` of session `sessionId` proposed (`phase`) or left them (the latest kept, when no
     * phase is given), or undefined when they were not kept.
     */
    async change(sessionId: string, callId: string, path: string, phase?: ChangePhase): Promise<EngineFileChange | undefined> {
        const entry = await this.entry(sessionId);
        if (!entry) return undefined;
        const rec = (await entry.journal.records()).filter((r): r is ChangeRecord & typeof r =>
            r.type === "change" && r.callId === callId && r.path === path && (!phase || r.phase === phase)).at(-1);
        if (!rec) return undefined;
        const get = async (id: string | null) => (id === null ? null : (await entry.journal.getBlob(id))?.toString("utf8"));
        const [before, after] = [await get(rec.before), await get(rec.after)];
        return before === undefined || after === undefined ? undefined : {path, before, after};
    }

    /** Removes old sessions from the store (never the open ones nor those in `keep`). */
    async cleanup(keep: Iterable<string>): Promise<void> {
        const store = this.o.store();
        if (!store) return;
        try {
            const {removed} = await store.cleanup([...keep, ...this.open.keys()]);
            if (removed.length) this.o.log("info", `checkpoints: removed ${removed.length} old session${removed.length > 1 ? "s" : ""}`);
        } catch (e) {
            this.o.log("warn", `checkpoint cleanup: ${errorMessage(e)}`);
        }
    }

    // ---- internals ----------------------------------------------------------------------------------------------
    /** The open journal of `sessionId`, or the stored one (opened now), or undefined when none was kept. */
    private async entry(sessionId: string): Promise<Open | undefined> {
        const open = this.open.get(sessionId);
        if (open) return open;
        const store = this.o.store();
        if (!store || !(await store.has(sessionId))) return undefined;
        const entry: Open = {journal: store.session(sessionId)};
        this.remember(sessionId, entry);
        return entry;
    }

    private remember(sessionId: string, entry: Open): void {
        this.open.delete(sessionId);
        this.open.set(sessionId, entry);
        while (this.open.size > (this.o.keepOpen ?? 4)) this.open.delete(this.open.keys().next().value!);
    }
}
