// Owns how one chat item looks: the task bubble, streamed text, a tool-call card (what, why, arguments, proposed and
// applied diffs, approval buttons, result, undo), turn footers and notices. Pure rendering: actions are callbacks.

import type {ApprovalDecision, FileChangeView, ToolCallView, ToolResultView} from "../src/protocol/session";
import type {ChatItem} from "./chat-state";
import {h, type El} from "./dom";

export interface CardActions {
    approve(callId: string, decision: ApprovalDecision): void;
    openDiff(callId: string, path: string): void;
    restore(checkpointId: string): void;
}

const MAX_OUTPUT_LINES = 40;

export function formatMs(ms: number): string {
    return ms < 1000 ? `${Math.round(ms)} ms` : ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function patchView(patch: string): El {
    const lines = patch.split("\n").filter((l, i) => !(i < 2 && /^(---|\+\+\+) /.test(l)));   // the file is named above
    while (lines.length && lines[lines.length - 1] === "") lines.pop();
    const shown = lines.slice(0, 60);
    const pre = h("pre.patch", {"aria-label": "diff"});
    for (const l of shown) {
        const cls = l.startsWith("+") && !l.startsWith("+++") ? "add" : l.startsWith("-") && !l.startsWith("---") ? "del" : l.startsWith("@@") ? "hunk" : "ctx";
        pre.append(h(`span.line.${cls}`, {}, `${l}\n`));
    }
    if (lines.length > shown.length) pre.append(h("span.line.more", {}, `… ${lines.length - shown.length} more lines (open the diff)\n`));
    return pre;
}

function changesView(callId: string, changes: FileChangeView[], applied: boolean, act: CardActions): El {
    return h("div.changes", {"data-testid": applied ? "applied-changes" : "proposed-changes"},
        h("div.changes-head", {}, applied ? "Changed" : "Proposes to change"),
        ...changes.map(c => h("div.change", {},
            h("div.change-row", {},
                h("span.path", {title: c.path}, c.path),
                h("span.stat", {}, h("span.add", {}, `+${c.added}`), " ", h("span.del", {}, `−${c.removed}`)),
                h("button.link", {type: "button", "data-testid": "open-diff", "aria-label": `Open diff of ${c.path}`,
                    onclick: () => act.openDiff(callId, c.path)}, "Open diff")),
            c.patch ? patchView(c.patch) : null)));
}

function approvalBar(call: ToolCallView, ended: boolean, act: CardActions): El | null {
    if (call.approval === "pending") {
        if (ended) return h("div.approval.muted", {}, "No decision: the session ended.");
        return h("div.approval", {role: "group", "aria-label": "Approve this tool call?"},
            h("button.primary", {type: "button", "data-testid": "approve", onclick: () => act.approve(call.callId, "approve")}, "Approve"),
            h("button.secondary", {type: "button", "data-testid": "deny", onclick: () => act.approve(call.callId, "deny")}, "Deny"),
            call.command ? h("button.secondary", {type: "button", "data-testid": "always", title: `Always allow: ${call.command}`,
                onclick: () => act.approve(call.callId, "always")}, "Always allow this command") : null);
    }
    if (call.approval === "none") return null;
    const text = {auto: "Allowed by policy", approved: "Approved", denied: "Denied"}[call.approval];
    return h(`div.approval-state.${call.approval}`, {"data-testid": "approval-state"}, text);
}

function resultView(r: ToolResultView, act: CardActions): El {
    const lines = r.output.split("\n");
    const out = lines.length > MAX_OUTPUT_LINES ? [...lines.slice(0, MAX_OUTPUT_LINES), `… ${lines.length - MAX_OUTPUT_LINES} more lines`].join("\n") : r.output;
    return h("div.result", {"data-testid": "tool-result"},
        h("div.result-head", {},
            h(`span.badge.${r.ok ? "ok" : "fail"}`, {}, r.ok ? "✓ done" : "✗ failed"),
            r.tests ? h(`span.badge.${r.tests.passed ? "ok" : "fail"}`, {}, r.tests.passed ? "tests passed" : "tests failed") : null,
            h("span.muted", {}, formatMs(r.durationMs)),
            r.checkpointId ? h("button.link", {type: "button", "data-testid": "undo", title: "Restore the files to how they were before this call",
                onclick: () => act.restore(r.checkpointId!)}, "Undo to here") : null),
        // short output is shown open, unless the diff above already says what happened
        out ? h("details", {open: lines.length <= 12 && !r.changes?.length}, h("summary", {}, "Output"), h("pre.output", {}, out)) : null);
}

export function toolCard(item: Extract<ChatItem, {kind: "tool"}>, ended: boolean, act: CardActions): El {
    const {call, result} = item;
    return h("article.card.tool", {"data-testid": "tool-card", "data-call-id": call.callId, "data-tool": call.tool,
        "aria-label": `Tool call: ${call.title}`, tabindex: -1},
    h("header", {}, h("span.tool-name", {}, call.tool), h("span.title", {}, call.title)),
    call.why ? h("p.why", {}, call.why) : null,
    h("details.args", {}, h("summary", {}, "Arguments"), h("pre", {}, call.argsText)),
    call.changes?.length && !result?.changes?.length ? changesView(call.callId, call.changes, false, act) : null,
    approvalBar(call, ended, act),
    result?.changes?.length ? changesView(call.callId, result.changes, true, act) : null,
    result ? resultView(result, act) : null);
}

export function renderItem(item: ChatItem, ended: boolean, act: CardActions): El {
    switch (item.kind) {
        case "task":
            return h("div.msg.user", {"data-testid": "task"}, h("div.who", {}, "You"), h("div.body", {}, item.text));
        case "text":
            return h("div.msg.assistant", {"data-testid": "assistant-text"}, h("div.body", {}, item.text));
        case "tool":
            return toolCard(item, ended, act);
        case "turn":
            return h("div.turn-end", {"data-testid": "turn-end"},
                `turn ${item.turn + 1} · ${item.tokens.sampled} sampled + ${item.tokens.forced} forced tokens · ${formatMs(item.durationMs)}`);
        case "notice":
            return h(`div.notice.${item.tone}`, {role: item.tone === "error" ? "alert" : "status"}, item.text);
    }
}
