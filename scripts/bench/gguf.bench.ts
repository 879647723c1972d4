// GGUF open + metadata of a ≥ 500 MB factory model (Qwen2.5-0.5B shape, 151,936-token vocabulary, Q8_0),
// against fs.readFile of the same file, side by side; plus dequantization throughput for context.
import {existsSync, mkdirSync, promises as fsp, statSync} from "node:fs";
import {join} from "node:path";
import {makeModel} from "../../src/factory/model";
import {GgufFile} from "../../src/gguf/reader";
import {GgmlType} from "../../src/gguf/types";
import {sideBySide, type Bench} from "./types";

const bench: Bench = {
    name: "gguf",
    description: "open + metadata of a 0.5B-shaped Q8_0 GGUF vs fs.readFile of the same bytes",
    async run({log}) {
        const dir = join(process.cwd(), ".cache", "bench");
        mkdirSync(dir, {recursive: true});
        const path = join(dir, "qwen2-0.5b-shape-q8_0.gguf");
        if (!existsSync(path)) {
            log("making the model (once; cached in .cache/bench) …");
            const t0 = performance.now();
            makeModel({arch: "qwen2", type: GgmlType.Q8_0, nEmbd: 896, nLayer: 24, nHead: 14, nHeadKv: 2, nFf: 4864,
                padVocabTo: 151936, contextLength: 32768}, path);
            log(`made in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
        }
        const size = statSync(path).size;
        let keys = 0;
        const t = await sideBySide(5,
            () => { const f = GgufFile.open(path); keys = f.metadata.entries.length + f.tensors.length; f.close(); },
            () => fsp.readFile(path));
        const f = GgufFile.open(path);
        const layer = f.tensors.filter(x => x.name.startsWith("blk.0."));
        const t1 = performance.now();
        let bytes = 0;
        for (const x of layer) { await f.readTensorF32(x); bytes += x.byteSize; }
        const dq = performance.now() - t1;
        const vocab = f.metadata.getArray("tokenizer.ggml.tokens")!.items.length;
        f.close();
        return [
            {metric: "file size", value: size / 2 ** 20, unit: "MiB", note: `${vocab} tokens, ${keys} keys+tensors`},
            {metric: "open + parse header/metadata/tensor infos", value: t.a, unit: "ms (median of 5)"},
            {metric: "fs.readFile of the same file", value: t.b, unit: "ms (median of 5)"},
            {metric: "ratio readFile / open", value: t.b / t.a, unit: "×"},
            {metric: "read + dequantize Q8_0 (one block of layers)", value: bytes / 2 ** 20 / (dq / 1000), unit: "MiB/s"},
        ];
    },
};
export default bench;
