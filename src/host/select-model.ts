// Owns "Nano Coder: Select Model…": pick a GGUF file, type an `hf:` URI, or reuse a recent model; the choice goes to the
// `nanoCoder.model` setting and is loaded at once, with download / load progress in a notification.

import * as vscode from "vscode";
import type {ModelStatusView} from "../protocol/messages";
import type {ConfigReader} from "./config-reader";
import {displayName} from "./model-manager";

const RECENT_KEY = "nanoCoder.recentModels";
const HF_RE = /^(hf:|huggingface:)[\w.-]+\/[\w.-]+(:[\w.-]+|\/[\w./-]+\.gguf)?$|^https?:\/\/\S+\.gguf$/;

export interface ModelSelectionDeps {
    config: ConfigReader;
    state: vscode.Memento;
    /** Loads the configured model now. */
    preload(): Promise<void>;
    status(): ModelStatusView;
    onStatus(listener: (s: ModelStatusView) => void): {dispose(): void};
}

/** Runs the picker (or uses `source` directly when given). Returns the chosen source, or undefined when cancelled. */
export async function selectModel(deps: ModelSelectionDeps, source?: string): Promise<string | undefined> {
    const chosen = source ?? await pick(deps);
    if (!chosen) return undefined;
    const recent = [chosen, ...deps.state.get<string[]>(RECENT_KEY, []).filter(r => r !== chosen)].slice(0, 8);
    await deps.state.update(RECENT_KEY, recent);
    await deps.config.update("model", chosen);
    await loadWithProgress(deps, chosen);
    return chosen;
}

async function pick(deps: ModelSelectionDeps): Promise<string | undefined> {
    type Item = vscode.QuickPickItem & {action: "file" | "hf" | "recent"; source?: string};
    const current = deps.config.settings.model;
    const items: Item[] = [
        {label: "$(file) Choose a GGUF file…", action: "file", description: "from this machine"},
        {label: "$(cloud-download) Download from Hugging Face…", action: "hf", description: "an hf: URI, e.g. hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF:Q4_K_M"},
    ];
    const recent = deps.state.get<string[]>(RECENT_KEY, []);
    if (recent.length) items.push({label: "Recent", kind: vscode.QuickPickItemKind.Separator, action: "recent"});
    for (const r of recent) {
        items.push({label: `$(history) ${displayName(r)}`, description: r === current ? "current" : undefined, detail: r, action: "recent", source: r});
    }
    const choice = await vscode.window.showQuickPick(items, {title: "Nano Coder: Select Model", placeHolder: current ? `Current: ${current}` : "No model selected yet"});
    if (!choice) return undefined;
    if (choice.action === "recent") return choice.source;
    if (choice.action === "file") {
        const uris = await vscode.window.showOpenDialog({title: "Select a GGUF model", canSelectMany: false, openLabel: "Use this model",
            filters: {"GGUF models": ["gguf"], "All files": ["*"]}});
        return uris?.[0]?.fsPath;
    }
    const uri = await vscode.window.showInputBox({title: "Model from Hugging Face", prompt: "hf:<user>/<repo>[:<quant>] or hf:<user>/<repo>/<file>.gguf",
        placeHolder: "hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF:Q4_K_M", ignoreFocusOut: true,
        validateInput: v => (HF_RE.test(v.trim()) ? undefined : "Expected hf:<user>/<repo>[:<quant>], hf:<user>/<repo>/<file>.gguf or an https URL of a .gguf")});
    return uri?.trim();
}

async function loadWithProgress(deps: ModelSelectionDeps, source: string): Promise<void> {
    await vscode.window.withProgress({location: vscode.ProgressLocation.Notification, title: `Nano Coder: ${displayName(source)}`, cancellable: false},
        async progress => {
            let last = 0;
            const sub = deps.onStatus(s => {
                const pct = s.progress !== undefined ? Math.round(s.progress * 100) : undefined;
                const increment = pct !== undefined && pct > last ? pct - last : undefined;
                if (pct !== undefined) last = Math.max(last, pct);
                progress.report({message: s.state === "downloading" ? `downloading${pct !== undefined ? ` ${pct}%` : ""}` : s.state === "loading" ? "loading" : s.state,
                    ...(increment ? {increment} : {})});
            });
            try { await deps.preload(); } finally { sub.dispose(); }
        });
    const s = deps.status();
    if (s.state === "error") void vscode.window.showErrorMessage(`Nano Coder could not load ${displayName(source)}: ${s.detail ?? "unknown error"}`);
    else if (s.state === "ready") void vscode.window.setStatusBarMessage(`Nano Coder: ${displayName(source)} ready`, 4000);
}
