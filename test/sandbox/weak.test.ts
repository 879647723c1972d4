// The weak sandbox (no bubblewrap): what it still guarantees — labelled as weak, timeout with process-group kill, output
// cap, file-size limit, clean environment, confined working directory — and that "require strong" refuses it.

import {after, before, describe, it} from "node:test";
import assert from "node:assert/strict";
import {createSandbox, type DisposableSandbox} from "../../src/coder/sandbox/sandbox";
import {canSpawn, marker, settle, tempWorkspace} from "./helpers";

describe("weak sandbox", {timeout: 120_000}, () => {
    let ws: {dir: string; cleanup(): Promise<void>};
    let sb: DisposableSandbox;
    before(async () => {
        ws = await tempWorkspace();
        sb = await createSandbox({workspace: ws.dir, mode: "weak", limits: {outputBytes: 1024 ** 2, fileBytes: 8 * 1024 ** 2}});
    });
    after(async () => {
        await sb.dispose();
        await ws.cleanup();
        assert.ok(canSpawn());
    });

    it("is labelled WEAK, in describe() and in every result", async () => {
        assert.equal(sb.mode, "weak");
        assert.match(sb.describe(), /^WEAK \(no bubblewrap: rlimits \+ timeout only\)/);
        assert.match(sb.describe(), /why: weak mode was asked for/);
        const r = await sb.run("echo $NANO_SANDBOX");
        assert.equal(r.mode, "weak");
        assert.equal(r.stdoutTail.trim(), "weak");
    });

    it("refuses to be weak when the strong sandbox is required", async () => {
        await assert.rejects(createSandbox({workspace: ws.dir, mode: "weak", requireStrong: true}), {code: "SANDBOX_STRONG_UNAVAILABLE"});
    });

    it("kills the process group at the timeout, background children included", async () => {
        const m = marker();
        const r = await sb.run(["sh", "-c", "sleep 1000 & while :; do :; done", m], {timeoutMs: 1500});
        assert.equal(r.killedReason, "timeout");
        assert.equal(r.timedOut, true);
        assert.deepEqual(await settle(m), []);
    });

    it("kills a background child left in the group when the command exits", async () => {
        const n = String(Math.floor(Math.random() * 1e9));
        const r = await sb.run(`sleep 1003.${n} & echo started`, {timeoutMs: 30_000});
        assert.equal(r.exitCode, 0);
        assert.deepEqual(await settle(`1003.${n}`), []);
    });

    it("caps output and keeps head and tail", async () => {
        const r = await sb.run("head -c 100000000 /dev/zero | tr '\\0' a", {timeoutMs: 60_000});
        assert.equal(r.killedReason, "output-limit");
        assert.ok(r.stdoutBytes <= 1024 ** 2);
        assert.match(r.stdoutTail, /bytes omitted/);
    });

    it("limits file size", async () => {
        const r = await sb.run("dd if=/dev/zero of=big bs=1M count=100 2>&1", {timeoutMs: 60_000});
        assert.equal(r.killedReason, "file-size-limit", JSON.stringify(r));
    });

    it("passes only allowlisted environment variables and a private HOME", async () => {
        const secret = `s3cr3t-${marker()}`;
        process.env.NANO_TEST_SECRET = secret;
        try {
            const r = await sb.run("env", {env: {EXTRA: "given"}});
            assert.ok(!r.stdoutTail.includes(secret));
            assert.match(r.stdoutTail, /EXTRA=given/);
            assert.match(r.stdoutTail, /HOME=.*nano-sandbox-home-/);
        } finally {
            delete process.env.NANO_TEST_SECRET;
        }
    });

    it("keeps the working directory inside the workspace", async () => {
        const r = await sb.run("pwd", {cwd: "../.."});
        assert.equal(r.exitCode, null);
        assert.match(r.error ?? "", /outside the workspace|climbs out/);
        const ok = await sb.run("pwd", {cwd: "."});
        assert.equal(ok.stdoutTail.trim(), ws.dir);
    });

    it("reports a command that cannot start", async () => {
        const r = await sb.run(["/nonexistent/binary-xyz"]);
        assert.notEqual(r.exitCode, 0);
        const e = await sb.run("   ");
        assert.equal(e.error, "empty command");
    });
});
