// Owns the finish tool: the agent's final answer; its result carries `finished: true` so the loop stops.

import type {Tool} from "./types";

export interface FinishArgs { summary: string; success?: boolean }

export function finishTool(): Tool<FinishArgs> {
    return {
        definition: {
            name: "finish",
            description: "Finish the task: give the final answer or a short summary of what was done (and whether it worked).",
            parameters: {
                type: "object",
                properties: {
                    summary: {type: "string", description: "Final answer / summary for the user", minLength: 1, maxLength: 20_000},
                    success: {type: "boolean", description: "Whether the task was completed (default true)"},
                },
                required: ["summary"],
                additionalProperties: false,
            },
            approval: "never",
            readOnly: true,
            summarize: a => `finish: ${a.summary.length > 80 ? `${a.summary.slice(0, 80)}…` : a.summary}`,
        },
        async run(a) {
            return {ok: true, observation: a.summary, finished: true, data: {summary: a.summary, success: a.success ?? true}};
        },
    };
}
