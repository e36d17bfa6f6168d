/*
 * api.c - argument checking, backend dispatch and error reporting.
 *
 * Every public call validates its arguments here once, so backends can assume
 * sane input; a backend that lacks an op answers KN_EUNSUPPORTED.
 */
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KN_STR2(x) #x
#define KN_STR(x) KN_STR2(x)

static _Thread_local char last_error[256];

kn_status kn_fail(kn_status s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return s;
}

const char *kn_version(void)
{
	return KN_STR(KN_VERSION_MAJOR) "." KN_STR(KN_VERSION_MINOR) "." KN_STR(KN_VERSION_PATCH);
}

const char *kn_last_error(void) { return last_error; }

const char *kn_status_name(kn_status s)
{
	switch (s) {
	case KN_OK: return "ok";
	case KN_EINVAL: return "invalid argument";
	case KN_EUNSUPPORTED: return "unsupported";
	case KN_EUNAVAILABLE: return "unavailable";
	case KN_ENOMEM: return "out of memory";
	case KN_EDEVICE: return "device error";
	}
	return "unknown status";
}

static const char *const backend_names[KN_BACKEND_COUNT_] = {"scalar", "simd", "blas", "cuda"};
static const char *const unary_names[KN_UNARY_COUNT_] = {
	"abs", "neg", "sqrt", "exp", "relu", "log", "sigmoid", "tanh", "gelu", "silu", "clamp", "scale"};

static const char *const binary_names[KN_BINARY_COUNT_] = {"add", "sub", "mul", "div", "max", "min"};
static const char *const reduce_names[KN_REDUCE_COUNT_] = {
	"sum", "mean", "max", "min", "norm_l1", "norm_l2", "norm_linf"};
static const char *const argreduce_names[KN_ARGREDUCE_COUNT_] = {"argmax", "argmin"};

const char *kn_backend_name(kn_backend b)
{
	return (unsigned)b < KN_BACKEND_COUNT_ ? backend_names[b] : "?";
}

const char *kn_unary_name(kn_unary_op op)
{
	return (unsigned)op < KN_UNARY_COUNT_ ? unary_names[op] : "?";
}

const char *kn_binary_name(kn_binary_op op)
{
	return (unsigned)op < KN_BINARY_COUNT_ ? binary_names[op] : "?";
}

const char *kn_reduce_name(kn_reduce_op op)
{
	return (unsigned)op < KN_REDUCE_COUNT_ ? reduce_names[op] : "?";
}

const char *kn_argreduce_name(kn_argreduce_op op)
{
	return (unsigned)op < KN_ARGREDUCE_COUNT_ ? argreduce_names[op] : "?";
}

kn_status kn_backend_probe(kn_backend b)
{
	switch (b) {
	case KN_BACKEND_SCALAR:
	case KN_BACKEND_SIMD: /* runs everywhere: portable code where no vector unit is usable */
		return KN_OK;
	case KN_BACKEND_CUDA: return kn_cuda_probe();
	case KN_BACKEND_BLAS: return kn_blas_probe();
	default: return kn_fail(KN_EINVAL, "unknown backend %d", (int)b);
	}
}

/* The blas backend runs what BLAS lacks on the simd backend, but only when it
 * is itself available: a library built without OpenBLAS says so for every
 * blas call rather than quietly measuring simd.  Returns KN_OK to go on. */
static kn_status host_fallback(kn_backend b)
{
	return b == KN_BACKEND_BLAS ? kn_blas_probe() : KN_OK;
}

kn_status kn_unary_ex(kn_backend b, kn_unary_op op, const float *x, float *y, size_t n,
		      const kn_unary_params *p)
{
	kn_status s;
	static const kn_unary_params defaults = KN_UNARY_PARAMS_DEFAULT;
	if ((unsigned)op >= KN_UNARY_COUNT_)
		return kn_fail(KN_EUNSUPPORTED, "unary op %d not in kernels %s", (int)op, kn_version());
	if (n > 0 && (!x || !y))
		return kn_fail(KN_EINVAL, "%s: null buffer", unary_names[op]);
	if (!p)
		p = &defaults;
	/* !(lo <= hi) also catches a NaN bound. */
	if (op == KN_CLAMP && !(p->lo <= p->hi))
		return kn_fail(KN_EINVAL, "clamp: need lo <= hi, got lo=%g hi=%g", (double)p->lo, (double)p->hi);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_unary_ex(op, x, y, n, p);
	case KN_BACKEND_SIMD: return kn_simd_unary(op, x, y, n, p);
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_simd_unary(op, x, y, n, p);
	case KN_BACKEND_CUDA: return kn_cuda_unary(op, x, y, n, p);
	default: return kn_backend_probe(b);
	}
}

kn_status kn_unary(kn_backend b, kn_unary_op op, const float *x, float *y, size_t n)
{
	return kn_unary_ex(b, op, x, y, n, NULL);
}

/* Host allocations are 64-byte aligned so that vector loads never split a line. */
kn_status kn_alloc(kn_backend b, size_t bytes, void **out)
{
	if (!out)
		return kn_fail(KN_EINVAL, "kn_alloc: null out pointer");
	*out = NULL;
	if (b == KN_BACKEND_CUDA)
		return kn_cuda_alloc(bytes, out);
	if ((unsigned)b >= KN_BACKEND_COUNT_)
		return kn_fail(KN_EINVAL, "unknown backend %d", (int)b);
	if (bytes > SIZE_MAX - 63)
		return kn_fail(KN_ENOMEM, "kn_alloc: %zu bytes overflows", bytes);
	*out = kn_host_alloc(bytes); /* counted (memory.c) */
	return *out ? KN_OK : kn_fail(KN_ENOMEM, "kn_alloc: %zu bytes", bytes);
}

