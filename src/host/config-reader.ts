// Owns reading and writing the `nanoCoder.*` settings through VS Code: the current Settings, a change event with the
// keys that changed, and adding a command to the allow list ("Always allow this command").

import * as vscode from "vscode";
import {Emitter} from "../common/events";
import {changedSettings, sanitize, SETTING_KEYS, SETTINGS_SECTION, type Settings} from "./settings";

export class ConfigReader implements vscode.Disposable {
    private current: Settings;
    private readonly changed = new Emitter<{settings: Settings; keys: (keyof Settings)[]}>();
    private readonly sub: vscode.Disposable;
    /** Fires after settings change, with the keys that changed. */
    readonly onDidChange = this.changed.event;

    constructor() {
        this.current = ConfigReader.read();
        this.sub = vscode.workspace.onDidChangeConfiguration(e => {
            if (!e.affectsConfiguration(SETTINGS_SECTION)) return;
            const next = ConfigReader.read();
            const keys = changedSettings(this.current, next);
            this.current = next;
            if (keys.length) this.changed.fire({settings: next, keys});
        });
    }

    get settings(): Settings { return this.current; }

    static read(): Settings {
        const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
        const raw: Partial<Record<keyof Settings, unknown>> = {};
        for (const [field, key] of Object.entries(SETTING_KEYS) as [keyof Settings, string][]) raw[field] = c.get(key);
        return sanitize(raw);
    }

    /** Writes one setting (user settings, or the workspace's when it sets the key itself). */
    async update<K extends keyof Settings>(field: K, value: Settings[K]): Promise<void> {
        const c = vscode.workspace.getConfiguration(SETTINGS_SECTION);
        const inspect = c.inspect(SETTING_KEYS[field]);
        const target = inspect?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
        await c.update(SETTING_KEYS[field], value, target);   // onDidChangeConfiguration then refreshes `current`
    }

    async allowCommand(command: string): Promise<void> {
        const list = this.current.allowCommands;
        if (!list.includes(command)) await this.update("allowCommands", [...list, command]);
    }

    dispose(): void {
        this.sub.dispose();
        this.changed.dispose();
    }
}
