// Owns the incremental grammar matcher: a tiny grammar language (literals, sequences, alternatives, JSON strings
// and numbers, lazy recursion) and a character-level matcher over it that answers "can this text continue a
// valid document?", "is the document complete?" and "what is the shortest way to finish it?".
// Knows nothing about JSON Schema (see schema.ts) or tokens (see tokenMask.ts).

export type G =
    | {k: "lit"; s: string}
    | {k: "seq"; items: G[]}
    | {k: "alt"; items: G[]}
    /** A JSON string literal (quotes included) with escapes; `minLen`..`maxLen` content characters. */
    | {k: "str"; maxLen: number; minLen: number}
    /** A non-negative integer in [min, max] (no leading zeros). */
    | {k: "uint"; min: number; max: number}
    /** A JSON number (`int`: no fraction or exponent); at most 24 characters. */
    | {k: "num"; int: boolean}
    /** Recursion point: `get` is called when the matcher reaches it (memoize inside `get`). */
    | {k: "lazy"; get: () => G; min: string};

export const lit = (s: string): G => ({k: "lit", s});
export const seq = (...items: G[]): G => (items.length === 1 ? items[0]! : {k: "seq", items});
export const alt = (...items: G[]): G => (items.length === 1 ? items[0]! : {k: "alt", items});
export const str = (maxLen = 1 << 20, minLen = 0): G => ({k: "str", maxLen, minLen});
export const uint = (min: number, max: number): G => ({k: "uint", min, max: Math.min(max, Number.MAX_SAFE_INTEGER)});
export const num = (int: boolean): G => ({k: "num", int});
/** `min` is the shortest text the lazy node matches (used to finish documents). */
export const lazy = (get: () => G, min: string): G => {
    let g: G | undefined;
    return {k: "lazy", get: () => (g ??= get()), min};
};

/** A position inside a node: lit → chars consumed; seq → next child; str/num → automaton state (n: length so
 *  far); uint → i = digits seen, n = value so far. */
interface Frame {g: G; i: number; n: number}
/** A persistent stack of frames (top first); `null` = the document is complete. */
type Stack = {f: Frame; up: Stack} | null;

// str states: 0 expects the opening quote, 1 in body, 2 after a backslash, 3..6 hex digits of \u left (4..1).
// num states: 0 start, 1 after '-', 2 after leading 0, 3 int digits, 4 after '.', 5 fraction digits,
//             6 after 'e', 7 after exponent sign, 8 exponent digits. States 2, 3, 5, 8 may end the number.
const NUM_CAN_END = new Set([2, 3, 5, 8]);
const MAX_NUM_LEN = 24;
const MAX_THREADS = 256;

const isDigit = (c: string) => c >= "0" && c <= "9";
const isHex = (c: string) => isDigit(c) || (c >= "a" && c <= "f") || (c >= "A" && c <= "F");

/** Expands a stack until its top frame consumes characters; returns every such stack (and null when complete). */
function normalize(s: Stack, out: Stack[], depth = 0): void {
    if (depth > 512) throw new Error("grammar recursion too deep");
    if (s === null) { out.push(null); return; }
    const {f, up} = s;
    const g = f.g;
    switch (g.k) {
        case "lit":
            if (f.i >= g.s.length) normalize(up, out, depth + 1);
            else out.push(s);
            return;
        case "seq":
            if (f.i >= g.items.length) normalize(up, out, depth + 1);
            else normalize({f: {g: g.items[f.i]!, i: 0, n: 0}, up: {f: {g, i: f.i + 1, n: 0}, up}}, out, depth + 1);
            return;
        case "alt":
            for (const item of g.items) normalize({f: {g: item, i: 0, n: 0}, up}, out, depth + 1);
            return;
        case "lazy":
            normalize({f: {g: g.get(), i: 0, n: 0}, up}, out, depth + 1);
            return;
        case "str":
            out.push(s);
            return;
        case "num":
            out.push(s);
            if (NUM_CAN_END.has(f.i)) normalize(up, out, depth + 1);
            return;
        case "uint":
            out.push(s);
            if (f.i > 0 && f.n >= g.min && f.n <= g.max) normalize(up, out, depth + 1);
            return;
    }
}

