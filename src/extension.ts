// VS Code entry point: wiring only (the host/ layer owns every use of the editor API).

import type * as vscode from "vscode";
import {activateHost, type NanoCoderApi} from "./host/activate";

export function activate(context: vscode.ExtensionContext): NanoCoderApi {
    return activateHost(context);
}

export function deactivate(): void {}
