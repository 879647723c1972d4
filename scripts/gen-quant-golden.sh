#!/usr/bin/env bash
# Writes test/fixtures/quant-golden.json: golden vectors for src/gguf/quant/ computed by llama.cpp's own C code,
# the exact version node-llama-cpp runs (its bundled gitRelease.bundle). Then checks that blocks made by OUR
# quantizers decode, through ggml's dequantize_row_*, to exactly what our dequantize gives.
#
# How: clone the bundle into a temp dir, compile ggml-quants.c (pure C: block structs, quantize_row_*_ref,
# dequantize_row_*) with a small harness of ours and 4 stubbed symbols it links against, run it.
# Needs: git, a C compiler (cc), sha256sum, node with the repo's devDependencies (tsx). Takes ~20 s on 2 cores.
# Usage: scripts/gen-quant-golden.sh   (deterministic: rerunning gives the same file for the same llama.cpp)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUNDLE="$ROOT/node_modules/node-llama-cpp/llama/gitRelease.bundle"
OUT="$ROOT/test/fixtures/quant-golden.json"
CC="${CC:-cc}"
# No FMA contraction and no fast-math: the C float arithmetic is then the plain IEEE binary32 sequence.
CFLAGS="-O2 -std=gnu11 -ffp-contract=off -fno-fast-math"

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

git -c advice.detachedHead=false clone -q "$BUNDLE" "$TMP/llama"
COMMIT="$(git -C "$TMP/llama" rev-parse HEAD)"
G="$TMP/llama/ggml"

cat > "$TMP/harness.c" <<'EOF'
// Golden-vector harness for Nano Coder's TypeScript (de)quantizers. Links ggml-quants.c only.
#include "ggml.h"
#include "ggml-impl.h"
#include "ggml-quants.h"
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- the 4 symbols ggml-quants.c references from ggml.c (only on paths we never take) ----
void ggml_abort(const char * file, int line, const char * fmt, ...) {
    va_list a; va_start(a, fmt); fprintf(stderr, "ggml_abort %s:%d: ", file, line); vfprintf(stderr, fmt, a);
    va_end(a); abort();
}
size_t ggml_row_size(enum ggml_type t, int64_t ne) { (void)t; (void)ne; abort(); }
const char * ggml_type_name(enum ggml_type t) { (void)t; return "?"; }
size_t ggml_type_size(enum ggml_type t) { (void)t; abort(); }

typedef void (*deq_fn)(const void *, float *, int64_t);
typedef void (*qnt_fn)(const float *, void *, int64_t);

typedef struct {
    const char * name; int block; int size;
    deq_fn deq; qnt_fn qnt;
    int half_at[2]; int n_half;   // byte offsets of the fp16 scale fields inside a block
    int n_deq; int n_q;           // blocks of random bytes to decode; blocks of floats to quantize
} codec;

static const codec CODECS[] = {
    {"Q4_0", 32, 18, (deq_fn)dequantize_row_q4_0, (qnt_fn)quantize_row_q4_0_ref, {0, 0}, 1, 8, 12},
    {"Q4_1", 32, 20, (deq_fn)dequantize_row_q4_1, (qnt_fn)quantize_row_q4_1_ref, {0, 2}, 2, 8, 12},
    {"Q5_0", 32, 22, (deq_fn)dequantize_row_q5_0, (qnt_fn)quantize_row_q5_0_ref, {0, 0}, 1, 8, 12},
    {"Q5_1", 32, 24, (deq_fn)dequantize_row_q5_1, (qnt_fn)quantize_row_q5_1_ref, {0, 2}, 2, 8, 12},
    {"Q8_0", 32, 34, (deq_fn)dequantize_row_q8_0, (qnt_fn)quantize_row_q8_0_ref, {0, 0}, 1, 8, 12},
    {"Q2_K", 256, 84, (deq_fn)dequantize_row_q2_K, (qnt_fn)quantize_row_q2_K_ref, {80, 82}, 2, 4, 6},
    {"Q3_K", 256, 110, (deq_fn)dequantize_row_q3_K, (qnt_fn)quantize_row_q3_K_ref, {108, 0}, 1, 4, 6},
    {"Q4_K", 256, 144, (deq_fn)dequantize_row_q4_K, (qnt_fn)quantize_row_q4_K_ref, {0, 2}, 2, 4, 6},
    {"Q5_K", 256, 176, (deq_fn)dequantize_row_q5_K, (qnt_fn)quantize_row_q5_K_ref, {0, 2}, 2, 4, 6},
    {"Q6_K", 256, 210, (deq_fn)dequantize_row_q6_K, (qnt_fn)quantize_row_q6_K_ref, {208, 0}, 1, 4, 6},
};
#define N_CODECS (int)(sizeof(CODECS) / sizeof(CODECS[0]))

