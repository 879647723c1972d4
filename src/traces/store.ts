// Owns the trace store on disk: immutable trace bodies plus an append-only, checksummed index log of summaries and
// labels. Crash-safe: a kill -9 (or power loss) mid-write loses at most the record being written, never earlier ones.
//
// Layout of a store directory:
//   index.log            one record per line: "<crc32 hex8> <json>\n"; records are {type:"trace", summary, body}
//                        or {type:"label", id, label}. Lines that fail the checksum or parse are skipped.
//   bodies/<id>.json     the full Trace, written to a temp file, fsynced and renamed before its index line exists.

import {mkdirSync} from "node:fs";
import {readFile} from "node:fs/promises";
import {homedir} from "node:os";
import {join} from "node:path";
import {appendLineSync, decodeLines, encodeLine, writeFileAtomic} from "../common/durable";
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
    return encodeLine(r);
}

/** Parses index text; torn or corrupt lines are skipped (and counted). */
export function decodeRecords(text: string): {records: IndexRecord[]; skipped: number} {
    return decodeLines<IndexRecord>(text);
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

    /** Appends one record (one atomic, fsynced write; a torn tail from a crash gets its own line first). */
    private appendRecord(r: IndexRecord): void {
        appendLineSync(this.indexPath, r);
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
