/*
 * plugin.c - the harness code that calls the kernels library.  It is compiled
 * once per version, against that version's kernels.h with that version's compat
 * shim force-included (-include), and linked with that version's libkernels.a,
 * the catalog's benchmarks (catalog.c) and the suite runtime (suite_plugin.c)
 * into a plugin the runner loads with dlopen(RTLD_LOCAL).  The benchmarks
 * reach this file's calls through its table (bv_catalog_calls, at the end).
 *
 * It is written against the current kernels API.  A shim for an older release
 * maps what changed; an op enum an old header lacks is defined by the shim as
 * an out-of-range value, which the old library answers with KN_EUNSUPPORTED:
 * the cell shows "n/a" for that version, never a build failure.
 */
#include <math.h>
#include <string.h>

#include "kernels.h"
#include "plugin.h"

#ifndef BV_KERNELS_VERSION_MAJOR
#error "built without -DBV_KERNELS_VERSION_MAJOR/MINOR/PATCH (the orchestrator passes them)"
#endif

static int from_status(kn_status s)
{
	switch (s) {
	case KN_OK: return BV_OK;
	case KN_EUNSUPPORTED: return BV_NA;
	case KN_EUNAVAILABLE: return BV_UNAVAILABLE;
	default: return BV_FAILED;
	}
}

static int backend_id(const char *name)
{
	static const struct { const char *name; kn_backend id; } map[] = {
		{"scalar", KN_BACKEND_SCALAR}, {"simd", KN_BACKEND_SIMD},
		{"blas", KN_BACKEND_BLAS},     {"cuda", KN_BACKEND_CUDA},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(map[i].name, name) == 0)
			return (int)map[i].id;
	return -1;
}

/* What this version's header offers, by its own version macros (present
 * since 0.1.0): the groups a release predates are compiled out and their
 * cells are n/a.  (The header, not VERSION, decides, as in compat/shims.) */
#define BV_HEADER_AT_LEAST(ma, mi) (KN_VERSION_MAJOR > (ma) || (KN_VERSION_MAJOR == (ma) && KN_VERSION_MINOR >= (mi)))
#define BV_HAS_BINARY BV_HEADER_AT_LEAST(0, 3) /* binary, axpy, reductions, dot */
#define BV_HAS_ROWS BV_HEADER_AT_LEAST(0, 4)   /* softmax, sgemm, gemv */
#define BV_HAS_NORM BV_HEADER_AT_LEAST(0, 8)   /* layernorm, rmsnorm */
#define BV_HAS_MEMORY BV_HEADER_AT_LEAST(0, 9) /* copy, transpose, gather, scatter_add */
/* 0.10: kn_memory_get (memory_mark, memory_peak below) */
#define BV_HAS_QUANT BV_HEADER_AT_LEAST(0, 11) /* int8, bf16, f16 */
#define BV_HAS_CONV BV_HEADER_AT_LEAST(0, 12)  /* conv2d, dwconv2d, pool2d */
#define BV_HAS_BNORM BV_HEADER_AT_LEAST(0, 13) /* batchnorm (norm group), concat (memory) */
/* The model group needs sgemm and softmax (0.4.0); what else it calls is
 * the best the header offers (kn_layernorm from 0.8.0). */
#define BV_HAS_MODEL BV_HAS_ROWS
#define BV_HAS_ATTENTION BV_HEADER_AT_LEAST(0, 14) /* kn_attention */

#define BV_NONE(...)

/* ---- unary ------------------------------------------------------------ */

static int run_unary(const bv_call *c, const bv_args *a)
{
	static const kn_unary_params params = {BV_CLAMP_LO, BV_CLAMP_HI, BV_SCALE_ALPHA};
	return from_status(kn_unary_ex((kn_backend)c->backend, (kn_unary_op)c->op, a->x, a->y, a->n, &params));
}

/* ---- binary and reduce (0.3.0) ---------------------------------------- */
#if BV_HAS_BINARY
static int run_binary(const bv_call *c, const bv_args *a)
{
	return from_status(kn_binary((kn_backend)c->backend, (kn_binary_op)c->op, a->x, a->x2, a->y, a->n));
}

