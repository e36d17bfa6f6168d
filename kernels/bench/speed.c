/*
 * speed.c - the library's speed targets, measured as ratios in one run.
 *
 *   make speed            (builds the library, then runs this)
 *
 * Absolute times drift on shared machines; ratios taken in the same process
 * minutes apart do not drift much.  So every target is a ratio against
 * something measured here, now: this core's copy and read bandwidth, the
 * scalar backend, or OpenBLAS called directly.  Each figure is the best of
 * several repetitions (noise only ever slows a run down), each repetition
 * timing enough calls for about 20 ms.
 *
 * Prints one line per target with the measured ratio, the target and
 * PASS/FAIL; exits 0 (a report, not a test: a shared machine may miss a
 * target on a bad minute; run it again to confirm a FAIL).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels.h"

#ifdef KN_SPEED_CBLAS
#include <cblas.h>
extern void openblas_set_num_threads(int);
#endif

#define N_STREAM (16u << 20) /* 16M floats: far beyond the caches */
#define N_TRANS (1u << 20)
#define REPEATS 7

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* This thread's CPU time: the layer's figures use it (see layer_targets),
 * the rest the wall clock. */
static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double (*clock_s)(void) = now_s;

typedef void (*job_fn)(void *ctx);

/* Best time per call of fn(ctx), in seconds. */
static double best(job_fn fn, void *ctx)
{
	fn(ctx); /* warm: page faults, caches, lazy init */
	double t0 = clock_s();
	fn(ctx);
	double one = clock_s() - t0;
	long calls = one > 0.02 ? 1 : (long)(0.02 / (one > 1e-7 ? one : 1e-7)) + 1;
	double b = INFINITY;
	for (int r = 0; r < REPEATS; r++) {
		t0 = clock_s();
		for (long i = 0; i < calls; i++)
			fn(ctx);
		double t = (clock_s() - t0) / (double)calls;
		b = t < b ? t : b;
	}
	return b;
}

/* The best times per call of fa and fb, timed in alternation (a, b, a,
 * b, ...: 15 rounds of each), so that a ratio of the two is not skewed by a
 * change in the machine's load between them. */
static void best_pair(job_fn fa, void *ca, job_fn fb, void *cb, double *ta, double *tb)
{
	fa(ca), fb(cb);
	*ta = *tb = INFINITY;
	for (int r = 0; r < 15; r++) {
		double t0 = now_s();
		fa(ca);
		double t1 = now_s();
		fb(cb);
		double t2 = now_s();
		*ta = t1 - t0 < *ta ? t1 - t0 : *ta;
		*tb = t2 - t1 < *tb ? t2 - t1 : *tb;
	}
}

/* Best time per call of a over best time per call of b, their repetitions
 * interleaved (a, b, a, b, ...): on a loaded machine a minute's change in
 * what the neighbours do then falls on both alike.  (best() of each, one
 * after the other, gave batchnorm 0.58-1.90 of memcpy over five runs at load
 * 3-5; interleaved in 10 ms windows 0.55-1.04; in 1 ms windows 0.93-1.02.) */
static double best_ratio(job_fn a, void *ca, job_fn b, void *cb)
{
	a(ca), b(cb); /* warm */
	double t0 = now_s();
	a(ca);
	double one = now_s() - t0;
	/* short windows, many of them: at load 4 on 2 vCPUs most 10 ms
	 * windows are cut by a neighbour's time slice, while among 101 of
	 * about 1 ms some run whole */
	long calls = one > 0.001 ? 1 : (long)(0.001 / (one > 1e-7 ? one : 1e-7)) + 1;
	double ba = INFINITY, bb = INFINITY;
	for (int r = 0; r < 101; r++) {
		t0 = now_s();
		for (long i = 0; i < calls; i++)
			a(ca);
		double t = (now_s() - t0) / (double)calls;
		ba = t < ba ? t : ba;
		t0 = now_s();
		for (long i = 0; i < calls; i++)
			b(cb);
		t = (now_s() - t0) / (double)calls;
		bb = t < bb ? t : bb;
	}
	return ba / bb;
}

static float *buf(size_t n, float lo, float hi, unsigned seed)
{
	float *p = aligned_alloc(64, ((n * sizeof(float)) + 63) & ~(size_t)63);
	if (!p) {
		fprintf(stderr, "speed: out of memory\n");
		exit(1);
	}
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
	for (size_t i = 0; i < n; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		p[i] = lo + (hi - lo) * (float)((s >> 11) * 0x1.0p-53);
	}
	return p;
}

/* ---- the jobs ---------------------------------------------------------- */

typedef struct ctx {
	kn_backend b;
	int op;
	float *x, *x2, *y;
	size_t n, m, k;
	float out;
	size_t idx;
} ctx;

static void j_copy(void *p)
{
	ctx *c = p;
	memcpy(c->y, c->x, c->n * sizeof(float));
}

/* Read bandwidth: a sum with eight independent accumulators in the widest
 * vectors the CPU has, so that the loop is limited by memory, not by the
 * adds (a generic loop reached only half of what the library's sum does). */
#include <immintrin.h>
static volatile float sink;

__attribute__((target("avx512f"))) static float read_avx512(const float *x, size_t n)
{
	__m512 s[8];
	for (int k = 0; k < 8; k++)
		s[k] = _mm512_setzero_ps();
	size_t i = 0;
	for (; i + 128 <= n; i += 128) {
		s[0] = _mm512_add_ps(s[0], _mm512_load_ps(x + i));
		s[1] = _mm512_add_ps(s[1], _mm512_load_ps(x + i + 16));
		s[2] = _mm512_add_ps(s[2], _mm512_load_ps(x + i + 32));
		s[3] = _mm512_add_ps(s[3], _mm512_load_ps(x + i + 48));
		s[4] = _mm512_add_ps(s[4], _mm512_load_ps(x + i + 64));
		s[5] = _mm512_add_ps(s[5], _mm512_load_ps(x + i + 80));
		s[6] = _mm512_add_ps(s[6], _mm512_load_ps(x + i + 96));
		s[7] = _mm512_add_ps(s[7], _mm512_load_ps(x + i + 112));
	}
	for (int k = 1; k < 8; k++)
		s[0] = _mm512_add_ps(s[0], s[k]);
	return _mm512_reduce_add_ps(s[0]);
}