void kn_free(kn_backend b, void *p)
{
	if (b == KN_BACKEND_CUDA)
		kn_cuda_free(p);
	else
		kn_host_free(p);
}

static kn_status copy(kn_backend b, void *dst, const void *src, size_t bytes, int to_device)
{
	if (bytes && (!dst || !src))
		return kn_fail(KN_EINVAL, "copy: null buffer");
	if (b == KN_BACKEND_CUDA)
		return kn_cuda_copy(dst, src, bytes, to_device);
	if (bytes)
		memmove(dst, src, bytes);
	return KN_OK;
}

kn_status kn_copy_in(kn_backend b, void *dst, const void *src, size_t bytes)
{
	return copy(b, dst, src, bytes, 1);
}

kn_status kn_copy_out(kn_backend b, void *dst, const void *src, size_t bytes)
{
	return copy(b, dst, src, bytes, 0);
}

kn_status kn_sync(kn_backend b)
{
	return b == KN_BACKEND_CUDA ? kn_cuda_sync() : KN_OK;
}

kn_status kn_binary(kn_backend b, kn_binary_op op, const float *a, const float *x2, float *y, size_t n)
{
	kn_status s;
	if ((unsigned)op >= KN_BINARY_COUNT_)
		return kn_fail(KN_EUNSUPPORTED, "binary op %d not in kernels %s", (int)op, kn_version());
	if (n > 0 && (!a || !x2 || !y))
		return kn_fail(KN_EINVAL, "%s: null buffer", binary_names[op]);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_binary(op, a, x2, y, n);
	case KN_BACKEND_SIMD: return kn_simd_binary(op, a, x2, y, n);
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_simd_binary(op, a, x2, y, n);
	case KN_BACKEND_CUDA: return kn_cuda_binary(op, a, x2, y, n);
	default: return kn_backend_probe(b);
	}
}

kn_status kn_axpy(kn_backend b, float alpha, const float *x, float *y, size_t n)
{
	if (n > 0 && (!x || !y))
		return kn_fail(KN_EINVAL, "axpy: null buffer");
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_axpy(alpha, x, y, n);
	case KN_BACKEND_SIMD: return kn_simd_axpy(alpha, x, y, n);
	case KN_BACKEND_BLAS: return kn_blas_axpy(alpha, x, y, n);
	case KN_BACKEND_CUDA: return kn_cuda_axpy(alpha, x, y, n);
	default: return kn_backend_probe(b);
	}
}

kn_status kn_reduce(kn_backend b, kn_reduce_op op, const float *x, size_t n, float *out)
{
	if ((unsigned)op >= KN_REDUCE_COUNT_)
		return kn_fail(KN_EUNSUPPORTED, "reduce op %d not in kernels %s", (int)op, kn_version());
	if (!out || (n > 0 && !x))
		return kn_fail(KN_EINVAL, "%s: null buffer", reduce_names[op]);
	/* The mean, max and min of nothing are undefined; sums and norms are 0. */
	if (n == 0 && (op == KN_MEAN || op == KN_REDUCE_MAX || op == KN_REDUCE_MIN))
		return kn_fail(KN_EINVAL, "%s: empty input", reduce_names[op]);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_reduce(op, x, n, out);
	case KN_BACKEND_SIMD: return kn_simd_reduce(op, x, n, out);
	case KN_BACKEND_BLAS: return kn_blas_reduce(op, x, n, out);
	case KN_BACKEND_CUDA: return kn_cuda_reduce(op, x, n, out);
	default: return kn_backend_probe(b);
	}
}

kn_status kn_argreduce(kn_backend b, kn_argreduce_op op, const float *x, size_t n, size_t *out)
{
	kn_status s;
	if ((unsigned)op >= KN_ARGREDUCE_COUNT_)
		return kn_fail(KN_EUNSUPPORTED, "argreduce op %d not in kernels %s", (int)op, kn_version());
	if (!out || (n > 0 && !x))
		return kn_fail(KN_EINVAL, "%s: null buffer", argreduce_names[op]);
	if (n == 0)
		return kn_fail(KN_EINVAL, "%s: empty input", argreduce_names[op]);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_argreduce(op, x, n, out);
	case KN_BACKEND_SIMD: return kn_simd_argreduce(op, x, n, out);
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_simd_argreduce(op, x, n, out);
	case KN_BACKEND_CUDA: return kn_cuda_argreduce(op, x, n, out);
	default: return kn_backend_probe(b);
	}
}

kn_status kn_dot(kn_backend b, const float *x, const float *y, size_t n, float *out)
{
	if (!out || (n > 0 && (!x || !y)))
		return kn_fail(KN_EINVAL, "dot: null buffer");
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_dot(x, y, n, out);
	case KN_BACKEND_SIMD: return kn_simd_dot(x, y, n, out);
	case KN_BACKEND_BLAS: return kn_blas_dot(x, y, n, out);
	case KN_BACKEND_CUDA: return kn_cuda_dot(x, y, n, out);
	default: return kn_backend_probe(b);
	}
}

