// Bundles the extension (CommonJS, as VS Code loads it), the CLI (ESM) and the webview script (browser IIFE).
// `vscode` is provided by the editor; node-llama-cpp and the tfjs backends carry native/wasm
// binaries that must stay as files in node_modules, so they are external too.
import * as esbuild from "esbuild";
import {webviewBuild} from "./media/build.mjs";

const external = ["vscode", "node-llama-cpp", "@tensorflow/*", "execa"];
const common = {bundle: true, platform: "node", target: "node20", sourcemap: true, external, logLevel: "warning"};
const watch = process.argv.includes("--watch");

const builds = [
    {...common, entryPoints: ["src/extension.ts"], outfile: "dist/extension.cjs", format: "cjs"},
    {...common, entryPoints: ["src/cli.ts"], outfile: "dist/cli.mjs", format: "esm",
        banner: {js: "import {createRequire as __cr} from 'node:module'; const require = __cr(import.meta.url);"}},
    // The agent panel's script, for the browser (media/ imports only src/protocol/).
    webviewBuild,
];
if (watch) {
    for (const b of builds) await (await esbuild.context(b)).watch();
} else {
    await Promise.all(builds.map(b => esbuild.build(b)));
}
