// Owns extension activation: registers the host's contributions and ties their lifetime to the extension context.

import * as vscode from "vscode";

export function activateHost(context: vscode.ExtensionContext): void {
    const log = vscode.window.createOutputChannel("Nano Coder", {log: true});
    context.subscriptions.push(log);
    log.info("Nano Coder activated");
}
