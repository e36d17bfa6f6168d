/*
 * cuda_absent.c - the cuda backend when the library was built without nvcc.
 * Every call says why, so a benchmark reports the reason instead of a crash.
 */
#include "internal.h"

static kn_status absent(void)
{
	return kn_fail(KN_EUNAVAILABLE, "cuda: backend not built (nvcc was not found at build time)");
}

kn_status kn_cuda_probe(void) { return absent(); }
kn_status kn_cuda_unary(kn_unary_op op, const float *x, float *y, size_t n, const kn_unary_params *p)
{
	(void)op, (void)x, (void)y, (void)n, (void)p;
	return absent();
}
kn_status kn_cuda_binary(kn_binary_op op, const float *a, const float *b, float *y, size_t n)
{
	(void)op, (void)a, (void)b, (void)y, (void)n;
	return absent();
}
kn_status kn_cuda_axpy(float alpha, const float *x, float *y, size_t n)
{
	(void)alpha, (void)x, (void)y, (void)n;
	return absent();
}
kn_status kn_cuda_reduce(kn_reduce_op op, const float *x, size_t n, float *out)
{
	(void)op, (void)x, (void)n, (void)out;
	return absent();
}
kn_status kn_cuda_argreduce(kn_argreduce_op op, const float *x, size_t n, size_t *out)
{
	(void)op, (void)x, (void)n, (void)out;
	return absent();
}
kn_status kn_cuda_dot(const float *x, const float *y, size_t n, float *out)
{
	(void)x, (void)y, (void)n, (void)out;
	return absent();
}
kn_status kn_cuda_softmax(const float *x, float *y, size_t rows, size_t cols, int log_form)
{
	(void)x, (void)y, (void)rows, (void)cols, (void)log_form;
	return absent();
}
kn_status kn_cuda_norm(const float *x, const float *g, const float *b, float *y, size_t rows, size_t cols,
		       float eps, int rms)
{
	(void)x, (void)g, (void)b, (void)y, (void)rows, (void)cols, (void)eps, (void)rms;
	return absent();
}
kn_status kn_cuda_mem_copy(const float *x, float *y, size_t n)
{
	(void)x, (void)y, (void)n;
	return absent();
}
kn_status kn_cuda_transpose(const float *x, float *y, size_t rows, size_t cols)
{
	(void)x, (void)y, (void)rows, (void)cols;
	return absent();
}
kn_status kn_cuda_gather(const float *x, size_t nx, const int32_t *idx, float *y, size_t n)
{
	(void)x, (void)nx, (void)idx, (void)y, (void)n;
	return absent();
}
kn_status kn_cuda_scatter_add(const float *x, const int32_t *idx, size_t n, float *y, size_t ny)
{
	(void)x, (void)idx, (void)n, (void)y, (void)ny;
	return absent();
}
kn_status kn_cuda_batchnorm(const float *x, const float *mean, const float *var, const float *g, const float *b,
			    float *y, size_t n, size_t c, size_t hw, float eps)
{
	(void)x, (void)mean, (void)var, (void)g, (void)b, (void)y, (void)n, (void)c, (void)hw, (void)eps;
	return absent();
}
kn_status kn_cuda_concat(const float *const *xs, const size_t *cols, size_t k, float *y, size_t rows,
			 size_t total)
{
	(void)xs, (void)cols, (void)k, (void)y, (void)rows, (void)total;
	return absent();
}
kn_status kn_cuda_sgemm(int ta, int tb, size_t M, size_t N, size_t K, float alpha, const float *A,
			size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc)
{
	(void)ta, (void)tb, (void)M, (void)N, (void)K, (void)alpha, (void)A, (void)lda, (void)B, (void)ldb;
	(void)beta, (void)C, (void)ldc;
	return absent();
}
kn_status kn_cuda_sgemv(int ta, size_t M, size_t N, float alpha, const float *A, size_t lda,
			const float *x, float beta, float *y)
{
	(void)ta, (void)M, (void)N, (void)alpha, (void)A, (void)lda, (void)x, (void)beta, (void)y;
	return absent();
}
kn_status kn_cuda_alloc(size_t bytes, void **out)
{
	(void)bytes, (void)out;
	return absent();
}
void kn_cuda_free(void *p) { (void)p; }
kn_status kn_cuda_copy(void *dst, const void *src, size_t bytes, int to_device)
{
	(void)dst, (void)src, (void)bytes, (void)to_device;
	return absent();
}
kn_status kn_cuda_sync(void) { return absent(); }
kn_status kn_cuda_quantize(const float *x, int8_t *q, size_t rows, size_t cols, const float *s, size_t ns)
{
	(void)x, (void)q, (void)rows, (void)cols, (void)s, (void)ns;
	return absent();
}
kn_status kn_cuda_dequantize(const int8_t *q, float *y, size_t rows, size_t cols, const float *s, size_t ns)
{
	(void)q, (void)y, (void)rows, (void)cols, (void)s, (void)ns;
	return absent();
}
kn_status kn_cuda_qgemm(size_t M, size_t N, size_t K, const int8_t *A, size_t lda, const int8_t *B, size_t ldb,
			int32_t *C, size_t ldc)
{
	(void)M, (void)N, (void)K, (void)A, (void)lda, (void)B, (void)ldb, (void)C, (void)ldc;
	return absent();
}
kn_status kn_cuda_bf16gemm(size_t M, size_t N, size_t K, const uint16_t *A, size_t lda, const uint16_t *B,
			   size_t ldb, float *C, size_t ldc)
{
	(void)M, (void)N, (void)K, (void)A, (void)lda, (void)B, (void)ldb, (void)C, (void)ldc;
	return absent();
}
kn_status kn_cuda_convert(kn_cvt c, const void *x, void *y, size_t n)
{
	(void)c, (void)x, (void)y, (void)n;
	return absent();
}
kn_status kn_cuda_conv2d(const kn_conv2d_params *p, const float *x, const float *wt, float *y)
{
	(void)p, (void)x, (void)wt, (void)y;
	return absent();
}
kn_status kn_cuda_dwconv2d(const kn_conv2d_params *p, const float *x, const float *wt, float *y)
{
	(void)p, (void)x, (void)wt, (void)y;
	return absent();
}
kn_status kn_cuda_pool2d(kn_pool_op op, const kn_conv2d_params *p, const float *x, float *y)
{
	(void)op, (void)p, (void)x, (void)y;
	return absent();
}
kn_status kn_cuda_attention(const float *q, const float *k, const float *v, size_t ld, float *o, size_t ldo,
			    size_t seq, size_t heads, size_t dh, float scale)
{
	(void)q, (void)k, (void)v, (void)ld, (void)o, (void)ldo, (void)seq, (void)heads, (void)dh, (void)scale;
	return absent();
}
