// Owns the token ↔ text view the generation loop needs (the Vocabulary interface), its node-llama-cpp
// implementation, and a byte-level implementation for scripted fake models.

import type {LlamaModel, Token} from "node-llama-cpp";

export interface Vocabulary {
    readonly size: number;
    /** End-of-sequence token (the end-of-turn token of chat models). */
    readonly eos: number;
    /** Text of one token on its own, as the grammar sees it: "" for control tokens, "\uFFFD" for partial UTF-8. */
    piece(token: number): string;
    /** Control tokens (special tokens without a plain-text form) — never allowed inside a grammar. */
    isControl(token: number): boolean;
    /** End-of-generation tokens (EOS, EOT, <|im_end|> …). */
    isEog(token: number): boolean;
    /** `special`: text like "<|im_start|>" becomes its special token (for template text, never for user data). */
    tokenize(text: string, special: boolean): number[];
    /** Special tokens render as their text. `before`: the tokens preceding these (for correct leading spaces). */
    detokenize(tokens: readonly number[], before?: readonly number[]): string;
}

/** The vocabulary of a loaded GGUF model. Pieces are computed once per token, on first use. */
export function llamaVocabulary(model: LlamaModel): Vocabulary {
    let size = 0;
    for (const _ of model.iterateAllTokens()) size++;
    const pieces: (string | undefined)[] = new Array(size);
    const control = new Uint8Array(size); // 0 unknown, 1 no, 2 yes
    const eos = model.tokens.eos ?? model.tokens.eot;
    if (eos === null) throw new Error("the model has no end-of-sequence token");
    const isControl = (t: number) => {
        if (control[t] === 0) {
            const a = model.getTokenAttributes(t as Token);
            control[t] = a.control || (model.isSpecialToken(t as Token) && !a.userDefined) ? 2 : 1;
        }
        return control[t] === 2;
    };
    return {
        size, eos,
        piece: t => (pieces[t] ??= isControl(t) ? "" : model.detokenize([t as Token], false)),
        isControl,
        isEog: t => model.isEogToken(t as Token),
        tokenize: (text, special) => model.tokenize(text, special),
        detokenize: (tokens, before) => model.detokenize(tokens as readonly Token[], true, before as readonly Token[] | undefined),
    };
}

/**
 * A byte-level vocabulary: ids 0..255 are bytes, then the given special tokens (the first one listed in `eog`
 * is EOS). Mirrors what llama.cpp reports for byte-level BPE vocabularies: bytes ≥ 0x80 are partial UTF-8.
 */
export function byteVocabulary(specials: readonly string[], eog: readonly string[]): Vocabulary {
    const special = new Map(specials.map((s, i) => [s, 256 + i]));
    const eogIds = new Set(eog.map(s => special.get(s)!));
    const enc = new TextEncoder();
    const pattern = specials.length
        ? new RegExp(`(${[...specials].sort((a, b) => b.length - a.length).map(s => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`)
        : undefined;
    const bytes = (s: string) => [...enc.encode(s)];
    return {
        size: 256 + specials.length,
        eos: special.get(eog[0]!)!,
        piece: t => (t < 128 ? String.fromCharCode(t) : t < 256 ? "\uFFFD" : ""),
        isControl: t => t >= 256,
        isEog: t => eogIds.has(t),
        tokenize: (text, sp) => {
            if (!sp || !pattern) return bytes(text);
            return text.split(pattern).flatMap((part, i) => (i % 2 === 1 ? [special.get(part)!] : bytes(part)));
        },
        detokenize: tokens => {
            let out = "";
            let run: number[] = [];
            const flush = () => { if (run.length) out += new TextDecoder().decode(new Uint8Array(run)); run = []; };
            for (const t of tokens) {
                if (t < 256) run.push(t);
                else { flush(); out += specials[t - 256] ?? ""; }
            }
            flush();
            return out;
        },
    };
}
