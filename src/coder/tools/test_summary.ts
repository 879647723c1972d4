// Owns reading a pass/fail summary out of test-runner output: node:test / TAP, jest, vitest, mocha, pytest,
// unittest, cargo, go. Best effort: counts it cannot find stay undefined; the exit code remains the ground truth.

export interface TestSummary {
    framework?: string;
    passed?: number;
    failed?: number;
    skipped?: number;
    total?: number;
    /** Names of failed tests (at most 20). */
    failures: string[];
}

function num(re: RegExp, text: string): number | undefined {
    const m = re.exec(text);
    return m ? Number(m[1]) : undefined;
}

function sumAll(re: RegExp, text: string): number | undefined {
    let total: number | undefined;
    for (const m of text.matchAll(re)) total = (total ?? 0) + Number(m[1]);
    return total;
}

function names(re: RegExp, text: string): string[] {
    const out = new Set<string>();
    for (const m of text.matchAll(re)) { const n = m[1]!.trim(); if (n) out.add(n.slice(0, 200)); if (out.size >= 20) break; }
    return [...out];
}

export function parseTestOutput(output: string): TestSummary {
    const t = output.replace(/\x1b\[[0-9;]*m/g, ""); // eslint-disable-line no-control-regex
    // pytest: "=== 1 failed, 10 passed, 2 skipped in 0.12s ===" or "10 passed in 0.1s"
    const py = /(?:^|\n)=*\s*((?:\d+ (?:passed|failed|skipped|errors?|xfailed|xpassed|deselected|warnings?)(?:, )?)+) in [\d.]+s/.exec(t);
    if (py) {
        const s = py[1]!;
        const passed = num(/(\d+) passed/, s) ?? 0, failed = (num(/(\d+) failed/, s) ?? 0) + (num(/(\d+) errors?/, s) ?? 0), skipped = num(/(\d+) skipped/, s) ?? 0;
        return {framework: "pytest", passed, failed, skipped, total: passed + failed + skipped, failures: names(/^(?:FAILED|ERROR) (\S+)/gm, t)};
    }
    // jest: "Tests:       1 failed, 2 skipped, 10 passed, 13 total"
    const jest = /Tests:\s+(.*\d+ total)/.exec(t);
    if (jest) {
        const s = jest[1]!;
        return {framework: "jest", passed: num(/(\d+) passed/, s) ?? 0, failed: num(/(\d+) failed/, s) ?? 0, skipped: (num(/(\d+) skipped/, s) ?? 0) + (num(/(\d+) todo/, s) ?? 0), total: num(/(\d+) total/, s), failures: names(/^\s*● (.+?)\s*$/gm, t)};
    }
    // vitest: " Tests  1 failed | 10 passed (11)"
    const vi = /Tests\s+((?:\d+ \w+(?: \| )?)+)\s*\((\d+)\)/.exec(t);
    if (vi) {
        const s = vi[1]!;
        return {framework: "vitest", passed: num(/(\d+) passed/, s) ?? 0, failed: num(/(\d+) failed/, s) ?? 0, skipped: num(/(\d+) skipped/, s) ?? 0, total: Number(vi[2]), failures: names(/^\s*(?:FAIL|×)\s+(.+?)\s*$/gm, t)};
    }
    // node:test (spec reporter "ℹ pass 3") and TAP ("# pass 3")
    const nodePass = num(/^(?:ℹ|#) pass (\d+)/m, t);
    if (nodePass !== undefined) {
        const failed = num(/^(?:ℹ|#) fail (\d+)/m, t) ?? 0, skipped = (num(/^(?:ℹ|#) skipped (\d+)/m, t) ?? num(/^(?:ℹ|#) skip (\d+)/m, t) ?? 0) + (num(/^(?:ℹ|#) todo (\d+)/m, t) ?? 0);
        return {framework: "node:test", passed: nodePass, failed, skipped, total: num(/^(?:ℹ|#) tests (\d+)/m, t) ?? nodePass + failed + skipped, failures: names(/^\s*(?:✖|not ok \d+ -) (.+?)(?: \([\d.]+m?s\))?\s*$/gm, t).filter(n => !/^failing tests:?$/.test(n))};
    }
    // mocha: "10 passing (20ms)", "2 failing", "1 pending"
    const mocha = num(/^\s*(\d+) passing/m, t);
    if (mocha !== undefined) {
        const failed = num(/^\s*(\d+) failing/m, t) ?? 0, skipped = num(/^\s*(\d+) pending/m, t) ?? 0;
        return {framework: "mocha", passed: mocha, failed, skipped, total: mocha + failed + skipped, failures: names(/^\s*\d+\) (.+)$/gm, t)};
    }
    // cargo: "test result: FAILED. 10 passed; 1 failed; 0 ignored;" (one per test binary)
    if (/test result: (ok|FAILED)\./.test(t)) {
        const passed = sumAll(/test result: \w+\. (\d+) passed/g, t) ?? 0, failed = sumAll(/(\d+) failed;/g, t) ?? 0, skipped = sumAll(/(\d+) ignored;/g, t) ?? 0;
        return {framework: "cargo", passed, failed, skipped, total: passed + failed + skipped, failures: names(/^---- (\S+) stdout ----$/gm, t)};
    }
    // unittest: "Ran 12 tests in 0.01s" then "OK" or "FAILED (failures=1, errors=2, skipped=1)"
    const ran = num(/^Ran (\d+) tests? in/m, t);
    if (ran !== undefined) {
        const tail = /^(?:OK|FAILED)(?: \((.*)\))?\s*$/m.exec(t.slice(t.search(/^Ran \d+ tests? in/m)))?.[1] ?? "";
        const failed = (num(/failures=(\d+)/, tail) ?? 0) + (num(/errors=(\d+)/, tail) ?? 0), skipped = num(/skipped=(\d+)/, tail) ?? 0;
        return {framework: "unittest", passed: ran - failed - skipped, failed, skipped, total: ran, failures: names(/^(?:FAIL|ERROR): (.+)$/gm, t)};
    }
    // go: "--- FAIL: TestX (0.00s)", "--- PASS: TestY", "ok  	pkg	0.1s", "FAIL	pkg"
    if (/^(?:ok|FAIL|---)\s/m.test(t) && /(^|\n)(ok\s+\S+\s+[\d.]+s|FAIL\s+\S+|--- (PASS|FAIL):)/.test(t)) {
        const failures = names(/^\s*--- FAIL: (\S+)/gm, t);
        const passedTests = (t.match(/^\s*--- PASS: /gm) ?? []).length;
        const failed = failures.length || (t.match(/^FAIL\s+\S+/gm) ?? []).length;
        return {framework: "go", passed: passedTests || undefined, failed, failures};
    }
    // Plain TAP: "ok 1 - name" / "not ok 2 - name"
    const tapOk = (t.match(/^ok \d+/gm) ?? []).length, tapNot = (t.match(/^not ok \d+/gm) ?? []).length;
    if (tapOk + tapNot > 0) return {framework: "tap", passed: tapOk, failed: tapNot, total: tapOk + tapNot, failures: names(/^not ok \d+ -? ?(.+)$/gm, t)};
    return {failures: []};
}

/** "12 passed, 2 failed, 1 skipped (pytest)" — or undefined when nothing was recognised. */
export function describeSummary(s: TestSummary): string | undefined {
    if (s.passed === undefined && s.failed === undefined) return undefined;
    const parts = [`${s.passed ?? "?"} passed`, `${s.failed ?? 0} failed`];
    if (s.skipped) parts.push(`${s.skipped} skipped`);
    return `${parts.join(", ")}${s.framework ? ` (${s.framework})` : ""}`;
}
