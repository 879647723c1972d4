// Owns the benchmark module contract: each scripts/bench/*.bench.ts default-exports a Bench.

export interface BenchRow {
    metric: string;
    value: number;
    unit: string;
    note?: string;
}

export interface Bench {
    name: string;
    description: string;
    run(ctx: {log(line: string): void}): Promise<BenchRow[]>;
}

/** Median of a list of numbers. */
export function median(xs: number[]): number {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Runs `a` and `b` alternately `n` times (so load drifts hit both alike); returns their median ms. */
export async function sideBySide(n: number, a: () => Promise<unknown> | unknown, b: () => Promise<unknown> | unknown): Promise<{a: number; b: number}> {
    const ta: number[] = [], tb: number[] = [];
    for (let i = 0; i < n; i++) {
        let t = performance.now(); await a(); ta.push(performance.now() - t);
        t = performance.now(); await b(); tb.push(performance.now() - t);
    }
    return {a: median(ta), b: median(tb)};
}
