// Owns the throwaway workspaces end-to-end runs open: a fresh copy of test/e2e/fixtures/workspace per run.

import {cpSync, mkdtempSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";

export function freshWorkspace(root: string, name = "ws"): string {
    const dir = mkdtempSync(join(process.env.NANO_E2E_TMP ?? tmpdir(), `nano-e2e-${name}-`));
    cpSync(join(root, "test/e2e/fixtures/workspace"), dir, {recursive: true});
    return dir;
}
