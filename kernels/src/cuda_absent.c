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
