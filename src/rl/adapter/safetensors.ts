// Owns the safetensors container (Hugging Face): an 8-byte little-endian header length, a JSON header
// {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {...}}, then the raw little-endian data.
// Writes F32; reads F32, F16 and BF16 as float32. Knows nothing of what the tensors mean (peft.ts does).
import {readFileSync, renameSync, writeFileSync} from "node:fs";
import {NanoError} from "../../common/errors";
import {dequantize} from "../../gguf/quant";
import {GgmlType} from "../../gguf/types";

export interface SafeTensor {
    /** Row-major, torch order (shape[0] slowest). */
    shape: number[];
    data: Float32Array;
}

const DTYPES: Record<string, {bytes: number; type: GgmlType}> = {
    F32: {bytes: 4, type: GgmlType.F32}, F16: {bytes: 2, type: GgmlType.F16}, BF16: {bytes: 2, type: GgmlType.BF16},
};

/** Writes tensors (F32) atomically; names are written in sorted order, as the Python library does. */
export function writeSafetensors(path: string, tensors: Map<string, SafeTensor>, metadata: Record<string, string> = {format: "pt"}): void {
    const names = [...tensors.keys()].sort();
    const header: Record<string, unknown> = {__metadata__: metadata};
    let off = 0;
    for (const n of names) {
        const t = tensors.get(n)!;
        if (t.data.length !== t.shape.reduce((a, b) => a * b, 1)) throw new NanoError("safetensors.shape", `tensor "${n}": ${t.data.length} values for shape [${t.shape}]`);
        header[n] = {dtype: "F32", shape: t.shape, data_offsets: [off, off + t.data.byteLength]};
        off += t.data.byteLength;
    }
    let json = JSON.stringify(header);
    json += " ".repeat((8 - (json.length % 8)) % 8);         // data starts 8-aligned (spaces are valid JSON padding)
    const head = Buffer.from(json, "utf8");
    const out = Buffer.alloc(8 + head.length + off);
    out.writeBigUInt64LE(BigInt(head.length), 0);
    head.copy(out, 8);
    let at = 8 + head.length;
    for (const n of names) {
        const d = tensors.get(n)!.data;
        Buffer.from(d.buffer, d.byteOffset, d.byteLength).copy(out, at);
        at += d.byteLength;
    }
    const tmp = `${path}.tmp-${process.pid}`;
    writeFileSync(tmp, out);
    renameSync(tmp, path);
}

/** Reads every tensor as float32, with the file's metadata. */
export function readSafetensors(path: string): {tensors: Map<string, SafeTensor>; metadata: Record<string, string>} {
    const buf = readFileSync(path);
    const fail = (msg: string): never => { throw new NanoError("safetensors.bad", `${path}: ${msg}`); };
    if (buf.length < 8) fail("shorter than its header length");
    const n = Number(buf.readBigUInt64LE(0));
    if (n > buf.length - 8) fail(`header length ${n} exceeds the file`);
    let header: Record<string, {dtype: string; shape: number[]; data_offsets: [number, number]} | Record<string, string>>;
    try { header = JSON.parse(buf.toString("utf8", 8, 8 + n)); } catch (e) { return fail(`header is not JSON (${(e as Error).message})`); }
    const base = 8 + n, tensors = new Map<string, SafeTensor>();
    let metadata: Record<string, string> = {};
    for (const [name, info] of Object.entries(header)) {
        if (name === "__metadata__") { metadata = info as Record<string, string>; continue; }
        const {dtype, shape, data_offsets: [b, e]} = info as {dtype: string; shape: number[]; data_offsets: [number, number]};
        const dt = DTYPES[dtype] ?? fail(`tensor "${name}": dtype ${dtype} is not supported (F32, F16, BF16)`);
        const count = shape.reduce((x, y) => x * y, 1);
        if (e - b !== count * dt.bytes || base + e > buf.length) fail(`tensor "${name}": data_offsets [${b}, ${e}] do not fit ${dtype} [${shape}]`);
        const bytes = new Uint8Array(buf.buffer, buf.byteOffset + base + b, e - b);
        tensors.set(name, {shape, data: dequantize(dt.type, bytes.slice(), count)});
    }
    return {tensors, metadata};
}
