// Owns the K-quant block layouts (Q2_K, Q3_K, Q4_K, Q5_K, Q6_K; QK_K = 256): decoding exactly as ggml's
// dequantize_row_* (same float32 steps) and packing a fitted super-block (kfit.ts) into ggml's bytes.
// Within each 128-value half of a super-block, 2-bit fields are spread as: byte l of a 32-byte group holds
// values l, l+32, l+64, l+96 in bits 0-1, 2-3, 4-5, 6-7.

import {f32FromBits, halfBitsTable, readHalf, writeHalf} from "./half";
import {SuperBlock} from "./kfit";

const fr = Math.fround;

function checkScale(bits: number, type: string): void {
    if ((bits & 0x7c00) === 0x7c00) throw new Error(`${type}: block scale does not fit in fp16 (values too large for ${type})`);
}

// ---- Q2_K: scales[16] (low nibble scale, high nibble min), qs[64], d f16, dmin f16 = 84 bytes ----
// 16 sub-blocks of 16: x = d·sc·q − dmin·m, q in 0..3.

export function dequantizeQ2_K(src: Uint8Array, nb: number, out: Float32Array): void {
    const h = halfBitsTable();
    for (let b = 0, o = 0, y = 0; b < nb; b++, o += 84, y += 256) {
        const d = f32FromBits(h[readHalf(src, o + 80)]);
        const min = f32FromBits(h[readHalf(src, o + 82)]);
        for (let half = 0; half < 2; half++) {
            const q = o + 16 + 32 * half;
            for (let j = 0; j < 4; j++) {
                const shift = 2 * j;
                for (let part = 0; part < 2; part++) { // values 0-15 and 16-31 of this 32-group have own scales
                    const sc = src[o + 8 * half + 2 * j + part];
                    const dl = fr(d * (sc & 15)), ml = fr(min * (sc >> 4));
                    const yo = y + 128 * half + 32 * j + 16 * part, qo = q + 16 * part;
                    for (let l = 0; l < 16; l++) out[yo + l] = fr(fr(dl * ((src[qo + l] >> shift) & 3)) - ml);
                }
            }
        }
    }
}

const Q2K = {sub: 16, nsub: 16, nmax: 3, smax: 15};

export function quantizeQ2_K(x: Float32Array, nb: number, dst: Uint8Array): void {
    const sb = new SuperBlock();
    for (let b = 0, o = 0; b < nb; b++, o += 84) {
        sb.fitAffine(x, 256 * b, Q2K);
        checkScale(sb.dBits, "Q2_K");
        checkScale(sb.dminBits, "Q2_K");
        for (let j = 0; j < 16; j++) dst[o + j] = sb.sc[j] | (sb.mn[j] << 4);
        pack2bit(sb.Lu, dst, o + 16, 0);
        writeHalf(dst, o + 80, sb.dBits);
        writeHalf(dst, o + 82, sb.dminBits);
    }
}

/** Low 2 bits of 256 quants (plus `bias`) into 64 bytes at dst[o], in the interleaving described on top. */
function pack2bit(L: Uint8Array | Int8Array, dst: Uint8Array, o: number, bias: number): void {
    for (let half = 0; half < 2; half++) {
        for (let l = 0; l < 32; l++) {
            const i = 128 * half + l;
            dst[o + 32 * half + l] = ((L[i] + bias) & 3) | (((L[i + 32] + bias) & 3) << 2)
                | (((L[i + 64] + bias) & 3) << 4) | (((L[i + 96] + bias) & 3) << 6);
        }
    }
}

// ---- Q3_K: hmask[32], qs[64], scales[12], d f16 = 110 bytes ----
// 16 sub-blocks of 16: x = d·(s−32)·(q−4), q in 0..7: low 2 bits in qs, bit 2 in hmask (bit k of hmask[l] is
// value 32k + l). Scale j (6 bits): low 4 bits in the low (j < 8) or high (j ≥ 8) nibble of scales[j % 8],
// high 2 bits in bits 2(j/4)..2(j/4)+1 of scales[8 + j % 4].

