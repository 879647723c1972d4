// GGUF read/write: exact round trip of every metadata value type and of tensors; what must never happen with
// malformed files (a crash, a silent wrong tensor, an error that does not name the problem).

import {test} from "node:test";
import assert from "node:assert/strict";
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {NanoError} from "../../../src/common/errors";
import {kv, type GgufKv} from "../../../src/gguf/metadata";
import {GgufFile} from "../../../src/gguf/reader";
import {GgmlType, GgufValueType} from "../../../src/gguf/types";
import {writeGguf} from "../../../src/gguf/writer";

const dir = mkdtempSync(join(tmpdir(), "gguf-test-"));
test.after(() => rmSync(dir, {recursive: true, force: true}));

const T = GgufValueType;
const allTypes: GgufKv[] = [
    {key: "t.u8", type: T.UINT8, value: 255}, {key: "t.i8", type: T.INT8, value: -128},
    {key: "t.u16", type: T.UINT16, value: 65535}, {key: "t.i16", type: T.INT16, value: -32768},
    {key: "t.u32", type: T.UINT32, value: 4294967295}, {key: "t.i32", type: T.INT32, value: -2147483648},
    {key: "t.f32", type: T.FLOAT32, value: Math.fround(3.14159)}, {key: "t.f64", type: T.FLOAT64, value: Math.PI},
    {key: "t.u64", type: T.UINT64, value: 18446744073709551615n}, {key: "t.u64small", type: T.UINT64, value: 42},
    {key: "t.i64", type: T.INT64, value: -9223372036854775808n}, {key: "t.bool", type: T.BOOL, value: true},
    {key: "t.str", type: T.STRING, value: "héllo ✓ 世界\n\u0000end"}, {key: "t.empty", type: T.STRING, value: ""},
    kv.arr("t.arr.str", T.STRING, ["a", "", "ü"]),
    kv.arr("t.arr.f32", T.FLOAT32, [1.5, -2.25, 0]),
    kv.arr("t.arr.empty", T.INT32, []),
    kv.arr("t.arr.nested", T.ARRAY, [{itemType: T.UINT8, items: [1, 2]}, {itemType: T.STRING, items: ["x"]},
        {itemType: T.ARRAY, items: [{itemType: T.BOOL, items: [false, true]}]}]),
];

function sample(path: string, alignment?: number): {a: Float32Array; b: Float32Array} {
    const a = Float32Array.from({length: 64 * 3}, (_, i) => Math.sin(i) * 10);
    const b = Float32Array.from({length: 5}, (_, i) => i - 2);
    writeGguf(path, {
        metadata: [kv.str("general.architecture", "llama"), ...allTypes],
        tensors: [{name: "w.a", shape: [64, 3], type: GgmlType.F32, data: a}, {name: "w.b", shape: [5], type: GgmlType.F32, data: b}],
        alignment,
    });
    return {a, b};
}

test("every metadata value type, nested arrays and F32 tensors round-trip exactly", async () => {
    for (const alignment of [undefined, 64]) {
        const p = join(dir, `rt-${alignment}.gguf`);
        const {a, b} = sample(p, alignment);
        const f = GgufFile.open(p);
        try {
            assert.equal(f.version, 3);
            assert.equal(f.alignment, alignment ?? 32);
            for (const e of allTypes) assert.deepEqual(f.metadata.entry(e.key), e, e.key);
            assert.equal(f.metadata.getString("general.architecture"), "llama");
            assert.deepEqual(f.tensor("w.a").shape, [64, 3]);
            for (const t of f.tensors) assert.equal(t.offset % f.alignment, 0, "tensor data aligned");
            assert.deepEqual(await f.readTensorF32("w.a"), a);
            assert.deepEqual(await f.readTensorF32("w.b"), b);
            assert.throws(() => f.tensor("nope"), /no tensor named "nope"/);
        } finally { f.close(); }
    }
});

