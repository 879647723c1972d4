// Owns the byte-level BPE vocabulary of factory models: GPT-2's byte↔unicode symbol map and a small
// deterministic merge trainer (minbpe-style). Knows nothing of GGUF; tokenizer.ts turns this into metadata.

/** GPT-2 bytes_to_unicode: printable bytes map to themselves, the rest to U+0100 upward. [256] */
export function byteSymbols(): string[] {
    const keep: number[] = [];
    for (let c = 33; c <= 126; c++) keep.push(c);
    for (let c = 161; c <= 172; c++) keep.push(c);
    for (let c = 174; c <= 255; c++) keep.push(c);
    const set = new Set(keep);
    const out: string[] = new Array(256);
    let extra = 0;
    for (let b = 0; b < 256; b++) out[b] = String.fromCodePoint(set.has(b) ? b : 256 + extra++);
    return out;
}

// A close cousin of the Qwen2 pre-tokenizer (contractions, letters, single digits, punctuation runs, spaces);
// llama.cpp applies its own at run time, this only decides which merges are learned.
const PRE = /'s|'t|'re|'ve|'m|'ll|'d|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;

export interface BpeVocab {
    /** Merged tokens in merge order (after the 256 byte symbols). */
    merged: string[];
    /** "left right" pairs in rank order, as tokenizer.ggml.merges stores them. */
    merges: string[];
}

/** Learns `nMerges` merges from `corpus`, deterministically (ties broken by the pair's text). */
export function trainBpe(corpus: string, nMerges: number): BpeVocab {
    const sym = byteSymbols();
    const enc = new TextEncoder();
    const counts = new Map<string, number>();
    for (const m of corpus.matchAll(PRE)) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
    const words = [...counts.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))
        .map(([w, n]) => ({parts: [...enc.encode(w)].map(b => sym[b]!), n}));
    const merged: string[] = [], merges: string[] = [];
    for (let k = 0; k < nMerges; k++) {
        const pairs = new Map<string, number>();
        for (const w of words)
            for (let i = 0; i + 1 < w.parts.length; i++) {
                const key = w.parts[i] + " " + w.parts[i + 1];
                pairs.set(key, (pairs.get(key) ?? 0) + w.n);
            }
        let best: string | undefined, bestN = 1;
        for (const [p, n] of pairs) if (n > bestN || (n === bestN && best !== undefined && p < best)) { best = p; bestN = n; }
        if (best === undefined) break; // nothing repeats any more
        const [a, b] = best.split(" ") as [string, string];
        const ab = a + b;
        merges.push(best);
        merged.push(ab);
        for (const w of words) {
            const out: string[] = [];
            for (let i = 0; i < w.parts.length; i++) {
                if (i + 1 < w.parts.length && w.parts[i] === a && w.parts[i + 1] === b) { out.push(ab); i++; }
                else out.push(w.parts[i]!);
            }
            w.parts = out;
        }
    }
    return {merged, merges};
}
