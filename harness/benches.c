/*
 * benches.c - the registry of benchmarks: groups, their ops (harness/ops.def),
 * backends and sizes; how a cell's inputs are made, its double-precision
 * reference computed and its output checked; and its work model.
 */
#include "benches.h"
#include "expr.h"
#include "plugin.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double ref_abs(double x) { return fabs(x); }
static double ref_neg(double x) { return -x; }
static double ref_sqrt(double x) { return sqrt(x); }
static double ref_exp(double x) { return exp(x); }
static double ref_relu(double x) { return x > 0 ? x : 0; }
static double ref_log(double x) { return log(x); }
static double ref_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double ref_tanh(double x) { return tanh(x); }
/* gelu in its tanh form, as kernels.h defines it, written as
 * x sigmoid(2u): the same value without the cancellation of 1 + tanh(u) at
 * large negative x, where the result is tiny but not zero. */
static inline double ref_gelu(double x)
{
	double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
	return x / (1.0 + exp(-2.0 * u));
}
static double ref_silu(double x) { return x / (1.0 + exp(-x)); }
static double ref_clamp(double x) { return x < BV_CLAMP_LO ? BV_CLAMP_LO : x > BV_CLAMP_HI ? BV_CLAMP_HI : x; }
static double ref_scale(double x) { return (double)(BV_SCALE_ALPHA * (float)x); }

static double ref_add(double a, double b) { return a + b; }
static double ref_sub(double a, double b) { return a - b; }
static double ref_mul(double a, double b) { return a * b; }
static double ref_div(double a, double b) { return a / b; }
static double ref_max(double a, double b) { return a > b ? a : b; }
static double ref_min(double a, double b) { return a < b ? a : b; }

/* One table per group, from ops.def (ops_table.h keeps the group's lines). */
#define OP_UNARY(name, kn, ref, lo, hi, ulp, flops) {#name, BV_K_UNARY, ref, NULL, lo, hi, ulp, 0, flops, {0}, NULL, NULL, NULL},
#define OP_BINARY(name, kn, ref, lo, hi, ulp, flops) {#name, BV_K_BINARY, NULL, ref, lo, hi, ulp, 0, flops, {0}, NULL, NULL, NULL},
#define OP_AXPY(name, lo, hi, tol) {#name, BV_K_AXPY, NULL, NULL, lo, hi, 0, tol, 2, {0}, NULL, NULL, NULL},
#define OP_REDUCE(name, kind, kn, lo, hi, ulp, tol, flops) {#name, kind, NULL, NULL, lo, hi, ulp, tol, flops, {0}, NULL, NULL, NULL},
#define OP_ROWS(name, fn, lo, hi, ulp, tol, flops) {#name, BV_K_ROWS, NULL, NULL, lo, hi, ulp, tol, flops, {0}, NULL, NULL, NULL},
#define OP_MATMUL(name, kind, lo, hi, tol) {#name, kind, NULL, NULL, lo, hi, 0, tol, 2, {0}, NULL, NULL, NULL},
#define OP_NORM(name, fn, lo, hi, ulp, tol, flops) {#name, BV_K_NORM, NULL, NULL, lo, hi, ulp, tol, flops, {0}, NULL, NULL, NULL},
#define OP_MEMORY(name, kind, lo, hi, flops) {#name, kind, NULL, NULL, lo, hi, 0, 0, flops, {0}, NULL, NULL, NULL},
#define OP_QUANT(name, kind, lo, hi, ulp, tol, flops) {#name, kind, NULL, NULL, lo, hi, ulp, tol, flops, {0}, NULL, NULL, NULL},
#define OP_CONV(name, kind, lo, hi, tol, win, stride, kmul, nhwc)                                   \
	{#name, kind, NULL, NULL, lo, hi, 0, tol, 0, {win, stride, kmul, nhwc}, NULL, NULL, NULL},
#define OP_BATCHNORM(name, lo, hi, ulp, tol, flops) {#name, BV_K_BATCHNORM, NULL, NULL, lo, hi, ulp, tol, flops, {0}, NULL, NULL, NULL},
#define OP_CONCAT(name, lo, hi, flops) {#name, BV_K_CONCAT, NULL, NULL, lo, hi, 0, 0, flops, {0}, NULL, NULL, NULL},
#define OP_MODEL(name, lo, hi, tol) {#name, BV_K_MODEL, NULL, NULL, lo, hi, 0, tol, 0, {0}, NULL, NULL, NULL},

static const bv_op_def unary_ops[] = {
#define BV_TABLE_UNARY
#include "ops_table.h"
};

static const bv_op_def binary_ops[] = {
#define BV_TABLE_BINARY
#include "ops_table.h"
};

static const bv_op_def reduce_ops[] = {
#define BV_TABLE_REDUCE
#include "ops_table.h"
};

static const bv_op_def softmax_ops[] = {
#define BV_TABLE_ROWS
#include "ops_table.h"
};

static const bv_op_def matmul_ops[] = {
#define BV_TABLE_MATMUL
#include "ops_table.h"
};

static const bv_op_def norm_ops[] = {
#define BV_TABLE_NORM
#include "ops_table.h"
};

static const bv_op_def memory_ops[] = {
#define BV_TABLE_MEMORY
#include "ops_table.h"
};

static const bv_op_def quant_ops[] = {
#define BV_TABLE_QUANT
#include "ops_table.h"
};

static const bv_op_def conv_ops[] = {
#define BV_TABLE_CONV
#include "ops_table.h"
};

static const bv_op_def pool_ops[] = {
#define BV_TABLE_POOL
#include "ops_table.h"
};

static const bv_op_def model_ops[] = {
#define BV_TABLE_MODEL
#include "ops_table.h"
};

#define SHAPE2(a, b) (((size_t)2 << 48) | ((size_t)(a) << 32) | ((size_t)(b) << 16) | 1u)
#define SHAPE3(a, b, c) (((size_t)3 << 48) | ((size_t)(a) << 32) | ((size_t)(b) << 16) | (size_t)(c))

static const char *const elementwise_backends[] = {"scalar", "simd", "cuda", NULL};
static const char *const blas_backends[] = {"scalar", "simd", "blas", "cuda", NULL};
/* The scalar backend's matmul is the plain reference loop: seconds per call
 * at 1024^3, beyond any per-cell budget, so it is not in the default matrix. */
static const char *const matmul_backends[] = {"simd", "blas", "cuda", NULL};
static const size_t elementwise_sizes[] = {1024, 65536, 1u << 20, 1u << 24, 0};
static const size_t softmax_sizes[] = {SHAPE2(64, 1024), SHAPE2(1024, 1024), SHAPE2(1024, 4096), 0};
/* The norms' rows x cols: tokens x hidden, as softmax's; for batchnorm
 * channels x pixels of one image. */
static const size_t norm_sizes[] = {SHAPE2(64, 1024), SHAPE2(1024, 1024), SHAPE2(1024, 4096), 0};
/* The memory group: copy, gather and scatter_add take the elementwise
 * lengths, transpose and concat the shapes (the speed targets' 4096 x 4096
 * among them). */
static const size_t memory_sizes[] = {1024, 65536, 1u << 20, 1u << 24, SHAPE2(1024, 1024), SHAPE2(4096, 4096), 0};
/* The quant group: the elementwise lengths (quantize, dequantize, the
 * conversions), rows x cols for the per-channel (per row) scales, and the
 * gemms at 256^3 and the speed target's 1024^3. */
static const size_t quant_sizes[] = {1024, 65536, 1u << 20, 1u << 24, SHAPE2(1024, 1024), SHAPE2(4096, 4096),
				     SHAPE3(256, 256, 256), SHAPE3(1024, 1024, 1024), 0};
/* conv: one image H x W x C (batch 1) from ResNet-50 (56 x 56 x 64, the
 * speed target's layer; 28 x 28 x 128) and MobileNet (112 x 112 x 32). */
static const size_t conv_sizes[] = {SHAPE3(56, 56, 64), SHAPE3(28, 28, 128), SHAPE3(112, 112, 32), 0};
/* pool: ResNet's stem max pool input, and a 56 x 56 x 256 stage output. */
static const size_t pool_sizes[] = {SHAPE3(112, 112, 64), SHAPE3(56, 56, 256), 0};
/* The model group: seq x d x batch, BERT-base's width (768) and a small
 * one (256), one sequence and a batch of 8; one call well under a second on
 * one core (128x256x1: 0.2 GFLOP).  d 768 at batch 8 (15 GFLOP) only when
 * asked for (--sizes 128x768x8). */
static const size_t model_sizes[] = {SHAPE3(128, 256, 1), SHAPE3(128, 256, 8), SHAPE3(128, 768, 1), 0};
/* Square 64..1024, transformer-like rectangles (tokens x hidden x hidden,
 * and the 4x MLP widening), and gemv's M x N. */
static const size_t matmul_sizes[] = {
	SHAPE3(64, 64, 64),      SHAPE3(128, 128, 128),   SHAPE3(256, 256, 256),  SHAPE3(512, 512, 512),
	SHAPE3(1024, 1024, 1024), SHAPE3(128, 768, 768),   SHAPE3(128, 3072, 768), SHAPE3(512, 1024, 4096),
	SHAPE2(1024, 1024),       SHAPE2(4096, 4096),      0};

#define COUNT(a) (sizeof(a) / sizeof(a[0]))
static const bv_bench registry[] = {
	{"unary", unary_ops, COUNT(unary_ops), elementwise_backends, elementwise_sizes},
	{"binary", binary_ops, COUNT(binary_ops), blas_backends, elementwise_sizes},
	{"reduce", reduce_ops, COUNT(reduce_ops), blas_backends, elementwise_sizes},
	{"softmax", softmax_ops, COUNT(softmax_ops), elementwise_backends, softmax_sizes},
	{"matmul", matmul_ops, COUNT(matmul_ops), matmul_backends, matmul_sizes},
	{"norm", norm_ops, COUNT(norm_ops), elementwise_backends, norm_sizes},
	/* blas: OpenBLAS's scopy for copy, simd for the rest (as the kernels
	 * do: transpose, gather, scatter_add, concat) */
	{"memory", memory_ops, COUNT(memory_ops), blas_backends, memory_sizes},
	/* blas: simd for every op (kernels 0.11: BLAS has no int8 gemm).  The
	 * scalar gemms are the plain loops (about 1 s a call at 1024^3 here):
	 * in the matrix for the elementwise ops, their cells end on the budget. */
	{"quant", quant_ops, COUNT(quant_ops), blas_backends, quant_sizes},
	/* conv: scalar's direct loops take 50-70 ms a 3x3 layer here (not
	 * matmul's seconds), so it stays in; blas is im2col + OpenBLAS sgemm
	 * for conv, simd for the depthwise one (as the kernels do) */
	{"conv", conv_ops, COUNT(conv_ops), blas_backends, conv_sizes},
	{"pool", pool_ops, COUNT(pool_ops), elementwise_backends, pool_sizes},
	/* matmul's backends: scalar's sgemm is the naive reference loop (a
	 * 128x768x1 encoder 0.35-0.6 s a call against simd's 25 ms), which
	 * would make the group's run ten times longer; blas's sgemm is
	 * OpenBLAS's, its other calls simd's */
	{"model", model_ops, COUNT(model_ops), matmul_backends, model_sizes},
};

/* The registry with user-defined ops (bv_bench_add_ops) or a suite's group
 * (bv_bench_add_group) added: a copy of the built-in one, made at the first
 * addition, of nextended groups; NULL until then. */
static bv_bench *extended;
static size_t nextended;
/* The op arrays bv_bench_add_ops made (one per group and call; an earlier
 * one stays while a pointer into it may be held), freed by bv_bench_reset. */
static bv_op_def **grown_ops;
static size_t ngrown_ops;

const bv_bench *bv_bench_all(size_t *count)
{
	*count = extended ? nextended : COUNT(registry);
	return extended ? extended : registry;
}

/* The copy, with room for `more` groups beyond those it has. */
static int extend(size_t more, char *err, size_t errlen)
{
	size_t have = extended ? nextended : COUNT(registry);
	bv_bench *grown = realloc(extended, (have + more) * sizeof(bv_bench));
	if (!grown) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!extended)
		memcpy(grown, registry, sizeof(registry));
	extended = grown, nextended = have;
	return 0;
}

