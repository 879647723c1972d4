// Owns recognising a command line as a run of the workspace's test command (for labelling sessions with user test runs).

/** Whether `line` runs `testCommand`: the same words first ("npm test -- --grep x" runs "npm test"; npm's aliases count). */
export function runsTestCommand(line: string, testCommand: string): boolean {
    const words = (s: string) => s.trim().split(/\s+/).filter(Boolean);
    const want = words(testCommand), got = words(line);
    if (!want.length) return false;
    if (want.length === 2 && want[0] === "npm" && want[1] === "test" && got[0] === "npm" && ["t", "tst", "test"].includes(got[1] ?? "")) return true;
    return want.every((w, i) => got[i] === w);
}
