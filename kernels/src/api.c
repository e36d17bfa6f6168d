/*
 * api.c - argument checking, backend dispatch and error reporting.
 *
 * Every public call validates its arguments here once, so backends can assume
 * sane input; a backend that lacks an op answers KN_EUNSUPPORTED.
 */
#include "internal.h"

#include <stdarg.h>
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

const char *kn_backend_name(kn_backend b)
{
	return (unsigned)b < KN_BACKEND_COUNT_ ? backend_names[b] : "?";
}

const char *kn_unary_name(kn_unary_op op)
{
	return (unsigned)op < KN_UNARY_COUNT_ ? unary_names[op] : "?";
}

kn_status kn_backend_probe(kn_backend b)
{
	switch (b) {
	case KN_BACKEND_SCALAR:
	case KN_BACKEND_SIMD: /* runs everywhere: portable code where no vector unit is usable */
		return KN_OK;
	case KN_BACKEND_CUDA: return kn_cuda_probe();
	case KN_BACKEND_BLAS:
		return kn_fail(KN_EUNSUPPORTED, "%s: backend not in kernels %s", kn_backend_name(b),
			       kn_version());
	default: return kn_fail(KN_EINVAL, "unknown backend %d", (int)b);
	}
}

kn_status kn_unary_ex(kn_backend b, kn_unary_op op, const float *x, float *y, size_t n,
		      const kn_unary_params *p)
{
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
	size_t rounded = (bytes + 63) & ~(size_t)63;
	if (rounded < bytes)
		return kn_fail(KN_ENOMEM, "kn_alloc: %zu bytes overflows", bytes);
	*out = aligned_alloc(64, rounded ? rounded : 64);
	return *out ? KN_OK : kn_fail(KN_ENOMEM, "kn_alloc: %zu bytes", bytes);
}

void kn_free(kn_backend b, void *p)
{
	if (b == KN_BACKEND_CUDA)
		kn_cuda_free(p);
	else
		free(p);
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
