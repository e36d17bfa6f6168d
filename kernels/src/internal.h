/* internal.h - what the backends share with the dispatcher in api.c. */
#ifndef KN_INTERNAL_H
#define KN_INTERNAL_H

#include "kernels.h"

/* Records the reason for a failure and returns the status, so a backend can
 * write `return kn_fail(KN_EINVAL, "...")`. */
kn_status kn_fail(kn_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

kn_status kn_scalar_unary(kn_unary_op op, const float *x, float *y, size_t n);

/* The cuda backend: implemented in cuda.cu when nvcc was found at build time,
 * otherwise by cuda_absent.c which reports why it is missing. */
kn_status kn_cuda_probe(void);
kn_status kn_cuda_unary(kn_unary_op op, const float *x, float *y, size_t n);
kn_status kn_cuda_alloc(size_t bytes, void **out);
void kn_cuda_free(void *p);
kn_status kn_cuda_copy(void *dst, const void *src, size_t bytes, int to_device);
kn_status kn_cuda_sync(void);

#endif