static int run_axpy(const bv_call *c, const bv_args *a)
{
	return from_status(kn_axpy((kn_backend)c->backend, BV_AXPY_ALPHA, a->x, (float *)a->x2, a->n));
}

static int run_reduce(const bv_call *c, const bv_args *a)
{
	float out = 0;
	kn_status s = kn_reduce((kn_backend)c->backend, (kn_reduce_op)c->op, a->x, a->n, &out);
	*a->result = out;
	return from_status(s);
}

static int run_argreduce(const bv_call *c, const bv_args *a)
{
	size_t out = 0;
	kn_status s = kn_argreduce((kn_backend)c->backend, (kn_argreduce_op)c->op, a->x, a->n, &out);
	*a->result = (double)out;
	return from_status(s);
}

static int run_dot(const bv_call *c, const bv_args *a)
{
	float out = 0;
	kn_status s = kn_dot((kn_backend)c->backend, a->x, a->x2, a->n, &out);
	*a->result = out;
	return from_status(s);
}
#endif

/* ---- softmax and matmul (0.4.0) --------------------------------------- */
#if BV_HAS_ROWS
static int run_softmax(const bv_call *c, const bv_args *a)
{
	return from_status(kn_softmax((kn_backend)c->backend, a->x, a->y, a->m, a->n));
}

static int run_log_softmax(const bv_call *c, const bv_args *a)
{
	return from_status(kn_log_softmax((kn_backend)c->backend, a->x, a->y, a->m, a->n));
}

/* Row-major, no transposes, C = A B (beta 0: every call writes the same C). */
static int run_sgemm(const bv_call *c, const bv_args *a)
{
	return from_status(kn_sgemm((kn_backend)c->backend, 0, 0, a->m, a->n, a->k, 1.0f, a->x, a->k, a->x2, a->n,
				    0.0f, a->y, a->n));
}

static int run_gemv(const bv_call *c, const bv_args *a)
{
	return from_status(kn_sgemv((kn_backend)c->backend, 0, a->m, a->n, 1.0f, a->x, a->n, a->x2, 0.0f, a->y));
}
#endif

/* ---- layernorm and rmsnorm (0.8.0) ------------------------------------ */
#if BV_HAS_NORM
/* x2 holds the gain per column, then layernorm's bias (benches.c). */
static int run_layernorm(const bv_call *c, const bv_args *a)
{
	return from_status(kn_layernorm((kn_backend)c->backend, a->x, a->x2, a->x2 + a->n, a->y, a->m, a->n,
					BV_NORM_EPS));
}

static int run_rmsnorm(const bv_call *c, const bv_args *a)
{
	return from_status(kn_rmsnorm((kn_backend)c->backend, a->x, a->x2, a->y, a->m, a->n, BV_NORM_EPS));
}
#endif

/* ---- the memory group (0.9.0) ----------------------------------------- */
#if BV_HAS_MEMORY
static int run_copy(const bv_call *c, const bv_args *a)
{
	return from_status(kn_copy((kn_backend)c->backend, a->x, a->y, a->n));
}

static int run_transpose(const bv_call *c, const bv_args *a)
{
	return from_status(kn_transpose((kn_backend)c->backend, a->x, a->y, a->m, a->n));
}

/* The indices are int32_t in a float buffer (benches.c: bv_cell_layout). */
static int run_gather(const bv_call *c, const bv_args *a)
{
	return from_status(kn_gather((kn_backend)c->backend, a->x, a->n, (const int32_t *)a->x2, a->y, a->n));
}

/* x: the values, then the indices; x2 is added to in place, as axpy's. */
static int run_scatter_add(const bv_call *c, const bv_args *a)
{
	return from_status(kn_scatter_add((kn_backend)c->backend, a->x, (const int32_t *)(a->x + a->n), a->n,
					  (float *)a->x2, a->n));
}
#endif

/* ---- the quant group (0.11.0) ------------------------------------------
 *
 * The int8 / int32 / uint16 payloads ride in the float buffers as bits
 * (benches.h); x2 holds the scale(s) of quantize and dequantize. */
