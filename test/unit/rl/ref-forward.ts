// Test helper: an independent plain-JS float64 forward pass of llama/qwen2 as llama.cpp defines it (RMSNorm, RoPE
// NORM/NEOX, GQA causal attention, q/k/v biases, SwiGLU, tied or untied output), with LoRA merged into the weights.
// Ported from /work/shared/recipes/gguf/ref-forward.mjs; shares no code with src/rl/ on purpose.
import type {ModelConfig} from "../../../src/gguf/arch";

/** ggml name → row-major data as in GGUF (2-D weights [n_out][n_in]). */
export type RefWeights = Map<string, Float32Array>;

/** base name → A [r][n_in], B [n_out][r] (llama.cpp / PEFT layout), y += scale·B·A·x */
export interface RefLora {
    scale: number;
    rank: number;
    pairs: Map<string, {a: Float32Array; b: Float32Array; nIn: number; nOut: number}>;
}

function matvec(W: ArrayLike<number>, x: ArrayLike<number>, nIn: number, nOut: number): Float64Array {
    const y = new Float64Array(nOut);
    for (let o = 0; o < nOut; o++) { let s = 0; const off = o * nIn; for (let i = 0; i < nIn; i++) s += W[off + i]! * x[i]!; y[o] = s; }
    return y;
}

function rmsnorm(x: Float64Array, w: Float32Array, eps: number): Float64Array {
    let s = 0;
    for (const v of x) s += v * v;
    const k = 1 / Math.sqrt(s / x.length + eps);
    return x.map((v, i) => v * k * w[i]!);
}

export function mergeLora(weights: RefWeights, lora: RefLora): RefWeights {
    const out = new Map(weights);
    for (const [name, {a, b, nIn, nOut}] of lora.pairs) {
        const W = Float32Array.from(weights.get(name)!);
        for (let o = 0; o < nOut; o++) for (let k = 0; k < lora.rank; k++) {
            const bk = b[o * lora.rank + k]! * lora.scale;
            for (let i = 0; i < nIn; i++) W[o * nIn + i] += bk * a[k * nIn + i]!;
        }
        out.set(name, W);
    }
    return out;
}

export interface RefOptions {
    /**
     * Transforms the input of each weight matmul (by ggml weight name) before it is used — e.g. to emulate the
     * activation quantization llama.cpp's CPU matmul applies for quantized weights. Default: identity.
     */
    matIn?: (weight: string, x: Float64Array) => Float64Array;
}

/** Logits [T][V] (float64) after each token. */
export function refForward(c: ModelConfig, weights: RefWeights, tokens: readonly number[], opts: RefOptions = {}): Float64Array[] {
    const g = (n: string) => { const w = weights.get(n); if (!w) throw new Error(`ref: missing ${n}`); return w; };
    const mv = (name: string, x: Float64Array, nIn: number, nOut: number) => matvec(g(name), opts.matIn ? opts.matIn(name, x) : x, nIn, nOut);
    const d = c.headDim, nQ = c.nHead * d, nKv = c.nHeadKv * d, grp = c.nHead / c.nHeadKv;
    const Ks: Float64Array[][] = [...Array(c.nLayer)].map(() => []), Vs: Float64Array[][] = [...Array(c.nLayer)].map(() => []);
    const rope = (v: Float64Array, pos: number, nh: number) => {
        // θ_i as ggml's CPU kernel computes it: a float32 recurrence θ_{i+1} = θ_i · base^(−2/d), θ_0 = pos.
        const fr = Math.fround, scale = fr(Math.pow(fr(c.ropeBase), fr(-2 / d))), th: number[] = [];
        for (let i = 0, t = fr(pos); i < d / 2; i++, t = fr(t * scale)) th.push(t);
        for (let h = 0; h < nh; h++) for (let i = 0; i < d / 2; i++) {
            const cs = fr(Math.cos(th[i]!)), sn = fr(Math.sin(th[i]!));
            const [ia, ib] = c.ropeType === "norm" ? [h * d + 2 * i, h * d + 2 * i + 1] : [h * d + i, h * d + i + d / 2];
            const a = v[ia]!, b = v[ib]!;
            v[ia] = a * cs - b * sn; v[ib] = a * sn + b * cs;
        }
    };
    const addBias = (y: Float64Array, name: string) => { const b = weights.get(name); if (b) for (let i = 0; i < y.length; i++) y[i] += b[i]!; return y; };
    const out: Float64Array[] = [];
    tokens.forEach((tok, pos) => {
        let x = Float64Array.from(g("token_embd.weight").subarray(tok * c.nEmbd, (tok + 1) * c.nEmbd));
        for (let l = 0; l < c.nLayer; l++) {
            const p = `blk.${l}.`;
            const hN = rmsnorm(x, g(p + "attn_norm.weight"), c.rmsEps);
            const q = addBias(mv(p + "attn_q.weight", hN, c.nEmbd, nQ), p + "attn_q.bias");
            const k = addBias(mv(p + "attn_k.weight", hN, c.nEmbd, nKv), p + "attn_k.bias");
            const v = addBias(mv(p + "attn_v.weight", hN, c.nEmbd, nKv), p + "attn_v.bias");
            rope(q, pos, c.nHead); rope(k, pos, c.nHeadKv);
            Ks[l]!.push(k); Vs[l]!.push(v);
            const att = new Float64Array(nQ);
            for (let h = 0; h < c.nHead; h++) {
                const kh = Math.floor(h / grp);
                const sc = Ks[l]!.map(kk => { let s = 0; for (let j = 0; j < d; j++) s += q[h * d + j]! * kk[kh * d + j]!; return s / Math.sqrt(d); });
                const m = Math.max(...sc), e = sc.map(s => Math.exp(s - m)), z = e.reduce((a, b) => a + b, 0);
                for (let j = 0; j < e.length; j++) for (let i = 0; i < d; i++) att[h * d + i] += e[j]! / z * Vs[l]![j]![kh * d + i]!;
            }
            const o = mv(p + "attn_output.weight", att, nQ, c.nEmbd);
            x = x.map((v0, i) => v0 + o[i]!);
            const hF = rmsnorm(x, g(p + "ffn_norm.weight"), c.rmsEps);
            const gate = mv(p + "ffn_gate.weight", hF, c.nEmbd, c.nFf), up = mv(p + "ffn_up.weight", hF, c.nEmbd, c.nFf);
            const act = gate.map((v0, i) => v0 / (1 + Math.exp(-v0)) * up[i]!);
            const dn = mv(p + "ffn_down.weight", act, c.nFf, c.nEmbd);
            x = x.map((v0, i) => v0 + dn[i]!);
        }
        out.push(mv(c.tiedOutput ? "token_embd.weight" : "output.weight", rmsnorm(x, g("output_norm.weight"), c.rmsEps), c.nEmbd, c.nVocab));
    });
    return out;
}

export function logSoftmax(l: Float64Array): Float64Array {
    let m = -Infinity;
    for (const v of l) m = Math.max(m, v);
    let z = 0;
    for (const v of l) z += Math.exp(v - m);
    const lz = Math.log(z) + m;
    return l.map(v => v - lz);
}
