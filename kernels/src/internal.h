/* internal.h - what the backends share with the dispatcher in api.c. */
#ifndef KN_INTERNAL_H
#define KN_INTERNAL_H

#include "kernels.h"

#include <stdint.h>

/* Records the reason for a failure and returns the status, so a backend can
 * write `return kn_fail(KN_EINVAL, "...")`. */
kn_status kn_fail(kn_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Backends get validated arguments: non-null buffers when n > 0, a known op,
 * non-null params (defaults filled in by api.c). */
kn_status kn_scalar_unary_ex(kn_unary_op op, const float *x, float *y, size_t n, const kn_unary_params *p);
kn_status kn_scalar_binary(kn_binary_op op, const float *a, const float *b, float *y, size_t n);
kn_status kn_scalar_axpy(float alpha, const float *x, float *y, size_t n);
kn_status kn_scalar_reduce(kn_reduce_op op, const float *x, size_t n, float *out);
kn_status kn_scalar_argreduce(kn_argreduce_op op, const float *x, size_t n, size_t *out);
kn_status kn_scalar_dot(const float *x, const float *y, size_t n, float *out);
kn_status kn_scalar_softmax(const float *x, float *y, size_t rows, size_t cols, int log_form);
/* layernorm (beta may be NULL) or, with rms set, rmsnorm (beta NULL);
 * rows, cols > 0, eps finite and >= 0. */
kn_status kn_scalar_norm(const float *x, const float *g, const float *b, float *y, size_t rows, size_t cols,
			 float eps, int rms);
/* memory (0.9.0).  gather and scatter_add check their indices themselves
 * (every backend does, before writing anything): lim is nx or ny. */
kn_status kn_scalar_copy(const float *x, float *y, size_t n);
kn_status kn_scalar_transpose(const float *x, float *y, size_t rows, size_t cols);
kn_status kn_scalar_gather(const float *x, size_t nx, const int32_t *idx, float *y, size_t n);
kn_status kn_scalar_scatter_add(const float *x, const int32_t *idx, size_t n, float *y, size_t ny);
/* The KN_EINVAL of an index check: finds the first index of idx[0..n)
 * outside [0, lim) (host memory) and says which. */
kn_status kn_index_fail(const char *what, const int32_t *idx, size_t n, size_t lim);
/* quant (0.11.0): api.c has checked the shapes; nscales is 1 or rows. */
kn_status kn_scalar_quantize(const float *x, int8_t *q, size_t rows, size_t cols, const float *s, size_t ns);
kn_status kn_scalar_dequantize(const int8_t *q, float *y, size_t rows, size_t cols, const float *s, size_t ns);
kn_status kn_scalar_qgemm(size_t M, size_t N, size_t K, const int8_t *A, size_t lda, const int8_t *B, size_t ldb,
			  int32_t *C, size_t ldc);
kn_status kn_scalar_bf16gemm(size_t M, size_t N, size_t K, const uint16_t *A, size_t lda, const uint16_t *B,
			     size_t ldb, float *C, size_t ldc);
/* The four conversions by number: f32->bf16, bf16->f32, f32->f16, f16->f32. */
typedef enum { KN_CVT_TO_BF16, KN_CVT_FROM_BF16, KN_CVT_TO_F16, KN_CVT_FROM_F16 } kn_cvt;
kn_status kn_scalar_convert(kn_cvt c, const void *x, void *y, size_t n);
/* conv and pooling: p checked by api.c (kn_conv_check), n >= 1. */
static inline size_t kn_conv_oh(const kn_conv2d_params *p) { return (p->h + 2 * p->pad - p->r) / p->stride + 1; }
static inline size_t kn_conv_ow(const kn_conv2d_params *p) { return (p->w + 2 * p->pad - p->s) / p->stride + 1; }
kn_status kn_scalar_conv2d(const kn_conv2d_params *p, const float *x, const float *wt, float *y);
kn_status kn_scalar_dwconv2d(const kn_conv2d_params *p, const float *x, const float *wt, float *y);
kn_status kn_scalar_pool2d(kn_pool_op op, const kn_conv2d_params *p, const float *x, float *y);
/* conv2d as im2col bands and one sgemm per band (simd and blas, each with
 * its own sgemm; C = alpha op(A) op(B) + beta C as kn_sgemm). */
typedef kn_status (*kn_gemm_fn)(int ta, int tb, size_t M, size_t N, size_t K, float alpha, const float *A,
				size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc);
kn_status kn_conv_im2col(const kn_conv2d_params *p, const float *x, const float *wt, float *y, kn_gemm_fn gemm);
/* batchnorm, concat.  Backends get n * c * hw > 0, eps finite and
 * >= 0, beta possibly NULL; concat gets k >= 1, total = sum of cols (> 0),
 * rows > 0, and inputs with cols[i] == 0 possibly NULL. */
kn_status kn_scalar_batchnorm(const float *x, const float *mean, const float *var, const float *g, const float *b,
			      float *y, size_t n, size_t c, size_t hw, float eps);
kn_status kn_scalar_concat(const float *const *xs, const size_t *cols, size_t k, float *y, size_t rows,
			   size_t total);
/* One channel of batchnorm folded into y = x s + t (host backends): returns
 * KN_BN_FAST with s and t set when both are finite floats (s 0 or normal);
 * KN_BN_NAN for a channel that is NaN throughout (var < 0 or NaN, a NaN
 * statistic); KN_BN_EXACT for one that goes through kn_bn_row_exact. */
enum { KN_BN_FAST, KN_BN_NAN, KN_BN_EXACT };
int kn_bn_fold(float mean, float var, float gamma, float beta, float eps, float *s, float *t);
/* y[i] = ((x[i] - mean) / sqrt(var + eps)) gamma + beta in double, or NaN
 * throughout for a KN_BN_NAN channel. */
void kn_bn_row_exact(const float *x, float *y, size_t hw, float mean, float var, float gamma, float beta,
		     float eps);
kn_status kn_scalar_sgemm(int ta, int tb, size_t M, size_t N, size_t K, float alpha, const float *A,
			  size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc);
kn_status kn_scalar_sgemv(int ta, size_t M, size_t N, float alpha, const float *A, size_t lda,
			  const float *x, float beta, float *y);

/* attention (0.14.0) on the host backends: blocks of query rows through the
 * backend's own sgemm and softmax (arguments validated, all sizes > 0). */
typedef struct kn_host_ops {
	kn_status (*sgemm)(int, int, size_t, size_t, size_t, float, const float *, size_t, const float *, size_t,
			   float, float *, size_t);
	kn_status (*softmax)(const float *, float *, size_t, size_t, int);
} kn_host_ops;
kn_status kn_host_attention(const kn_host_ops *ops, const float *q, const float *k, const float *v, size_t ld,
			    float *o, size_t ldo, size_t seq, size_t heads, size_t dh, float scale);
kn_status kn_cuda_attention(const float *q, const float *k, const float *v, size_t ld, float *o, size_t ldo,
			    size_t seq, size_t heads, size_t dh, float scale);

/* memory.c: every allocation of the library is counted (kn_memory_get).
 * kn_host_alloc: 64-byte aligned host memory (NULL when out of memory or
 * when bytes overflows), released with kn_host_free, never free();
 * kn_aligned_floats: the same for n floats (scratch); kn_memory_count: a
 * block of bytes counted in (in != 0) or out, on the host or the device. */
void *kn_host_alloc(size_t bytes);
void kn_host_free(void *p);
float *kn_aligned_floats(size_t n);
void kn_memory_count(int device, size_t bytes, int in);

/* The simd backend (simd.c) and its per-ISA kernels (simd_avx512.c,
 * simd_avx2.c, both generated from simd_math.h). */
#define KN_SIMD_DECLARE(SUFFIX)                                                                    \
	kn_status kn_simd_unary##SUFFIX(kn_unary_op op, const float *x, float *y, size_t n,        \
					const kn_unary_params *p);                                 \
	kn_status kn_simd_binary##SUFFIX(kn_binary_op op, const float *a, const float *b, float *y, \
					 size_t n);                                                \
	kn_status kn_simd_axpy##SUFFIX(float alpha, const float *x, float *y, size_t n);           \
	kn_status kn_simd_reduce##SUFFIX(kn_reduce_op op, const float *x, size_t n, float *out);   \
	kn_status kn_simd_argreduce##SUFFIX(kn_argreduce_op op, const float *x, size_t n,          \
					    size_t *out);                                          \
	kn_status kn_simd_dot##SUFFIX(const float *x, const float *y, size_t n, float *out);        \
	kn_status kn_simd_softmax##SUFFIX(const float *x, float *y, size_t rows, size_t cols,      \
					  int log_form);                                           \
	kn_status kn_simd_norm##SUFFIX(const float *x, const float *g, const float *b, float *y,   \
				       size_t rows, size_t cols, float eps, int rms);              \
	kn_status kn_simd_copy##SUFFIX(const float *x, float *y, size_t n);                        \
	kn_status kn_simd_transpose##SUFFIX(const float *x, float *y, size_t rows, size_t cols);   \
	kn_status kn_simd_gather##SUFFIX(const float *x, size_t nx, const int32_t *idx, float *y,  \
					 size_t n);                                                \
	kn_status kn_simd_scatter_add##SUFFIX(const float *x, const int32_t *idx, size_t n,        \
					      float *y, size_t ny);                                \
	kn_status kn_simd_quantize##SUFFIX(const float *x, int8_t *q, size_t rows, size_t cols,     \
					   const float *s, size_t ns);                             \
	kn_status kn_simd_dequantize##SUFFIX(const int8_t *q, float *y, size_t rows, size_t cols,  \
					     const float *s, size_t ns);                           \
	kn_status kn_simd_qgemm##SUFFIX(size_t M, size_t N, size_t K, const int8_t *A, size_t lda, \
					const int8_t *B, size_t ldb, int32_t *C, size_t ldc);      \
	kn_status kn_simd_bf16gemm##SUFFIX(size_t M, size_t N, size_t K, const uint16_t *A,        \
					   size_t lda, const uint16_t *B, size_t ldb, float *C,    \
					   size_t ldc);                                            \
	kn_status kn_simd_convert##SUFFIX(kn_cvt c, const void *x, void *y, size_t n);             \
	kn_status kn_simd_dwconv2d##SUFFIX(const kn_conv2d_params *p, const float *x, const float *wt, \
					   float *y);                                              \
	kn_status kn_simd_pool2d##SUFFIX(kn_pool_op op, const kn_conv2d_params *p, const float *x, \
					 float *y);                                                \
	kn_status kn_simd_batchnorm##SUFFIX(const float *x, const float *mean, const float *var,    \
					    const float *g, const float *b, float *y, size_t n,    \
					    size_t c, size_t hw, float eps);                       \
	kn_status kn_simd_concat##SUFFIX(const float *const *xs, const size_t *cols, size_t k,     \
					 float *y, size_t rows, size_t total);                     \
	kn_status kn_simd_sgemm##SUFFIX(int ta, int tb, size_t M, size_t N, size_t K, float alpha, \
					const float *A, size_t lda, const float *B, size_t ldb,    \
					float beta, float *C, size_t ldc);                         \
	kn_status kn_simd_sgemv##SUFFIX(int ta, size_t M, size_t N, float alpha, const float *A,   \
					size_t lda, const float *x, float beta, float *y);