#if BV_HAS_QUANT
#define KB ((kn_backend)c->backend)
static int run_quantize(const bv_call *c, const bv_args *a)
{
	return from_status(kn_quantize_i8(KB, a->x, (int8_t *)a->y, a->m, a->n, a->x2, 1));
}

static int run_quantize_pc(const bv_call *c, const bv_args *a)
{
	return from_status(kn_quantize_i8(KB, a->x, (int8_t *)a->y, a->m, a->n, a->x2, a->m));
}

static int run_dequantize(const bv_call *c, const bv_args *a)
{
	return from_status(kn_dequantize_i8(KB, (const int8_t *)a->x, a->y, a->m, a->n, a->x2, 1));
}

static int run_dequantize_pc(const bv_call *c, const bv_args *a)
{
	return from_status(kn_dequantize_i8(KB, (const int8_t *)a->x, a->y, a->m, a->n, a->x2, a->m));
}

static int run_qgemm(const bv_call *c, const bv_args *a)
{
	return from_status(kn_qgemm_i8(KB, a->m, a->n, a->k, (const int8_t *)a->x, a->k, (const int8_t *)a->x2, a->n,
				       (int32_t *)a->y, a->n));
}

static int run_bf16gemm(const bv_call *c, const bv_args *a)
{
	return from_status(kn_bf16gemm(KB, a->m, a->n, a->k, (const uint16_t *)a->x, a->k, (const uint16_t *)a->x2,
				       a->n, a->y, a->n));
}

static int run_to_bf16(const bv_call *c, const bv_args *a)
{
	return from_status(kn_f32_to_bf16(KB, a->x, (uint16_t *)a->y, a->n));
}

static int run_from_bf16(const bv_call *c, const bv_args *a)
{
	return from_status(kn_bf16_to_f32(KB, (const uint16_t *)a->x, a->y, a->n));
}

static int run_to_f16(const bv_call *c, const bv_args *a)
{
	return from_status(kn_f32_to_f16(KB, a->x, (uint16_t *)a->y, a->n));
}

static int run_from_f16(const bv_call *c, const bv_args *a)
{
	return from_status(kn_f16_to_f32(KB, (const uint16_t *)a->x, a->y, a->n));
}
#undef KB
#endif

/* ---- the conv and pool groups ------------------------------------------ */
#if BV_HAS_CONV
/* The op id packs the ops.def line's window: which (0 conv, 1 depthwise,
 * 2 max, 3 avg) | win << 4 | stride << 8 | kmul << 12 | nhwc << 16.  The
 * size is one image: m = H, n = W, k = C; x2 holds the weights. */
static int run_conv(const bv_call *c, const bv_args *a)
{
	unsigned op = (unsigned)c->op, which = op & 15, win = (op >> 4) & 15, st = (op >> 8) & 15;
	unsigned kmul = (op >> 12) & 15, nhwc = (op >> 16) & 1;
	kn_conv2d_params p = {1, a->k, a->m, a->n, kmul * a->k, win, win, st, (win - 1) / 2, nhwc ? KN_NHWC : KN_NCHW};
	kn_backend b = (kn_backend)c->backend;
	switch (which) {
	case 0: return from_status(kn_conv2d(b, &p, a->x, a->x2, a->y));
	case 1: return from_status(kn_dwconv2d(b, &p, a->x, a->x2, a->y));
	default: return from_status(kn_pool2d(b, which == 2 ? KN_POOL_MAX : KN_POOL_AVG, &p, a->x, a->y));
	}
}
#endif

/* ---- batchnorm and concat ------------------------------------------------ */
#if BV_HAS_BNORM
/* One image (N = 1) of C = m channels of HW = n pixels; x2 holds mean, var,
 * gain and bias, m floats each (benches.c). */
static int run_batchnorm(const bv_call *c, const bv_args *a)
{
	const float *st = a->x2;
	return from_status(kn_batchnorm((kn_backend)c->backend, a->x, st, st + a->m, st + 2 * a->m, st + 3 * a->m,
					a->y, 1, a->m, a->n, BV_NORM_EPS));
}

