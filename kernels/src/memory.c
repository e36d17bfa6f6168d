/*
 * memory.c - every allocation the library makes, counted (0.10.0).
 *
 * A caller comparing releases wants to know what a call costs in memory, not
 * only in time: a release whose sgemm starts packing whole matrices instead
 * of panels is as much a regression on a small device as a slower loop.  So
 * every byte the library holds goes through here: kn_alloc's buffers (host
 * and device), the host scratch of the simd kernels (softmax's row buffer,
 * sgemm's packed panels) and the cuda backend's device scratch.  What other
 * libraries allocate inside (OpenBLAS's own buffers, the CUDA runtime's
 * context) is not the library's and not counted.
 *
 * Host sizes are malloc_usable_size() of the block, taken both when it is
 * counted in and when it is counted out, so the two always balance; device
 * sizes are the bytes asked of cudaMalloc (cuda.cu counts them).  Counters
 * are C11 atomics: calls on several threads count correctly, and the peak is
 * raised with a compare-and-swap so no concurrent rise is lost.
 */
#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "internal.h"

static _Atomic size_t now_bytes[2], peak_bytes[2]; /* [0] host, [1] device */

void kn_memory_count(int device, size_t bytes, int in)
{
	int d = device != 0;
	if (!in) {
		atomic_fetch_sub(&now_bytes[d], bytes);
		return;
	}
	size_t now = atomic_fetch_add(&now_bytes[d], bytes) + bytes;
	size_t peak = atomic_load(&peak_bytes[d]);
	while (now > peak && !atomic_compare_exchange_weak(&peak_bytes[d], &peak, now))
		;
}

void *kn_host_alloc(size_t bytes)
{
	size_t rounded = (bytes + 63) & ~(size_t)63;
	if (rounded < bytes)
		return NULL;
	void *p = aligned_alloc(64, rounded ? rounded : 64);
	if (p)
		kn_memory_count(0, malloc_usable_size(p), 1);
	return p;
}

void kn_host_free(void *p)
{
	if (!p)
		return;
	kn_memory_count(0, malloc_usable_size(p), 0);
	free(p);
}

float *kn_aligned_floats(size_t n)
{
	if (n > SIZE_MAX / sizeof(float))
		return NULL;
	return kn_host_alloc(n * sizeof(float));
}

kn_status kn_memory_get(kn_memory_usage *out)
{
	if (!out)
		return kn_fail(KN_EINVAL, "kn_memory_get: null out pointer");
	out->host_bytes = atomic_load(&now_bytes[0]);
	out->host_peak_bytes = atomic_load(&peak_bytes[0]);
	out->device_bytes = atomic_load(&now_bytes[1]);
	out->device_peak_bytes = atomic_load(&peak_bytes[1]);
	return KN_OK;
}

void kn_memory_reset_peak(void)
{
	for (int d = 0; d < 2; d++)
		atomic_store(&peak_bytes[d], atomic_load(&now_bytes[d]));
}