static kn_status softmax(kn_backend b, const float *x, float *y, size_t rows, size_t cols, int log_form)
{
	const char *what = log_form ? "log_softmax" : "softmax";
	if (rows && cols && (!x || !y))
		return kn_fail(KN_EINVAL, "%s: null buffer", what);
	if (rows && cols && rows > SIZE_MAX / cols)
		return kn_fail(KN_EINVAL, "%s: %zu x %zu overflows", what, rows, cols);
	if (!rows || !cols)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	kn_status s;
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_softmax(x, y, rows, cols, log_form);
	case KN_BACKEND_SIMD: return kn_simd_softmax(x, y, rows, cols, log_form);
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_simd_softmax(x, y, rows, cols, log_form);
	case KN_BACKEND_CUDA: return kn_cuda_softmax(x, y, rows, cols, log_form);
	default: return kn_backend_probe(b);
	}
}

kn_status kn_softmax(kn_backend b, const float *x, float *y, size_t rows, size_t cols)
{
	return softmax(b, x, y, rows, cols, 0);
}

kn_status kn_log_softmax(kn_backend b, const float *x, float *y, size_t rows, size_t cols)
{
	return softmax(b, x, y, rows, cols, 1);
}

static kn_status norm(kn_backend b, const float *x, const float *g, const float *beta, float *y, size_t rows,
		      size_t cols, float eps, int rms)
{
	const char *what = rms ? "rmsnorm" : "layernorm";
	if (rows && cols && (!x || !y || !g))
		return kn_fail(KN_EINVAL, "%s: null buffer", what);
	if (rows && cols && rows > SIZE_MAX / cols)
		return kn_fail(KN_EINVAL, "%s: %zu x %zu overflows", what, rows, cols);
	/* !(eps >= 0) also catches NaN; a negative eps could make var + eps
	 * negative and its square root NaN. */
	if (!(eps >= 0.0f && eps <= FLT_MAX))
		return kn_fail(KN_EINVAL, "%s: eps must be finite and >= 0, got %g", what, (double)eps);
	if (!rows || !cols)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	kn_status s;
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_norm(x, g, beta, y, rows, cols, eps, rms);
	case KN_BACKEND_SIMD: return kn_simd_norm(x, g, beta, y, rows, cols, eps, rms);
	/* BLAS has no row normalisation: simd runs it, as for softmax. */
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_simd_norm(x, g, beta, y, rows, cols, eps, rms);
	case KN_BACKEND_CUDA: return kn_cuda_norm(x, g, beta, y, rows, cols, eps, rms);
	default: return kn_backend_probe(b);
	}
}

kn_status kn_layernorm(kn_backend b, const float *x, const float *gamma, const float *beta, float *y,
		       size_t rows, size_t cols, float eps)
{
	return norm(b, x, gamma, beta, y, rows, cols, eps, 0);
}

kn_status kn_rmsnorm(kn_backend b, const float *x, const float *gamma, float *y, size_t rows, size_t cols,
		     float eps)
{
	return norm(b, x, gamma, NULL, y, rows, cols, eps, 1);
}

/* ---- memory (0.9.0) ---------------------------------------------------- */

kn_status kn_index_fail(const char *what, const int32_t *idx, size_t n, size_t lim)
{
	for (size_t i = 0; i < n; i++)
		if (idx[i] < 0 || (uint64_t)idx[i] >= lim)
			return kn_fail(KN_EINVAL, "%s: idx[%zu] = %d is outside [0, %zu)", what, i, (int)idx[i], lim);
	return kn_fail(KN_EINVAL, "%s: an index is outside [0, %zu)", what, lim);
}

kn_status kn_copy(kn_backend b, const float *x, float *y, size_t n)
{
	kn_status s;
	if (n && (!x || !y))
		return kn_fail(KN_EINVAL, "copy: null buffer");
	if (!n)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_copy(x, y, n);
	case KN_BACKEND_SIMD: return kn_simd_copy(x, y, n);
	/* scopy: BLAS level 1 has this one. */
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_blas_copy(x, y, n);
	case KN_BACKEND_CUDA: return kn_cuda_mem_copy(x, y, n);
	default: return kn_backend_probe(b);
	}
}

kn_status kn_transpose(kn_backend b, const float *x, float *y, size_t rows, size_t cols)
{
	kn_status s;
	if (rows && cols && (!x || !y))
		return kn_fail(KN_EINVAL, "transpose: null buffer");
	if (rows && cols && rows > SIZE_MAX / cols)
		return kn_fail(KN_EINVAL, "transpose: %zu x %zu overflows", rows, cols);
	/* In place would need a cycle-following permutation, a different op;
	 * a single row or column is its own transpose in memory. */
	if (x == y && rows > 1 && cols > 1)
		return kn_fail(KN_EINVAL, "transpose: out of place only (y == x for %zu x %zu)", rows, cols);
	if (!rows || !cols)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_transpose(x, y, rows, cols);
	case KN_BACKEND_SIMD: return kn_simd_transpose(x, y, rows, cols);
	/* BLAS has no transpose (OpenBLAS's somatcopy is an extension): simd. */
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_simd_transpose(x, y, rows, cols);
	case KN_BACKEND_CUDA: return kn_cuda_transpose(x, y, rows, cols);
	default: return kn_backend_probe(b);
	}
}

