// Owns writing GGUF v3 files (models and LoRA adapters): metadata of every value type, tensor infos, aligned data.
// Tensors are encoded and written one at a time (a factory can stream a 500 MB model without holding it), into a
// temporary file renamed into place at the end, so a crash mid-write never leaves a half-written file behind.

import * as fs from "node:fs";
import {NanoError} from "../common/errors";
import {isArray, type GgufKv, type GgufValue} from "./metadata";
import {quantize} from "./quant";
import {GGML_MAX_DIMS, GGUF_DEFAULT_ALIGNMENT, GGUF_MAGIC, GgmlType, GgufValueType, typeLayout, typeName} from "./types";

export interface GgufWriteTensor {
    name: string;
    /** ggml `ne` order: shape[0] is the contiguous row length. */
    shape: number[];
    /** Type to store; float data is quantized to it. */
    type: GgmlType;
    /** Float values (row-major, shape[0] fastest), a producer called when the tensor is written, or raw encoded bytes. */
    data: Float32Array | (() => Float32Array) | {bytes: Uint8Array};
}

export interface GgufWriteOptions {
    metadata: GgufKv[];
    tensors: GgufWriteTensor[];
    /** Defaults to general.alignment when present in metadata, else 32. */
    alignment?: number;
}

/** Growable little-endian byte sink for the header. */
class Sink {
    private buf = Buffer.alloc(1 << 16);
    len = 0;
    private room(n: number): number {
        if (this.len + n > this.buf.length) {
            const b = Buffer.alloc(Math.max(this.buf.length * 2, this.len + n));
            this.buf.copy(b, 0, 0, this.len);
            this.buf = b;
        }
        const at = this.len;
        this.len += n;
        return at;
    }
    u8(v: number) { const at = this.room(1); this.buf.writeUInt8(v, at); }
    i8(v: number) { const at = this.room(1); this.buf.writeInt8(v, at); }
    u16(v: number) { const at = this.room(2); this.buf.writeUInt16LE(v, at); }
    i16(v: number) { const at = this.room(2); this.buf.writeInt16LE(v, at); }
    u32(v: number) { const at = this.room(4); this.buf.writeUInt32LE(v, at); }
    i32(v: number) { const at = this.room(4); this.buf.writeInt32LE(v, at); }
    f32(v: number) { const at = this.room(4); this.buf.writeFloatLE(v, at); }
    f64(v: number) { const at = this.room(8); this.buf.writeDoubleLE(v, at); }
    u64(v: bigint | number) { const at = this.room(8); this.buf.writeBigUInt64LE(BigInt(v), at); }
    i64(v: bigint | number) { const at = this.room(8); this.buf.writeBigInt64LE(BigInt(v), at); }
    str(s: string) {
        const n = Buffer.byteLength(s, "utf8");
        this.u64(n);
        const at = this.room(n); // before reading this.buf: room() may replace it
        this.buf.write(s, at, "utf8");
    }
    bytes(): Buffer { return this.buf.subarray(0, this.len); }
}

function bad(key: string, msg: string): never {
    throw new NanoError("gguf-write", `metadata "${key}": ${msg}`);
}

function writeValue(s: Sink, type: GgufValueType, v: GgufValue, key: string): void {
    const num = () => (typeof v === "number" ? v : bad(key, `expected a number for ${GgufValueType[type]}, got ${typeof v}`));
    switch (type) {
        case GgufValueType.UINT8: return s.u8(num());
        case GgufValueType.INT8: return s.i8(num());
        case GgufValueType.UINT16: return s.u16(num());
        case GgufValueType.INT16: return s.i16(num());
        case GgufValueType.UINT32: return s.u32(num());
        case GgufValueType.INT32: return s.i32(num());
        case GgufValueType.FLOAT32: return s.f32(num());
        case GgufValueType.FLOAT64: return s.f64(num());
        case GgufValueType.UINT64:
        case GgufValueType.INT64:
            if (typeof v !== "number" && typeof v !== "bigint") bad(key, "expected a number or bigint");
            return type === GgufValueType.UINT64 ? s.u64(v) : s.i64(v);
        case GgufValueType.BOOL:
            if (typeof v !== "boolean") bad(key, "expected a boolean");
            return s.u8(v ? 1 : 0);
        case GgufValueType.STRING:
            if (typeof v !== "string") bad(key, "expected a string");
            return s.str(v);
        case GgufValueType.ARRAY: {
            if (!isArray(v)) bad(key, "expected an array value {itemType, items}");
            s.u32(v.itemType);
            s.u64(v.items.length);
            for (const item of v.items) writeValue(s, v.itemType, item, key);
            return;
        }
        default:
            bad(key, `unknown value type ${type}`);
    }
}

