// Owns `nano-coder inspect`: prints a GGUF file's header, metadata and tensor table as text or JSON.

import {parseArgs} from "node:util";
import {isArray, type GgufValue} from "../gguf/metadata";
import {openGguf, type GgufFile} from "../gguf/reader";
import {GgufValueType, typeName} from "../gguf/types";
import {UsageError, type CliCommand} from "./command";

const usage = `usage: nano-coder inspect FILE.gguf [--json] [--full]
Prints version, size, alignment, every metadata key (long arrays abbreviated unless --full) and every tensor
(name, type, shape in ggml ne order, bytes, offset).`;

function jsonValue(v: GgufValue, full: boolean): unknown {
    if (typeof v === "bigint") return v.toString();
    if (isArray(v)) {
        const items = full ? v.items : v.items.slice(0, 16);
        const out = items.map(i => jsonValue(i, full));
        return full || v.items.length <= 16 ? out : {itemType: GgufValueType[v.itemType], length: v.items.length, first: out};
    }
    return v;
}

function textValue(v: GgufValue, full: boolean): string {
    if (isArray(v)) {
        const shown = full ? v.items : v.items.slice(0, 8);
        const body = shown.map(i => textValue(i, full)).join(", ");
        return `${GgufValueType[v.itemType].toLowerCase()}[${v.items.length}] [${body}${shown.length < v.items.length ? ", …" : ""}]`;
    }
    if (typeof v === "string") {
        const s = JSON.stringify(v);
        return full || s.length <= 120 ? s : `${s.slice(0, 117)}…" (${v.length} chars)`;
    }
    return String(v);
}

export function describeGguf(f: GgufFile, full: boolean): object {
    return {
        path: f.path, version: f.version, fileSize: f.fileSize, alignment: f.alignment, dataOffset: f.dataOffset,
        metadata: Object.fromEntries(f.metadata.entries.map(e => [e.key, {type: GgufValueType[e.type], value: jsonValue(e.value, full)}])),
        tensors: f.tensors.map(t => ({name: t.name, type: typeName(t.type), shape: t.shape, elements: t.elements, bytes: t.byteSize, offset: t.offset})),
    };
}

export const inspectCommand: CliCommand = {
    name: "inspect",
    summary: "print a GGUF file's metadata and tensors (text or --json)",
    usage,
    async run(argv, io) {
        const {values: v, positionals} = parseArgs({args: argv, allowPositionals: true, strict: true,
            options: {json: {type: "boolean"}, full: {type: "boolean"}}});
        if (positionals.length !== 1) throw new UsageError("give exactly one GGUF file");
        const f = await openGguf(positionals[0]!);
        try {
            if (v.json) { io.out(JSON.stringify(describeGguf(f, !!v.full), null, 2) + "\n"); return 0; }
            const mib = (b: number) => `${(b / 2 ** 20).toFixed(2)} MiB`;
            io.out(`${f.path}\nGGUF v${f.version}, ${mib(f.fileSize)}, alignment ${f.alignment}, ${f.metadata.entries.length} metadata keys, ${f.tensors.length} tensors\n\nmetadata:\n`);
            for (const e of f.metadata.entries) io.out(`  ${e.key} (${GgufValueType[e.type].toLowerCase()}) = ${textValue(e.value, !!v.full)}\n`);
            io.out("\ntensors:\n");
            const byType = new Map<string, number>();
            for (const t of f.tensors) {
                io.out(`  ${t.name.padEnd(28)} ${typeName(t.type).padEnd(6)} ${`[${t.shape.join(", ")}]`.padEnd(16)} ${String(t.byteSize).padStart(12)} B  @${t.offset}\n`);
                byType.set(typeName(t.type), (byType.get(typeName(t.type)) ?? 0) + t.byteSize);
            }
            io.out(`\nbytes by type: ${[...byType].map(([k, b]) => `${k} ${mib(b)}`).join(", ")}\n`);
            return 0;
        } finally {
            f.close();
        }
    },
};
