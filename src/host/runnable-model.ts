// Owns what the host loads as "the model": a GGUF run by node-llama-cpp (llm/host.ts), or a scripted stand-in
// (`scripted:<file.json>`, replies from a file, run through the real generation loop — for demos and UI tests). Either
// way a session gets a fresh AgentModel (token session + chat format + trace description) to dispose after the run.

import {readFile, stat} from "node:fs/promises";
import type {AgentModel} from "../coder/agent/agent";
import {chatmlHermes} from "../llm/chatFormat";
import {sha256File} from "../llm/fileHash";
import {defaultThreads, LlmHost, type LoadedModel} from "../llm/host";
import {scriptedSession} from "../llm/scripted";
import type {TraceModel} from "../traces/schema";
import type {LoadProgress, ModelSpec} from "./model-manager";

export interface SessionModel extends AgentModel {
    dispose(): Promise<void>;
}

export interface RunnableModel {
    readonly name: string;
    /** A fresh context for one agent session. */
    openSession(o: {contextSize: number; threads: number}): Promise<SessionModel>;
    dispose(): Promise<void>;
}

export const SCRIPTED_PREFIX = "scripted:";

/** A scripted model file: the replies of turns 0, 1, … (tool calls in the model's `<tool_call>` syntax). */
export interface ModelScript {
    replies: string[];
    /** Delay per generated token, to make streaming visible and turns slow enough to stop. Default 0. */
    delayMs?: number;
}

class LlamaRunnable implements RunnableModel {
    private description: Promise<TraceModel> | undefined;
    constructor(readonly name: string, private readonly loaded: LoadedModel) {}

    async openSession(o: {contextSize: number; threads: number}): Promise<SessionModel> {
        const s = await this.loaded.createSession({contextSize: o.contextSize, threads: o.threads || defaultThreads()});
        // hashing a large model file takes seconds: once per loaded model
        const describeModel = () => (this.description ??= this.loaded.describe(o.contextSize));
        return {
            tokens: s.tokens, format: s.format,
            describe: async () => ({model: {...await describeModel(), contextSize: o.contextSize}, adapter: s.describeAdapter()}),
            dispose: () => s.dispose(),
        };
    }

    dispose(): Promise<void> { return this.loaded.dispose(); }
}

class ScriptedRunnable implements RunnableModel {
    constructor(readonly name: string, private readonly file: string, private readonly script: ModelScript) {}

    async openSession(o: {contextSize: number}): Promise<SessionModel> {
        const {session} = scriptedSession({script: this.script.replies, contextSize: o.contextSize, ...(this.script.delayMs ? {delayMs: this.script.delayMs} : {})});
        const st = await stat(this.file);
        const model: TraceModel = {file: this.file, name: `scripted (${this.name})`, sha256: await sha256File(this.file), sizeBytes: st.size,
            chatFormat: chatmlHermes.name, contextSize: o.contextSize};
        return {tokens: session, format: chatmlHermes, describe: async () => ({model, adapter: null}), dispose: async () => {}};
    }

    async dispose(): Promise<void> {}
}

async function loadScript(file: string): Promise<ModelScript> {
    const raw = JSON.parse(await readFile(file, "utf8")) as unknown;
    const s = (Array.isArray(raw) ? {replies: raw} : raw) as ModelScript;
    if (!Array.isArray(s.replies) || !s.replies.every(r => typeof r === "string")) throw new Error(`${file}: a model script needs "replies": [string, …]`);
    return s;
}

/** Loads models on one node-llama-cpp runtime per GPU setting (a change of the setting replaces the runtime). */
export class ModelLoader {
    private host: {gpu: ModelSpec["gpu"]; host: Promise<LlmHost>} | undefined;
    /** Runtimes of an earlier GPU setting: a session may still run on one; freed with the loader. */
    private readonly retired: Promise<LlmHost>[] = [];

    constructor(private readonly cacheDir?: string) {}

    load = async (spec: ModelSpec, progress: (p: LoadProgress) => void, signal: AbortSignal): Promise<RunnableModel> => {
        const name = spec.source.split(/[\\/]/).pop() ?? spec.source;
        if (spec.source.startsWith(SCRIPTED_PREFIX)) {
            const file = spec.source.slice(SCRIPTED_PREFIX.length);
            return new ScriptedRunnable(name, file, await loadScript(file));
        }
        const host = await this.runtime(spec.gpu);
        const loaded = await host.loadModel(spec.source, {signal, onProgress: p => progress({phase: "downloading",
            ...(p.totalBytes ? {fraction: p.downloadedBytes / p.totalBytes} : {})})});
        return new LlamaRunnable(name, loaded);
    };

    private runtime(gpu: ModelSpec["gpu"]): Promise<LlmHost> {
        if (this.host?.gpu !== gpu) {
            if (this.host) this.retired.push(this.host.host);
            this.host = {gpu, host: LlmHost.create({gpu: gpu === "off" ? false : "auto", ...(this.cacheDir ? {cacheDir: this.cacheDir} : {})})};
        }
        return this.host.host;
    }

    async dispose(): Promise<void> {
        const all = [...this.retired.splice(0), ...(this.host ? [this.host.host] : [])];
        this.host = undefined;
        for (const h of all) await h.then(x => x.dispose()).catch(() => {});
    }
}
