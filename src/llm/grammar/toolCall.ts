// Owns the tool-call grammar: the envelope a chat format uses for a call (Qwen/Hermes `<tool_call>` tags, or a bare
// JSON object for Llama 3) around a union over the offered tools of {"name": const, "arguments": schema}, and the
// parser that reads a finished call back. Knows nothing of tokens or models.

import {alt, lit, seq, type G} from "./matcher";
import {schemaGrammar, type JsonSchema} from "./schema";

export interface ToolSpec {
    name: string;
    description: string;
    /** JSON Schema of the arguments object. */
    parameters: JsonSchema;
}

export interface ToolCallSyntax {
    /** Text that, once the model writes it, opens a call; every call text starts with it. */
    trigger: string;
    /** Call text = before + JSON + after (`before` starts with `trigger`). */
    before: string;
    after: string;
    /** Key of the arguments object in the call JSON. */
    argsKey: string;
    /** The trigger only counts at the very start of a turn (bare-JSON formats). */
    atTurnStart: boolean;
}

/** Qwen2.5 / Hermes: `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`. */
export const HERMES_SYNTAX: ToolCallSyntax = {
    trigger: "<tool_call>", before: "<tool_call>\n", after: "\n</tool_call>", argsKey: "arguments", atTurnStart: false,
};

/** Llama 3.1 JSON tool calls: the whole message is `{"name": …, "parameters": {…}}`. */
export const LLAMA3_SYNTAX: ToolCallSyntax = {
    trigger: "{\"name\": \"", before: "", after: "", argsKey: "parameters", atTurnStart: true,
};

/** Grammar of one complete call text (envelope included) to any of `tools`. */
export function toolCallGrammar(tools: readonly ToolSpec[], syntax: ToolCallSyntax): G {
    if (tools.length === 0) throw new Error("a tool-call grammar needs at least one tool");
    const calls = tools.map(t => seq(
        lit(`{"name": ${JSON.stringify(t.name)}, ${JSON.stringify(syntax.argsKey)}: `),
        schemaGrammar(t.parameters),
        lit("}"),
    ));
    return seq(lit(syntax.before), alt(...calls), lit(syntax.after));
}

export interface ParsedToolCall {
    name: string;
    args: Record<string, unknown>;
    /** The JSON text of the arguments object as the model wrote it. */
    argsText: string;
}

/** Reads a call text produced under the grammar (or any text holding one); undefined if it holds none. */
export function parseToolCall(text: string, syntax: ToolCallSyntax): ParsedToolCall | undefined {
    const start = text.indexOf(syntax.before);
    if (start < 0) return undefined;
    let body = text.slice(start + syntax.before.length);
    if (syntax.after) {
        const end = body.lastIndexOf(syntax.after);
        if (end < 0) return undefined;
        body = body.slice(0, end);
    }
    let parsed: unknown;
    try { parsed = JSON.parse(body.trim()); } catch { return undefined; }
    if (!parsed || typeof parsed !== "object") return undefined;
    const {name} = parsed as {name?: unknown};
    const args = (parsed as Record<string, unknown>)[syntax.argsKey];
    if (typeof name !== "string" || !args || typeof args !== "object" || Array.isArray(args)) return undefined;
    const key = `${JSON.stringify(syntax.argsKey)}: `;
    const at = body.indexOf(key);
    const argsText = at >= 0 ? body.slice(at + key.length, body.lastIndexOf("}")).trim() : JSON.stringify(args);
    return {name, args: args as Record<string, unknown>, argsText};
}
