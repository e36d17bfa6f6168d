/*
 * cuda.cu - the cuda backend: elementwise kernels on device-resident buffers.
 *
 * Buffers come from kn_alloc(KN_BACKEND_CUDA, ...), so a benchmark times the
 * kernel and not host<->device transfers.  Launches are asynchronous; callers
 * time with kn_sync() (or CUDA events) around them.
 */
#include <cuda_runtime.h>
#include <stdio.h>

extern "C" {
#include "internal.h"
}

/* Probing once is enough: a device does not appear during a process's life. */
static int probed;
static kn_status probe_status;
static char probe_reason[200];

extern "C" kn_status kn_cuda_probe(void)
{
	if (!probed) {
		int count = 0;
		cudaError_t e = cudaGetDeviceCount(&count);
		probed = 1;
		probe_status = KN_OK;
		if (e != cudaSuccess) {
			snprintf(probe_reason, sizeof(probe_reason), "cuda: no usable device: %s",
				 cudaGetErrorString(e));
			probe_status = KN_EUNAVAILABLE;
		} else if (count == 0) {
			snprintf(probe_reason, sizeof(probe_reason), "cuda: no device present");
			probe_status = KN_EUNAVAILABLE;
		}
	}
	if (probe_status != KN_OK)
		return kn_fail(probe_status, "%s", probe_reason);
	return KN_OK;
}

template <int OP> __device__ float apply(float v);
template <> __device__ float apply<KN_ABS>(float v) { return fabsf(v); }
template <> __device__ float apply<KN_NEG>(float v) { return -v; }
template <> __device__ float apply<KN_SQRT>(float v) { return sqrtf(v); }
template <> __device__ float apply<KN_EXP>(float v) { return expf(v); }
template <> __device__ float apply<KN_RELU>(float v) { return v > 0.0f ? v : 0.0f; }

template <int OP> __global__ void unary_kernel(const float *x, float *y, size_t n)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = apply<OP>(x[i]);
}

static kn_status launched(const char *what)
{
	cudaError_t e = cudaGetLastError();
	if (e != cudaSuccess)
		return kn_fail(KN_EDEVICE, "cuda: %s: %s", what, cudaGetErrorString(e));
	return KN_OK;
}

extern "C" kn_status kn_cuda_unary(kn_unary_op op, const float *x, float *y, size_t n,
				   const kn_unary_params *p)
{
	(void)p;
	kn_status s = kn_cuda_probe();
	if (s != KN_OK || n == 0)
		return s;
	const unsigned threads = 256;
	size_t want = (n + threads - 1) / threads;
	unsigned blocks = want > 65535 ? 65535u : (unsigned)want;
	switch (op) {
	case KN_ABS: unary_kernel<KN_ABS><<<blocks, threads>>>(x, y, n); break;
	case KN_NEG: unary_kernel<KN_NEG><<<blocks, threads>>>(x, y, n); break;
	case KN_SQRT: unary_kernel<KN_SQRT><<<blocks, threads>>>(x, y, n); break;
	case KN_EXP: unary_kernel<KN_EXP><<<blocks, threads>>>(x, y, n); break;
	case KN_RELU: unary_kernel<KN_RELU><<<blocks, threads>>>(x, y, n); break;
	default: return kn_fail(KN_EUNSUPPORTED, "cuda: unary op %d", (int)op);
	}
	return launched(kn_unary_name(op));
}

extern "C" kn_status kn_cuda_alloc(size_t bytes, void **out)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK)
		return s;
	cudaError_t e = cudaMalloc(out, bytes ? bytes : 4);
	if (e != cudaSuccess)
		return kn_fail(KN_ENOMEM, "cuda: cudaMalloc %zu bytes: %s", bytes, cudaGetErrorString(e));
	return KN_OK;
}

extern "C" void kn_cuda_free(void *p)
{
	if (p)
		cudaFree(p);
}

extern "C" kn_status kn_cuda_copy(void *dst, const void *src, size_t bytes, int to_device)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK || bytes == 0)
		return s;
	cudaError_t e = cudaMemcpy(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
	if (e != cudaSuccess)
		return kn_fail(KN_EDEVICE, "cuda: cudaMemcpy: %s", cudaGetErrorString(e));
	return KN_OK;
}

extern "C" kn_status kn_cuda_sync(void)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK)
		return s;
	cudaError_t e = cudaDeviceSynchronize();
	if (e != cudaSuccess)
		return kn_fail(KN_EDEVICE, "cuda: synchronize: %s", cudaGetErrorString(e));
	return KN_OK;
}
