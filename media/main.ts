// Owns the agent panel's wiring inside the webview: boot (restore saved state, then ask the host for the truth), the
// input box and its keys, tabs, the model chip, and routing host notifications to the chat and history panes.

import type {ModelStatusView} from "../src/protocol/messages";
import type {ApprovalDecision, SessionLabel} from "../src/protocol/session";
import {applyEvent, emptyChat, replay, type ChatState} from "./chat-state";
import {ChatView} from "./chat-view";
import {HostClient} from "./client";
import {acquireVsCodeApi, byId, doc, win, type El} from "./dom";
import {historyList, traceView} from "./history-view";

interface Saved { tab: "chat" | "history"; draft: string; chat: ChatState; traceId?: string }

const vscode = acquireVsCodeApi<Saved>();
const client = new HostClient(vscode);
win.addEventListener("message", e => client.receive(e.data));

const saved = vscode.getState();
let chat: ChatState = saved?.chat ?? emptyChat();
let tab: Saved["tab"] = saved?.tab ?? "chat";
let traceId = saved?.traceId;

const ui = {
    model: byId("model"), policy: byId("policy"), tabChat: byId("tab-chat"), tabHistory: byId("tab-history"),
    chatPane: byId("chat-pane"), historyPane: byId("history-pane"), log: byId("log"), empty: byId("empty"),
    input: byId("input"), send: byId("send"), stop: byId("stop"), newSession: byId("new-session"), error: byId("error"),
    announce: byId("announce"),
};
ui.input.value = saved?.draft ?? "";

function save(): void {
    vscode.setState({tab, draft: ui.input.value, chat, ...(traceId ? {traceId} : {})});
}

function showError(e: unknown): void {
    ui.error.textContent = e instanceof Error ? e.message : String(e);
    ui.error.hidden = false;
}

function call<T>(p: Promise<T>): Promise<T | undefined> {
    ui.error.hidden = true;
    return p.catch(e => { showError(e); return undefined; });
}

const view = new ChatView(ui.log, ui.empty, {
    approve: (callId: string, decision: ApprovalDecision) => { if (chat.sessionId) void call(client.request("tool/approve", {sessionId: chat.sessionId, callId, decision})); },
    openDiff: (callId: string, path: string) => { if (chat.sessionId) void call(client.request("diff/open", {sessionId: chat.sessionId, callId, path})); },
    restore: (checkpointId: string) => { if (chat.sessionId) void call(client.request("checkpoint/restore", {sessionId: chat.sessionId, checkpointId})); },
    label: (label: SessionLabel) => { if (chat.sessionId) void call(client.request("session/label", {sessionId: chat.sessionId, label})); },
});

function syncControls(): void {
    ui.stop.hidden = !chat.running;
    ui.send.hidden = chat.running;
    ui.send.disabled = !ui.input.value.trim();
    ui.input.setAttribute("placeholder", chat.running ? "The agent is working… (Stop to interrupt)" : "Describe a task for the agent (Enter to send, Shift+Enter for a new line)");
}

function renderModel(m: ModelStatusView): void {
    const text = m.state === "none" ? "No model — select one" : m.state === "ready" || m.state === "idle" ? m.name ?? "model"
        : m.state === "error" ? `Model error: ${m.detail ?? ""}` : `${m.state === "downloading" ? "Downloading" : "Loading"} ${m.name ?? ""}${m.progress !== undefined ? ` ${Math.round(m.progress * 100)}%` : ""}`;
    ui.model.textContent = text;
    ui.model.title = [m.name, m.detail, "Click to select a model"].filter(Boolean).join("\n");
    ui.model.dataset.state = m.state;
}

// ---- tabs -----------------------------------------------------------------------------------------------------
async function showHistory(id?: string): Promise<void> {
    traceId = id;
    save();
    if (id) {
        const t = await call(client.request("trace/get", {id}));
        if (t) ui.historyPane.replaceChildren(traceView(t, historyActions));
    } else {
        const rows = await call(client.request("history/list", {}));
        if (rows) ui.historyPane.replaceChildren(historyList(rows, historyActions));
    }
}
const historyActions = {open: (id: string) => void showHistory(id), back: () => void showHistory(), refresh: () => void showHistory(traceId)};

