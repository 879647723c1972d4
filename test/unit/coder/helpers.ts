// Owns what the coder unit tests share: a real temporary workspace (real path) with files, and a tool context on it.

import {mkdir, mkdtemp, realpath, rm, writeFile} from "node:fs/promises";
import {tmpdir} from "node:os";
import {dirname, join} from "node:path";
import {CheckpointRecorder} from "../../../src/coder/checkpoints";
import {createSandbox, type DisposableSandbox} from "../../../src/coder/sandbox/sandbox";
import type {ToolContext} from "../../../src/coder/tools/types";

export interface TempWorkspace { dir: string; cleanup(): Promise<void> }

/** A fresh workspace folder holding `files` (path -> content). */
export async function workspace(files: Record<string, string | Buffer> = {}): Promise<TempWorkspace> {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "nano-ws-")));
    for (const [p, c] of Object.entries(files)) {
        await mkdir(dirname(join(dir, p)), {recursive: true});
        await writeFile(join(dir, p), c);
    }
    return {dir, cleanup: () => rm(dir, {recursive: true, force: true})};
}

/** A tool context with a real sandbox (strong where bubblewrap works) and a checkpoint recorder. */
export async function context(dir: string, extra: Partial<ToolContext> = {}): Promise<ToolContext & {sandbox: DisposableSandbox; checkpoints: CheckpointRecorder}> {
    const sandbox = await createSandbox({workspace: dir});
    return {workspace: dir, sandbox, signal: new AbortController().signal, checkpoints: new CheckpointRecorder(dir), ...extra} as ToolContext & {sandbox: DisposableSandbox; checkpoints: CheckpointRecorder};
}
