/*
 * benches.c - the registry of benchmarks: groups, their ops (harness/common/ops.def),
 * backends and sizes, with the ops and groups an ops file or a suite adds;
 * sizes parsed and formatted; a selection into cells, with "did you mean"
 * for a mistyped name; and each cell's buffers (bv_cell_layout) and work
 * model (bytes and flops of a call).  A cell's inputs are bench_inputs.c's,
 * its reference and check bench_reference.c's.
 *
 * Compiled into bv-runner, the CLI's host code (`list benches`, filters,
 * the plan's and the table's work figures) and each version's catalog
 * plugin, compiled at run time (orchestrator/build/build.c: catalog_fixed).
 */
#include "benches.h"
#include "bench_internal.h"
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