export function dequantizeQ3_K(src: Uint8Array, nb: number, out: Float32Array): void {
    const h = halfBitsTable();
    for (let b = 0, o = 0, y = 0; b < nb; b++, o += 110, y += 256) {
        const dAll = f32FromBits(h[readHalf(src, o + 108)]);
        const s = o + 96;
        for (let half = 0; half < 2; half++) {
            const q = o + 32 + 32 * half;
            for (let j = 0; j < 4; j++) {
                const shift = 2 * j, hbit = 4 * half + j;
                for (let part = 0; part < 2; part++) {
                    const is = 8 * half + 2 * j + part;
                    const low = is < 8 ? src[s + is] & 15 : src[s + is - 8] >> 4;
                    const sc = (low | (((src[s + 8 + (is & 3)] >> (2 * (is >> 2))) & 3) << 4)) - 32;
                    const dl = fr(dAll * sc);
                    const yo = y + 128 * half + 32 * j + 16 * part, l0 = 16 * part;
                    for (let l = l0; l < l0 + 16; l++) {
                        const v = ((src[q + l] >> shift) & 3) - ((src[o + l] >> hbit) & 1 ? 0 : 4);
                        out[yo + l - l0] = fr(dl * v);
                    }
                }
            }
        }
    }
}

const Q3K = {sub: 16, nsub: 16, nmax: 4, smin: -32, smax: 31};

export function quantizeQ3_K(x: Float32Array, nb: number, dst: Uint8Array): void {
    const sb = new SuperBlock();
    for (let b = 0, o = 0; b < nb; b++, o += 110) {
        sb.fitScaled(x, 256 * b, Q3K);
        checkScale(sb.dBits, "Q3_K");
        const L = sb.Ls;
        dst.fill(0, o, o + 108);
        for (let i = 0; i < 256; i++) if (L[i] + 4 > 3) dst[o + (i & 31)] |= 1 << (i >> 5);
        pack2bit(L, dst, o + 32, 4);
        for (let j = 0; j < 16; j++) {
            const s = sb.sc[j] + 32;
            dst[o + 96 + (j & 7)] |= (s & 15) << (j < 8 ? 0 : 4);
            dst[o + 104 + (j & 3)] |= (s >> 4) << (2 * (j >> 2));
        }
        writeHalf(dst, o + 108, sb.dBits);
    }
}

// ---- Q4_K / Q5_K scales[12]: 8 pairs (scale, min) of 6 bits ----
// j < 4: scale = scales[j] & 63, min = scales[j+4] & 63. j ≥ 4: low 4 bits in the nibbles of scales[j+4]
// (scale low, min high), high 2 bits in the top 2 bits of scales[j-4] (scale) and scales[j] (min).

function scaleMinK4(src: Uint8Array, s: number, j: number, sm: Int32Array): void {
    if (j < 4) {
        sm[0] = src[s + j] & 63;
        sm[1] = src[s + j + 4] & 63;
    } else {
        sm[0] = (src[s + j + 4] & 15) | ((src[s + j - 4] >> 6) << 4);
        sm[1] = (src[s + j + 4] >> 4) | ((src[s + j] >> 6) << 4);
    }
}

function packScaleMinK4(sc: Int32Array, mn: Int32Array, dst: Uint8Array, s: number): void {
    for (let j = 0; j < 4; j++) {
        dst[s + j] = sc[j] | ((sc[j + 4] >> 4) << 6);
        dst[s + j + 4] = mn[j] | ((mn[j + 4] >> 4) << 6);
        dst[s + j + 8] = (sc[j + 4] & 15) | ((mn[j + 4] & 15) << 4);
    }
}

const sm = new Int32Array(2);

// ---- Q4_K: d f16, dmin f16, scales[12], qs[128] = 144 bytes ----
// 8 sub-blocks of 32: x = d·sc·q − dmin·m, q in 0..15. qs byte l of 32-byte group g: value 64g + l in the low
// nibble, value 64g + 32 + l in the high nibble.

