// Owns the context-overflow policy: when the conversation no longer fits the model's context, propose smaller
// versions of it, from gentle to drastic — elide old tool observations, then drop the oldest steps (noting it in
// the task) — and cap any single observation. The agent renders each proposal and takes the first that fits.

import type {ChatMessage} from "../../llm/chatFormat";

export interface Compaction {
    messages: ChatMessage[];
    elidedObservations: number;
    droppedTurns: number;
}

export const ELIDED = (chars: number) => `[earlier tool output elided to fit the context: ${chars} characters]`;

/**
 * Smaller versions of `messages` ([system, task, (assistant, tool)*, …]), least aggressive first. The last
 * `keepRecent` observations stay intact in the gentle stages.
 */
export function* compactions(messages: readonly ChatMessage[], keepRecent = 1): Generator<Compaction> {
    const head = messages.slice(0, 2);
    const body = messages.slice(2);
    const toolIdx = body.map((m, i) => (m.role === "tool" ? i : -1)).filter(i => i >= 0);
    const elide = (keep: number): {msgs: ChatMessage[]; n: number} => {
        const old = new Set(toolIdx.slice(0, Math.max(0, toolIdx.length - keep)));
        let n = 0;
        const msgs = body.map((m, i) => {
            if (!old.has(i) || m.content.startsWith("[earlier tool output elided")) return m;
            n++;
            return {role: m.role, content: ELIDED(m.content.length)};
        });
        return {msgs, n};
    };
    for (const keep of [keepRecent, 0]) {
        const {msgs, n} = elide(keep);
        if (n > 0) yield {messages: [...head, ...msgs], elidedObservations: n, droppedTurns: 0};
    }
    // Drop whole steps (an assistant message and the observations after it), oldest first.
    const {msgs, n} = elide(0);
    const starts = msgs.map((m, i) => (m.role === "assistant" ? i : -1)).filter(i => i >= 0);
    for (let d = 1; d < starts.length; d++) {
        const kept = msgs.slice(starts[d]);
        const task = {role: head[1]!.role, content: `${head[1]!.content}\n\n(${d} earlier step${d > 1 ? "s were" : " was"} dropped to fit the context.)`};
        yield {messages: [head[0]!, task, ...kept], elidedObservations: n, droppedTurns: d};
    }
}

/** Keeps the head and tail of an over-long observation, with a note of what was cut. */
export function truncateMiddle(text: string, maxChars: number): string {
    if (text.length <= maxChars) return text;
    const note = `\n[... ${text.length - maxChars} characters cut to fit the context ...]\n`;
    const keep = Math.max(0, maxChars - note.length);
    const head = Math.ceil(keep * 0.6);
    return text.slice(0, head) + note + text.slice(text.length - (keep - head));
}
