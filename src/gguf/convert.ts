// Owns re-encoding a GGUF file: same metadata and tensor order, each tensor rewritten in a chosen type from its
// dequantized float values (e.g. the F32 twin of a quantized model, used to check dequantization against llama.cpp).

import {GgmlType} from "./types";
import {openGguf} from "./reader";
import {writeGguf, type GgufWriteTensor} from "./writer";

/** Writes `outPath` with every tensor stored as `typeFor(name, currentType)`. Holds the dequantized model in memory
 *  (meant for test-sized models). */
export async function convertGguf(inPath: string, outPath: string, typeFor: (name: string, type: GgmlType) => GgmlType): Promise<number> {
    const f = await openGguf(inPath);
    try {
        const values = new Map<string, Float32Array>();
        // writeGguf is synchronous and reads are async, so the values are read first and released as written.
        for (const t of f.tensors) values.set(t.name, await f.readTensorF32(t));
        const tensors: GgufWriteTensor[] = f.tensors.map(t => ({
            name: t.name, shape: t.shape, type: typeFor(t.name, t.type),
            data: () => { const v = values.get(t.name)!; values.delete(t.name); return v; },
        }));
        return writeGguf(outPath, {metadata: [...f.metadata.entries], tensors, alignment: f.alignment});
    } finally {
        f.close();
    }
}
