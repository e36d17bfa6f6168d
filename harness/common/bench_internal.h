/*
 * bench_internal.h - what the catalog's three files (benches.c,
 * bench_inputs.c, bench_reference.c) share and nothing else uses: gelu's
 * reference (the unary op's, and the model group's MLP), a conv or pool
 * cell's geometry (the layouts and work in benches.c, the conv reference)
 * and the quant group's payload codecs (the bf16 inputs, the int8, bf16 and
 * f16 references and the bit-for-bit check).
 *
 * static inline, so each file has its own copy and none is a symbol: the
 * catalog's objects are linked into each version's plugin beside the
 * library's own names.  Compiled wherever those three files are: bv-runner,
 * the CLI's host code and each version's plugin, compiled at run time.
 */
#ifndef BV_BENCH_INTERNAL_H
#define BV_BENCH_INTERNAL_H

#include "benches.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* gelu in its tanh form, as kernels.h defines it, written as
 * x sigmoid(2u): the same value without the cancellation of 1 + tanh(u) at
 * large negative x, where the result is tiny but not zero. */
static inline double ref_gelu(double x)
{
	double u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
	return x / (1.0 + exp(-2.0 * u));
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

#endif
