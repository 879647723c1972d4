// Owns the agent panel's HTML shell: the static layout the webview script fills in, under a strict Content Security
// Policy (no inline code; the one script carries a fresh nonce; styles and script only from the extension).

import {randomBytes} from "node:crypto";

export interface PanelHtmlOptions {
    /** The webview's `cspSource` (origin of the extension's resources as the webview sees them). */
    cspSource: string;
    scriptUri: string;
    styleUri: string;
    nonce?: string;
}

export function newNonce(): string {
    return randomBytes(18).toString("base64").replace(/[^A-Za-z0-9]/g, "");
}

const esc = (s: string): string => s.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);

export function panelHtml(o: PanelHtmlOptions): string {
    const nonce = o.nonce ?? newNonce();
    const csp = [`default-src 'none'`, `style-src ${o.cspSource}`, `script-src 'nonce-${nonce}'`, `img-src ${o.cspSource} data:`,
        `font-src ${o.cspSource}`].join("; ");
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${esc(o.styleUri)}">
<title>Nano Coder</title>
</head>
<body>
<div class="topbar">
  <div role="tablist" aria-label="Panel views">
    <button type="button" role="tab" id="tab-chat" aria-controls="chat-pane" aria-selected="true">Chat</button>
    <button type="button" role="tab" id="tab-history" aria-controls="history-pane" aria-selected="false" tabindex="-1">History</button>
  </div>
  <button type="button" class="model-chip" id="model" data-testid="model" aria-label="Model (click to select another)">…</button>
</div>
<main aria-busy="true">
  <section id="chat-pane" role="tabpanel" aria-labelledby="tab-chat">
    <div id="log" data-testid="log" role="log" aria-live="off" aria-label="Session"></div>
    <div id="announce" class="visually-hidden" role="status" aria-live="polite"></div>
    <p id="empty" class="muted empty-state">Ask the agent to change something in this workspace. It proposes each edit and command;
      you approve, see the diff, and accept or reject the result.</p>
    <div class="composer">
      <textarea id="input" data-testid="task-input" rows="3" aria-label="Task for the agent"></textarea>
      <div class="composer-row">
        <span id="policy" class="muted"></span>
        <button type="button" id="new-session" class="secondary" data-testid="new-session" title="Start over with an empty chat">New</button>
        <button type="button" id="stop" class="secondary" data-testid="stop" hidden>Stop</button>
        <button type="button" id="send" class="primary" data-testid="send">Send</button>
      </div>
      <div id="error" role="alert" hidden></div>
    </div>
  </section>
  <section id="history-pane" class="pane" role="tabpanel" aria-labelledby="tab-history" hidden></section>
</main>
<script nonce="${nonce}" src="${esc(o.scriptUri)}"></script>
</body>
</html>`;
}
