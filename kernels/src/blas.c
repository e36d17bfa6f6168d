/*
 * blas.c - the blas backend: OpenBLAS for what BLAS level 1 has (dot, axpy,
 * the l1/l2/linf norms, copy); api.c sends every other op to the simd backend.
 *
 * OpenBLAS's own threading is set once, at the first call, from
 * KN_BLAS_THREADS (else OPENBLAS_NUM_THREADS, else 1): a benchmark compares
 * single-threaded kernels unless it asks for more.  NaN handling in these ops
 * is whatever OpenBLAS does (isamax, for one, does not promise anything).
 */
#include "internal.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void set_threads(void)
{
	const char *s = getenv("KN_BLAS_THREADS");
	if (!s || !*s)
		s = getenv("OPENBLAS_NUM_THREADS");
	int n = s && *s ? atoi(s) : 1;
	openblas_set_num_threads(n > 0 ? n : 1);
}

kn_status kn_blas_probe(void)
{
	pthread_once(&once, set_threads);
	return KN_OK;
}

/* BLAS counts elements in int: longer vectors go in chunks. */
#define CHUNK ((size_t)INT_MAX / 2 + 1)
static inline int len(size_t n, size_t i) { return (int)(n - i < CHUNK ? n - i : CHUNK); }

kn_status kn_blas_axpy(float alpha, const float *x, float *y, size_t n)
{
	kn_blas_probe();
	for (size_t i = 0; i < n; i += CHUNK)
		cblas_saxpy(len(n, i), alpha, x + i, 1, y + i, 1);
	return KN_OK;
}

/* y = x through scopy (0.9.0): BLAS level 1 has the op, so the blas
 * backend measures OpenBLAS's copy, chunked as the others. */
kn_status kn_blas_copy(const float *x, float *y, size_t n)
{
	kn_blas_probe();
	if (x == y)
		return KN_OK;
	for (size_t i = 0; i < n; i += CHUNK)
		cblas_scopy(len(n, i), x + i, 1, y + i, 1);
	return KN_OK;
}

kn_status kn_blas_dot(const float *x, const float *y, size_t n, float *out)
{
	kn_blas_probe();
	double s = 0;
	for (size_t i = 0; i < n; i += CHUNK)
		s += cblas_sdot(len(n, i), x + i, 1, y + i, 1);
	*out = (float)s;
	return KN_OK;
}

kn_status kn_blas_reduce(kn_reduce_op op, const float *x, size_t n, float *out)
{
	kn_blas_probe();
	double s = 0;
	size_t i;
	switch (op) {
	case KN_NORM_L1:
		for (i = 0; i < n; i += CHUNK)
			s += cblas_sasum(len(n, i), x + i, 1);
		*out = (float)s;
		return KN_OK;
	case KN_NORM_L2:
		for (i = 0; i < n; i += CHUNK)
			s = hypot(s, cblas_snrm2(len(n, i), x + i, 1));
		*out = (float)s;
		return KN_OK;
	case KN_NORM_LINF: {
		float m = 0.0f;
		for (i = 0; i < n; i += CHUNK) {
			float v = fabsf(x[i + cblas_isamax(len(n, i), x + i, 1)]);
			m = v > m || v != v ? v : m;
		}
		*out = m;
		return KN_OK;
	}
	default: return kn_simd_reduce(op, x, n, out);
	}
}

/* BLAS dimensions are int: bigger problems go to the simd backend. */
static int fits(size_t a, size_t b, size_t c, size_t d, size_t e, size_t f)
{
	return a <= INT_MAX && b <= INT_MAX && c <= INT_MAX && d <= INT_MAX && e <= INT_MAX && f <= INT_MAX;
}

kn_status kn_blas_sgemm(int ta, int tb, size_t M, size_t N, size_t K, float alpha, const float *A,
			size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc)
{
	kn_blas_probe();
	if (!fits(M, N, K, lda, ldb, ldc))
		return kn_simd_sgemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
	cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)M,
		    (int)N, (int)K, alpha, A, (int)lda, B, (int)ldb, beta, C, (int)ldc);
	return KN_OK;
}

kn_status kn_blas_sgemv(int ta, size_t M, size_t N, float alpha, const float *A, size_t lda,
			const float *x, float beta, float *y)
{
	kn_blas_probe();
	if (!fits(M, N, lda, 0, 0, 0))
		return kn_simd_sgemv(ta, M, N, alpha, A, lda, x, beta, y);
	cblas_sgemv(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, (int)M, (int)N, alpha, A, (int)lda, x, 1,
		    beta, y, 1);
	return KN_OK;
}

/* conv2d: conv.c's im2col bands, each product through
 * cblas_sgemm (BLAS has no convolution; this is how frameworks without
 * cuDNN/oneDNN run one). */
kn_status kn_blas_conv2d(const kn_conv2d_params *p, const float *x, const float *wt, float *y)
{
	kn_blas_probe();
	return kn_conv_im2col(p, x, wt, y, kn_blas_sgemm);
}
