// Checks a packaged .vsix on its own: unpacks it, loads node-llama-cpp from the package (not the repo), loads the
// factory model and generates a few tokens — proof that the binaries and dependencies the extension needs were shipped.
// usage: node --import tsx scripts/e2e/vsix-smoke.ts FILE.vsix        Closing line: "N passed, N failed".

import {execFileSync} from "node:child_process";
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {e2eModel} from "./setup";

const vsix = process.argv[2];
if (!vsix) throw new Error("usage: vsix-smoke.ts FILE.vsix");
const dir = mkdtempSync(join(tmpdir(), "nano-vsix-smoke-"));
let ok = false;
try {
    execFileSync("unzip", ["-q", vsix, "-d", dir]);
    const ext = join(dir, "extension");
    const pkg = JSON.parse(readFileSync(join(ext, "package.json"), "utf8")) as {main: string};
    for (const f of [pkg.main, "dist/webview.js", "media/panel.css", "media/icon.svg"]) readFileSync(join(ext, f));
    const model = e2eModel();
    // a child process, so that nothing resolves from the repo's node_modules
    const code = `const {getLlama, LlamaLogLevel} = await import(${JSON.stringify(join(ext, "node_modules/node-llama-cpp/dist/index.js"))});
const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
const m = await llama.loadModel({modelPath: ${JSON.stringify(model)}});
const ctx = await m.createContext({contextSize: 256, threads: 1});
const seq = ctx.getSequence();
let n = 0;
for await (const t of seq.evaluate(m.tokenize("hello"))) { if (++n >= 8) break; }
console.log("generated", n, "tokens with", llama.buildType, "binaries from", ${JSON.stringify(ext)});
await ctx.dispose(); await m.dispose(); await llama.dispose();`;
    // a file, not `-e`: node-llama-cpp forks itself to test its binary, and `--input-type` would leak into that fork
    writeFileSync(join(dir, "smoke.mjs"), code);
    const out = execFileSync(process.execPath, [join(dir, "smoke.mjs")], {cwd: dir, encoding: "utf8", env: {...process.env, NODE_PATH: ""}});
    process.stdout.write(out);
    ok = /generated 8 tokens/.test(out);
} catch (e) {
    console.log(`vsix smoke test failed: ${e instanceof Error ? e.message : String(e)}`);
} finally {
    rmSync(dir, {recursive: true, force: true});
}
console.log(ok ? "1 passed, 0 failed" : "0 passed, 1 failed");
process.exit(ok ? 0 : 1);
