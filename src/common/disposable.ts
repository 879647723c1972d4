// Owns resource lifetimes: the Disposable contract and a store that disposes what it owns, once, in reverse order.
// Knows nothing of VS Code (host/ adapts these to vscode.Disposable).

export interface Disposable {
    dispose(): void | Promise<void>;
}

/** Collects disposables; `dispose()` releases them newest-first, exactly once, even if one throws. */
export class DisposableStore implements Disposable {
    private readonly items: Disposable[] = [];
    private disposed = false;

    get isDisposed(): boolean { return this.disposed; }

    /** Takes ownership of `d`; if the store is already disposed, `d` is disposed at once. */
    add<T extends Disposable>(d: T): T {
        if (this.disposed) void d.dispose();
        else this.items.push(d);
        return d;
    }

    async dispose(): Promise<void> {
        if (this.disposed) return;
        this.disposed = true;
        const errors: unknown[] = [];
        for (const d of this.items.splice(0).reverse()) {
            try { await d.dispose(); } catch (e) { errors.push(e); }
        }
        if (errors.length === 1) throw errors[0];
        if (errors.length > 1) throw new AggregateError(errors, "several disposables failed");
    }
}

export function toDisposable(fn: () => void | Promise<void>): Disposable {
    let done = false;
    return {dispose: () => { if (!done) { done = true; return fn(); } }};
}
