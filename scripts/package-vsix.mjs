// Builds the extension and packages it as a .vsix for the current platform (`npm run package`): node-llama-cpp's
// prebuilt binaries for this platform only (CPU, plus Vulkan on Linux/Windows; CUDA with --cuda), nothing of the
// others. Prints the file and its size. usage: node scripts/package-vsix.mjs [--cuda] [--out FILE]
import {execFileSync} from "node:child_process";
import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync} from "node:fs";
import {tmpdir} from "node:os";
import {dirname, join} from "node:path";
import {fileURLToPath} from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const cuda = args.includes("--cuda");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

// VS Code's platform target and the node-llama-cpp binary packages that serve it
const target = `${process.platform === "win32" ? "win32" : process.platform}-${process.arch}`;
const llamaPlatform = {
    "linux-x64": ["linux-x64", "linux-x64-vulkan", ...(cuda ? ["linux-x64-cuda", "linux-x64-cuda-ext"] : [])],
    "linux-arm64": ["linux-arm64"], "linux-armhf": ["linux-armv7l"],
    "darwin-arm64": ["mac-arm64-metal"], "darwin-x64": ["mac-x64"],
    "win32-x64": ["win-x64", "win-x64-vulkan", ...(cuda ? ["win-x64-cuda", "win-x64-cuda-ext"] : [])], "win32-arm64": ["win-arm64"],
}[target];
if (!llamaPlatform) throw new Error(`no node-llama-cpp binaries for ${target}`);
const outIdx = args.indexOf("--out");
const out = outIdx >= 0 ? args[outIdx + 1] : join(root, `${pkg.name}-${target}-${pkg.version}.vsix`);

const t0 = Date.now();
const run = (cmd, argv) => execFileSync(cmd, argv, {cwd: root, stdio: "inherit"});
run(process.execPath, ["esbuild.mjs"]);
run(process.execPath, ["media/build.mjs"]);

const installed = readdirSync(join(root, "node_modules/@node-llama-cpp"));
const missing = llamaPlatform.filter(p => !installed.includes(p));
if (missing.length) console.warn(`warning: not installed, so not packaged: ${missing.map(m => `@node-llama-cpp/${m}`).join(", ")}`);
const ignore = [readFileSync(join(root, ".vscodeignore"), "utf8"), "# other platforms (added by scripts/package-vsix.mjs)",
    ...installed.filter(p => !llamaPlatform.includes(p)).map(p => `node_modules/@node-llama-cpp/${p}/**`)].join("\n");
const tmp = mkdtempSync(join(tmpdir(), "nano-vsix-"));
const ignoreFile = join(tmp, ".vscodeignore");
writeFileSync(ignoreFile, ignore);
try {
    run(process.execPath, [join(root, "node_modules/@vscode/vsce/vsce"), "package", "--target", target, "--out", out, "--ignoreFile", ignoreFile,
        "--allow-missing-repository", "--skip-license", "--allow-star-activation"]);
} finally {
    rmSync(tmp, {recursive: true, force: true});
}
const mib = (statSync(out).size / 1024 ** 2).toFixed(1);
console.log(`packaged ${out} (${mib} MiB, ${target}, node-llama-cpp: ${llamaPlatform.filter(p => installed.includes(p)).join(", ")}) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