int bv_bench_add_ops(const char *group, const bv_op_def *ops, size_t n, char *err, size_t errlen)
{
	if (extend(0, err, errlen))
		return -1;
	bv_bench *b = NULL;
	for (size_t i = 0; i < nextended; i++)
		if (!strcmp(extended[i].name, group))
			b = &extended[i];
	if (!b) {
		snprintf(err, errlen, "no group '%s'", group);
		return -1;
	}
	for (size_t k = 0; k < n; k++) {
		if (ops[k].kind != BV_K_UNARY && ops[k].kind != BV_K_BINARY) {
			snprintf(err, errlen, "op '%s': only unary and binary ops can be added", ops[k].name);
			return -1;
		}
		for (size_t i = 0; i < b->nops; i++)
			if (!strcmp(b->ops[i].name, ops[k].name)) {
				snprintf(err, errlen, "op '%s' is already in group %s", ops[k].name, group);
				return -1;
			}
	}
	bv_op_def *grown = malloc((b->nops + n) * sizeof(bv_op_def));
	bv_op_def **kept = realloc(grown_ops, (ngrown_ops + 1) * sizeof(*grown_ops));
	if (kept)
		grown_ops = kept;
	if (!grown || !kept) {
		free(grown);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	grown_ops[ngrown_ops++] = grown;
	memcpy(grown, b->ops, b->nops * sizeof(bv_op_def));
	memcpy(grown + b->nops, ops, n * sizeof(bv_op_def));
	/* The old array stays when it was an earlier addition's: a pointer
	 * into it may still be held (it is one allocation per group and call). */
	b->ops = grown, b->nops += n;
	return 0;
}

int bv_bench_add_group(const bv_bench *group, char *err, size_t errlen)
{
	if (bv_bench_find(group->name)) {
		snprintf(err, errlen, "a group named '%s' exists already", group->name);
		return -1;
	}
	/* Cells point at their group (bv_cell.bench): growing the array moves
	 * it, which is why this is only for before any selection. */
	if (extend(1, err, errlen))
		return -1;
	extended[nextended++] = *group;
	return 0;
}

void bv_bench_reset(void)
{
	for (size_t i = 0; i < ngrown_ops; i++)
		free(grown_ops[i]);
	free(grown_ops);
	free(extended);
	grown_ops = NULL, ngrown_ops = 0;
	extended = NULL, nextended = 0;
}

const bv_bench *bv_bench_find(const char *name)
{
	size_t n;
	const bv_bench *all = bv_bench_all(&n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(all[i].name, name) == 0)
			return &all[i];
	return NULL;
}

size_t bv_size_shape(int nd, size_t d0, size_t d1, size_t d2)
{
	if (nd == 1)
		return d0;
	return ((size_t)nd << 48) | (d0 << 32) | (d1 << 16) | (nd == 3 ? d2 : 1);
}

int bv_size_dims(size_t size, size_t d[3])
{
	int nd = (int)(size >> 48);
	if (nd == 2 || nd == 3) {
		d[0] = (size >> 32) & 0xffff, d[1] = (size >> 16) & 0xffff, d[2] = nd == 3 ? size & 0xffff : 1;
		return nd;
	}
	d[0] = size, d[1] = d[2] = 1;
	return 1;
}

/* "64K" -> 65536 (at most 2^34), or 0. */
static size_t parse_count(const char *s, const char **end_out)
{
	char *end;
	if (!s || *s < '0' || *s > '9')
		return 0;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	*end_out = end;
	if (v == 0 || v > (1ull << 34) >> shift)
		return 0;
	return (size_t)(v << shift);
}

size_t bv_size_parse(const char *s)
{
	size_t d[3];
	int nd = 0;
	const char *p = s, *end;
	for (;;) {
		size_t v = parse_count(p, &end);
		if (v == 0 || nd == 3)
			return 0;
		d[nd++] = v;
		if (*end == '\0')
			break;
		if (*end != 'x')
			return 0;
		p = end + 1;
	}
	if (nd == 1)
		return d[0];
	for (int i = 0; i < nd; i++)
		if (d[i] > 0xffff)
			return 0;
	return bv_size_shape(nd, d[0], d[1], nd == 3 ? d[2] : 1);
}

static void format_count(size_t n, char *buf, size_t len)
{
	if (n >= (1u << 30) && n % (1u << 30) == 0)
		snprintf(buf, len, "%zuG", n >> 30);
	else if (n >= (1u << 20) && n % (1u << 20) == 0)
		snprintf(buf, len, "%zuM", n >> 20);
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(buf, len, "%zuK", n >> 10);
	else
		snprintf(buf, len, "%zu", n);
}

const char *bv_size_format(size_t n, char *buf, size_t len)
{
	size_t d[3];
	int nd = bv_size_dims(n, d);
	if (nd == 1)
		format_count(n, buf, len);
	else if (nd == 2)
		snprintf(buf, len, "%zux%zu", d[0], d[1]);
	else
		snprintf(buf, len, "%zux%zux%zu", d[0], d[1], d[2]);
	return buf;
}

/* Is name in the comma-separated list? A NULL list contains everything. */
static int listed(const char *list, const char *name)
{
	if (!list)
		return 1;
	size_t len = strlen(name);
	for (const char *p = list; *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		if (n == len && strncmp(p, name, n) == 0)
			return 1;
		p += n + (comma != NULL);
	}
	return 0;
}

int bv_op_named(const bv_op_def *op, const char *item, size_t len)
{
	if (strlen(op->name) == len && !strncmp(op->name, item, len))
		return 1;
	/* A suite op's base name is its benchmark's: compress[level=9]. */
	return op->suite && strlen(op->suite->bench) == len && !strncmp(op->suite->bench, item, len);
}

/* Is op named in the comma-separated list?  A NULL list names every op. */
static int op_listed(const char *list, const bv_op_def *op)
{
	if (!list)
		return 1;
	for (const char *p = list; *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		if (bv_op_named(op, p, n))
			return 1;
		p += n + (comma != NULL);
	}
	return 0;
}

const char *const *bv_op_backends(const bv_bench *b, const bv_op_def *op)
{
	return op->suite ? op->suite->backends : b->backends;
}

const size_t *bv_op_sizes(const bv_bench *b, const bv_op_def *op)
{
	return op->suite ? op->suite->sizes : b->sizes;
}

/* The optimal string alignment distance: insertions, deletions,
 * substitutions and swaps of two neighbours count one edit each, so
 * "comapre" is one edit from "compare".  Names here are short; a longer
 * one is never close. */
static size_t edit_distance(const char *a, const char *b)
{
	enum { MAX = 64 };
	size_t n = strlen(a), m = strlen(b), d[MAX + 1][MAX + 1];
	if (n > MAX || m > MAX)
		return SIZE_MAX;
	for (size_t i = 0; i <= n; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			size_t v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			v = d[i - 1][j] + 1 < v ? d[i - 1][j] + 1 : v;
			v = d[i][j - 1] + 1 < v ? d[i][j - 1] + 1 : v;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[n][m];
}

long bv_closest_name(const char *word, const char *const *names, size_t n)
{
	long best = -1;
	size_t best_d = SIZE_MAX, wlen = strlen(word);
	for (size_t k = 0; k < n && wlen; k++) {
		size_t d = edit_distance(word, names[k]), len = strlen(names[k]);
		len = len > wlen ? len : wlen;
		if (d <= 2 && d * 3 <= len && d < best_d)
			best = (long)k, best_d = d;
	}
	return best;
}

/* The known names of a kind ("bench", "op", "backend") closest to item, for
 * "did you mean"; NULL when none is close. */
static const char *nearest(const char *what, const char *item)
{
	const char *names[256];
	size_t nn = 0, nb;
	const bv_bench *all = bv_bench_all(&nb);
	for (size_t b = 0; b < nb; b++) {
		if (!strcmp(what, "bench") && nn < 256)
			names[nn++] = all[b].name;
		for (size_t i = 0; !strcmp(what, "op") && i < all[b].nops && nn < 256; i++)
			names[nn++] = all[b].ops[i].name;
		for (const char *const *be = all[b].backends; !strcmp(what, "backend") && *be && nn < 256; be++)
			names[nn++] = *be;
	}
	long k = bv_closest_name(item, names, nn);
	return k < 0 ? NULL : names[k];
}

/* Every item of a list must name something, or the user mistyped it. */
static int check_list(const char *list, const char *what, int (*known)(const char *),
		      char *err, size_t errlen)
{
	if (!list)
		return 0;
	char item[64];
	for (const char *p = list;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		if (n == 0 || n >= sizeof(item)) {
			snprintf(err, errlen, "empty or overlong item in %s list '%s'", what, list);
			return -1;
		}
		memcpy(item, p, n);
		item[n] = '\0';
		if (!known(item)) {
			/* `list benches` shows every group's ops and sizes too;
			 * the error must name a list that exists.  A size is
			 * not a name: what one looks like instead. */
			const char *near = nearest(what, item);
			snprintf(err, errlen, "unknown %s '%s'%s%s%s%s (see: bench-versions list %s)", what, item,
				 near ? ": did you mean '" : "", near ? near : "", near ? "'?" : "",
				 strcmp(what, "size") == 0 ? ": a size is a count of elements (1K, 64K, 1M, 16M) "
							     "or a shape (1024x4096, 256x256x256)"
							   : "",
				 strcmp(what, "backend") == 0 ? "backends" : "benches");
			return -1;
		}
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int known_bench(const char *s) { return bv_bench_find(s) != NULL; }
static int known_size(const char *s) { return bv_size_parse(s) != 0; }
static int known_op(const char *s)
{
	size_t n, len = strlen(s);
	const bv_bench *all = bv_bench_all(&n);
	for (size_t b = 0; b < n; b++)
		for (size_t i = 0; i < all[b].nops; i++)
			if (bv_op_named(&all[b].ops[i], s, len))
				return 1;
	return 0;
}
static int known_backend(const char *s)
{
	size_t n;
	const bv_bench *all = bv_bench_all(&n);
	for (size_t b = 0; b < n; b++)
		for (size_t i = 0; i < all[b].nops; i++)
			for (const char *const *be = bv_op_backends(&all[b], &all[b].ops[i]); *be; be++)
				if (strcmp(*be, s) == 0)
					return 1;
	return 0;
}

/* Parses an explicit --sizes list (already validated) into out, dropping
 * repeats; out is 0-terminated. */
static void parse_sizes(const char *list, size_t *out, size_t max)
{
	size_t ns = 0;
	for (const char *p = list; *p && ns + 1 < max;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char buf[64];
		size_t k = n < sizeof(buf) - 1 ? n : sizeof(buf) - 1;
		memcpy(buf, p, k);
		buf[k] = '\0';
		size_t v = bv_size_parse(buf), j;
		for (j = 0; j < ns && out[j] != v; j++)
			;
		if (v && j == ns)
			out[ns++] = v;
		p += n + (comma != NULL);
	}
	out[ns] = 0;
}

static int is_conv(bv_kind k)
{
	return k == BV_K_CONV || k == BV_K_DWCONV || k == BV_K_MAXPOOL || k == BV_K_AVGPOOL;
}

static int op_dims(const bv_op_def *op)
{
	return op->kind == BV_K_GEMM || op->kind == BV_K_QGEMM || op->kind == BV_K_BF16GEMM || is_conv(op->kind) ||
		       op->kind == BV_K_MODEL
		   ? 3
	       : op->kind == BV_K_ROWS || op->kind == BV_K_GEMV || op->kind == BV_K_NORM || op->kind == BV_K_TRANSPOSE ||
			 op->kind == BV_K_QUANT_PC || op->kind == BV_K_DEQUANT_PC || op->kind == BV_K_BATCHNORM ||
			 op->kind == BV_K_CONCAT
		       ? 2
		       : 1;
}

void bv_sizes_hint(const bv_selection *sel, char *buf, size_t len)
{
	size_t nb, at = 0;
	const bv_bench *all = bv_bench_all(&nb);
	buf[0] = '\0';
	for (size_t b = 0; b < nb; b++) {
		if (!listed(sel->benches, all[b].name))
			continue;
		int dims[4] = {0};
		for (size_t o = 0; o < all[b].nops; o++) {
			const bv_op_def *op = &all[b].ops[o];
			int backend = 0;
			for (const char *const *be = bv_op_backends(&all[b], op); *be; be++)
				backend |= listed(sel->backends, *be);
			/* a suite op's sizes are any shape: every one is its kind */
			if (backend && op_listed(sel->ops, op))
				for (int k = 1; k < 4; k++)
					dims[k] |= op->suite ? op->suite->has_size : k == op_dims(op);
		}
		int first = 1;
		for (const size_t *s = all[b].sizes; *s && at < len; s++) {
			size_t d[3];
			char size[32];
			if (!dims[bv_size_dims(*s, d)])
				continue;
			at += (size_t)snprintf(buf + at, len - at, "%s%s%s%s", first && at ? "; " : "",
					       first ? all[b].name : "", first ? ": " : " ",
					       bv_size_format(*s, size, sizeof(size)));
			first = 0;
		}
	}
}

/* The geometry of a conv or pool cell: the size is H x W x C, the op gives
 * the rest (benches.h: bv_conv_def). */
typedef struct conv_geom {
	size_t h, w, c, k, win, st, pad, oh, ow;
	int nhwc;
} conv_geom;

static inline conv_geom geom_of(const bv_cell *c)
{
	size_t d[3];
	bv_size_dims(c->size, d);
	const bv_conv_def *cd = &c->op->conv;
	conv_geom g = {d[0], d[1], d[2], (cd->kmul ? cd->kmul : 1) * d[2], cd->win ? cd->win : 1,
		       cd->stride ? cd->stride : 1, 0, 0, 0, cd->nhwc};
	g.pad = (g.win - 1) / 2;
	/* a window larger than the padded image (a --sizes choice) leaves no
	 * output: the kernels refuse it (KN_EINVAL), the cell fails there */
	g.oh = g.h + 2 * g.pad >= g.win ? (g.h + 2 * g.pad - g.win) / g.st + 1 : 0;
	g.ow = g.w + 2 * g.pad >= g.win ? (g.w + 2 * g.pad - g.win) / g.st + 1 : 0;
	return g;
}

long bv_cells_select(const bv_selection *sel, bv_cell **out, char *err, size_t errlen)
{
	if (check_list(sel->benches, "bench", known_bench, err, errlen) ||
	    check_list(sel->ops, "op", known_op, err, errlen) ||
	    check_list(sel->backends, "backend", known_backend, err, errlen) ||
	    check_list(sel->sizes, "size", known_size, err, errlen))
		return -1;
	size_t nb, count = 0, cap = 16;
	const bv_bench *all = bv_bench_all(&nb);
	bv_cell *cells = malloc(cap * sizeof(*cells));
	if (!cells) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t b = 0; b < nb; b++) {
		if (!listed(sel->benches, all[b].name))
			continue;
		for (size_t o = 0; o < all[b].nops; o++) {
			const bv_op_def *op = &all[b].ops[o];
			if (!op_listed(sel->ops, op))
				continue;
			for (const char *const *be = bv_op_backends(&all[b], op); *be; be++) {
				if (!listed(sel->backends, *be))
					continue;
				/* Explicit --sizes may name any size; otherwise the
				 * defaults.  A suite op without a "size" parameter
				 * has its one cell, size 1, whatever --sizes says. */
				size_t explicit_sizes[64];
				const size_t *sizes = bv_op_sizes(&all[b], op);
				if (sel->sizes && (!op->suite || op->suite->has_size)) {
					parse_sizes(sel->sizes, explicit_sizes, 64);
					sizes = explicit_sizes;
				}
				for (const size_t *s = sizes; *s; s++) {
					size_t d[3];
					/* A size applies to the ops of its dimensionality
					 * (a suite op's to any: the suite says what it is). */
					if (!op->suite && bv_size_dims(*s, d) != op_dims(op))
						continue;
					if (count == cap) {
						bv_cell *grown = realloc(cells, 2 * cap * sizeof(*cells));
						if (!grown) {
							free(cells);
							snprintf(err, errlen, "out of memory");
							return -1;
						}
						cells = grown, cap *= 2;
					}
					cells[count++] = (bv_cell){&all[b], &all[b].ops[o], *be, *s};
					/* A window larger than the padded image (only --sizes
					 * can name one) leaves the op no output: refused here,
					 * before any build, not a `failed` cell after them. */
					if (is_conv(all[b].ops[o].kind)) {
						conv_geom g = geom_of(&cells[count - 1]);
						if (!g.oh || !g.ow) {
							char size[32];
							size_t at_least = g.win > 2 * g.pad ? g.win - 2 * g.pad : 1;
							snprintf(err, errlen,
								 "size %s leaves %s no output (a %zux%zu window, padding %zu: "
								 "at least %zux%zu); name larger --sizes or leave the op out "
								 "with --ops",
								 bv_size_format(*s, size, sizeof(size)), all[b].ops[o].name, g.win,
								 g.win, g.pad, at_least, at_least);
							free(cells);
							return -1;
						}
					}
				}
			}
		}
	}
	*out = cells;
	return (long)count;
}

/* A splitmix64 hash of (op, i): inputs are the same in every process and
 * every version, which is what makes outputs comparable. */
static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Seeded by the whole name (FNV-1a): ops that share a first letter (sqrt,
 * sigmoid, silu, scale) still get their own inputs. */
static uint64_t name_seed(const char *name)
{
	uint64_t seed = 0xcbf29ce484222325ull;
	for (const char *p = name; *p; p++)
		seed = (seed ^ (unsigned char)*p) * 0x100000001b3ull;
	return seed;
}

static float input_at(const bv_op_def *op, uint64_t seed, size_t i)
{
	double u = (double)(mix(i ^ seed) >> 11) * 0x1.0p-53;
	return (float)(op->lo + u * ((double)op->hi - op->lo));
}

float bv_input(const bv_op_def *op, size_t i)
{
	return input_at(op, name_seed(op->name), i);
}

void bv_input_fill(const bv_op_def *op, float *x, size_t n)
{
	uint64_t seed = name_seed(op->name);
	for (size_t i = 0; i < n; i++)
		x[i] = input_at(op, seed, i);
}

static uint64_t ulp_distance(float a, float b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : UINT64_MAX;
	if (a == b)
		return 0;
	int32_t ia, ib;
	memcpy(&ia, &a, 4);
	memcpy(&ib, &b, 4);
	int64_t ka = ia < 0 ? (int64_t)INT32_MIN - ia : ia;
	int64_t kb = ib < 0 ? (int64_t)INT32_MIN - ib : ib;
	return (uint64_t)(ka > kb ? ka - kb : kb - ka);
}

static void ref_conv(const bv_cell *c, const float *x, const float *x2, double *want, double *scale);

void bv_cell_layout(const bv_cell *c, bv_layout *l)
{
	size_t d[3];
	bv_size_dims(c->size, d);
	memset(l, 0, sizeof(*l));
	l->m = d[0], l->n = d[1], l->k = d[2];
	switch (c->op->kind) {
	case BV_K_UNARY: l->nx = l->ny = d[0], l->n = d[0], l->m = 1; break;
	case BV_K_BINARY: l->nx = l->nx2 = l->ny = d[0], l->n = d[0], l->m = 1; break;
	case BV_K_AXPY: l->nx = l->nx2 = d[0], l->inplace = 1, l->n = d[0], l->m = 1; break;
	case BV_K_REDUCE:
	case BV_K_ARGREDUCE: l->nx = d[0], l->result = 1, l->n = d[0], l->m = 1; break;
	case BV_K_DOT: l->nx = l->nx2 = d[0], l->result = 1, l->n = d[0], l->m = 1; break;
	case BV_K_ROWS: l->nx = l->ny = d[0] * d[1]; break;
	case BV_K_GEMM: l->nx = d[0] * d[2], l->nx2 = d[2] * d[1], l->ny = d[0] * d[1]; break;
	case BV_K_GEMV: l->nx = d[0] * d[1], l->nx2 = d[1], l->ny = d[0]; break;
	/* the gain per column, then layernorm's bias */
	case BV_K_NORM: l->nx = l->ny = d[0] * d[1], l->nx2 = (strcmp(c->op->name, "rmsnorm") ? 2 : 1) * d[1]; break;
	case BV_K_COPY: l->nx = l->ny = d[0], l->n = d[0], l->m = 1; break;
	case BV_K_TRANSPOSE: l->nx = l->ny = d[0] * d[1]; break;
	/* x2: the int32 indices, in a float buffer (same size, copied as bytes) */
	case BV_K_GATHER: l->nx = l->nx2 = l->ny = d[0], l->n = d[0], l->m = 1; break;
	/* x: the values, then the indices; y is x2, added to in place */
	case BV_K_SCATTER: l->nx = 2 * d[0], l->nx2 = d[0], l->inplace = 1, l->n = d[0], l->m = 1; break;
	/* the quant group: floats holding 4 int8 or 2 bf16 / f16 (benches.h);
	 * 1-D sizes are one row of n */
	case BV_K_QUANT: l->nx = d[0], l->nx2 = 1, l->ny = (d[0] + 3) / 4, l->n = d[0], l->m = 1; break;
	case BV_K_QUANT_PC: l->nx = d[0] * d[1], l->nx2 = d[0], l->ny = (d[0] * d[1] + 3) / 4; break;
	case BV_K_DEQUANT: l->nx = (d[0] + 3) / 4, l->nx2 = 1, l->ny = d[0], l->n = d[0], l->m = 1; break;
	case BV_K_DEQUANT_PC: l->nx = (d[0] * d[1] + 3) / 4, l->nx2 = d[0], l->ny = d[0] * d[1]; break;
	case BV_K_QGEMM: l->nx = (d[0] * d[2] + 3) / 4, l->nx2 = (d[2] * d[1] + 3) / 4, l->ny = d[0] * d[1]; break;
	case BV_K_BF16GEMM: l->nx = (d[0] * d[2] + 1) / 2, l->nx2 = (d[2] * d[1] + 1) / 2, l->ny = d[0] * d[1]; break;
	case BV_K_TO_HALF: l->nx = d[0], l->ny = (d[0] + 1) / 2, l->n = d[0], l->m = 1; break;
	case BV_K_FROM_HALF: l->nx = (d[0] + 1) / 2, l->ny = d[0], l->n = d[0], l->m = 1; break;
	/* m, n, k: H, W, C; x2 the weights (none for pooling) */
	case BV_K_CONV:
	case BV_K_DWCONV:
	case BV_K_MAXPOOL:
	case BV_K_AVGPOOL: {
		conv_geom g = geom_of(c);
		l->nx = g.h * g.w * g.c, l->ny = g.k * g.oh * g.ow;
		l->nx2 = c->op->kind == BV_K_CONV ? g.k * g.c * g.win * g.win
			 : c->op->kind == BV_K_DWCONV ? g.c * g.win * g.win : 0;
		break;
	}
	/* mean, var, gain, bias per row (channel) */
	case BV_K_BATCHNORM: l->nx = l->ny = d[0] * d[1], l->nx2 = 4 * d[0]; break;
	/* the three inputs back to back in x */
	case BV_K_CONCAT: l->nx = l->ny = d[0] * d[1]; break;
	/* seq x d x batch: x and y are the tokens, x2 the weights and ones */
	case BV_K_MODEL: {
		bv_model_weights w;
		bv_model_offsets(!strcmp(c->op->name, "encoder"), d[0], d[1], d[2], &w);
		l->nx = l->ny = d[0] * d[2] * d[1], l->nx2 = w.total, l->nwork = w.nwork;
		break;
	}
	/* the suite makes its own buffers (bvs_alloc) in the plugin */
	case BV_K_SUITE: memset(l, 0, sizeof(*l)); break;
	}
}

size_t bv_cell_outputs(const bv_cell *c)
{
	bv_layout l;
	bv_cell_layout(c, &l);
	return l.result ? 1 : l.inplace ? l.nx2 : l.ny;
}

/* A permutation of [0, n) as int32 bits in idx (Fisher-Yates on the
 * cell's own stream): every element is read (gather) or added to (scatter)
 * once, so the results are exact and the same on every backend, cuda's
 * atomics included; and the accesses are as random as an embedding lookup's. */
static void permutation_fill(uint64_t seed, float *idx, size_t n)
{
	int32_t *p = malloc(n * sizeof(int32_t));
	if (!p)
		abort(); /* a few MB, made once per cell in setup */
	for (size_t i = 0; i < n; i++)
		p[i] = (int32_t)i;
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(mix((i - 1) ^ seed) % i);
		int32_t t = p[i - 1];
		p[i - 1] = p[j], p[j] = t;
	}
	memcpy(idx, p, n * sizeof(int32_t));
	free(p);
}

/* The i-th int32 index stored in a float buffer. */
static int32_t index_at(const float *idx, size_t i)
{
	int32_t v;
	memcpy(&v, idx + i, sizeof(v));
	return v;
}

/* ---- the quant group's payloads (kernels 0.11) ------------------------- */

static inline int is_bf16(const bv_op_def *op) { return strstr(op->name, "bf16") != NULL; }
static inline float bits_float(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}
static inline uint32_t float_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}
/* Element i of a packed int8 or uint16 payload in a float buffer. */
static inline int8_t i8_at(const float *p, size_t i) { return ((const int8_t *)p)[i]; }
static inline uint16_t u16_at(const float *p, size_t i) { return ((const uint16_t *)p)[i]; }

/* The harness's own references, written apart from the kernels': q =
 * sat(rne(x / s)) with lrintf; f32 -> bf16 as the nearer of the two
 * neighbouring bf16s (ties to even, past the largest to Inf), NaN quiet;
 * f16 by the compiler's _Float16 (round to nearest even). */
static inline int8_t ref_q8(float x, float s)
{
	float v = x / s;
	if (isnan(v))
		return 0;
	return v >= 127.0f ? 127 : v <= -127.0f ? -127 : (int8_t)lrintf(v);
}
static inline uint16_t ref_bf16(float x)
{
	uint32_t u = float_bits(x), lo = u & 0xffff0000u, hi = lo + 0x10000u;
	if (isnan(x))
		return (uint16_t)((u >> 16) | 0x40u);
	double dx = fabs((double)x), dl = fabs((double)bits_float(lo));
	double dh = (hi & 0x7fffffffu) == 0x7f800000u ? 0x1p128 : fabs((double)bits_float(hi));
	if (dx - dl != dh - dx)
		return (uint16_t)((dx - dl < dh - dx ? lo : hi) >> 16);
	return (uint16_t)(((lo >> 16) & 1u ? hi : lo) >> 16);
}
static inline uint16_t ref_f16(float x)
{
	uint32_t u = float_bits(x), sign = (u >> 16) & 0x8000u;
	if (isnan(x))
		return (uint16_t)(sign | 0x7e00u | ((u >> 13) & 0x3ffu));
	double a = fabs((double)x);
	if (a >= 65520.0) /* the tie between 65504 and 2^16 rounds to even: Inf */
		return (uint16_t)(sign | 0x7c00u);
	if (a < 0x1p-14) /* subnormal: steps of 2^-24; 1024 steps is the smallest normal */
		return (uint16_t)(sign | (uint32_t)rint(a * 0x1p24));
	int e;
	frexp(a, &e); /* a = f 2^e, f in [0.5, 1): 11 bits are steps of 2^(e - 11) */
	uint32_t r = (uint32_t)rint(ldexp(a, 11 - e)); /* 1024..2048; 2048 carries into the exponent */
	return (uint16_t)(sign | (((uint32_t)(e - 1 + 15) << 10) + r - 1024u));
}
static inline float ref_from_f16(uint16_t b)
{
	int e = (b >> 10) & 0x1f, m = b & 0x3ff;
	double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
	return (float)(b & 0x8000u ? -v : v);
}

/* The scales: per tensor the largest |x| over 127 (as a calibrated
 * quantizer picks it), per row that times a factor in [0.5, 1.5]. */
static void scales_fill(const bv_op_def *op, float *s, size_t rows)
{
	uint64_t seed = name_seed(op->name) ^ 0x6a09e667f3bcc909ull;
	float top = fmaxf(fabsf(op->lo), fabsf(op->hi)) / 127.0f;
	for (size_t r = 0; r < rows; r++)
		s[r] = rows == 1 ? top : top * (float)(0.5 + (double)(mix(r ^ seed) >> 11) * 0x1.0p-53);
}

/* n payload elements of the cell's kind: int8 over all 256 values; bf16 of
 * values in [lo, hi] (the rounded floats); f16 any finite pattern, its
 * subnormals included; bf16 patterns over every finite exponent. */
static void payload_fill(const bv_op_def *op, uint64_t seed, float *p, size_t n, int bytes)
{
	if (bytes == 1) {
		for (size_t i = 0; i < n; i++)
			((int8_t *)p)[i] = (int8_t)(mix(i ^ seed) >> 56);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t r = mix(i ^ seed);
		uint16_t b;
		if (op->kind == BV_K_BF16GEMM)
			b = ref_bf16(op->lo + (op->hi - op->lo) * (float)((double)(r >> 11) * 0x1.0p-53));
		else if (is_bf16(op))
			b = (uint16_t)(((r >> 7) & 0xff) == 0xff ? (r & 0x807f) | 0x7f00 : r & 0xffff);
		else
			b = (uint16_t)(((r >> 10) & 0x1f) == 0x1f ? (r & 0x83ff) | 0x7800 : r & 0xffff);
		((uint16_t *)p)[i] = b;
	}
}

/* The model group's weights: matrices uniform with variance 1/fan_in (as
 * trained layers keep activations near 1), biases in [-0.1, 0.1], the
 * layernorms' gains in [0.5, 1.5] and biases in [-0.5, 0.5], then the ones. */
static void model_weights_fill(const bv_cell *c, const bv_layout *l, float *x2)
{
	bv_model_weights w;
	int enc = !strcmp(c->op->name, "encoder");
	bv_model_offsets(enc, l->m, l->n, l->k, &w);
	size_t d = l->n, f = BV_MODEL_FF * d;
	/* (offset, length, kind): 0 matrix of fan-in `in`, 1 bias, 2 gain, 3 norm bias */
	struct { size_t at, len, in; int kind; } part[] = {
		{w.wqkv, enc ? d * 3 * d : 0, d, 0}, {w.bqkv, enc ? 3 * d : 0, 0, 1}, {w.wo, enc ? d * d : 0, d, 0},
		{w.bo, enc ? d : 0, 0, 1},            {w.g1, enc ? d : 0, 0, 2},        {w.be1, enc ? d : 0, 0, 3},
		{w.w1, d * f, d, 0},                  {w.c1, f, 0, 1},                  {w.w2, f * d, f, 0},
		{w.c2, d, 0, 1},                      {w.g2, enc ? d : 0, 0, 2},        {w.be2, enc ? d : 0, 0, 3},
	};
	uint64_t seed = name_seed(c->op->name) ^ 0x5851f42d4c957f2dull;
	for (size_t p = 0; p < sizeof(part) / sizeof(part[0]); p++)
		for (size_t i = part[p].at; i < part[p].at + part[p].len; i++) {
			double u = (double)(mix(i ^ seed) >> 11) * 0x1.0p-53;
			switch (part[p].kind) {
			case 0: x2[i] = (float)((2 * u - 1) * sqrt(3.0 / (double)part[p].in)); break;
			case 1: x2[i] = (float)(0.2 * u - 0.1); break;
			case 2: x2[i] = (float)(0.5 + u); break;
			default: x2[i] = (float)(u - 0.5); break;
			}
		}
	for (size_t i = w.ones; i < w.total; i++)
		x2[i] = 1.0f;
}

void bv_cell_inputs(const bv_cell *c, float *x, float *x2)
{
	if (c->op->kind == BV_K_SUITE) /* the suite's setup makes them */
		return;
	bv_layout l;
	bv_cell_layout(c, &l);
	uint64_t qseed = name_seed(c->op->name) ^ 0x3c6ef372fe94f82bull;
	switch (c->op->kind) {
	case BV_K_QUANT:
	case BV_K_QUANT_PC:
		bv_input_fill(c->op, x, l.nx);
		scales_fill(c->op, x2, l.nx2);
		return;
	case BV_K_DEQUANT:
	case BV_K_DEQUANT_PC:
		payload_fill(c->op, qseed, x, l.m * l.n, 1);
		scales_fill(c->op, x2, l.nx2);
		return;
	case BV_K_QGEMM:
		payload_fill(c->op, qseed, x, l.m * l.k, 1);
		payload_fill(c->op, qseed ^ 0x5851f42d4c957f2dull, x2, l.k * l.n, 1);
		return;
	case BV_K_BF16GEMM:
		payload_fill(c->op, qseed, x, l.m * l.k, 2);
		payload_fill(c->op, qseed ^ 0x5851f42d4c957f2dull, x2, l.k * l.n, 2);
		return;
	case BV_K_FROM_HALF: payload_fill(c->op, qseed, x, l.n, 2); return;
	default: break;
	}
	bv_input_fill(c->op, x, l.nx);
	uint64_t pseed = name_seed(c->op->name) ^ 0x2545f4914f6cdd1dull;
	if (c->op->kind == BV_K_GATHER && x2) {
		permutation_fill(pseed, x2, l.n);
		return;
	}
	if (c->op->kind == BV_K_SCATTER)
		permutation_fill(pseed, x + l.n, l.n);
	if (x2 && c->op->kind == BV_K_MODEL) {
		model_weights_fill(c, &l, x2);
		return;
	}
	if (x2 && l.nx2 && c->op->kind == BV_K_BATCHNORM) {
		/* Trained statistics' look: means in [-1, 1], variances in
		 * [0.25, 4], gains in [0.5, 1.5], biases in [-1, 1]. */
		uint64_t seed = name_seed(c->op->name) ^ 0x5851f42d4c957f2dull;
		for (size_t i = 0; i < l.nx2; i++) {
			double u = (double)(mix(i ^ seed) >> 11) * 0x1.0p-53;
			size_t part = i / l.m;
			x2[i] = (float)(part == 1 ? 0.25 + 3.75 * u : part == 2 ? 0.5 + u : 2 * u - 1);
		}
	} else if (x2 && l.nx2 && c->op->kind == BV_K_NORM) {
		/* Gains in [0.5, 1.5] and biases in [-1, 1], as trained ones
		 * look: the op's [lo, hi] is for x. */
		uint64_t seed = name_seed(c->op->name) ^ 0x5851f42d4c957f2dull;
		for (size_t i = 0; i < l.nx2; i++) {
			double u = (double)(mix(i ^ seed) >> 11) * 0x1.0p-53;
			x2[i] = (float)(i < l.n ? 0.5 + u : 2 * u - 1);
		}
	} else if (x2 && l.nx2) {
		/* The second input has its own stream: x2 = x would hide bugs
		 * (sub giving 0, div giving 1). */
		uint64_t seed = name_seed(c->op->name) ^ 0x5851f42d4c957f2dull;
		for (size_t i = 0; i < l.nx2; i++)
			x2[i] = input_at(c->op, seed, i);
	}
}

/* A cell's elements in another order: Fisher-Yates with a splitmix64
 * stream seeded by the op's name and the set, so every process and version
 * gets the same sets. */
static void permute(float *v, size_t n, uint64_t seed)
{
	for (size_t i = n; i > 1; i--) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		size_t j = (size_t)(z % i);
		float t = v[i - 1];
		v[i - 1] = v[j], v[j] = t;
	}
}

