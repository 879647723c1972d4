// Owns deterministic random numbers for the factory: mulberry32 streams seeded per (seed, tensor name),
// so a tensor's values do not depend on which other tensors exist or in what order they are made.

export function hashString(s: string, seed = 0): number {
    let h = (0x811c9dc5 ^ seed) >>> 0; // FNV-1a
    for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
    return h;
}

export class Rng {
    private a: number;
    constructor(seed: number) { this.a = seed >>> 0; }

    /** Uniform in [0, 1). */
    next(): number {
        this.a = (this.a + 0x6d2b79f5) >>> 0;
        let t = this.a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    }

    /** Fills `out` with N(mean, std²) samples (Box–Muller, both outputs used). */
    normal(out: Float32Array, std: number, mean = 0): Float32Array {
        for (let i = 0; i < out.length; i += 2) {
            const u = this.next() || 1e-12, v = this.next();
            const r = Math.sqrt(-2 * Math.log(u)) * std;
            out[i] = mean + r * Math.cos(2 * Math.PI * v);
            if (i + 1 < out.length) out[i + 1] = mean + r * Math.sin(2 * Math.PI * v);
        }
        return out;
    }
}
