// Owns the default tool set (createDefaultTools) and the tools module's public surface.

import type {ApprovalPolicy} from "../approvals/policy";
import {editFileTool} from "./edit_file";
import {finishTool} from "./finish";
import {listFilesTool} from "./list_files";
import {readFileTool, type ReadFileOptions} from "./read_file";
import {ToolRegistry} from "./registry";
import {runCommandTool} from "./run_command";
import {runTestsTool} from "./run_tests";
import {searchTool} from "./search";
import {writeFileTool} from "./write_file";

export interface DefaultToolsOptions {
    /** Default: read-only tools run, writes and commands ask. */
    policy?: ApprovalPolicy;
    /** The configured test command for run_tests (otherwise detected). */
    testCommand?: string;
    /** run_command's default timeout, seconds (default 60). */
    commandTimeoutS?: number;
    read?: ReadFileOptions;
    /** Use ripgrep for search when installed (default true). */
    ripgrep?: boolean;
    maxObservationChars?: number;
}

/** read_file, list_files, search, write_file, edit_file, run_command, run_tests, finish. */
export function createDefaultTools(opts: DefaultToolsOptions = {}): ToolRegistry {
    return new ToolRegistry({policy: opts.policy, maxObservationChars: opts.maxObservationChars})
        .register(readFileTool(opts.read))
        .register(listFilesTool())
        .register(searchTool({ripgrep: opts.ripgrep}))
        .register(writeFileTool())
        .register(editFileTool())
        .register(runCommandTool({defaultTimeoutS: opts.commandTimeoutS}))
        .register(runTestsTool({testCommand: opts.testCommand}))
        .register(finishTool());
}

export {ToolRegistry, schemaHint, type RegistryOptions, type RefusalData} from "./registry";
export {formatRun} from "./run_command";
export type {Tool, ToolDefinition, ToolContext, ToolResult, JSONSchema, ApprovalClass, ApprovalRequest} from "./types";
