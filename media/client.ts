// Owns the webview end of the protocol: typed requests to the host (answered by id) and typed notification handlers.

import type {HostMessage, NotifyType, RequestData, RequestType, ResponseData, ToWebview} from "../src/protocol/messages";

export interface Poster { postMessage(msg: unknown): void }

export class HostClient {
    private nextId = 1;
    private readonly pending = new Map<number, {resolve(v: unknown): void; reject(e: Error): void}>();
    private readonly handlers = new Map<NotifyType, ((data: never) => void)[]>();

    constructor(private readonly poster: Poster) {}

    request<K extends RequestType>(type: K, data: RequestData<K>): Promise<ResponseData<K>> {
        const id = this.nextId++;
        return new Promise<ResponseData<K>>((resolve, reject) => {
            this.pending.set(id, {resolve: v => resolve(v as ResponseData<K>), reject});
            this.poster.postMessage({kind: "request", id, type, data});
        });
    }

    on<K extends NotifyType>(type: K, handler: (data: ToWebview[K]) => void): void {
        const list = this.handlers.get(type) ?? [];
        list.push(handler as (data: never) => void);
        this.handlers.set(type, list);
    }

    /** Feeds one message from the host (the window's "message" event data). Unknown shapes are ignored. */
    receive(raw: unknown): void {
        const m = raw as HostMessage;
        if (!m || typeof m !== "object") return;
        if (m.kind === "response") {
            const p = this.pending.get(m.id);
            if (!p) return;
            this.pending.delete(m.id);
            if (m.ok) p.resolve(m.data);
            else p.reject(new Error(m.error));
        } else if (m.kind === "notify") {
            for (const h of this.handlers.get(m.type) ?? []) {
                try { (h as (d: unknown) => void)(m.data); } catch (e) { console.error(`[nano-coder panel] ${m.type} handler failed`, e); }
            }
        }
    }
}