/* The indices are checked by each backend (they may be device memory). */
kn_status kn_gather(kn_backend b, const float *x, size_t nx, const int32_t *idx, float *y, size_t n)
{
	kn_status s;
	if (n && (!idx || !y || (nx && !x)))
		return kn_fail(KN_EINVAL, "gather: null buffer");
	if (!n)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_gather(x, nx, idx, y, n);
	case KN_BACKEND_SIMD: return kn_simd_gather(x, nx, idx, y, n);
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_simd_gather(x, nx, idx, y, n);
	case KN_BACKEND_CUDA: return kn_cuda_gather(x, nx, idx, y, n);
	default: return kn_backend_probe(b);
	}
}

kn_status kn_scatter_add(kn_backend b, const float *x, const int32_t *idx, size_t n, float *y, size_t ny)
{
	kn_status s;
	if (n && (!x || !idx || (ny && !y)))
		return kn_fail(KN_EINVAL, "scatter_add: null buffer");
	if (!n)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_scatter_add(x, idx, n, y, ny);
	case KN_BACKEND_SIMD: return kn_simd_scatter_add(x, idx, n, y, ny);
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_simd_scatter_add(x, idx, n, y, ny);
	case KN_BACKEND_CUDA: return kn_cuda_scatter_add(x, idx, n, y, ny);
	default: return kn_backend_probe(b);
	}
}

/* ---- convolution and pooling ------------------------------------------- */

/* a * b into *out, 0 when it overflows size_t. */
static int mul_ok(size_t a, size_t b, size_t *out)
{
	if (a && b > SIZE_MAX / a)
		return 0;
	*out = a * b;
	return 1;
}

static int mul4_ok(size_t a, size_t b, size_t c, size_t d, size_t *out)
{
	size_t t, u;
	return mul_ok(a, b, &t) && mul_ok(t, c, &u) && mul_ok(u, d, out);
}

/* Every field of p, for op `what`; depthwise and pooling keep the channels
 * (k == c).  The element counts the backends index with (x, y, the weights,
 * an image's im2col matrix) must fit size_t, and the byte counts too. */
static kn_status conv_check(const char *what, const kn_conv2d_params *p, int keeps_channels)
{
	size_t t;
	if (!p)
		return kn_fail(KN_EINVAL, "%s: null parameters", what);
	if ((unsigned)p->layout >= KN_LAYOUT_COUNT_)
		return kn_fail(KN_EINVAL, "%s: unknown layout %d (KN_NCHW, KN_NHWC)", what, (int)p->layout);
	if (!p->c || !p->h || !p->w || !p->k || !p->r || !p->s)
		return kn_fail(KN_EINVAL, "%s: a zero size (c %zu, h %zu, w %zu, k %zu, r %zu, s %zu)", what, p->c,
			       p->h, p->w, p->k, p->r, p->s);
	if (!p->stride)
		return kn_fail(KN_EINVAL, "%s: stride 0", what);
	if (keeps_channels && p->k != p->c)
		return kn_fail(KN_EINVAL, "%s: k (%zu) must equal c (%zu)", what, p->k, p->c);
	/* pad >= the window would let a window lie wholly in the padding. */
	if (p->pad >= p->r || p->pad >= p->s)
		return kn_fail(KN_EINVAL, "%s: pad %zu >= the %zu x %zu window", what, p->pad, p->r, p->s);
	if (p->pad > (SIZE_MAX - p->h) / 2 || p->pad > (SIZE_MAX - p->w) / 2)
		return kn_fail(KN_EINVAL, "%s: pad %zu overflows", what, p->pad);
	if (p->h + 2 * p->pad < p->r || p->w + 2 * p->pad < p->s)
		return kn_fail(KN_EINVAL, "%s: the %zu x %zu window is larger than the padded %zu x %zu input", what,
			       p->r, p->s, p->h + 2 * p->pad, p->w + 2 * p->pad);
	size_t oh = kn_conv_oh(p), ow = kn_conv_ow(p);
	if (!mul4_ok(p->n, p->c, p->h, p->w, &t) || !mul_ok(t, sizeof(float), &t) ||
	    !mul4_ok(p->n, p->k, oh, ow, &t) || !mul_ok(t, sizeof(float), &t) ||
	    !mul4_ok(p->k, p->c, p->r, p->s, &t) || !mul_ok(t, sizeof(float), &t) ||
	    !mul4_ok(p->c, p->r, p->s, oh, &t) || !mul_ok(t, ow, &t) || !mul_ok(t, sizeof(float), &t) ||
	    oh > INT32_MAX || ow > INT32_MAX)
		return kn_fail(KN_EINVAL, "%s: n %zu, c %zu, %zu x %zu, k %zu, %zu x %zu window overflows", what, p->n,
			       p->c, p->h, p->w, p->k, p->r, p->s);
	return KN_OK;
}

kn_status kn_conv2d_out_size(const kn_conv2d_params *p, size_t *oh, size_t *ow)
{
	kn_status s = conv_check("conv2d", p, 0);
	if (s)
		return s;
	if (!oh || !ow)
		return kn_fail(KN_EINVAL, "conv2d_out_size: null output");
	*oh = kn_conv_oh(p), *ow = kn_conv_ow(p);
	return KN_OK;
}

kn_status kn_conv2d(kn_backend b, const kn_conv2d_params *p, const float *x, const float *wt, float *y)
{
	kn_status s = conv_check("conv2d", p, 0);
	if (s)
		return s;
	if (p->n && (!x || !wt || !y))
		return kn_fail(KN_EINVAL, "conv2d: null buffer");
	if (!p->n)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_conv2d(p, x, wt, y);
	case KN_BACKEND_SIMD: return kn_simd_conv2d(p, x, wt, y);
	/* im2col, then OpenBLAS's sgemm on each band */
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_blas_conv2d(p, x, wt, y);
	case KN_BACKEND_CUDA: return kn_cuda_conv2d(p, x, wt, y);
	default: return kn_backend_probe(b);
	}
}

