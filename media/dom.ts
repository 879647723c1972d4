// Owns the webview's narrow, typed view of the browser: the few DOM members the panel uses, an element builder, and
// the VS Code webview API. The project's tsconfig has no DOM library (Node code must not see browser globals), so
// the panel declares here exactly what it touches, and nothing else in media/ reaches for globals.

export interface DomEvent {
    readonly key: string;
    readonly shiftKey: boolean;
    readonly ctrlKey: boolean;
    readonly metaKey: boolean;
    readonly isComposing?: boolean;
    preventDefault(): void;
}

export interface MessageEventLike { readonly data: unknown }

export interface El {
    textContent: string | null;
    className: string;
    hidden: boolean;
    id: string;
    title: string;
    tabIndex: number;
    readonly classList: {toggle(c: string, on?: boolean): boolean; add(...c: string[]): void; remove(...c: string[]): void; contains(c: string): boolean};
    readonly dataset: Record<string, string | undefined>;
    readonly children: ArrayLike<El>;
    readonly parentElement: El | null;
    setAttribute(name: string, value: string): void;
    removeAttribute(name: string): void;
    getAttribute(name: string): string | null;
    append(...nodes: (El | string)[]): void;
    replaceChildren(...nodes: (El | string)[]): void;
    replaceWith(...nodes: (El | string)[]): void;
    before(...nodes: (El | string)[]): void;
    remove(): void;
    addEventListener(type: string, listener: (e: DomEvent) => void): void;
    querySelector(selector: string): El | null;
    contains(other: El | null): boolean;
    querySelectorAll(selector: string): ArrayLike<El>;
    focus(): void;
    scrollIntoView(opts?: {block?: "end" | "nearest" | "start"}): void;
    scrollTop: number;
    readonly scrollHeight: number;
    readonly clientHeight: number;
    /** Inputs and text areas. */
    value: string;
    /** Buttons and inputs. */
    disabled: boolean;
    /** <details>. */
    open: boolean;
}

interface DocumentLike {
    getElementById(id: string): El | null;
    createElement(tag: string): El;
    readonly body: El;
    readonly activeElement: El | null;
}

interface WindowLike {
    addEventListener(type: "message", listener: (e: MessageEventLike) => void): void;
    addEventListener(type: string, listener: (e: DomEvent) => void): void;
}

/** The object `acquireVsCodeApi()` returns inside a VS Code webview. */
export interface VsCodeApi<S> {
    postMessage(msg: unknown): void;
    getState(): S | undefined;
    setState(state: S): void;
}

const g = globalThis as unknown as {document: DocumentLike; window: WindowLike; acquireVsCodeApi<S>(): VsCodeApi<S>};
export const doc = g.document;
export const win = g.window;
export function acquireVsCodeApi<S>(): VsCodeApi<S> { return g.acquireVsCodeApi<S>(); }

export type Child = El | string | null | undefined | false;
export type Attrs = Record<string, string | number | boolean | undefined | ((e: DomEvent) => void)>;

/**
 * `h("button.primary", {onclick: f, "aria-label": "Send"}, "Send")`: an element with classes from the tag, attributes
 * (false/undefined omitted, true as ""), `on*` listeners, and children (strings become text, falsy ones are skipped).
 */
export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): El {
    const [name, ...classes] = tag.split(".");
    const el = doc.createElement(name || "div");
    if (classes.length) el.className = classes.join(" ");
    for (const [k, v] of Object.entries(attrs)) {
        if (v === undefined || v === false) continue;
        if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
        else if (k === "class") el.className = [el.className, String(v)].filter(Boolean).join(" ");
        else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
    return el;
}

export function byId(id: string): El {
    const el = doc.getElementById(id);
    if (!el) throw new Error(`#${id} is missing from the panel's HTML`);
    return el;
}