static const codec * find_codec(const char * name) {
    for (int i = 0; i < N_CODECS; i++) if (!strcmp(CODECS[i].name, name)) return &CODECS[i];
    fprintf(stderr, "unknown type %s\n", name); exit(2);
}

// ---- deterministic randomness (splitmix64) ----
static uint64_t rng_state = 0x5eed5eed12345678ull;
static uint64_t next_u64(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double uniform(void) { return (double)(next_u64() >> 11) * (1.0 / 9007199254740992.0); }
static double gauss(void) { double u = uniform() + 1e-12, v = uniform(); return sqrt(-2 * log(u)) * cos(6.283185307179586 * v); }

// ---- output helpers ----
static void put_b64(const void * data, size_t n) {
    static const char T[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const uint8_t * p = data;
    putchar('"');
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        putchar(T[v >> 18 & 63]); putchar(T[v >> 12 & 63]);
        putchar(i + 1 < n ? T[v >> 6 & 63] : '='); putchar(i + 2 < n ? T[v & 63] : '=');
    }
    putchar('"');
}

// A finite fp16 scale: block 0 subnormal, block 1 (+/-) zero, others normal with |d| in [2^-8, 2^3).
static uint16_t sane_half(int block) {
    uint16_t sign = (next_u64() & 1) ? 0x8000 : 0;
    uint16_t mant = next_u64() & 0x3ff;
    if (block == 0) return sign | (mant ? mant : 1);
    if (block == 1) return sign;
    uint16_t exp = 7 + (uint16_t)(next_u64() % 11);
    return sign | exp << 10 | mant;
}

// Float inputs for quantize: block b cycles through shapes that stress different parts of a quantizer.
static float sample(int b, int i, int n) {
    switch (b % 6) {
        case 0: return (float)gauss();                                      // plain gaussian
        case 1: return (float)(-0.1 + 0.4 * uniform());                     // offset uniform (mins matter)
        case 2: return (float)(gauss() * (i % 37 == 5 ? 8.0 : 1.0));        // gaussian with outliers
        case 3: return (float)(1e-3 * gauss() + (i < n / 2 ? 2e-3 : -5e-3)); // tiny values, shifted halves
        case 4: return (float)(gauss() * exp(2.0 * gauss()));               // heavy tailed, per-value scale
        default: return (i / 16) % 3 == 0 ? 0.0f : (float)(0.25 * gauss()); // sub-blocks of exact zeros
    }
}

static void gen(const char * halfdir) {
    printf("{\n\"types\": {\n");
    for (int c = 0; c < N_CODECS; c++) {
        const codec * k = &CODECS[c];
        // 1) random bytes with sane fp16 scales -> ggml's dequantize
        size_t nb = (size_t)k->n_deq, bytes = nb * k->size, n = nb * k->block;
        uint8_t * src = malloc(bytes); float * out = malloc(n * sizeof(float));
        for (size_t i = 0; i < bytes; i++) src[i] = (uint8_t)next_u64();
        for (size_t b = 0; b < nb; b++)
            for (int h = 0; h < k->n_half; h++) {
                uint16_t v = sane_half((int)b); memcpy(src + b * k->size + k->half_at[h], &v, 2);
            }
        k->deq(src, out, (int64_t)n);
        printf("%s\"%s\": {\n\"dequant\": {\"blocks\": %zu, \"src\": ", c ? ",\n" : "", k->name, nb);
        put_b64(src, bytes); printf(",\n\"out\": "); put_b64(out, n * sizeof(float)); printf("},\n");
        free(src); free(out);
        // 2) floats -> ggml's reference quantizer -> its dequantize (what llama-quantize without imatrix makes)
        nb = (size_t)k->n_q; bytes = nb * k->size; n = nb * k->block;
        float * x = malloc(n * sizeof(float)); uint8_t * q = malloc(bytes); float * y = malloc(n * sizeof(float));
        for (size_t b = 0; b < nb; b++) for (int i = 0; i < k->block; i++) x[b * k->block + i] = sample((int)b, i, k->block);
        k->qnt(x, q, (int64_t)n);
        k->deq(q, y, (int64_t)n);
        printf("\"quant\": {\"blocks\": %zu, \"x\": ", nb); put_b64(x, n * sizeof(float));
        printf(",\n\"ref\": "); put_b64(q, bytes); printf(",\n\"refOut\": "); put_b64(y, n * sizeof(float)); printf("}}");
        free(x); free(q); free(y);
    }
    printf("\n},\n");

    // 3) half / bf16: every half -> float, and float -> half/bf16 for every high 16 bits x a set of low 16 bits
    //    (ties, just-above/below-ties, sticky bits). Written as files; the script stores their sha256.
    static const uint16_t LO[] = {0x0000, 0x0001, 0x0fff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x2001,
                                  0x3000, 0x5555, 0x7fff, 0x8000, 0x8001, 0xa000, 0xe000, 0xffff};
    const int NLO = (int)(sizeof(LO) / sizeof(LO[0]));
    char path[4096];
    snprintf(path, sizeof path, "%s/f16_to_f32.bin", halfdir);
    FILE * f = fopen(path, "wb");
    for (uint32_t h = 0; h < 65536; h++) { float v = ggml_compute_fp16_to_fp32((ggml_fp16_t)h); fwrite(&v, 4, 1, f); }
    fclose(f);
    snprintf(path, sizeof path, "%s/f32_to_f16.bin", halfdir);
    f = fopen(path, "wb");
    snprintf(path, sizeof path, "%s/f32_to_bf16.bin", halfdir);
    FILE * g = fopen(path, "wb");
    for (uint32_t hi = 0; hi < 65536; hi++)
        for (int l = 0; l < NLO; l++) {
            uint32_t w = hi << 16 | LO[l]; float v; memcpy(&v, &w, 4);
            ggml_fp16_t h = ggml_compute_fp32_to_fp16(v); fwrite(&h, 2, 1, f);
            ggml_bf16_t b = ggml_compute_fp32_to_bf16(v); fwrite(&b.bits, 2, 1, g);
        }
    fclose(f); fclose(g);
    printf("\"half\": {\"lowPatterns\": [");
    for (int l = 0; l < NLO; l++) printf("%s%u", l ? ", " : "", LO[l]);
    printf("],\n");
    // readable edge cases: float32 bits -> [fp16 bits, bf16 bits]
    static const uint32_t EDGE[] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x477fe000, 0x477fefff, 0x477ff000,
        0x47800000, 0x7f7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x38800000, 0x387fe000,
        0x387ff000, 0x33800000, 0x33000000, 0x33000001, 0x32ffffff, 0x3f801000, 0x3f803000, 0x3f808000, 0x3f818000,
        0x3f807fff, 0x00000001, 0x007fffff, 0x3eaaaaab, 0xc2f6e979};
    printf("\"edges\": [");
    for (size_t i = 0; i < sizeof(EDGE) / sizeof(EDGE[0]); i++) {
        float v; memcpy(&v, &EDGE[i], 4);
        printf("%s[%u, %u, %u]", i ? ", " : "", EDGE[i], ggml_compute_fp32_to_fp16(v), ggml_compute_fp32_to_bf16(v).bits);
    }
    printf("]\n}\n}\n");
}

