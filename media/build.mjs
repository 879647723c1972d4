// Builds the agent panel's script: media/main.ts (and the protocol types it imports) bundled for the browser into
// dist/webview.js. `webviewBuild` is the esbuild options, for esbuild.mjs to include; run directly, it builds once.
import * as esbuild from "esbuild";
import {dirname, join} from "node:path";
import {fileURLToPath} from "node:url";

export const webviewBuild = {
    entryPoints: ["media/main.ts"], outfile: "dist/webview.js", bundle: true, format: "iife", platform: "browser",
    target: "es2022", sourcemap: true, logLevel: "warning", absWorkingDir: join(dirname(fileURLToPath(import.meta.url)), ".."),
};

if (process.argv[1] === fileURLToPath(import.meta.url)) await esbuild.build(webviewBuild);
