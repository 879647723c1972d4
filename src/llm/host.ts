// Owns the model host: one node-llama-cpp runtime (GPU when available, else CPU), GGUF models loaded by path or
// `hf:` URI (through node-llama-cpp's resolver, with download progress), and contexts — always with an explicit
// thread count, optionally with a LoRA adapter — wrapped as token-exact sessions and teacher-forced scorers.

import {availableParallelism, homedir} from "node:os";
import {join, resolve} from "node:path";
import {stat} from "node:fs/promises";
import type {Llama, LlamaContext, LlamaContextOptions, LlamaModel} from "node-llama-cpp";
import type {Disposable} from "../common/disposable";
import {NanoError} from "../common/errors";
import type {TraceAdapter, TraceModel} from "../traces/schema";
import {stageAdapter, type AdapterRef, type StagedAdapter} from "./adapters";
import type {ChatFormat} from "./chatFormat";
import {sha256File} from "./fileHash";
import {resolveChatFormat} from "./jinjaFormat";
import {LlamaLogitSource} from "./llamaSource";
import {scoreTokens} from "./scoring";
import {TokenSession} from "./session";
import {llamaVocabulary, type Vocabulary} from "./vocab";

export interface DownloadProgress {
    downloadedBytes: number;
    totalBytes: number;
}

/** Resolves a model URI to a local file (downloading it if needed). Default: node-llama-cpp's resolveModelFile. */
export type ModelResolver = (uri: string, o: {directory: string; onProgress?: (p: DownloadProgress) => void; signal?: AbortSignal}) => Promise<string>;

export const defaultResolver: ModelResolver = async (uri, o) => {
    const {resolveModelFile} = await import("node-llama-cpp");
    return resolveModelFile(uri, {
        directory: o.directory, download: "auto", cli: false, signal: o.signal,
        onProgress: o.onProgress ? s => o.onProgress!({downloadedBytes: s.downloadedSize, totalBytes: s.totalSize}) : undefined,
    });
};

export const isRemoteModel = (spec: string) => /^(hf:|huggingface:|https?:\/\/)/.test(spec);

export const defaultCacheDir = () => process.env.NANO_CODER_CACHE ?? join(homedir(), ".cache", "nano-coder");

/** A local path for `spec`: the file itself, or the resolver's download of a `hf:` / URL model. */
export async function resolveModelPath(spec: string, o: {resolver?: ModelResolver; directory?: string; onProgress?: (p: DownloadProgress) => void; signal?: AbortSignal} = {}): Promise<string> {
    if (isRemoteModel(spec)) {
        const directory = o.directory ?? join(defaultCacheDir(), "models");
        return (o.resolver ?? defaultResolver)(spec, {directory, onProgress: o.onProgress, signal: o.signal});
    }
    const path = resolve(spec);
    const st = await stat(path).catch(() => undefined);
    if (!st?.isFile()) throw new NanoError("model-not-found", `no model file at ${path}`);
    return path;
}

/** CPU threads for a context: every core the process may use (never node-llama-cpp's default guess). */
export const defaultThreads = () => Math.max(1, availableParallelism());

export interface HostOptions {
    /** "auto": CUDA / Vulkan / Metal when a prebuilt binary and device exist, else CPU. false: CPU only. */
    gpu?: "auto" | false;
    /** Where hf: models are downloaded and adapters staged. */
    cacheDir?: string;
    /** Reload a model after this many distinct adapters (llama.cpp frees adapters only with the model). Default 8. */
    maxAdaptersPerModel?: number;
}

export class LlmHost implements Disposable {
    private readonly models = new Set<LoadedModel>();

    private constructor(readonly llama: Llama, readonly options: HostOptions) {}

    static async create(options: HostOptions = {}): Promise<LlmHost> {
        const {getLlama, LlamaLogLevel} = await import("node-llama-cpp");
        const llama = await getLlama({gpu: options.gpu ?? "auto", build: "never", logLevel: LlamaLogLevel.error});
        return new LlmHost(llama, options);
    }

    /** "cuda" / "vulkan" / "metal", or false on CPU. */
    get gpu(): string | false { return this.llama.gpu; }
    get cacheDir(): string { return this.options.cacheDir ?? defaultCacheDir(); }

    async loadModel(spec: string, o: {resolver?: ModelResolver; onProgress?: (p: DownloadProgress) => void; signal?: AbortSignal} = {}): Promise<LoadedModel> {
        const path = await resolveModelPath(spec, {...o, directory: join(this.cacheDir, "models")});
        const model = await this.llama.loadModel({modelPath: path});
        const loaded = new LoadedModel(this, path, model);
        this.models.add(loaded);
        return loaded;
    }

    /** @internal */ forget(m: LoadedModel): void { this.models.delete(m); }

    async dispose(): Promise<void> {
        for (const m of [...this.models]) await m.dispose();
        await this.llama.dispose();
    }
}

