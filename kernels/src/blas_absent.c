/*
 * blas_absent.c - the blas backend when the library was built without
 * OpenBLAS (BLAS=0, or pkg-config did not find openblas).
 */
#include "internal.h"

static kn_status absent(void)
{
	return kn_fail(KN_EUNAVAILABLE, "blas: backend not built (OpenBLAS was not found by pkg-config at build time)");
}

kn_status kn_blas_probe(void) { return absent(); }
kn_status kn_blas_axpy(float alpha, const float *x, float *y, size_t n)
{
	(void)alpha, (void)x, (void)y, (void)n;
	return absent();
}
kn_status kn_blas_copy(const float *x, float *y, size_t n)
{
	(void)x, (void)y, (void)n;
	return absent();
}
kn_status kn_blas_reduce(kn_reduce_op op, const float *x, size_t n, float *out)
{
	(void)op, (void)x, (void)n, (void)out;
	return absent();
}
kn_status kn_blas_dot(const float *x, const float *y, size_t n, float *out)
{
	(void)x, (void)y, (void)n, (void)out;
	return absent();
}
kn_status kn_blas_sgemm(int ta, int tb, size_t M, size_t N, size_t K, float alpha, const float *A,
			size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc)
{
	(void)ta, (void)tb, (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)lda, (void)B, (void)ldb;
	(void)beta, (void)C, (void)ldc;
	return absent();
}
kn_status kn_blas_sgemv(int ta, size_t M, size_t N, float alpha, const float *A, size_t lda,
			const float *x, float beta, float *y)
{
	(void)ta, (void)M, (void)N, (void)alpha, (void)A, (void)lda, (void)x, (void)beta, (void)y;
	return absent();
}
kn_status kn_blas_conv2d(const kn_conv2d_params *p, const float *x, const float *wt, float *y)
{
	(void)p, (void)x, (void)wt, (void)y;
	return absent();
}