function encode(t: GgufWriteTensor, elements: number, byteSize: number): Uint8Array {
    if ("bytes" in t.data) {
        if (t.data.bytes.length !== byteSize)
            throw new NanoError("gguf-write", `tensor "${t.name}": ${t.data.bytes.length} bytes given, ${typeName(t.type)} ${t.shape.join("×")} needs ${byteSize}`);
        return t.data.bytes;
    }
    const f = typeof t.data === "function" ? t.data() : t.data;
    if (f.length !== elements)
        throw new NanoError("gguf-write", `tensor "${t.name}": ${f.length} values given, shape ${t.shape.join("×")} has ${elements}`);
    return quantize(t.type, f);
}

/** Writes a GGUF v3 file atomically (temp file + rename). Returns the file size in bytes. */
export function writeGguf(path: string, opts: GgufWriteOptions): number {
    const alignEntry = opts.metadata.find(e => e.key === "general.alignment");
    const alignment = opts.alignment ?? (typeof alignEntry?.value === "number" ? alignEntry.value : GGUF_DEFAULT_ALIGNMENT);
    if (alignment <= 0 || (alignment & (alignment - 1)) !== 0) throw new NanoError("gguf-write", `alignment ${alignment} is not a power of two`);
    const metadata = [...opts.metadata];
    if (alignment !== GGUF_DEFAULT_ALIGNMENT && !alignEntry)
        metadata.push({key: "general.alignment", type: GgufValueType.UINT32, value: alignment});

    const h = new Sink();
    h.u32(GGUF_MAGIC);
    h.u32(3);
    h.u64(opts.tensors.length);
    h.u64(metadata.length);
    const keys = new Set<string>();
    for (const e of metadata) {
        if (keys.has(e.key)) bad(e.key, "appears twice");
        keys.add(e.key);
        h.str(e.key);
        h.u32(e.type);
        writeValue(h, e.type, e.value, e.key);
    }
    const sizes: {elements: number; byteSize: number}[] = [];
    const names = new Set<string>();
    let offset = 0;
    for (const t of opts.tensors) {
        const layout = typeLayout(t.type);
        if (!layout) throw new NanoError("gguf-write", `tensor "${t.name}": unknown ggml type ${t.type}`);
        if (names.has(t.name)) throw new NanoError("gguf-write", `tensor "${t.name}" appears twice`);
        names.add(t.name);
        if (t.shape.length < 1 || t.shape.length > GGML_MAX_DIMS || t.shape.some(d => !Number.isInteger(d) || d < 1))
            throw new NanoError("gguf-write", `tensor "${t.name}": bad shape [${t.shape.join(", ")}]`);
        if (t.shape[0]! % layout.blockSize !== 0)
            throw new NanoError("gguf-write", `tensor "${t.name}": row length ${t.shape[0]} is not a multiple of the ${typeName(t.type)} block size ${layout.blockSize}`);
        const elements = t.shape.reduce((a, b) => a * b, 1);
        const byteSize = (elements / layout.blockSize) * layout.typeSize;
        sizes.push({elements, byteSize});
        h.str(t.name);
        h.u32(t.shape.length);
        for (const d of t.shape) h.u64(d);
        h.u32(t.type);
        h.u64(offset);
        offset += Math.ceil(byteSize / alignment) * alignment;
    }

    const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
    const fd = fs.openSync(tmp, "w");
    let pos = 0;
    const put = (b: Uint8Array) => {
        let done = 0;
        while (done < b.length) done += fs.writeSync(fd, b, done, b.length - done, pos + done);
        pos += b.length;
    };
    const pad = () => { const p = (alignment - (pos % alignment)) % alignment; if (p) put(new Uint8Array(p)); };
    try {
        put(h.bytes());
        pad();
        opts.tensors.forEach((t, i) => {
            put(encode(t, sizes[i]!.elements, sizes[i]!.byteSize));
            pad();
        });
        fs.fsyncSync(fd);
        fs.closeSync(fd);
        fs.renameSync(tmp, path);
    } catch (e) {
        try { fs.closeSync(fd); } catch { /* already closed */ }
        fs.rmSync(tmp, {force: true});
        throw e;
    }
    return pos;
}
