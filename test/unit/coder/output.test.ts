// Bounded output capture: head and tail kept, the middle counted and marked, UTF-8 never split into garbage.

import {describe, it} from "node:test";
import assert from "node:assert/strict";
import {StreamCapture} from "../../../src/coder/sandbox/output";

describe("StreamCapture", () => {
    it("keeps everything while it fits", () => {
        const c = new StreamCapture(8, 8);
        c.push(Buffer.from("hello "));
        c.push(Buffer.from("world"));
        assert.equal(c.text(), "hello world");
        assert.equal(c.omitted, 0);
        assert.equal(c.total, 11);
    });

    it("keeps head and tail of long output, however it is chunked, and says how much was dropped", () => {
        const text = Array.from({length: 5000}, (_, i) => String(i % 10)).join("");
        for (const chunk of [1, 7, 100, 5000]) {
            const c = new StreamCapture(10, 20);
            for (let i = 0; i < text.length; i += chunk) c.push(Buffer.from(text.slice(i, i + chunk)));
            assert.equal(c.total, 5000);
            assert.equal(c.omitted, 5000 - 30);
            assert.equal(c.text(), `${text.slice(0, 10)}\n[… 4970 bytes omitted …]\n${text.slice(-20)}`, `chunk ${chunk}`);
        }
    });

    it("does not cut a multi-byte character in half at either edge", () => {
        const c = new StreamCapture(4, 4);
        c.push(Buffer.from("aaé€€€€bbbé€"));
        const t = c.text();
        assert.ok(!t.includes("\uFFFD"), t);
        assert.match(t, /^aa/);
        assert.match(t, /bytes omitted …\]\n.*€$/s);
    });
});
