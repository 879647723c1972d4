// Owns the chat pane's DOM: one element per chat item, replaced only when its item changes, the session-end bar
// (outcome, tests, Accept / Reject), and scrolling that follows new output unless the user scrolled up.

import type {SessionLabel} from "../src/protocol/session";
import {formatMs, renderItem, type CardActions} from "./cards";
import {OUTCOME_KEY, type ChatState} from "./chat-state";
import {doc, h, type El} from "./dom";

export interface ChatActions extends CardActions {
    label(label: SessionLabel): void;
}

const statusText: Record<string, string> = {
    finished: "Finished", max_turns: "Stopped: turn limit", max_tokens: "Stopped: token limit", timeout: "Stopped: time limit",
    cancelled: "Stopped", context_overflow: "Stopped: context full", error: "Failed", running: "Running",
};

export class ChatView {
    private readonly elements = new Map<string, El>();
    private outcomeEl: El | undefined;

    constructor(private readonly log: El, private readonly empty: El, private readonly act: ChatActions) {}

    /** Rebuilds everything (after a reload or a reset). */
    renderAll(s: ChatState): void {
        this.elements.clear();
        this.outcomeEl = undefined;
        this.log.replaceChildren();
        for (const item of s.items) {
            const el = renderItem(item, !s.running, this.act);
            this.elements.set(item.key, el);
            this.log.append(el);
        }
        this.renderOutcome(s);
        this.empty.hidden = s.items.length > 0;
        this.log.scrollTop = this.log.scrollHeight;
    }

    /** Re-renders the items whose keys changed: replaced in place, inserted at their position, or removed. */
    update(s: ChatState, keys: string[]): void {
        const follow = this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 40;
        for (const key of new Set(keys)) {
            if (key === OUTCOME_KEY) { this.renderOutcome(s); continue; }
            const at = s.items.findIndex(i => i.key === key);
            const old = this.elements.get(key);
            if (at < 0) { old?.remove(); this.elements.delete(key); continue; }
            const el = renderItem(s.items[at]!, !s.running, this.act);
            if (old) {
                // keyboard users keep their place: focus moves from a replaced card to its new version
                const hadFocus = old.contains(doc.activeElement);
                old.replaceWith(el);
                if (hadFocus) (el.querySelector('[data-testid="approve"]') ?? el).focus();
            } else {
                const next = s.items.slice(at + 1).map(i => this.elements.get(i.key)).find(x => x !== undefined) ?? this.outcomeEl;
                if (next) next.before(el);
                else this.log.append(el);
            }
            this.elements.set(key, el);
        }
        this.empty.hidden = s.items.length > 0;
        if (follow) this.log.scrollTop = this.log.scrollHeight;
    }

    private renderOutcome(s: ChatState): void {
        const el = s.outcome || s.tests ? this.outcomeBar(s) : null;
        if (this.outcomeEl && el) this.outcomeEl.replaceWith(el);
        else if (this.outcomeEl) this.outcomeEl.remove();
        else if (el) this.log.append(el);
        this.outcomeEl = el ?? undefined;
    }

    private outcomeBar(s: ChatState): El {
        const o = s.outcome;
        const tests = s.tests ? h(`span.badge.${s.tests.passed ? "ok" : "fail"}`, {"data-testid": "tests-badge"},
            `tests ${s.tests.passed ? "passed" : "failed"}${s.tests.by === "user" ? " (your run)" : ""}`) : null;
        if (!o) return h("section.outcome", {"aria-label": "Session result"}, tests);
        const labelButton = (label: SessionLabel, text: string, cls: string): El =>
            h(`button.${cls}`, {type: "button", "data-testid": label === "accepted" ? "accept" : "reject",
                "aria-pressed": String(s.label === label), disabled: s.running, onclick: () => this.act.label(label)}, text);
        return h("section.outcome", {"data-testid": "outcome", "aria-label": "Session result"},
            h("div.outcome-head", {},
                h(`span.status.${o.status}`, {"data-testid": "outcome-status"}, statusText[o.status] ?? o.status),
                tests,
                h("span.muted", {}, `${o.tokens.sampled + o.tokens.forced} tokens · ${formatMs(o.durationMs)}`)),
            o.message ? h("p.muted", {}, o.message) : null,
            o.finalAnswer ? h("div.final", {}, o.finalAnswer) : null,
            h("div.label-bar", {role: "group", "aria-label": "Label this session for training"},
                labelButton("accepted", s.label === "accepted" ? "✓ Accepted" : "Accept", "primary"),
                labelButton("rejected", s.label === "rejected" ? "✗ Rejected" : "Reject", "secondary"),
                h("span.muted", {"data-testid": "label-state"}, s.label ? `Labelled ${s.label}; the trainer will learn from it.` : "Was this session good? Your label trains the adapter.")));
    }
}
