// Owns noticing that the user ran the workspace's tests — a task in the Test group, or the test command in a terminal
// (shell integration) — and reporting pass / fail, so the session's trace gets its tests_passed / tests_failed label.

import * as vscode from "vscode";
import {detectTestCommand} from "../coder/tools/test_command";
import {runsTestCommand} from "./test-command-match";

export interface UserTestRunDeps {
    /** The configured test command, or "" to detect it. */
    testCommand(): string;
    workspace(): string | undefined;
    report(passed: boolean, command: string): void;
}

export function watchUserTestRuns(d: UserTestRunDeps): vscode.Disposable {
    const subs: vscode.Disposable[] = [];
    subs.push(vscode.tasks.onDidEndTaskProcess(e => {
        const task = e.execution.task;
        if (task.group?.id !== vscode.TaskGroup.Test.id || e.exitCode === undefined) return;
        d.report(e.exitCode === 0, task.name);
    }));
    subs.push(vscode.window.onDidEndTerminalShellExecution(async e => {
        if (e.exitCode === undefined) return;
        const line = e.execution.commandLine.value;
        const ws = d.workspace();
        const command = d.testCommand() || (ws ? (await detectTestCommand(ws))?.command : undefined);
        if (command && runsTestCommand(line, command)) d.report(e.exitCode === 0, line);
    }));
    return vscode.Disposable.from(...subs);
}
