/*
 * bench_inputs.c - a catalog cell's inputs: every op's values from a
 * splitmix64 stream seeded by its name (the same in every process and
 * version, which is what makes outputs comparable), gather's and scatter's
 * permutations, the quant group's payloads and scales, the model group's
 * weights, and the other input sets of --inputs.
 *
 * Apart from the registry (benches.c: which cells there are and their
 * buffers) and the references (bench_reference.c: what a cell's output
 * should be), which make no inputs.  Called in each version's catalog
 * plugin, compiled at run time (catalog.c: setup); bv-runner calls
 * bv_input_sets_count.  Linked into bv-runner and the CLI's host code with
 * benches.c.
 */
#include "benches.h"
#include "bench_internal.h"
#include "plugin.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
