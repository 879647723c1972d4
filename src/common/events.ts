// Owns typed event emission: a minimal Emitter whose `event` function returns a Disposable subscription.

import type {Disposable} from "./disposable";

export type Listener<T> = (e: T) => void;
export type Event<T> = (listener: Listener<T>) => Disposable;

export class Emitter<T> implements Disposable {
    private listeners = new Set<Listener<T>>();

    readonly event: Event<T> = listener => {
        this.listeners.add(listener);
        return {dispose: () => { this.listeners.delete(listener); }};
    };

    /** Calls every listener; a throwing listener does not stop the others (its error is reported, not rethrown). */
    fire(e: T): void {
        for (const l of [...this.listeners]) {
            try { l(e); } catch (err) { console.error("[nano-coder] event listener failed:", err); }
        }
    }

    get listenerCount(): number { return this.listeners.size; }

    dispose(): void { this.listeners.clear(); }
}
