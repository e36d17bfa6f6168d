/*
 * blas.c - the blas backend: OpenBLAS for what BLAS level 1 has (dot, axpy,
 * the l1/l2/linf norms); api.c sends every other op to the simd backend.
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
