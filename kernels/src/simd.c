/*
 * simd.c - the simd backend's dispatcher: picks the widest instruction set
 * the CPU supports (AVX-512, else AVX2 + FMA) once, at the first call, and
 * falls back to the portable scalar code on CPUs with neither (or on other
 * architectures), so KN_BACKEND_SIMD always runs.
 */
#include "internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct isa {
	const char *name;
	int (*supported)(void);
	kn_status (*unary)(kn_unary_op, const float *, float *, size_t, const kn_unary_params *);
	kn_status (*binary)(kn_binary_op, const float *, const float *, float *, size_t);
	kn_status (*axpy)(float, const float *, float *, size_t);
	kn_status (*reduce)(kn_reduce_op, const float *, size_t, float *);
	kn_status (*argreduce)(kn_argreduce_op, const float *, size_t, size_t *);
	kn_status (*dot)(const float *, const float *, size_t, float *);
	kn_status (*softmax)(const float *, float *, size_t, size_t, int);
	kn_status (*norm)(const float *, const float *, const float *, float *, size_t, size_t, float, int);
	kn_status (*copy)(const float *, float *, size_t);
	kn_status (*transpose)(const float *, float *, size_t, size_t);
	kn_status (*gather)(const float *, size_t, const int32_t *, float *, size_t);
	kn_status (*scatter_add)(const float *, const int32_t *, size_t, float *, size_t);
	kn_status (*quantize)(const float *, int8_t *, size_t, size_t, const float *, size_t);
	kn_status (*dequantize)(const int8_t *, float *, size_t, size_t, const float *, size_t);
	kn_status (*qgemm)(size_t, size_t, size_t, const int8_t *, size_t, const int8_t *, size_t, int32_t *,
			   size_t);
	kn_status (*bf16gemm)(size_t, size_t, size_t, const uint16_t *, size_t, const uint16_t *, size_t, float *,
			      size_t);
	kn_status (*convert)(kn_cvt, const void *, void *, size_t);
	kn_status (*dwconv2d)(const kn_conv2d_params *, const float *, const float *, float *);
	kn_status (*pool2d)(kn_pool_op, const kn_conv2d_params *, const float *, float *);
	kn_status (*batchnorm)(const float *, const float *, const float *, const float *, const float *, float *,
			       size_t, size_t, size_t, float);
	kn_status (*concat)(const float *const *, const size_t *, size_t, float *, size_t, size_t);
	kn_status (*sgemm)(int, int, size_t, size_t, size_t, float, const float *, size_t, const float *,
			   size_t, float, float *, size_t);
	kn_status (*sgemv)(int, size_t, size_t, float, const float *, size_t, const float *, float, float *);
} isa;

static int always(void) { return 1; }

#if defined(__x86_64__) || defined(__i386__)
static int have_avx512(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
	       __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
}
static int have_avx2(void)
{
	__builtin_cpu_init();
	/* F16C (the quant group's f16 conversions) came with every AVX2 CPU */
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
}

/* The avx512 path's int8 and bf16 gemms use AVX-512 VNNI (vpdpbusd) and
 * AVX512-BF16 (vdpbf16ps) where the CPU has them, and its own AVX-512BW /
 * F kernels where not (simd_avx512x.c holds the extension kernels). */
/* KN_SIMD_AVX512_EXT=0 in the environment keeps them off (read at each
 * call: a gemm is long enough), so the tests and benchmarks can run the
 * plain AVX-512 kernels on a CPU that has the extensions. */
static int ext_allowed(void)
{
	const char *e = getenv("KN_SIMD_AVX512_EXT");
	return !e || strcmp(e, "0") != 0;
}

static kn_status qgemm_avx512(size_t M, size_t N, size_t K, const int8_t *A, size_t lda, const int8_t *B,
			      size_t ldb, int32_t *C, size_t ldc)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512vnni") && ext_allowed())
		return kn_simd_qgemm_vnni(M, N, K, A, lda, B, ldb, C, ldc);
	return kn_simd_qgemm_avx512(M, N, K, A, lda, B, ldb, C, ldc);
}
static kn_status bf16gemm_avx512(size_t M, size_t N, size_t K, const uint16_t *A, size_t lda, const uint16_t *B,
				 size_t ldb, float *C, size_t ldc)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512bf16") && ext_allowed())
		return kn_simd_bf16gemm_bf16(M, N, K, A, lda, B, ldb, C, ldc);
	return kn_simd_bf16gemm_avx512(M, N, K, A, lda, B, ldb, C, ldc);
}
#endif

