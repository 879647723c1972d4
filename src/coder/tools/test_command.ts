// Owns finding a workspace's test command from its files (package.json, pytest/unittest, Cargo, Go, Makefile).
// A configured command always wins (the caller passes it); this is the fallback guess, with where it came from.

import {readdir, readFile} from "node:fs/promises";
import {join} from "node:path";

export interface DetectedTestCommand { command: string; source: string }

async function text(p: string): Promise<string | undefined> {
    try { return await readFile(p, "utf8"); } catch { return undefined; }
}

async function exists(dir: string, name: string): Promise<boolean> {
    return (await text(join(dir, name))) !== undefined;
}

const npmDefault = /no test specified/;

export async function detectTestCommand(workspace: string): Promise<DetectedTestCommand | undefined> {
    const pkg = await text(join(workspace, "package.json"));
    if (pkg) {
        let test: unknown;
        try { test = (JSON.parse(pkg) as {scripts?: Record<string, unknown>}).scripts?.test; } catch { test = undefined; }
        if (typeof test === "string" && test.trim() && !npmDefault.test(test)) {
            const pm = await exists(workspace, "pnpm-lock.yaml") ? "pnpm" : await exists(workspace, "yarn.lock") ? "yarn" : "npm";
            return {command: `${pm} test`, source: `package.json scripts.test (${test})`};
        }
    }
    const pyproject = await text(join(workspace, "pyproject.toml"));
    const pytestConfigured = (await exists(workspace, "pytest.ini")) || (await exists(workspace, "conftest.py"))
        || /\[tool\.pytest/.test(pyproject ?? "") || /\[(tool:)?pytest\]/.test((await text(join(workspace, "setup.cfg"))) ?? "")
        || /\[pytest\]/.test((await text(join(workspace, "tox.ini"))) ?? "")
        || /^\s*pytest\b/m.test((await text(join(workspace, "requirements-dev.txt"))) ?? "") || /^\s*pytest\b/m.test((await text(join(workspace, "requirements.txt"))) ?? "");
    if (pytestConfigured) return {command: "python3 -m pytest -q", source: "pytest configuration"};
    if (await exists(workspace, "Cargo.toml")) return {command: "cargo test", source: "Cargo.toml"};
    if (await exists(workspace, "go.mod")) return {command: "go test ./...", source: "go.mod"};
    const make = await text(join(workspace, "Makefile"));
    if (make && /^test\s*:/m.test(make)) return {command: "make test", source: "Makefile target test"};
    if (await hasPythonTests(workspace)) return {command: "python3 -m unittest discover -v", source: "test_*.py files"};
    return undefined;
}

async function hasPythonTests(workspace: string): Promise<boolean> {
    for (const dir of [workspace, join(workspace, "tests"), join(workspace, "test")]) {
        try { if ((await readdir(dir)).some(n => /^test_.*\.py$|_test\.py$/.test(n))) return true; } catch { /* none */ }
    }
    return false;
}
