// Owns the nano-rl network: the GGUF model rebuilt in tfjs (base weights + optional LoRA adapter) and its forward
// passes — per-token log-probs of given targets (training), full logits (parity). Knows nothing of files (load.ts)
// or of losses and optimisers (the trainer's).
import * as tf from "@tensorflow/tfjs-core";
import {NanoError} from "../common/errors";
import type {ModelConfig} from "../gguf/arch";
import {causalMask} from "./attention";
import {attentionBlock, attentionFusedFor, blockForward, mlpBlock, mlpFused, rmsNorm, type BlockParams} from "./block";
import {checkpointed} from "./checkpoint";
import {frozenMatMul} from "./frozen-matmul";
import {currentBackend} from "./backend";
import {shouldCheckpoint} from "./memory";
import {projectLogits, tokenLogprobs} from "./logprob";
import type {LoraAdapter} from "./lora";
import {ropeTables, type RopeTables} from "./rope";
import type {BaseWeights} from "./weights";

export interface ForwardOptions {
    /**
     * Activation checkpointing per layer, for halves that cannot run as fused ops (trainable base): each keeps only
     * its input and is recomputed in backward. With a frozen base both halves are fused ops, lean already and never
     * recomputed. Default "auto": on when keeping every layer's activations would pass the backend's budget (memory.ts).
     */
    checkpoint?: boolean | "auto";
    /** Adapter for this call: default the model's; null runs the base alone (e.g. a KL reference). */
    adapter?: LoraAdapter | null;
}

export class NanoModel {
    /** The adapter used by default in forward passes (replace freely; the model does not own it). */
    adapter: LoraAdapter | undefined;

    constructor(readonly weights: BaseWeights, adapter?: LoraAdapter) {
        this.adapter = adapter;
    }

    get config(): ModelConfig { return this.weights.config; }

    /** What gradients should flow into: the adapter's variables, plus the base's when it is trainable. */
    trainableVariables(adapter: LoraAdapter | null | undefined = this.adapter): tf.Variable[] {
        return [...(adapter?.variables() ?? []), ...this.weights.variables()];
    }

    /** Final hidden states after the output norm [T, nEmbd] for token ids [T]. Call inside a tidy / grads scope. */
    hidden(ids: readonly number[], opts: ForwardOptions = {}): tf.Tensor2D {
        const c = this.config, T = ids.length;
        if (T === 0) throw new NanoError("rl.forward.empty", "forward pass of an empty sequence");
        const adapter = opts.adapter === undefined ? this.adapter : opts.adapter ?? undefined;
        const ctx = {rope: ropeTables(T, c.headDim, c.ropeBase, c.ropeType), mask: causalMask(T, c.nHead / c.nHeadKv)};
        const cp = opts.checkpoint ?? "auto";
        const checkpoint = cp === "auto" ? shouldCheckpoint(c, T, currentBackend()?.choice ?? tf.getBackend()) : cp;
        let x = this.weights.embed(ids);                                                  // [T, H]
        for (let i = 0; i < c.nLayer; i++) {
            if (!checkpoint) { x = blockForward(c, i, this.params(adapter), x, ctx); continue; }
            // Checkpoint each half that autograd would bloat: only halves that cannot run fused (trainable base); the
            // fused attention (attention-op.ts) and MLP (mlp.ts) ops keep just what their hand-written backward needs.
            const vars = [...this.weights.layerVariables(i), ...(adapter?.layerVariables(i) ?? [])];
            const half = (f: (p: BlockParams, x: tf.Tensor2D, r: RopeTables, mask: tf.Tensor2D) => tf.Tensor2D, re: RegExp, xIn: tf.Tensor2D) => {
                const own = vars.filter(v => re.test(v.key)), keys = own.map(v => v.key);
                return checkpointed((xi, ps, [cos, sin, rot, mask]) =>
                    f(this.params(adapter, new Map(keys.map((k, j) => [k, ps[j]!]))), xi as tf.Tensor2D, {cos, sin, rot} as RopeTables, mask as tf.Tensor2D),
                xIn, own.map(v => v.v), [ctx.rope.cos, ctx.rope.sin, ctx.rope.rot, ctx.mask]) as tf.Tensor2D;
            };
            x = attentionFusedFor(i, this.params(adapter)) ? attentionBlock(c, i, this.params(adapter), x, ctx)
                : half((p, xi, rope, mask) => attentionBlock(c, i, p, xi, {rope, mask}), /\.attn_/, x);
            x = mlpFused(i, this.params(adapter)) ? mlpBlock(c, i, this.params(adapter), x) : half((p, xi) => mlpBlock(c, i, p, xi), /\.ffn_/, x);
        }
        return rmsNorm(x, this.weights.vector("output_norm.weight")!, c.rmsEps);           // [T, H]
    }

    /**
     * log p(tokens[t+1] | tokens[0..t]) for t = 0 … T−2  → [T−1]. Differentiable into `trainableVariables()`.
     * Call inside tf.tidy / tf.variableGrads.
     */
    tokenLogprobs(tokens: readonly number[], opts: ForwardOptions = {}): tf.Tensor1D {
        if (tokens.length < 2) throw new NanoError("rl.forward.short", "log-probs need at least two tokens");
        const h = this.hidden(tokens.slice(0, -1), opts);                                 // [T−1, H]
        return tokenLogprobs(h, tokens.slice(1), this.weights.projection());              // [T−1]
    }

    /** Raw logits [T, nVocab] after each token (no gradient; for parity checks). */
    logits(tokens: readonly number[], opts: ForwardOptions = {}): tf.Tensor2D {
        return tf.tidy(() => projectLogits(this.hidden(tokens, {checkpoint: false, ...opts}), this.weights.projection()));
    }

    /** Resolves layer tensors: checkpoint overrides first, then the adapter, then the base weights. */
    private params(adapter: LoraAdapter | undefined, over?: Map<string, tf.Tensor>): BlockParams {
        const w = this.weights;
        return {
            matmul: (name, h) => {
                const t = over?.get(name) ?? (w.residency === "trainable" ? w.matrix(name) : undefined);
                return t ? tf.matMul(h, t as tf.Tensor2D) : frozenMatMul(h, () => w.matrix(name));
            },
            frozen: name => (over?.has(name) || w.residency === "trainable" ? undefined : () => w.matrix(name)),
            vector: name => (over?.get(name) as tf.Tensor1D | undefined) ?? w.vector(name),
            lora: name => {
                const a = over?.get(`${name}#A`), b = over?.get(`${name}#B`);
                if (a && b) return {a, b};
                const p = adapter?.get(name);
                return p ? {a: p.a, b: p.b} : undefined;
            },
            loraScale: adapter?.scale ?? 0,
        };
    }

    /** Releases the base weights (not the adapter: its owner disposes it). */
    dispose(): void { this.weights.dispose(); }
}
