#!/usr/bin/env node
// Entry point of the `nano-coder` CLI: runs the bundled CLI built by `npm ci` (prepare) or `npm run build`.
import {existsSync} from "node:fs";
const cli = new URL("../dist/cli.mjs", import.meta.url);
if (!existsSync(cli)) {
    console.error("nano-coder: dist/cli.mjs is missing; run `npm run build` in the package folder first.");
    process.exit(2);
}
await import(cli.href);
