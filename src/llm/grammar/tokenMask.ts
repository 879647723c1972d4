// Owns the bridge from a character grammar to tokens: which tokens of a vocabulary may come next in a MatchState.
// Allowed sets outside strings (structure, literals, names, numbers) are enumerated exactly through a first-character
// index; inside string bodies, where almost every token is allowed, callers test candidates one by one instead.

import type {Vocabulary} from "../vocab";
import type {MatchState} from "./matcher";

export class TokenMasker {
    private byFirst?: Map<string, number[]>;
    private eogs?: number[];

    constructor(readonly vocab: Vocabulary) {}

    /** Whether `token` may come next: its text keeps the match alive, or it ends a complete match (EOG). */
    allows(state: MatchState, token: number): boolean {
        return this.after(state, token) !== undefined;
    }

    /** The state after `token`, or undefined when not allowed. EOG tokens leave a complete state unchanged. */
    after(state: MatchState, token: number): MatchState | undefined {
        if (this.vocab.isEog(token)) return state.accepting ? state : undefined;
        if (this.vocab.isControl(token)) return undefined;
        const piece = this.vocab.piece(token);
        return piece === "" ? undefined : state.feed(piece);
    }

    /**
     * Every allowed next token, or "many" inside string bodies, where nearly every token is allowed and callers
     * test candidates instead. A complete state allows exactly the EOG tokens (and whatever may still extend it).
     */
    allowed(state: MatchState): number[] | "many" {
        const eog = state.accepting ? this.eogTokens() : [];
        if (!state.canContinue) return eog;
        const chars = state.nextChars();
        if (chars === "many") return "many";
        const out: number[] = [];
        for (const c of chars) for (const t of this.index().get(c) ?? []) if (this.after(state, t)) out.push(t);
        return [...out, ...eog];
    }

    /** Every allowed next token, by testing the whole vocabulary (for "many" states when no shortcut is exact). */
    allowedByScan(state: MatchState): number[] {
        const out: number[] = [];
        for (let t = 0; t < this.vocab.size; t++) if (this.after(state, t)) out.push(t);
        return out;
    }

    eogTokens(): number[] {
        if (!this.eogs) {
            this.eogs = [];
            for (let t = 0; t < this.vocab.size; t++) if (this.vocab.isEog(t)) this.eogs.push(t);
        }
        return this.eogs;
    }

    private index(): Map<string, number[]> {
        if (!this.byFirst) {
            this.byFirst = new Map();
            for (let t = 0; t < this.vocab.size; t++) {
                if (this.vocab.isControl(t)) continue;
                const p = this.vocab.piece(t);
                if (!p) continue;
                const c = p[0]!;
                let list = this.byFirst.get(c);
                if (!list) this.byFirst.set(c, (list = []));
                list.push(t);
            }
        }
        return this.byFirst;
    }
}