int bv_input_sets_count(const bv_cell *c, const bv_layout *l, int want)
{
	bv_kind k = c->op->kind;
	if (want <= 1 ||
	    !(k == BV_K_UNARY || k == BV_K_BINARY || k == BV_K_REDUCE || k == BV_K_ARGREDUCE || k == BV_K_DOT))
		return 1;
	double bytes = 4.0 * (double)(l->nx + l->nx2);
	int n = want > BV_MAX_INPUT_SETS ? BV_MAX_INPUT_SETS : want;
	while (n > 1 && (double)(n - 1) * bytes > BV_INPUT_SETS_BYTES)
		n--;
	return n;
}

void bv_input_set_permute(const bv_cell *c, int s, float *x, size_t nx, float *x2, size_t nx2)
{
	uint64_t seed = 0xcbf29ce484222325ull;
	for (const char *p = c->op->name; *p; p++)
		seed = (seed ^ (unsigned char)*p) * 0x100000001b3ull;
	permute(x, nx, seed ^ (0x632be59bd9b4e019ull * (uint64_t)s));
	if (x2)
		permute(x2, nx2, seed ^ (0x8cb92ba72f3d8dd7ull * (uint64_t)s));
}

/* Sums in long double: the reference must be far more accurate than what it
 * checks, also for 16M-element reductions. */
