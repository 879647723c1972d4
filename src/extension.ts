// VS Code entry point: wiring only (the host/ layer owns every use of the editor API).

import type * as vscode from "vscode";
import {activateHost} from "./host/activate";

export function activate(context: vscode.ExtensionContext): void {
    activateHost(context);
}

export function deactivate(): void {}
