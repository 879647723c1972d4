// Test helper: a small toolbox registered in the real ToolRegistry (validation, approval policy), working on a real
// temporary folder: read_file, edit_file (exact match), run_tests (checks add.js in JS), run_command (real sandbox),
// finish. Enough for deterministic agent scenarios while the production tools are built elsewhere.

import {readFile, writeFile} from "node:fs/promises";
import {join} from "node:path";
import {ApprovalPolicy} from "../../../src/coder/approvals/policy";
import {ToolRegistry} from "../../../src/coder/tools/registry";
import type {Tool} from "../../../src/coder/tools/types";

const readFileTool: Tool<{path: string}> = {
    definition: {name: "read_file", description: "Read a file", approval: "never", readOnly: true, summarize: a => `read ${a.path}`,
        parameters: {type: "object", properties: {path: {type: "string"}}, required: ["path"], additionalProperties: false}},
    async run(a, ctx) {
        try { return {ok: true, observation: await readFile(join(ctx.workspace, a.path), "utf8")}; } catch (e) {
            return {ok: false, observation: `cannot read ${a.path}: ${(e as Error).message}`};
        }
    },
};

const editTool: Tool<{path: string; old: string; new: string}> = {
    definition: {name: "edit_file", description: "Replace exact text in a file", approval: "ask", readOnly: false, summarize: a => `edit ${a.path}`,
        parameters: {type: "object", properties: {path: {type: "string"}, old: {type: "string"}, new: {type: "string"}}, required: ["path", "old", "new"], additionalProperties: false}},
    async run(a, ctx) {
        const p = join(ctx.workspace, a.path);
        const text = await readFile(p, "utf8");
        if (!text.includes(a.old)) return {ok: false, observation: `edit_file: the text to replace was not found in ${a.path}. Read the file and copy the exact text.`};
        await writeFile(p, text.replace(a.old, a.new));
        return {ok: true, observation: `edited ${a.path}`};
    },
};

const testsTool: Tool<Record<string, never>> = {
    definition: {name: "run_tests", description: "Run the test suite", approval: "never", readOnly: true, summarize: () => "run tests",
        parameters: {type: "object", properties: {}, additionalProperties: false}},
    async run(_a, ctx) {
        const src = await readFile(join(ctx.workspace, "add.js"), "utf8");
        const pass = src.includes("a + b");
        return {ok: true, observation: pass ? "exit code 0\n1 passed" : "exit code 1\nFAIL add(2, 3): expected 5, got -1", data: {exitCode: pass ? 0 : 1}};
    },
};

const commandTool: Tool<{command: string}> = {
    definition: {name: "run_command", description: "Run a shell command", approval: "ask", readOnly: false, summarize: a => `$ ${a.command}`,
        parameters: {type: "object", properties: {command: {type: "string"}}, required: ["command"], additionalProperties: false}},
    async run(a, ctx) {
        const r = await ctx.sandbox.run(a.command, {signal: ctx.signal, onOutput: c => ctx.onOutput?.(c)});
        return {ok: r.killedReason !== "aborted", observation: `exit code ${r.exitCode}${r.killedReason ? ` (killed: ${r.killedReason})` : ""}\n${r.stdoutTail}${r.stderrTail}`};
    },
};

const finishTool: Tool<{summary: string}> = {
    definition: {name: "finish", description: "Finish with a summary", approval: "never", readOnly: true, summarize: a => `finish: ${a.summary}`,
        parameters: {type: "object", properties: {summary: {type: "string"}}, required: ["summary"], additionalProperties: false}},
    async run(a) { return {ok: true, observation: a.summary, finished: true}; },
};

export function fakeTools(policy = new ApprovalPolicy({allowCommands: ["echo"]})): ToolRegistry {
    return new ToolRegistry({policy}).register(readFileTool).register(editTool).register(testsTool).register(commandTool).register(finishTool);
}