kn_status kn_dwconv2d(kn_backend b, const kn_conv2d_params *p, const float *x, const float *wt, float *y)
{
	kn_status s = conv_check("dwconv2d", p, 1);
	if (s)
		return s;
	if (p->n && (!x || !wt || !y))
		return kn_fail(KN_EINVAL, "dwconv2d: null buffer");
	if (!p->n)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_dwconv2d(p, x, wt, y);
	case KN_BACKEND_SIMD: return kn_simd_dwconv2d(p, x, wt, y);
	/* no BLAS op fits a per-channel filter: simd */
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_simd_dwconv2d(p, x, wt, y);
	case KN_BACKEND_CUDA: return kn_cuda_dwconv2d(p, x, wt, y);
	default: return kn_backend_probe(b);
	}
}

kn_status kn_pool2d(kn_backend b, kn_pool_op op, const kn_conv2d_params *p, const float *x, float *y)
{
	kn_status s;
	/* as every op enum: a newer header's op is one this library lacks */
	if ((unsigned)op >= KN_POOL_COUNT_)
		return kn_fail(KN_EUNSUPPORTED, "pool op %d not in kernels %s", (int)op, kn_version());
	if ((s = conv_check(op == KN_POOL_MAX ? "maxpool2d" : "avgpool2d", p, 1)))
		return s;
	if (p->n && (!x || !y))
		return kn_fail(KN_EINVAL, "pool2d: null buffer");
	if (!p->n)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_pool2d(op, p, x, y);
	case KN_BACKEND_SIMD: return kn_simd_pool2d(op, p, x, y);
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_simd_pool2d(op, p, x, y);
	case KN_BACKEND_CUDA: return kn_cuda_pool2d(op, p, x, y);
	default: return kn_backend_probe(b);
	}
}

/* ---- batchnorm, concat -------------------------------------------------- */

kn_status kn_batchnorm(kn_backend b, const float *x, const float *mean, const float *var, const float *gamma,
		       const float *beta, float *y, size_t n, size_t c, size_t hw, float eps)
{
	kn_status s;
	/* n c hw floats, and their bytes, must be a size_t: checked a factor
	 * at a time so that no product wraps before it is checked */
	size_t cap = SIZE_MAX / sizeof(float);
	if ((n && c && n > cap / c) || (n && c && hw && n * c > cap / hw))
		return kn_fail(KN_EINVAL, "batchnorm: %zu x %zu x %zu overflows", n, c, hw);
	size_t total = n * c * hw;
	if (total && (!x || !y || !mean || !var || !gamma))
		return kn_fail(KN_EINVAL, "batchnorm: null buffer");
	/* !(eps >= 0) also catches NaN */
	if (!(eps >= 0.0f && eps <= FLT_MAX))
		return kn_fail(KN_EINVAL, "batchnorm: eps must be finite and >= 0, got %g", (double)eps);
	if (!total)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_batchnorm(x, mean, var, gamma, beta, y, n, c, hw, eps);
	case KN_BACKEND_SIMD: return kn_simd_batchnorm(x, mean, var, gamma, beta, y, n, c, hw, eps);
	/* BLAS has no such op: simd, as for the other norms. */
	case KN_BACKEND_BLAS:
		return (s = host_fallback(b)) ? s : kn_simd_batchnorm(x, mean, var, gamma, beta, y, n, c, hw, eps);
	case KN_BACKEND_CUDA: return kn_cuda_batchnorm(x, mean, var, gamma, beta, y, n, c, hw, eps);
	default: return kn_backend_probe(b);
	}
}

/* Whether [a, a + an) and [b, b + bn) (bytes) share a byte. */
static int overlaps(const void *a, size_t an, const void *b, size_t bn)
{
	uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
	return an && bn && pa < pb + bn && pb < pa + an;
}

kn_status kn_concat(kn_backend b, size_t k, const float *const *xs, const size_t *cols, float *y, size_t rows)
{
	kn_status s;
	/* at most KN_CONCAT_MAX inputs: the cuda backend passes the table by
	 * value to its kernel, and a longer list is better done in steps */
	if (k > KN_CONCAT_MAX)
		return kn_fail(KN_EINVAL, "concat: %zu inputs, at most %d", k, KN_CONCAT_MAX);
	if (k && (!xs || !cols))
		return kn_fail(KN_EINVAL, "concat: null input list");
	size_t cap = SIZE_MAX / sizeof(float), total = 0;
	for (size_t i = 0; i < k; i++) {
		if (cols[i] > cap - total)
			return kn_fail(KN_EINVAL, "concat: the widths overflow");
		total += cols[i];
	}
	if (rows && total && rows > cap / total)
		return kn_fail(KN_EINVAL, "concat: %zu x %zu overflows", rows, total);
	if (rows && total && !y)
		return kn_fail(KN_EINVAL, "concat: null buffer y");
	for (size_t i = 0; rows && i < k; i++) {
		if (cols[i] && !xs[i])
			return kn_fail(KN_EINVAL, "concat: input %zu is null (%zu columns)", i, cols[i]);
		/* out of place: row r of y would overwrite rows of the input
		 * still to be read (cuda: device addresses, compared the same) */
		if (overlaps(xs[i], rows * cols[i] * sizeof(float), y, rows * total * sizeof(float)))
			return kn_fail(KN_EINVAL, "concat: y overlaps input %zu", i);
	}
	if (!rows || !total)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_concat(xs, cols, k, y, rows, total);
	case KN_BACKEND_SIMD: return kn_simd_concat(xs, cols, k, y, rows, total);
	/* simd: OpenBLAS's scopy per piece (a call per row and input) took
	 * 1.2x simd's time at 4096 x 4096 and 1024 x 1024, 2.8x at 4096 x 33
	 * (2026-11-24, load 4 on the 2 vCPUs, interleaved). */
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_simd_concat(xs, cols, k, y, rows, total);
	case KN_BACKEND_CUDA: return kn_cuda_concat(xs, cols, k, y, rows, total);
	default: return kn_backend_probe(b);
	}
}

