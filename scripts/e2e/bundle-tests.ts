// Owns building the in-editor test suites: bundles test/e2e/ext/*.ts to CommonJS under out/e2e/ext/ (the extension
// host `require`s them), with `vscode`, mocha and native packages left to the runtime.

import {readdirSync, rmSync} from "node:fs";
import {join} from "node:path";
import * as esbuild from "esbuild";

export const EXT_TESTS_OUT = "out/e2e/ext";

export async function bundleExtTests(root: string): Promise<string> {
    const src = join(root, "test/e2e/ext");
    const out = join(root, EXT_TESTS_OUT);
    rmSync(out, {recursive: true, force: true});
    const entryPoints = readdirSync(src).filter(f => f === "index.ts" || f.endsWith(".test.ts")).map(f => join(src, f));
    await esbuild.build({
        entryPoints, outdir: out, bundle: true, platform: "node", target: "node20", format: "cjs", outExtension: {".js": ".cjs"},
        sourcemap: "inline", logLevel: "warning",
        external: ["vscode", "mocha", "node-llama-cpp", "@tensorflow/*", "execa"],
    });
    return join(out, "index.cjs");
}