test("a rewritten file is byte-identical (writer and reader agree on every field)", () => {
    const p = join(dir, "a.gguf"), q = join(dir, "b.gguf");
    sample(p);
    const f = GgufFile.open(p);
    const bytes = readFileSync(p);
    writeGguf(q, {metadata: [...f.metadata.entries], tensors: f.tensors.map(t => ({name: t.name, shape: t.shape, type: t.type,
        data: {bytes: bytes.subarray(t.offset, t.offset + t.byteSize)}}))});
    f.close();
    assert.ok(readFileSync(q).equals(bytes));
});

/** Asserts that parsing `bytes` fails with a NanoError whose code and message are as expected. */
function expectBad(bytes: Uint8Array, code: string, message: RegExp, name = "bad.gguf") {
    const p = join(dir, name);
    writeFileSync(p, bytes);
    assert.throws(() => GgufFile.open(p), (e: unknown) => {
        assert.ok(e instanceof NanoError, `expected NanoError, got ${(e as Error)?.stack}`);
        assert.equal(e.code, code, e.message);
        assert.match(e.message, message);
        return true;
    });
}

function good(): Buffer {
    const p = join(dir, "good.gguf");
    sample(p);
    return readFileSync(p);
}

test("a file truncated at any byte gives a clear 'truncated' error naming where", () => {
    const bytes = good();
    const f = GgufFile.open(join(dir, "good.gguf"));
    const dataEnd = Math.max(...f.tensors.map(t => t.offset + t.byteSize));
    f.close();
    // Every cut before the last tensor byte (only the final alignment padding may be missing).
    for (let n = 0; n < dataEnd; n++) {
        const p = join(dir, "trunc.gguf");
        writeFileSync(p, bytes.subarray(0, n));
        assert.throws(() => GgufFile.open(p), (e: unknown) => {
            assert.ok(e instanceof NanoError, `at ${n}: ${(e as Error)?.stack}`);
            assert.equal(e.code, "gguf-truncated", `at ${n}: ${e.message}`);
            assert.match(e.message, /truncated|end of file/);
            return true;
        }, `truncated at ${n} bytes must not parse`);
    }
    // The message names the section: inside metadata it names the key, inside data the tensor.
    expectBad(bytes.subarray(0, 30), "gguf-truncated", /tensor count = 2/);
    expectBad(bytes.subarray(0, 400), "gguf-truncated", /metadata/);
    expectBad(bytes.subarray(0, dataEnd - 4), "gguf-truncated", /tensor "w\.b"/);
});

test("bad magic, wrong versions and big-endian files are named", () => {
    const b = good();
    const m = Buffer.from(b); m.write("GGML", 0, "latin1");
    expectBad(m, "gguf-bad-magic", /not a GGUF file: magic is "GGML"/);
    for (const [v, re] of [[1, /version 1 is not supported/], [4, /unsupported GGUF version 4/], [0x03000000, /big-endian/]] as const) {
        const x = Buffer.from(b); x.writeUInt32LE(v, 4);
        expectBad(x, "gguf-bad-version", re);
    }
    expectBad(Buffer.from("GG"), "gguf-truncated", /too short/);
});

