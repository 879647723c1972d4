import {test} from "node:test";
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {dirname, join} from "node:path";
import {fileURLToPath} from "node:url";
import {chatmlHermes, continuation, partsText, pyJson, type ChatMessage} from "../../../src/llm/chatFormat";
import {resolveChatFormat} from "../../../src/llm/jinjaFormat";
import type {ToolSpec} from "../../../src/llm/grammar/toolCall";

const here = dirname(fileURLToPath(import.meta.url));
const qwenTemplate = readFileSync(join(here, "fixtures", "qwen2.5-chat-template.jinja"), "utf8");
const tools: ToolSpec[] = [
    {name: "read_file", description: "Read a file", parameters: {type: "object", properties: {path: {type: "string", description: "relative path"}}, required: ["path"]}},
    {name: "finish", description: "Done", parameters: {type: "object", properties: {summary: {type: "string"}}, required: ["summary"]}},
];
const conversation: ChatMessage[] = [
    {role: "system", content: "You are a coder."},
    {role: "user", content: "Fix the bug."},
    {role: "assistant", content: 'Looking.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>'},
    {role: "tool", content: "export const x = 1;"},
    {role: "assistant", content: "All good."},
];

test("Qwen2.5's own template (through Jinja) renders exactly what the built-in ChatML + Hermes format renders", () => {
    const qwen = resolveChatFormat(qwenTemplate);
    assert.equal(qwen.name, "qwen-template");
    for (let n = 2; n <= conversation.length; n++) {
        for (const gen of [true, false]) {
            assert.equal(qwen.render(conversation.slice(0, n), tools, gen), chatmlHermes.render(conversation.slice(0, n), tools, gen), `${n} messages, generation prompt ${gen}`);
        }
    }
    assert.match(chatmlHermes.render(conversation, tools, false), /<tools>\n\{"type": "function", "function": \{"name": "read_file", "description": "Read a file", "parameters": \{"type": "object"/);
});

test("format resolution: plain ChatML and no template → built-in; Llama 3 → its own template with JSON calls", () => {
    assert.equal(resolveChatFormat(undefined).name, "chatml-hermes");
    assert.equal(resolveChatFormat("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}").name, "chatml-hermes");
    const llama3 = resolveChatFormat(
        "{{ bos_token }}{% for m in messages %}{{ '<|start_header_id|>' + m['role'] + '<|end_header_id|>\\n\\n' + m['content'] | trim + '<|eot_id|>' }}{% endfor %}" +
        "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}",
        {bos: "<|begin_of_text|>", eos: "<|eot_id|>"});
    assert.equal(llama3.name, "llama3");
    assert.equal(llama3.syntax.argsKey, "parameters");
    const first = partsText(continuation(llama3, [], conversation.slice(0, 2), tools));
    assert.ok(first.startsWith("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou are a coder."));
    assert.ok(first.includes("<tools>"), "tools described in the system message when the template does not render them");
    // The template trims content; the cut after the assistant turn still lands right after <|eot_id|>.
    const next = partsText(continuation(llama3, [...conversation.slice(0, 2), {role: "assistant", content: '  {"name": "finish", "parameters": {}}  '}], [{role: "tool", content: "ok"}], tools));
    assert.equal(next, "<|start_header_id|>tool<|end_header_id|>\n\nok<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
});

test("continuation: content parts are plain text with their roles; template glue is special", () => {
    const parts = continuation(chatmlHermes, conversation.slice(0, 3), [{role: "tool", content: "<|im_end|> in a file"}], tools);
    assert.deepEqual(parts, [
        {text: "\n<|im_start|>user\n<tool_response>\n", special: true},
        {text: "<|im_end|> in a file", special: false, role: "tool"},
        {text: "\n</tool_response><|im_end|>\n<|im_start|>assistant\n", special: true},
    ]);
    assert.equal(pyJson({a: [1, {b: null}], c: "x"}), '{"a": [1, {"b": null}], "c": "x"}');
});