/* Best first. */
static const isa isas[] = {
#if defined(__x86_64__) || defined(__i386__)
#define KN_ISA_ENTRY(NAME, HAVE, S, QGEMM, BFGEMM)                                                 \
	{NAME, HAVE, kn_simd_unary##S, kn_simd_binary##S, kn_simd_axpy##S, kn_simd_reduce##S,      \
	 kn_simd_argreduce##S, kn_simd_dot##S, kn_simd_softmax##S, kn_simd_norm##S,           \
	 kn_simd_copy##S, kn_simd_transpose##S, kn_simd_gather##S, kn_simd_scatter_add##S,      \
	 kn_simd_quantize##S, kn_simd_dequantize##S, QGEMM, BFGEMM, kn_simd_convert##S,        \
	 kn_simd_dwconv2d##S, kn_simd_pool2d##S, kn_simd_batchnorm##S, kn_simd_concat##S,       \
	 kn_simd_sgemm##S, kn_simd_sgemv##S}
	KN_ISA_ENTRY("avx512", have_avx512, _avx512, qgemm_avx512, bf16gemm_avx512),
	KN_ISA_ENTRY("avx2", have_avx2, _avx2, kn_simd_qgemm_avx2, kn_simd_bf16gemm_avx2),
#endif
	{"generic", always, kn_scalar_unary_ex, kn_scalar_binary, kn_scalar_axpy, kn_scalar_reduce,
	 kn_scalar_argreduce, kn_scalar_dot, kn_scalar_softmax, kn_scalar_norm, kn_scalar_copy,
	 kn_scalar_transpose, kn_scalar_gather, kn_scalar_scatter_add, kn_scalar_quantize, kn_scalar_dequantize,
	 kn_scalar_qgemm, kn_scalar_bf16gemm, kn_scalar_convert, kn_scalar_dwconv2d, kn_scalar_pool2d,
	 kn_scalar_batchnorm, kn_scalar_concat, kn_scalar_sgemm, kn_scalar_sgemv},
};
#define N_ISAS (sizeof(isas) / sizeof(isas[0]))

/* The chosen path; NULL until the first call.  Atomic because two threads
 * may make their first simd call at the same time (they pick the same one). */
static const isa *_Atomic current;

static const isa *best(void)
{
	for (size_t i = 0; i < N_ISAS; i++)
		if (isas[i].supported())
			return &isas[i];
	return &isas[N_ISAS - 1];
}

static const isa *use(void)
{
	const isa *c = atomic_load_explicit(&current, memory_order_acquire);
	if (!c) {
		c = best();
		atomic_store_explicit(&current, c, memory_order_release);
	}
	return c;
}

const char *kn_simd_isa(void) { return use()->name; }

kn_status kn_simd_set_isa(const char *name)
{
	if (!name || !strcmp(name, "auto")) {
		atomic_store(&current, best());
		return KN_OK;
	}
	for (size_t i = 0; i < N_ISAS; i++)
		if (!strcmp(name, isas[i].name)) {
			if (!isas[i].supported())
				return kn_fail(KN_EUNAVAILABLE, "simd: this CPU lacks %s", name);
			atomic_store(&current, &isas[i]);
			return KN_OK;
		}
	return kn_fail(KN_EINVAL, "simd: unknown instruction set '%s' (avx512, avx2, generic, auto)", name);
}

kn_status kn_simd_unary(kn_unary_op op, const float *x, float *y, size_t n, const kn_unary_params *p)
{
	return use()->unary(op, x, y, n, p);
}

kn_status kn_simd_binary(kn_binary_op op, const float *a, const float *b, float *y, size_t n)
{
	return use()->binary(op, a, b, y, n);
}

kn_status kn_simd_axpy(float alpha, const float *x, float *y, size_t n)
{
	return use()->axpy(alpha, x, y, n);
}

kn_status kn_simd_reduce(kn_reduce_op op, const float *x, size_t n, float *out)
{
	return use()->reduce(op, x, n, out);
}

kn_status kn_simd_argreduce(kn_argreduce_op op, const float *x, size_t n, size_t *out)
{
	return use()->argreduce(op, x, n, out);
}

kn_status kn_simd_dot(const float *x, const float *y, size_t n, float *out)
{
	return use()->dot(x, y, n, out);
}

kn_status kn_simd_softmax(const float *x, float *y, size_t rows, size_t cols, int log_form)
{
	return use()->softmax(x, y, rows, cols, log_form);
}

kn_status kn_simd_norm(const float *x, const float *g, const float *b, float *y, size_t rows, size_t cols,
		       float eps, int rms)
{
	return use()->norm(x, g, b, y, rows, cols, eps, rms);
}

kn_status kn_simd_copy(const float *x, float *y, size_t n) { return use()->copy(x, y, n); }

kn_status kn_simd_transpose(const float *x, float *y, size_t rows, size_t cols)
{
	return use()->transpose(x, y, rows, cols);
}

kn_status kn_simd_gather(const float *x, size_t nx, const int32_t *idx, float *y, size_t n)
{
	return use()->gather(x, nx, idx, y, n);
}

kn_status kn_simd_scatter_add(const float *x, const int32_t *idx, size_t n, float *y, size_t ny)
{
	return use()->scatter_add(x, idx, n, y, ny);
}

kn_status kn_simd_quantize(const float *x, int8_t *q, size_t rows, size_t cols, const float *s, size_t ns)
{
	return use()->quantize(x, q, rows, cols, s, ns);
}

kn_status kn_simd_dequantize(const int8_t *q, float *y, size_t rows, size_t cols, const float *s, size_t ns)
{
	return use()->dequantize(q, y, rows, cols, s, ns);
}

kn_status kn_simd_qgemm(size_t M, size_t N, size_t K, const int8_t *A, size_t lda, const int8_t *B, size_t ldb,
			int32_t *C, size_t ldc)
{
	return use()->qgemm(M, N, K, A, lda, B, ldb, C, ldc);
}

kn_status kn_simd_bf16gemm(size_t M, size_t N, size_t K, const uint16_t *A, size_t lda, const uint16_t *B,
			   size_t ldb, float *C, size_t ldc)
{
	return use()->bf16gemm(M, N, K, A, lda, B, ldb, C, ldc);
}

kn_status kn_simd_convert(kn_cvt c, const void *x, void *y, size_t n) { return use()->convert(c, x, y, n); }

/* conv2d: im2col bands through this backend's own sgemm (the
 * chosen ISA's packed micro-kernel). */
kn_status kn_simd_conv2d(const kn_conv2d_params *p, const float *x, const float *wt, float *y)
{
	return kn_conv_im2col(p, x, wt, y, use()->sgemm);
}

kn_status kn_simd_dwconv2d(const kn_conv2d_params *p, const float *x, const float *wt, float *y)
{
	return use()->dwconv2d(p, x, wt, y);
}

kn_status kn_simd_pool2d(kn_pool_op op, const kn_conv2d_params *p, const float *x, float *y)
{
	return use()->pool2d(op, p, x, y);
}

kn_status kn_simd_batchnorm(const float *x, const float *mean, const float *var, const float *g, const float *b,
			    float *y, size_t n, size_t c, size_t hw, float eps)
{
	return use()->batchnorm(x, mean, var, g, b, y, n, c, hw, eps);
}

kn_status kn_simd_concat(const float *const *xs, const size_t *cols, size_t k, float *y, size_t rows, size_t total)
{
	return use()->concat(xs, cols, k, y, rows, total);
}

kn_status kn_simd_sgemm(int ta, int tb, size_t M, size_t N, size_t K, float alpha, const float *A, size_t lda,
			const float *B, size_t ldb, float beta, float *C, size_t ldc)
{
	return use()->sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

kn_status kn_simd_sgemv(int ta, size_t M, size_t N, float alpha, const float *A, size_t lda, const float *x,
			float beta, float *y)
{
	return use()->sgemv(ta, M, N, alpha, A, lda, x, beta, y);
}
