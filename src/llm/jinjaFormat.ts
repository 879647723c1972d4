// Owns chat formats rendered by a model's own Jinja chat template (tokenizer.chat_template in the GGUF), and the
// choice of format for a model: Qwen2.5 / Hermes templates and Llama 3.x templates with their native tool-call
// syntax, plain ChatML templates (the factory models) through the built-in ChatML + Hermes format.

import {Template} from "@huggingface/jinja";
import {chatmlHermes, hermesToolsBlock, toolEntry, type ChatFormat, type ChatMessage} from "./chatFormat";
import {HERMES_SYNTAX, LLAMA3_SYNTAX, type ToolCallSyntax, type ToolSpec} from "./grammar/toolCall";

export interface JinjaFormatOptions {
    name: string;
    template: string;
    syntax: ToolCallSyntax;
    endOfTurn: string;
    bosToken?: string;
    eosToken?: string;
    /** Template renders `tools` itself; otherwise the Hermes tool block is added to the system message. */
    nativeTools: boolean;
}

export function jinjaChatFormat(o: JinjaFormatOptions): ChatFormat {
    const tpl = new Template(o.template);
    return {
        name: o.name, syntax: o.syntax, endOfTurn: o.endOfTurn,
        render(messages: readonly ChatMessage[], tools: readonly ToolSpec[], addGenerationPrompt: boolean) {
            let msgs = messages.map(m => ({role: m.role, content: m.content}));
            if (!o.nativeTools && tools.length) {
                const block = hermesToolsBlock(tools);
                msgs = msgs[0]?.role === "system"
                    ? [{role: "system", content: msgs[0].content + block}, ...msgs.slice(1)]
                    : [{role: "system", content: `You are a helpful assistant.${block}`}, ...msgs];
            }
            return tpl.render({
                messages: msgs,
                ...(o.nativeTools && tools.length ? {tools: tools.map(toolEntry)} : {}),
                add_generation_prompt: addGenerationPrompt,
                bos_token: o.bosToken ?? "", eos_token: o.eosToken ?? "",
                // Llama 3.x templates: keep tool definitions in the system message rather than the first user turn.
                tools_in_user_message: false,
                date_string: "26 Jul 2024",
            });
        },
    };
}

/**
 * The chat format for a model, from its chat template and special-token texts.
 * - Llama 3.x (`<|start_header_id|>`): the template, JSON tool calls, `<|eot_id|>`.
 * - ChatML with native `<tool_call>` support (Qwen2.5): the template itself.
 * - ChatML without tool support, or no template: the built-in ChatML + Hermes format (same text Qwen2.5 renders).
 * - Any other template: the template, with the Hermes tool block in the system message.
 */
export function resolveChatFormat(template: string | undefined, tokens: {bos?: string; eos?: string} = {}): ChatFormat {
    if (!template) return chatmlHermes;
    if (template.includes("<|start_header_id|>")) {
        return jinjaChatFormat({name: "llama3", template, syntax: LLAMA3_SYNTAX, endOfTurn: "<|eot_id|>",
            bosToken: tokens.bos, eosToken: tokens.eos, nativeTools: /\btools\b/.test(template)});
    }
    if (template.includes("<|im_start|>")) {
        if (template.includes("<tool_call>") && /\btools\b/.test(template))
            return jinjaChatFormat({name: "qwen-template", template, syntax: HERMES_SYNTAX, endOfTurn: "<|im_end|>",
                bosToken: tokens.bos, eosToken: tokens.eos, nativeTools: true});
        return chatmlHermes;
    }
    return jinjaChatFormat({name: "template", template, syntax: HERMES_SYNTAX, endOfTurn: tokens.eos ?? "",
        bosToken: tokens.bos, eosToken: tokens.eos, nativeTools: false});
}
