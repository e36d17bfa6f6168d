/*
 * benches.c - the registry of benchmarks.  Adding an op to a group is one
 * line in its table; adding a group is one table and one registry entry.
 */
#include "benches.h"
#include "plugin.h"

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
static double ref_gelu(double x)
{
	double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
	return x / (1.0 + exp(-2.0 * u));
}
static double ref_silu(double x) { return x / (1.0 + exp(-x)); }
static double ref_clamp(double x) { return x < BV_CLAMP_LO ? BV_CLAMP_LO : x > BV_CLAMP_HI ? BV_CLAMP_HI : x; }
static double ref_scale(double x) { return (double)(BV_SCALE_ALPHA * (float)x); }

static const bv_op_def unary_ops[] = {
#define BV_UNARY(name, kn, ref, lo, hi, ulp, flops) {#name, ref, lo, hi, ulp, flops},
#include "ops.def"
#undef BV_UNARY
};

static const char *const elementwise_backends[] = {"scalar", "simd", "cuda", NULL};
static const size_t elementwise_sizes[] = {1024, 65536, 1u << 20, 1u << 24, 0};

static const bv_bench registry[] = {
	{"unary", unary_ops, sizeof(unary_ops) / sizeof(unary_ops[0]), elementwise_backends,
	 elementwise_sizes, 8.0},
};

const bv_bench *bv_bench_all(size_t *count)
{
	*count = sizeof(registry) / sizeof(registry[0]);
	return registry;
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

size_t bv_size_parse(const char *s)
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
	if (*end != '\0' || v == 0 || v > (1ull << 34) >> shift)
		return 0;
	return (size_t)(v << shift);
}

const char *bv_size_format(size_t n, char *buf, size_t len)
{
	if (n >= (1u << 30) && n % (1u << 30) == 0)
		snprintf(buf, len, "%zuG", n >> 30);
	else if (n >= (1u << 20) && n % (1u << 20) == 0)
		snprintf(buf, len, "%zuM", n >> 20);
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(buf, len, "%zuK", n >> 10);
	else
		snprintf(buf, len, "%zu", n);
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
			snprintf(err, errlen, "unknown %s '%s' (see: bench-versions list %ss)", what,
				 item, strcmp(what, "op") == 0 ? "bench" : what);
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
	size_t n;
	const bv_bench *all = bv_bench_all(&n);
	for (size_t b = 0; b < n; b++)
		for (size_t i = 0; i < all[b].nops; i++)
			if (strcmp(all[b].ops[i].name, s) == 0)
				return 1;
	return 0;
}
static int known_backend(const char *s)
{
	size_t n;
	const bv_bench *all = bv_bench_all(&n);
	for (size_t b = 0; b < n; b++)
		for (const char *const *be = all[b].backends; *be; be++)
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
			if (!listed(sel->ops, all[b].ops[o].name))
				continue;
			for (const char *const *be = all[b].backends; *be; be++) {
				if (!listed(sel->backends, *be))
					continue;
				/* Explicit --sizes may name any size; otherwise the defaults. */
				size_t explicit_sizes[64];
				const size_t *sizes = all[b].sizes;
				if (sel->sizes) {
					parse_sizes(sel->sizes, explicit_sizes, 64);
					sizes = explicit_sizes;
				}
				for (const size_t *s = sizes; *s; s++) {
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

int bv_check(const bv_op_def *op, const float *x, const float *y, size_t n, char *why, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		float want = (float)op->ref((double)x[i]);
		uint64_t d = ulp_distance(y[i], want);
		if (d > op->max_ulp) {
			snprintf(why, len, "%s: element %zu of %zu: %s(%.9g) = %.9g, expected %.9g (%s%llu ulp, limit %u)",
				 op->name, i, n, op->name, (double)x[i], (double)y[i], (double)want,
				 d == UINT64_MAX ? ">" : "", d == UINT64_MAX ? 0ull : (unsigned long long)d,
				 op->max_ulp);
			return 0;
		}
	}
	return 1;
}

double bv_cell_bytes(const bv_cell *c) { return c->bench->bytes_per_elem * (double)c->size; }
double bv_cell_flops(const bv_cell *c) { return c->op->flops * (double)c->size; }