// deq TYPE NBLOCKS: blocks on stdin -> float32 on stdout, through ggml's dequantize_row_*
static void deq(const char * type, long nb) {
    const codec * k = find_codec(type);
    size_t bytes = (size_t)nb * k->size, n = (size_t)nb * k->block;
    uint8_t * src = malloc(bytes); float * out = malloc(n * sizeof(float));
    if (fread(src, 1, bytes, stdin) != bytes) { fprintf(stderr, "short input\n"); exit(2); }
    k->deq(src, out, (int64_t)n);
    fwrite(out, sizeof(float), n, stdout);
}

int main(int argc, char ** argv) {
    if (argc == 3 && !strcmp(argv[1], "gen")) gen(argv[2]);
    else if (argc == 4 && !strcmp(argv[1], "deq")) deq(argv[2], atol(argv[3]));
    else { fprintf(stderr, "usage: harness gen DIR | harness deq TYPE NBLOCKS\n"); return 2; }
    return 0;
}
EOF

"$CC" $CFLAGS -I"$G/include" -I"$G/src" -o "$TMP/harness" "$TMP/harness.c" "$G/src/ggml-quants.c" -lm 2> "$TMP/cc.log" \
    || { cat "$TMP/cc.log" >&2; exit 1; }

mkdir -p "$TMP/half"
"$TMP/harness" gen "$TMP/half" > "$TMP/body.json"