KN_SIMD_DECLARE()
kn_status kn_simd_conv2d(const kn_conv2d_params *p, const float *x, const float *wt, float *y);
KN_SIMD_DECLARE(_avx512)
KN_SIMD_DECLARE(_avx2)
/* The AVX-512 VNNI and BF16 kernels (simd_avx512x.c, 0.11.0): simd.c calls
 * them from its avx512 path when the CPU has those extensions too. */
kn_status kn_simd_qgemm_vnni(size_t M, size_t N, size_t K, const int8_t *A, size_t lda, const int8_t *B,
			     size_t ldb, int32_t *C, size_t ldc);
kn_status kn_simd_bf16gemm_bf16(size_t M, size_t N, size_t K, const uint16_t *A, size_t lda, const uint16_t *B,
				size_t ldb, float *C, size_t ldc);

/* The blas backend: blas.c over OpenBLAS when pkg-config found it at build
 * time, otherwise blas_absent.c, which reports why.  Ops BLAS lacks go to simd. */
kn_status kn_blas_probe(void);
kn_status kn_blas_axpy(float alpha, const float *x, float *y, size_t n);
kn_status kn_blas_reduce(kn_reduce_op op, const float *x, size_t n, float *out);
kn_status kn_blas_dot(const float *x, const float *y, size_t n, float *out);
kn_status kn_blas_copy(const float *x, float *y, size_t n);
kn_status kn_blas_sgemm(int ta, int tb, size_t M, size_t N, size_t K, float alpha, const float *A,
			size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc);
