/*
 * plugin.c - the harness code that calls the kernels library.  It is compiled
 * once per version, against that version's kernels.h with that version's compat
 * shim force-included (-include), and linked with that version's libkernels.a
 * into a plugin the runner loads with dlopen(RTLD_LOCAL).
 *
 * It is written against the current kernels API.  A shim for an older release
 * maps what changed; an op enum an old header lacks is defined by the shim as
 * an out-of-range value, which the old library answers with KN_EUNSUPPORTED:
 * the cell shows "n/a" for that version, never a build failure.
 */
#include <math.h>
#include <string.h>

#include "kernels.h"
#include "plugin.h"

#ifndef BV_KERNELS_VERSION_MAJOR
#error "built without -DBV_KERNELS_VERSION_MAJOR/MINOR/PATCH (the orchestrator passes them)"
#endif

static int from_status(kn_status s)
{
	switch (s) {
	case KN_OK: return BV_OK;
	case KN_EUNSUPPORTED: return BV_NA;
	case KN_EUNAVAILABLE: return BV_UNAVAILABLE;
	default: return BV_FAILED;
	}
}

static int backend_id(const char *name)
{
	static const struct { const char *name; kn_backend id; } map[] = {
		{"scalar", KN_BACKEND_SCALAR}, {"simd", KN_BACKEND_SIMD},
		{"blas", KN_BACKEND_BLAS},     {"cuda", KN_BACKEND_CUDA},
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(map[i].name, name) == 0)
			return (int)map[i].id;
	return -1;
}

/* ---- unary ------------------------------------------------------------ */

static int run_unary(const bv_call *c, const bv_args *a)
{
	static const kn_unary_params params = {BV_CLAMP_LO, BV_CLAMP_HI, BV_SCALE_ALPHA};
	return from_status(kn_unary_ex((kn_backend)c->backend, (kn_unary_op)c->op, a->x, a->y, a->n, &params));
}

static int lookup_unary(const char *op, bv_call *out)
{
#define BV_UNARY(name, kn, ref, lo, hi, ulp, flops)                                                \
	if (strcmp(op, #name) == 0) {                                                              \
		out->fn = run_unary;                                                               \
		out->op = (int)(kn);                                                               \
		return BV_OK;                                                                      \
	}
#include "ops.def"
#undef BV_UNARY
	return BV_NA;
}

static int lookup(const char *group, const char *op, const char *backend, bv_call *out)
{
	memset(out, 0, sizeof(*out));
	out->backend = backend_id(backend);
	if (out->backend < 0)
		return BV_NA;
	if (strcmp(group, "unary") == 0)
		return lookup_unary(op, out);
	return BV_NA;
}

static int probe(const char *backend)
{
	int id = backend_id(backend);
	if (id < 0)
		return BV_NA;
	return from_status(kn_backend_probe((kn_backend)id));
}

static int alloc(const char *backend, size_t bytes, void **out)
{
	return from_status(kn_alloc((kn_backend)backend_id(backend), bytes, out));
}

static void release(const char *backend, void *p)
{
	kn_free((kn_backend)backend_id(backend), p);
}

static int copy_in(const char *backend, void *dst, const void *src, size_t bytes)
{
	return from_status(kn_copy_in((kn_backend)backend_id(backend), dst, src, bytes));
}

static int copy_out(const char *backend, void *dst, const void *src, size_t bytes)
{
	return from_status(kn_copy_out((kn_backend)backend_id(backend), dst, src, bytes));
}

static int sync_backend(const char *backend)
{
	return from_status(kn_sync((kn_backend)backend_id(backend)));
}

static int host_memory(const char *backend)
{
	return backend_id(backend) != (int)KN_BACKEND_CUDA;
}

#ifdef BV_WITH_CUDART
#include <cuda_runtime_api.h>

/* Events on the default stream, where the library launches its kernels:
 * they time the kernels themselves, not the host's view of them. */
static double device_time(const bv_call *c, const bv_args *a, long reps)
{
	cudaEvent_t start, stop;
	float ms = 0;
	if (cudaDeviceSynchronize() != cudaSuccess || cudaEventCreate(&start) != cudaSuccess)
		return NAN;
	if (cudaEventCreate(&stop) != cudaSuccess) {
		cudaEventDestroy(start);
		return NAN;
	}
	int ok = cudaEventRecord(start, 0) == cudaSuccess;
	for (long r = 0; ok && r < reps; r++)
		ok = c->fn(c, a) == BV_OK;
	ok = ok && cudaEventRecord(stop, 0) == cudaSuccess && cudaEventSynchronize(stop) == cudaSuccess &&
	     cudaEventElapsedTime(&ms, start, stop) == cudaSuccess;
	cudaEventDestroy(start);
	cudaEventDestroy(stop);
	return ok ? (double)ms * 1e6 / (double)reps : NAN;
}
#else
static double device_time(const bv_call *c, const bv_args *a, long reps)
{
	(void)c, (void)a, (void)reps;
	return NAN;
}
#endif

static const bv_plugin plugin = {
	.abi = BV_PLUGIN_ABI,
	.kernel_version = kn_version,
	.lookup = lookup,
	.probe = probe,
	.last_error = kn_last_error,
	.alloc = alloc,
	.release = release,
	.copy_in = copy_in,
	.copy_out = copy_out,
	.sync = sync_backend,
	.host_memory = host_memory,
	.device_time = device_time,
};

__attribute__((visibility("default"))) const bv_plugin *bv_plugin_get(void)
{
	return &plugin;
}