__attribute__((target("avx2"))) static float read_avx2(const float *x, size_t n)
{
	__m256 s[8];
	for (int k = 0; k < 8; k++)
		s[k] = _mm256_setzero_ps();
	size_t i = 0;
	for (; i + 64 <= n; i += 64)
		for (int k = 0; k < 8; k++)
			s[k] = _mm256_add_ps(s[k], _mm256_load_ps(x + i + 8 * k));
	for (int k = 1; k < 8; k++)
		s[0] = _mm256_add_ps(s[0], s[k]);
	float out[8];
	_mm256_storeu_ps(out, s[0]);
	return out[0] + out[7];
}

static void j_read(void *p)
{
	ctx *c = p;
	sink = __builtin_cpu_supports("avx512f") ? read_avx512(c->x, c->n)
		 : __builtin_cpu_supports("avx2") ? read_avx2(c->x, c->n)
						  : c->x[0];
}

static void j_unary(void *p)
{
	ctx *c = p;
	kn_unary(c->b, (kn_unary_op)c->op, c->x, c->y, c->n);
}

static void j_binary(void *p)
{
	ctx *c = p;
	kn_binary(c->b, (kn_binary_op)c->op, c->x, c->x2, c->y, c->n);
}

static void j_axpy(void *p)
{
	ctx *c = p;
	kn_axpy(c->b, 1e-3f, c->x, c->y, c->n);
}

static void j_reduce(void *p)
{
	ctx *c = p;
	kn_reduce(c->b, (kn_reduce_op)c->op, c->x, c->n, &c->out);
}

static void j_argmax(void *p)
{
	ctx *c = p;
	kn_argreduce(c->b, KN_ARGMAX, c->x, c->n, &c->idx);
}

static void j_dot(void *p)
{
	ctx *c = p;
	kn_dot(c->b, c->x, c->x2, c->n, &c->out);
}

static void j_softmax(void *p)
{
	ctx *c = p;
	kn_softmax(c->b, c->x, c->y, c->m, c->n);
}

static void j_layernorm(void *p)
{
	ctx *c = p;
	kn_layernorm(c->b, c->x, c->x2, c->x2 + c->n, c->y, c->m, c->n, 1e-5f);
}

static void j_rmsnorm(void *p)
{
	ctx *c = p;
	kn_rmsnorm(c->b, c->x, c->x2, c->y, c->m, c->n, 1e-5f);
}

static void j_kcopy(void *p)
{
	ctx *c = p;
	kn_copy(c->b, c->x, c->y, c->n);
}

static void j_transpose(void *p)
{
	ctx *c = p;
	kn_transpose(c->b, c->x, c->y, c->m, c->n);
}

/* gather / scatter_add: the indices ride in x2 (int32_t, as many as n). */
static void j_gather(void *p)
{
	ctx *c = p;
	kn_gather(c->b, c->x, c->n, (const int32_t *)c->x2, c->y, c->n);
}

static void j_scatter_add(void *p)
{
	ctx *c = p;
	kn_scatter_add(c->b, c->x, (const int32_t *)c->x2, c->n, c->y, c->n);
}

/* batchnorm over 1 x m x n (m channels of n floats); mean, var, gamma, beta
 * ride in x2, m floats each. */
static void j_batchnorm(void *p)
{
	ctx *c = p;
	const float *st = c->x2;
	kn_batchnorm(c->b, c->x, st, st + c->m, st + 2 * c->m, st + 3 * c->m, c->y, 1, c->m, c->n, 1e-5f);
}

/* concat of three pieces of x (m rows of n/2, n/4 and the rest) into y. */
static void j_concat(void *p)
{
	ctx *c = p;
	size_t w[3] = {c->n / 2, c->n / 4, c->n - c->n / 2 - c->n / 4};
	const float *xs[3] = {c->x, c->x + c->m * w[0], c->x + c->m * (w[0] + w[1])};
	kn_concat(c->b, 3, xs, w, c->y, c->m);
}

static void j_sgemm(void *p)
{
	ctx *c = p;
	kn_sgemm(c->b, 0, 0, c->m, c->n, c->k, 1.0f, c->x, c->k, c->x2, c->n, 0.0f, c->y, c->n);
}

/* quant (0.11.0): the int8 / bf16 payloads ride in the float buffers. */
static void j_qgemm(void *p)
{
	ctx *c = p;
	kn_qgemm_i8(c->b, c->m, c->n, c->k, (const int8_t *)c->x, c->k, (const int8_t *)c->x2, c->n,
		    (int32_t *)c->y, c->n);
}

static void j_bf16gemm(void *p)
{
	ctx *c = p;
	kn_bf16gemm(c->b, c->m, c->n, c->k, (const uint16_t *)c->x, c->k, (const uint16_t *)c->x2, c->n, c->y,
		    c->n);
}

static void j_quantize(void *p)
{
	ctx *c = p;
	kn_quantize_i8(c->b, c->x, (int8_t *)c->y, 1, c->n, c->x2, 1);
}

static void j_dequantize(void *p)
{
	ctx *c = p;
	kn_dequantize_i8(c->b, (const int8_t *)c->x, c->y, 1, c->n, c->x2, 1);
}

static void j_to_bf16(void *p)
{
	ctx *c = p;
	kn_f32_to_bf16(c->b, c->x, (uint16_t *)c->y, c->n);
}

static void j_from_bf16(void *p)
{
	ctx *c = p;
	kn_bf16_to_f32(c->b, (const uint16_t *)c->x, c->y, c->n);
}

static void j_to_f16(void *p)
{
	ctx *c = p;
	kn_f32_to_f16(c->b, c->x, (uint16_t *)c->y, c->n);
}

static void j_from_f16(void *p)
{
	ctx *c = p;
	kn_f16_to_f32(c->b, (const uint16_t *)c->x, c->y, c->n);
}

/* conv and pooling: the descriptor rides in cp; x2 holds the
 * weights; op 0 conv2d, 1 dwconv2d, 2 maxpool, 3 avgpool. */
