// Owns the in-memory form of GGUF metadata: typed key/values (nested arrays included) and typed getters.

import {NanoError} from "../common/errors";
import {GgufValueType} from "./types";

/** A scalar keeps its exact GGUF type next to it (in GgufKv) so a file can be rewritten unchanged. */
export type GgufScalar = number | bigint | boolean | string;
/** An array value: all items share `itemType`; nested arrays are GgufArray items with itemType ARRAY. */
export interface GgufArray {
    itemType: GgufValueType;
    items: GgufValue[];
}
export type GgufValue = GgufScalar | GgufArray;

export interface GgufKv {
    key: string;
    type: GgufValueType;
    value: GgufValue;
}

export function isArray(v: GgufValue | undefined): v is GgufArray {
    return typeof v === "object" && v !== null && Array.isArray((v as GgufArray).items);
}

/** Read-only view over the key/values of one file with typed getters that name the key when it is wrong. */
export class GgufMetadata {
    private readonly byKey = new Map<string, GgufKv>();

    constructor(readonly entries: readonly GgufKv[]) {
        for (const e of entries) this.byKey.set(e.key, e);
    }

    has(key: string): boolean { return this.byKey.has(key); }
    get(key: string): GgufValue | undefined { return this.byKey.get(key)?.value; }
    entry(key: string): GgufKv | undefined { return this.byKey.get(key); }
    keys(): string[] { return [...this.byKey.keys()]; }

    getString(key: string): string | undefined {
        const v = this.get(key);
        if (v === undefined) return undefined;
        if (typeof v !== "string") throw new NanoError("gguf-meta-type", `metadata "${key}" is not a string`);
        return v;
    }

    getNumber(key: string): number | undefined {
        const v = this.get(key);
        if (v === undefined) return undefined;
        if (typeof v === "bigint") {
            if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER))
                throw new NanoError("gguf-meta-range", `metadata "${key}" = ${v} does not fit a JS number`);
            return Number(v);
        }
        if (typeof v !== "number") throw new NanoError("gguf-meta-type", `metadata "${key}" is not a number`);
        return v;
    }

    getBool(key: string): boolean | undefined {
        const v = this.get(key);
        if (v === undefined) return undefined;
        if (typeof v !== "boolean") throw new NanoError("gguf-meta-type", `metadata "${key}" is not a bool`);
        return v;
    }

    getArray(key: string): GgufArray | undefined {
        const v = this.get(key);
        if (v === undefined) return undefined;
        if (!isArray(v)) throw new NanoError("gguf-meta-type", `metadata "${key}" is not an array`);
        return v;
    }

    requireNumber(key: string): number {
        const v = this.getNumber(key);
        if (v === undefined) throw new NanoError("gguf-meta-missing", `metadata "${key}" is missing`);
        return v;
    }

    requireString(key: string): string {
        const v = this.getString(key);
        if (v === undefined) throw new NanoError("gguf-meta-missing", `metadata "${key}" is missing`);
        return v;
    }
}

/** Builders for writing metadata with explicit GGUF types. */
export const kv = {
    str: (key: string, value: string): GgufKv => ({key, type: GgufValueType.STRING, value}),
    u32: (key: string, value: number): GgufKv => ({key, type: GgufValueType.UINT32, value}),
    i32: (key: string, value: number): GgufKv => ({key, type: GgufValueType.INT32, value}),
    f32: (key: string, value: number): GgufKv => ({key, type: GgufValueType.FLOAT32, value}),
    bool: (key: string, value: boolean): GgufKv => ({key, type: GgufValueType.BOOL, value}),
    u64: (key: string, value: bigint | number): GgufKv => ({key, type: GgufValueType.UINT64, value}),
    arr: (key: string, itemType: GgufValueType, items: GgufValue[]): GgufKv =>
        ({key, type: GgufValueType.ARRAY, value: {itemType, items}}),
};
