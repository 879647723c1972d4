// Owns line diffs for the UI and traces: Myers' O((N+M)·D) shortest edit script rendered as a unified diff.
// Bounded: past `maxEdits` differing lines it gives up and says so (the file is rewritten wholesale anyway).

type Op = {kind: " " | "-" | "+"; line: string};

function splitLines(t: string): string[] {
    if (t === "") return [];
    const lines = t.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    return lines;
}

/** Shortest edit script between line arrays, or undefined when more than `maxD` edits are needed. */
function myers(a: string[], b: string[], maxD: number): Op[] | undefined {
    const n = a.length, m = b.length, max = Math.min(n + m, maxD);
    const off = max + 1;
    let v = new Int32Array(2 * max + 3);
    const trace: Int32Array[] = [];
    for (let d = 0; d <= max; d++) {
        trace.push(v.slice());
        const next = v.slice();
        for (let k = -d; k <= d; k += 2) {
            let x = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!) ? v[off + k + 1]! : v[off + k - 1]! + 1;
            let y = x - k;
            while (x < n && y < m && a[x] === b[y]) { x++; y++; }
            next[off + k] = x;
            if (x >= n && y >= m) {
                trace.push(next);
                return backtrack(trace, a, b, off);
            }
        }
        v = next;
    }
    return undefined;
}

function backtrack(trace: Int32Array[], a: string[], b: string[], off: number): Op[] {
    const ops: Op[] = [];
    let x = a.length, y = b.length;
    for (let d = trace.length - 2; d >= 0; d--) {
        const v = trace[d]!;
        const k = x - y;
        const prevK = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!) ? k + 1 : k - 1;
        const px = d === 0 ? 0 : v[off + prevK]!;
        const py = px - prevK;
        while (x > px && y > py && x > 0 && y > 0) { ops.push({kind: " ", line: a[--x]!}); y--; }
        if (d === 0) break;
        if (x === px) ops.push({kind: "+", line: b[--y]!});
        else ops.push({kind: "-", line: a[--x]!});
    }
    while (x > 0 && y > 0) { ops.push({kind: " ", line: a[--x]!}); y--; }
    return ops.reverse();
}

export interface DiffSummary {
    /** Unified diff text (without file headers when `path` is not given), or a note when too large to compute. */
    text: string;
    added: number;
    removed: number;
}

/** A unified diff of `before` → `after` with `context` lines around each change. */
export function unifiedDiff(before: string, after: string, path = "file", context = 3, maxEdits = 2000): DiffSummary {
    const a = splitLines(before), b = splitLines(after);
    const ops = myers(a, b, maxEdits);
    if (!ops) return {text: `(diff too large to show: ${a.length} → ${b.length} lines)`, added: b.length, removed: a.length};
    const added = ops.filter(o => o.kind === "+").length, removed = ops.filter(o => o.kind === "-").length;
    if (!added && !removed) return {text: "", added, removed};
    const out = [`--- a/${path}`, `+++ b/${path}`];
    let i = 0;
    let ai = 0, bi = 0; // line numbers before op i
    const pos: {a: number; b: number}[] = ops.map(o => { const p = {a: ai, b: bi}; if (o.kind !== "+") ai++; if (o.kind !== "-") bi++; return p; });
    while (i < ops.length) {
        while (i < ops.length && ops[i]!.kind === " ") i++;
        if (i >= ops.length) break;
        const start = Math.max(0, i - context);
        let end = i;
        // Extend the hunk while changes are closer than 2*context lines apart.
        for (let j = i; j < ops.length; j++) {
            if (ops[j]!.kind !== " ") end = j;
            else if (j - end > 2 * context) break;
        }
        const stop = Math.min(ops.length, end + context + 1);
        const slice = ops.slice(start, stop);
        const aLen = slice.filter(o => o.kind !== "+").length, bLen = slice.filter(o => o.kind !== "-").length;
        out.push(`@@ -${pos[start]!.a + (aLen ? 1 : 0)},${aLen} +${pos[start]!.b + (bLen ? 1 : 0)},${bLen} @@`);
        for (const o of slice) out.push(`${o.kind}${o.line}`);
        i = stop;
    }
    return {text: out.join("\n") + "\n", added, removed};
}
