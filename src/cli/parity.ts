// Owns `nano-coder parity`: prints how far the tfjs network (nano-rl) is from llama.cpp on the same model,
// adapter and tokens — max |Δlogit| and max |Δlogprob| (the proof that training scores what inference runs).

import {parseArgs} from "node:util";
import {BACKEND_CHOICES, parseBackendChoice} from "../rl/backend";
import {runParity} from "../rl/parity";
import {UsageError, type CliCommand} from "./command";

const usage = `usage: nano-coder parity --model M.gguf [--adapter A.gguf] [--tokens N] [--threads K] [--backend B] [--json]
Scores N tokens (default 32) of a fixed code sample with both engines (llama.cpp: CPU, F32 KV cache, no flash
attention) and prints max |Δlogit| over every position and vocabulary entry and max |Δlogprob| of each next token.
--backend: tfjs backend (${BACKEND_CHOICES.join(", ")}; default auto or $NANO_TF_BACKEND).`;

export const parityCommand: CliCommand = {
    name: "parity",
    summary: "compare tfjs (nano-rl) logits with llama.cpp's on a model [+ adapter]",
    usage,
    async run(argv, io) {
        const {values: v, positionals} = parseArgs({args: argv, allowPositionals: true, strict: true, options: {
            model: {type: "string"}, adapter: {type: "string"}, tokens: {type: "string"}, threads: {type: "string"},
            backend: {type: "string"}, json: {type: "boolean"},
        }});
        const model = v.model ?? positionals[0];
        if (!model) throw new UsageError("--model is required");
        const n = v.tokens === undefined ? 32 : Number(v.tokens);
        if (!Number.isInteger(n) || n < 2) throw new UsageError("--tokens must be an integer ≥ 2");
        const threads = v.threads === undefined ? 1 : Number(v.threads);
        if (!Number.isInteger(threads) || threads < 1) throw new UsageError("--threads must be a positive integer");
        const r = await runParity({model, adapter: v.adapter, tokens: n, threads, backend: parseBackendChoice(v.backend)});
        if (v.json) {
            io.out(JSON.stringify({model, adapter: v.adapter ?? null, tokens: r.tokens.length, backend: r.backend,
                maxAbsLogit: r.maxAbsLogit, maxAbsLogprob: r.maxAbsLogprob, maxLogit: r.maxLogit}) + "\n");
        } else {
            io.out(`model ${model}${v.adapter ? ` + adapter ${v.adapter}` : ""}\n`);
            io.out(`tokens ${r.tokens.length}, vocab ${r.nVocab}, tfjs backend ${r.backend}, max |logit| ${r.maxLogit.toFixed(3)}\n`);
            io.out(`max |Δlogit|   ${r.maxAbsLogit.toExponential(3)}\nmax |Δlogprob| ${r.maxAbsLogprob.toExponential(3)}\n`);
        }
        return 0;
    },
};
