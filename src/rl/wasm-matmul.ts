// Owns the replacement of tfjs-backend-wasm's BatchMatMul kernel so that every matmul reaches XNNPACK's fast path.
//
// tfjs-backend-wasm 4.22 uses XNNPACK only when transposeA = transposeB = false AND both batch dims are 1;
// anything else (all autograd matmuls dY·Wᵀ and Xᵀ·dY, attention Q·Kᵀ, batched heads) falls into a naive
// scalar loop at 1–2 GFLOP/s. This wrapper transposes explicitly, folds a shared right operand's batch into
// rows, and splits true batches into 2-D calls (measured 20–29 GFLOP/s per core instead).
import * as tf from "@tensorflow/tfjs-core";
import type {KernelConfig, KernelFunc, TensorInfo} from "@tensorflow/tfjs-core";

const prod = (s: readonly number[]) => s.reduce((a, b) => a * b, 1);
const PATCHED = Symbol.for("nano-coder.wasmMatMulPatched");
let stock: KernelConfig | undefined;

export interface WasmMatMulOptions {
    /**
     * XNNPACK caches a packed copy of every right operand by tensor id until that tensor is disposed, doubling
     * the wasm-heap footprint of long-lived weights. false: right operands of ≥ `minCopyElems` elements are
     * copied to a temporary first, so the packed copy dies with the call (one extra copy per matmul).
     * Default true (weights that stream in per layer are short-lived anyway).
     */
    cacheWeights?: boolean;
    /** Default 2^20 elements. */
    minCopyElems?: number;
}

/** True once the wasm BatchMatMul has been replaced in this process. */
export function wasmMatMulPatched(): boolean {
    const k = tf.getKernel("BatchMatMul", "wasm") as (KernelConfig & {[PATCHED]?: boolean}) | undefined;
    return Boolean(k?.[PATCHED]);
}

/** Replaces wasm's BatchMatMul (idempotent). Call after the wasm backend is registered. */
export function patchWasmBatchMatMul(opts: WasmMatMulOptions = {}): void {
    const cacheWeights = opts.cacheWeights ?? true, minCopy = opts.minCopyElems ?? (1 << 20);
    const orig = tf.getKernel("BatchMatMul", "wasm");
    if (!orig || wasmMatMulPatched()) return;
    const k = (n: string) => {
        const cfg = tf.getKernel(n, "wasm");
        if (!cfg) throw new Error(`wasm kernel ${n} missing`);
        return cfg.kernelFunc;
    };
    const transposeK = k("Transpose"), sliceK = k("Slice"), reshapeK = k("Reshape"), concatK = k("Concat"), identityK = k("Identity");
    stock = orig;
    tf.unregisterKernel("BatchMatMul", "wasm");

    const kernelFunc: KernelFunc = ({inputs, backend, attrs}) => {
        const {a, b} = inputs as {a: TensorInfo; b: TensorInfo};
        const {transposeA, transposeB} = attrs as unknown as {transposeA: boolean; transposeB: boolean};
        const tmp: TensorInfo[] = [];
        const keep = (t: TensorInfo | TensorInfo[]): TensorInfo => { const x = t as TensorInfo; tmp.push(x); return x; };
        const swapLast = (x: TensorInfo) => {
            const r = x.shape.length, perm = [...Array(r).keys()];
            perm[r - 2] = r - 1; perm[r - 1] = r - 2;
            return keep(transposeK({inputs: {x}, backend, attrs: {perm}}));
        };
        const reshape = (x: TensorInfo, shape: number[]) => keep(reshapeK({inputs: {x}, backend, attrs: {shape}}));
        const A = transposeA ? swapLast(a) : a;
        const B = transposeB ? swapLast(b)
            : !cacheWeights && prod(b.shape) >= minCopy ? keep(identityK({inputs: {x: b}, backend})) : b;
        const M = A.shape[A.shape.length - 2]!, K = A.shape[A.shape.length - 1]!, N = B.shape[B.shape.length - 1]!;
        const bA = prod(A.shape.slice(0, -2)), bB = prod(B.shape.slice(0, -2));
        const outBatch = tf.broadcast_util.assertAndGetBroadcastShape(A.shape.slice(0, -2), B.shape.slice(0, -2));
        const call = (x: TensorInfo, y: TensorInfo) =>
            orig.kernelFunc({inputs: {a: x, b: y}, backend, attrs: {transposeA: false, transposeB: false}}) as TensorInfo;
        let out: TensorInfo;
        if (bB === 1) {
            out = call(reshape(A, [bA * M, K]), reshape(B, [K, N]));            // [bA·M, N]
        } else {
            const A3 = reshape(A, [bA, M, K]), B3 = reshape(B, [bB, K, N]);
            const nb = Math.max(bA, bB), outs: TensorInfo[] = [];
            const A2 = bA === 1 ? reshape(A3, [M, K]) : undefined;
            for (let i = 0; i < nb; i++) {
                const ai = A2 ?? reshape(keep(sliceK({inputs: {x: A3}, backend, attrs: {begin: [i, 0, 0], size: [1, M, K]}})), [M, K]);
                const bi = reshape(keep(sliceK({inputs: {x: B3}, backend, attrs: {begin: [i, 0, 0], size: [1, K, N]}})), [K, N]);
                outs.push(keep(call(ai, bi)));                                 // [M, N]
            }
            out = concatK({inputs: outs as unknown as tf.NamedTensorInfoMap, backend, attrs: {axis: 0}}) as TensorInfo; // [nb·M, N]
        }
        for (const t of tmp) (backend as tf.KernelBackend).disposeData(t.dataId);
        // Reshape is free on wasm (shares the buffer); set the broadcast batch shape in place.
        (out as {shape: number[]}).shape = [...outBatch, M, N];
        return out;
    };
    const cfg: KernelConfig & {[PATCHED]?: boolean} = {
        kernelName: "BatchMatMul", backendName: "wasm", kernelFunc, setupFunc: orig.setupFunc, disposeFunc: orig.disposeFunc,
    };
    cfg[PATCHED] = true;
    tf.registerKernel(cfg);
}

/** Puts the stock kernel back (benchmarks compare both in one process). */
export function unpatchWasmBatchMatMul(): void {
    if (!wasmMatMulPatched() || !stock) return;
    tf.unregisterKernel("BatchMatMul", "wasm");
    tf.registerKernel(stock);
}
