// Owns showing file changes in VS Code's diff editor: both versions are served as read-only virtual documents
// (scheme `nano-coder-diff`), so proposed edits can be reviewed before they touch the disk and applied ones after.

import * as vscode from "vscode";
import type {EngineFileChange} from "./engine";

export const DIFF_SCHEME = "nano-coder-diff";
const MAX_DOCS = 200;

export class DiffDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
    private readonly docs = new Map<string, string>();
    private readonly reg: vscode.Disposable;
    private counter = 0;

    constructor() {
        this.reg = vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, this);
    }

    provideTextDocumentContent(uri: vscode.Uri): string {
        return this.docs.get(uri.toString()) ?? "";
    }

    /** Opens the diff editor on `change`; `applied` says whether the change is on disk already (for the title). */
    async open(change: EngineFileChange, applied: boolean): Promise<void> {
        const id = ++this.counter;
        const name = change.path.split("/").pop() ?? change.path;
        const left = this.put(`/${id}/before/${change.path}`, change.before ?? "");
        const right = this.put(`/${id}/after/${change.path}`, change.after ?? "");
        const what = change.before === null ? "new file" : change.after === null ? "deleted" : applied ? "applied" : "proposed";
        await vscode.commands.executeCommand("vscode.diff", left, right, `${name} (${what}) — Nano Coder`, {preview: true});
    }

    private put(path: string, text: string): vscode.Uri {
        const uri = vscode.Uri.from({scheme: DIFF_SCHEME, path});
        this.docs.set(uri.toString(), text);
        while (this.docs.size > MAX_DOCS) this.docs.delete(this.docs.keys().next().value!);
        return uri;
    }

    dispose(): void {
        this.reg.dispose();
        this.docs.clear();
    }
}
