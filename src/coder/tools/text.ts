// Owns text helpers shared by tools: bounding observations, telling binary from text, cleaning terminal output.

/** Keeps `text` under `max` characters: head and tail kept, a marker saying how much was dropped in between. */
export function bound(text: string, max: number): string {
    if (text.length <= max) return text;
    const head = Math.floor(max * 0.3);
    const tail = max - head - 80;
    return `${text.slice(0, head)}\n[… truncated: ${text.length - head - tail} characters omitted …]\n${text.slice(text.length - tail)}`;
}

/** Why `buf` is not shown as text (NUL bytes or invalid UTF-8 in its first 8 KiB), or undefined for text. */
export function binaryReason(buf: Uint8Array): string | undefined {
    const probe = buf.subarray(0, 8192);
    if (probe.includes(0)) return "it contains NUL bytes (binary data)";
    // A multi-byte character may be cut at the probe's end: only judge what is complete.
    let end = probe.length;
    if (buf.length > probe.length) while (end > 0 && end > probe.length - 4 && (probe[end - 1]! & 0xc0) === 0x80) end--;
    if (buf.length > probe.length && end > 0 && probe[end - 1]! >= 0xc0) end--;
    try { new TextDecoder("utf-8", {fatal: true}).decode(probe.subarray(0, end)); } catch { return "it is not valid UTF-8 text"; }
    return undefined;
}

// eslint-disable-next-line no-control-regex
const ansi = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*(\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/** Removes terminal colour codes and collapses carriage-return progress lines (keeps the last state of each line). */
export function cleanTerminal(text: string): string {
    return text.replace(ansi, "").split("\n").map(l => (l.includes("\r") ? l.split("\r").filter(Boolean).pop() ?? "" : l)).join("\n");
}

export function plural(n: number, word: string): string {
    return `${n} ${word}${n === 1 ? "" : "s"}`;
}
