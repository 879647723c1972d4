// Owns LoRA adapter files as the model host sees them. llama.cpp caches adapters per model by file path until the
// model is disposed, so an adapter overwritten in place would silently keep its old weights: every adapter is
// therefore staged under a content-addressed name (its sha256), and the host counts distinct staged files so it
// can reload the model to free old ones.

import {copyFile, mkdir, rename, stat} from "node:fs/promises";
import {join} from "node:path";
import {sha256File} from "./fileHash";

export interface AdapterRef {
    /** The adapter GGUF as the trainer wrote it. */
    file: string;
    /** Version label recorded in traces (e.g. "v3"); defaults to the first 12 hex digits of the file's sha256. */
    version?: string;
    /** LoRA scale. Default 1. */
    scale?: number;
}

export interface StagedAdapter {
    /** Content-addressed copy that llama.cpp loads (never overwritten). */
    path: string;
    file: string;
    sha256: string;
    version: string;
    scale: number;
}

/** Copies `ref.file` to `<dir>/<sha256>.gguf` (once per content) and describes it. */
export async function stageAdapter(ref: AdapterRef, dir: string): Promise<StagedAdapter> {
    const sha256 = await sha256File(ref.file);
    await mkdir(dir, {recursive: true});
    const path = join(dir, `${sha256}.gguf`);
    const exists = await stat(path).then(() => true, () => false);
    if (!exists) {
        const tmp = `${path}.tmp-${process.pid}`;
        await copyFile(ref.file, tmp);
        await rename(tmp, path);
    }
    return {path, file: ref.file, sha256, version: ref.version ?? sha256.slice(0, 12), scale: ref.scale ?? 1};
}
