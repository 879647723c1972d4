// Owns extension activation: builds the host's parts (settings, log, model manager, trace and checkpoint stores, agent
// adapter, session controller, panel, diff documents, status bar, commands, test-run watcher), wires their events, and
// ties every part's lifetime to the extension context. Returns the extension's API (used by the integration tests).

import {join} from "node:path";
import * as vscode from "vscode";
import type {SessionEvent} from "../protocol/session";
import {CheckpointStore} from "../coder/checkpoint-store";
import {TraceStore} from "../traces/store";
import {AgentAdapter} from "./agent-adapter";
import {COMMANDS, registerCommands} from "./commands";
import {ConfigReader} from "./config-reader";
import {DiffDocuments} from "./diff-documents";
import {ModelManager, type ModelSpec} from "./model-manager";
import {describePolicy, panelHandlers} from "./panel-handlers";
import {PanelProvider} from "./panel-provider";
import {ModelLoader, type RunnableModel} from "./runnable-model";
import {selectModel} from "./select-model";
import {SessionController} from "./session-controller";
import {MODEL_KEYS, type Settings} from "./settings";
import {StatusBar} from "./status-bar";
import {watchUserTestRuns} from "./user-test-runs";

export interface NanoCoderApi {
    readonly sessions: SessionController;
    readonly models: ModelManager<RunnableModel>;
    /** The trace store sessions are written to. */
    store(): TraceStore;
    /** Where sessions keep their undo points and file versions (this workspace's extension storage). */
    checkpoints(): CheckpointStore;
    /** The status-bar item's text. */
    statusText(): string;
    settings(): Settings;
    /** Resolves when the agent panel's webview is loaded and has talked to the host (opening it if needed). */
    panelReady(): Promise<void>;
}

/** Workspace state key of the panel's current session (its events). */
const SESSION_KEY = "nanoCoder.panelSession";

const modelSpec = (s: Settings): ModelSpec => ({source: s.model, gpu: s.gpu, threads: s.threads, contextSize: s.contextSize});

export function activateHost(context: vscode.ExtensionContext): NanoCoderApi {
    const subs = context.subscriptions;
    const log = vscode.window.createOutputChannel("Nano Coder", {log: true});
    subs.push(log);
    const config = new ConfigReader();
    subs.push(config);

    const loader = new ModelLoader(join(context.globalStorageUri.fsPath, "cache"));
    const models = new ModelManager<RunnableModel>(loader.load, modelSpec(config.settings), m => log.info(m));
    subs.push({dispose: () => void models.dispose().then(() => loader.dispose())});

    let store: {dir: string; store: TraceStore} | undefined;
    const traceStore = (): TraceStore => {
        const dir = config.settings.tracesDir || join(context.globalStorageUri.fsPath, "traces");
        if (store?.dir !== dir) store = {dir, store: TraceStore.open(dir)};
        return store.store;
    };
    const workspace = () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    // undo points belong to a workspace: its own storage (global storage only when no folder is open)
    let checkpointStore: CheckpointStore | undefined;
    const checkpoints = (): CheckpointStore =>
        checkpointStore ??= CheckpointStore.open(join((context.storageUri ?? context.globalStorageUri).fsPath, "checkpoints"));

    const engine = new AgentAdapter({models, settings: () => config.settings, workspace, store: traceStore, checkpoints,
        log: (level, m) => log[level](m)});
    const sessions = new SessionController({engine, labels: {label: (id, name, o) => traceStore().label(id, name, o)},
        allowCommand: c => config.allowCommand(c), log: (level, m) => log[level](m)});
    subs.push(sessions);
    sessions.load(context.workspaceState.get<SessionEvent[]>(SESSION_KEY, []));   // the panel's session survives a window reload
    void engine.cleanup(sessions.currentId ? [sessions.currentId] : []);   // ... and so do its undo points; older ones go
    const diffs = new DiffDocuments((s, c, p, phase) => engine.change(s, c, p, phase));   // diff tabs restored by a reload
    subs.push(diffs);

    const panel = new PanelProvider(context.extensionUri, panelHandlers({sessions, diffs, store: traceStore,
        modelStatus: () => models.status, settings: () => config.settings}), log);
    subs.push(panel, vscode.window.registerWebviewViewProvider(PanelProvider.viewType, panel));

    const status = new StatusBar(COMMANDS.selectModel);
    subs.push(status);
    status.setModel(models.status);

    // events → panel, status bar, context keys
    const setRunning = (running: boolean) => void vscode.commands.executeCommand("setContext", "nanoCoder.sessionRunning", running);
    subs.push(
        toVs(models.onDidChangeStatus(s => { status.setModel(s); panel.notify("model/status", s); })),
        toVs(sessions.onEvent(e => {
            panel.notify("session/event", e);
            if (e.type !== "token") void context.workspaceState.update(SESSION_KEY, sessions.snapshot());
            if (e.type === "started") setRunning(true);
            if (e.type === "finished") setRunning(false);
            if (e.type === "approval" && e.approval === "pending" && !panel.visible) void panel.show(true);
        })),
        toVs(sessions.onReset(() => {
            panel.notify("session/reset", {});
            setRunning(false);
            void context.workspaceState.update(SESSION_KEY, undefined);
        })),
        toVs(sessions.onHistoryChanged(() => panel.notify("history/changed", {}))),
        toVs(config.onDidChange(({settings, keys}) => {
            log.info(`settings changed: ${keys.join(", ")}`);
            if (keys.some(k => MODEL_KEYS.includes(k))) void models.configure(modelSpec(settings));
            if (keys.some(k => ["approvalMode", "allowCommands", "denyCommands", "allowReadOnlyCommands"].includes(k))) {
                panel.notify("settings/changed", {approvalPolicy: describePolicy(settings)});
            }
        })),
    );

    const preload = async () => { await models.configure(modelSpec(ConfigReader.read())); await models.preload(); };
    subs.push(registerCommands({panel, sessions, log, extensionId: context.extension.id,
        selectModel: source => selectModel({config, state: context.globalState, preload, status: () => models.status,
            onStatus: l => models.onDidChangeStatus(l)}, source)}));
    subs.push(watchUserTestRuns({testCommand: () => config.settings.testCommand, workspace,
        report: (passed, command) => {
            log.info(`user test run: ${command} ${passed ? "passed" : "failed"}`);
            void sessions.recordUserTests(passed, command).catch(e => log.warn(`could not record the test run: ${String(e)}`));
        }}));

    log.info(`Nano Coder activated (model: ${config.settings.model || "none"}; traces: ${traceStore().dir})`);
    let ready = false;
    subs.push(panel.onDidBecomeReady(() => { ready = true; }), panel.onDidResolve(() => { ready = false; }));
    const panelReady = async () => {
        if (ready && panel.isResolved) return;
        const wait = new Promise<void>(r => { const s = panel.onDidBecomeReady(() => { s.dispose(); r(); }); });
        await panel.show(true);
        await wait;
    };
    return {sessions, models, store: traceStore, checkpoints, statusText: () => status.text, settings: () => config.settings, panelReady};
}

function toVs(d: {dispose(): void}): vscode.Disposable {
    return new vscode.Disposable(() => d.dispose());
}