static kn_conv2d_params cp;
static void j_conv(void *p)
{
	ctx *c = p;
	if (c->op == 0)
		kn_conv2d(c->b, &cp, c->x, c->x2, c->y);
	else if (c->op == 1)
		kn_dwconv2d(c->b, &cp, c->x, c->x2, c->y);
	else
		kn_pool2d(c->b, c->op == 2 ? KN_POOL_MAX : KN_POOL_AVG, &cp, c->x, c->y);
}

#ifdef KN_SPEED_CBLAS
static void j_cblas(void *p)
{
	ctx *c = p;
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)c->m, (int)c->n, (int)c->k, 1.0f, c->x,
		    (int)c->k, c->x2, (int)c->n, 0.0f, c->y, (int)c->n);
}
#endif

/* ---- reporting --------------------------------------------------------- */

static int fails;

static void report(const char *what, double value, const char *unit, double target, int higher_is_better)
{
	int pass = higher_is_better ? value >= target : value <= target;
	fails += !pass;
	printf("%-44s %8.3f %-6s target %s %6.3f  %s\n", what, value, unit, higher_is_better ? ">=" : "<=", target,
	       pass ? "PASS" : "FAIL");
}

static uint64_t ulps(float a, double ref)
{
	float b = (float)ref;
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
	int32_t ia, ib;
	memcpy(&ia, &a, 4), memcpy(&ib, &b, 4);
	int64_t ka = ia < 0 ? (int64_t)INT32_MIN - ia : ia, kb = ib < 0 ? (int64_t)INT32_MIN - ib : ib;
	return (uint64_t)(ka > kb ? ka - kb : kb - ka);
}

static double ref_of(int op, double x)
{
	switch (op) {
	case KN_EXP: return exp(x);
	case KN_TANH: return tanh(x);
	default: return 1.0 / (1.0 + exp(-x)); /* sigmoid */
	}
}

/* ---- a transformer layer: the calls together against the calls alone ---
 *
 * The harness's model group (harness/plugin/plugin.c) composes an encoder layer of
 * public calls; here the same calls, on the same shapes, as a list of steps.
 * The layer run in order against the sum of each step timed alone (its
 * inputs hot in the caches, the best case for it): a ratio near 1 means no
 * hidden cost between calls (no per-call setup, no lost cache reuse). */
typedef struct step {
	enum { S_GEMM, S_SOFTMAX, S_GELU, S_ADD, S_LAYERNORM, S_ATTENTION } kind;
	int tb;
	size_t m, n, k, lda, ldb, ldc;
	float alpha, beta;
	const float *a, *b, *g, *be;
	float *c;
} step;

typedef struct layer {
	step s[512];
	size_t n, at; /* steps, and the one step_one runs */
} layer;

static void run_step(const step *s)
{
	kn_backend b = KN_BACKEND_SIMD;
	switch (s->kind) {
	case S_GEMM:
		kn_sgemm(b, 0, s->tb, s->m, s->n, s->k, s->alpha, s->a, s->lda, s->b, s->ldb, s->beta, s->c, s->ldc);
		break;
	case S_SOFTMAX: kn_softmax(b, s->a, s->c, s->m, s->n); break;
	case S_GELU: kn_unary(b, KN_GELU, s->a, s->c, s->m * s->n); break;
	case S_ADD: kn_binary(b, KN_ADD, s->a, s->b, s->c, s->m * s->n); break;
	case S_LAYERNORM: kn_layernorm(b, s->a, s->g, s->be, s->c, s->m, s->n, 1e-5f); break;
	/* one sequence: m tokens, n heads of k, q/k/v in rows of lda */
	case S_ATTENTION:
		kn_attention(b, s->a, s->a + s->n * s->k, s->a + 2 * s->n * s->k, s->lda, s->c, s->ldc, s->m, s->n, s->k,
			     s->alpha);
		break;
	}
}

static void j_layer(void *p)
{
	layer *l = p;
	for (size_t i = 0; i < l->n; i++)
		run_step(&l->s[i]);
}

static void j_step(void *p)
{
	layer *l = p;
	run_step(&l->s[l->at]);
}

static void add_step(layer *l, step s)
{
	if (l->n == sizeof(l->s) / sizeof(l->s[0])) {
		fprintf(stderr, "speed: too many steps\n");
		exit(1);
	}
	l->s[l->n++] = s;
}

/* y = x w + bias (rows x out), the bias broadcast by a K = 1 product with
 * ones, as the harness does. */
static void add_linear(layer *l, const float *x, const float *w, const float *bias, const float *ones, float *y,
		       size_t rows, size_t in, size_t out)
{
	add_step(l, (step){S_GEMM, 0, rows, out, 1, 1, out, out, 1.0f, 0.0f, ones, bias, NULL, NULL, y});
	add_step(l, (step){S_GEMM, 0, rows, out, in, in, out, out, 1.0f, 1.0f, x, w, NULL, NULL, y});
}

/* The encoder of seq x d x batch, 64-wide heads; returns the sum of its
 * steps alone over the layer's time. */
#define LAYER_ROUNDS 3