/** Advances one consuming stack by one character; returns the new (unnormalized) stack, or undefined if rejected. */
function advance(s: {f: Frame; up: Stack}, c: string): Stack | undefined {
    const {f, up} = s;
    const g = f.g;
    const at = (i: number, n = f.n): Stack => ({f: {g, i, n}, up});
    if (g.k === "lit") return g.s[f.i] === c ? at(f.i + 1) : undefined;
    if (g.k === "str") {
        switch (f.i) {
            case 0: return c === "\"" ? at(1, 0) : undefined;
            case 1:
                if (c === "\"") return f.n >= g.minLen ? up : undefined;
                if (f.n >= g.maxLen) return undefined;
                if (c === "\\") return at(2);
                return c < " " ? undefined : at(1, f.n + 1);
            case 2:
                if (c === "u") return at(3);
                return "\"\\/bfnrt".includes(c) ? at(1, f.n + 1) : undefined;
            default:
                if (!isHex(c)) return undefined;
                return f.i === 6 ? at(1, f.n + 1) : at(f.i + 1);
        }
    }
    if (g.k === "uint") {
        if (!isDigit(c) || (f.i > 0 && f.n === 0)) return undefined; // no leading zeros
        const v = f.n * 10 + (c.charCodeAt(0) - 48);
        return uintFeasible(v, g.min, g.max) ? at(f.i + 1, v) : undefined;
    }
    if (g.k === "num") {
        if (f.n >= MAX_NUM_LEN) return undefined;
        const d = isDigit(c), n = f.n + 1;
        switch (f.i) {
            case 0: return c === "-" ? at(1, n) : c === "0" ? at(2, n) : d ? at(3, n) : undefined;
            case 1: return c === "0" ? at(2, n) : d ? at(3, n) : undefined;
            case 2: case 3: case 5:
                if (d && f.i !== 2) return at(f.i, n);
                if (g.int) return undefined;
                if (c === "." && f.i !== 5) return at(4, n);
                return c === "e" || c === "E" ? at(6, n) : undefined;
            case 4: return d ? at(5, n) : undefined;
            case 6: return c === "+" || c === "-" ? at(7, n) : d ? at(8, n) : undefined;
            case 7: case 8: return d ? at(8, n) : undefined;
        }
    }
    return undefined;
}

/** Whether some number with decimal prefix `v` lies in [min, max]. */
function uintFeasible(v: number, min: number, max: number): boolean {
    if (v === 0) return min <= 0;
    for (let scale = 1; v * scale <= max; scale *= 10) {
        if ((v + 1) * scale - 1 >= min) return true;
    }
    return false;
}

/** Shortest digits that extend prefix value `v` (with `digits` digits) into [min, max]. */
function uintCompletion(v: number, digits: number, min: number, max: number): string {
    if (digits === 0) return String(min);
    if (v >= min && v <= max) return "";
    for (let scale = 10; v * scale <= max; scale *= 10) {
        const lo = Math.max(v * scale, min);
        if (lo <= Math.min((v + 1) * scale - 1, max)) return String(lo).slice(String(v).length);
    }
    return "";
}

/** Shortest text matched by `g` from its start. */
export function minText(g: G, depth = 0): string {
    if (depth > 64) return "";
    switch (g.k) {
        case "lit": return g.s;
        case "seq": return g.items.map(x => minText(x, depth + 1)).join("");
        case "alt": return g.items.map(x => minText(x, depth + 1)).reduce((a, b) => (b.length < a.length ? b : a));
        case "str": return `"${"_".repeat(g.minLen)}"`;
        case "num": return "0";
        case "uint": return String(g.min);
        case "lazy": return g.min;
    }
}

