// Owns reading GGUF files (v2/v3, little-endian): the header, metadata and tensor infos are parsed eagerly with
// bounded chunked reads; tensor data is read on demand, one tensor at a time, so multi-GB files open quickly.
// Every malformed input becomes a NanoError naming the section and byte offset, never a wrong tensor.

import * as fs from "node:fs";
import {NanoError} from "../common/errors";
import {GgufMetadata, type GgufArray, type GgufKv, type GgufValue} from "./metadata";
import {canDequantize, dequantize} from "./quant";
import {GGML_MAX_DIMS, GGUF_DEFAULT_ALIGNMENT, GGUF_MAGIC, GgmlType, GgufValueType, typeLayout, typeName} from "./types";

export interface GgufTensorInfo {
    name: string;
    /** ggml `ne` order: shape[0] is the contiguous row length. */
    shape: number[];
    type: GgmlType;
    elements: number;
    byteSize: number;
    /** Absolute offset of the tensor's bytes in the file. */
    offset: number;
}

const CHUNK = 1 << 20;
const MAX_ARRAY_DEPTH = 8;
/** Smallest encoding of one item of each value type: bounds counts before anything is allocated. */
const MIN_SIZE: Record<number, number> = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 8: 8, 9: 12, 10: 8, 11: 8, 12: 8};

function gguffail(code: string, path: string, msg: string): never {
    throw new NanoError(code, `${path}: ${msg}`);
}

/** Sequential reader over the file head: refills a buffer with positional reads, never past the file end. */
class Cursor {
    private buf = Buffer.alloc(0);
    private bufStart = 0;
    pos = 0;
    /** What is being parsed, for error messages. */
    where = "header";

    constructor(private readonly fd: number, readonly size: number, private readonly path: string) {}

    private need(n: number): number {
        if (n < 0 || this.pos + n > this.size)
            gguffail("gguf-truncated", this.path, `truncated file: ${this.where} needs ${n} bytes at offset ${this.pos}, but the file has ${this.size} bytes`);
        const rel = this.pos - this.bufStart;
        if (rel >= 0 && rel + n <= this.buf.length) return rel;
        const len = Math.min(Math.max(n, CHUNK), this.size - this.pos);
        if (this.buf.length < len) this.buf = Buffer.allocUnsafe(len);
        let got = 0;
        while (got < len) {
            const r = fs.readSync(this.fd, this.buf, got, len - got, this.pos + got);
            if (r === 0) gguffail("gguf-truncated", this.path, `unexpected end of file while reading ${this.where}`);
            got += r;
        }
        this.bufStart = this.pos;
        this.buf = this.buf.subarray(0, len);
        return 0;
    }

    remaining(): number { return this.size - this.pos; }

    u8(): number { const o = this.need(1); this.pos += 1; return this.buf.readUInt8(o); }
    i8(): number { const o = this.need(1); this.pos += 1; return this.buf.readInt8(o); }
    u16(): number { const o = this.need(2); this.pos += 2; return this.buf.readUInt16LE(o); }
    i16(): number { const o = this.need(2); this.pos += 2; return this.buf.readInt16LE(o); }
    u32(): number { const o = this.need(4); this.pos += 4; return this.buf.readUInt32LE(o); }
    i32(): number { const o = this.need(4); this.pos += 4; return this.buf.readInt32LE(o); }
    f32(): number { const o = this.need(4); this.pos += 4; return this.buf.readFloatLE(o); }
    f64(): number { const o = this.need(8); this.pos += 8; return this.buf.readDoubleLE(o); }
    u64(): bigint { const o = this.need(8); this.pos += 8; return this.buf.readBigUInt64LE(o); }
    i64(): bigint { const o = this.need(8); this.pos += 8; return this.buf.readBigInt64LE(o); }

    /** A u64 count or length that must fit in what is left of the file at `minItem` bytes per item. */
    count(what: string, minItem: number): number {
        const at = this.pos;
        const n = this.u64();
        const room = BigInt(Math.floor(this.remaining() / Math.max(1, minItem)));
        if (n > room) {
            // A count no real file could hold is corruption; a plausible one means the file was cut short.
            if (n > 0xffffffffn)
                gguffail("gguf-count-overflow", this.path, `${what} = ${n} at offset ${at} cannot fit in the ${this.remaining()} bytes left of the file`);
            gguffail("gguf-truncated", this.path, `truncated file: ${what} = ${n} at offset ${at}, but only ${this.remaining()} bytes are left`);
        }
        return Number(n);
    }

    str(what: string): string {
        const n = this.count(`length of ${what}`, 1);
        const o = this.need(n);
        this.pos += n;
        return this.buf.toString("utf8", o, o + n);
    }
}

