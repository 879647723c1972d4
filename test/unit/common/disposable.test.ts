import {test} from "node:test";
import assert from "node:assert/strict";
import {DisposableStore, toDisposable} from "../../../src/common/disposable";
import {Emitter} from "../../../src/common/events";

test("DisposableStore disposes newest-first, once, and keeps going past a throwing item", async () => {
    const order: string[] = [];
    const s = new DisposableStore();
    s.add(toDisposable(() => { order.push("a"); }));
    s.add(toDisposable(() => { order.push("b"); throw new Error("b failed"); }));
    s.add(toDisposable(() => { order.push("c"); }));
    await assert.rejects(s.dispose(), /b failed/);
    assert.deepEqual(order, ["c", "b", "a"]);
    await s.dispose();
    assert.deepEqual(order, ["c", "b", "a"], "second dispose is a no-op");
    let late = false;
    s.add(toDisposable(() => { late = true; }));
    assert.equal(late, true, "adding to a disposed store disposes at once");
});

test("Emitter delivers to listeners until their subscription is disposed", () => {
    const e = new Emitter<number>();
    const got: number[] = [];
    const sub = e.event(v => got.push(v));
    e.fire(1);
    sub.dispose();
    e.fire(2);
    assert.deepEqual(got, [1]);
    assert.equal(e.listenerCount, 0);
});
