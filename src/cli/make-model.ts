// Owns `nano-coder make-model`: writes a deterministic factory GGUF (llama or qwen2) of a chosen size and type.

import {parseArgs} from "node:util";
import {isArch} from "../gguf/arch";
import {parseTypeName, typeName} from "../gguf/types";
import {makeModel} from "../factory/model";
import {UsageError, type CliCommand} from "./command";

const usage = `usage: nano-coder make-model --out FILE [--arch qwen2|llama] [--type f32|f16|bf16|q8_0|q4_0|q4_1|q5_0|q5_1|q2_k|q3_k|q4_k|q5_k|q6_k]
       [--seed N] [--embd N] [--layers N] [--heads N] [--kv-heads N] [--ff N] [--ctx N] [--merges N]
       [--pad-vocab N] [--tied | --untied]
Defaults: qwen2, f32, seed 1234, 2 layers, 4 heads / 2 kv heads, n_embd 64 (256 for K-quants), ff 2×embd,
64 BPE merges, output tied for qwen2 and untied for llama. The same options always give the same bytes.`;

export const makeModelCommand: CliCommand = {
    name: "make-model",
    summary: "write a deterministic tiny GGUF model (llama / qwen2) from the model factory",
    usage,
    async run(argv, io) {
        const {values: v} = parseArgs({args: argv, strict: true, options: {
            out: {type: "string"}, arch: {type: "string", default: "qwen2"}, type: {type: "string", default: "f32"},
            seed: {type: "string"}, embd: {type: "string"}, layers: {type: "string"}, heads: {type: "string"},
            "kv-heads": {type: "string"}, ff: {type: "string"}, ctx: {type: "string"}, merges: {type: "string"},
            "pad-vocab": {type: "string"}, tied: {type: "boolean"}, untied: {type: "boolean"},
        }});
        if (!v.out) throw new UsageError("--out is required");
        if (!isArch(v.arch)) throw new UsageError(`unknown --arch "${v.arch}" (llama or qwen2)`);
        const type = parseTypeName(v.type!);
        if (type === undefined) throw new UsageError(`unknown --type "${v.type}"`);
        const int = (name: string, s: string | undefined) => {
            if (s === undefined) return undefined;
            const n = Number(s);
            if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer (got "${s}")`);
            return n;
        };
        const t0 = performance.now();
        const {config: c, bytes} = makeModel({
            arch: v.arch, type, seed: int("seed", v.seed), nEmbd: int("embd", v.embd), nLayer: int("layers", v.layers),
            nHead: int("heads", v.heads), nHeadKv: int("kv-heads", v["kv-heads"]), nFf: int("ff", v.ff),
            contextLength: int("ctx", v.ctx), merges: int("merges", v.merges), padVocabTo: int("pad-vocab", v["pad-vocab"]),
            tiedOutput: v.tied ? true : v.untied ? false : undefined,
        }, v.out);
        io.out(`wrote ${v.out}: ${c.arch} ${typeName(type)}, n_embd ${c.nEmbd}, ${c.nLayer} layers, heads ${c.nHead}/${c.nHeadKv}, ` +
            `ff ${c.nFf}, vocab ${c.nVocab}, ${c.tiedOutput ? "tied" : "untied"} output, ${(bytes / 2 ** 20).toFixed(2)} MiB ` +
            `in ${((performance.now() - t0) / 1000).toFixed(2)} s\n`);
        return 0;
    },
};
