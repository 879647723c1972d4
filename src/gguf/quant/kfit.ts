// Owns the K-quant search: picking per-sub-block scales (and mins), the super-block fp16 scale(s) and the
// integer quants for one 256-value super-block. Pure numerics: the bit packing lives in kquants.ts.
// Our own least-squares search (not ggml's make_q*_quants): it minimises the plain squared error of what the
// block will decode to, with the scales quantized exactly as they will be stored.
//
// Two shapes of super-block:
//   affine  (Q2_K, Q4_K, Q5_K): x ≈ (d·sc_j)·q − (dmin·m_j), q in [0, nmax], sc_j and m_j in [0, smax]
//   scaled  (Q3_K, Q6_K):       x ≈ (d·sc_j)·q,              q in [−nmax, nmax−1], sc_j in [smin, smax]

import {floatToHalf, halfToFloat} from "./half";

const fr = Math.fround;

// Candidate inverse scales around the one that maps the range onto the quant range: (nmax + delta) / range.
// A small grid plus one Lloyd step (relabel with the fitted scale, refit) is most of the quality; a 6-point grid
// and 2 steps gained < 0.5% RMSE on gaussian data at twice the time.
const DELTAS = [-0.5, 0, 0.5, 1];
const LLOYD_STEPS = 1;

// Rounding is Math.floor(v + 0.5) throughout: V8 runs it several times faster than Math.round, and which way
// exact halves go does not matter to a quantizer.
function clamp(v: number, lo: number, hi: number): number {
    return v < lo ? lo : v > hi ? hi : v;
}

// ---- one sub-block ----

/** Least-squares x ≈ a·l + b (b ≤ 0) for labels l = clamp(round((x − base)·is), 0, nmax); res = [a, b, err]. */
function affineLS(x: Float32Array, off: number, n: number, nmax: number, base: number, is: number,
                  sx: number, sxx: number, res: Float64Array): void {
    let sl = 0, sll = 0, sxl = 0;
    for (let i = off; i < off + n; i++) {
        const l = clamp(Math.floor((x[i] - base) * is + 0.5), 0, nmax);
        sl += l; sll += l * l; sxl += l * x[i];
    }
    if (!(sll > 0)) { res[2] = Infinity; return; }  // every label 0: says nothing about the scale
    const D = n * sll - sl * sl;
    let a = D > 0 ? (n * sxl - sx * sl) / D : 0, b = D > 0 ? (sll * sx - sl * sxl) / D : 1;
    // The offset can only pull values down (stored as dmin·m ≥ 0); with all labels equal (a constant block)
    // there is no slope to fit either: then too the line goes through 0.
    if (b > 0) { b = 0; a = sxl / sll; }
    res[0] = a; res[1] = b;
    res[2] = sxx - 2 * a * sxl - 2 * b * sx + a * a * sll + 2 * a * b * sl + n * b * b;
}

/** Best x ≈ a·l − m with l in [0, nmax], m ≥ 0, over x[off .. off+n). res = [a, m]. */
function fitAffine(x: Float32Array, off: number, n: number, nmax: number, res: Float64Array): void {
    let lo = x[off], hi = lo, sx = 0, sxx = 0;
    for (let i = off; i < off + n; i++) {
        const v = x[i];
        if (v < lo) lo = v;
        if (v > hi) hi = v;
        sx += v;
        sxx += v * v;
    }
    if (lo > 0) lo = 0;
    if (hi === lo) { res[0] = 0; res[1] = -lo; return; }
    let bestErr = Infinity, a = 0, b = lo;
    for (const delta of DELTAS) {
        affineLS(x, off, n, nmax, lo, (nmax + delta) / (hi - lo), sx, sxx, res);
        if (res[2] < bestErr) { bestErr = res[2]; a = res[0]; b = res[1]; }
    }
    // Lloyd steps: relabel against the fitted line, refit; each step can only lower the error.
    for (let it = 0; it < LLOYD_STEPS && a > 0; it++) {
        affineLS(x, off, n, nmax, b, 1 / a, sx, sxx, res);
        if (!(res[2] < bestErr)) break;
        bestErr = res[2]; a = res[0]; b = res[1];
    }
    res[0] = a > 0 ? a : 0;
    res[1] = -b;
}

/** (Σxl)²/Σl² for labels l = clamp(round(x·is), −nmax, nmax−1): the error Σx² − that is what s = Σxl/Σl² leaves. */
function scaledLS(x: Float32Array, off: number, n: number, nmax: number, is: number, res: Float64Array): void {
    let sll = 0, sxl = 0;
    for (let i = off; i < off + n; i++) {
        const l = clamp(Math.floor(x[i] * is + 0.5), -nmax, nmax - 1);
        sll += l * l; sxl += l * x[i];
    }
    res[0] = sll > 0 ? sxl / sll : 0;
    res[1] = sll > 0 ? sxl * sxl / sll : -1;
}