static void ref_reduce(const bv_cell *c, const float *x, size_t n, double *want, double *scale)
{
	const char *op = c->op->name;
	long double sum = 0, abs_sum = 0, sq = 0;
	double mx = -INFINITY, mn = INFINITY, amax = 0;
	size_t imax = 0, imin = 0;
	for (size_t i = 0; i < n; i++) {
		double v = x[i];
		sum += v, abs_sum += fabs(v), sq += v * v;
		if (v > mx)
			mx = v, imax = i;
		if (v < mn)
			mn = v, imin = i;
		if (fabs(v) > amax)
			amax = fabs(v);
	}
	*scale = (double)abs_sum;
	if (!strcmp(op, "sum"))
		*want = (double)sum;
	else if (!strcmp(op, "mean"))
		*want = (double)(sum / (long double)n), *scale /= (double)n;
	else if (!strcmp(op, "max"))
		*want = mx;
	else if (!strcmp(op, "min"))
		*want = mn;
	else if (!strcmp(op, "norm_l1"))
		*want = (double)abs_sum;
	else if (!strcmp(op, "norm_l2"))
		*want = sqrt((double)sq), *scale = *want;
	else if (!strcmp(op, "norm_linf"))
		*want = amax;
	else if (!strcmp(op, "argmax"))
		*want = (double)imax;
	else if (!strcmp(op, "argmin"))
		*want = (double)imin;
	else
		*want = NAN;
}

