// Owns the agent panel's webview view: its HTML and resource roots, and the message transport — every incoming message
// is validated against the protocol and answered by exactly one response; notifications go out while a view exists.
// What a request does is the handlers' business (panel-handlers.ts).

import * as vscode from "vscode";
import {errorMessage} from "../common/errors";
import type {NotifyType, RequestData, RequestType, ResponseData, ToWebview} from "../protocol/messages";
import {parseRequest} from "../protocol/validate";
import {panelHtml} from "./panel-html";

export type RequestHandlers = {[K in RequestType]: (data: RequestData<K>) => Promise<ResponseData<K>> | ResponseData<K>};

export class PanelProvider implements vscode.WebviewViewProvider, vscode.Disposable {
    static readonly viewType = "nanoCoder.agentView";
    static readonly containerId = "nanoCoder";
    private view: vscode.WebviewView | undefined;
    private readonly resolvedEmitter = new vscode.EventEmitter<vscode.WebviewView>();
    /** Fires when VS Code (re)creates the view. */
    readonly onDidResolve = this.resolvedEmitter.event;
    private readonly readyEmitter = new vscode.EventEmitter<void>();
    /** Fires when the panel's script has loaded and asked for its state (it is live). */
    readonly onDidBecomeReady = this.readyEmitter.event;

    constructor(private readonly extensionUri: vscode.Uri, private readonly handlers: RequestHandlers,
        private readonly log: vscode.LogOutputChannel) {}

    get isResolved(): boolean { return this.view !== undefined; }
    get visible(): boolean { return this.view?.visible ?? false; }

    resolveWebviewView(view: vscode.WebviewView): void {
        this.view = view;
        const dist = vscode.Uri.joinPath(this.extensionUri, "dist");
        const media = vscode.Uri.joinPath(this.extensionUri, "media");
        view.webview.options = {enableScripts: true, localResourceRoots: [dist, media]};
        view.webview.html = panelHtml({
            cspSource: view.webview.cspSource,
            scriptUri: view.webview.asWebviewUri(vscode.Uri.joinPath(dist, "webview.js")).toString(),
            styleUri: view.webview.asWebviewUri(vscode.Uri.joinPath(media, "panel.css")).toString(),
        });
        const msgSub = view.webview.onDidReceiveMessage(m => void this.onMessage(view, m));
        const disposeSub = view.onDidDispose(() => {
            msgSub.dispose();
            disposeSub.dispose();
            if (this.view === view) this.view = undefined;
        });
        this.resolvedEmitter.fire(view);
    }

    notify<K extends NotifyType>(type: K, data: ToWebview[K]): void {
        void this.view?.webview.postMessage({kind: "notify", type, data});
    }

    /** Reveals the panel (opening its activity-bar container). */
    async show(preserveFocus = false): Promise<void> {
        if (this.view) this.view.show(preserveFocus);
        else await vscode.commands.executeCommand(`${PanelProvider.viewType}.focus`);
    }

    private async onMessage(view: vscode.WebviewView, raw: unknown): Promise<void> {
        const parsed = parseRequest(raw);
        if (!parsed.ok) {
            this.log.warn(`panel: rejected a message: ${parsed.error}`);
            if (parsed.id !== undefined) void view.webview.postMessage({kind: "response", id: parsed.id, ok: false, error: parsed.error});
            return;
        }
        const {id, type, data} = parsed.msg;
        try {
            const handler = this.handlers[type] as (d: typeof data) => unknown;
            const result = await handler(data);
            void view.webview.postMessage({kind: "response", id, ok: true, data: result ?? null});
            if (type === "panel/ready") this.readyEmitter.fire();
        } catch (e) {
            this.log.error(`panel: ${type} failed: ${errorMessage(e)}`);
            void view.webview.postMessage({kind: "response", id, ok: false, error: errorMessage(e)});
        }
    }

    dispose(): void {
        this.resolvedEmitter.dispose();
        this.readyEmitter.dispose();
    }
}
