/*
 * kernels.h - the public API of the kernels tensor-kernel library.
 *
 * Every entry point returns a kn_status: KN_OK (0) or a negative code; the
 * human-readable reason for the last failure on this thread comes from
 * kn_last_error().  Ops and backends are enums so that a caller built against
 * a newer header can still ask an older library for something it lacks: the
 * library answers KN_EUNSUPPORTED instead of crashing.
 *
 * Buffers passed to a backend live where that backend computes: host memory
 * for scalar/simd/blas, device memory (from kn_alloc) for cuda.
 */
#ifndef KERNELS_H
#define KERNELS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KN_VERSION_MAJOR 0
#define KN_VERSION_MINOR 2
#define KN_VERSION_PATCH 0

typedef enum kn_status {
	KN_OK = 0,
	KN_EINVAL = -1,       /* a bad argument: null pointer, bad size, unknown enum */
	KN_EUNSUPPORTED = -2, /* this op or backend is not in this version of the library */
	KN_EUNAVAILABLE = -3, /* the backend exists but cannot run here (no CPU feature, no device) */
	KN_ENOMEM = -4,
	KN_EDEVICE = -5       /* the device reported an error while running */
} kn_status;

typedef enum kn_backend {
	KN_BACKEND_SCALAR = 0,
	KN_BACKEND_SIMD = 1,
	KN_BACKEND_BLAS = 2,
	KN_BACKEND_CUDA = 3,
	KN_BACKEND_COUNT_
} kn_backend;

typedef enum kn_unary_op {
	KN_ABS = 0,
	KN_NEG = 1,
	KN_SQRT = 2,
	KN_EXP = 3,
	KN_RELU = 4,
	/* 0.2.0 */
	KN_LOG = 5,
	KN_SIGMOID = 6, /* 1 / (1 + exp(-x)) */
	KN_TANH = 7,
	KN_GELU = 8,    /* tanh approximation: x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) */
	KN_SILU = 9,    /* x * sigmoid(x) */
	KN_CLAMP = 10,  /* min(max(x, lo), hi); NaN stays NaN */
	KN_SCALE = 11,  /* alpha * x */
	KN_UNARY_COUNT_
} kn_unary_op;

/* Parameters of the ops that take some (clamp: lo, hi; scale: alpha).  Ops
 * without parameters ignore them.  kn_unary() uses KN_UNARY_PARAMS_DEFAULT. */
typedef struct kn_unary_params {
	float lo, hi; /* clamp bounds, lo <= hi */
	float alpha;  /* scale factor */
} kn_unary_params;
#define KN_UNARY_PARAMS_DEFAULT {0.0f, 6.0f, 1.0f}

/* "0.1.0": the version of the library actually linked, not of this header. */
const char *kn_version(void);

/* Message for the last failing call on this thread ("" if none). */
const char *kn_last_error(void);
const char *kn_status_name(kn_status s);

const char *kn_backend_name(kn_backend b);
const char *kn_unary_name(kn_unary_op op);

/* KN_OK when backend b can run on this machine; otherwise the reason is in
 * kn_last_error() (e.g. "cuda: no device: cudaGetDeviceCount: ..."). */
kn_status kn_backend_probe(kn_backend b);

/* y[i] = op(x[i]) for i < n.  x and y may be the same buffer. */
kn_status kn_unary(kn_backend b, kn_unary_op op, const float *x, float *y, size_t n);

/* kn_unary with explicit parameters; p == NULL means the defaults.  Clamp
 * with lo > hi or a NaN bound is KN_EINVAL.  (0.2.0) */
kn_status kn_unary_ex(kn_backend b, kn_unary_op op, const float *x, float *y, size_t n,
		      const kn_unary_params *p);

/* The instruction set the simd backend runs with on this machine: "avx512",
 * "avx2" (with FMA) or "generic" (no usable vector unit: portable C).  (0.2.0) */
const char *kn_simd_isa(void);
/* Forces the simd backend onto one path ("avx512", "avx2", "generic"; NULL
 * or "auto" = the best this CPU has), e.g. to test or compare them.
 * KN_EUNAVAILABLE when the CPU lacks it, KN_EINVAL for an unknown name.
 * Not thread-safe against concurrent simd calls.  (0.2.0) */
kn_status kn_simd_set_isa(const char *isa);

/* Memory where backend b computes.  For host backends these are aligned host
 * allocations; for cuda they are device allocations. */
kn_status kn_alloc(kn_backend b, size_t bytes, void **out);
void kn_free(kn_backend b, void *p);
kn_status kn_copy_in(kn_backend b, void *dst, const void *src, size_t bytes);
kn_status kn_copy_out(kn_backend b, void *dst, const void *src, size_t bytes);
/* Waits until all work submitted to backend b has finished. */
kn_status kn_sync(kn_backend b);

#ifdef __cplusplus
}
#endif
#endif
