// Owns the typed protocol between the agent panel (webview) and the extension host: one map per direction of
// `"namespace/verb"` to payload types, and the envelope that carries them. Requests go webview → host and get exactly
// one response with the same id; notifications go host → webview. Nothing else crosses the boundary.

import type {ApprovalDecision, SessionEvent, SessionLabel} from "./session";
import type {SessionSummaryView, TraceView} from "./traces";

/** none: no model chosen; idle: chosen, loads with the first task; then downloading / loading / ready, or error. */
export type ModelState = "none" | "idle" | "loading" | "downloading" | "ready" | "error";

export interface ModelStatusView {
    state: ModelState;
    /** Short display name (file name or hf: URI). */
    name?: string;
    /** 0..1 while downloading or loading, when known. */
    progress?: number;
    /** Error text, or a detail such as "CPU, 2 threads, 4096 ctx". */
    detail?: string;
}

/** What the panel needs to draw itself after a (re)load: the model, and the current session replayed as events. */
export interface PanelInit {
    model: ModelStatusView;
    /** Events of the current (running or last) session, from the first; empty when none. */
    events: SessionEvent[];
    running: boolean;
    /** The approval policy in effect, shown next to the input. */
    approvalPolicy: string;
}

/** Workbench commands the panel's toolbar may trigger. */
export type PanelCommand = "selectModel" | "showTraces" | "openSettings" | "showLogs";

/** Webview → host: `[request, response]`. */
export interface ToHost {
    "panel/ready": [Record<string, never>, PanelInit];
    "session/start": [{task: string}, {sessionId: string}];
    "session/stop": [Record<string, never>, null];
    "session/new": [Record<string, never>, null];
    "tool/approve": [{sessionId: string; callId: string; decision: ApprovalDecision}, null];
    "diff/open": [{sessionId: string; callId: string; path: string}, null];
    "checkpoint/restore": [{sessionId: string; checkpointId: string}, {files: string[]}];
    "session/label": [{sessionId: string; label: SessionLabel}, null];
    "history/list": [Record<string, never>, SessionSummaryView[]];
    "trace/get": [{id: string}, TraceView];
    "command/run": [{command: PanelCommand}, null];
}

/** Host → webview notifications. */
export interface ToWebview {
    "session/event": SessionEvent;
    /** The current session was cleared ("New Session"); the panel empties its chat. */
    "session/reset": Record<string, never>;
    "model/status": ModelStatusView;
    /** Settings the panel shows changed. */
    "settings/changed": {approvalPolicy: string};
    /** A trace was written or labelled: a shown history list is stale. */
    "history/changed": Record<string, never>;
    /** Bring a view to the front (e.g. "Show Session Traces" opens the history). */
    "panel/show": {view: "chat" | "history"; traceId?: string};
}

export type RequestType = keyof ToHost;
export type RequestData<K extends RequestType> = ToHost[K][0];
export type ResponseData<K extends RequestType> = ToHost[K][1];
export type NotifyType = keyof ToWebview;

export type RequestMessage = {[K in RequestType]: {kind: "request"; id: number; type: K; data: RequestData<K>}}[RequestType];
export type ResponseMessage =
    | {kind: "response"; id: number; ok: true; data: unknown}
    | {kind: "response"; id: number; ok: false; error: string};
export type NotifyMessage = {[K in NotifyType]: {kind: "notify"; type: K; data: ToWebview[K]}}[NotifyType];

/** Everything the host posts to the webview. */
export type HostMessage = ResponseMessage | NotifyMessage;
