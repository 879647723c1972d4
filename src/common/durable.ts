// Owns crash-safe file primitives shared by the on-disk stores (traces, checkpoints): checksummed append-only record
// logs ("<crc32 hex8> <json>\n" per line, torn or corrupt lines skipped) and atomic whole-file writes (temp file,
// fsync, rename, fsync of the folder). Knows nothing of what the records mean.

import {closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync} from "node:fs";
import {mkdir, open, rename, unlink} from "node:fs/promises";
import {dirname} from "node:path";
import {crc32} from "node:zlib";

/** One record as a log line: its JSON, prefixed by the JSON's crc32. */
export function encodeLine(record: unknown): string {
    const json = JSON.stringify(record);
    return `${crc32(json).toString(16).padStart(8, "0")} ${json}\n`;
}

/** Parses log text; torn or corrupt lines are skipped (and counted). */
export function decodeLines<T>(text: string): {records: T[]; skipped: number} {
    const records: T[] = [];
    let skipped = 0;
    const lines = text.split("\n");
    // The last element is what follows the final "\n": empty for a clean file, a torn record otherwise.
    lines.forEach((line, i) => {
        if (line === "") return;
        const m = /^([0-9a-f]{8}) (.*)$/.exec(line);
        if (!m || i === lines.length - 1 || parseInt(m[1]!, 16) !== crc32(m[2]!)) { skipped++; return; }
        try { records.push(JSON.parse(m[2]!) as T); } catch { skipped++; }
    });
    return {records, skipped};
}

/**
 * Appends one record to the log at `path` with a single write(2) on an O_APPEND descriptor (atomic with respect to
 * other appenders), then fsyncs. If the file ends in a torn record (no final newline), a newline is written first so
 * the torn bytes stay confined to their own (skipped) line.
 */
export function appendLineSync(path: string, record: unknown): void {
    const fd = openSync(path, "a+");
    try {
        let line = encodeLine(record);
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

/** Marks the temp files writeFileAtomic leaves behind when killed mid-write (`<name>.tmp-<pid>-<rand>`). */
export const TEMP_MARK = ".tmp-";

/** Write to `path.tmp-<pid>-<rand>`, fsync, rename over `path`, fsync the folder: readers see all or nothing. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
    const tmp = `${path}${TEMP_MARK}${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    await mkdir(dirname(path), {recursive: true});
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
    await syncDir(dirname(path));
}

/** fsyncs a folder (makes a rename or a new entry durable); best effort, not supported everywhere. */
export async function syncDir(dir: string): Promise<void> {
    try {
        const dh = await open(dir, "r");
        try { await dh.sync(); } finally { await dh.close(); }
    } catch { /* directory fsync is best effort */ }
}