/** Best x ≈ s·l with l in [−nmax, nmax−1] over x[off .. off+n); s may be negative. */
function fitScaled(x: Float32Array, off: number, n: number, nmax: number, res: Float64Array): number {
    let amax = 0, vmax = 0;
    for (let i = off; i < off + n; i++) {
        const a = Math.abs(x[i]);
        if (a > amax) { amax = a; vmax = x[i]; }
    }
    if (amax < 1e-30) return 0;
    // The grid puts the extreme value on the wide side (−nmax) and on the narrow side (nmax − 1).
    let best = -1, s = 0;
    for (let side = 0; side < 2; side++) {
        for (const delta of DELTAS) {
            scaledLS(x, off, n, nmax, side === 0 ? -(nmax + delta) / vmax : (nmax - 1 + delta) / vmax, res);
            if (res[1] > best) { best = res[1]; s = res[0]; }
        }
    }
    for (let it = 0; it < LLOYD_STEPS && s !== 0; it++) {
        scaledLS(x, off, n, nmax, 1 / s, res);
        if (!(res[1] > best)) break;
        best = res[1]; s = res[0];
    }
    return s;
}

// ---- labels and errors for given (stored) scales; x, L indices are both block-local here ----

/** Labels for one affine sub-block given its decoded scale s and offset m (value = s·q − m); returns Σ err². */
function labelAffine(x: Float32Array, off: number, n: number, nmax: number, s: number, m: number, L: Uint8Array): number {
    let err = 0;
    if (s === 0) {
        L.fill(0, off, off + n);
        for (let i = off; i < off + n; i++) err += (x[i] + m) * (x[i] + m);
        return err;
    }
    const is = 1 / s;
    for (let i = off; i < off + n; i++) {
        const l = clamp(Math.floor((x[i] + m) * is + 0.5), 0, nmax);
        L[i] = l;
        const e = fr(fr(s * l) - m) - x[i];
        err += e * e;
    }
    return err;
}

/** Labels for one scaled sub-block given its decoded scale s (value = s·q); returns Σ err². */
function labelScaled(x: Float32Array, off: number, n: number, nmax: number, s: number, L: Int8Array): number {
    let err = 0;
    if (s === 0) {
        L.fill(0, off, off + n);
        for (let i = off; i < off + n; i++) err += x[i] * x[i];
        return err;
    }
    const is = 1 / s;
    for (let i = off; i < off + n; i++) {
        const l = clamp(Math.floor(x[i] * is + 0.5), -nmax, nmax - 1);
        L[i] = l;
        const e = fr(s * l) - x[i];
        err += e * e;
    }
    return err;
}

// ---- one super-block ----

/** fp16 bits of the half nearest v, moved one step away from zero if that one is smaller in magnitude: the
 *  largest sub-block scale then needs no integer scale beyond the range (small d are subnormal in fp16, with
 *  few bits: rounding down there would push the top scale past its clamp). */
function halfAtLeast(v: number): number {
    if (v === 0) return 0; // +0 also for −0 (an all-zero block), as ggml writes it
    const h = floatToHalf(v);
    return Math.abs(halfToFloat(h)) < Math.abs(v) ? h + 1 : h;
}

export interface AffineShape { sub: number; nsub: number; nmax: number; smax: number }
export interface ScaledShape { sub: number; nsub: number; nmax: number; smin: number; smax: number }

/** A super-block fit's result (fp16 bits of d and dmin, integer scales/mins, quants) and its scratch, reused
 *  block after block so quantizing allocates nothing per block. */
export class SuperBlock {
    dBits = 0;
    dminBits = 0;
    readonly sc = new Int32Array(16);
    readonly mn = new Int32Array(16);
    /** affine quants, 0..nmax */
    readonly Lu = new Uint8Array(256);
    /** scaled quants, −nmax..nmax−1 */
    readonly Ls = new Int8Array(256);
    private readonly x = new Float32Array(256);
    private readonly scale = new Float64Array(16);
    private readonly min = new Float64Array(16);
    private readonly res = new Float64Array(3);
    private readonly Lu2 = new Uint8Array(256);
    private readonly Ls2 = new Int8Array(256);

