// Owns bounded capture of one output stream: keeps the first and last bytes, counts the rest, renders text with a
// marker where the middle was dropped. Knows nothing of processes.

export class StreamCapture {
    private head: Buffer[] = [];
    private headLen = 0;
    private tail: Buffer[] = [];
    private tailLen = 0;
    /** Bytes seen in total. */
    total = 0;

    constructor(private readonly headBytes: number, private readonly tailBytes: number) {}

    push(chunk: Buffer): void {
        this.total += chunk.length;
        if (this.headLen < this.headBytes) {
            const take = Math.min(chunk.length, this.headBytes - this.headLen);
            this.head.push(chunk.subarray(0, take));
            this.headLen += take;
            chunk = chunk.subarray(take);
            if (chunk.length === 0) return;
        }
        this.tail.push(chunk);
        this.tailLen += chunk.length;
        // Drop whole chunks from the front while the rest still covers tailBytes, then trim the first one.
        while (this.tail.length > 1 && this.tailLen - this.tail[0]!.length >= this.tailBytes) this.tailLen -= this.tail.shift()!.length;
        if (this.tailLen > this.tailBytes * 2) {
            const joined = Buffer.concat(this.tail).subarray(this.tailLen - this.tailBytes);
            this.tail = [Buffer.from(joined)];
            this.tailLen = joined.length;
        }
    }

    /** Whether bytes between head and tail were dropped. */
    get omitted(): number {
        return Math.max(0, this.total - this.headLen - Math.min(this.tailLen, this.tailBytes));
    }

    text(): string {
        const head = Buffer.concat(this.head);
        let tail = Buffer.concat(this.tail);
        if (tail.length > this.tailBytes) tail = tail.subarray(tail.length - this.tailBytes);
        const omitted = this.omitted;
        if (omitted === 0) return decode(Buffer.concat([head, tail]));
        // Cut at UTF-8 boundaries so that the marker does not sit beside replacement characters.
        let start = 0;
        while (start < tail.length && start < 4 && (tail[start]! & 0xc0) === 0x80) start++;
        return `${decodeHead(head)}\n[… ${omitted} bytes omitted …]\n${decode(tail.subarray(start))}`;
    }
}

function decode(b: Buffer): string {
    return new TextDecoder("utf-8", {fatal: false}).decode(b);
}

/** Decodes a head cut, dropping an incomplete trailing UTF-8 sequence. */
function decodeHead(b: Buffer): string {
    let end = b.length;
    for (let i = 1; i <= 3 && end - i >= 0; i++) {
        const c = b[end - i]!;
        if ((c & 0xc0) === 0x80) continue;
        const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
        if (need > i) end -= i;
        break;
    }
    return decode(b.subarray(0, end));
}
