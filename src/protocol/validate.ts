// Owns the host's check of what a webview posts: a message is a known request with well-formed data, or it is
// rejected with a reason. The webview is untrusted input (scripts in it could be compromised), so nothing unchecked
// reaches the host.

import type {RequestMessage, RequestType} from "./messages";

type Check = (d: Record<string, unknown>) => string | undefined;

const str = (k: string, max = 100_000): Check => d =>
    typeof d[k] === "string" && (d[k] as string).length <= max ? undefined : `"${k}" must be a string of at most ${max} characters`;
const oneOf = (k: string, values: readonly string[]): Check => d =>
    typeof d[k] === "string" && values.includes(d[k] as string) ? undefined : `"${k}" must be one of ${values.join(", ")}`;
const id = (k: string): Check => d =>
    typeof d[k] === "string" && /^[\w.:-]{1,200}$/.test(d[k] as string) ? undefined : `"${k}" must be an id`;

const checks: Record<RequestType, Check[]> = {
    "panel/ready": [],
    "session/start": [str("task", 50_000), d => ((d.task as string).trim() ? undefined : "the task is empty")],
    "session/stop": [],
    "session/new": [],
    "tool/approve": [id("sessionId"), id("callId"), oneOf("decision", ["approve", "deny", "always"])],
    "diff/open": [id("sessionId"), id("callId"), str("path", 4096)],
    "checkpoint/restore": [id("sessionId"), id("checkpointId")],
    "session/label": [id("sessionId"), oneOf("label", ["accepted", "rejected"])],
    "history/list": [],
    "trace/get": [id("id")],
    "command/run": [oneOf("command", ["selectModel", "showTraces", "openSettings", "showLogs"])],
};

export const REQUEST_TYPES = Object.keys(checks) as RequestType[];

/** The request in `raw`, or a reason it is not one (with its id when it had one, so the error can be answered). */
export function parseRequest(raw: unknown): {ok: true; msg: RequestMessage} | {ok: false; id?: number; error: string} {
    if (typeof raw !== "object" || raw === null) return {ok: false, error: "not an object"};
    const m = raw as Record<string, unknown>;
    if (m.kind !== "request") return {ok: false, error: `unknown message kind ${JSON.stringify(m.kind)}`};
    if (typeof m.id !== "number" || !Number.isSafeInteger(m.id)) return {ok: false, error: "missing request id"};
    const type = m.type as RequestType;
    if (typeof type !== "string" || !Object.hasOwn(checks, type)) return {ok: false, id: m.id, error: `unknown request ${JSON.stringify(m.type)}`};
    const data = m.data ?? {};
    if (typeof data !== "object" || data === null || Array.isArray(data)) return {ok: false, id: m.id, error: `${type}: data must be an object`};
    for (const c of checks[type]) {
        const problem = c(data as Record<string, unknown>);
        if (problem) return {ok: false, id: m.id, error: `${type}: ${problem}`};
    }
    return {ok: true, msg: {kind: "request", id: m.id, type, data} as RequestMessage};
}