/** Shortest text that completes the document from a consuming stack. */
function completion(s: Stack): string {
    let out = "";
    for (let cur = s, top = true; cur !== null; cur = cur.up, top = false) {
        const {g, i} = cur.f;
        if (g.k === "seq") { out += g.items.slice(i).map(x => minText(x)).join(""); continue; }
        if (!top) continue; // only seq frames sit below the top
        if (g.k === "lit") out += g.s.slice(i);
        else if (g.k === "str") {
            const pad = (n: number) => "_".repeat(Math.max(0, g.minLen - n));
            const n = cur.f.n;
            out += i === 0 ? `"${pad(0)}"` : i === 1 ? `${pad(n)}"` : i === 2 ? `n${pad(n + 1)}"` : `${"0".repeat(7 - i)}${pad(n + 1)}"`;
        } else if (g.k === "uint") out += uintCompletion(cur.f.n, i, g.min, g.max);
        else if (g.k === "num") out += NUM_CAN_END.has(i) ? "" : "0";
    }
    return out;
}

/**
 * The set of ways a prefix can continue (one stack per live parse). Immutable: `feed` returns a new state.
 */
export class MatchState {
    private constructor(private readonly stacks: readonly Stack[]) {}

    static start(g: G): MatchState {
        const out: Stack[] = [];
        normalize({f: {g, i: 0, n: 0}, up: null}, out);
        return new MatchState(dedupe(out));
    }

    /** The state after `text`, or undefined if no parse survives it. */
    feed(text: string): MatchState | undefined {
        let cur: readonly Stack[] = this.stacks;
        for (let k = 0; k < text.length; k++) {
            const c = text[k]!; // UTF-16 code units, as literals are indexed
            const next: Stack[] = [];
            for (const s of cur) {
                if (s === null) continue;
                const a = advance(s, c);
                if (a !== undefined) normalize(a, next);
            }
            if (next.length === 0) return undefined;
            cur = dedupe(next);
        }
        return new MatchState(cur);
    }

    /** Whether the text so far is a complete document. */
    get accepting(): boolean { return this.stacks.includes(null); }

    /** Whether any character can follow (false once complete with no possible continuation). */
    get canContinue(): boolean { return this.stacks.some(s => s !== null); }

    /**
     * Characters that may come next when they form a small set, or "many" (inside a string body, where nearly
     * everything is allowed). Used to pre-select candidate tokens.
     */
    nextChars(): Set<string> | "many" {
        const out = new Set<string>();
        for (const s of this.stacks) {
            if (s === null) continue;
            const {g, i} = s.f;
            if (g.k === "lit") out.add(g.s[i]!);
            else if (g.k === "str") { if (i === 0) out.add("\""); else return "many"; }
            else if (g.k === "num" || g.k === "uint") for (const c of "0123456789-.eE+") if (advance(s, c) !== undefined) out.add(c);
        }
        return out;
    }

    /** Shortest text that completes the document ("" when already complete). */
    completion(): string {
        if (this.accepting) return "";
        let best: string | undefined;
        for (const s of this.stacks) {
            const c = completion(s);
            if (best === undefined || c.length < best.length) best = c;
        }
        return best ?? "";
    }
}

function dedupe(stacks: Stack[]): Stack[] {
    if (stacks.length <= 1) return stacks;
    const seen = new Set<string>();
    const out: Stack[] = [];
    for (const s of stacks) {
        const key = stackKey(s);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(s);
        if (out.length >= MAX_THREADS) break;
    }
    return out;
}

const ids = new WeakMap<G, number>();
let nextId = 0;
function stackKey(s: Stack): string {
    let k = "";
    for (let cur = s; cur !== null; cur = cur.up) {
        let id = ids.get(cur.f.g);
        if (id === undefined) { id = nextId++; ids.set(cur.f.g, id); }
        k += `${id}:${cur.f.i}:${cur.f.n}|`;
    }
    return k;
}
