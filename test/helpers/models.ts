// Test models: factory GGUFs built on first use and cached under test/.models/<hash of the factory code>/,
// so every test file shares them and a change to the factory or the codecs rebuilds them.

import {createHash} from "node:crypto";
import {existsSync, mkdirSync, readdirSync, readFileSync} from "node:fs";
import {dirname, join} from "node:path";
import {fileURLToPath} from "node:url";
import {makeModel, type ModelSpec} from "../../src/factory/model";
import {parseTypeName, typeName, type GgmlType} from "../../src/gguf/types";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function codeHash(): string {
    const h = createHash("sha256");
    for (const dir of ["src/factory", "src/gguf", "src/gguf/quant"]) {
        const abs = join(root, dir);
        if (!existsSync(abs)) continue;
        for (const f of readdirSync(abs).sort()) if (f.endsWith(".ts")) h.update(f).update(readFileSync(join(abs, f)));
    }
    return h.digest("hex").slice(0, 12);
}

let cacheDir: string | undefined;
export function modelCacheDir(): string {
    cacheDir ??= join(root, "test", ".models", codeHash());
    mkdirSync(cacheDir, {recursive: true});
    return cacheDir;
}

export type TestModelSpec = Omit<ModelSpec, "type"> & {type: GgmlType | string};

export function toSpec(s: TestModelSpec): ModelSpec {
    const type = typeof s.type === "string" ? parseTypeName(s.type) : s.type;
    if (type === undefined) throw new Error(`unknown type ${s.type}`);
    return {...s, type};
}

/** Path of a cached factory model for `spec` (built on first use). */
export function testModel(spec: TestModelSpec): string {
    const s = toSpec(spec);
    const key = createHash("sha256").update(JSON.stringify(s, (_k, v) => v instanceof RegExp ? v.source : v)).digest("hex").slice(0, 10);
    const path = join(modelCacheDir(), `${s.arch}-${typeName(s.type).toLowerCase()}-${key}.gguf`);
    if (!existsSync(path)) makeModel(s, path);
    return path;
}

/** A fresh temp path inside the cache dir (for files a test writes itself). */
export function scratchPath(name: string): string {
    return join(modelCacheDir(), `scratch-${process.pid}-${Date.now()}-${name}`);
}