sha() { sha256sum "$1" | cut -d' ' -f1; }
node - "$TMP/body.json" "$OUT" "$COMMIT" "$CC $CFLAGS" "$(sha "$TMP/half/f16_to_f32.bin")" \
    "$(sha "$TMP/half/f32_to_f16.bin")" "$(sha "$TMP/half/f32_to_bf16.bin")" <<'EOF'
const fs = require("node:fs");
const [body, out, commit, flags, f16ToF32, f32ToF16, f32ToBf16] = process.argv.slice(2);
const j = JSON.parse(fs.readFileSync(body, "utf8"));
Object.assign(j.half, {f16ToF32Sha256: f16ToF32, f32ToF16Sha256: f32ToF16, f32ToBf16Sha256: f32ToBf16});
const doc = {
    about: "Golden vectors from llama.cpp's ggml-quants.c (dequantize_row_*, quantize_row_*_ref) and ggml-impl.h " +
        "fp16/bf16 conversions. Floats are little-endian float32, bytes are blocks; both base64. Regenerate with " +
        "scripts/gen-quant-golden.sh.",
    llamaCppCommit: commit, compiler: flags, ...j,
};
fs.mkdirSync(require("node:path").dirname(out), {recursive: true});
fs.writeFileSync(out, JSON.stringify(doc) + "\n");
EOF
echo "wrote $OUT ($(wc -c < "$OUT") bytes, llama.cpp $COMMIT)"

# Cross-check: our quantize -> ggml's dequantize must equal our quantize -> our dequantize, bit for bit.
cat > "$TMP/cross.ts" <<EOF
import {execFileSync} from "node:child_process";
import {readFileSync} from "node:fs";
import {dequantize, quantize} from "$ROOT/src/gguf/quant/index";
import {parseTypeName, typeLayout} from "$ROOT/src/gguf/types";
const fx = JSON.parse(readFileSync("$OUT", "utf8"));
// the fixture's float blocks, then 64 blocks of 256 values whose scale varies over 8 decades
let s = 1;
const u = () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return (s + 0.5) / 2 ** 32; };
const more = new Float32Array(64 * 256).map((_, i) => (u() - 0.3) * 10 ** (-6 + (i >> 8) % 8));
let bad = 0;
for (const [name, t] of Object.entries<any>(fx.types)) {
    const type = parseTypeName(name)!;
    const fixed = new Float32Array(new Uint8Array(Buffer.from(t.quant.x, "base64")).buffer);
    const x = new Float32Array(fixed.length + more.length);
    x.set(fixed);
    x.set(more, fixed.length);
    const q = quantize(type, x);
    const ours = dequantize(type, q, x.length);
    const theirs = new Float32Array(new Uint8Array(execFileSync("$TMP/harness", ["deq", name, String(x.length / typeLayout(type)!.blockSize)], {input: q})).buffer);
    const same = Buffer.from(ours.buffer).equals(Buffer.from(theirs.buffer));
    if (!same) bad++;
    console.log(\`cross-check \${name}: our blocks through ggml's dequantize \${same ? "match ours bit for bit" : "DIFFER"}\`);
}
process.exit(bad ? 1 : 0);
EOF
(cd "$ROOT" && node --import tsx "$TMP/cross.ts")