/* The quant group: for payload outputs want holds each output float's 32
 * bits (4 int8, one int32, 2 uint16) as an integer, checked bit for bit;
 * for float outputs the float that must come out (bf16gemm: the exact sum
 * and its bound's scale). */
static void ref_quant(const bv_cell *c, const bv_layout *l, const float *x, const float *x2, double *want,
		      double *scale)
{
	const bv_op_def *op = c->op;
	size_t n = l->m * l->n, ny = l->ny;
	for (size_t i = 0; i < ny; i++)
		scale[i] = 0;
	switch (op->kind) {
	case BV_K_QUANT:
	case BV_K_QUANT_PC:
		for (size_t w = 0; w < ny; w++) {
			uint32_t word = 0;
			for (size_t b = 0; b < 4 && 4 * w + b < n; b++) {
				size_t i = 4 * w + b;
				word |= (uint32_t)(uint8_t)ref_q8(x[i], x2[op->kind == BV_K_QUANT ? 0 : i / l->n]) << (8 * b);
			}
			want[w] = word;
		}
		break;
	case BV_K_DEQUANT:
	case BV_K_DEQUANT_PC:
		/* the double product of an int8 and a float is exact: one rounding */
		for (size_t i = 0; i < n; i++)
			want[i] = (float)((double)i8_at(x, i) * x2[op->kind == BV_K_DEQUANT ? 0 : i / l->n]);
		break;
	case BV_K_QGEMM:
		for (size_t i = 0; i < l->m; i++)
			for (size_t j = 0; j < l->n; j++) {
				int64_t sum = 0;
				for (size_t p = 0; p < l->k; p++)
					sum += (int64_t)i8_at(x, i * l->k + p) * i8_at(x2, p * l->n + j);
				want[i * l->n + j] = (double)(uint32_t)(int32_t)sum;
			}
		break;
	case BV_K_BF16GEMM:
		for (size_t i = 0; i < l->m; i++) {
			double *w = want + i * l->n, *sc = scale + i * l->n;
			for (size_t j = 0; j < l->n; j++)
				w[j] = 0, sc[j] = 0;
			for (size_t p = 0; p < l->k; p++) {
				double a = bits_float((uint32_t)u16_at(x, i * l->k + p) << 16);
				for (size_t j = 0; j < l->n; j++) {
					double t = a * bits_float((uint32_t)u16_at(x2, p * l->n + j) << 16);
					w[j] += t, sc[j] += fabs(t);
				}
			}
			for (size_t j = 0; j < l->n; j++)
				sc[j] *= (double)(l->k + 2);
		}
		break;
	case BV_K_TO_HALF:
		for (size_t w = 0; w < ny; w++) {
			uint32_t word = 0;
			for (size_t b = 0; b < 2 && 2 * w + b < l->n; b++) {
				float v = x[2 * w + b];
				word |= (uint32_t)(is_bf16(op) ? ref_bf16(v) : ref_f16(v)) << (16 * b);
			}
			want[w] = word;
		}
		break;
	case BV_K_FROM_HALF:
		for (size_t i = 0; i < l->n; i++)
			want[i] = is_bf16(op) ? bits_float((uint32_t)u16_at(x, i) << 16) : ref_from_f16(u16_at(x, i));
		break;
	default:
		for (size_t i = 0; i < ny; i++)
			want[i] = NAN;
		break;
	}
}

