// Owns the tool registry: registration, definitions for the model, and `invoke` — the one door through which the core
// runs a tool: parse + validate arguments, apply the approval policy, run, bound the observation. Never throws.

import {errorMessage, NanoError} from "../../common/errors";
import {ApprovalPolicy} from "../approvals/policy";
import {parseRawArgs, validate} from "./schema";
import {bound} from "./text";
import type {AnyTool, Tool, ToolContext, ToolDefinition, ToolResult} from "./types";

export interface RegistryOptions {
    /** Default: `new ApprovalPolicy()` (read-only tools run, the rest ask). */
    policy?: ApprovalPolicy;
    /** Upper bound of any observation, characters. Default 16 000. */
    maxObservationChars?: number;
}

/** Data attached to refused calls, for the UI and traces. */
export interface RefusalData { refused: "unknown-tool" | "invalid-arguments" | "denied" | "not-approved" | "cancelled" | "error"; details?: string[] }

export class ToolRegistry {
    private readonly tools = new Map<string, AnyTool>();
    readonly policy: ApprovalPolicy;
    private readonly maxChars: number;

    constructor(opts: RegistryOptions = {}) {
        this.policy = opts.policy ?? new ApprovalPolicy();
        this.maxChars = opts.maxObservationChars ?? 16_000;
    }

    register<A>(tool: Tool<A>): this {
        const name = tool.definition.name;
        if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new NanoError("TOOL_NAME", `tool name "${name}" must be lower_snake_case`);
        if (this.tools.has(name)) throw new NanoError("TOOL_DUPLICATE", `tool "${name}" is already registered`);
        this.tools.set(name, tool as AnyTool);
        return this;
    }

    get(name: string): AnyTool | undefined {
        return this.tools.get(name);
    }

    /** Definitions in registration order (for the prompt and the tool-call grammar). */
    definitions(): ToolDefinition[] {
        return [...this.tools.values()].map(t => t.definition);
    }

    /** A one-line summary of a call for people; falls back to the raw arguments when they are invalid. */
    summarize(name: string, rawArgs: unknown): string {
        const t = this.tools.get(name);
        const parsed = parseRawArgs(rawArgs);
        if (t && parsed.ok) {
            const v = validate(t.definition.parameters, parsed.value);
            if (v.ok) { try { return t.definition.summarize(v.value); } catch { /* fall through */ } }
        }
        return `${name}(${bound(typeof rawArgs === "string" ? rawArgs : safeJson(rawArgs), 200)})`;
    }

    /**
     * Runs tool `name` with `rawArgs` (an object, a JSON string, or UTF-8 bytes). Every failure — unknown tool, malformed or
     * invalid arguments, refusal by the policy or the person, cancellation, an exception inside the tool — comes back as
     * {ok: false, observation: "<what went wrong and what to do>"}.
     */
    async invoke(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolResult> {
        const tool = typeof name === "string" ? this.tools.get(name) : undefined;
        if (!tool) {
            return refuse(`Unknown tool "${bound(String(name), 80)}". Available tools: ${[...this.tools.keys()].join(", ")}.`, "unknown-tool");
        }
        const def = tool.definition;
        const parsed = parseRawArgs(rawArgs);
        if (!parsed.ok) return refuse(`Invalid arguments for ${def.name}: ${parsed.error}.`, "invalid-arguments", [parsed.error]);
        const v = validate(def.parameters, parsed.value);
        if (!v.ok) {
            return refuse(`Invalid arguments for ${def.name}:\n- ${v.errors.join("\n- ")}\nExpected: ${schemaHint(def)}`, "invalid-arguments", v.errors);
        }
        const args = v.value;
        if (ctx.signal?.aborted) return refuse(`${def.name} was not run: the session was cancelled.`, "cancelled");

        const verdict = this.policy.evaluate(def.name, args, def);
        if (verdict.decision === "deny") return refuse(`${def.name} was refused by the approval policy: ${verdict.reason}. Do something else.`, "denied", [verdict.reason]);
        if (verdict.decision === "ask") {
            let summary: string;
            try { summary = def.summarize(args); } catch { summary = `${def.name}`; }
            let approved = false;
            if (ctx.approve) {
                try { approved = await ctx.approve({tool: def.name, args, summary, reason: verdict.reason}); } catch { approved = false; }
            }
            if (!approved) {
                const why = ctx.approve ? "the user declined" : "it needs approval and no one is there to approve it";
                return refuse(`${def.name} was not run: ${why}. Do not retry the same call; try another way or finish.`, "not-approved", [verdict.reason]);
            }
        }
        try {
            const r = await tool.run(args, ctx);
            return {...r, observation: bound(typeof r.observation === "string" ? r.observation : String(r.observation), this.maxChars)};
        } catch (e) {
            const msg = e instanceof NanoError ? e.message : `${(e as Error)?.name ?? "Error"}: ${errorMessage(e)}`;
            return refuse(`${def.name} failed: ${bound(msg, 2000)}`, "error", [msg]);
        }
    }
}

function refuse(observation: string, refused: RefusalData["refused"], details?: string[]): ToolResult {
    const data: RefusalData = {refused, ...(details ? {details} : {})};
    return {ok: false, observation, data};
}

function safeJson(v: unknown): string {
    try { return JSON.stringify(v) ?? String(v); } catch { return String(v); }
}

/** `read_file {path: string, start_line?: integer, end_line?: integer}` — a compact reminder of the schema. */
export function schemaHint(def: ToolDefinition): string {
    const props = def.parameters.properties ?? {};
    const req = new Set(def.parameters.required ?? []);
    const fields = Object.entries(props).map(([k, s]) => `${k}${req.has(k) ? "" : "?"}: ${s.type === "array" && s.items ? `${s.items.type}[]` : s.type}`);
    return `${def.name} {${fields.join(", ")}}`;
}
