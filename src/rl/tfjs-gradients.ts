// Owns registering tfjs-core's gradient functions (without them tf.grads fails: "gradient function not found").
// Does not pick a backend (backend.ts does) and defines no gradients of its own.
//
// Why this is needed: the umbrella `@tensorflow/tfjs` imports `@tensorflow/tfjs-core/dist/register_all_gradients`,
// but this project depends on tfjs-core alone, whose Node bundle (`tf-core.node.js`) has no gradient configs.
// The configs exist only as tfjs-core's ESM sources, which use extension-less relative imports that Node's ESM
// loader refuses. A tiny module-resolution hook (scoped to tfjs-core's dist/ folder) adds the `.js` and marks the
// files as ESM; the gradient configs then register into tfjs's global registry, which every copy of tfjs-core
// shares (registries and the engine live on globalThis), so they apply to the tensors of the Node bundle too.
import {register} from "node:module";
import * as tf from "@tensorflow/tfjs-core";

const HOOK = `
const DIST = "/@tensorflow/tfjs-core/dist/";
export async function resolve(spec, ctx, next) {
  if (ctx.parentURL && ctx.parentURL.includes(DIST) && spec.startsWith(".") && !spec.endsWith(".js")) {
    try { return await next(spec + ".js", ctx); } catch { return next(spec + "/index.js", ctx); }
  }
  return next(spec, ctx);
}
export async function load(url, ctx, next) {
  if (url.includes(DIST) && url.endsWith(".js") && !url.includes("/tf-core")) return next(url, {...ctx, format: "module"});
  return next(url, ctx);
}`;

let loading: Promise<void> | undefined;

/** True when tfjs can differentiate (a gradient for a basic kernel is registered). */
export function gradientsRegistered(): boolean {
    return tf.getGradient("Sum") !== undefined && tf.getGradient("BatchMatMul") !== undefined;
}

/** Registers all of tfjs-core's gradient configs, once (≈ 0.7 s: it loads ~450 ESM source files). */
export function registerGradients(): Promise<void> {
    if (gradientsRegistered()) return Promise.resolve();
    loading ??= (async () => {
        register("data:text/javascript," + encodeURIComponent(HOOK));
        // A computed specifier: bundlers must leave this import to Node at run time.
        const spec = ["@tensorflow/tfjs-core", "dist", "register_all_gradients.js"].join("/");
        await import(spec);
        if (!gradientsRegistered()) throw new Error("tfjs-core gradient configs did not register");
    })();
    return loading;
}
