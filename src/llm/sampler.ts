// Owns token sampling in JS: a seeded RNG and the choice of one token from raw-logit candidates under
// temperature / top-k / top-p / min-p (applied in that order, after any grammar mask). Knows nothing of models.

import type {SamplingSettings} from "../traces/schema";

/** Qwen2.5-style defaults. `seed` 0 means "pick one at random" (the chosen seed is recorded in the trace). */
export const DEFAULT_SAMPLING: SamplingSettings = {temperature: 0.7, topK: 20, topP: 0.8, minP: 0, seed: 0};

export const GREEDY: SamplingSettings = {temperature: 0, topK: 0, topP: 1, minP: 0, seed: 1};

export function resolveSampling(s: Partial<SamplingSettings> = {}): SamplingSettings {
    const out = {...DEFAULT_SAMPLING, ...s};
    if (!out.seed) out.seed = 1 + Math.floor(Math.random() * 0x7ffffffe);
    if (out.temperature < 0 || out.topK < 0 || out.topP <= 0 || out.topP > 1 || out.minP < 0 || out.minP > 1)
        throw new RangeError(`bad sampling settings ${JSON.stringify(out)}`);
    return out;
}

/** Small, fast, seedable PRNG (mulberry32). */
export class Rng {
    private s: number;
    constructor(seed: number) { this.s = seed >>> 0; }
    next(): number {
        let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    }
}

export interface Candidate {
    token: number;
    /** Raw logit (temperature 1). */
    logit: number;
}

/**
 * How many top candidates the sampler needs to see to sample exactly: all of them for untruncated temperature
 * sampling (returns Infinity), otherwise top-k (or a few for greedy, so masked-out tokens still leave a choice).
 */
export function candidatesNeeded(s: SamplingSettings): number {
    if (s.temperature <= 0) return 4;
    return s.topK > 0 ? Math.max(s.topK, 8) : Infinity;
}

/** Chooses a token from `cands` (any order). Greedy ties go to the first candidate listed. */
export function sample(cands: readonly Candidate[], s: SamplingSettings, rng: Rng): number {
    if (cands.length === 0) throw new Error("no candidate tokens to sample from");
    if (s.temperature <= 0) {
        let best = cands[0]!;
        for (const c of cands) if (c.logit > best.logit) best = c;
        return best.token;
    }
    // Same order as node-llama-cpp's sampler chain: top-k, top-p and min-p on the raw distribution, then temperature.
    let pool = [...cands].sort((a, b) => b.logit - a.logit);
    if (s.topK > 0) pool = pool.slice(0, s.topK);
    const max = pool[0]!.logit;
    const raw = pool.map(c => Math.exp(c.logit - max)); // sorted descending, raw[0] = 1
    const rawSum = raw.reduce((a, b) => a + b, 0);
    let n = pool.length;
    if (s.topP < 1) {
        let cum = 0;
        for (let i = 0; i < pool.length; i++) { cum += raw[i]! / rawSum; if (cum >= s.topP) { n = i + 1; break; } }
    }
    if (s.minP > 0) n = Math.max(1, Math.min(n, raw.filter(x => x >= s.minP).length));
    pool = pool.slice(0, n);
    const w = pool.map(c => Math.exp((c.logit - max) / s.temperature));
    const sum = w.reduce((a, b) => a + b, 0);
    let r = rng.next() * sum;
    for (let i = 0; i < pool.length; i++) {
        r -= w[i]!;
        if (r < 0) return pool[i]!.token;
    }
    return pool[pool.length - 1]!.token;
}
