// Owns the sandbox module's public surface (what the agent, tools, CLI and trainer import).

export {createSandbox, type DisposableSandbox} from "./sandbox";
export {probeHost, type HostSandboxing} from "./detect";
export {resolveInWorkspace, isInside, displayPath} from "./paths";
export {snapshotWorkspace, removeSnapshot, type Snapshot, type SnapshotOptions} from "./snapshot";
export {defaultLimits, type Sandbox, type SandboxLimits, type SandboxMode, type SandboxOptions, type RunOptions, type RunResult, type KilledReason} from "./types";
