// Owns choosing and starting the TensorFlow.js backend for nano-rl: the ONE place that decides between
// tfjs-node-gpu, tfjs-node, wasm (with the fast-matmul kernel) and cpu, registers gradients, and logs the choice.
// Does not build models (model.ts) and is not imported by the extension host (the trainer runs in its own process).
import {createRequire} from "node:module";
import {dirname, join} from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-cpu";
import {setWasmPaths} from "@tensorflow/tfjs-backend-wasm";
import {NanoError, errorMessage} from "../common/errors";
import {silentLogger, type Logger} from "../common/log";
import {registerGradients} from "./tfjs-gradients";
import {patchWasmBatchMatMul, wasmMatMulPatched} from "./wasm-matmul";

/** Backends in order of preference. `node-gpu` / `node` are optional native packages (not installable offline). */
export const BACKEND_CHOICES = ["node-gpu", "node", "wasm", "cpu"] as const;
export type BackendChoice = (typeof BACKEND_CHOICES)[number];

/** Environment variable that forces a backend (same values as `BackendOptions.backend`). */
export const BACKEND_ENV = "NANO_TF_BACKEND";

export interface BackendOptions {
    /** "auto" (default): the first of node-gpu, node, wasm, cpu that starts. Else that backend or an error. */
    backend?: BackendChoice | "auto";
    /** Keep XNNPACK's packed copies of matmul right operands (wasm only). Default true; see wasm-matmul.ts. */
    wasmWeightCache?: boolean;
    log?: Logger;
}

export interface BackendInfo {
    choice: BackendChoice;
    /** tfjs's own backend name ("tensorflow" for both native packages). */
    tfName: string;
    /** One line for logs: what runs and with which options. */
    detail: string;
    /** Backends tried before this one, with why they did not start. */
    skipped: {choice: BackendChoice; reason: string}[];
}

const NATIVE_PACKAGE: Record<"node-gpu" | "node", string> = {"node-gpu": "@tensorflow/tfjs-node-gpu", node: "@tensorflow/tfjs-node"};
let current: BackendInfo | undefined;

/** Parses a setting / env value; undefined when empty or "auto". Throws on unknown names. */
export function parseBackendChoice(v: string | undefined): BackendChoice | undefined {
    const s = v?.trim().toLowerCase();
    if (!s || s === "auto") return undefined;
    if ((BACKEND_CHOICES as readonly string[]).includes(s)) return s as BackendChoice;
    throw new NanoError("rl.backend.unknown", `unknown tfjs backend "${v}" (expected auto, ${BACKEND_CHOICES.join(", ")})`);
}

/** The backend started by `initBackend`, if any. */
export function currentBackend(): BackendInfo | undefined {
    return current;
}

/**
 * Starts the backend (idempotent for the same choice) and registers gradients.
 * Precedence: `opts.backend` if not "auto", else `$NANO_TF_BACKEND`, else auto.
 */
export async function initBackend(opts: BackendOptions = {}): Promise<BackendInfo> {
    const log = opts.log ?? silentLogger;
    const forced = parseBackendChoice(opts.backend) ?? parseBackendChoice(process.env[BACKEND_ENV]);
    if (current && (!forced || forced === current.choice) && tf.getBackend() === current.tfName) return current;
    // Quiet tfjs's console banners ("looks like you are running TensorFlow.js in Node.js").
    tf.env().set("PROD", true);
    await registerGradients();
    const order: readonly BackendChoice[] = forced ? [forced] : BACKEND_CHOICES;
    const skipped: BackendInfo["skipped"] = [];
    for (const choice of order) {
        try {
            const info = await start(choice, opts);
            current = {...info, skipped};
            log.log("info", `tfjs backend: ${current.detail}${skipped.length ? ` (skipped ${skipped.map(s => `${s.choice}: ${s.reason}`).join("; ")})` : ""}`);
            return current;
        } catch (e) {
            skipped.push({choice, reason: errorMessage(e).split("\n")[0]!});
            log.log(forced ? "error" : "debug", `tfjs backend ${choice} unavailable: ${errorMessage(e)}`);
        }
    }
    throw new NanoError("rl.backend.none", `no tfjs backend could start: ${skipped.map(s => `${s.choice}: ${s.reason}`).join("; ")}`);
}

async function start(choice: BackendChoice, opts: BackendOptions): Promise<Omit<BackendInfo, "skipped">> {
    switch (choice) {
        case "node-gpu":
        case "node": {
            // Optional native accelerators: a computed specifier so neither tsc nor esbuild requires them.
            const spec = NATIVE_PACKAGE[choice];
            await import(spec);
            if (!(await tf.setBackend("tensorflow"))) throw new Error(`${spec} loaded but its backend did not start`);
            await tf.ready();
            return {choice, tfName: "tensorflow", detail: `${choice} (${spec})`};
        }
        case "wasm": {
            const require = createRequire(import.meta.url);
            setWasmPaths(join(dirname(require.resolve("@tensorflow/tfjs-backend-wasm/package.json")), "dist") + "/");
            if (!(await tf.setBackend("wasm"))) throw new Error("wasm backend failed to initialise");
            await tf.ready();
            patchWasmBatchMatMul({cacheWeights: opts.wasmWeightCache ?? true});
            const simd = await tf.env().getAsync("WASM_HAS_SIMD_SUPPORT");
            return {choice, tfName: "wasm", detail: `wasm (simd ${simd}, 2-D matmul kernel ${wasmMatMulPatched() ? "on" : "off"}, weight cache ${opts.wasmWeightCache ?? true ? "on" : "off"})`};
        }
        case "cpu": {
            if (!(await tf.setBackend("cpu"))) throw new Error("cpu backend failed to initialise");
            await tf.ready();
            return {choice, tfName: "cpu", detail: "cpu (plain JS; correctness fallback)"};
        }
    }
}

/** Bytes the wasm module currently holds (its linear memory), or undefined off wasm. */
export function wasmHeapBytes(): number | undefined {
    if (tf.getBackend() !== "wasm") return undefined;
    const be = tf.backend() as unknown as {wasm?: {HEAPU8?: Uint8Array}};
    return be.wasm?.HEAPU8?.buffer.byteLength;
}