static size_t at_least_1(size_t v) { return v ? v : 1; }

/* ---- quant (0.11.0) ----------------------------------------------------- */

/* rows x cols elements with nscales 1 or rows: the shared checks of
 * quantize and dequantize. */
static kn_status quant_args(const char *what, const void *x, const void *y, size_t rows, size_t cols,
			    const float *scales, size_t ns)
{
	if (rows && cols && rows > SIZE_MAX / cols)
		return kn_fail(KN_EINVAL, "%s: %zu x %zu overflows", what, rows, cols);
	if (rows && cols && (!x || !y || !scales))
		return kn_fail(KN_EINVAL, "%s: null buffer", what);
	if (rows && cols && ns != 1 && ns != rows)
		return kn_fail(KN_EINVAL, "%s: %zu scales for %zu rows (1 per tensor or 1 per row)", what, ns,
			       rows);
	return KN_OK;
}

kn_status kn_quantize_i8(kn_backend b, const float *x, int8_t *q, size_t rows, size_t cols, const float *scales,
			 size_t nscales)
{
	kn_status s = quant_args("quantize_i8", x, q, rows, cols, scales, nscales);
	if (s)
		return s;
	if (!rows || !cols)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_quantize(x, q, rows, cols, scales, nscales);
	case KN_BACKEND_SIMD: return kn_simd_quantize(x, q, rows, cols, scales, nscales);
	/* BLAS has no quantization: simd. */
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_simd_quantize(x, q, rows, cols, scales, nscales);
	case KN_BACKEND_CUDA: return kn_cuda_quantize(x, q, rows, cols, scales, nscales);
	default: return kn_backend_probe(b);
	}
}

kn_status kn_dequantize_i8(kn_backend b, const int8_t *q, float *y, size_t rows, size_t cols,
			   const float *scales, size_t nscales)
{
	kn_status s = quant_args("dequantize_i8", q, y, rows, cols, scales, nscales);
	if (s)
		return s;
	if (!rows || !cols)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_dequantize(q, y, rows, cols, scales, nscales);
	case KN_BACKEND_SIMD: return kn_simd_dequantize(q, y, rows, cols, scales, nscales);
	case KN_BACKEND_BLAS:
		return (s = host_fallback(b)) ? s : kn_simd_dequantize(q, y, rows, cols, scales, nscales);
	case KN_BACKEND_CUDA: return kn_cuda_dequantize(q, y, rows, cols, scales, nscales);
	default: return kn_backend_probe(b);
	}
}

/* The extent of an r x c matrix with leading dimension ld, (r - 1) ld + c
 * elements of size sz, must fit in size_t (a hostile ld must not wrap the
 * address arithmetic of a kernel). */
static int extent_ok(size_t r, size_t c, size_t ld, size_t sz)
{
	if (!r || !c)
		return 1;
	if (r - 1 > 0 && ld > (SIZE_MAX / sz - c) / (r - 1))
		return 0;
	return 1;
}

/* The checks kn_qgemm_i8 and kn_bf16gemm share. */
static kn_status lowp_gemm_args(const char *what, size_t M, size_t N, size_t K, const void *A, size_t lda,
				const void *B, size_t ldb, const void *C, size_t ldc, size_t esz, size_t csz)
{
	if (lda < at_least_1(K))
		return kn_fail(KN_EINVAL, "%s: lda %zu < %zu", what, lda, at_least_1(K));
	if (ldb < at_least_1(N))
		return kn_fail(KN_EINVAL, "%s: ldb %zu < %zu", what, ldb, at_least_1(N));
	if (ldc < at_least_1(N))
		return kn_fail(KN_EINVAL, "%s: ldc %zu < %zu", what, ldc, at_least_1(N));
	if ((M && N && !C) || (M && K && N && (!A || !B)))
		return kn_fail(KN_EINVAL, "%s: null matrix", what);
	if (!extent_ok(M, K, lda, esz) || !extent_ok(K, N, ldb, esz) || !extent_ok(M, N, ldc, csz))
		return kn_fail(KN_EINVAL, "%s: %zu x %zu x %zu with lda %zu, ldb %zu, ldc %zu overflows", what, M,
			       N, K, lda, ldb, ldc);
	return KN_OK;
}

