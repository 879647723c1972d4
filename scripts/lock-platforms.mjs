// Keeps package-lock.json installable with `npm ci`: the registry these machines reach lacks some platform
// packages of node-llama-cpp at our version (mac/win/riscv64), so `npm install` leaves them out of the lock and
// `npm ci` then refuses the lock ("Missing: … from lock file"). This adds each missing optional platform package
// with its os/cpu constraints; `npm ci` skips them on other platforms without fetching anything.
// usage: node scripts/lock-platforms.mjs [--check]   (--check: exit 1 if the lock needs fixing; used by lint)
import {readFileSync, writeFileSync} from "node:fs";

const check = process.argv.includes("--check");
const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
const pkgs = lock.packages;
const missing = [];
for (const [path, entry] of Object.entries(pkgs)) {
    for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
        const key = `node_modules/${name}`;
        if (pkgs[key] || !name.startsWith("@node-llama-cpp/")) continue;
        const m = /^(linux|mac|win)-(x64|arm64|armv7l|riscv64)/.exec(name.slice("@node-llama-cpp/".length));
        if (!m) throw new Error(`${path}: cannot infer the platform of ${name}`);
        const os = {linux: "linux", mac: "darwin", win: "win32"}[m[1]];
        const cpu = m[2] === "armv7l" ? "arm" : m[2];
        missing.push(key);
        pkgs[key] = {version, cpu: [cpu], license: "MIT", optional: true, os: [os], engines: {node: ">=20.0.0"}};
    }
}
if (check) {
    if (missing.length) {
        console.error(`package-lock.json lacks ${missing.length} optional platform packages (npm ci would fail): run node scripts/lock-platforms.mjs`);
        process.exit(1);
    }
} else if (missing.length) {
    lock.packages = Object.fromEntries(Object.entries(pkgs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    writeFileSync("package-lock.json", JSON.stringify(lock, null, 2) + "\n");
    console.log(`added ${missing.length} platform entries to package-lock.json`);
} else console.log("package-lock.json: all platform packages present");
