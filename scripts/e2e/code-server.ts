// Owns one isolated code-server for an end-to-end run: its own profile, HOME/XDG/TMPDIR, port and process group,
// started and stopped (the whole group) together. Knows nothing of the tests it serves.

import {spawn, spawnSync, type ChildProcess} from "node:child_process";
import {createWriteStream, mkdirSync, mkdtempSync, readFileSync, writeFileSync} from "node:fs";
import {createServer} from "node:net";
import {homedir, tmpdir} from "node:os";
import {join} from "node:path";

export interface CodeServerOptions {
    /** The code-server binary (scripts/e2e/install.sh prints it). Default: $CODE_SERVER or the install cache. */
    bin?: string;
    /** User settings written into the fresh profile before start. */
    settings?: Record<string, unknown>;
    /** Extra environment for the server and its extension hosts (they inherit it). */
    env?: Record<string, string>;
    /** A .vsix installed into the fresh profile before start. */
    vsix?: string;
    /** Prefix of the run's temp folder. */
    name?: string;
}

export interface CodeServer {
    readonly url: string;
    readonly port: number;
    /** The run's temp folder: profile, logs, HOME. */
    readonly root: string;
    readonly logFile: string;
    /** The profile's user settings.json (VS Code watches it: a test may edit it like a user). */
    readonly userSettings: string;
    /** Ends the server's whole process group (extension hosts outlive a plain kill of the server). */
    stop(): Promise<void>;
}

export const CS_VERSION = "4.100.3";

export function defaultCodeServerBin(): string {
    const cache = process.env.NANO_E2E_CACHE ?? join(homedir(), ".cache", "nano-coder-e2e");
    return process.env.CODE_SERVER ?? join(cache, `code-server-${CS_VERSION}`, "node_modules", ".bin", "code-server");
}

async function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const s = createServer();
        s.once("error", reject);
        s.listen(0, "127.0.0.1", () => {
            const a = s.address();
            const port = typeof a === "object" && a ? a.port : 0;
            s.close(() => resolve(port));
        });
    });
}

const quietSettings = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "security.workspace.trust.enabled": false,
    "extensions.autoUpdate": false,
    "extensions.autoCheckUpdates": false,
    "extensions.ignoreRecommendations": true,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "git.enabled": false,
    "chat.commandCenter.enabled": false,
    "workbench.colorTheme": "Default Dark Modern",
};

export async function startCodeServer(opts: CodeServerOptions = {}): Promise<CodeServer> {
    const bin = opts.bin ?? defaultCodeServerBin();
    const root = mkdtempSync(join(process.env.NANO_E2E_TMP ?? tmpdir(), `${opts.name ?? "nano-e2e"}-`));
    const dirs = {ud: join(root, "ud"), ext: join(root, "ext"), home: join(root, "home"), tmp: join(root, "tmp")};
    for (const d of Object.values(dirs)) mkdirSync(d, {recursive: true});
    mkdirSync(join(dirs.ud, "User"), {recursive: true});
    writeFileSync(join(dirs.ext, "extensions.json"), "[]");   // avoids an error on the first install
    writeFileSync(join(root, "config.yaml"), "");
    const userSettings = join(dirs.ud, "User", "settings.json");
    writeFileSync(userSettings, JSON.stringify({...quietSettings, ...opts.settings}, null, 2));
    const env: NodeJS.ProcessEnv = {
        ...process.env, HOME: dirs.home, XDG_CONFIG_HOME: join(dirs.home, ".config"), XDG_DATA_HOME: join(dirs.home, ".local/share"),
        XDG_CACHE_HOME: join(dirs.home, ".cache"), TMPDIR: dirs.tmp, XDG_RUNTIME_DIR: dirs.tmp, ...opts.env,
    };
    const common = ["--user-data-dir", dirs.ud, "--extensions-dir", dirs.ext];
    if (opts.vsix) {
        const r = spawnSync(bin, [...common, "--install-extension", opts.vsix], {env, encoding: "utf8"});
        if (r.status !== 0) throw new Error(`installing ${opts.vsix} failed:\n${r.stdout}\n${r.stderr}`);
    }
    const port = await freePort();
    const logFile = join(root, "server.log");
    const log = createWriteStream(logFile);
    const child: ChildProcess = spawn(bin, ["--config", join(root, "config.yaml"), "--auth", "none", "--bind-addr", `127.0.0.1:${port}`,
        "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust", "--disable-getting-started-override", ...common],
    {env, stdio: ["ignore", "pipe", "pipe"], detached: true});   // own process group: extension hosts die with it
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    let exited = false;
    child.once("exit", () => { exited = true; });
    const url = `http://127.0.0.1:${port}`;
    const stop = async (): Promise<void> => {
        const kill = (sig: NodeJS.Signals): void => { try { if (child.pid) process.kill(-child.pid, sig); } catch { /* gone */ } };
        kill("SIGTERM");
        for (let i = 0; i < 20 && !exited; i++) await new Promise(r => setTimeout(r, 100));
        kill("SIGKILL");
    };
    for (let i = 0; ; i++) {
        try { if ((await fetch(`${url}/healthz`)).ok) break; } catch { /* not yet */ }
        if (exited || i > 300) {
            await stop();
            throw new Error(`code-server did not start (see ${logFile}):\n${readFileSync(logFile, "utf8").slice(-2000)}`);
        }
        await new Promise(r => setTimeout(r, 200));
    }
    return {url, port, root, logFile, userSettings, stop};
}