kn_status kn_qgemm_i8(kn_backend b, size_t M, size_t N, size_t K, const int8_t *A, size_t lda, const int8_t *B,
		      size_t ldb, int32_t *C, size_t ldc)
{
	kn_status s = lowp_gemm_args("qgemm_i8", M, N, K, A, lda, B, ldb, C, ldc, 1, sizeof(int32_t));
	if (s)
		return s;
	/* K 2^14 can reach 2^31 (-128 x -128 each time): one past int32. */
	if (K > KN_QGEMM_MAX_K)
		return kn_fail(KN_EINVAL, "qgemm_i8: K %zu > %d: an int32 sum could overflow", K, KN_QGEMM_MAX_K);
	if (!M || !N)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_qgemm(M, N, K, A, lda, B, ldb, C, ldc);
	case KN_BACKEND_SIMD: return kn_simd_qgemm(M, N, K, A, lda, B, ldb, C, ldc);
	/* BLAS has no integer gemm (OpenBLAS neither): simd. */
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_simd_qgemm(M, N, K, A, lda, B, ldb, C, ldc);
	case KN_BACKEND_CUDA: return kn_cuda_qgemm(M, N, K, A, lda, B, ldb, C, ldc);
	default: return kn_backend_probe(b);
	}
}

kn_status kn_bf16gemm(kn_backend b, size_t M, size_t N, size_t K, const uint16_t *A, size_t lda,
		      const uint16_t *B, size_t ldb, float *C, size_t ldc)
{
	kn_status s = lowp_gemm_args("bf16gemm", M, N, K, A, lda, B, ldb, C, ldc, sizeof(uint16_t), sizeof(float));
	if (s)
		return s;
	if (!M || !N)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_bf16gemm(M, N, K, A, lda, B, ldb, C, ldc);
	case KN_BACKEND_SIMD: return kn_simd_bf16gemm(M, N, K, A, lda, B, ldb, C, ldc);
	/* OpenBLAS's sbgemm is not in every build (nor in cblas.h before
	 * 0.3.10): simd, as the other ops BLAS lacks. */
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_simd_bf16gemm(M, N, K, A, lda, B, ldb, C, ldc);
	case KN_BACKEND_CUDA: return kn_cuda_bf16gemm(M, N, K, A, lda, B, ldb, C, ldc);
	default: return kn_backend_probe(b);
	}
}

static kn_status convert(kn_backend b, kn_cvt c, const char *what, const void *x, void *y, size_t n)
{
	kn_status s;
	if (n && (!x || !y))
		return kn_fail(KN_EINVAL, "%s: null buffer", what);
	if (!n)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_convert(c, x, y, n);
	case KN_BACKEND_SIMD: return kn_simd_convert(c, x, y, n);
	case KN_BACKEND_BLAS: return (s = host_fallback(b)) ? s : kn_simd_convert(c, x, y, n);
	case KN_BACKEND_CUDA: return kn_cuda_convert(c, x, y, n);
	default: return kn_backend_probe(b);
	}
}

kn_status kn_f32_to_bf16(kn_backend b, const float *x, uint16_t *y, size_t n)
{
	return convert(b, KN_CVT_TO_BF16, "f32_to_bf16", x, y, n);
}
kn_status kn_bf16_to_f32(kn_backend b, const uint16_t *x, float *y, size_t n)
{
	return convert(b, KN_CVT_FROM_BF16, "bf16_to_f32", x, y, n);
}
kn_status kn_f32_to_f16(kn_backend b, const float *x, uint16_t *y, size_t n)
{
	return convert(b, KN_CVT_TO_F16, "f32_to_f16", x, y, n);
}
kn_status kn_f16_to_f32(kn_backend b, const uint16_t *x, float *y, size_t n)
{
	return convert(b, KN_CVT_FROM_F16, "f16_to_f32", x, y, n);
}

