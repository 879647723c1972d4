// Owns the trace store on disk: immutable trace bodies plus an append-only, checksummed index log of summaries and
// labels. Crash-safe: a kill -9 (or power loss) mid-write loses at most the record being written, never earlier ones.
//
// Layout of a store directory:
//   index.log            one record per line: "<crc32 hex8> <json>\n"; records are {type:"trace", summary, body}
//                        or {type:"label", id, label}. Lines that fail the checksum or parse are skipped.
//   bodies/<id>.json     the full Trace, written to a temp file, fsynced and renamed before its index line exists.

import {closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readSync, writeSync} from "node:fs";
import {mkdir, open, readFile, rename, unlink} from "node:fs/promises";
import {homedir} from "node:os";
import {join} from "node:path";
import {crc32} from "node:zlib";
import {NanoError} from "../common/errors";
import {
    effectiveLabels, LABEL_NAMES, summarize, TRACE_VERSION,
    type LabelName, type Trace, type TraceLabel, type TraceSummary,
} from "./schema";

type IndexRecord =
    | {type: "trace"; summary: TraceSummary; body: string}
    | {type: "label"; id: string; label: TraceLabel};

export interface TraceFilter {
    /** Only traces whose effective labels include this one. */
    label?: LabelName;
    /** Only traces without any accepted/rejected label. */
    unlabelled?: boolean;
    /** createdAt ≥ since (ISO date or date-time). */
    since?: string;
    /** createdAt < until. */
    until?: string;
    /** Substring of the model file name, model name, or a sha256 prefix. */
    model?: string;
    status?: TraceSummary["status"];
    /** Newest first, at most this many. */
    limit?: number;
}

/** $NANO_CODER_TRACES, else $XDG_DATA_HOME/nano-coder/traces (~/.local/share/nano-coder/traces). */
export function defaultTraceDir(): string {
    return process.env.NANO_CODER_TRACES ?? join(process.env.XDG_DATA_HOME ?? join(homedir(), ".local", "share"), "nano-coder", "traces");
}

export function encodeRecord(r: IndexRecord): string {
    const json = JSON.stringify(r);
    return `${crc32(json).toString(16).padStart(8, "0")} ${json}\n`;
}

/** Parses index text; torn or corrupt lines are skipped (and counted). */
export function decodeRecords(text: string): {records: IndexRecord[]; skipped: number} {
    const records: IndexRecord[] = [];
    let skipped = 0;
    const lines = text.split("\n");
    // The last element is what follows the final "\n": empty for a clean file, a torn record otherwise.
    lines.forEach((line, i) => {
        if (line === "") return;
        const m = /^([0-9a-f]{8}) (.*)$/.exec(line);
        if (!m || i === lines.length - 1 || parseInt(m[1]!, 16) !== crc32(m[2]!)) { skipped++; return; }
        try { records.push(JSON.parse(m[2]!) as IndexRecord); } catch { skipped++; }
    });
    return {records, skipped};
}

export class TraceStore {
    readonly indexPath: string;
    readonly bodiesDir: string;

    private constructor(readonly dir: string) {
        this.indexPath = join(dir, "index.log");
        this.bodiesDir = join(dir, "bodies");
    }

    /** Opens (creating if needed) the store in `dir`. */
    static open(dir: string): TraceStore {
        mkdirSync(join(dir, "bodies"), {recursive: true});
        return new TraceStore(dir);
    }

    /** Writes `trace` (body first, then its index line). Returns its summary. */
    async append(trace: Trace): Promise<TraceSummary> {
        if (trace.version !== TRACE_VERSION) throw new NanoError("trace-version", `cannot store trace version ${trace.version}`);
        if (!/^[\w.-]+$/.test(trace.id)) throw new NanoError("trace-id", `bad trace id ${JSON.stringify(trace.id)}`);
        const body = `bodies/${trace.id}.json`;
        await writeFileAtomic(join(this.dir, body), JSON.stringify(trace) + "\n");
        const summary = summarize(trace);
        this.appendRecord({type: "trace", summary, body});
        return summary;
    }

    /** Adds a label to a stored trace (an appended record; the body is never rewritten). */
    async label(id: string, name: LabelName, opts: {by?: string; note?: string; at?: Date} = {}): Promise<TraceLabel> {
        if (!LABEL_NAMES.includes(name)) throw new NanoError("trace-label", `unknown label "${name}" (use ${LABEL_NAMES.join(", ")})`);
        const {traces} = await this.readIndex();
        if (!traces.has(id)) throw new NanoError("trace-not-found", `no trace ${id}`);
        const label: TraceLabel = {name, at: (opts.at ?? new Date()).toISOString(),
            ...(opts.by ? {by: opts.by} : {}), ...(opts.note ? {note: opts.note} : {})};
        this.appendRecord({type: "label", id, label});
        return label;
    }