function safeNumber(v: bigint): number | bigint {
    return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

function readValue(c: Cursor, type: number, key: string, depth: number, path: string): GgufValue {
    switch (type) {
        case GgufValueType.UINT8: return c.u8();
        case GgufValueType.INT8: return c.i8();
        case GgufValueType.UINT16: return c.u16();
        case GgufValueType.INT16: return c.i16();
        case GgufValueType.UINT32: return c.u32();
        case GgufValueType.INT32: return c.i32();
        case GgufValueType.FLOAT32: return c.f32();
        case GgufValueType.FLOAT64: return c.f64();
        case GgufValueType.UINT64: return safeNumber(c.u64());
        case GgufValueType.INT64: return safeNumber(c.i64());
        case GgufValueType.BOOL: {
            const b = c.u8();
            if (b > 1) gguffail("gguf-bad-value", path, `metadata "${key}": bool byte is ${b} (must be 0 or 1)`);
            return b === 1;
        }
        case GgufValueType.STRING: return c.str(`string in "${key}"`);
        case GgufValueType.ARRAY: {
            if (depth >= MAX_ARRAY_DEPTH) gguffail("gguf-bad-value", path, `metadata "${key}": arrays nested deeper than ${MAX_ARRAY_DEPTH}`);
            const itemType = c.u32();
            if (MIN_SIZE[itemType] === undefined)
                gguffail("gguf-unknown-value-type", path, `metadata "${key}": unknown array item type ${itemType}`);
            const n = c.count(`item count of array "${key}"`, MIN_SIZE[itemType]!);
            const items: GgufValue[] = new Array(n);
            for (let i = 0; i < n; i++) items[i] = readValue(c, itemType, key, depth + 1, path);
            return {itemType, items} satisfies GgufArray;
        }
        default:
            return gguffail("gguf-unknown-value-type", path, `metadata "${key}": unknown value type ${type}`);
    }
}

export class GgufFile {
    private fd: number | undefined;
    private readonly byName = new Map<string, GgufTensorInfo>();

    private constructor(
        readonly path: string, fd: number, readonly fileSize: number, readonly version: number,
        readonly metadata: GgufMetadata, readonly tensors: readonly GgufTensorInfo[],
        readonly alignment: number, readonly dataOffset: number,
    ) {
        this.fd = fd;
        for (const t of tensors) this.byName.set(t.name, t);
    }

    /** Opens and parses the head of a GGUF file. Throws a NanoError naming the problem for malformed files. */
    static open(path: string): GgufFile {
        const fd = fs.openSync(path, "r");
        try {
            return GgufFile.parse(path, fd);
        } catch (e) {
            fs.closeSync(fd);
            throw e;
        }
    }

    private static parse(path: string, fd: number): GgufFile {
        const size = fs.fstatSync(fd).size;
        const c = new Cursor(fd, size, path);
        if (size < 4) gguffail("gguf-truncated", path, `truncated file: ${size} bytes is too short for the GGUF magic`);
        const magic = c.u32();
        if (magic !== GGUF_MAGIC) {
            const b = Buffer.alloc(4); b.writeUInt32LE(magic);
            gguffail("gguf-bad-magic", path, `not a GGUF file: magic is ${JSON.stringify(b.toString("latin1"))} (0x${magic.toString(16).padStart(8, "0")}), expected "GGUF"`);
        }
        const version = c.u32();
        if (version === 1) gguffail("gguf-bad-version", path, "GGUF version 1 is not supported (only v2 and v3)");
        if (version !== 2 && version !== 3) {
            if ((version & 0xffff) === 0 && (version >>> 16) !== 0)
                gguffail("gguf-bad-version", path, `big-endian GGUF (version bytes ${version.toString(16)}) is not supported`);
            gguffail("gguf-bad-version", path, `unsupported GGUF version ${version} (only v2 and v3)`);
        }
        c.where = "tensor count";
        const nTensors = c.count("tensor count", 8 + 4 + 8 + 4 + 8);
        c.where = "metadata count";
        const nKv = c.count("metadata count", 8 + 4 + 1);

        const entries: GgufKv[] = [];
        const seen = new Set<string>();
        for (let i = 0; i < nKv; i++) {
            c.where = `metadata key #${i}`;
            const key = c.str(`metadata key #${i}`);
            if (seen.has(key)) gguffail("gguf-duplicate-key", path, `metadata key "${key}" appears twice`);
            seen.add(key);
            c.where = `metadata "${key}"`;
            const type = c.u32();
            if (MIN_SIZE[type] === undefined) gguffail("gguf-unknown-value-type", path, `metadata "${key}": unknown value type ${type}`);
            entries.push({key, type, value: readValue(c, type, key, 0, path)});
        }
        const metadata = new GgufMetadata(entries);

        let alignment = GGUF_DEFAULT_ALIGNMENT;
        const al = metadata.entry("general.alignment");
        if (al) {
            if (al.type !== GgufValueType.UINT32 || typeof al.value !== "number" || al.value === 0 || (al.value & (al.value - 1)) !== 0)
                gguffail("gguf-bad-alignment", path, `general.alignment must be a non-zero power of two u32 (got ${String(al.value)})`);
            alignment = al.value;
        }

        const raw: {name: string; shape: number[]; type: number; rel: bigint; elements: number; byteSize: number}[] = [];
        const names = new Set<string>();
        for (let i = 0; i < nTensors; i++) {
            c.where = `tensor info #${i}`;
            const name = c.str(`name of tensor #${i}`);
            c.where = `tensor info "${name}"`;
            if (names.has(name)) gguffail("gguf-duplicate-tensor", path, `tensor "${name}" appears twice`);
            names.add(name);
            const nDims = c.u32();
            if (nDims < 1 || nDims > GGML_MAX_DIMS) gguffail("gguf-bad-tensor", path, `tensor "${name}" has ${nDims} dimensions (1..${GGML_MAX_DIMS} allowed)`);
            const shape: number[] = [];
            let elements = 1;
            for (let d = 0; d < nDims; d++) {
                const ne = c.u64();
                if (ne > BigInt(Number.MAX_SAFE_INTEGER)) gguffail("gguf-count-overflow", path, `tensor "${name}" dimension ${d} = ${ne} is too large`);
                shape.push(Number(ne));
                elements *= Number(ne);
                if (!Number.isSafeInteger(elements)) gguffail("gguf-count-overflow", path, `tensor "${name}" has too many elements (${shape.join("×")}…)`);
            }
            const type = c.u32();
            const layout = typeLayout(type);
            if (!layout) gguffail("gguf-unknown-type", path, `tensor "${name}" has unknown ggml type id ${type}`);
            if (shape[0]! % layout.blockSize !== 0)
                gguffail("gguf-bad-tensor", path, `tensor "${name}": row length ${shape[0]} is not a multiple of the ${typeName(type)} block size ${layout.blockSize}`);
            const rel = c.u64();
            raw.push({name, shape, type, rel, elements, byteSize: (elements / layout.blockSize) * layout.typeSize});
        }
        const dataOffset = Math.ceil(c.pos / alignment) * alignment;
        const tensors: GgufTensorInfo[] = raw.map(r => {
            if (r.rel % BigInt(alignment) !== 0n)
                gguffail("gguf-misaligned", path, `tensor "${r.name}": data offset ${r.rel} is not a multiple of the alignment ${alignment}`);
            const offset = dataOffset + Number(r.rel);
            if (r.rel > BigInt(size) || offset + r.byteSize > size)
                gguffail("gguf-truncated", path, `truncated file: tensor "${r.name}" (${typeName(r.type)} ${r.shape.join("×")}, ${r.byteSize} bytes at offset ${offset}) ends past the file end (${size} bytes)`);
            return {name: r.name, shape: r.shape, type: r.type, elements: r.elements, byteSize: r.byteSize, offset};
        });
        // Overlapping tensors mean a corrupt table: two names would read the same bytes.
        const sorted = [...tensors].sort((a, b) => a.offset - b.offset);
        for (let i = 1; i < sorted.length; i++) {
            const p = sorted[i - 1]!, t = sorted[i]!;
            if (p.offset + p.byteSize > t.offset && p.byteSize > 0 && t.byteSize > 0)
                gguffail("gguf-overlap", path, `tensors "${p.name}" and "${t.name}" overlap in the file`);
        }
        return new GgufFile(path, fd, size, version, metadata, tensors, alignment, dataOffset);
    }

    get architecture(): string | undefined { return this.metadata.getString("general.architecture"); }

    has(name: string): boolean { return this.byName.has(name); }

    tensor(name: string): GgufTensorInfo {
        const t = this.byName.get(name);
        if (!t) throw new NanoError("gguf-no-tensor", `${this.path}: no tensor named "${name}"`);
        return t;
    }

    private get handle(): number {
        if (this.fd === undefined) throw new NanoError("gguf-closed", `${this.path}: file is closed`);
        return this.fd;
    }

    /** The raw bytes of one tensor (ggml layout). */
    async readTensorBytes(nameOrInfo: string | GgufTensorInfo): Promise<Uint8Array> {
        const t = typeof nameOrInfo === "string" ? this.tensor(nameOrInfo) : nameOrInfo;
        const out = new Uint8Array(t.byteSize);
        const fd = this.handle;
        let got = 0;
        while (got < t.byteSize) {
            const n = await new Promise<number>((res, rej) =>
                fs.read(fd, out, got, Math.min(t.byteSize - got, 1 << 30), t.offset + got, (err, r) => err ? rej(err) : res(r)));
            if (n === 0) throw new NanoError("gguf-truncated", `${this.path}: file shrank while reading tensor "${t.name}"`);
            got += n;
        }
        return out;
    }

    /** One tensor as float32 (dequantized when quantized), row-major with shape[0] fastest. */
    async readTensorF32(nameOrInfo: string | GgufTensorInfo): Promise<Float32Array> {
        const t = typeof nameOrInfo === "string" ? this.tensor(nameOrInfo) : nameOrInfo;
        if (!canDequantize(t.type))
            throw new NanoError("gguf-unsupported-type", `${this.path}: tensor "${t.name}" is ${typeName(t.type)}, which cannot be dequantized yet`);
        return dequantize(t.type, await this.readTensorBytes(t), t.elements);
    }

    close(): void {
        if (this.fd !== undefined) { fs.closeSync(this.fd); this.fd = undefined; }
    }

    dispose(): void { this.close(); }
}

/** Opens a GGUF file (see GgufFile.open). */
export async function openGguf(path: string): Promise<GgufFile> {
    return GgufFile.open(path);
}