function selectTab(next: Saved["tab"], focus = false): void {
    tab = next;
    for (const [t, btn, pane] of [["chat", ui.tabChat, ui.chatPane], ["history", ui.tabHistory, ui.historyPane]] as [string, El, El][]) {
        btn.setAttribute("aria-selected", String(t === tab));
        btn.tabIndex = t === tab ? 0 : -1;
        pane.hidden = t !== tab;
    }
    if (focus) (tab === "chat" ? ui.tabChat : ui.tabHistory).focus();
    if (tab === "history") void showHistory(traceId);
    save();
}
ui.tabChat.addEventListener("click", () => selectTab("chat"));
ui.tabHistory.addEventListener("click", () => selectTab("history"));
for (const t of [ui.tabChat, ui.tabHistory]) {
    t.addEventListener("keydown", e => {
        if (e.key === "ArrowRight" || e.key === "ArrowLeft") { e.preventDefault(); selectTab(tab === "chat" ? "history" : "chat", true); }
    });
}

// ---- input ----------------------------------------------------------------------------------------------------
async function send(): Promise<void> {
    const task = ui.input.value.trim();
    if (!task || chat.running) return;
    const r = await call(client.request("session/start", {task}));
    if (r) { ui.input.value = ""; save(); syncControls(); }
}
ui.input.addEventListener("input", () => { syncControls(); save(); });
ui.input.addEventListener("keydown", e => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); void send(); }
    else if (e.key === "Escape" && chat.running) { e.preventDefault(); void call(client.request("session/stop", {})); }
});
ui.send.addEventListener("click", () => void send());
ui.stop.addEventListener("click", () => void call(client.request("session/stop", {})));
ui.newSession.addEventListener("click", () => void call(client.request("session/new", {})));
ui.model.addEventListener("click", () => void call(client.request("command/run", {command: "selectModel"})));

// ---- host notifications ---------------------------------------------------------------------------------------
/** Tells screen readers what needs them (the streamed text itself is not announced token by token). */
function announce(text: string): void {
    ui.announce.textContent = "";
    ui.announce.textContent = text;
}

client.on("session/event", e => {
    const keys = applyEvent(chat, e);
    if (e.type === "approval" && e.approval === "pending") {
        const card = chat.items.find(i => i.kind === "tool" && i.call.callId === e.callId);
        announce(`Approval needed: ${card?.kind === "tool" ? card.call.title : "a tool call"}`);
    } else if (e.type === "finished") announce(`Session ${e.status}. Accept or reject the result.`);
    if (e.type === "started") { view.renderAll(chat); if (tab !== "chat") selectTab("chat"); }
    else if (keys.length) view.update(chat, keys);
    // an approval that appears while the user reads the chat (not while typing) takes the focus: Enter approves
    if (e.type === "approval" && e.approval === "pending" && (doc.activeElement === doc.body || ui.log.contains(doc.activeElement))) {
        ui.log.querySelector(`[data-call-id="${e.callId}"] [data-testid="approve"]`)?.focus();
    }
    if (e.type === "finished") view.renderAll(chat);   // pending cards lose their buttons
    syncControls();
    save();
});
client.on("session/reset", () => { chat = emptyChat(); view.renderAll(chat); syncControls(); save(); ui.input.focus(); });
client.on("model/status", renderModel);
client.on("settings/changed", s => { ui.policy.textContent = `approvals: ${s.approvalPolicy}`; });
client.on("history/changed", () => { if (tab === "history") void showHistory(traceId); });
client.on("panel/show", ({view: v, traceId: id}) => {
    if (v === "history") { traceId = id; selectTab("history"); } else selectTab("chat");
});

// ---- boot -----------------------------------------------------------------------------------------------------
view.renderAll(chat);
selectTab(tab);
syncControls();
void call(client.request("panel/ready", {})).then(init => {
    if (!init) return;
    renderModel(init.model);
    ui.policy.textContent = `approvals: ${init.approvalPolicy}`;
    chat = init.events.length ? replay(init.events) : emptyChat();
    chat.running = init.running && chat.running;
    view.renderAll(chat);
    syncControls();
    save();
    markReady();
});

/** Marks the panel ready for tests and screen readers (the body's aria-busy clears). */
function markReady(): void {
    ui.chatPane.parentElement?.removeAttribute("aria-busy");
}