/* x holds the three inputs back to back (plugin.h: bv_concat_widths). */
static int run_concat(const bv_call *c, const bv_args *a)
{
	size_t w[3];
	bv_concat_widths(a->n, w);
	const float *xs[3] = {a->x, a->x + a->m * w[0], a->x + a->m * (w[0] + w[1])};
	return from_status(kn_concat((kn_backend)c->backend, 3, xs, w, a->y, a->m));
}
#endif

/* ---- the model group: layers composed of public calls (0.4.0) ----------
 *
 * The fixed benchmark is the composition; the library under it changes.
 * Every step is a public call on the cell's backend, on buffers in its
 * memory (x, the weights in x2, the runner's kn_alloc'd work), so the same
 * code runs on cuda.  Offsets: plugin.h, bv_model_offsets. */
#if BV_HAS_MODEL
#define TRY(call)                                                                                  \
	do {                                                                                       \
		kn_status s_ = (call);                                                             \
		if (s_ != KN_OK)                                                                   \
			return s_;                                                                 \
	} while (0)

/* y (rows x out) = x (rows x in) w (in x out) + bias: the bias broadcast
 * over the rows by a K = 1 product with the ones column (no release before
 * 0.9 can copy a row; none has a bias add), then the product added on. */
static kn_status linear(kn_backend b, const float *x, const float *w, const float *bias, const float *ones,
			float *y, size_t rows, size_t in, size_t out)
{
	TRY(kn_sgemm(b, 0, 0, rows, out, 1, 1.0f, ones, 1, bias, out, 0.0f, y, out));
	return kn_sgemm(b, 0, 0, rows, out, in, 1.0f, x, in, w, out, 1.0f, y, out);
}

/* y = layernorm(a) with gain g and bias be, rows x cols.  a may be
 * overwritten (it is scratch here).  kn_layernorm where the header has it
 * (0.8.0); before, the same formula from older calls: row means by gemv,
 * rank-1 products to broadcast them, elementwise ops for the rest. */
static kn_status layer_norm(kn_backend b, float *a, const float *g, const float *be, float *y, size_t rows,
			    size_t cols, const float *ones, float *tmp, float *mean, float *var)
{
#if BV_HAS_NORM
	(void)ones, (void)tmp, (void)mean, (void)var;
	return kn_layernorm(b, a, g, be, y, rows, cols, BV_NORM_EPS);
#else
	float inv = 1.0f / (float)cols;
	TRY(kn_sgemv(b, 0, rows, cols, inv, a, cols, ones, 0.0f, mean));                 /* mean */
	TRY(kn_sgemm(b, 0, 0, rows, cols, 1, -1.0f, mean, 1, ones, cols, 1.0f, a, cols)); /* a - mean */
	TRY(kn_binary(b, KN_MUL, a, a, tmp, rows * cols));
	TRY(kn_sgemv(b, 0, rows, cols, inv, tmp, cols, ones, 0.0f, var)); /* the biased variance */
	TRY(kn_axpy(b, BV_NORM_EPS, ones, var, rows));
	TRY(kn_unary(b, KN_SQRT, var, var, rows));
	TRY(kn_binary(b, KN_DIV, ones, var, var, rows));                                  /* rstd */
	TRY(kn_sgemm(b, 0, 0, rows, cols, 1, 1.0f, var, 1, g, cols, 0.0f, tmp, cols));    /* rstd g */
	TRY(kn_binary(b, KN_MUL, a, tmp, y, rows * cols));
	return kn_sgemm(b, 0, 0, rows, cols, 1, 1.0f, ones, 1, be, cols, 1.0f, y, cols); /* + bias */
#endif
}

/* x + W2 gelu(W1 x + c1) + c2, into out. */
static kn_status mlp(kn_backend b, const bv_model_weights *w, const float *x, const float *wt, float *work,
		     float *out, size_t t, size_t d)
{
	size_t f = BV_MODEL_FF * d;
	float *h = work + w->h;
	TRY(linear(b, x, wt + w->w1, wt + w->c1, wt + w->ones, h, t, d, f));
	TRY(kn_unary(b, KN_GELU, h, h, t * f));
	TRY(linear(b, h, wt + w->w2, wt + w->c2, wt + w->ones, out, t, f, d));
	return kn_binary(b, KN_ADD, out, x, out, t * d);
}