/* Whether the cell's output is a payload checked bit for bit, and how many
 * of the last output float's bytes are the op's (the rest: left alone). */
static int bits_output(const bv_cell *c, size_t *last_bytes)
{
	bv_layout l;
	bv_cell_layout(c, &l);
	size_t n = l.m * l.n;
	switch (c->op->kind) {
	case BV_K_QUANT:
	case BV_K_QUANT_PC: *last_bytes = n % 4 ? n % 4 : 4; return 1;
	case BV_K_TO_HALF: *last_bytes = n % 2 ? 2 : 4; return 1;
	case BV_K_QGEMM: *last_bytes = 4; return 1;
	default: return 0;
	}
}

/* ---- the model group's reference ----------------------------------------
 *
 * The layer in double, with e[i], a bound on the error of the float
 * computation of each value, in units of FLT_EPSILON (u = eps/2 per
 * rounding, counted as eps), carried stage by stage.  Each stage's own
 * rounding is bounded in the worst case:
 *   a product-sum of K terms plus a bias: (K + 2) sum |terms| (as the
 *     matmul group's K sum |a b|);
 *   gelu: 4 ulp of the value (the kernels' accuracy target);
 *   softmax: 16 p_i (the softmax group's tolerance);
 *   a residual add: the rounding of the sum;
 *   layernorm: (cols + 8) (r mean |a| + |z_i| + 1), r the reciprocal std and
 *     z the normalised value (a composed layernorm's gemv of cols terms is
 *     the worst of the releases'), then the gain;
 * and the errors that come in are carried through each stage's first-order
 * derivative, the errors of different inputs added in quadrature (they are
 * roundings of different sums, independent in sign): a sum's sqrt(sum (e_k
 * w_k)^2), softmax's p_i (e_i + sqrt(sum (p_j e_j)^2)), layernorm's r (e_i +
 * |mean| + |z_i| |mean z e|), gelu's |gelu'| <= 1.13.  (Added in absolute
 * value, the worst case, each layer of width K would multiply the bound by
 * about sqrt(K): 4 to 30 on every element of the encoder's output, wider than
 * a wrong bias.)  A layer that is right stays far inside (the unit tests
 * measure how far); a wrong bias, head split, scale or a missing residual
 * moves outputs by 0.01 to 1, far past it. */
typedef struct mvec {
	double *v, *e;
} mvec;

static mvec mvec_new(size_t n)
{
	mvec m = {calloc(n ? n : 1, sizeof(double)), calloc(n ? n : 1, sizeof(double))};
	if (!m.v || !m.e)
		abort(); /* made once per cell in check, as the inputs in setup */
	return m;
}

static void mvec_free(mvec m)
{
	free(m.v), free(m.e);
}

/* y (rows x out) = x (rows x in) w + bias, x given in float (xf, exact) or
 * as a mvec. */
static void ref_linear(const float *xf, const mvec *x, size_t rows, size_t in, const float *w, const float *bias,
		       size_t out, mvec *y)
{
	double *ab = malloc(out * sizeof(double));
	if (!ab)
		abort();
	for (size_t i = 0; i < rows; i++) {
		double *v = y->v + i * out, *e = y->e + i * out;
		for (size_t j = 0; j < out; j++)
			v[j] = bias[j], ab[j] = fabs(bias[j]), e[j] = 0;
		for (size_t k = 0; k < in; k++) {
			double a = xf ? xf[i * in + k] : x->v[i * in + k], ae = xf ? 0 : x->e[i * in + k];
			const float *wr = w + k * out;
			for (size_t j = 0; j < out; j++)
				v[j] += a * wr[j], ab[j] += fabs(a * wr[j]), e[j] += ae * ae * wr[j] * wr[j];
		}
		for (size_t j = 0; j < out; j++)
			e[j] = sqrt(e[j]) + (double)(in + 2) * ab[j];
	}
	free(ab);
}

static double ref_gelu_bound(double x, double xe)
{
	return 1.13 * xe + 4 * fabs(ref_gelu(x));
}

/* y += x (the residual), x float or mvec; y's bound gains the rounding. */
static void ref_residual(const float *xf, const mvec *x, mvec *y, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		y->v[i] += xf ? xf[i] : x->v[i];
		y->e[i] += (xf ? 0 : x->e[i]) + fabs(y->v[i]);
	}
}

/* out = layernorm(a) with gain g, bias be; rows x cols. */
static void ref_layernorm(const mvec *a, const float *g, const float *be, size_t rows, size_t cols, mvec *out)
{
	for (size_t r = 0; r < rows; r++) {
		const double *v = a->v + r * cols, *e = a->e + r * cols;
		double mean = 0, q = 0, me = 0, ma = 0, mze = 0;
		for (size_t j = 0; j < cols; j++)
			mean += v[j], me += e[j] * e[j], ma += fabs(v[j]);
		mean /= (double)cols, me = sqrt(me) / (double)cols, ma /= (double)cols;
		for (size_t j = 0; j < cols; j++)
			q += (v[j] - mean) * (v[j] - mean);
		double rstd = 1 / sqrt(q / (double)cols + (double)BV_NORM_EPS);
		for (size_t j = 0; j < cols; j++)
			mze += (v[j] - mean) * rstd * e[j] * (v[j] - mean) * rstd * e[j];
		mze = sqrt(mze) / (double)cols;
		for (size_t j = 0; j < cols; j++) {
			double z = (v[j] - mean) * rstd;
			double ze = rstd * (e[j] + me + fabs(z) * mze) + (double)(cols + 8) * (rstd * ma + fabs(z) + 1);
			out->v[r * cols + j] = z * g[j] + be[j];
			out->e[r * cols + j] = fabs(g[j]) * ze + 2 * (fabs(z * g[j]) + fabs(be[j]));
		}
	}
}

/* out = x + W2 gelu(W1 x + c1) + c2 */
static void ref_mlp(const float *xf, const mvec *x, const bv_model_weights *w, const float *wt, size_t t, size_t d,
		    mvec *out)
{
	size_t f = BV_MODEL_FF * d;
	mvec h = mvec_new(t * f);
	ref_linear(xf, x, t, d, wt + w->w1, wt + w->c1, f, &h);
	for (size_t i = 0; i < t * f; i++) {
		h.e[i] = ref_gelu_bound(h.v[i], h.e[i]);
		h.v[i] = ref_gelu(h.v[i]);
	}
	ref_linear(NULL, &h, t, f, wt + w->w2, wt + w->c2, d, out);
	ref_residual(xf, x, out, t * d);
	mvec_free(h);
}