static double layer_ratio(size_t seq, size_t d, size_t batch, int fused, double *layer_s)
{
	size_t t = seq * batch, f = 4 * d, heads = d / 64, dh = 64, ld = 3 * d;
	unsigned sd = 20;
	float *x = buf(t * d, -1, 1, sd++), *ones = buf(t > f ? t : f, 1, 1, sd++);
	float *wqkv = buf(d * ld, -0.06f, 0.06f, sd++), *bqkv = buf(ld, -0.1f, 0.1f, sd++);
	float *wo = buf(d * d, -0.06f, 0.06f, sd++), *bo = buf(d, -0.1f, 0.1f, sd++);
	float *w1 = buf(d * f, -0.06f, 0.06f, sd++), *c1 = buf(f, -0.1f, 0.1f, sd++);
	float *w2 = buf(f * d, -0.03f, 0.03f, sd++), *c2 = buf(d, -0.1f, 0.1f, sd++);
	float *g = buf(d, 0.5f, 1.5f, sd++), *be = buf(d, -0.5f, 0.5f, sd++);
	float *qkv = buf(t * ld, 0, 0, sd++), *p = buf(heads * seq * seq, 0, 0, sd++), *ctx = buf(t * d, 0, 0, sd++);
	float *a1 = buf(t * d, 0, 0, sd++), *x1 = buf(t * d, 0, 0, sd++), *h = buf(t * f, 0, 0, sd++);
	float *a2 = buf(t * d, 0, 0, sd++), *y = buf(t * d, 0, 0, sd++);
	layer *l = calloc(1, sizeof(*l));
	if (!l) {
		fprintf(stderr, "speed: out of memory\n");
		exit(1);
	}
	add_linear(l, x, wqkv, bqkv, ones, qkv, t, d, ld);
	/* attention: kn_attention per sequence (0.14.0), as the harness calls
	 * it for a 0.14 header; composed (scores, softmax, product) otherwise */
	for (size_t s = 0; s < batch && fused; s++)
		add_step(l, (step){S_ATTENTION, 0, seq, heads, dh, ld, 0, d, 0.125f, 0.0f, qkv + s * seq * ld, NULL,
				   NULL, NULL, ctx + s * seq * d});
	for (size_t s = 0; s < batch && !fused; s++) {
		float *q = qkv + s * seq * ld;
		for (size_t k = 0; k < heads; k++)
			add_step(l, (step){S_GEMM, 1, seq, seq, dh, ld, ld, seq, 0.125f, 0.0f, q + k * dh, q + d + k * dh,
					   NULL, NULL, p + k * seq * seq});
		add_step(l, (step){S_SOFTMAX, 0, heads * seq, seq, 0, 0, 0, 0, 0, 0, p, NULL, NULL, NULL, p});
		for (size_t k = 0; k < heads; k++)
			add_step(l, (step){S_GEMM, 0, seq, dh, seq, seq, ld, d, 1.0f, 0.0f, p + k * seq * seq,
					   q + 2 * d + k * dh, NULL, NULL, ctx + s * seq * d + k * dh});
	}
	add_linear(l, ctx, wo, bo, ones, a1, t, d, d);
	add_step(l, (step){S_ADD, 0, t, d, 0, 0, 0, 0, 0, 0, a1, x, NULL, NULL, a1});
	add_step(l, (step){S_LAYERNORM, 0, t, d, 0, 0, 0, 0, 0, 0, a1, NULL, g, be, x1});
	add_linear(l, x1, w1, c1, ones, h, t, d, f);
	add_step(l, (step){S_GELU, 0, t, f, 0, 0, 0, 0, 0, 0, h, NULL, NULL, NULL, h});
	add_linear(l, h, w2, c2, ones, a2, t, f, d);
	add_step(l, (step){S_ADD, 0, t, d, 0, 0, 0, 0, 0, 0, a2, x1, NULL, NULL, a2});
	add_step(l, (step){S_LAYERNORM, 0, t, d, 0, 0, 0, 0, 0, 0, a2, NULL, g, be, y});
	/* Alone: each step's best; the softmax and gelu run in place, so alone
	 * they see their own output as input (the same work: no early outs).
	 * The layer and its steps are timed in turn, LAYER_ROUNDS times, each
	 * keeping its best: a burst of another job's load then costs one round
	 * of one figure, not the layer against steps timed in a quieter minute
	 * (single passes on a machine at load 4-5 gave 0.75 to 1.73). */
	double *alone = calloc(l->n, sizeof(double)), lay = INFINITY, sum = 0;
	if (!alone) {
		fprintf(stderr, "speed: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < l->n; i++)
		alone[i] = INFINITY;
	for (int round = 0; round < LAYER_ROUNDS; round++) {
		double t = best(j_layer, l);
		lay = t < lay ? t : lay;
		for (l->at = 0; l->at < l->n; l->at++) {
			t = best(j_step, l);
			alone[l->at] = t < alone[l->at] ? t : alone[l->at];
		}
	}
	for (size_t i = 0; i < l->n; i++)
		sum += alone[i];
	free(alone);
	*layer_s = lay;
	double r = lay / sum;
	free(l);
	float *all[] = {x, ones, wqkv, bqkv, wo, bo, w1, c1, w2, c2, g, be, qkv, p, ctx, a1, x1, h, a2, y};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		free(all[i]);
	return r;
}

/* On CPU time: the calls are single-threaded and never wait, so CPU time is
 * their cost, without the minutes this shared machine gives to other jobs
 * (wall-clock figures at load 3.5-4.6 put the same layer at 21 and 54 ms,
 * and the ratio anywhere in 0.84-1.79). */
static void layer_targets(void)
{
	clock_s = cpu_s;
	static const size_t shapes[][3] = {{128, 256, 1}, {128, 256, 8}, {128, 768, 1}};
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (int fused = 1; fused >= 0; fused--) {
			char what[80];
			double t;
			double r = layer_ratio(shapes[i][0], shapes[i][1], shapes[i][2], fused, &t);
			snprintf(what, sizeof(what), "simd encoder %zux%zux%zu%s, layer/calls", shapes[i][0],
				 shapes[i][1], shapes[i][2], fused ? "" : " composed");
			report(what, r, "x", 1.3, 0);
			printf("  %-42s %8.3f ms\n", "(the layer)", t * 1e3);
		}
	clock_s = now_s;
}

/* `speed layer`: only the layer's targets (they take seconds, the rest a
 * minute). */
int main(int argc, char **argv)
{
	/* make speed ISA=avx2: the AVX2 path on an AVX-512 machine (the
	 * targets hold on both; docs/kernels.md gives each figure's ISA). */
	const char *isa = getenv("KN_SPEED_ISA");
	if (isa && *isa && kn_simd_set_isa(isa) != KN_OK) {
		printf("ISA=%s: %s\n", isa, kn_last_error());
		return 1;
	}
	printf("kernels %s, simd path %s\n", kn_version(), kn_simd_isa());
	/* the sections that force an ISA of their own go back to this one */
	const char *run_isa = isa && *isa ? isa : NULL;
	if (kn_backend_probe(KN_BACKEND_SIMD) != KN_OK) {
		printf("simd backend unavailable: %s\n", kn_last_error());
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "layer")) {
		layer_targets();
		printf("\n%d target%s missed\n", fails, fails == 1 ? "" : "s");
		return 0;
	}
#ifdef KN_SPEED_CBLAS
	openblas_set_num_threads(1);
#endif
	ctx c = {.b = KN_BACKEND_SIMD, .n = N_STREAM};
	c.x = buf(N_STREAM, -10, 10, 1), c.x2 = buf(N_STREAM, 0.5f, 10, 2), c.y = buf(N_STREAM, 0, 1, 3);
	double bytes1 = (double)N_STREAM * sizeof(float);
	double copy_bw = 2 * bytes1 / best(j_copy, &c), read_bw = bytes1 / best(j_read, &c);
	printf("this core: copy %.1f GB/s (read + write), read %.1f GB/s, 16M floats\n\n", copy_bw / 1e9,
	       read_bw / 1e9);

	/* Elementwise, not transcendental: bytes moved against copy bandwidth. */
	static const struct { const char *name; int op; } unary[] = {
		{"abs", KN_ABS}, {"neg", KN_NEG}, {"relu", KN_RELU}, {"clamp", KN_CLAMP}, {"scale", KN_SCALE}};
	for (size_t i = 0; i < sizeof(unary) / sizeof(unary[0]); i++) {
		char what[64];
		c.op = unary[i].op;
		double bw = 2 * bytes1 / best(j_unary, &c);
		snprintf(what, sizeof(what), "simd %s 16M, share of copy bandwidth", unary[i].name);
		report(what, bw / copy_bw, "", 0.85, 1);
	}
	static const struct { const char *name; int op; } binary[] = {
		{"add", KN_ADD}, {"sub", KN_SUB}, {"mul", KN_MUL}, {"div", KN_DIV}, {"max", KN_MAX}, {"min", KN_MIN}};
	for (size_t i = 0; i < sizeof(binary) / sizeof(binary[0]); i++) {
		char what[64];
		c.op = binary[i].op;
		double bw = 3 * bytes1 / best(j_binary, &c);
		snprintf(what, sizeof(what), "simd %s 16M, share of copy bandwidth", binary[i].name);
		report(what, bw / copy_bw, "", 0.85, 1);
	}
	report("simd axpy 16M, share of copy bandwidth", 3 * bytes1 / best(j_axpy, &c) / copy_bw, "", 0.85, 1);

	/* Transcendental: against the scalar backend, and accuracy. */
	static const struct { const char *name; int op; } trans[] = {
		{"exp", KN_EXP}, {"tanh", KN_TANH}, {"sigmoid", KN_SIGMOID}};
	ctx t = {.n = N_TRANS, .x = c.x, .y = c.y};
	for (size_t i = 0; i < sizeof(trans) / sizeof(trans[0]); i++) {
		char what[64];
		/* scalar (libm) and simd timed in alternation, best of 101
		 * windows each (best_ratio): one after the other (best(), 7
		 * windows of 20 ms each), a neighbour's burst on either side
		 * moved the ratio by itself */
		t.op = trans[i].op;
		ctx ts = t;
		ts.b = KN_BACKEND_SCALAR;
		t.b = KN_BACKEND_SIMD;
		snprintf(what, sizeof(what), "simd %s 1M, speed-up over scalar", trans[i].name);
		report(what, best_ratio(j_unary, &ts, j_unary, &t), "x", 8, 1);
		/* accuracy over 1M inputs across the whole accepted range */
		float *in = buf(N_TRANS, trans[i].op == KN_EXP ? -87.0f : -40.0f, trans[i].op == KN_EXP ? 88.0f : 40.0f,
				 7 + (unsigned)i);
		kn_unary(KN_BACKEND_SIMD, (kn_unary_op)trans[i].op, in, t.y, N_TRANS);
		uint64_t worst = 0;
		for (size_t k = 0; k < N_TRANS; k++) {
			uint64_t u = ulps(t.y[k], ref_of(trans[i].op, in[k]));
			worst = u > worst ? u : worst;
		}
		free(in);
		snprintf(what, sizeof(what), "simd %s 1M inputs, worst error", trans[i].name);
		report(what, (double)worst, "ulp", 4, 0);
	}

	/* Reductions: bytes read against read bandwidth. */
	static const struct { const char *name; int op; } red[] = {
		{"sum", KN_SUM}, {"max", KN_REDUCE_MAX}, {"norm_l2", KN_NORM_L2}, {"norm_linf", KN_NORM_LINF}};
	for (size_t i = 0; i < sizeof(red) / sizeof(red[0]); i++) {
		char what[64];
		c.op = red[i].op;
		snprintf(what, sizeof(what), "simd %s 16M, share of read bandwidth", red[i].name);
		report(what, bytes1 / best(j_reduce, &c) / read_bw, "", 0.80, 1);
	}
	report("simd argmax 16M, share of read bandwidth", bytes1 / best(j_argmax, &c) / read_bw, "", 0.80, 1);
	report("simd dot 16M, share of read bandwidth", 2 * bytes1 / best(j_dot, &c) / read_bw, "", 0.80, 1);

	/* Softmax 1024 x 4096: two passes over the input is what it must read. */
	ctx s = {.b = KN_BACKEND_SIMD, .x = c.x, .y = c.y, .m = 1024, .n = 4096};
	double sm_bytes = 1024.0 * 4096 * sizeof(float);
	report("simd softmax 1024x4096, share of 2 read passes", 2 * sm_bytes / read_bw / best(j_softmax, &s), "", 0.70,
	       1);

	/* layernorm / rmsnorm 1024 x 4096 (0.8.0): like softmax, one read of x
	 * from memory and one write of y (the statistic's second pass reads the
	 * row from L1), against the same two read passes. */
	ctx nm = {.b = KN_BACKEND_SIMD, .x = c.x, .x2 = c.x2, .y = c.y, .m = 1024, .n = 4096};
	report("simd layernorm 1024x4096, share of 2 read passes", 2 * sm_bytes / read_bw / best(j_layernorm, &nm),
	       "", 0.80, 1);
	report("simd rmsnorm 1024x4096, share of 2 read passes", 2 * sm_bytes / read_bw / best(j_rmsnorm, &nm), "",
	       0.80, 1);
	/* x of 1024 x 4096 is 16 MB: it can stay in a 32 MB L3 between calls
	 * (y goes around the caches), so the same ratio from memory, for
	 * reference: 4096 x 4096, 64 MB each way. */
	nm.m = 4096;
	printf("%-44s %8.3f (no target)\n", "simd layernorm 4096x4096, share of 2 read passes",
	       4 * 2 * sm_bytes / read_bw / best(j_layernorm, &nm));
	printf("%-44s %8.3f (no target)\n", "simd rmsnorm 4096x4096, share of 2 read passes",
	       4 * 2 * sm_bytes / read_bw / best(j_rmsnorm, &nm));

	/* The memory group (0.9.0).  copy and transpose 4096 x 4096 (64 MB
	 * each way) against memcpy's copy bandwidth; gather and scatter_add as
	 * the bytes they move (idx and x read, y written: 12 bytes an element)
	 * against read bandwidth, with sequential indices (the ceiling: every
	 * line used whole) and a random permutation of 16M (every element a
	 * miss in a 64 MB x: latency-bound, no target). */
	ctx mc = {.b = KN_BACKEND_SIMD, .x = c.x, .y = c.y, .n = N_STREAM, .m = 4096};
	report("simd copy 16M, share of copy bandwidth", 2 * bytes1 / best(j_kcopy, &mc) / copy_bw, "", 0.90, 1);
	mc.n = 4096;
	report("simd transpose 4096x4096, share of copy bw", 2 * bytes1 / best(j_transpose, &mc) / copy_bw, "", 0.60,
	       1);
	mc.b = KN_BACKEND_SCALAR;
	printf("%-44s %8.3f (no target)\n", "scalar transpose 4096x4096, share of copy bw",
	       2 * bytes1 / best(j_transpose, &mc) / copy_bw);
	int32_t *perm = aligned_alloc(64, N_STREAM * sizeof(int32_t));
	if (!perm) {
		fprintf(stderr, "speed: out of memory\n");
		return 1;
	}
	for (size_t i = 0; i < N_STREAM; i++)
		perm[i] = (int32_t)i;
	mc = (ctx){.b = KN_BACKEND_SIMD, .x = c.x, .x2 = (float *)perm, .y = c.y, .n = N_STREAM};
	printf("%-44s %8.3f (no target)\n", "simd gather 16M in order, share of read bw",
	       3 * bytes1 / best(j_gather, &mc) / read_bw);
	uint64_t h = 0x9e3779b97f4a7c15ull;
	for (size_t i = N_STREAM - 1; i > 0; i--) { /* Fisher-Yates */
		h ^= h << 13, h ^= h >> 7, h ^= h << 17;
		size_t j = (size_t)(h % (i + 1));
		int32_t t = perm[i];
		perm[i] = perm[j], perm[j] = t;
	}
	printf("%-44s %8.3f (no target)\n", "simd gather 16M permuted, share of read bw",
	       3 * bytes1 / best(j_gather, &mc) / read_bw);
	mc.n = 1u << 20; /* the first 1M of a permutation of 16M is not one of 1M */
	for (size_t i = 0; i < mc.n; i++)
		perm[i] = (int32_t)(((uint64_t)i * 2654435761u) % mc.n);
	printf("%-44s %8.3f (no target)\n", "simd gather 1M strided, share of read bw",
	       3 * bytes1 / 16 / best(j_gather, &mc) / read_bw);
	mc.n = N_STREAM;
	for (size_t i = 0; i < N_STREAM; i++)
		perm[i] = (int32_t)i;
	printf("%-44s %8.3f (no target)\n", "simd scatter_add 16M in order, share of read bw",
	       3 * bytes1 / best(j_scatter_add, &mc) / read_bw);
	free(perm);

	/* batchnorm and concat: both read x once and write y once, so
	 * the yardstick is memcpy of the same bytes, at the same size (a 0.8 MB
	 * ResNet layer sits in L2/L3, where memcpy is far faster than the 16M
	 * figure above), timed interleaved with the op (best_ratio); on the ISA
	 * the dispatch picks, then on AVX2 forced.  concat 4096 rows of 4096
	 * (2048 + 1024 + 1024) is 64 MB each way, the 16M copy's size. */
	float *bn_st = buf(4 * 256, 0.5f, 2, 7);
	static const size_t bn_rows[] = {64, 256};
	static const char *const bn_isas[] = {NULL, "avx2"};
	for (size_t ii = 0; ii < 2; ii++) {
		if (bn_isas[ii] && kn_simd_set_isa(bn_isas[ii]) != KN_OK) {
			printf("%s not on this CPU: no forced figures\n", bn_isas[ii]);
			break;
		}
		const char *isa = kn_simd_isa();
		for (size_t k = 0; k < 2; k++) {
			char what[64];
			ctx bc = {.b = KN_BACKEND_SIMD, .x = c.x, .x2 = bn_st, .y = c.y, .m = bn_rows[k], .n = 3136};
			ctx cc = {.x = c.x, .y = c.y, .n = bn_rows[k] * 3136};
			snprintf(what, sizeof(what), "%s batchnorm %zux3136, share of copy bw", isa, bn_rows[k]);
			report(what, best_ratio(j_copy, &cc, j_batchnorm, &bc), "", 0.80, 1);
		}
		ctx cat = {.b = KN_BACKEND_SIMD, .x = c.x, .y = c.y, .m = 4096, .n = 4096};
		char what[64];
		snprintf(what, sizeof(what), "%s concat 3 x 4096 rows, share of copy bw", isa);
		report(what, best_ratio(j_copy, &c, j_concat, &cat), "", 0.80, 1);
		/* and against the library's own copy (non-temporal stores from
		 * 16 MB: 1.6-1.7x memcpy here), which concat's pieces reuse */
		ctx kc = {.b = KN_BACKEND_SIMD, .x = c.x, .y = c.y, .n = N_STREAM};
		snprintf(what, sizeof(what), "%s concat 3 x 4096 rows, share of kn_copy", isa);
		printf("%-44s %8.3f (no target)\n", what, best_ratio(j_kcopy, &kc, j_concat, &cat));
	}
	kn_simd_set_isa(run_isa); /* not NULL: ISA=avx2 stays on avx2 */
	ctx cat = {.b = KN_BACKEND_SCALAR, .x = c.x, .y = c.y, .m = 4096, .n = 4096};
	printf("%-44s %8.3f (no target)\n", "scalar concat 3 x 4096 rows, share of copy bw",
	       best_ratio(j_copy, &c, j_concat, &cat));
	free(bn_st);

	/* sgemm 1024^3 against OpenBLAS on one thread, called directly. */
	ctx g = {.x = buf(1024 * 1024, -1, 1, 4), .x2 = buf(1024 * 1024, -1, 1, 5), .y = buf(1024 * 1024, 0, 1, 6),
		 .m = 1024, .n = 1024, .k = 1024};
	double flops = 2.0 * 1024 * 1024 * 1024;
	g.b = KN_BACKEND_SIMD;
	double simd = best(j_sgemm, &g);
	printf("%-44s %8.1f GFLOP/s\n", "simd sgemm 1024^3", flops / simd / 1e9);
#ifdef KN_SPEED_CBLAS
	double direct = best(j_cblas, &g);
	printf("%-44s %8.1f GFLOP/s\n", "OpenBLAS cblas_sgemm 1024^3, 1 thread", flops / direct / 1e9);
	report("simd sgemm 1024^3, share of OpenBLAS", direct / simd, "", 0.60, 1);
	if (kn_backend_probe(KN_BACKEND_BLAS) == KN_OK) {
		g.b = KN_BACKEND_BLAS;
		double blas = best(j_sgemm, &g);
		report("blas sgemm 1024^3, time over OpenBLAS direct", blas / direct, "", 1.05, 0);
	} else
		printf("blas backend unavailable: %s\n", kn_last_error());
#else
	printf("OpenBLAS not found by pkg-config: no direct comparison\n");
#endif

	/* The quant group (0.11.0).  Each gemm against the library's own simd
	 * sgemm on the same path at 1024^3, the two timed in alternation
	 * (best_pair) so that a change in the machine's load hits both; forced
	 * AVX2 shows what a machine without AVX-512 gets.  Inputs: random
	 * int8; bf16 in [-1, 1). */
	printf("\n");
	{
		size_t n = 1024 * 1024;
		ctx q = g, b = g;
		q.x = malloc(n), q.x2 = malloc(n), q.y = buf(n, 0, 1, 7);
		b.x = malloc(2 * n), b.x2 = malloc(2 * n), b.y = buf(n, 0, 1, 8);
		if (!q.x || !q.x2 || !b.x || !b.x2) {
			fprintf(stderr, "speed: out of memory\n");
			return 1;
		}
		int8_t *qa = (int8_t *)q.x, *qb = (int8_t *)q.x2;
		uint16_t *ba = (uint16_t *)b.x, *bb = (uint16_t *)b.x2;
		uint64_t r = 42;
		for (size_t i = 0; i < n; i++) {
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			qa[i] = (int8_t)r, qb[i] = (int8_t)(r >> 8);
			/* bf16 in [-1, 1): sign, exponent 120..126, random mantissa */
			ba[i] = (uint16_t)(((r & 1) << 15) | ((120 + (r >> 1) % 7) << 7) | ((r >> 8) & 0x7f));
			bb[i] = (uint16_t)(((r >> 16 & 1) << 15) | ((120 + (r >> 17) % 7) << 7) | ((r >> 24) & 0x7f));
		}
		__builtin_cpu_init();
		int avx512 = !strcmp(kn_simd_isa(), "avx512");
		int vnni = avx512 && __builtin_cpu_supports("avx512vnni");
		int bf16 = avx512 && __builtin_cpu_supports("avx512bf16");
		g.b = q.b = b.b = KN_BACKEND_SIMD;
		double ts, tq, tb;
		best_pair(j_sgemm, &g, j_qgemm, &q, &ts, &tq);
		printf("%-44s %8.1f GFLOP/s, qgemm_i8 %.1f GOP/s\n", "simd sgemm 1024^3 (paired)", flops / ts / 1e9,
		       flops / tq / 1e9);
		report(vnni ? "simd qgemm_i8 1024^3 (VNNI), over simd sgemm" : "simd qgemm_i8 1024^3, over simd sgemm",
		       ts / tq, "x", vnni ? 2.0 : 1.3, 1);
		best_pair(j_sgemm, &g, j_bf16gemm, &b, &ts, &tb);
		printf("%-44s %8.1f GFLOP/s, bf16gemm %.1f GFLOP/s\n", "simd sgemm 1024^3 (paired)", flops / ts / 1e9,
		       flops / tb / 1e9);
		if (bf16)
			report("simd bf16gemm 1024^3 (AVX512-BF16), over sgemm", ts / tb, "x", 1.5, 1);
		else
			printf("%-44s %8.3f x (no target: no AVX512-BF16)\n", "simd bf16gemm 1024^3, over simd sgemm",
			       ts / tb);
		if (vnni || bf16) {
			/* the avx512 path without VNNI / BF16, as on a CPU that lacks them */
			setenv("KN_SIMD_AVX512_EXT", "0", 1);
			best_pair(j_sgemm, &g, j_qgemm, &q, &ts, &tq);
			printf("%-44s %8.3f x (no target)\n", "avx512 without VNNI: qgemm_i8, over sgemm", ts / tq);
			best_pair(j_sgemm, &g, j_bf16gemm, &b, &ts, &tb);
			printf("%-44s %8.3f x (no target)\n", "avx512 without BF16: bf16gemm, over sgemm", ts / tb);
			unsetenv("KN_SIMD_AVX512_EXT");
		}
		if (kn_simd_set_isa("avx2") == KN_OK) {
			best_pair(j_sgemm, &g, j_qgemm, &q, &ts, &tq);
			printf("%-44s %8.1f GFLOP/s, qgemm_i8 %.1f GOP/s\n", "avx2 (forced) sgemm 1024^3 (paired)",
			       flops / ts / 1e9, flops / tq / 1e9);
			report("avx2 (forced) qgemm_i8 1024^3, over avx2 sgemm", ts / tq, "x", 1.3, 1);
			best_pair(j_sgemm, &g, j_bf16gemm, &b, &ts, &tb);
			printf("%-44s %8.3f x (no target: conversion path)\n", "avx2 (forced) bf16gemm, over avx2 sgemm",
			       ts / tb);
			kn_simd_set_isa(run_isa); /* not NULL: ISA=avx2 stays on avx2 */
		}
		free(q.x), free(q.x2), free(q.y), free(b.x), free(b.x2), free(b.y);
		/* Elementwise 16M: bytes moved (4 + 1 or 4 + 2 an element) against
		 * memcpy's bandwidth on 16M floats (8 bytes an element), the two
		 * timed in alternation as the gemms are. */
		ctx e = {.b = KN_BACKEND_SIMD, .n = N_STREAM, .x = c.x, .x2 = c.x2, .y = c.y};
		static const struct { const char *what; job_fn fn; double bytes; } el[] = {
			{"simd quantize_i8 16M, share of copy bw", j_quantize, 5},
			{"simd dequantize_i8 16M, share of copy bw", j_dequantize, 5},
			{"simd f32_to_bf16 16M, share of copy bw", j_to_bf16, 6},
			{"simd bf16_to_f32 16M, share of copy bw", j_from_bf16, 6},
			{"simd f32_to_f16 16M, share of copy bw", j_to_f16, 6},
			{"simd f16_to_f32 16M, share of copy bw", j_from_f16, 6},
		};
		for (size_t i = 0; i < sizeof(el) / sizeof(el[0]); i++) {
			double tc, to;
			best_pair(j_copy, &c, el[i].fn, &e, &tc, &to);
			report(el[i].what, (el[i].bytes * (double)N_STREAM / to) / (2 * bytes1 / tc), "", 0.70, 1);
		}
	}
	/* conv2d: ResNet-50 and MobileNet layers at batch 1, against
	 * this library's simd sgemm on a product of the same shape (M = k,
	 * N = oh ow, K = c r s: the flops of the convolution), so the ratio is
	 * what im2col costs on top of the product. */
	static const struct {
		const char *name;
		kn_conv2d_params p;
		int op;
		double target;
	} convs[] = {
		{"conv3x3 56x56x64->64", {1, 64, 56, 56, 64, 3, 3, 1, 1, KN_NCHW}, 0, 0.70},
		{"conv3x3 56x56x64->64 NHWC", {1, 64, 56, 56, 64, 3, 3, 1, 1, KN_NHWC}, 0, 0},
		{"conv1x1 56x56x64->256", {1, 64, 56, 56, 256, 1, 1, 1, 0, KN_NCHW}, 0, 0},
		{"conv3x3_s2 28x28x128->128", {1, 128, 28, 28, 128, 3, 3, 2, 1, KN_NCHW}, 0, 0},
		{"dwconv3x3 112x112x32", {1, 32, 112, 112, 32, 3, 3, 1, 1, KN_NCHW}, 1, 0},
		{"dwconv3x3 112x112x32 NHWC", {1, 32, 112, 112, 32, 3, 3, 1, 1, KN_NHWC}, 1, 0},
		{"maxpool3x3_s2 112x112x64", {1, 64, 112, 112, 64, 3, 3, 2, 1, KN_NCHW}, 2, 0},
		{"avgpool2x2_s2 56x56x256", {1, 256, 56, 56, 256, 2, 2, 2, 0, KN_NCHW}, 3, 0},
	};
	ctx cv = {.x = buf(1u << 22, -1, 1, 7), .x2 = buf(1u << 20, -1, 1, 8), .y = buf(1u << 22, 0, 1, 9)};
	printf("\n");
	for (size_t i = 0; i < sizeof(convs) / sizeof(convs[0]); i++) {
		char what[80];
		size_t oh, ow;
		cp = convs[i].p;
		kn_conv2d_out_size(&cp, &oh, &ow);
		cv.op = convs[i].op;
		if (cv.op == 0) {
			double fl = 2.0 * cp.k * oh * ow * cp.c * cp.r * cp.s;
			ctx gm = {.b = KN_BACKEND_SIMD, .x = cv.x2, .x2 = cv.x, .y = cv.y, .m = cp.k, .n = oh * ow,
				  .k = cp.c * cp.r * cp.s};
			double tg = best(j_sgemm, &gm);
			cv.b = KN_BACKEND_SIMD;
			double tc = best(j_conv, &cv);
			printf("%-44s %8.1f GFLOP/s (sgemm %zux%zux%zu %.1f)\n", convs[i].name, fl / tc / 1e9, gm.m, gm.n,
			       gm.k, fl / tg / 1e9);
			snprintf(what, sizeof(what), "simd %s, share of simd sgemm", convs[i].name);
			if (convs[i].target > 0)
				report(what, tg / tc, "", convs[i].target, 1);
			else
				printf("%-44s %8.3f (no target)\n", what, tg / tc);
#ifdef KN_SPEED_CBLAS
			if (kn_backend_probe(KN_BACKEND_BLAS) == KN_OK) {
				double td = best(j_cblas, &gm);
				cv.b = KN_BACKEND_BLAS;
				double tb = best(j_conv, &cv);
				snprintf(what, sizeof(what), "blas %s, share of OpenBLAS sgemm", convs[i].name);
				printf("%-44s %8.3f (no target)\n", what, td / tb);
			}
#endif
		} else {
			/* bytes: x read once, y written once (the window's reuse
			 * stays in cache), against read bandwidth */
			double bytes = 4.0 * (cp.c * cp.h * cp.w + cp.c * oh * ow);
			cv.b = KN_BACKEND_SIMD;
			double t = best(j_conv, &cv);
			cv.b = KN_BACKEND_SCALAR;
			double ts = best(j_conv, &cv);
			snprintf(what, sizeof(what), "simd %s, share of read bw", convs[i].name);
			printf("%-44s %8.3f (no target; %.1fx scalar)\n", what, bytes / t / read_bw, ts / t);
		}
	}
	layer_targets();
	printf("\n%d target%s missed\n", fails, fails == 1 ? "" : "s");
	return 0;
}