static int run_mlp(const bv_call *c, const bv_args *a)
{
	bv_model_weights w;
	bv_model_offsets(0, a->m, a->n, a->k, &w);
	return from_status(mlp((kn_backend)c->backend, &w, a->x, a->x2, a->work, a->y, a->m * a->k, a->n));
}

/* softmax(Q K^T / sqrt(d_head)) V for every head of every sequence: qkv
 * holds Q, K and V side by side (rows of 3d), ctx gets the heads side by
 * side (rows of d).  kn_attention where the header has it (0.14.0), one
 * call a sequence; before, per head a product for the scores (into p), one
 * softmax over every head's, a product with V. */
static kn_status attention(kn_backend b, const bv_model_weights *w, const float *qkv, float *p, float *ctx,
			   size_t seq, size_t d, size_t batch)
{
	size_t dh = w->dh, ld = 3 * d;
	float alpha = bv_model_alpha(dh);
#if BV_HAS_ATTENTION
	(void)p;
	for (size_t s = 0; s < batch; s++) {
		const float *q = qkv + s * seq * ld;
		TRY(kn_attention(b, q, q + d, q + 2 * d, ld, ctx + s * seq * d, d, seq, w->heads, dh, alpha));
	}
	return KN_OK;
#endif
	for (size_t s = 0; s < batch; s++) {
		const float *q = qkv + s * seq * ld;
		for (size_t h = 0; h < w->heads; h++)
			TRY(kn_sgemm(b, 0, 1, seq, seq, dh, alpha, q + h * dh, ld, q + d + h * dh, ld, 0.0f,
				     p + h * seq * seq, seq));
		TRY(kn_softmax(b, p, p, w->heads * seq, seq));
		for (size_t h = 0; h < w->heads; h++)
			TRY(kn_sgemm(b, 0, 0, seq, dh, seq, 1.0f, p + h * seq * seq, seq, q + 2 * d + h * dh, ld,
				     0.0f, ctx + s * seq * d + h * dh, d));
	}
	return KN_OK;
}

/* A post-norm (BERT) encoder layer:
 *   x1 = layernorm(x + attention(x) Wo + bo),
 *   y  = layernorm(x1 + W2 gelu(W1 x1 + c1) + c2). */
static kn_status encoder(kn_backend b, const bv_model_weights *w, const float *x, const float *wt, float *work,
			 float *y, size_t seq, size_t d, size_t batch)
{
	size_t t = seq * batch;
	const float *ones = wt + w->ones;
	float *a1 = work + w->a1, *x1 = work + w->x1, *a2 = work + w->a2;
	TRY(linear(b, x, wt + w->wqkv, wt + w->bqkv, ones, work + w->qkv, t, d, 3 * d));
	TRY(attention(b, w, work + w->qkv, work + w->p, work + w->ctx, seq, d, batch));
	TRY(linear(b, work + w->ctx, wt + w->wo, wt + w->bo, ones, a1, t, d, d));
	TRY(kn_binary(b, KN_ADD, a1, x, a1, t * d));
	TRY(layer_norm(b, a1, wt + w->g1, wt + w->be1, x1, t, d, ones, work + w->tmp, work + w->mean,
		       work + w->var));
	TRY(mlp(b, w, x1, wt, work, a2, t, d));
	return layer_norm(b, a2, wt + w->g2, wt + w->be2, y, t, d, ones, work + w->tmp, work + w->mean,
			  work + w->var);
}

static int run_encoder(const bv_call *c, const bv_args *a)
{
	bv_model_weights w;
	bv_model_offsets(1, a->m, a->n, a->k, &w);
	return from_status(encoder((kn_backend)c->backend, &w, a->x, a->x2, a->work, a->y, a->m, a->n, a->k));
}
#undef TRY
#endif