    /** Affine super-block of the 256 values at src[off]: fills dBits, dminBits, sc, mn, Lu. */
    fitAffine(src: Float32Array, off: number, k: AffineShape): void {
        const {sub, nsub, nmax, smax} = k;
        const x = this.x;
        for (let i = 0; i < 256; i++) x[i] = src[off + i];
        let maxScale = 0, maxMin = 0;
        for (let j = 0; j < nsub; j++) {
            fitAffine(x, j * sub, sub, nmax, this.res);
            this.scale[j] = this.res[0];
            this.min[j] = this.res[1];
            if (this.res[0] > maxScale) maxScale = this.res[0];
            if (this.res[1] > maxMin) maxMin = this.res[1];
        }
        const dBits = halfAtLeast(maxScale / smax), dminBits = halfAtLeast(maxMin / smax);
        const d = halfToFloat(dBits), dmin = halfToFloat(dminBits);
        // Integer scale and min per sub-block: try each rounded down and up, keep the pair that decodes best.
        let total = 0;
        for (let j = 0; j < nsub; j++) {
            const o = j * sub;
            const rs = Math.floor(d > 0 ? this.scale[j] / d : 0), rm = Math.floor(dmin > 0 ? this.min[j] / dmin : 0);
            let bestErr = Infinity;
            for (let cs = rs; cs <= rs + 1; cs++) {
                for (let cm = rm; cm <= rm + 1; cm++) {
                    const s = clamp(cs, 0, smax), m = clamp(cm, 0, smax);
                    const err = labelAffine(x, o, sub, nmax, fr(d * s), fr(dmin * m), this.Lu2);
                    if (err < bestErr) {
                        bestErr = err; this.sc[j] = s; this.mn[j] = m;
                        for (let i = o; i < o + sub; i++) this.Lu[i] = this.Lu2[i];
                    }
                }
            }
            total += bestErr;
        }
        this.dBits = dBits;
        this.dminBits = dminBits;
        // Least-squares refit of (d, dmin) for these integer scales and quants: x ≈ d·(sc·q) − dmin·m.
        let suu = 0, suv = 0, svv = 0, sux = 0, svx = 0;
        for (let j = 0; j < nsub; j++) {
            const v = this.mn[j];
            for (let i = j * sub; i < (j + 1) * sub; i++) {
                const u = this.sc[j] * this.Lu[i];
                suu += u * u; suv += u * v; svv += v * v; sux += u * x[i]; svx += v * x[i];
            }
        }
        const det = suu * svv - suv * suv;
        if (!(det > 0)) return;
        const d2Bits = floatToHalf((sux * svv - suv * svx) / det), dmin2Bits = floatToHalf((suv * sux - suu * svx) / det);
        if ((d2Bits & 0x7c00) === 0x7c00 || (dmin2Bits & 0x7c00) === 0x7c00) return;
        const d2 = halfToFloat(d2Bits), dmin2 = halfToFloat(dmin2Bits);
        let total2 = 0;
        for (let j = 0; j < nsub; j++) {
            total2 += labelAffine(x, j * sub, sub, nmax, fr(d2 * this.sc[j]), fr(dmin2 * this.mn[j]), this.Lu2);
        }
        if (total2 < total) {
            this.dBits = d2Bits;
            this.dminBits = dmin2Bits;
            this.Lu.set(this.Lu2);
        }
    }

    /** Scaled super-block of the 256 values at src[off]: fills dBits, sc, Ls. */
    fitScaled(src: Float32Array, off: number, k: ScaledShape): void {
        const {sub, nsub, nmax, smin, smax} = k;
        const x = this.x;
        for (let i = 0; i < 256; i++) x[i] = src[off + i];
        let sMax = 0;
        for (let j = 0; j < nsub; j++) {
            const s = fitScaled(x, j * sub, sub, nmax, this.res);
            this.scale[j] = s;
            if (Math.abs(s) > Math.abs(sMax)) sMax = s;
        }
        // The largest scale maps onto smin (the wider, negative end of the integer range): d takes its sign flipped.
        const dBits = halfAtLeast(sMax / smin), d = halfToFloat(dBits);
        this.dBits = dBits;
        let total = 0;
        for (let j = 0; j < nsub; j++) {
            const o = j * sub;
            const r = Math.floor(d !== 0 ? this.scale[j] / d : 0);
            let bestErr = Infinity;
            for (let c = r; c <= r + 1; c++) {
                const s = clamp(c, smin, smax);
                const err = labelScaled(x, o, sub, nmax, fr(d * s), this.Ls2);
                if (err < bestErr) {
                    bestErr = err; this.sc[j] = s;
                    for (let i = o; i < o + sub; i++) this.Ls[i] = this.Ls2[i];
                }
            }
            total += bestErr;
        }
        // Least-squares refit of d for these integer scales and quants: x ≈ d·(sc·q).
        let suu = 0, sux = 0;
        for (let j = 0; j < nsub; j++) {
            for (let i = j * sub; i < (j + 1) * sub; i++) {
                const u = this.sc[j] * this.Ls[i];
                suu += u * u; sux += u * x[i];
            }
        }
        if (!(suu > 0)) return;
        const d2Bits = floatToHalf(sux / suu);
        if ((d2Bits & 0x7c00) === 0x7c00) return;
        const d2 = halfToFloat(d2Bits);
        let total2 = 0;
        for (let j = 0; j < nsub; j++) total2 += labelScaled(x, j * sub, sub, nmax, fr(d2 * this.sc[j]), this.Ls2);
        if (total2 < total) {
            this.dBits = d2Bits;
            this.Ls.set(this.Ls2);
        }
    }
}