test("overflowing counts are refused before anything is allocated", () => {
    const b = good();
    const t = Buffer.from(b); t.writeBigUInt64LE(1n << 62n, 8);
    expectBad(t, "gguf-count-overflow", /tensor count = 4611686018427387904/);
    const k = Buffer.from(b); k.writeBigUInt64LE(0xffffffffffffffffn, 16);
    expectBad(k, "gguf-count-overflow", /metadata count/);
    // First key's string length (right after the 24-byte header).
    const s = Buffer.from(b); s.writeBigUInt64LE(1n << 40n, 24);
    expectBad(s, "gguf-count-overflow", /length of metadata key #0/);
    // An array count: find "t.arr.str" and patch the u64 count after its item type.
    const a = Buffer.from(b); const at = a.indexOf("t.arr.str") + "t.arr.str".length + 4 + 4;
    a.writeBigUInt64LE(1n << 50n, at);
    expectBad(a, "gguf-count-overflow", /item count of array "t\.arr\.str"/);
});

test("unknown value types, unknown tensor types, bad dims and misaligned offsets are named", () => {
    const b = good();
    const v = Buffer.from(b); const at = v.indexOf("t.u8") + 4;
    v.writeUInt32LE(77, at);
    expectBad(v, "gguf-unknown-value-type", /metadata "t\.u8": unknown value type 77/);
    // Tensor info of "w.a": name, n_dims u32, ne[0..1] u64, type u32, offset u64.
    const info = b.lastIndexOf("w.a") + 3;
    const ty = Buffer.from(b); ty.writeUInt32LE(99, info + 4 + 16);
    expectBad(ty, "gguf-unknown-type", /tensor "w\.a" has unknown ggml type id 99/);
    const retired = Buffer.from(b); retired.writeUInt32LE(4, info + 4 + 16);
    expectBad(retired, "gguf-unknown-type", /unknown ggml type id 4/);
    const dims = Buffer.from(b); dims.writeUInt32LE(7, info);
    expectBad(dims, "gguf-bad-tensor", /"w\.a" has 7 dimensions/);
    const q = Buffer.from(b); q.writeUInt32LE(GgmlType.Q8_0, info + 4 + 16); q.writeBigUInt64LE(63n, info + 4);
    expectBad(q, "gguf-bad-tensor", /row length 63 is not a multiple of the Q8_0 block size 32/);
    const off = Buffer.from(b); off.writeBigUInt64LE(4n, info + 4 + 16 + 4);
    expectBad(off, "gguf-misaligned", /"w\.a": data offset 4 is not a multiple of the alignment 32/);
    const big = Buffer.from(b); big.writeBigUInt64LE(1n << 40n, info + 4);
    expectBad(big, "gguf-truncated", /tensor "w\.a".*ends past the file end/);
});

test("random corruption never crashes the reader: it parses or gives a NanoError", async () => {
    const b = good();
    let rng = 12345;
    const rand = (n: number) => { rng = (Math.imul(rng, 1103515245) + 12345) >>> 0; return rng % n; };
    let errors = 0;
    for (let i = 0; i < 400; i++) {
        const x = Buffer.from(b);
        const flips = 1 + rand(4);
        for (let j = 0; j < flips; j++) x[rand(Math.min(x.length, 700))] = rand(256);
        const p = join(dir, "fuzz.gguf");
        writeFileSync(p, x);
        try {
            const f = GgufFile.open(p);
            for (const t of f.tensors) await f.readTensorBytes(t);
            f.close();
        } catch (e) {
            assert.ok(e instanceof NanoError, `mutation ${i}: ${(e as Error)?.stack}`);
            errors++;
        }
    }
    assert.ok(errors > 0, "some mutations must be detected");
});

test("a header larger than the writer's first buffer (a 150k-token vocabulary) round-trips", () => {
    const p = join(dir, "bigheader.gguf");
    const tokens = Array.from({length: 150_000}, (_, i) => `tok_${i}_ü`);
    writeGguf(p, {metadata: [kv.arr("tokenizer.ggml.tokens", T.STRING, tokens)], tensors: []});
    const f = GgufFile.open(p);
    try { assert.deepEqual(f.metadata.getArray("tokenizer.ggml.tokens")!.items, tokens); } finally { f.close(); }
});

test("GGUF v2 files (same layout as v3, little-endian) are read", async () => {
    const b = good();
    const v2 = Buffer.from(b); v2.writeUInt32LE(2, 4);
    const p = join(dir, "v2.gguf");
    writeFileSync(p, v2);
    const f = GgufFile.open(p);
    try {
        assert.equal(f.version, 2);
        assert.equal(f.metadata.getString("t.str"), "héllo ✓ 世界\n\u0000end");
        assert.equal((await f.readTensorF32("w.b"))[4], 2);
    } finally { f.close(); }
});
