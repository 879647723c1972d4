// Owns hiding the tool-call trigger from streamed text: the model writes "<tool_call>" as ordinary text tokens before
// the grammar takes over, so text that might be the start of the trigger is held back until it is known not to be.

export class TriggerHoldback {
    private held = "";

    constructor(private readonly trigger: string) {}

    /** Text safe to show now, given the next streamed piece. */
    push(delta: string): string {
        const text = this.held + delta;
        const keep = this.trigger ? partialSuffix(text, this.trigger) : 0;
        this.held = text.slice(text.length - keep);
        return text.slice(0, text.length - keep);
    }

    /** The model started a call: the held text was the trigger; drop it. */
    drop(): void { this.held = ""; }

    /** The turn ended in text: whatever is held was text after all. */
    flush(): string {
        const t = this.held;
        this.held = "";
        return t;
    }
}

/** Length of the longest suffix of `text` that is a prefix of `trigger` (a whole trigger counts too). */
function partialSuffix(text: string, trigger: string): number {
    const at = text.lastIndexOf(trigger);
    if (at >= 0 && at + trigger.length === text.length) return trigger.length;
    for (let n = Math.min(trigger.length - 1, text.length); n > 0; n--) {
        if (text.endsWith(trigger.slice(0, n))) return n;
    }
    return 0;
}
