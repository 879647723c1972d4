import {test} from "node:test";
import assert from "node:assert/strict";
import {MatchState} from "../../../src/llm/grammar/matcher";
import {schemaGrammar, type JsonSchema} from "../../../src/llm/grammar/schema";
import {HERMES_SYNTAX, LLAMA3_SYNTAX, parseToolCall, toolCallGrammar, type ToolSpec} from "../../../src/llm/grammar/toolCall";
import {TokenMasker} from "../../../src/llm/grammar/tokenMask";
import {scriptedVocabulary} from "../../../src/llm/scripted";

const accepts = (schema: JsonSchema, text: string) => MatchState.start(schemaGrammar(schema)).feed(text)?.accepting ?? false;
const prefixOk = (schema: JsonSchema, text: string) => MatchState.start(schemaGrammar(schema)).feed(text) !== undefined;

const tools: ToolSpec[] = [
    {name: "read_file", description: "Read a file", parameters: {type: "object", properties: {path: {type: "string"}, start: {type: "integer"}, end: {type: "integer"}}, required: ["path"]}},
    {name: "run", description: "Run a command", parameters: {type: "object", properties: {command: {type: "string"}, timeout: {type: "number"}, mode: {enum: ["fast", "slow"]}}, required: ["command"]}},
    {name: "finish", description: "Done", parameters: {type: "object", properties: {}}},
];

test("schema grammar: canonical objects with required and optional keys in order", () => {
    const s = tools[0]!.parameters;
    assert.ok(accepts(s, '{"path": "a.ts"}'));
    assert.ok(accepts(s, '{"path": "a.ts", "start": 3, "end": -10}'));
    assert.ok(accepts(s, '{"path": "a.ts", "end": 10}'));
    assert.ok(!accepts(s, '{"start": 3}'), "required key missing");
    assert.ok(!prefixOk(s, '{"end": 1, "path"'), "keys in schema order");
    assert.ok(!prefixOk(s, '{"path":"a"'), "canonical separators");
    assert.ok(!prefixOk(s, '{"path": "a", "start": 1.5'), "integers have no fraction");
    assert.ok(!prefixOk(s, '{"path": "a", "other"'), "no undeclared keys");
    assert.ok(prefixOk(s, '{"path": "a\\n\\"\\u00e9"'), "escapes");
    assert.ok(!prefixOk(s, '{"path": "a\nb'), "raw control characters are not JSON");
    assert.ok(!prefixOk(s, '{"path": "a\\x'), "bad escape");
});

test("schema grammar: numbers, enums, booleans, arrays, unions and free-form values", () => {
    assert.ok(accepts({type: "number"}, "-0.5e+10"));
    assert.ok(!prefixOk({type: "number"}, "01"));
    assert.ok(accepts({enum: ["fast", "slow", 3]}, '"slow"') && accepts({enum: ["fast", "slow", 3]}, "3"));
    assert.ok(!prefixOk({enum: ["fast"]}, '"fa"s'));
    assert.ok(accepts({type: "boolean"}, "false"));
    assert.ok(accepts({type: "array", items: {type: "integer"}}, "[]"));
    assert.ok(accepts({type: "array", items: {type: "integer"}}, "[1, 2, 3]"));
    assert.ok(!accepts({type: "array", items: {type: "integer"}, minItems: 1}, "[]"));
    assert.ok(accepts({anyOf: [{type: "string"}, {type: "null"}]}, "null"));
    assert.ok(accepts({type: ["string", "integer"]}, "12"));
    assert.ok(accepts({}, '{"a": [1, {"b": null}], "c": "d"}'));
    assert.ok(accepts({type: "object"}, "{}"));
    assert.ok(accepts({type: "string", maxLength: 3}, '"abc"') && !prefixOk({type: "string", maxLength: 3}, '"abcd'));
});

