// Owns the status-bar item: the model and its state (and, once the trainer lands, the adapter version and training
// state). Clicking it selects a model.

import * as vscode from "vscode";
import type {ModelStatusView} from "../protocol/messages";

export class StatusBar implements vscode.Disposable {
    private readonly item: vscode.StatusBarItem;
    private model: ModelStatusView = {state: "none"};
    private adapter: string | undefined;
    private training: string | undefined;

    constructor(command: string) {
        this.item = vscode.window.createStatusBarItem("nanoCoder.status", vscode.StatusBarAlignment.Right, 100);
        this.item.name = "Nano Coder";
        this.item.command = command;
        this.render();
        this.item.show();
    }

    setModel(s: ModelStatusView): void { this.model = s; this.render(); }
    /** The LoRA adapter version in use (trainer). */
    setAdapter(version: string | undefined): void { this.adapter = version; this.render(); }
    /** A short training state, e.g. "training 40%" (trainer). */
    setTraining(state: string | undefined): void { this.training = state; this.render(); }

    /** The item's text, for tests. */
    get text(): string { return this.item.text; }

    private render(): void {
        const m = this.model;
        const pct = m.progress !== undefined ? ` ${Math.round(m.progress * 100)}%` : "";
        const icon = m.state === "loading" || m.state === "downloading" ? "$(sync~spin)" : m.state === "error" ? "$(error)" : "$(hubot)";
        const name = m.state === "none" ? "no model" : m.name ?? "model";
        const state = m.state === "downloading" ? ` downloading${pct}` : m.state === "loading" ? ` loading${pct}` : "";
        const extra = [this.adapter && `adapter ${this.adapter}`, this.training].filter(Boolean).join(" · ");
        this.item.text = `${icon} ${name}${state}${extra ? ` · ${extra}` : ""}`;
        const md = new vscode.MarkdownString(undefined, true);
        md.appendMarkdown(`**Nano Coder** — model: ${m.state === "none" ? "none selected" : m.name ?? ""} (${m.state})`);
        if (m.detail) md.appendMarkdown(`\n\n${m.detail}`);
        if (extra) md.appendMarkdown(`\n\n${extra}`);
        md.appendMarkdown("\n\nClick to select a model.");
        this.item.tooltip = md;
        this.item.backgroundColor = m.state === "error" ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
    }

    dispose(): void { this.item.dispose(); }
}
