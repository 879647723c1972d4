// Owns the extension's settings as one plain typed object: every `nanoCoder.*` key, its default and why. package.json's
// `contributes.configuration` mirrors these defaults (a unit test keeps the two equal). Reading them from VS Code is
// config-reader.ts; this file knows nothing of the editor.

export type GpuSetting = "auto" | "off";
export type ApprovalMode = "ask" | "auto" | "read-only";
export type SandboxSetting = "auto" | "strong" | "weak";

export interface Settings {
    /** GGUF file path or `hf:` URI (e.g. `hf:Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF:Q4_K_M`). Empty: none chosen yet.
     *  `scripted:<file.json>` runs a scripted stand-in model (for demos and UI tests). */
    model: string;
    /** "auto": the best GPU backend node-llama-cpp finds (CUDA, Vulkan, Metal), else CPU. "off" forces CPU. */
    gpu: GpuSetting;
    /** CPU threads for generation; 0 = one per physical core. node-llama-cpp's own default (4) is slow on 2 cores. */
    threads: number;
    /** Context window in tokens. 8192 fits a few dozen tool turns of a small model; larger costs memory. */
    contextSize: number;
    /** "ask": read-only tools run, edits and commands ask unless allowed. "auto": all runs unless denied. "read-only": nothing writes. */
    approvalMode: ApprovalMode;
    /** Command prefixes that run without asking ("npm test", "npm run *"). "Always allow" on a card adds here. */
    allowCommands: string[];
    /** Command prefixes always refused, even in "auto" mode. */
    denyCommands: string[];
    /** Built-in read-only commands (ls, cat, grep, git status, ...) run without asking. */
    allowReadOnlyCommands: boolean;
    /** "auto": bubblewrap where it works (no network, workspace-only writes), else a labelled weak sandbox. */
    sandboxMode: SandboxSetting;
    /** Refuse to run commands without the strong sandbox. */
    requireStrongSandbox: boolean;
    /** Model turns before a session stops. */
    maxTurns: number;
    /** Tokens the model may sample over a whole session (a runaway model stops here). */
    maxTokens: number;
    /** Tokens the model may sample in one turn. 1024 fits a tool call with a file of a few hundred lines. */
    turnTokens: number;
    /** The workspace's test command (the agent's run_tests tool, and user runs that count as tests). Empty: detected. */
    testCommand: string;
    /** Folder of the trace store. Empty: the extension's global storage (shared by all workspaces, for training). */
    tracesDir: string;
}

export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
    model: "",
    gpu: "auto",
    threads: 0,
    contextSize: 8192,
    approvalMode: "ask",
    allowCommands: [],
    denyCommands: ["git push", "curl", "wget", "ssh", "scp", "sudo"],
    allowReadOnlyCommands: true,
    sandboxMode: "auto",
    requireStrongSandbox: false,
    maxTurns: 20,
    maxTokens: 32768,
    turnTokens: 1024,
    testCommand: "",
    tracesDir: "",
});

/** The setting key (under `nanoCoder.`) of each field. */
export const SETTING_KEYS: Readonly<Record<keyof Settings, string>> = Object.freeze({
    model: "model",
    gpu: "gpu",
    threads: "threads",
    contextSize: "contextSize",
    approvalMode: "approval.mode",
    allowCommands: "approval.allowCommands",
    denyCommands: "approval.denyCommands",
    allowReadOnlyCommands: "approval.allowReadOnlyCommands",
    sandboxMode: "sandbox.mode",
    requireStrongSandbox: "sandbox.requireStrong",
    maxTurns: "agent.maxTurns",
    maxTokens: "agent.maxTokens",
    turnTokens: "agent.turnTokens",
    testCommand: "agent.testCommand",
    tracesDir: "traces.dir",
});

export const SETTINGS_SECTION = "nanoCoder";

/** Which of the settings changed between `a` and `b`. */
export function changedSettings(a: Settings, b: Settings): (keyof Settings)[] {
    return (Object.keys(a) as (keyof Settings)[]).filter(k => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

/** The settings that decide which model is loaded and how: a change reloads it. */
export const MODEL_KEYS: readonly (keyof Settings)[] = ["model", "gpu", "threads", "contextSize"];

/** Keeps values in range (VS Code validates only in its UI; settings.json can say anything). */
export function sanitize(raw: Partial<Record<keyof Settings, unknown>>): Settings {
    const d = DEFAULT_SETTINGS;
    const pick = <K extends keyof Settings>(k: K, ok: (v: unknown) => boolean): Settings[K] => (ok(raw[k]) ? raw[k] : d[k]) as Settings[K];
    const oneOf = (vals: readonly string[]) => (v: unknown) => typeof v === "string" && vals.includes(v);
    const int = (min: number, max: number) => (v: unknown) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
    const strings = (v: unknown) => Array.isArray(v) && v.every(x => typeof x === "string");
    const str = (v: unknown) => typeof v === "string";
    const bool = (v: unknown) => typeof v === "boolean";
    return {
        model: (pick("model", str) as string).trim(),
        gpu: pick("gpu", oneOf(["auto", "off"])),
        threads: pick("threads", int(0, 1024)),
        contextSize: pick("contextSize", int(256, 1 << 20)),
        approvalMode: pick("approvalMode", oneOf(["ask", "auto", "read-only"])),
        allowCommands: [...pick("allowCommands", strings)],
        denyCommands: [...pick("denyCommands", strings)],
        allowReadOnlyCommands: pick("allowReadOnlyCommands", bool),
        sandboxMode: pick("sandboxMode", oneOf(["auto", "strong", "weak"])),
        requireStrongSandbox: pick("requireStrongSandbox", bool),
        maxTurns: pick("maxTurns", int(1, 1000)),
        maxTokens: pick("maxTokens", int(16, 1 << 24)),
        turnTokens: pick("turnTokens", int(16, 1 << 20)),
        testCommand: pick("testCommand", str),
        tracesDir: pick("tracesDir", str),
    };
}
