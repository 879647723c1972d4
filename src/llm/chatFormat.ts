// Owns chat formats: how a conversation (system, user, assistant, tool messages + offered tools) becomes the text a
// model was trained on, and the incremental rule that turns "the conversation grew" into "append these tokens".
// Built in: ChatML with Qwen2.5/Hermes tool calling (exactly what Qwen2.5's own template renders). Model templates
// rendered through Jinja live in jinjaFormat.ts.

import {NanoError} from "../common/errors";
import {HERMES_SYNTAX, type ToolCallSyntax, type ToolSpec} from "./grammar/toolCall";

export type ChatRole = "system" | "user" | "assistant" | "tool";

export interface ChatMessage {
    role: ChatRole;
    /** For assistant messages: the raw text the model generated (tool-call envelope included, end-of-turn excluded). */
    content: string;
}

export interface ChatFormat {
    readonly name: string;
    readonly syntax: ToolCallSyntax;
    /** Text of the end-of-turn token that closes an assistant message, e.g. "<|im_end|>". */
    readonly endOfTurn: string;
    /** The conversation as the model's template renders it, special tokens as text. */
    render(messages: readonly ChatMessage[], tools: readonly ToolSpec[], addGenerationPrompt: boolean): string;
}

/** Python `json.dumps` layout (", " and ": "), as Jinja's `tojson` renders tool signatures in HF templates. */
export function pyJson(v: unknown): string {
    if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
    if (Array.isArray(v)) return `[${v.map(pyJson).join(", ")}]`;
    return `{${Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined)
        .map(([k, x]) => `${JSON.stringify(k)}: ${pyJson(x)}`).join(", ")}}`;
}

/** The OpenAI / HF `tools` list entry for a tool. */
export function toolEntry(t: ToolSpec): object {
    return {type: "function", function: {name: t.name, description: t.description, parameters: t.parameters}};
}

/** Qwen2.5's tool instructions, appended to the system message when tools are offered. */
export function hermesToolsBlock(tools: readonly ToolSpec[]): string {
    return "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
        "You are provided with function signatures within <tools></tools> XML tags:\n<tools>" +
        tools.map(t => `\n${pyJson(toolEntry(t))}`).join("") +
        "\n</tools>\n\nFor each function call, return a json object with function name and arguments within " +
        "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>";
}

/** ChatML with Hermes-style tool calls; tool results go back as `<tool_response>` blocks in a user turn. */
export const chatmlHermes: ChatFormat = {
    name: "chatml-hermes",
    syntax: HERMES_SYNTAX,
    endOfTurn: "<|im_end|>",
    render(messages, tools, addGenerationPrompt) {
        let out = "";
        messages.forEach((m, i) => {
            if (m.role === "tool") {
                if (messages[i - 1]?.role !== "tool") out += "<|im_start|>user";
                out += `\n<tool_response>\n${m.content}\n</tool_response>`;
                if (messages[i + 1]?.role !== "tool") out += "<|im_end|>\n";
                return;
            }
            const content = m.role === "system" && i === 0 && tools.length ? m.content + hermesToolsBlock(tools) : m.content;
            out += `<|im_start|>${m.role}\n${content}<|im_end|>\n`;
        });
        if (tools.length && messages[0]?.role !== "system") out = `<|im_start|>system\nYou are a helpful assistant.${hermesToolsBlock(tools)}<|im_end|>\n${out}`;
        return addGenerationPrompt ? out + "<|im_start|>assistant\n" : out;
    },
};

/** A piece of rendered text: template glue (special tokens parsed) or message content (always plain text). */
export interface TextPart {
    text: string;
    special: boolean;
    /** For content parts: the role of the message it came from. */
    role?: ChatRole;
}

const TURN_END = "\u0001nano-coder-turn-end\u0001";
const contentMark = (i: number) => `\u0001nano-coder-content-${i}\u0001`;
const CONTENT_RE = /\u0001nano-coder-content-(\d+)\u0001/;

/**
 * The text to append to a context that holds `history` — whose last message is an assistant turn already in the
 * context as generated, up to and including its end-of-turn token — so that it then holds `history + added` and a
 * generation prompt. With an empty history: the whole rendered prompt.
 *
 * Rendering is done with sentinels in place of message contents: the last assistant content (so templates that
 * normalize content cannot misalign the cut) and every added content (so user data is tokenized as plain text:
 * a file containing "<|im_end|>" cannot end a turn).
 */
export function continuation(format: ChatFormat, history: readonly ChatMessage[], added: readonly ChatMessage[], tools: readonly ToolSpec[]): TextPart[] {
    const marked = added.map((m, i) => ({role: m.role, content: contentMark(i)}));
    let text: string;
    if (history.length === 0) text = format.render(marked, tools, true);
    else {
        const last = history[history.length - 1]!;
        if (last.role !== "assistant") throw new NanoError("chat-format", "the context must end with an assistant turn before new messages are added");
        const full = format.render([...history.slice(0, -1), {role: "assistant", content: TURN_END}, ...marked], tools, true);
        let at = full.lastIndexOf(TURN_END);
        if (at < 0) throw new NanoError("chat-format", `the ${format.name} template dropped the assistant message`);
        at += TURN_END.length;
        if (full.startsWith(format.endOfTurn, at)) at += format.endOfTurn.length;
        text = full.slice(at);
    }
    const parts: TextPart[] = [];
    text.split(CONTENT_RE).forEach((piece, i) => {
        if (i % 2 === 1) parts.push({text: added[Number(piece)]!.content, special: false, role: added[Number(piece)]!.role});
        else if (piece) parts.push({text: piece, special: true});
    });
    return parts.filter(p => p.text !== "");
}

export const partsText = (parts: readonly TextPart[]) => parts.map(p => p.text).join("");