    /** Summaries matching `filter`, newest first, labels merged. */
    async list(filter: TraceFilter = {}): Promise<TraceSummary[]> {
        const {traces} = await this.readIndex();
        let rows = [...traces.values()].map(t => t.summary);
        rows = rows.filter(s => matches(s, filter));
        rows.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1));
        return filter.limit !== undefined ? rows.slice(0, filter.limit) : rows;
    }

    /** The full trace (labels merged), or undefined. Accepts a unique id prefix. */
    async get(idOrPrefix: string): Promise<Trace | undefined> {
        const {traces} = await this.readIndex();
        let entry = traces.get(idOrPrefix);
        if (!entry) {
            const hits = [...traces.keys()].filter(k => k.startsWith(idOrPrefix));
            if (hits.length > 1) throw new NanoError("trace-ambiguous", `"${idOrPrefix}" matches ${hits.length} traces`);
            entry = hits.length ? traces.get(hits[0]!) : undefined;
        }
        if (!entry) return undefined;
        const trace = JSON.parse(await readFile(join(this.dir, entry.body), "utf8")) as Trace;
        // The index row holds the labels of the body at write time plus every label appended since.
        return {...trace, labels: entry.summary.labels};
    }

    /** Reads the index; `skipped` counts torn or corrupt lines (expected: at most one per crash). */
    async readIndex(): Promise<{traces: Map<string, {summary: TraceSummary; body: string}>; skipped: number}> {
        let text = "";
        try { text = await readFile(this.indexPath, "utf8"); } catch (e) { if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e; }
        const {records, skipped} = decodeRecords(text);
        const traces = new Map<string, {summary: TraceSummary; body: string}>();
        for (const r of records) {
            if (r.type === "trace") traces.set(r.summary.id, {summary: {...r.summary, labels: [...r.summary.labels]}, body: r.body});
            else if (r.type === "label") traces.get(r.id)?.summary.labels.push(r.label);
        }
        return {traces, skipped};
    }

    /**
     * Appends one record with a single write(2) on an O_APPEND descriptor (atomic with respect to other appenders).
     * If the file ends in a torn record (no final newline), a newline is written first so the torn bytes stay
     * confined to their own (skipped) line.
     */
    private appendRecord(r: IndexRecord): void {
        const fd = openSync(this.indexPath, "a+");
        try {
            let line = encodeRecord(r);
            const size = fstatSync(fd).size;
            if (size > 0) {
                const last = Buffer.alloc(1);
                readSync(fd, last, 0, 1, size - 1);
                if (last[0] !== 0x0a) line = "\n" + line;
            }
            writeSync(fd, line);
            fsyncSync(fd);
        } finally {
            closeSync(fd);
        }
    }
}

function matches(s: TraceSummary, f: TraceFilter): boolean {
    const labels = effectiveLabels(s.labels);
    if (f.label && !labels.has(f.label)) return false;
    if (f.unlabelled && (labels.has("accepted") || labels.has("rejected"))) return false;
    if (f.since && s.createdAt < f.since) return false;
    if (f.until && s.createdAt >= f.until) return false;
    if (f.status && s.status !== f.status) return false;
    if (f.model) {
        const m = f.model.toLowerCase();
        const hay = [s.model.file, s.model.name ?? ""].map(x => x.toLowerCase());
        if (!hay.some(h => h.includes(m)) && !s.model.sha256.startsWith(m)) return false;
    }
    return true;
}

/** Write to `path.tmp-<pid>`, fsync, rename over `path`, fsync the directory: readers see all or nothing. */
async function writeFileAtomic(path: string, data: string): Promise<void> {
    const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    await mkdir(join(path, ".."), {recursive: true});
    const fh = await open(tmp, "w");
    try {
        await fh.writeFile(data);
        await fh.sync();
    } catch (e) {
        await fh.close();
        await unlink(tmp).catch(() => {});
        throw e;
    }
    await fh.close();
    await rename(tmp, path);
    try {
        const dh = await open(join(path, ".."), "r");
        try { await dh.sync(); } finally { await dh.close(); }
    } catch { /* directory fsync is best effort (not supported everywhere) */ }
}
