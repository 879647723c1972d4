// Owns the translation of a JSON Schema (the subset tool parameters use) into a matcher grammar that produces
// canonical JSON: keys in schema order, separators ", " and ": " (Python json.dumps style, as Qwen and Llama
// templates render tool calls). Unknown keywords are ignored; anything unconstrained becomes "any JSON value".

import {alt, lazy, lit, minText, num, seq, str, uint, type G} from "./matcher";

export type JsonSchema = {
    type?: string | string[];
    properties?: Record<string, JsonSchema>;
    required?: string[];
    items?: JsonSchema;
    enum?: unknown[];
    const?: unknown;
    anyOf?: JsonSchema[];
    oneOf?: JsonSchema[];
    maxLength?: number;
    minLength?: number;
    minimum?: number;
    maximum?: number;
    minItems?: number;
    [k: string]: unknown;
};

/** Default cap on string content, so a runaway sampler cannot produce an unbounded call. */
export const DEFAULT_MAX_STRING = 64 * 1024;

export function schemaGrammar(schema: JsonSchema | boolean | undefined, maxString = DEFAULT_MAX_STRING): G {
    if (schema === undefined || schema === true || (typeof schema === "object" && Object.keys(schema).length === 0)) return anyValue(maxString);
    if (schema === false) throw new Error("schema `false` matches nothing");
    if ("const" in schema) return lit(JSON.stringify(schema.const));
    if (Array.isArray(schema.enum)) return alt(...schema.enum.map(v => lit(JSON.stringify(v))));
    const union = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(union)) return alt(...union.map(s => schemaGrammar(s, maxString)));
    if (Array.isArray(schema.type)) return alt(...schema.type.map(t => schemaGrammar({...schema, type: t}, maxString)));
    switch (schema.type) {
        case "string": return str(Math.min(schema.maxLength ?? maxString, maxString), schema.minLength ?? 0);
        case "integer":
            // Non-negative ranges are enforced digit by digit; others fall back to any integer.
            return schema.minimum !== undefined && schema.minimum >= 0
                ? uint(Math.ceil(schema.minimum), schema.maximum ?? Number.MAX_SAFE_INTEGER)
                : num(true);
        case "number": return num(false);
        case "boolean": return alt(lit("true"), lit("false"));
        case "null": return lit("null");
        case "array": return arrayOf(schemaGrammar(schema.items, maxString), (schema.minItems ?? 0) > 0);
        case "object":
            return schema.properties && Object.keys(schema.properties).length > 0
                ? objectOf(schema.properties, new Set(schema.required ?? []), maxString)
                : anyObject(maxString);
        default:
            if (schema.properties) return objectOf(schema.properties, new Set(schema.required ?? []), maxString);
            return anyValue(maxString);
    }
}

/** `{` then the declared properties in order (optional ones may be skipped), then `}`. */
function objectOf(props: Record<string, JsonSchema>, required: Set<string>, maxString: number): G {
    const keys = Object.keys(props);
    const memo = new Map<string, G>();
    const rest = (i: number, first: boolean): G => {
        const key = `${i}:${first}`;
        const hit = memo.get(key);
        if (hit) return hit;
        let g: G;
        if (i === keys.length) g = lit("}");
        else {
            const k = keys[i]!;
            const entry = seq(lit(`${first ? "" : ", "}${JSON.stringify(k)}: `), schemaGrammar(props[k], maxString),
                lazy(() => rest(i + 1, false), minRest(i + 1, false)));
            g = required.has(k) ? entry : alt(entry, lazy(() => rest(i + 1, first), minRest(i + 1, first)));
        }
        memo.set(key, g);
        return g;
    };
    // Shortest completion of the remaining properties: required ones with their minimal values.
    const minRest = (i: number, first: boolean): string => {
        let out = "", f = first;
        for (let j = i; j < keys.length; j++) {
            if (!required.has(keys[j]!)) continue;
            out += `${f ? "" : ", "}${JSON.stringify(keys[j])}: ${minValue(props[keys[j]!])}`;
            f = false;
        }
        return out + "}";
    };
    return seq(lit("{"), rest(0, true));
}

function minValue(s: JsonSchema | undefined): string {
    return minText(schemaGrammar(s, 0));
}

function arrayOf(item: G, nonEmpty: boolean): G {
    const more: G = alt(lit("]"), seq(lit(", "), item, lazy(() => more, "]")));
    const body = seq(item, more);
    return seq(lit("["), nonEmpty ? body : alt(lit("]"), body));
}

function anyObject(maxString: number): G {
    const member = (): G => seq(str(maxString), lit(": "), anyValue(maxString), members);
    const members: G = alt(lit("}"), seq(lit(", "), lazy(member, "\"\": 0}")));
    return seq(lit("{"), alt(lit("}"), lazy(member, "\"\": 0}")));
}

function anyValue(maxString: number): G {
    return alt(
        str(maxString), num(false), lit("true"), lit("false"), lit("null"),
        lazy(() => anyObject(maxString), "{}"),
        lazy(() => arrayOf(anyValue(maxString), false), "[]"),
    );
}
