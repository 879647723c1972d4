// Owns the bubblewrap mount plan of the strong sandbox: the system read-only, the workspace read-write, a private /tmp,
// home directories / credentials / host sockets hidden, toolchains on PATH under a hidden home kept read-only.
// No network, no capabilities, no new user namespaces inside. Knows nothing of rlimits or process handling.

import {existsSync, lstatSync, realpathSync} from "node:fs";
import {homedir} from "node:os";
import {join, relative, sep} from "node:path";
import {bwrapBaseArgs} from "./detect";
import {isInside} from "./paths";

/** Folders hidden behind an empty read-only tmpfs: homes (SSH keys, cloud credentials, tokens), host sockets (/run: docker,
 *  dbus — a read-only bind does not stop connect() on a unix socket), other users' temp files. */
export function defaultHiddenDirs(): string[] {
    return [homedir(), "/root", "/home", "/run", "/var/run", "/var/tmp", "/mnt", "/media", "/srv", "/etc/ssh", "/etc/ssl/private"];
}

/** Files replaced by /dev/null (readable by root, which the sandbox may be). */
export const hiddenFiles = ["/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers", "/etc/security/opasswd"];

/** Toolchain roots under a home that are kept (read-only) whole when one of their folders is on PATH. */
const toolchainRoots = new Set([".pyenv", ".nvm", ".rustup", ".volta", ".bun", ".deno", ".sdkman", ".asdf", ".rbenv", ".goenv", ".jenv", ".fnm", "go", ".nix-profile"]);

export interface MountPlan {
    /** Real paths hidden as folders (deduplicated, outermost only). */
    hiddenDirs: string[];
    hiddenFiles: string[];
    /** Real paths bound read-only again inside hidden folders. */
    exposed: string[];
}

function real(p: string): string | undefined {
    try { return realpathSync(p); } catch { return undefined; }
}

/** Works out what to hide and re-expose; pure apart from reading which paths exist. */
export function planMounts(opts: {workspace: string; hide?: string[]; expose?: string[]; pathVar?: string}): MountPlan {
    const dirs = new Set<string>();
    for (const p of [...defaultHiddenDirs(), ...(opts.hide ?? [])]) {
        const r = real(p);
        if (!r || r === "/") continue;
        try { if (lstatSync(r).isDirectory()) dirs.add(r); } catch { /* gone */ }
    }
    // Outermost only: a tmpfs over /home already hides /home/alice.
    const hiddenDirs = [...dirs].filter(d => ![...dirs].some(o => o !== d && isInside(o, d))).sort();
    const files = hiddenFiles.filter(f => { try { return lstatSync(f).isFile(); } catch { return false; } });
    const exposed = new Set<string>();
    const under = (p: string) => hiddenDirs.find(h => isInside(h, p) && h !== p);
    const home = real(homedir());
    for (const entry of (opts.pathVar ?? process.env.PATH ?? "").split(":")) {
        const r = entry && real(entry);
        if (!r || !under(r)) continue;
        exposed.add(r);
        if (home && isInside(home, r) && r !== home) {
            const top = relative(home, r).split(sep)[0]!;
            if (toolchainRoots.has(top)) exposed.add(join(home, top));
            if (top === ".cargo" && existsSync(join(home, ".rustup"))) exposed.add(join(home, ".rustup"));
        }
    }
    for (const p of opts.expose ?? []) { const r = real(p); if (r) exposed.add(r); }
    return {hiddenDirs, hiddenFiles: files, exposed: [...exposed].filter(p => p !== opts.workspace).sort()};
}

/** The bwrap argv (without the command) for one run. */
export function bwrapArgv(o: {bwrap: string; workspace: string; cwd: string; plan: MountPlan; tmpBytes: number}): string[] {
    const a = [o.bwrap, ...bwrapBaseArgs];
    a.push("--size", String(o.tmpBytes), "--tmpfs", "/tmp");
    a.push("--size", String(o.tmpBytes), "--tmpfs", "/dev/shm");
    for (const d of o.plan.hiddenDirs) a.push("--size", String(1024 * 1024), "--tmpfs", d);
    for (const f of o.plan.hiddenFiles) a.push("--ro-bind", "/dev/null", f);
    for (const p of o.plan.exposed) a.push("--ro-bind", p, p);
    a.push("--bind", o.workspace, o.workspace);
    for (const d of o.plan.hiddenDirs) a.push("--remount-ro", d);
    a.push("--hostname", "nano-sandbox", "--chdir", o.cwd, "--");
    return a;
}

/** A reason the workspace cannot be sandboxed strongly (it contains what must stay hidden), or undefined. */
export function unsafeWorkspace(workspace: string, plan: MountPlan): string | undefined {
    if (workspace === "/") return "the workspace is the whole file system";
    const inside = [...plan.hiddenDirs, ...plan.hiddenFiles].find(h => isInside(workspace, h));
    return inside ? `the workspace ${workspace} contains ${inside}, which the sandbox must hide (home folders, credentials); open a project folder instead` : undefined;
}
