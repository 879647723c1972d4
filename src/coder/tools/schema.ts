// Owns validating tool arguments against the tools' JSON-schema subset, with messages a model can act on.
// Lenient where small models commonly slip and the intent is unambiguous: "12" for an integer, "true" for a boolean.

import type {JSONSchema} from "./types";

export type Validation = {ok: true; value: unknown} | {ok: false; errors: string[]};

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function describeValue(v: unknown): string {
    if (v === null) return "null";
    if (Array.isArray(v)) return "an array";
    if (typeof v === "string") return `a string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
    if (typeof v === "object") return "an object";
    return `${typeof v} ${String(v)}`;
}

/** Validates (and gently coerces) `value`; returns the coerced value or every problem found (at most 10). */
export function validate(schema: JSONSchema, value: unknown): Validation {
    const errors: string[] = [];
    const out = check(schema, value, "", errors);
    return errors.length ? {ok: false, errors: errors.slice(0, 10)} : {ok: true, value: out};
}

function check(s: JSONSchema, v: unknown, at: string, errors: string[]): unknown {
    const name = at || "arguments";
    switch (s.type) {
        case "object": {
            if (typeof v !== "object" || v === null || Array.isArray(v)) { errors.push(`${name} must be an object (got ${describeValue(v)})`); return v; }
            const o = v as Record<string, unknown>;
            const props = s.properties ?? {};
            const out: Record<string, unknown> = {};
            for (const r of s.required ?? []) if (o[r] === undefined || o[r] === null) errors.push(`missing required field "${at ? `${at}.` : ""}${r}"`);
            for (const [k, val] of Object.entries(o)) {
                const sub = props[k];
                const path = at ? `${at}.${k}` : k;
                if (!sub) {
                    if (s.additionalProperties === false) errors.push(`unknown field "${path}" (expected: ${Object.keys(props).join(", ") || "none"})`);
                    continue;
                }
                if (val === null && !(s.required ?? []).includes(k)) continue; // null for an optional field = absent
                if (val !== undefined) out[k] = check(sub, val, path, errors);
            }
            return out;
        }
        case "string": {
            if (typeof v !== "string") { errors.push(`"${name}" must be a string (got ${describeValue(v)})`); return v; }
            if (s.maxLength !== undefined && v.length > s.maxLength) errors.push(`"${name}" is ${v.length} characters long; the limit is ${s.maxLength}`);
            if (s.minLength !== undefined && v.length < s.minLength) errors.push(`"${name}" must not be empty`);
            if (loneSurrogate.test(v)) errors.push(`"${name}" is not valid Unicode text (it contains a lone surrogate)`);
            if (s.enum && !s.enum.includes(v)) errors.push(`"${name}" must be one of ${s.enum.map(e => JSON.stringify(e)).join(", ")} (got ${JSON.stringify(v)})`);
            return v;
        }
        case "integer":
        case "number": {
            let n = v;
            if (typeof n === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(n)) n = Number(n);
            if (typeof n !== "number" || !Number.isFinite(n)) { errors.push(`"${name}" must be ${s.type === "integer" ? "an integer" : "a number"} (got ${describeValue(v)})`); return v; }
            if (s.type === "integer" && !Number.isInteger(n)) { errors.push(`"${name}" must be an integer (got ${n})`); return v; }
            if (s.minimum !== undefined && n < s.minimum) errors.push(`"${name}" must be at least ${s.minimum} (got ${n})`);
            if (s.maximum !== undefined && n > s.maximum) errors.push(`"${name}" must be at most ${s.maximum} (got ${n})`);
            return n;
        }
        case "boolean": {
            if (v === "true" || v === "false") return v === "true";
            if (typeof v !== "boolean") errors.push(`"${name}" must be true or false (got ${describeValue(v)})`);
            return v;
        }
        case "array": {
            if (!Array.isArray(v)) { errors.push(`"${name}" must be an array (got ${describeValue(v)})`); return v; }
            if (s.minItems !== undefined && v.length < s.minItems) errors.push(`"${name}" needs at least ${s.minItems} item(s)`);
            if (s.maxItems !== undefined && v.length > s.maxItems) errors.push(`"${name}" has ${v.length} items; the limit is ${s.maxItems}`);
            return s.items ? v.map((x, i) => check(s.items!, x, `${name}[${i}]`, errors)) : v;
        }
    }
}

/** Turns raw arguments (an object, a JSON string, or bytes) into a value to validate; a problem becomes a message. */
export function parseRawArgs(raw: unknown): {ok: true; value: unknown} | {ok: false; error: string} {
    if (raw === undefined || raw === null || raw === "") return {ok: true, value: {}};
    if (raw instanceof Uint8Array) {
        let text: string;
        try { text = new TextDecoder("utf-8", {fatal: true}).decode(raw); } catch { return {ok: false, error: "the arguments are not valid UTF-8"}; }
        return parseRawArgs(text);
    }
    if (typeof raw === "string") {
        try { return {ok: true, value: JSON.parse(raw)}; } catch (e) {
            return {ok: false, error: `the arguments are not valid JSON (${(e as Error).message}); send one JSON object`};
        }
    }
    return {ok: true, value: raw};
}
