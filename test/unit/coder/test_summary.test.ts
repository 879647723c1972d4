// Pass/fail summaries read from the output of common test runners.

import {describe, it} from "node:test";
import assert from "node:assert/strict";
import {describeSummary, parseTestOutput} from "../../../src/coder/tools/test_summary";

const samples: [string, string, Partial<ReturnType<typeof parseTestOutput>>][] = [
    ["pytest", "tests/test_a.py ..F\nFAILED tests/test_a.py::test_sub - assert 0 == 5\n===== 1 failed, 2 passed, 1 skipped in 0.12s =====\n",
        {framework: "pytest", passed: 2, failed: 1, skipped: 1, total: 4, failures: ["tests/test_a.py::test_sub"]}],
    ["pytest all passed", "....\n4 passed in 0.01s\n", {framework: "pytest", passed: 4, failed: 0}],
    ["jest", "  ● Math › subtracts\n\nTests:       1 failed, 1 skipped, 10 passed, 12 total\n", {framework: "jest", passed: 10, failed: 1, skipped: 1, total: 12, failures: ["Math › subtracts"]}],
    ["vitest", " FAIL  src/a.test.ts > math > subtracts\n Test Files  1 failed (1)\n      Tests  1 failed | 3 passed (4)\n", {framework: "vitest", passed: 3, failed: 1, total: 4}],
    ["node:test spec", "✔ adds (0.5ms)\n✖ subtracts (1.2ms)\nℹ tests 3\nℹ pass 1\nℹ fail 1\nℹ skipped 1\n✖ failing tests:\n\n✖ subtracts (1.2ms)\n",
        {framework: "node:test", passed: 1, failed: 1, skipped: 1, total: 3, failures: ["subtracts"]}],
    ["TAP from node", "not ok 2 - subtracts\n# tests 2\n# pass 1\n# fail 1\n", {framework: "node:test", passed: 1, failed: 1, failures: ["subtracts"]}],
    ["mocha", "  3 passing (20ms)\n  1 pending\n  2 failing\n\n  1) math\n       subtracts:\n", {framework: "mocha", passed: 3, failed: 2, skipped: 1}],
    ["cargo", "---- tests::sub stdout ----\ntest result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured\ntest result: ok. 2 passed; 0 failed; 1 ignored; 0 measured\n",
        {framework: "cargo", passed: 5, failed: 1, skipped: 1, failures: ["tests::sub"]}],
    ["unittest", "FAIL: test_sub (test_m.T.test_sub)\n----\nRan 5 tests in 0.002s\n\nFAILED (failures=1, errors=1, skipped=1)\n", {framework: "unittest", passed: 2, failed: 2, skipped: 1, total: 5}],
    ["unittest ok", "Ran 3 tests in 0.001s\n\nOK\n", {framework: "unittest", passed: 3, failed: 0}],
    ["go", "=== RUN   TestAdd\n--- PASS: TestAdd (0.00s)\n--- FAIL: TestSub (0.00s)\nFAIL\nFAIL\texample.com/m\t0.01s\n", {framework: "go", passed: 1, failed: 1, failures: ["TestSub"]}],
    ["plain TAP", "ok 1 - a\nnot ok 2 - b\nok 3 - c\n", {framework: "tap", passed: 2, failed: 1, failures: ["b"]}],
    ["colours", "\x1b[32m4 passed\x1b[0m in 0.01s\n", {framework: "pytest", passed: 4}],
];

describe("parseTestOutput", () => {
    for (const [name, text, expected] of samples) {
        it(name, () => {
            const s = parseTestOutput(text);
            for (const [k, v] of Object.entries(expected)) assert.deepEqual(s[k as keyof typeof s], v, `${name}: ${k}`);
        });
    }
    it("recognises nothing in arbitrary output", () => {
        const s = parseTestOutput("compiling...\ndone\n");
        assert.deepEqual(s, {failures: []});
        assert.equal(describeSummary(s), undefined);
    });
    it("describes a summary in one line", () => {
        assert.equal(describeSummary({framework: "pytest", passed: 2, failed: 1, skipped: 1, failures: []}), "2 passed, 1 failed, 1 skipped (pytest)");
    });
});