kn_status kn_blas_conv2d(const kn_conv2d_params *p, const float *x, const float *wt, float *y);
kn_status kn_blas_sgemv(int ta, size_t M, size_t N, float alpha, const float *A, size_t lda,
			const float *x, float beta, float *y);

/* The cuda backend: implemented in cuda.cu when nvcc was found at build time,
 * otherwise by cuda_absent.c which reports why it is missing.  Buffers are
 * device memory; scalar results (out) are host memory. */
kn_status kn_cuda_probe(void);
kn_status kn_cuda_unary(kn_unary_op op, const float *x, float *y, size_t n, const kn_unary_params *p);
kn_status kn_cuda_binary(kn_binary_op op, const float *a, const float *b, float *y, size_t n);
kn_status kn_cuda_axpy(float alpha, const float *x, float *y, size_t n);
kn_status kn_cuda_reduce(kn_reduce_op op, const float *x, size_t n, float *out);
kn_status kn_cuda_argreduce(kn_argreduce_op op, const float *x, size_t n, size_t *out);
kn_status kn_cuda_dot(const float *x, const float *y, size_t n, float *out);
kn_status kn_cuda_softmax(const float *x, float *y, size_t rows, size_t cols, int log_form);
kn_status kn_cuda_norm(const float *x, const float *g, const float *b, float *y, size_t rows, size_t cols,
		       float eps, int rms);
