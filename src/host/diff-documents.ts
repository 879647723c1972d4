// Owns showing file changes in VS Code's diff editor: both versions are served as read-only virtual documents
// (scheme `nano-coder-diff`), so proposed edits can be reviewed before they touch the disk and applied ones after.
// A document's URI names its session, call, phase and side, so a diff tab VS Code restores after a window reload is
// filled again from the versions the session kept on disk.

import * as vscode from "vscode";
import type {ChangePhase, EngineFileChange} from "./engine";

export const DIFF_SCHEME = "nano-coder-diff";
const MAX_DOCS = 200;

/** Finds the versions of a change a session kept (after a reload, when they are no longer in memory). */
export type ChangeResolver = (sessionId: string, callId: string, path: string, phase: ChangePhase) => Promise<EngineFileChange | undefined>;

/** Which change a diff shows. */
export interface DiffSource { sessionId: string; callId: string }

const SEGMENT = /^[\w.-]+$/;

export class DiffDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
    private readonly docs = new Map<string, string>();
    private readonly reg: vscode.Disposable;
    private counter = 0;

    constructor(private readonly resolve?: ChangeResolver) {
        this.reg = vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, this);
    }

    async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
        const known = this.docs.get(uri.toString());
        if (known !== undefined) return known;
        // /<session>/<call>/<phase>/<side>/<path…>: a tab restored after a reload
        const [, sessionId, callId, phase, side, ...rest] = uri.path.split("/");
        if (!this.resolve || !sessionId || !callId || (phase !== "proposed" && phase !== "applied") || (side !== "before" && side !== "after")) return "";
        const change = await this.resolve(sessionId, callId, rest.join("/"), phase).catch(() => undefined);
        return (side === "before" ? change?.before : change?.after) ?? "";
    }

    /** Opens the diff editor on `change`; `applied` says whether the change is on disk already (for the title). */
    async open(change: EngineFileChange, applied: boolean, source?: DiffSource): Promise<void> {
        const name = change.path.split("/").pop() ?? change.path;
        const phase: ChangePhase = applied ? "applied" : "proposed";
        const base = source && SEGMENT.test(source.sessionId) && SEGMENT.test(source.callId)
            ? `/${source.sessionId}/${source.callId}/${phase}` : `/${++this.counter}/${phase}`;
        const left = this.put(`${base}/before/${change.path}`, change.before ?? "");
        const right = this.put(`${base}/after/${change.path}`, change.after ?? "");
        const what = change.before === null ? "new file" : change.after === null ? "deleted" : applied ? "applied" : "proposed";
        await vscode.commands.executeCommand("vscode.diff", left, right, `${name} (${what}) — Nano Coder`, {preview: true});
    }

    private put(path: string, text: string): vscode.Uri {
        const uri = vscode.Uri.from({scheme: DIFF_SCHEME, path});
        this.docs.delete(uri.toString());
        this.docs.set(uri.toString(), text);
        while (this.docs.size > MAX_DOCS) this.docs.delete(this.docs.keys().next().value!);
        return uri;
    }

    dispose(): void {
        this.reg.dispose();
        this.docs.clear();
    }
}
