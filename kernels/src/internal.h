/* internal.h - what the backends share with the dispatcher in api.c. */
#ifndef KN_INTERNAL_H
#define KN_INTERNAL_H

#include "kernels.h"

/* Records the reason for a failure and returns the status, so a backend can
 * write `return kn_fail(KN_EINVAL, "...")`. */
kn_status kn_fail(kn_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Backends get validated arguments: non-null buffers when n > 0, a known op,
 * non-null params (defaults filled in by api.c). */
kn_status kn_scalar_unary_ex(kn_unary_op op, const float *x, float *y, size_t n, const kn_unary_params *p);

/* The simd backend (simd.c) and its per-ISA kernels (simd_avx512.c,
 * simd_avx2.c, both generated from simd_math.h). */
kn_status kn_simd_unary(kn_unary_op op, const float *x, float *y, size_t n, const kn_unary_params *p);
kn_status kn_simd_unary_avx512(kn_unary_op op, const float *x, float *y, size_t n, const kn_unary_params *p);
kn_status kn_simd_unary_avx2(kn_unary_op op, const float *x, float *y, size_t n, const kn_unary_params *p);

/* The cuda backend: implemented in cuda.cu when nvcc was found at build time,
 * otherwise by cuda_absent.c which reports why it is missing. */
kn_status kn_cuda_probe(void);
kn_status kn_cuda_unary(kn_unary_op op, const float *x, float *y, size_t n, const kn_unary_params *p);
kn_status kn_cuda_alloc(size_t bytes, void **out);
void kn_cuda_free(void *p);
kn_status kn_cuda_copy(void *dst, const void *src, size_t bytes, int to_device);
kn_status kn_cuda_sync(void);

#endif
