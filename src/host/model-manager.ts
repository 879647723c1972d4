// Owns the one model the extension runs: loaded once on first use and shared by every session; a different model (or
// GPU / thread / context setting) disposes the old one as soon as no session holds it. Reports its status (none, idle,
// downloading with progress, loading, ready, error). Generic over the loader, so it is tested without weights.

import {Emitter} from "../common/events";
import {errorMessage} from "../common/errors";
import type {ModelStatusView} from "../protocol/messages";

export interface ModelSpec {
    /** Path or `hf:` URI. Empty: none chosen. */
    source: string;
    gpu: "auto" | "off";
    threads: number;
    contextSize: number;
}

export interface LoadProgress {
    phase: "downloading" | "loading";
    /** 0..1 when known. */
    fraction?: number;
}

export interface Disposable { dispose(): void | Promise<void> }

export type ModelLoader<M extends Disposable> = (spec: ModelSpec, progress: (p: LoadProgress) => void, signal: AbortSignal) => Promise<M>;

/** A held model: release it when the session ends. */
export interface ModelLease<M> {
    readonly model: M;
    readonly spec: ModelSpec;
    release(): void;
}

interface Slot<M> {
    spec: ModelSpec;
    abort: AbortController;
    loading: Promise<M>;
    model?: M;
    leases: number;
    /** Replaced while leased: dispose when the last lease ends. */
    retired: boolean;
    disposing?: Promise<void>;
}

export function displayName(source: string): string {
    if (!source) return "";
    if (/^(hf:|huggingface:|https?:)/.test(source)) return source.replace(/^huggingface:/, "hf:");
    return source.slice(Math.max(source.lastIndexOf("/"), source.lastIndexOf("\\")) + 1);
}

const sameSpec = (a: ModelSpec, b: ModelSpec): boolean =>
    a.source === b.source && a.gpu === b.gpu && a.threads === b.threads && a.contextSize === b.contextSize;

export class ModelManager<M extends Disposable> {
    private spec: ModelSpec;
    private slot: Slot<M> | undefined;
    private current: ModelStatusView;
    private readonly statusEmitter = new Emitter<ModelStatusView>();
    /** Fires on every status change (progress included). */
    readonly onDidChangeStatus = this.statusEmitter.event;
    /** Loads done, for tests and logs. */
    loads = 0;

    constructor(private readonly loader: ModelLoader<M>, spec: ModelSpec, private readonly log?: (msg: string) => void) {
        this.spec = {...spec};
        this.current = spec.source ? {state: "idle", name: displayName(spec.source)} : {state: "none"};
    }

    get status(): ModelStatusView { return this.current; }
    get configured(): ModelSpec { return this.spec; }
    /** The loaded model, if one is loaded and current. */
    get loaded(): M | undefined { return this.slot && !this.slot.retired ? this.slot.model : undefined; }

    /** Sets what should be loaded; a change retires the loaded model (disposed now, or when its last lease ends). */
    async configure(spec: ModelSpec): Promise<void> {
        if (sameSpec(spec, this.spec)) return;
        this.spec = {...spec};
        await this.retire();
        this.setStatus(spec.source ? {state: "idle", name: displayName(spec.source)} : {state: "none"});
    }

    /** The current model, loading it on first use (callers during a load share it). Throws when none is chosen or loading fails. */
    async acquire(): Promise<ModelLease<M>> {
        if (!this.spec.source) throw new Error("No model is selected. Run “Nano Coder: Select Model…”.");
        let slot = this.slot;
        if (!slot || slot.retired || !sameSpec(slot.spec, this.spec)) slot = this.startLoad();
        slot.leases++;
        let model: M;
        try {
            model = await slot.loading;
        } catch (e) {
            slot.leases--;
            throw e;
        }
        let released = false;
        return {
            model, spec: slot.spec,
            release: () => {
                if (released) return;
                released = true;
                slot.leases--;
                if (slot.retired && slot.leases === 0) void this.disposeSlot(slot);
            },
        };
    }

    /** Loads now (e.g. when the panel opens) without holding the model. */
    async preload(): Promise<void> {
        try { (await this.acquire()).release(); } catch { /* status says why */ }
    }

    private startLoad(): Slot<M> {
        const spec = {...this.spec};
        const name = displayName(spec.source);
        const abort = new AbortController();
        const slot: Slot<M> = {spec, abort, leases: 0, retired: false, loading: Promise.resolve(undefined as never)};
        this.slot = slot;
        this.setStatus({state: "loading", name});
        const t0 = Date.now();
        slot.loading = this.loader(spec, p => {
            if (this.slot === slot) this.setStatus({state: p.phase, name, ...(p.fraction !== undefined ? {progress: p.fraction} : {})});
        }, abort.signal).then(model => {
            slot.model = model;
            this.loads++;
            this.log?.(`model ${name} loaded in ${Date.now() - t0} ms`);
            if (slot.retired) { if (slot.leases === 0) void this.disposeSlot(slot); }
            else this.setStatus({state: "ready", name, detail: describe(spec)});
            return model;
        }, e => {
            if (this.slot === slot) { this.slot = undefined; this.setStatus({state: "error", name, detail: errorMessage(e)}); }
            throw e;
        });
        slot.loading.catch(() => {});
        return slot;
    }

    private async retire(): Promise<void> {
        const slot = this.slot;
        if (!slot) return;
        this.slot = undefined;
        slot.retired = true;
        if (!slot.model) slot.abort.abort();
        if (slot.leases === 0) await this.disposeSlot(slot);
    }

    private disposeSlot(slot: Slot<M>): Promise<void> {
        slot.disposing ??= this.disposeModel(slot);
        return slot.disposing;
    }

    private async disposeModel(slot: Slot<M>): Promise<void> {
        const model = slot.model ?? await slot.loading.catch(() => undefined);
        slot.model = undefined;
        if (!model) return;
        try {
            await model.dispose();
            this.log?.(`model ${displayName(slot.spec.source)} disposed`);
        } catch (e) { this.log?.(`disposing model ${displayName(slot.spec.source)} failed: ${errorMessage(e)}`); }
    }

    private setStatus(s: ModelStatusView): void {
        this.current = s;
        this.statusEmitter.fire(s);
    }

    async dispose(): Promise<void> {
        await this.retire();
        this.statusEmitter.dispose();
    }
}

function describe(s: ModelSpec): string {
    return `${s.gpu === "off" ? "CPU" : `GPU ${s.gpu}`}, ${s.threads || "all"} threads, ${s.contextSize} ctx`;
}