/* softmax(Q K^T alpha) V per head of each sequence, qkv rows of 3d. */
static void ref_attention(const mvec *qkv, const bv_model_weights *w, size_t seq, size_t d, size_t batch, mvec *ctx)
{
	size_t dh = w->dh, ld = 3 * d;
	double alpha = bv_model_alpha(dh);
	double *p = malloc(seq * sizeof(double)), *pe = malloc(seq * sizeof(double));
	if (!p || !pe)
		abort();
	for (size_t b = 0; b < batch; b++)
		for (size_t h = 0; h < w->heads; h++)
			for (size_t i = 0; i < seq; i++) {
				const double *q = qkv->v + (b * seq + i) * ld + h * dh, *qe = qkv->e + (q - qkv->v);
				double mx = -INFINITY, sum = 0, pesum = 0;
				for (size_t j = 0; j < seq; j++) {
					const double *k = qkv->v + (b * seq + j) * ld + d + h * dh, *ke = qkv->e + (k - qkv->v);
					double sv = 0, ab = 0, se = 0;
					for (size_t c = 0; c < dh; c++)
						sv += q[c] * k[c], ab += fabs(q[c] * k[c]),
						se += qe[c] * qe[c] * k[c] * k[c] + q[c] * q[c] * ke[c] * ke[c];
					p[j] = alpha * sv, pe[j] = alpha * (sqrt(se) + (double)(dh + 2) * ab);
					mx = p[j] > mx ? p[j] : mx;
				}
				for (size_t j = 0; j < seq; j++)
					sum += exp(p[j] - mx);
				for (size_t j = 0; j < seq; j++)
					p[j] = exp(p[j] - mx) / sum, pesum += p[j] * pe[j] * p[j] * pe[j];
				pesum = sqrt(pesum);
				for (size_t j = 0; j < seq; j++)
					pe[j] = p[j] * (pe[j] + pesum) + 16 * p[j];
				double *o = ctx->v + (b * seq + i) * d + h * dh, *oe = ctx->e + (o - ctx->v);
				for (size_t c = 0; c < dh; c++) {
					double ov = 0, ab = 0, e = 0;
					for (size_t j = 0; j < seq; j++) {
						size_t at = (b * seq + j) * ld + 2 * d + h * dh + c;
						double v = qkv->v[at];
						ov += p[j] * v, ab += p[j] * fabs(v);
						e += pe[j] * v * pe[j] * v + p[j] * qkv->e[at] * p[j] * qkv->e[at];
					}
					o[c] = ov, oe[c] = sqrt(e) + (double)(seq + 2) * ab;
				}
			}
	free(p), free(pe);
}

static void ref_model(const bv_cell *c, const bv_layout *l, const float *x, const float *x2, double *want,
		      double *scale)
{
	int enc = !strcmp(c->op->name, "encoder");
	size_t seq = l->m, d = l->n, batch = l->k, t = seq * batch;
	bv_model_weights w;
	bv_model_offsets(enc, seq, d, batch, &w);
	mvec y = mvec_new(t * d);
	if (!enc) {
		ref_mlp(x, NULL, &w, x2, t, d, &y);
	} else {
		mvec qkv = mvec_new(t * 3 * d), ctx = mvec_new(t * d), a = mvec_new(t * d), x1 = mvec_new(t * d);
		ref_linear(x, NULL, t, d, x2 + w.wqkv, x2 + w.bqkv, 3 * d, &qkv);
		ref_attention(&qkv, &w, seq, d, batch, &ctx);
		ref_linear(NULL, &ctx, t, d, x2 + w.wo, x2 + w.bo, d, &a);
		ref_residual(x, NULL, &a, t * d);
		ref_layernorm(&a, x2 + w.g1, x2 + w.be1, t, d, &x1);
		ref_mlp(NULL, &x1, &w, x2, t, d, &a);
		ref_layernorm(&a, x2 + w.g2, x2 + w.be2, t, d, &y);
		mvec_free(qkv), mvec_free(ctx), mvec_free(a), mvec_free(x1);
	}
	memcpy(want, y.v, t * d * sizeof(double));
	memcpy(scale, y.e, t * d * sizeof(double));
	mvec_free(y);
}

/* softmax and log_softmax, row by row (m rows of n), in double. */
static void ref_rows(const bv_op_def *op, const bv_layout *l, const float *x, double *want, double *scale)
{
	for (size_t r = 0; r < l->m; r++) {
		const float *row = x + r * l->n;
		double mx = -INFINITY, sum = 0;
		for (size_t j = 0; j < l->n; j++)
			mx = row[j] > mx ? row[j] : mx;
		for (size_t j = 0; j < l->n; j++)
			sum += exp(row[j] - mx);
		for (size_t j = 0; j < l->n; j++) {
			double *w = &want[r * l->n + j], *sc = &scale[r * l->n + j];
			if (!strcmp(op->name, "softmax"))
				*w = exp(row[j] - mx) / sum, *sc = *w;
			else /* log_softmax: error grows with |x - max| and log(sum) */
				*w = row[j] - mx - log(sum), *sc = fabs(row[j] - mx) + log(sum) + 1;
		}
	}
}

/* layernorm and rmsnorm, row by row: two passes in long double; a row
 * with a NaN or Inf would be NaN throughout (the inputs here are finite). */
static void ref_norm(const bv_op_def *op, const bv_layout *l, const float *x, const float *x2, double *want,
		     double *scale)
{
	for (size_t r = 0; r < l->m; r++) {
		const float *row = x + r * l->n;
		int rms = !strcmp(op->name, "rmsnorm");
		long double mean = 0, q = 0;
		if (!rms) {
			for (size_t j = 0; j < l->n; j++)
				mean += row[j];
			mean /= (long double)l->n;
		}
		for (size_t j = 0; j < l->n; j++)
			q += (row[j] - mean) * (row[j] - mean);
		double rstd = (double)(1.0L / sqrtl(q / (long double)l->n + (long double)BV_NORM_EPS));
		for (size_t j = 0; j < l->n; j++) {
			double z = (double)((row[j] - mean) * rstd), g = x2[j], b = rms ? 0 : x2[l->n + j];
			want[r * l->n + j] = z * g + b;
			scale[r * l->n + j] = (fabs(z) + 1) * fabs(g) + fabs(b);
		}
	}
}

/* batchnorm: the formula in long double, per channel (row); the scale
 * is the bound of the fused form y = x s + t the kernels use. */
static void ref_batchnorm(const bv_layout *l, const float *x, const float *x2, double *want, double *scale)
{
	for (size_t r = 0; r < l->m; r++) {
		const float *row = x + r * l->n;
		long double mu = x2[r], sd = sqrtl((long double)x2[l->m + r] + (long double)BV_NORM_EPS);
		long double g = x2[2 * l->m + r], b = x2[3 * l->m + r], s = g / sd;
		for (size_t j = 0; j < l->n; j++) {
			want[r * l->n + j] = (double)((row[j] - mu) / sd * g + b);
			scale[r * l->n + j] = (double)(fabsl(row[j] * s) + fabsl(mu * s) + fabsl(b));
		}
	}
}

/* scatter-add: one float add per element of y (the indices are a
 * permutation), done here in float as the kernels do it, so the sum is
 * exact to the bit; repeated indices would add in order of i. */
static void ref_scatter(const bv_layout *l, const float *x, const float *x2, double *want, double *scale)
{
	for (size_t j = 0; j < l->n; j++)
		want[j] = x2[j], scale[j] = 0;
	for (size_t i = 0; i < l->n; i++) {
		size_t j = (size_t)index_at(x + l->n, i);
		want[j] = (double)((float)want[j] + x[i]);
	}
}

/* C = A B, A M x K, B K x N, row-major; the error bound of a K-term
 * dot product is about K eps sum |a b|. */
static void ref_gemm(const bv_layout *l, const float *x, const float *x2, double *want, double *scale)
{
	for (size_t i = 0; i < l->m; i++) {
		double *w = want + i * l->n, *sc = scale + i * l->n;
		for (size_t j = 0; j < l->n; j++)
			w[j] = 0, sc[j] = 0;
		for (size_t p = 0; p < l->k; p++) {
			double a = x[i * l->k + p];
			const float *b = x2 + p * l->n;
			for (size_t j = 0; j < l->n; j++)
				w[j] += a * b[j], sc[j] += fabs(a * b[j]);
		}
		for (size_t j = 0; j < l->n; j++)
			sc[j] *= (double)(l->k + 2);
	}
}

void bv_reference(const bv_cell *c, const float *x, const float *x2, double *want, double *scale)
{
	if (c->op->kind == BV_K_SUITE) /* the suite's check gives its own (bvs_reference) */
		return;
	bv_layout l;
	bv_cell_layout(c, &l);
	const bv_op_def *op = c->op;
	switch (op->kind) {
	case BV_K_MODEL: ref_model(c, &l, x, x2, want, scale); break;
	case BV_K_UNARY:
		for (size_t i = 0; i < l.nx; i++)
			want[i] = op->expr ? bv_expr_eval(op->expr, (double[]){x[i]}) : op->ref(x[i]), scale[i] = 0;
		break;
	case BV_K_BINARY:
		for (size_t i = 0; i < l.nx; i++)
			want[i] = op->expr ? bv_expr_eval(op->expr, (double[]){x[i], x2[i]}) : op->ref2(x[i], x2[i]),
			scale[i] = 0;
		break;
	case BV_K_AXPY:
		/* a x + y rounds once with FMA and twice without: both pass. */
		for (size_t i = 0; i < l.nx; i++) {
			double ax = (double)BV_AXPY_ALPHA * x[i];
			want[i] = ax + x2[i], scale[i] = fabs(ax) + fabs(x2[i]);
		}
		break;
	case BV_K_REDUCE:
	case BV_K_ARGREDUCE: ref_reduce(c, x, l.nx, want, scale); break;
	case BV_K_DOT: {
		long double sum = 0, abs_sum = 0;
		for (size_t i = 0; i < l.nx; i++)
			sum += (long double)x[i] * x2[i], abs_sum += fabsl((long double)x[i] * x2[i]);
		want[0] = (double)sum, scale[0] = (double)abs_sum;
		break;
	}
	case BV_K_ROWS:
		ref_rows(op, &l, x, want, scale);
		break;
	case BV_K_NORM:
		ref_norm(op, &l, x, x2, want, scale);
		break;
	case BV_K_BATCHNORM:
		ref_batchnorm(&l, x, x2, want, scale);
		break;
	case BV_K_CONCAT: {
		size_t w[3], off = 0;
		bv_concat_widths(l.n, w);
		const float *part = x;
		for (int p = 0; p < 3; p++) {
			for (size_t r = 0; r < l.m; r++)
				for (size_t j = 0; j < w[p]; j++)
					want[r * l.n + off + j] = part[r * w[p] + j], scale[r * l.n + off + j] = 0;
			part += l.m * w[p], off += w[p];
		}
		break;
	}
	/* The memory group is exact: want is the float that must come out. */
	case BV_K_COPY:
		for (size_t i = 0; i < l.nx; i++)
			want[i] = x[i], scale[i] = 0;
		break;
	case BV_K_TRANSPOSE:
		for (size_t i = 0; i < l.m; i++)
			for (size_t j = 0; j < l.n; j++)
				want[j * l.m + i] = x[i * l.n + j], scale[j * l.m + i] = 0;
		break;
	case BV_K_GATHER:
		for (size_t i = 0; i < l.n; i++)
			want[i] = x[index_at(x2, i)], scale[i] = 0;
		break;
	case BV_K_SCATTER:
		ref_scatter(&l, x, x2, want, scale);
		break;
	case BV_K_CONV:
	case BV_K_DWCONV:
	case BV_K_MAXPOOL:
	case BV_K_AVGPOOL:
		ref_conv(c, x, x2, want, scale);
		break;
	case BV_K_GEMM:
		ref_gemm(&l, x, x2, want, scale);
		break;
	case BV_K_GEMV:
		for (size_t i = 0; i < l.m; i++) {
			double w = 0, sc = 0;
			for (size_t j = 0; j < l.n; j++)
				w += (double)x[i * l.n + j] * x2[j], sc += fabs((double)x[i * l.n + j] * x2[j]);
			want[i] = w, scale[i] = sc * (double)(l.n + 2);
		}
		break;
	default: ref_quant(c, &l, x, x2, want, scale); break;
	}
}