export function dequantizeQ4_K(src: Uint8Array, nb: number, out: Float32Array): void {
    const h = halfBitsTable();
    for (let b = 0, o = 0, y = 0; b < nb; b++, o += 144, y += 256) {
        const d = f32FromBits(h[readHalf(src, o)]);
        const min = f32FromBits(h[readHalf(src, o + 2)]);
        for (let g = 0; g < 4; g++) {
            scaleMinK4(src, o + 4, 2 * g, sm);
            const d1 = fr(d * sm[0]), m1 = fr(min * sm[1]);
            scaleMinK4(src, o + 4, 2 * g + 1, sm);
            const d2 = fr(d * sm[0]), m2 = fr(min * sm[1]);
            const q = o + 16 + 32 * g, yo = y + 64 * g;
            for (let l = 0; l < 32; l++) {
                out[yo + l] = fr(fr(d1 * (src[q + l] & 15)) - m1);
                out[yo + 32 + l] = fr(fr(d2 * (src[q + l] >> 4)) - m2);
            }
        }
    }
}

const Q4K = {sub: 32, nsub: 8, nmax: 15, smax: 63};

export function quantizeQ4_K(x: Float32Array, nb: number, dst: Uint8Array): void {
    const sb = new SuperBlock();
    for (let b = 0, o = 0; b < nb; b++, o += 144) {
        sb.fitAffine(x, 256 * b, Q4K);
        checkScale(sb.dBits, "Q4_K");
        checkScale(sb.dminBits, "Q4_K");
        writeHalf(dst, o, sb.dBits);
        writeHalf(dst, o + 2, sb.dminBits);
        packScaleMinK4(sb.sc, sb.mn, dst, o + 4);
        const L = sb.Lu;
        for (let g = 0; g < 4; g++) {
            for (let l = 0; l < 32; l++) dst[o + 16 + 32 * g + l] = L[64 * g + l] | (L[64 * g + 32 + l] << 4);
        }
    }
}

// ---- Q5_K: d f16, dmin f16, scales[12], qh[32], qs[128] = 176 bytes ----
// As Q4_K with q in 0..31: the 5th bit of value 64g + l is bit 2g of qh[l], of value 64g + 32 + l bit 2g+1.

export function dequantizeQ5_K(src: Uint8Array, nb: number, out: Float32Array): void {
    const h = halfBitsTable();
    for (let b = 0, o = 0, y = 0; b < nb; b++, o += 176, y += 256) {
        const d = f32FromBits(h[readHalf(src, o)]);
        const min = f32FromBits(h[readHalf(src, o + 2)]);
        for (let g = 0; g < 4; g++) {
            scaleMinK4(src, o + 4, 2 * g, sm);
            const d1 = fr(d * sm[0]), m1 = fr(min * sm[1]);
            scaleMinK4(src, o + 4, 2 * g + 1, sm);
            const d2 = fr(d * sm[0]), m2 = fr(min * sm[1]);
            const q = o + 48 + 32 * g, qh = o + 16, yo = y + 64 * g;
            for (let l = 0; l < 32; l++) {
                const hb = src[qh + l] >> (2 * g);
                out[yo + l] = fr(fr(d1 * ((src[q + l] & 15) + ((hb & 1) << 4))) - m1);
                out[yo + 32 + l] = fr(fr(d2 * ((src[q + l] >> 4) + ((hb & 2) << 3))) - m2);
            }
        }
    }
}

const Q5K = {sub: 32, nsub: 8, nmax: 31, smax: 63};