static int found(bv_call *out, int (*fn)(const bv_call *, const bv_args *), int op)
{
	out->fn = fn;
	out->op = op;
	return BV_OK;
}

/* The lookup, generated from ops.def: one `if` per op of the group. */
#define L_UNARY(name, kn, ...)                                                                     \
	if (!strcmp(group, "unary") && !strcmp(op, #name))                                         \
		return found(out, run_unary, (int)(kn));
#if BV_HAS_BINARY
#define L_BINARY(name, kn, ...)                                                                    \
	if (!strcmp(group, "binary") && !strcmp(op, #name))                                        \
		return found(out, run_binary, (int)(kn));
#define L_AXPY(name, ...)                                                                          \
	if (!strcmp(group, "binary") && !strcmp(op, #name))                                        \
		return found(out, run_axpy, 0);
#define L_REDUCE(name, kind, kn, ...)                                                              \
	if (!strcmp(group, "reduce") && !strcmp(op, #name))                                        \
		return found(out, kind == BV_K_DOT ? run_dot : kind == BV_K_ARGREDUCE ? run_argreduce : run_reduce, \
			     (int)(kn));
#else
#define L_BINARY BV_NONE
#define L_AXPY BV_NONE
#define L_REDUCE BV_NONE
#endif
#if BV_HAS_ROWS
#define L_ROWS(name, fn, ...)                                                                      \
	if (!strcmp(group, "softmax") && !strcmp(op, #name))                                       \
		return found(out, run_##name, 0);
#define L_MATMUL(name, ...)                                                                        \
	if (!strcmp(group, "matmul") && !strcmp(op, #name))                                        \
		return found(out, run_##name, 0);
#else
#define L_ROWS BV_NONE
#define L_MATMUL BV_NONE
#endif
#if BV_HAS_NORM
#define L_NORM(name, ...)                                                                          \
	if (!strcmp(group, "norm") && !strcmp(op, #name))                                          \
		return found(out, run_##name, 0);
#else
#define L_NORM BV_NONE
#endif
#if BV_HAS_MEMORY
#define L_MEMORY(name, ...)                                                                        \
	if (!strcmp(group, "memory") && !strcmp(op, #name))                                        \
		return found(out, run_##name, 0);
#else
#define L_MEMORY BV_NONE
#endif
#if BV_HAS_QUANT
#define L_QUANT(name, ...)                                                                         \
	if (!strcmp(group, "quant") && !strcmp(op, #name))                                         \
		return found(out, run_##name, 0);
#else
#define L_QUANT BV_NONE
#endif

#if BV_HAS_CONV
#define L_CONV_IN(grp, name, kind, lo, hi, tol, win, stride, kmul, nhwc)                           \
	if (!strcmp(group, grp) && !strcmp(op, #name))                                             \
		return found(out, run_conv,                                                         \
			     (kind == BV_K_CONV ? 0 : kind == BV_K_DWCONV ? 1 : kind == BV_K_MAXPOOL ? 2 : 3) | \
				     (win) << 4 | (stride) << 8 | (kmul) << 12 | (nhwc) << 16);
#define L_CONV(...) L_CONV_IN("conv", __VA_ARGS__)
#define L_POOL(...) L_CONV_IN("pool", __VA_ARGS__)
#else
#define L_CONV BV_NONE
#define L_POOL BV_NONE
#endif
#if BV_HAS_BNORM
#define L_BATCHNORM(name, ...)                                                                     \
	if (!strcmp(group, "norm") && !strcmp(op, #name))                                          \
		return found(out, run_##name, 0);
#define L_CONCAT(name, ...)                                                                        \
	if (!strcmp(group, "memory") && !strcmp(op, #name))                                        \
		return found(out, run_##name, 0);
#else
#define L_BATCHNORM BV_NONE
#define L_CONCAT BV_NONE
#endif
#if BV_HAS_MODEL
#define L_MODEL(name, ...)                                                                         \
	if (!strcmp(group, "model") && !strcmp(op, #name))                                         \
		return found(out, run_##name, 0);
#else
#define L_MODEL BV_NONE
#endif

/* The kinds, as benches.h numbers them (only compared, never stored). */
enum {
	BV_K_UNARY, BV_K_BINARY, BV_K_AXPY, BV_K_REDUCE, BV_K_ARGREDUCE, BV_K_DOT, BV_K_ROWS, BV_K_GEMM, BV_K_GEMV,
	BV_K_NORM, BV_K_COPY, BV_K_TRANSPOSE, BV_K_GATHER, BV_K_SCATTER, BV_K_CONV, BV_K_DWCONV, BV_K_MAXPOOL,
	BV_K_AVGPOOL
};

/* ---- user-defined ops ------------------------------------------------- */
/* Weak: a build without an ops file has no table (orchestrator/build/user_ops.c). */
extern const bv_user_op bv_user_ops[] __attribute__((weak));
extern const size_t bv_user_ops_n __attribute__((weak));

typedef kn_status (*bv_user_unary_fn)(kn_backend, const float *, float *, size_t);
typedef kn_status (*bv_user_binary_fn)(kn_backend, const float *, const float *, float *, size_t);

/* c->op is the op's index in bv_user_ops. */
static int run_user_unary(const bv_call *c, const bv_args *a)
{
	bv_user_unary_fn fn = (bv_user_unary_fn)bv_user_ops[c->op].fn;
	return from_status(fn((kn_backend)c->backend, a->x, a->y, a->n));
}

static int run_user_binary(const bv_call *c, const bv_args *a)
{
	bv_user_binary_fn fn = (bv_user_binary_fn)bv_user_ops[c->op].fn;
	return from_status(fn((kn_backend)c->backend, a->x, a->x2, a->y, a->n));
}

static int lookup_user(const char *group, const char *op, bv_call *out)
{
	if (!bv_user_ops || !&bv_user_ops_n)
		return BV_NA;
	for (size_t i = 0; i < bv_user_ops_n; i++)
		if (!strcmp(bv_user_ops[i].group, group) && !strcmp(bv_user_ops[i].name, op)) {
			if (!bv_user_ops[i].fn) /* this version lacks the function */
				return BV_NA;
			return found(out, !strcmp(group, "binary") ? run_user_binary : run_user_unary, (int)i);
		}
	return BV_NA;
}

static int lookup(const char *group, const char *op, const char *backend, bv_call *out)
{
	memset(out, 0, sizeof(*out));
	out->backend = backend_id(backend);
	if (out->backend < 0)
		return BV_NA;
#define BV_UNARY L_UNARY
#define BV_BINARY L_BINARY
#define BV_AXPY L_AXPY
#define BV_REDUCE L_REDUCE
#define BV_ROWS L_ROWS
#define BV_MATMUL L_MATMUL
#define BV_NORM L_NORM
#define BV_MEMORY L_MEMORY
#define BV_QUANT L_QUANT
#define BV_CONV L_CONV
#define BV_POOL L_POOL
#define BV_BATCHNORM L_BATCHNORM
#define BV_CONCAT L_CONCAT
#define BV_MODEL L_MODEL
#include "ops.def"
	return lookup_user(group, op, out);
}

static int probe(const char *backend)
{
	int id = backend_id(backend);
	if (id < 0)
		return BV_NA;
	return from_status(kn_backend_probe((kn_backend)id));
}

static int alloc(const char *backend, size_t bytes, void **out)
{
	return from_status(kn_alloc((kn_backend)backend_id(backend), bytes, out));
}

static void release(const char *backend, void *p)
{
	kn_free((kn_backend)backend_id(backend), p);
}

static int copy_in(const char *backend, void *dst, const void *src, size_t bytes)
{
	return from_status(kn_copy_in((kn_backend)backend_id(backend), dst, src, bytes));
}

static int copy_out(const char *backend, void *dst, const void *src, size_t bytes)
{
	return from_status(kn_copy_out((kn_backend)backend_id(backend), dst, src, bytes));
}

static int sync_backend(const char *backend)
{
	return from_status(kn_sync((kn_backend)backend_id(backend)));
}

static int host_memory(const char *backend)
{
	return backend_id(backend) != (int)KN_BACKEND_CUDA;
}

#ifdef BV_WITH_CUDART
#include <cuda_runtime_api.h>

/* Events on the default stream, where the library launches its kernels:
 * they time the kernels themselves, not the host's view of them. */
static double device_time(const bv_call *c, const bv_args *a, long reps)
{
	cudaEvent_t start, stop;
	float ms = 0;
	if (cudaDeviceSynchronize() != cudaSuccess || cudaEventCreate(&start) != cudaSuccess)
		return NAN;
	if (cudaEventCreate(&stop) != cudaSuccess) {
		cudaEventDestroy(start);
		return NAN;
	}
	int ok = cudaEventRecord(start, 0) == cudaSuccess;
	for (long r = 0; ok && r < reps; r++)
		ok = c->fn(c, a) == BV_OK;
	ok = ok && cudaEventRecord(stop, 0) == cudaSuccess && cudaEventSynchronize(stop) == cudaSuccess &&
	     cudaEventElapsedTime(&ms, start, stop) == cudaSuccess;
	cudaEventDestroy(start);
	cudaEventDestroy(stop);
	return ok ? (double)ms * 1e6 / (double)reps : NAN;
}
#else
static double device_time(const bv_call *c, const bv_args *a, long reps)
{
	(void)c, (void)a, (void)reps;
	return NAN;
}
#endif

/* kn_simd_isa came with the simd backend (0.2.0); the header's own version
 * decides, as in compat/shims/kernels-0.1.h. */
static const char *simd_isa(void)
{
#if KN_VERSION_MAJOR == 0 && KN_VERSION_MINOR < 2
	return NULL;
#else
	return kn_simd_isa();
#endif
}

/* The library's own allocations during a call (kn_memory_get, 0.10.0):
 * memory_mark before it, memory_peak after it gives the most the library
 * held at once beyond what it held at the mark, host and device. */
#if BV_HEADER_AT_LEAST(0, 10)
static kn_memory_usage marked;

static int memory_mark(void)
{
	kn_memory_reset_peak();
	return from_status(kn_memory_get(&marked));
}

static int memory_peak(double *host, double *device)
{
	kn_memory_usage u;
	int s = from_status(kn_memory_get(&u));
	if (s == BV_OK) {
		*host = u.host_peak_bytes > marked.host_bytes ? (double)(u.host_peak_bytes - marked.host_bytes) : 0;
		*device = u.device_peak_bytes > marked.device_bytes ? (double)(u.device_peak_bytes - marked.device_bytes)
								    : 0;
	}
	return s;
}
#else
static int memory_mark(void)
{
	return BV_NA;
}

static int memory_peak(double *host, double *device)
{
	(void)host, (void)device;
	return BV_NA;
}
#endif

static int set_simd_isa(const char *isa)
{
#if KN_VERSION_MAJOR == 0 && KN_VERSION_MINOR < 2
	(void)isa;
	return BV_NA;
#else
	return from_status(kn_simd_set_isa(isa));
#endif
}

static const bv_plugin plugin = {
	.abi = BV_PLUGIN_ABI,
	.kernel_version = kn_version,
	.lookup = lookup,
	.probe = probe,
	.last_error = kn_last_error,
	.alloc = alloc,
	.release = release,
	.copy_in = copy_in,
	.copy_out = copy_out,
	.sync = sync_backend,
	.host_memory = host_memory,
	.device_time = device_time,
	.simd_isa = simd_isa,
	.memory_mark = memory_mark,
	.memory_peak = memory_peak,
	.set_simd_isa = set_simd_isa,
};

/* The plugin is suite_plugin.c's (the catalog as a suite, catalog.c;
 * docs/suites-design.md), whose benchmarks look the calls up here and use
 * this file's memory, ISA and footprint functions through this table;
 * inside the plugin only. */
__attribute__((visibility("hidden"))) const bv_plugin *bv_catalog_calls(void);
__attribute__((visibility("hidden"))) const bv_plugin *bv_catalog_calls(void)
{
	return &plugin;
}