test("completion() finishes any prefix with the shortest valid text", () => {
    const g = toolCallGrammar(tools, HERMES_SYNTAX);
    const samples = [
        "", "<tool", "<tool_call>\n", '<tool_call>\n{"name": "re', '<tool_call>\n{"name": "read_file", "arguments": {"pa',
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "x\\u00', '<tool_call>\n{"name": "run", "arguments": {"command": "ls", "timeout": 1.',
        '<tool_call>\n{"name": "run", "arguments": {"command": "ls", "mode": "f', '<tool_call>\n{"name": "finish", "arguments": {}}\n</tool',
        '<tool_call>\n{"name": "run", "arguments": {"command": "ls", "timeout": -',
    ];
    for (const p of samples) {
        const st = MatchState.start(g).feed(p);
        assert.ok(st, `prefix ${JSON.stringify(p)} is valid`);
        const done = st.feed(st.completion());
        assert.ok(done?.accepting, `completion of ${JSON.stringify(p)} = ${JSON.stringify(st.completion())}`);
        const call = parseToolCall(p + st.completion(), HERMES_SYNTAX);
        assert.ok(call && tools.some(t => t.name === call.name), `parses: ${p + st.completion()}`);
    }
});

test("tool-call grammar: union over tools; parse reads name, args and the exact args text", () => {
    const g = toolCallGrammar(tools, HERMES_SYNTAX);
    const text = '<tool_call>\n{"name": "run", "arguments": {"command": "npm test", "mode": "slow"}}\n</tool_call>';
    assert.ok(MatchState.start(g).feed(text)?.accepting);
    assert.ok(!MatchState.start(g).feed('<tool_call>\n{"name": "rm"'), "unknown tool");
    assert.ok(!MatchState.start(g).feed('<tool_call>\n{"name": "run", "arguments": {"path"'), "another tool's arguments");
    assert.deepEqual(parseToolCall(`thinking…${text}`, HERMES_SYNTAX), {name: "run", args: {command: "npm test", mode: "slow"}, argsText: '{"command": "npm test", "mode": "slow"}'});
    assert.equal(parseToolCall("no call here", HERMES_SYNTAX), undefined);
    const l3 = toolCallGrammar(tools, LLAMA3_SYNTAX);
    const l3text = '{"name": "finish", "parameters": {}}';
    assert.ok(MatchState.start(l3).feed(l3text)?.accepting);
    assert.deepEqual(parseToolCall(l3text, LLAMA3_SYNTAX)?.args, {});
});

test("token masks: exact allowed sets, EOG only after a complete call, control tokens never", () => {
    const vocab = scriptedVocabulary();
    const m = new TokenMasker(vocab);
    const g = toolCallGrammar(tools, HERMES_SYNTAX);
    let st = MatchState.start(g).feed('<tool_call>\n{"name": "')!;
    const allowed = m.allowed(st);
    assert.ok(Array.isArray(allowed));
    assert.deepEqual(allowed.map(t => vocab.piece(t)).sort(), ["f", "r"]);
    st = st.feed('finish", "arguments": {}}\n</tool_call>')!;
    assert.ok(st.accepting);
    assert.deepEqual(m.allowed(st), m.eogTokens());
    assert.ok(m.eogTokens().includes(vocab.eos));
    const inString = MatchState.start(g).feed('<tool_call>\n{"name": "run", "arguments": {"command": "')!;
    assert.equal(m.allowed(inString), "many", "string bodies are tested candidate by candidate");
    const inStr = m.allowedByScan(inString);
    assert.ok(inStr.includes(0xc3), "partial UTF-8 bytes are string content");
    assert.ok(!inStr.includes(10), "raw newline is not");
    assert.ok(!inStr.some(t => vocab.isControl(t)));
});

test("schema grammar: string minLength and non-negative integer ranges, digit by digit", () => {
    assert.ok(!accepts({type: "string", minLength: 1}, '""') && accepts({type: "string", minLength: 1}, '"a"'));
    const r = {type: "integer", minimum: 1, maximum: 600};
    for (const ok of ["1", "9", "10", "600", "599"]) assert.ok(accepts(r, ok), ok);
    for (const bad of ["0", "601", "-1", "01", "6000", "1.5"]) assert.ok(!accepts(r, bad), bad);
    assert.ok(!prefixOk(r, "7000"), "no number starting 7000 fits");
    assert.ok(prefixOk(r, "60"));
    const st = MatchState.start(schemaGrammar({type: "object", properties: {n: {type: "integer", minimum: 100, maximum: 250}, s: {type: "string", minLength: 3}}, required: ["n", "s"]})).feed('{"n": 2')!;
    assert.equal(st.completion(), '00, "s": "___"}');
    assert.ok(st.feed(st.completion())?.accepting);
    assert.equal(MatchState.start(schemaGrammar(r)).completion(), "1");
});