/* conv and pooling by their definition, one output at a time, in double:
 * conv's error bound is about (c r s) eps sum |w x| (a dot product of that
 * length, as gemm's), avgpool's (r s) eps mean |x|; max is exact. */
static void ref_conv(const bv_cell *c, const float *x, const float *x2, double *want, double *scale)
{
	conv_geom g = geom_of(c);
	bv_kind kind = c->op->kind;
	int cross = kind == BV_K_CONV;
	double terms = (double)((cross ? g.c : 1) * g.win * g.win);
	for (size_t k = 0; k < g.k; k++)
		for (size_t oy = 0; oy < g.oh; oy++)
			for (size_t ox = 0; ox < g.ow; ox++) {
				double acc = 0, sc = 0, m = -INFINITY;
				size_t cnt = 0;
				for (size_t ci = cross ? 0 : k; ci < (cross ? g.c : k + 1); ci++)
					for (size_t r = 0; r < g.win; r++)
						for (size_t s = 0; s < g.win; s++) {
							size_t iy = oy * g.st + r, ix = ox * g.st + s;
							if (iy < g.pad || ix < g.pad || iy - g.pad >= g.h || ix - g.pad >= g.w)
								continue;
							iy -= g.pad, ix -= g.pad;
							double v = x[g.nhwc ? (iy * g.w + ix) * g.c + ci : (ci * g.h + iy) * g.w + ix];
							double w = 1;
							if (kind == BV_K_CONV)
								w = x2[g.nhwc ? ((r * g.win + s) * g.c + ci) * g.k + k
									      : ((k * g.c + ci) * g.win + r) * g.win + s];
							else if (kind == BV_K_DWCONV)
								w = x2[g.nhwc ? (r * g.win + s) * g.c + ci : (ci * g.win + r) * g.win + s];
							acc += w * v, sc += fabs(w * v), cnt++;
							m = v > m ? v : m;
						}
				size_t o = g.nhwc ? (oy * g.ow + ox) * g.k + k : (k * g.oh + oy) * g.ow + ox;
				if (kind == BV_K_MAXPOOL)
					want[o] = m, scale[o] = 0;
				else if (kind == BV_K_AVGPOOL)
					want[o] = acc / (double)cnt, scale[o] = sc / (double)cnt * (terms + 2);
				else
					want[o] = acc, scale[o] = sc * (terms + 2);
			}
}

static int close_enough(const bv_op_def *op, float got, double want, double scale)
{
	if (isnan(want) || isnan(got))
		return isnan(want) && isnan(got);
	if (ulp_distance(got, (float)want) <= op->max_ulp)
		return 1;
	return fabs((double)got - want) <= op->tol * FLT_EPSILON * scale;
}

int bv_verify(const bv_cell *c, const double *want, const double *scale, const float *y, double result,
	      char *why, size_t len)
{
	const bv_op_def *op = c->op;
	bv_layout l;
	bv_cell_layout(c, &l);
	if (op->kind == BV_K_SUITE) /* checked in the plugin (suite_check) */
		return 1;
	if (l.result) {
		int ok = op->kind == BV_K_ARGREDUCE ? result == want[0]
						    : close_enough(op, (float)result, want[0], scale[0]);
		if (!ok)
			snprintf(why, len, "%s over %zu elements: got %.9g, expected %.9g", op->name, l.nx, result,
				 want[0]);
		return ok;
	}
	size_t n = bv_cell_outputs(c), last;
	if (bits_output(c, &last)) {
		for (size_t i = 0; i < n; i++) {
			uint32_t got = float_bits(y[i]), w = (uint32_t)want[i];
			uint32_t mask = i + 1 < n || last == 4 ? 0xffffffffu : (1u << (8 * last)) - 1u;
			if ((got & mask) != (w & mask)) {
				snprintf(why, len, "%s: element %zu of %zu = 0x%08x, expected 0x%08x (%s, bit for bit)",
					 op->name, i, n, got & mask, w & mask,
					 op->kind == BV_K_QGEMM ? "an int32" : op->kind == BV_K_TO_HALF ? "2 x 16 bits" : "4 x int8");
				return 0;
			}
		}
		return 1;
	}
	for (size_t i = 0; i < n; i++)
		if (!close_enough(op, y[i], want[i], scale[i])) {
			uint64_t d = ulp_distance(y[i], (float)want[i]);
			snprintf(why, len, "%s: element %zu of %zu = %.9g, expected %.9g (%s%llu ulp, limit %u%s)",
				 op->name, i, n, (double)y[i], want[i], d == UINT64_MAX ? ">" : "",
				 d == UINT64_MAX ? 0ull : (unsigned long long)d, op->max_ulp,
				 op->tol > 0 ? ", or the error bound" : "");
			return 0;
		}
	return 1;
}

int bv_check(const bv_op_def *op, const float *x, const float *y, size_t n, char *why, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		double want = op->expr ? bv_expr_eval(op->expr, (double[]){x[i]}) : op->ref((double)x[i]);
		if (!close_enough(op, y[i], want, 0)) {
			uint64_t d = ulp_distance(y[i], (float)want);
			snprintf(why, len, "%s: element %zu of %zu: %s(%.9g) = %.9g, expected %.9g (%s%llu ulp, limit %u)",
				 op->name, i, n, op->name, (double)x[i], (double)y[i], want,
				 d == UINT64_MAX ? ">" : "", d == UINT64_MAX ? 0ull : (unsigned long long)d,
				 op->max_ulp);
			return 0;
		}
	}
	return 1;
}

double bv_cell_bytes(const bv_cell *c)
{
	bv_layout l;
	bv_cell_layout(c, &l);
	/* bytes read and written by one call */
	size_t moved = l.nx + l.nx2 + (l.inplace ? l.nx2 : l.ny);
	return 4.0 * (double)moved;
}

/* A layer's work: 2 M N K per product (the bias broadcasts, K = 1, count
 * one add per element), and per element gelu 16, softmax 14, layernorm 8 and
 * a residual add 1 (the unary, softmax and norm groups' figures). */
static double model_flops(int encoder, size_t seq, size_t d, size_t batch)
{
	double t = (double)seq * (double)batch, dd = (double)d, f = BV_MODEL_FF * dd;
	double mlp = 2 * t * dd * f + t * f + 16 * t * f + 2 * t * f * dd + t * dd + t * dd;
	if (!encoder)
		return mlp;
	double heads = (double)bv_model_heads(d), s = (double)seq;
	double attn = 2 * t * dd * 3 * dd + t * 3 * dd   /* Q, K, V */
		      + 2 * t * s * dd + 14 * heads * t * s /* scores, softmax */
		      + 2 * t * s * dd                      /* P V */
		      + 2 * t * dd * dd + t * dd + t * dd;  /* output projection, bias, residual */
	return attn + 8 * t * dd + mlp + 8 * t * dd;
}

double bv_cell_flops(const bv_cell *c)
{
	bv_layout l;
	bv_cell_layout(c, &l);
	switch (c->op->kind) {
	case BV_K_GEMM:
	case BV_K_QGEMM: /* int8 multiply-adds count as 2 operations, as floats' */
	case BV_K_BF16GEMM: return 2.0 * (double)l.m * (double)l.n * (double)l.k;
	case BV_K_QUANT:
	case BV_K_QUANT_PC:
	case BV_K_DEQUANT:
	case BV_K_DEQUANT_PC:
	case BV_K_TO_HALF:
	case BV_K_FROM_HALF: return c->op->flops * (double)l.m * (double)l.n; /* per element, not per float */
	case BV_K_GEMV: return 2.0 * (double)l.m * (double)l.n;
	/* a multiply-add per tap (2 flops) for conv, a compare or an add per
	 * element of the window for pooling; padded taps count as the
	 * framework convention does (k oh ow c r s) */
	case BV_K_CONV: return 2.0 * (double)l.ny * (double)l.nx2 / (double)geom_of(c).k;
	case BV_K_DWCONV: return 2.0 * (double)l.ny * (double)(geom_of(c).win * geom_of(c).win);
	case BV_K_MAXPOOL:
	case BV_K_AVGPOOL: return (double)l.ny * (double)(geom_of(c).win * geom_of(c).win);
	case BV_K_REDUCE:
	case BV_K_ARGREDUCE:
	case BV_K_DOT: return c->op->flops * (double)l.nx;
	case BV_K_MODEL: return model_flops(!strcmp(c->op->name, "encoder"), l.m, l.n, l.k);
	case BV_K_SUITE: return 0; /* the suite says its work per cell (bvs_work) */
	default: return c->op->flops * (double)bv_cell_outputs(c);
	}
}