export interface ContextOptions {
    /** Tokens. Default: min(model's training context, 8192). */
    contextSize?: number;
    /** Default: defaultThreads(). */
    threads?: number;
    adapter?: AdapterRef;
    /** Exact numerics (F32 KV cache, no flash attention): for parity and re-scoring tests. Default false. */
    exact?: boolean;
}

export class LoadedModel implements Disposable {
    private vocabCache?: Vocabulary;
    private formatCache?: ChatFormat;
    private readonly adapterPaths = new Set<string>();
    private live = 0;
    private disposed = false;

    constructor(readonly host: LlmHost, readonly path: string, private current: LlamaModel) {}

    get model(): LlamaModel { return this.current; }
    get vocab(): Vocabulary { return (this.vocabCache ??= llamaVocabulary(this.current)); }

    /** The model's chat format, from its own template. */
    get format(): ChatFormat {
        if (!this.formatCache) {
            const m = this.current;
            const template = (m.fileInfo.metadata as {tokenizer?: {chat_template?: string}}).tokenizer?.chat_template;
            this.formatCache = resolveChatFormat(template, {bos: m.tokens.bosString ?? undefined, eos: m.tokens.eosString ?? undefined});
        }
        return this.formatCache;
    }

    async describe(contextSize: number): Promise<TraceModel> {
        const st = await stat(this.path);
        const name = (this.current.fileInfo.metadata as {general?: {name?: string}}).general?.name;
        return {file: this.path, ...(name ? {name} : {}), sha256: await sha256File(this.path), sizeBytes: st.size,
            chatFormat: this.format.name, contextSize};
    }

    /** A context on this model with `threads` always set, and the adapter (staged under a content address). */
    async createContext(o: ContextOptions = {}): Promise<{context: LlamaContext; adapter: StagedAdapter | null}> {
        if (this.disposed) throw new NanoError("model-disposed", "the model was disposed");
        const adapter = o.adapter ? await stageAdapter(o.adapter, join(this.host.cacheDir, "adapters")) : null;
        if (adapter && !this.adapterPaths.has(adapter.path)) {
            if (this.adapterPaths.size >= (this.host.options.maxAdaptersPerModel ?? 8) && this.live === 0) await this.reload();
            this.adapterPaths.add(adapter.path);
        }
        const options: LlamaContextOptions = {
            contextSize: o.contextSize ?? Math.min(this.current.trainContextSize, 8192),
            threads: o.threads ?? defaultThreads(),
            ...(o.exact ? {flashAttention: false, experimentalKvCacheKeyType: "F32", experimentalKvCacheValueType: "F32"} as const : {}),
            ...(adapter ? {lora: {adapters: [{filePath: adapter.path, scale: adapter.scale}]}} : {}),
        };
        const context = await this.current.createContext(options);
        this.live++;
        context.onDispose.createListener(() => { this.live--; });
        return {context, adapter};
    }

    /** A token-exact session (one context, one sequence) for an agent run. */
    async createSession(o: ContextOptions = {}): Promise<ModelSession> {
        const {context, adapter} = await this.createContext(o);
        return new ModelSession(this, context, adapter);
    }

    /**
     * Teacher-forced log-probs of `tokens` in a fresh context with the same settings: result[i] = log p(tokens[i] |
     * tokens[<i]) for i ≥ 1 (result[0] is NaN).
     */
    async score(tokens: readonly number[], o: ContextOptions = {}): Promise<number[]> {
        const {context} = await this.createContext({contextSize: Math.max(tokens.length + 1, 64), ...o});
        try { return await scoreTokens(context.getSequence(), tokens); } finally { await context.dispose(); }
    }

    /** Disposes and reloads the model (frees cached adapters). */
    private async reload(): Promise<void> {
        const llama = this.current.llama;
        await this.current.dispose();
        this.current = await llama.loadModel({modelPath: this.path});
        this.vocabCache = undefined;
        this.adapterPaths.clear();
    }

    async dispose(): Promise<void> {
        if (this.disposed) return;
        this.disposed = true;
        this.host.forget(this);
        await this.current.dispose();
    }
}

/** One context + sequence + token session: what an agent run talks to. */
export class ModelSession implements Disposable {
    readonly tokens: TokenSession;
    readonly source: LlamaLogitSource;

    constructor(readonly loaded: LoadedModel, readonly context: LlamaContext, readonly adapter: StagedAdapter | null) {
        this.source = new LlamaLogitSource(context.getSequence());
        this.tokens = new TokenSession(this.source, loaded.vocab);
    }

    get format(): ChatFormat { return this.loaded.format; }

    /** Model file, hash, chat format and adapter, for the trace. */
    async describe(): Promise<{model: TraceModel; adapter: TraceAdapter | null}> {
        return {model: await this.loaded.describe(this.tokens.contextSize), adapter: this.describeAdapter()};
    }

    describeAdapter(): TraceAdapter | null {
        const a = this.adapter;
        return a ? {version: a.version, file: a.file, sha256: a.sha256, scale: a.scale} : null;
    }

    async dispose(): Promise<void> {
        if (!this.context.disposed) await this.context.dispose();
    }
}
