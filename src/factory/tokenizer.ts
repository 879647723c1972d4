// Owns the tokenizer metadata of factory models: byte-level BPE ("gpt2" model, qwen2 pre-tokenizer), ChatML
// special tokens, Qwen2.5's <tool_call> markers and a ChatML chat template, as GGUF key/values.

import {kv, type GgufKv} from "../gguf/metadata";
import {GgufValueType} from "../gguf/types";
import {byteSymbols, trainBpe} from "./bpe";
import {FACTORY_CORPUS} from "./corpus";

/** llama.cpp token attributes stored in tokenizer.ggml.token_type. */
const NORMAL = 1, CONTROL = 3, USER_DEFINED = 4;

export const SPECIAL = {endOfText: "<|endoftext|>", imStart: "<|im_start|>", imEnd: "<|im_end|>"} as const;
export const TOOL_CALL_OPEN = "<tool_call>", TOOL_CALL_CLOSE = "</tool_call>";

export const CHATML_TEMPLATE =
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}" +
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

export interface TokenizerSpec {
    /** Merges learned from the factory corpus (0 = pure byte-level). */
    merges: number;
    /** Pads the vocabulary with reserved control tokens up to this size (real vocabularies are ~150k). */
    padVocabTo?: number;
}

export interface FactoryTokenizer {
    tokens: string[];
    metadata: GgufKv[];
    ids: {endOfText: number; imStart: number; imEnd: number};
}

export function buildTokenizer(spec: TokenizerSpec): FactoryTokenizer {
    const {merged, merges} = trainBpe(FACTORY_CORPUS, spec.merges);
    const tokens = [...byteSymbols(), ...merged];
    const types = tokens.map(() => NORMAL);
    const add = (t: string, type: number) => { tokens.push(t); types.push(type); return tokens.length - 1; };
    const ids = {endOfText: add(SPECIAL.endOfText, CONTROL), imStart: add(SPECIAL.imStart, CONTROL), imEnd: add(SPECIAL.imEnd, CONTROL)};
    add(TOOL_CALL_OPEN, USER_DEFINED);
    add(TOOL_CALL_CLOSE, USER_DEFINED);
    for (let i = 0; tokens.length < (spec.padVocabTo ?? 0); i++) add(`<|reserved_${i}|>`, CONTROL);
    const metadata = [
        kv.str("tokenizer.ggml.model", "gpt2"),
        // The qwen2 pre-tokenizer with clean_spaces off round-trips text exactly.
        kv.str("tokenizer.ggml.pre", "qwen2"),
        kv.arr("tokenizer.ggml.tokens", GgufValueType.STRING, tokens),
        kv.arr("tokenizer.ggml.token_type", GgufValueType.INT32, types),
        kv.arr("tokenizer.ggml.merges", GgufValueType.STRING, merges),
        kv.u32("tokenizer.ggml.bos_token_id", ids.endOfText),
        kv.u32("tokenizer.ggml.eos_token_id", ids.imEnd),
        kv.u32("tokenizer.ggml.eot_token_id", ids.imEnd),
        kv.u32("tokenizer.ggml.padding_token_id", ids.endOfText),
        kv.bool("tokenizer.ggml.add_bos_token", false),
        kv.str("tokenizer.chat_template", CHATML_TEMPLATE),
    ];
    return {tokens, metadata, ids};
}