kn_status kn_sgemm(kn_backend b, int trans_a, int trans_b, size_t M, size_t N, size_t K, float alpha,
		   const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc)
{
	if (lda < at_least_1(trans_a ? M : K))
		return kn_fail(KN_EINVAL, "sgemm: lda %zu < %zu", lda, at_least_1(trans_a ? M : K));
	if (ldb < at_least_1(trans_b ? K : N))
		return kn_fail(KN_EINVAL, "sgemm: ldb %zu < %zu", ldb, at_least_1(trans_b ? K : N));
	if (ldc < at_least_1(N))
		return kn_fail(KN_EINVAL, "sgemm: ldc %zu < %zu", ldc, at_least_1(N));
	if ((M && N && !C) || (M && K && !A) || (K && N && !B))
		return kn_fail(KN_EINVAL, "sgemm: null matrix");
	if (!M || !N)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	trans_a = !!trans_a, trans_b = !!trans_b;
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_sgemm(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
	case KN_BACKEND_SIMD: return kn_simd_sgemm(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
	case KN_BACKEND_BLAS: return kn_blas_sgemm(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
	case KN_BACKEND_CUDA: return kn_cuda_sgemm(trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
	default: return kn_backend_probe(b);
	}
}

kn_status kn_sgemv(kn_backend b, int trans_a, size_t M, size_t N, float alpha, const float *A, size_t lda,
		   const float *x, float beta, float *y)
{
	size_t ylen = trans_a ? N : M, xlen = trans_a ? M : N;
	if (lda < at_least_1(N))
		return kn_fail(KN_EINVAL, "sgemv: lda %zu < %zu", lda, at_least_1(N));
	if ((M && N && !A) || (xlen && ylen && !x) || (ylen && !y))
		return kn_fail(KN_EINVAL, "sgemv: null buffer");
	if (!ylen)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	trans_a = !!trans_a;
	/* An empty sum: y = beta y.  Done here because BLAS returns early
	 * without scaling y.  (cuda's y is on the device: its own code does it.) */
	if (!xlen && b != KN_BACKEND_CUDA && (unsigned)b < KN_BACKEND_COUNT_) {
		for (size_t i = 0; i < ylen; i++)
			y[i] = beta == 0.0f ? 0.0f : beta * y[i];
		return KN_OK;
	}
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_scalar_sgemv(trans_a, M, N, alpha, A, lda, x, beta, y);
	case KN_BACKEND_SIMD: return kn_simd_sgemv(trans_a, M, N, alpha, A, lda, x, beta, y);
	case KN_BACKEND_BLAS: return kn_blas_sgemv(trans_a, M, N, alpha, A, lda, x, beta, y);
	case KN_BACKEND_CUDA: return kn_cuda_sgemv(trans_a, M, N, alpha, A, lda, x, beta, y);
	default: return kn_backend_probe(b);
	}
}

/* ---- attention (0.14.0) -------------------------------------------------- */

/* Query rows per block: as many as keep a block's scores (rows x seq
 * floats) within 64 KB, so they stay in L2 between the product that makes
 * them, the softmax and the product that uses them (and the scratch stays
 * under malloc's mmap threshold: no page faults per call); at least 16 rows,
 * so long sequences still give the products some height.  A first version
 * with 64 rows always was 2 % slower than the composed layer at seq 128
 * (two half-height products per head instead of one). */
#define ATT_SCORES 16384
#define ATT_MIN_ROWS 16

kn_status kn_host_attention(const kn_host_ops *ops, const float *q, const float *k, const float *v, size_t ld,
			    float *o, size_t ldo, size_t seq, size_t heads, size_t dh, float scale)
{
	size_t rows = ATT_SCORES / seq;
	rows = rows < ATT_MIN_ROWS ? ATT_MIN_ROWS : rows;
	rows = rows > seq ? seq : rows;
	float *s = kn_aligned_floats(rows * seq);
	if (!s)
		return kn_fail(KN_ENOMEM, "attention: %zu x %zu scores", rows, seq);
	kn_status st = KN_OK;
	for (size_t h = 0; h < heads && st == KN_OK; h++)
		for (size_t i = 0; i < seq && st == KN_OK; i += rows) {
			size_t r = seq - i < rows ? seq - i : rows;
			st = ops->sgemm(0, 1, r, seq, dh, scale, q + i * ld + h * dh, ld, k + h * dh, ld, 0.0f, s, seq);
			if (st == KN_OK)
				st = ops->softmax(s, s, r, seq, 0);
			if (st == KN_OK)
				st = ops->sgemm(0, 0, r, dh, seq, 1.0f, s, seq, v + h * dh, ld, 0.0f, o + i * ldo + h * dh,
						ldo);
		}
	kn_host_free(s);
	return st;
}

static kn_status blas_softmax(const float *x, float *y, size_t rows, size_t cols, int log_form)
{
	return kn_simd_softmax(x, y, rows, cols, log_form);
}

kn_status kn_attention(kn_backend b, const float *q, const float *k, const float *v, size_t ld, float *o,
		       size_t ldo, size_t seq, size_t heads, size_t d_head, float scale)
{
	static const kn_host_ops scalar = {kn_scalar_sgemm, kn_scalar_softmax};
	static const kn_host_ops simd = {kn_simd_sgemm, kn_simd_softmax};
	static const kn_host_ops blas = {kn_blas_sgemm, blas_softmax};
	if (heads && d_head > SIZE_MAX / heads)
		return kn_fail(KN_EINVAL, "attention: %zu heads x %zu overflows", heads, d_head);
	size_t width = heads * d_head;
	if (ld < width || ldo < width)
		return kn_fail(KN_EINVAL, "attention: ld %zu and ldo %zu must be >= heads x d_head = %zu", ld, ldo,
			       width);
	if (!(fabsf(scale) <= FLT_MAX))
		return kn_fail(KN_EINVAL, "attention: scale must be finite, got %g", (double)scale);
	if (!seq || !width)
		return (unsigned)b < KN_BACKEND_COUNT_ ? KN_OK : kn_backend_probe(b);
	if (!q || !k || !v || !o)
		return kn_fail(KN_EINVAL, "attention: null buffer");
	/* the last row ends at (seq - 1) ld + width: within size_t? */
	if (seq - 1 > (SIZE_MAX - width) / ld || seq - 1 > (SIZE_MAX - width) / ldo || seq > SIZE_MAX / seq)
		return kn_fail(KN_EINVAL, "attention: %zu rows of %zu overflow", seq, ld > ldo ? ld : ldo);
	kn_status s;
	switch (b) {
	case KN_BACKEND_SCALAR: return kn_host_attention(&scalar, q, k, v, ld, o, ldo, seq, heads, d_head, scale);
	case KN_BACKEND_SIMD: return kn_host_attention(&simd, q, k, v, ld, o, ldo, seq, heads, d_head, scale);
	/* OpenBLAS's sgemm, simd's softmax (BLAS has none) */
	case KN_BACKEND_BLAS:
		return (s = host_fallback(b)) ? s : kn_host_attention(&blas, q, k, v, ld, o, ldo, seq, heads, d_head, scale);
	case KN_BACKEND_CUDA: return kn_cuda_attention(q, k, v, ld, o, ldo, seq, heads, d_head, scale);
	default: return kn_backend_probe(b);
	}
}