export function quantizeQ5_K(x: Float32Array, nb: number, dst: Uint8Array): void {
    const sb = new SuperBlock();
    for (let b = 0, o = 0; b < nb; b++, o += 176) {
        sb.fitAffine(x, 256 * b, Q5K);
        checkScale(sb.dBits, "Q5_K");
        checkScale(sb.dminBits, "Q5_K");
        writeHalf(dst, o, sb.dBits);
        writeHalf(dst, o + 2, sb.dminBits);
        packScaleMinK4(sb.sc, sb.mn, dst, o + 4);
        const L = sb.Lu;
        for (let l = 0; l < 32; l++) {
            let hb = 0;
            for (let g = 0; g < 4; g++) {
                const a = L[64 * g + l], c = L[64 * g + 32 + l];
                dst[o + 48 + 32 * g + l] = (a & 15) | ((c & 15) << 4);
                hb |= ((a >> 4) << (2 * g)) | ((c >> 4) << (2 * g + 1));
            }
            dst[o + 16 + l] = hb;
        }
    }
}

// ---- Q6_K: ql[128], qh[64], scales[16] int8, d f16 = 210 bytes ----
// 16 sub-blocks of 16: x = d·sc·(q−32), q in 0..63. Per 128-value half h: ql byte k (of 64) holds the low
// 4 bits of values 128h + k (low nibble) and 128h + 64 + k (high nibble); qh byte l (of 32) holds the top
// 2 bits of values 128h + l + {0, 32, 64, 96} at bits 0, 2, 4, 6.

export function dequantizeQ6_K(src: Uint8Array, nb: number, out: Float32Array): void {
    const h = halfBitsTable();
    for (let b = 0, o = 0, y = 0; b < nb; b++, o += 210, y += 256) {
        const d = f32FromBits(h[readHalf(src, o + 208)]);
        for (let half = 0; half < 2; half++) {
            const ql = o + 64 * half, qh = o + 128 + 32 * half, sc = o + 192 + 8 * half, yo = y + 128 * half;
            for (let l = 0; l < 32; l++) {
                const is = l >> 4, hb = src[qh + l];
                const q1 = ((src[ql + l] & 15) | ((hb & 3) << 4)) - 32;
                const q2 = ((src[ql + l + 32] & 15) | (((hb >> 2) & 3) << 4)) - 32;
                const q3 = ((src[ql + l] >> 4) | (((hb >> 4) & 3) << 4)) - 32;
                const q4 = ((src[ql + l + 32] >> 4) | (((hb >> 6) & 3) << 4)) - 32;
                // C: (d * sc) * q in float. d·sc is exact (11 × 8 significant bits), so one rounding either way
                out[yo + l] = fr(fr(d * ((src[sc + is] << 24) >> 24)) * q1);
                out[yo + l + 32] = fr(fr(d * ((src[sc + is + 2] << 24) >> 24)) * q2);
                out[yo + l + 64] = fr(fr(d * ((src[sc + is + 4] << 24) >> 24)) * q3);
                out[yo + l + 96] = fr(fr(d * ((src[sc + is + 6] << 24) >> 24)) * q4);
            }
        }
    }
}

const Q6K = {sub: 16, nsub: 16, nmax: 32, smin: -128, smax: 127};

export function quantizeQ6_K(x: Float32Array, nb: number, dst: Uint8Array): void {
    const sb = new SuperBlock();
    for (let b = 0, o = 0; b < nb; b++, o += 210) {
        sb.fitScaled(x, 256 * b, Q6K);
        checkScale(sb.dBits, "Q6_K");
        const L = sb.Ls;
        for (let half = 0; half < 2; half++) {
            const ql = o + 64 * half, qh = o + 128 + 32 * half, i0 = 128 * half;
            for (let l = 0; l < 32; l++) {
                const q1 = L[i0 + l] + 32, q2 = L[i0 + l + 32] + 32, q3 = L[i0 + l + 64] + 32, q4 = L[i0 + l + 96] + 32;
                dst[ql + l] = (q1 & 15) | ((q3 & 15) << 4);
                dst[ql + l + 32] = (q2 & 15) | ((q4 & 15) << 4);
                dst[qh + l] = (q1 >> 4) | ((q2 >> 4) << 2) | ((q3 >> 4) << 4) | ((q4 >> 4) << 6);
            }
        }
        for (let j = 0; j < 16; j++) dst[o + 192 + j] = sb.sc[j] & 0xff;
        writeHalf(dst, o + 208, sb.dBits);
    }
}