/* memory (0.9.0); kn_cuda_copy is the host<->device copy, hence _mem_copy */
kn_status kn_cuda_mem_copy(const float *x, float *y, size_t n);
/* conv and pooling, p checked by api.c */
kn_status kn_cuda_conv2d(const kn_conv2d_params *p, const float *x, const float *wt, float *y);
kn_status kn_cuda_dwconv2d(const kn_conv2d_params *p, const float *x, const float *wt, float *y);
kn_status kn_cuda_pool2d(kn_pool_op op, const kn_conv2d_params *p, const float *x, float *y);
kn_status kn_cuda_transpose(const float *x, float *y, size_t rows, size_t cols);
kn_status kn_cuda_gather(const float *x, size_t nx, const int32_t *idx, float *y, size_t n);
kn_status kn_cuda_scatter_add(const float *x, const int32_t *idx, size_t n, float *y, size_t ny);
/* quant (0.11.0) */
kn_status kn_cuda_quantize(const float *x, int8_t *q, size_t rows, size_t cols, const float *s, size_t ns);
kn_status kn_cuda_dequantize(const int8_t *q, float *y, size_t rows, size_t cols, const float *s, size_t ns);
kn_status kn_cuda_qgemm(size_t M, size_t N, size_t K, const int8_t *A, size_t lda, const int8_t *B, size_t ldb,
			int32_t *C, size_t ldc);
kn_status kn_cuda_bf16gemm(size_t M, size_t N, size_t K, const uint16_t *A, size_t lda, const uint16_t *B,
			   size_t ldb, float *C, size_t ldc);
kn_status kn_cuda_convert(kn_cvt c, const void *x, void *y, size_t n);
/* batchnorm, concat: xs and cols are host arrays of device
 * pointers and widths */
kn_status kn_cuda_batchnorm(const float *x, const float *mean, const float *var, const float *g, const float *b,
			    float *y, size_t n, size_t c, size_t hw, float eps);
kn_status kn_cuda_concat(const float *const *xs, const size_t *cols, size_t k, float *y, size_t rows,
			 size_t total);
kn_status kn_cuda_sgemm(int ta, int tb, size_t M, size_t N, size_t K, float alpha, const float *A,
			size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc);
kn_status kn_cuda_sgemv(int ta, size_t M, size_t N, float alpha, const float *A, size_t lda,
			const float *x, float beta, float *y);
kn_status kn_cuda_alloc(size_t bytes, void **out);
void kn_cuda_free(void *p);
kn_status kn_cuda_copy(void *dst, const void *src, size_t bytes, int to_device);
kn_status kn_cuda_sync(void);

#endif
