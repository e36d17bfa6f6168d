/*
 * defaults.c - what an adapter does not define (docs/adapters.md).
 *
 * Compiled into every adapter build beside the adapter's own sources and
 * merged with them by a relocatable link (orchestrator/build.c,
 * compile_adapter).  Every kn_* function the harness (harness/plugin.c)
 * calls is defined here weak: an adapter's own (strong) definition wins,
 * and the rest answer as a library without that op would:
 *
 *   - every op: KN_EUNSUPPORTED, shown as n/a in the results;
 *   - kn_unary: kn_unary_ex with the default parameters, so an adapter
 *     defines kn_unary_ex only;
 *   - memory on the host backends (scalar, simd, blas): aligned malloc,
 *     memcpy, nothing to wait for; cuda: KN_EUNSUPPORTED (an adapter of a
 *     GPU library defines its own kn_alloc .. kn_sync);
 *   - kn_version: the tree's version (-DBV_ADAPTER_VERSION, from the build);
 *     kn_last_error: ""; kn_simd_isa: NULL (the results say null);
 *     kn_memory_get: KN_EUNSUPPORTED (no memory column).
 *
 * kn_backend_probe has no default: an adapter must say which backends it
 * maps (the build checks it defines it).
 */
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

#ifndef BV_ADAPTER_VERSION
#define BV_ADAPTER_VERSION "0.0.0"
#endif

#define WEAK __attribute__((weak))
/* The defaults ignore their arguments: that is what they are. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

WEAK const char *kn_version(void)
{
	return BV_ADAPTER_VERSION;
}
WEAK const char *kn_last_error(void)
{
	return "";
}
WEAK const char *kn_simd_isa(void)
{
	return NULL;
}

WEAK kn_status kn_simd_set_isa(const char *isa)
{
	return KN_EUNSUPPORTED;
}

/* ---- memory: host backends get host memory ------------------------------ */
static int host(kn_backend b)
{
	return b == KN_BACKEND_SCALAR || b == KN_BACKEND_SIMD || b == KN_BACKEND_BLAS;
}

WEAK kn_status kn_alloc(kn_backend b, size_t bytes, void **out)
{
	if (!out)
		return KN_EINVAL;
	*out = NULL;
	if (!host(b))
		return KN_EUNSUPPORTED;
	/* 64-byte aligned, as the kernels library's: vector loads of a whole
	 * cache line; aligned_alloc wants a multiple of the alignment. */
	size_t rounded = (bytes + 63) / 64 * 64;
	*out = aligned_alloc(64, rounded ? rounded : 64);
	return *out ? KN_OK : KN_ENOMEM;
}

WEAK void kn_free(kn_backend b, void *p)
{
	if (host(b))
		free(p);
}

WEAK kn_status kn_copy_in(kn_backend b, void *dst, const void *src, size_t bytes)
{
	if (!host(b))
		return KN_EUNSUPPORTED;
	if (bytes)
		memcpy(dst, src, bytes);
	return KN_OK;
}

WEAK kn_status kn_copy_out(kn_backend b, void *dst, const void *src, size_t bytes)
{
	return kn_copy_in(b, dst, src, bytes);
}

WEAK kn_status kn_sync(kn_backend b)
{
	return host(b) ? KN_OK : KN_EUNSUPPORTED;
}

WEAK kn_status kn_memory_get(kn_memory_usage *out)
{
	return KN_EUNSUPPORTED;
}

WEAK void kn_memory_reset_peak(void) {}

/* ---- ops: n/a unless the adapter maps them ------------------------------ */
WEAK kn_status kn_unary_ex(kn_backend b, kn_unary_op op, const float *x, float *y, size_t n,
                           const kn_unary_params *p)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_unary(kn_backend b, kn_unary_op op, const float *x, float *y, size_t n)
{
	return kn_unary_ex(b, op, x, y, n, NULL);
}

WEAK kn_status kn_binary(kn_backend b, kn_binary_op op, const float *a, const float *x2, float *y, size_t n)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_axpy(kn_backend b, float alpha, const float *x, float *y, size_t n)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_reduce(kn_backend b, kn_reduce_op op, const float *x, size_t n, float *out)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_argreduce(kn_backend b, kn_argreduce_op op, const float *x, size_t n, size_t *out)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_dot(kn_backend b, const float *x, const float *y, size_t n, float *out)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_softmax(kn_backend b, const float *x, float *y, size_t rows, size_t cols)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_log_softmax(kn_backend b, const float *x, float *y, size_t rows, size_t cols)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_layernorm(kn_backend b, const float *x, const float *gamma, const float *beta, float *y,
                            size_t rows, size_t cols, float eps)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_rmsnorm(kn_backend b, const float *x, const float *gamma, float *y, size_t rows,
                          size_t cols, float eps)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_copy(kn_backend b, const float *x, float *y, size_t n)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_transpose(kn_backend b, const float *x, float *y, size_t rows, size_t cols)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_gather(kn_backend b, const float *x, size_t nx, const int32_t *idx, float *y, size_t n)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_scatter_add(kn_backend b, const float *x, const int32_t *idx, size_t n, float *y, size_t ny)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_quantize_i8(kn_backend b, const float *x, int8_t *q, size_t rows, size_t cols,
                              const float *scales, size_t nscales)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_dequantize_i8(kn_backend b, const int8_t *q, float *y, size_t rows, size_t cols,
                                const float *scales, size_t nscales)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_qgemm_i8(kn_backend b, size_t M, size_t N, size_t K, const int8_t *A, size_t lda,
                           const int8_t *B, size_t ldb, int32_t *C, size_t ldc)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_bf16gemm(kn_backend b, size_t M, size_t N, size_t K, const uint16_t *A, size_t lda,
                           const uint16_t *B, size_t ldb, float *C, size_t ldc)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_f32_to_bf16(kn_backend b, const float *x, uint16_t *y, size_t n)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_bf16_to_f32(kn_backend b, const uint16_t *x, float *y, size_t n)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_f32_to_f16(kn_backend b, const float *x, uint16_t *y, size_t n)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_f16_to_f32(kn_backend b, const uint16_t *x, float *y, size_t n)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_conv2d(kn_backend b, const kn_conv2d_params *p, const float *x, const float *wt, float *y)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_dwconv2d(kn_backend b, const kn_conv2d_params *p, const float *x, const float *wt, float *y)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_pool2d(kn_backend b, kn_pool_op op, const kn_conv2d_params *p, const float *x, float *y)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_batchnorm(kn_backend b, const float *x, const float *mean, const float *var,
                            const float *gamma, const float *beta, float *y, size_t n, size_t c, size_t hw,
                            float eps)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_concat(kn_backend b, size_t k, const float *const *xs, const size_t *cols, float *y,
                         size_t rows)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_sgemm(kn_backend b, int trans_a, int trans_b, size_t M, size_t N, size_t K, float alpha,
                        const float *A, size_t lda, const float *B, size_t ldb, float beta, float *C,
                        size_t ldc)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_sgemv(kn_backend b, int trans_a, size_t M, size_t N, float alpha, const float *A,
                        size_t lda, const float *x, float beta, float *y)
{
	return KN_EUNSUPPORTED;
}

WEAK kn_status kn_attention(kn_backend b, const float *q, const float *k, const float *v, size_t ld, float *o,
                            size_t ldo, size_t seq, size_t heads, size_t d_head, float scale)
{
	return KN_EUNSUPPORTED;
}
