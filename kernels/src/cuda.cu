/*
 * cuda.cu - the cuda backend: every op on device-resident buffers.
 *
 * Buffers come from kn_alloc(KN_BACKEND_CUDA, ...), so a benchmark times the
 * kernel and not host<->device transfers.  Elementwise ops, softmax and the
 * norms launch asynchronously; callers time with kn_sync() (or CUDA events) around them.
 * Reductions write their result to host memory, so they return only once it
 * is there.  sgemm/sgemv go through cuBLAS.
 *
 * api.c has validated every argument before a call gets here (it cannot see
 * whether a pointer is device memory: that is the caller's contract).
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <unordered_map>

extern "C" {
#include "internal.h"
}
#include "quant_bits.h"

/* Probing once is enough: a device does not appear during a process's life. */
static int probed;
static kn_status probe_status;
static char probe_reason[200];

extern "C" kn_status kn_cuda_probe(void)
{
	if (!probed) {
		int count = 0;
		cudaError_t e = cudaGetDeviceCount(&count);
		probe_status = KN_OK;
		/* Without a GPU the runtime says "CUDA driver version is
		 * insufficient" (no driver library) or "no CUDA-capable device":
		 * misleading on a machine that has no GPU at all, where nothing
		 * can be upgraded.  No device node means no GPU; with one, the
		 * runtime's own words are the diagnosis and stay.  Only those two
		 * answers are reworded: any other error (a stub library, a broken
		 * install) keeps its own words on every machine. */
		int gpu = access("/dev/nvidia0", F_OK) == 0;
		int no_device = e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice ||
				(e == cudaSuccess && count == 0);
		if (no_device && !gpu) {
			snprintf(probe_reason, sizeof(probe_reason), "cuda: no CUDA device (no GPU on this machine)");
			probe_status = KN_EUNAVAILABLE;
		} else if (e != cudaSuccess) {
			snprintf(probe_reason, sizeof(probe_reason), "cuda: no usable device: %s",
				 cudaGetErrorString(e));
			probe_status = KN_EUNAVAILABLE;
		} else if (count == 0) {
			snprintf(probe_reason, sizeof(probe_reason), "cuda: no device present");
			probe_status = KN_EUNAVAILABLE;
		}
		probed = 1;
	}
	if (probe_status != KN_OK)
		return kn_fail(probe_status, "%s", probe_reason);
	return KN_OK;
}

static kn_status launched(const char *what)
{
	cudaError_t e = cudaGetLastError();
	if (e != cudaSuccess)
		return kn_fail(KN_EDEVICE, "cuda: %s: %s", what, cudaGetErrorString(e));
	return KN_OK;
}

/* Elementwise grids: 256 threads, at most 65535 blocks, and every kernel loops
 * with a grid stride so that any n is covered (and no index overflows int). */
static const unsigned THREADS = 256;

static unsigned blocks_for(size_t n)
{
	size_t want = (n + THREADS - 1) / THREADS;
	return want > 65535 ? 65535u : want ? (unsigned)want : 1u;
}

#define GRID_STRIDE(i, n)                                                                          \
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n);                    \
	     i += (size_t)gridDim.x * blockDim.x)

/* ---- unary ops ------------------------------------------------------------ */

/* sigmoid, silu and gelu are evaluated in double, as in scalar.c: the float
 * forms overflow (exp(-x) for x < -88) or cancel (1 + tanh(u) for negative u).
 * e = exp(-|t|) <= 1 keeps everything finite. */
__device__ static double sigmoid_d(double t)
{
	double e = exp(-fabs(t));
	return t >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

/* x * sigmoid(t), with the limit -0 at x = -Inf instead of -Inf * 0 = NaN. */
__device__ static float times_sigmoid(float x, double t)
{
	if (x == -INFINITY)
		return -0.0f;
	return (float)((double)x * sigmoid_d(t));
}

template <int OP> __device__ float apply(float v, kn_unary_params p);
template <> __device__ float apply<KN_ABS>(float v, kn_unary_params) { return fabsf(v); }
template <> __device__ float apply<KN_NEG>(float v, kn_unary_params) { return -v; }
template <> __device__ float apply<KN_SQRT>(float v, kn_unary_params) { return sqrtf(v); }
template <> __device__ float apply<KN_EXP>(float v, kn_unary_params) { return expf(v); }
template <> __device__ float apply<KN_RELU>(float v, kn_unary_params) { return v > 0.0f ? v : 0.0f; }
template <> __device__ float apply<KN_LOG>(float v, kn_unary_params) { return logf(v); }
template <> __device__ float apply<KN_SIGMOID>(float v, kn_unary_params) { return (float)sigmoid_d(v); }
template <> __device__ float apply<KN_TANH>(float v, kn_unary_params) { return tanhf(v); }
/* gelu, tanh form: x/2 (1 + tanh(u)) = x sigmoid(2u). */
template <> __device__ float apply<KN_GELU>(float v, kn_unary_params)
{
	double d = v;
	return times_sigmoid(v, 1.5957691216057308 * (d + 0.044715 * d * d * d));
}
template <> __device__ float apply<KN_SILU>(float v, kn_unary_params) { return times_sigmoid(v, v); }
/* Compares instead of fminf/fmaxf, which would turn NaN into a bound. */
template <> __device__ float apply<KN_CLAMP>(float v, kn_unary_params p)
{
	return v < p.lo ? p.lo : v > p.hi ? p.hi : v;
}
template <> __device__ float apply<KN_SCALE>(float v, kn_unary_params p) { return p.alpha * v; }

template <int OP> __global__ void unary_kernel(const float *x, float *y, size_t n, kn_unary_params p)
{
	GRID_STRIDE(i, n)
		y[i] = apply<OP>(x[i], p);
}

extern "C" kn_status kn_cuda_unary(kn_unary_op op, const float *x, float *y, size_t n,
				   const kn_unary_params *p)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK || n == 0)
		return s;
	unsigned blocks = blocks_for(n);
	kn_unary_params q = *p;
	switch (op) {
#define CASE(OP)                                                                                   \
	case OP: unary_kernel<OP><<<blocks, THREADS>>>(x, y, n, q); break;
	CASE(KN_ABS) CASE(KN_NEG) CASE(KN_SQRT) CASE(KN_EXP) CASE(KN_RELU) CASE(KN_LOG)
	CASE(KN_SIGMOID) CASE(KN_TANH) CASE(KN_GELU) CASE(KN_SILU) CASE(KN_CLAMP) CASE(KN_SCALE)
#undef CASE
	default: return kn_fail(KN_EUNSUPPORTED, "cuda: unary op %d", (int)op);
	}
	return launched(kn_unary_name(op));
}

/* ---- binary ops, axpy ----------------------------------------------------- */

/* max/min that return NaN if either input is NaN (fmaxf/fminf would drop it);
 * on equal inputs (+0 vs -0) the second operand, as scalar.c and simd do. */
__device__ static inline float max1(float a, float b) { return a != a || b != b ? a + b : a > b ? a : b; }
__device__ static inline float min1(float a, float b) { return a != a || b != b ? a + b : a < b ? a : b; }

template <int OP> __device__ float apply2(float a, float b);
template <> __device__ float apply2<KN_ADD>(float a, float b) { return a + b; }
template <> __device__ float apply2<KN_SUB>(float a, float b) { return a - b; }
template <> __device__ float apply2<KN_MUL>(float a, float b) { return a * b; }
/* __fdiv_rn: correctly rounded whatever -prec-div a build passes. */
template <> __device__ float apply2<KN_DIV>(float a, float b) { return __fdiv_rn(a, b); }
template <> __device__ float apply2<KN_MAX>(float a, float b) { return max1(a, b); }
template <> __device__ float apply2<KN_MIN>(float a, float b) { return min1(a, b); }

template <int OP> __global__ void binary_kernel(const float *a, const float *b, float *y, size_t n)
{
	GRID_STRIDE(i, n)
		y[i] = apply2<OP>(a[i], b[i]);
}

extern "C" kn_status kn_cuda_binary(kn_binary_op op, const float *a, const float *b, float *y, size_t n)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK || n == 0)
		return s;
	unsigned blocks = blocks_for(n);
	switch (op) {
#define CASE(OP)                                                                                   \
	case OP: binary_kernel<OP><<<blocks, THREADS>>>(a, b, y, n); break;
	CASE(KN_ADD) CASE(KN_SUB) CASE(KN_MUL) CASE(KN_DIV) CASE(KN_MAX) CASE(KN_MIN)
#undef CASE
	default: return kn_fail(KN_EUNSUPPORTED, "cuda: binary op %d", (int)op);
	}
	return launched(kn_binary_name(op));
}

/* One rounding, like the simd backend's fma. */
__global__ void axpy_kernel(float alpha, const float *x, float *y, size_t n)
{
	GRID_STRIDE(i, n)
		y[i] = fmaf(alpha, x[i], y[i]);
}

extern "C" kn_status kn_cuda_axpy(float alpha, const float *x, float *y, size_t n)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK || n == 0)
		return s;
	axpy_kernel<<<blocks_for(n), THREADS>>>(alpha, x, y, n);
	return launched("axpy");
}

/* ---- reductions ------------------------------------------------------------
 *
 * Two stages: RED_BLOCKS blocks each reduce a grid-strided share of the input
 * to one partial (warp shuffles, then one shared slot per warp), and a single
 * block reduces the partials.  Each reduction is a functor R with a value type
 * T, an identity, load(i) and an associative, commutative combine, so the
 * order in which the tree visits elements does not change exact results
 * (max, min, argmax) and sums are accumulated in double: their error is one
 * final rounding for any n, like the scalar backend, and x^2 of any float
 * neither overflows nor underflows in double (norm_l2 needs no scaling).
 */
static const unsigned RED_THREADS = 256;
static const unsigned RED_BLOCKS = 1024; /* plenty to fill any current GPU */

struct argval {
	float v;
	unsigned long long i; /* ~0: no element yet */
};

__device__ static inline double shfl_down(double v, unsigned d) { return __shfl_down_sync(0xffffffffu, v, d); }
__device__ static inline float shfl_down(float v, unsigned d) { return __shfl_down_sync(0xffffffffu, v, d); }
__device__ static inline argval shfl_down(argval v, unsigned d)
{
	argval r;
	r.v = __shfl_down_sync(0xffffffffu, v.v, d);
	r.i = __shfl_down_sync(0xffffffffu, v.i, d);
	return r;
}

/* Reduces one value per thread of the block; thread 0 gets the total.  Every
 * thread of the block must call it (blockDim.x a multiple of 32, <= 1024). */
template <class R> __device__ typename R::T block_reduce(const R &r, typename R::T v)
{
	__shared__ typename R::T warp_total[32];
	unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	for (unsigned d = 16; d > 0; d /= 2)
		v = r.combine(v, shfl_down(v, d));
	if (lane == 0)
		warp_total[warp] = v;
	__syncthreads();
	if (warp == 0) {
		v = lane < blockDim.x / 32 ? warp_total[lane] : r.identity();
		for (unsigned d = 16; d > 0; d /= 2)
			v = r.combine(v, shfl_down(v, d));
	}
	__syncthreads(); /* warp_total may be reused by the caller's next call */
	return v;
}

template <class R> __global__ void reduce_stage1(R r, size_t n, typename R::T *partial)
{
	typename R::T v = r.identity();
	GRID_STRIDE(i, n)
		v = r.combine(v, r.load(i));
	v = block_reduce(r, v);
	if (threadIdx.x == 0)
		partial[blockIdx.x] = v;
}

template <class R> __global__ void reduce_stage2(R r, const typename R::T *partial, unsigned count)
{
	typename R::T v = r.identity();
	for (unsigned i = threadIdx.x; i < count; i += blockDim.x)
		v = r.combine(v, partial[i]);
	v = block_reduce(r, v);
	if (threadIdx.x == 0)
		*(typename R::T *)(partial + RED_BLOCKS) = v;
}

/* Sums: sum, mean, norm_l1, norm_l2 (SQ squares), dot (Y: second vector). */
template <int KIND> struct sum_r {
	typedef double T;
	const float *x, *y;
	__device__ double identity() const { return 0.0; }
	__device__ double combine(double a, double b) const { return a + b; }
	__device__ double load(size_t i) const
	{
		double v = x[i];
		return KIND == 0 ? v : KIND == 1 ? fabs(v) : KIND == 2 ? v * v : v * (double)y[i];
	}
};

/* max, min and max |x| with NaN winning (max1/min1 propagate it). */
template <int KIND> struct ext_r {
	typedef float T;
	const float *x;
	__device__ float identity() const { return KIND == 1 ? INFINITY : -INFINITY; }
	__device__ float combine(float a, float b) const { return KIND == 1 ? min1(a, b) : max1(a, b); }
	__device__ float load(size_t i) const { return KIND == 2 ? fabsf(x[i]) : x[i]; }
};

/* argmax (MIN = 0) / argmin: the first NaN, else the extreme value with the
 * lowest index, so that ties and NaNs give the scalar backend's answer
 * whichever thread saw which element. */
template <int MIN> struct arg_r {
	typedef argval T;
	const float *x;
	__device__ argval identity() const { return argval{0.0f, ~0ull}; }
	__device__ argval combine(argval a, argval b) const
	{
		if (b.i == ~0ull)
			return a;
		if (a.i == ~0ull)
			return b;
		bool an = a.v != a.v, bn = b.v != b.v;
		if (an || bn)
			return an && bn ? (a.i < b.i ? a : b) : an ? a : b;
		bool b_better = MIN ? b.v < a.v : b.v > a.v;
		return b_better || (b.v == a.v && b.i < a.i) ? b : a;
	}
	__device__ argval load(size_t i) const { return argval{x[i], (unsigned long long)i}; }
};

/* Device scratch for the partials and the result, allocated on first use and
 * kept: cudaMalloc per call would synchronise the device and dominate small
 * reductions.  The lock makes concurrent reductions from several host threads
 * take turns on it. */
static pthread_mutex_t scratch_lock = PTHREAD_MUTEX_INITIALIZER;
static void *scratch;

template <class R> static kn_status run_reduce(const R &r, size_t n, typename R::T *result, const char *what)
{
	typedef typename R::T T;
	pthread_mutex_lock(&scratch_lock);
	if (!scratch) {
		cudaError_t e = cudaMalloc(&scratch, (RED_BLOCKS + 1) * 16);
		if (e != cudaSuccess) {
			scratch = NULL;
			pthread_mutex_unlock(&scratch_lock);
			return kn_fail(KN_ENOMEM, "cuda: %s: scratch: %s", what, cudaGetErrorString(e));
		}
		kn_memory_count(1, (RED_BLOCKS + 1) * 16, 1); /* kept for good: counted in once */
	}
	T *partial = (T *)scratch;
	size_t want = (n + RED_THREADS - 1) / RED_THREADS;
	unsigned blocks = want > RED_BLOCKS ? RED_BLOCKS : want ? (unsigned)want : 1u;
	reduce_stage1<R><<<blocks, RED_THREADS>>>(r, n, partial);
	kn_status s = launched(what);
	if (s == KN_OK) {
		reduce_stage2<R><<<1, 1024>>>(r, partial, blocks);
		s = launched(what);
	}
	/* cudaMemcpy to pageable host memory waits for both kernels, and reports
	 * an error either of them hit while running. */
	if (s == KN_OK) {
		cudaError_t e = cudaMemcpy(result, partial + RED_BLOCKS, sizeof(T), cudaMemcpyDeviceToHost);
		if (e != cudaSuccess)
			s = kn_fail(KN_EDEVICE, "cuda: %s: %s", what, cudaGetErrorString(e));
	}
	pthread_mutex_unlock(&scratch_lock);
	return s;
}

extern "C" kn_status kn_cuda_reduce(kn_reduce_op op, const float *x, size_t n, float *out)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK)
		return s;
	/* api.c lets only sums and norms through empty: they are 0. */
	if (n == 0) {
		*out = 0.0f;
		return KN_OK;
	}
	const char *what = kn_reduce_name(op);
	double d = 0;
	float f = 0;
	switch (op) {
	case KN_SUM:
	case KN_MEAN: s = run_reduce(sum_r<0>{x, NULL}, n, &d, what); break;
	case KN_NORM_L1: s = run_reduce(sum_r<1>{x, NULL}, n, &d, what); break;
	case KN_NORM_L2: s = run_reduce(sum_r<2>{x, NULL}, n, &d, what); break;
	case KN_REDUCE_MAX: s = run_reduce(ext_r<0>{x}, n, &f, what); break;
	case KN_REDUCE_MIN: s = run_reduce(ext_r<1>{x}, n, &f, what); break;
	case KN_NORM_LINF: s = run_reduce(ext_r<2>{x}, n, &f, what); break;
	default: return kn_fail(KN_EUNSUPPORTED, "cuda: reduce op %d", (int)op);
	}
	if (s != KN_OK)
		return s;
	switch (op) {
	case KN_SUM: case KN_NORM_L1: *out = (float)d; break;
	case KN_MEAN: *out = (float)(d / (double)n); break;
	case KN_NORM_L2: *out = (float)sqrt(d); break;
	default: *out = f; break;
	}
	return KN_OK;
}

extern "C" kn_status kn_cuda_argreduce(kn_argreduce_op op, const float *x, size_t n, size_t *out)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK)
		return s;
	argval r = {0.0f, 0};
	const char *what = kn_argreduce_name(op);
	switch (op) {
	case KN_ARGMAX: s = run_reduce(arg_r<0>{x}, n, &r, what); break;
	case KN_ARGMIN: s = run_reduce(arg_r<1>{x}, n, &r, what); break;
	default: return kn_fail(KN_EUNSUPPORTED, "cuda: argreduce op %d", (int)op);
	}
	if (s == KN_OK)
		*out = (size_t)r.i;
	return s;
}

extern "C" kn_status kn_cuda_dot(const float *x, const float *y, size_t n, float *out)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK)
		return s;
	double d = 0;
	if (n && (s = run_reduce(sum_r<3>{x, y}, n, &d, "dot")) != KN_OK)
		return s;
	*out = (float)d;
	return KN_OK;
}

/* ---- softmax ---------------------------------------------------------------
 *
 * One block per row (grid-strided over rows).  The row max is exact in float;
 * x - max, exp and the sum are done in double, as in scalar.c: float x - max
 * is off by up to |x - max| 2^-24 absolutely, which exp turns into a relative
 * error of ~80 eps for rows spanning [-90, 90].
 */
struct rowmax_r {
	typedef float T;
	__device__ float identity() const { return -INFINITY; }
	__device__ float combine(float a, float b) const { return max1(a, b); }
};
struct rowsum_r {
	typedef double T;
	__device__ double identity() const { return 0.0; }
	__device__ double combine(double a, double b) const { return a + b; }
};

__global__ void softmax_kernel(const float *x, float *y, size_t rows, size_t cols, int log_form)
{
	__shared__ double shift_s, logsum_s;
	for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {
		const float *a = x + r * cols;
		float *b = y + r * cols;
		float m = -INFINITY;
		for (size_t j = threadIdx.x; j < cols; j += blockDim.x)
			m = max1(m, a[j]);
		m = block_reduce(rowmax_r(), m);
		double s = 0;
		if (threadIdx.x == 0)
			shift_s = m;
		__syncthreads();
		double md = shift_s;
		/* NaN or +Inf in the row: s is NaN and so is every output. */
		for (size_t j = threadIdx.x; j < cols; j += blockDim.x)
			s += exp((double)a[j] - md);
		s = block_reduce(rowsum_r(), s);
		if (threadIdx.x == 0)
			logsum_s = log(s);
		__syncthreads();
		double ls = logsum_s;
		/* y may be x: every read of this row happened before the barrier.
		 * (x - max) - log(s), never x - (max + log(s)), which rounds to
		 * x - max when max is huge (three tied 1e30s would each get 1). */
		for (size_t j = threadIdx.x; j < cols; j += blockDim.x) {
			double d = ((double)a[j] - md) - ls;
			b[j] = (float)(log_form ? d : exp(d));
		}
		__syncthreads(); /* shift_s is rewritten for the next row */
	}
}

extern "C" kn_status kn_cuda_softmax(const float *x, float *y, size_t rows, size_t cols, int log_form)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK || rows == 0 || cols == 0)
		return s;
	/* Short rows do not need 256 threads idling; keep a multiple of 32. */
	unsigned threads = cols >= 256 ? 256u : (unsigned)((cols + 31) / 32 * 32);
	unsigned blocks = rows > 65535 ? 65535u : (unsigned)rows;
	softmax_kernel<<<blocks, threads>>>(x, y, rows, cols, log_form);
	return launched(log_form ? "log_softmax" : "softmax");
}

/* ---- layernorm, rmsnorm (0.8.0) -------------------------------------------
 *
 * One block per row (grid-strided over rows), warp shuffles then one shared
 * slot per warp (block_reduce).  Two passes as in scalar.c: the mean, then
 * the squared deviations from it, both in double (float squares of
 * deviations beyond 1.8e19 would overflow; in double nothing does), so the
 * variance never comes from the cancelling sum(x^2) - sum(x)^2.  rmsnorm
 * sums x^2 in double.  A NaN or Inf in the row makes the statistic
 * non-finite and the whole row NaN, as on the host.
 */
__global__ void norm_kernel(const float *x, const float *g, const float *b, float *y, size_t rows, size_t cols,
			    float eps, int rms)
{
	__shared__ double mean_s, rstd_s;
	for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {
		const float *a = x + r * cols;
		float *o = y + r * cols;
		double mean = 0;
		if (!rms) {
			double s = 0;
			for (size_t j = threadIdx.x; j < cols; j += blockDim.x)
				s += a[j];
			s = block_reduce(rowsum_r(), s);
			if (threadIdx.x == 0)
				mean_s = s / (double)cols;
			__syncthreads();
			mean = mean_s;
		}
		double q = 0;
		for (size_t j = threadIdx.x; j < cols; j += blockDim.x) {
			double d = (double)a[j] - mean;
			q += d * d;
		}
		q = block_reduce(rowsum_r(), q);
		if (threadIdx.x == 0) {
			double var = q / (double)cols;
			rstd_s = isfinite(mean) && isfinite(var) ? 1.0 / sqrt(var + (double)eps) : NAN;
		}
		__syncthreads();
		double rstd = rstd_s;
		/* y may be x: every read of this row happened before the barrier. */
		for (size_t j = threadIdx.x; j < cols; j += blockDim.x) {
			double v = ((double)a[j] - mean) * rstd * (double)g[j];
			o[j] = (float)(b ? v + (double)b[j] : v);
		}
		__syncthreads(); /* mean_s and rstd_s are rewritten for the next row */
	}
}

extern "C" kn_status kn_cuda_norm(const float *x, const float *g, const float *b, float *y, size_t rows,
				  size_t cols, float eps, int rms)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK || rows == 0 || cols == 0)
		return s;
	unsigned threads = cols >= 256 ? 256u : (unsigned)((cols + 31) / 32 * 32);
	unsigned blocks = rows > 65535 ? 65535u : (unsigned)rows;
	norm_kernel<<<blocks, threads>>>(x, g, b, y, rows, cols, eps, rms);
	return launched(rms ? "rmsnorm" : "layernorm");
}

/* ---- batchnorm, concat ----------------------------------------------------
 *
 * batchnorm: a block per row (one channel of one image), grid-strided over
 * the n c rows; every thread folds the channel itself (a sqrt and a divide
 * in double, nothing shared, no barrier) and writes fmaf(x, s, t) as the
 * host backends do, with the same two exceptions: a NaN statistic or a
 * negative variance makes the row NaN, and an s or t that is not a finite
 * float sends the row through the formula in double.
 */
__global__ void batchnorm_kernel(const float *x, const float *mean, const float *var, const float *g,
				 const float *b, float *y, size_t c, size_t hw, size_t rows, float eps)
{
	for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {
		size_t j = r % c;
		float m = mean[j], v = var[j], gm = g[j], bt = b ? b[j] : 0.0f;
		const float *a = x + r * hw;
		float *o = y + r * hw;
		if (isnan(m) || isnan(gm) || isnan(bt) || !(v >= 0.0f)) {
			for (size_t i = threadIdx.x; i < hw; i += blockDim.x)
				o[i] = NAN;
			continue;
		}
		double rs = 1.0 / sqrt((double)v + (double)eps);
		double sd = (double)gm * rs, td = (double)bt - (double)m * sd;
		float s = (float)sd, t = (float)td;
		if (isfinite(sd) && isfinite(td) && isfinite(s) && isfinite(t) && (sd == 0 || fabs(sd) >= FLT_MIN)) {
			for (size_t i = threadIdx.x; i < hw; i += blockDim.x)
				o[i] = fmaf(a[i], s, t);
		} else {
			for (size_t i = threadIdx.x; i < hw; i += blockDim.x)
				o[i] = (float)((((double)a[i] - (double)m) * rs) * (double)gm + (double)bt);
		}
	}
}

extern "C" kn_status kn_cuda_batchnorm(const float *x, const float *mean, const float *var, const float *g,
				       const float *b, float *y, size_t n, size_t c, size_t hw, float eps)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK || n == 0 || c == 0 || hw == 0)
		return s;
	size_t rows = n * c;
	unsigned threads = hw >= 256 ? 256u : (unsigned)((hw + 31) / 32 * 32);
	unsigned blocks = rows > 65535 ? 65535u : (unsigned)rows;
	batchnorm_kernel<<<blocks, threads>>>(x, mean, var, g, b, y, c, hw, rows, eps);
	return launched("batchnorm");
}

/* concat: the input table travels by value as the kernel's argument (64
 * inputs: 1.5 KB of the 4 KB a launch may pass), and blockIdx.y picks the
 * input, so each block reads its input contiguously and writes runs of
 * cols[i] floats into y. */
struct cat_table {
	const float *x[KN_CONCAT_MAX];
	size_t cols[KN_CONCAT_MAX], off[KN_CONCAT_MAX];
};

__global__ void concat_kernel(cat_table tab, float *y, size_t rows, size_t total)
{
	size_t w = tab.cols[blockIdx.y];
	if (w == 0)
		return; /* an empty input may be NULL */
	const float *a = tab.x[blockIdx.y];
	size_t n = rows * w, off = tab.off[blockIdx.y];
	for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += (size_t)gridDim.x * blockDim.x)
		y[(e / w) * total + off + e % w] = a[e];
}

extern "C" kn_status kn_cuda_concat(const float *const *xs, const size_t *cols, size_t k, float *y, size_t rows,
				    size_t total)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK || k == 0 || rows == 0 || total == 0)
		return s;
	cat_table tab;
	size_t off = 0, widest = 0;
	for (size_t i = 0; i < k; i++) {
		tab.x[i] = xs[i], tab.cols[i] = cols[i], tab.off[i] = off;
		off += cols[i];
		widest = cols[i] > widest ? cols[i] : widest;
	}
	concat_kernel<<<dim3(blocks_for(rows * widest), (unsigned)k), THREADS>>>(tab, y, rows, total);
	return launched("concat");
}

/* ---- copy, transpose, gather, scatter_add (0.9.0) --------------------------
 *
 * copy is a device-to-device cudaMemcpyAsync: the copy engine's own path,
 * asynchronous like the other ops.  transpose goes through shared memory in
 * 32 x 32 tiles (one column of padding so the column reads hit 32 banks),
 * so both its reads and its writes are whole coalesced rows.
 */
extern "C" kn_status kn_cuda_mem_copy(const float *x, float *y, size_t n)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK || n == 0 || x == y)
		return s;
	cudaError_t e = cudaMemcpyAsync(y, x, n * sizeof(float), cudaMemcpyDeviceToDevice);
	if (e != cudaSuccess)
		return kn_fail(KN_EDEVICE, "cuda: copy: %s", cudaGetErrorString(e));
	return KN_OK;
}

#define TR_TILE 32
#define TR_ROWS 8

__global__ void transpose_kernel(const float *x, float *y, size_t rows, size_t cols)
{
	__shared__ float t[TR_TILE][TR_TILE + 1];
	/* grid-strided over tiles: any shape fits 65535 x 65535 blocks */
	for (size_t tr = blockIdx.y; tr * TR_TILE < rows; tr += gridDim.y)
		for (size_t tc = blockIdx.x; tc * TR_TILE < cols; tc += gridDim.x) {
			size_t c = tc * TR_TILE + threadIdx.x;
			for (unsigned k = threadIdx.y; k < TR_TILE; k += TR_ROWS) {
				size_t r = tr * TR_TILE + k;
				if (r < rows && c < cols)
					t[k][threadIdx.x] = x[r * cols + c];
			}
			__syncthreads();
			size_t r = tr * TR_TILE + threadIdx.x; /* now a column of y */
			for (unsigned k = threadIdx.y; k < TR_TILE; k += TR_ROWS) {
				size_t cc = tc * TR_TILE + k;
				if (r < rows && cc < cols)
					y[cc * rows + r] = t[threadIdx.x][k];
			}
			__syncthreads(); /* t is refilled for the next tile */
		}
}

extern "C" kn_status kn_cuda_transpose(const float *x, float *y, size_t rows, size_t cols)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK || rows == 0 || cols == 0)
		return s;
	size_t gx = (cols + TR_TILE - 1) / TR_TILE, gy = (rows + TR_TILE - 1) / TR_TILE;
	dim3 grid(gx > 65535 ? 65535u : (unsigned)gx, gy > 65535 ? 65535u : (unsigned)gy);
	transpose_kernel<<<grid, dim3(TR_TILE, TR_ROWS)>>>(x, y, rows, cols);
	return launched("transpose");
}

/* The index check, on the device (idx is device memory): the first position
 * of an index outside [0, lim) by atomicMin, read back before the op is
 * launched, so a bad index writes nothing.  That read waits for the device:
 * gather and scatter_add are not asynchronous as the other ops are. */
__global__ void index_check_kernel(const int32_t *idx, size_t n, uint32_t cap, unsigned long long *first)
{
	GRID_STRIDE(i, n)
	if ((uint32_t)idx[i] >= cap)
		atomicMin(first, (unsigned long long)i);
}

static pthread_mutex_t check_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long *check_slot;
static int check_counted; /* check_slot counted in (memory.c), under check_lock */

static kn_status check_indices(const int32_t *idx, size_t n, size_t lim, const char *what)
{
	uint32_t cap = lim < ((size_t)1 << 31) ? (uint32_t)lim : (uint32_t)1 << 31;
	unsigned long long first = ULLONG_MAX;
	kn_status s = KN_OK;
	cudaError_t e = cudaSuccess;
	pthread_mutex_lock(&check_lock);
	if (!check_slot && (e = cudaMalloc((void **)&check_slot, sizeof(*check_slot))) != cudaSuccess)
		check_slot = NULL;
	else if (e == cudaSuccess && check_slot && !check_counted) {
		kn_memory_count(1, sizeof(*check_slot), 1); /* kept for good */
		check_counted = 1;
	}
	if (e == cudaSuccess)
		e = cudaMemcpy(check_slot, &first, sizeof(first), cudaMemcpyHostToDevice);
	if (e == cudaSuccess) {
		index_check_kernel<<<blocks_for(n), THREADS>>>(idx, n, cap, check_slot);
		s = launched(what);
		if (s == KN_OK)
			e = cudaMemcpy(&first, check_slot, sizeof(first), cudaMemcpyDeviceToHost);
	}
	pthread_mutex_unlock(&check_lock);
	if (s != KN_OK)
		return s;
	if (e != cudaSuccess)
		return kn_fail(KN_EDEVICE, "cuda: %s: index check: %s", what, cudaGetErrorString(e));
	if (first != ULLONG_MAX) {
		int32_t v = 0;
		cudaMemcpy(&v, idx + first, sizeof(v), cudaMemcpyDeviceToHost);
		return kn_fail(KN_EINVAL, "%s: idx[%llu] = %d is outside [0, %zu)", what, first, (int)v, lim);
	}
	return KN_OK;
}

__global__ void gather_kernel(const float *x, const int32_t *idx, float *y, size_t n)
{
	GRID_STRIDE(i, n)
	y[i] = x[idx[i]];
}

/* atomicAdd: repeated indices add in whatever order the threads come, so
 * their sums may differ in the last bit from run to run (kernels.h). */
__global__ void scatter_add_kernel(const float *x, const int32_t *idx, float *y, size_t n)
{
	GRID_STRIDE(i, n)
	atomicAdd(y + idx[i], x[i]);
}

extern "C" kn_status kn_cuda_gather(const float *x, size_t nx, const int32_t *idx, float *y, size_t n)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK || n == 0 || (s = check_indices(idx, n, nx, "gather")) != KN_OK)
		return s;
	gather_kernel<<<blocks_for(n), THREADS>>>(x, idx, y, n);
	return launched("gather");
}

extern "C" kn_status kn_cuda_scatter_add(const float *x, const int32_t *idx, size_t n, float *y, size_t ny)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK || n == 0 || (s = check_indices(idx, n, ny, "scatter_add")) != KN_OK)
		return s;
	scatter_add_kernel<<<blocks_for(n), THREADS>>>(x, idx, y, n);
	return launched("scatter_add");
}

/* ---- quant (0.11.0) ---------------------------------------------------------
 *
 * The element formulas are quant_bits.h's, compiled for the device too, so
 * quantize, dequantize and the conversions give the host backends' bits.
 * (x / s is IEEE division: this file is not built with fast math.)  The int8
 * gemm is exact in int32 like the host's; the bf16 gemm accumulates in float
 * in order of k with fmaf (each product is exact, so fmaf rounds as a
 * product then a sum would), inside kernels.h's bound.  Plain shared-memory
 * tiles: no tensor cores (cuBLAS's int8 gemm wants K a multiple of 4 and
 * its own layouts; a later release may use cublasGemmEx). */
#define QT 16

__global__ void quantize_kernel(const float *x, int8_t *q, size_t n, size_t cols, const float *s, int per_row)
{
	GRID_STRIDE(i, n)
	q[i] = kn_q8(x[i], s[per_row ? i / cols : 0]);
}

__global__ void dequantize_kernel(const int8_t *q, float *y, size_t n, size_t cols, const float *s, int per_row)
{
	GRID_STRIDE(i, n)
	y[i] = __fmul_rn((float)q[i], s[per_row ? i / cols : 0]);
}

extern "C" kn_status kn_cuda_quantize(const float *x, int8_t *q, size_t rows, size_t cols, const float *s,
				      size_t ns)
{
	kn_status st = kn_cuda_probe();
	if (st != KN_OK)
		return st;
	quantize_kernel<<<blocks_for(rows * cols), THREADS>>>(x, q, rows * cols, cols, s, ns != 1);
	return launched("quantize_i8");
}

extern "C" kn_status kn_cuda_dequantize(const int8_t *q, float *y, size_t rows, size_t cols, const float *s,
					size_t ns)
{
	kn_status st = kn_cuda_probe();
	if (st != KN_OK)
		return st;
	dequantize_kernel<<<blocks_for(rows * cols), THREADS>>>(q, y, rows * cols, cols, s, ns != 1);
	return launched("dequantize_i8");
}

/* One QT x QT tile of C per block, looping over the tiles of the grid's
 * height so any M is covered; K in QT-wide steps through shared memory. */
__global__ void qgemm_kernel(size_t M, size_t N, size_t K, const int8_t *A, size_t lda, const int8_t *B,
			     size_t ldb, int32_t *C, size_t ldc)
{
	__shared__ int32_t as[QT][QT], bs[QT][QT];
	size_t j = blockIdx.x * (size_t)QT + threadIdx.x;
	for (size_t i0 = blockIdx.y * (size_t)QT; i0 < M; i0 += (size_t)gridDim.y * QT) {
		size_t i = i0 + threadIdx.y;
		int32_t acc = 0;
		for (size_t k0 = 0; k0 < K; k0 += QT) {
			size_t ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
			as[threadIdx.y][threadIdx.x] = i < M && ka < K ? A[i * lda + ka] : 0;
			bs[threadIdx.y][threadIdx.x] = kb < K && j < N ? B[kb * ldb + j] : 0;
			__syncthreads();
			for (int k = 0; k < QT; k++)
				acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
			__syncthreads();
		}
		if (i < M && j < N)
			C[i * ldc + j] = acc;
	}
}

__global__ void bf16gemm_kernel(size_t M, size_t N, size_t K, const uint16_t *A, size_t lda, const uint16_t *B,
				size_t ldb, float *C, size_t ldc)
{
	__shared__ float as[QT][QT], bs[QT][QT];
	size_t j = blockIdx.x * (size_t)QT + threadIdx.x;
	for (size_t i0 = blockIdx.y * (size_t)QT; i0 < M; i0 += (size_t)gridDim.y * QT) {
		size_t i = i0 + threadIdx.y;
		float acc = 0.0f;
		for (size_t k0 = 0; k0 < K; k0 += QT) {
			size_t ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
			as[threadIdx.y][threadIdx.x] = i < M && ka < K ? kn_bf16_f32(A[i * lda + ka]) : 0.0f;
			bs[threadIdx.y][threadIdx.x] = kb < K && j < N ? kn_bf16_f32(B[kb * ldb + j]) : 0.0f;
			__syncthreads();
			for (int k = 0; k < QT; k++)
				acc = fmaf(as[threadIdx.y][k], bs[k][threadIdx.x], acc);
			__syncthreads();
		}
		if (i < M && j < N)
			C[i * ldc + j] = acc;
	}
}

/* N / QT blocks across (at most 2^31 - 1, far past any N a device holds),
 * at most 65535 down, the kernel looping over the rest of M. */
static kn_status lowp_grid(size_t M, size_t N, dim3 *grid, const char *what)
{
	size_t gx = (N + QT - 1) / QT, gy = (M + QT - 1) / QT;
	if (gx > INT_MAX)
		return kn_fail(KN_EINVAL, "cuda: %s: N %zu too large for a grid", what, N);
	*grid = dim3((unsigned)gx, gy > 65535 ? 65535u : (unsigned)gy);
	return KN_OK;
}

extern "C" kn_status kn_cuda_qgemm(size_t M, size_t N, size_t K, const int8_t *A, size_t lda, const int8_t *B,
				   size_t ldb, int32_t *C, size_t ldc)
{
	dim3 grid;
	kn_status s = kn_cuda_probe();
	if (s != KN_OK || (s = lowp_grid(M, N, &grid, "qgemm_i8")) != KN_OK)
		return s;
	qgemm_kernel<<<grid, dim3(QT, QT)>>>(M, N, K, A, lda, B, ldb, C, ldc);
	return launched("qgemm_i8");
}

extern "C" kn_status kn_cuda_bf16gemm(size_t M, size_t N, size_t K, const uint16_t *A, size_t lda,
				      const uint16_t *B, size_t ldb, float *C, size_t ldc)
{
	dim3 grid;
	kn_status s = kn_cuda_probe();
	if (s != KN_OK || (s = lowp_grid(M, N, &grid, "bf16gemm")) != KN_OK)
		return s;
	bf16gemm_kernel<<<grid, dim3(QT, QT)>>>(M, N, K, A, lda, B, ldb, C, ldc);
	return launched("bf16gemm");
}

__global__ void convert_kernel(int c, const void *x, void *y, size_t n)
{
	GRID_STRIDE(i, n)
	switch (c) {
	case KN_CVT_TO_BF16: ((uint16_t *)y)[i] = kn_f32_bf16(((const float *)x)[i]); break;
	case KN_CVT_FROM_BF16: ((float *)y)[i] = kn_bf16_f32(((const uint16_t *)x)[i]); break;
	case KN_CVT_TO_F16: ((uint16_t *)y)[i] = kn_f32_f16(((const float *)x)[i]); break;
	default: ((float *)y)[i] = kn_f16_f32(((const uint16_t *)x)[i]); break;
	}
}

extern "C" kn_status kn_cuda_convert(kn_cvt c, const void *x, void *y, size_t n)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK)
		return s;
	convert_kernel<<<blocks_for(n), THREADS>>>((int)c, x, y, n);
	return launched("convert");
}

/* ---- sgemm, sgemv (cuBLAS) -------------------------------------------------
 *
 * cuBLAS is column-major; a row-major M x N matrix with leading dimension ld
 * is the column-major N x M matrix of its transpose with the same ld.  So
 * row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: call
 * cublasSgemm with B first and A second, the transpose flags unchanged, and
 * M and N swapped.  The handle is created once, at the first call.
 */
static pthread_mutex_t handle_lock = PTHREAD_MUTEX_INITIALIZER;
static cublasHandle_t handle;
static cublasStatus_t handle_status = CUBLAS_STATUS_NOT_INITIALIZED;
static int handle_tried;

static kn_status cublas_fail(const char *what, cublasStatus_t st)
{
	return kn_fail(KN_EDEVICE, "cuda: %s: cuBLAS %s (%d)", what, cublasGetStatusString(st), (int)st);
}

static kn_status get_handle(const char *what)
{
	pthread_mutex_lock(&handle_lock);
	if (!handle_tried) {
		handle_status = cublasCreate(&handle);
		/* Plain fp32 arithmetic: TF32 tensor cores would miss the
		 * 2 (K + 2) eps bound the other backends meet. */
		if (handle_status == CUBLAS_STATUS_SUCCESS)
			cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);
		handle_tried = 1;
	}
	cublasStatus_t st = handle_status;
	pthread_mutex_unlock(&handle_lock);
	return st == CUBLAS_STATUS_SUCCESS ? KN_OK : cublas_fail(what, st);
}

static int fits_int(size_t a, size_t b, size_t c, size_t d, size_t e, size_t f)
{
	return a <= INT_MAX && b <= INT_MAX && c <= INT_MAX && d <= INT_MAX && e <= INT_MAX && f <= INT_MAX;
}

/* C = beta C over an M x N row-major block: the K == 0 (or empty x) case,
 * done here rather than trusting every cuBLAS version's early return.
 * beta == 0 writes zeros, so NaN in C does not survive, as documented. */
__global__ void scale_rows_kernel(float *c, size_t M, size_t N, size_t ldc, float beta)
{
	GRID_STRIDE(k, M * N) {
		float *p = c + (k / N) * ldc + k % N;
		*p = beta == 0.0f ? 0.0f : beta * *p;
	}
}

static kn_status scale_rows(float *c, size_t M, size_t N, size_t ldc, float beta, const char *what)
{
	scale_rows_kernel<<<blocks_for(M * N), THREADS>>>(c, M, N, ldc, beta);
	return launched(what);
}

extern "C" kn_status kn_cuda_sgemm(int ta, int tb, size_t M, size_t N, size_t K, float alpha, const float *A,
				   size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK)
		return s;
	if (K == 0)
		return scale_rows(C, M, N, ldc, beta, "sgemm");
	if (!fits_int(M, N, K, lda, ldb, ldc))
		return kn_fail(KN_EUNSUPPORTED, "cuda: sgemm: a dimension over INT_MAX (cuBLAS takes int)");
	if ((s = get_handle("sgemm")) != KN_OK)
		return s;
	cublasStatus_t st = cublasSgemm(handle, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
					(int)N, (int)M, (int)K, &alpha, B, (int)ldb, A, (int)lda, &beta, C,
					(int)ldc);
	if (st != CUBLAS_STATUS_SUCCESS)
		return cublas_fail("sgemm", st);
	return launched("sgemm");
}

/* Row-major A (M x N, lda) is column-major A^T (N x M): y = A x is
 * y = (A^T)^T x, CUBLAS_OP_T; y = A^T x is CUBLAS_OP_N. */
extern "C" kn_status kn_cuda_sgemv(int ta, size_t M, size_t N, float alpha, const float *A, size_t lda,
				   const float *x, float beta, float *y)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK)
		return s;
	size_t ylen = ta ? N : M, xlen = ta ? M : N;
	/* An empty sum: y = beta y (BLAS would return without scaling y). */
	if (xlen == 0)
		return scale_rows(y, 1, ylen, ylen, beta, "sgemv");
	if (!fits_int(M, N, lda, 0, 0, 0))
		return kn_fail(KN_EUNSUPPORTED, "cuda: sgemv: a dimension over INT_MAX (cuBLAS takes int)");
	if ((s = get_handle("sgemv")) != KN_OK)
		return s;
	cublasStatus_t st = cublasSgemv(handle, ta ? CUBLAS_OP_N : CUBLAS_OP_T, (int)N, (int)M, &alpha, A,
					(int)lda, x, 1, &beta, y, 1);
	if (st != CUBLAS_STATUS_SUCCESS)
		return cublas_fail("sgemv", st);
	return launched("sgemv");
}

/* ---- memory ---------------------------------------------------------------- */

static pthread_mutex_t sizes_lock = PTHREAD_MUTEX_INITIALIZER;
static std::unordered_map<void *, size_t> block_sizes; /* kn_alloc's device blocks */

extern "C" kn_status kn_cuda_alloc(size_t bytes, void **out)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK)
		return s;
	size_t asked = bytes ? bytes : 4;
	cudaError_t e = cudaMalloc(out, asked);
	if (e != cudaSuccess) {
		*out = NULL;
		return kn_fail(KN_ENOMEM, "cuda: cudaMalloc %zu bytes: %s", bytes, cudaGetErrorString(e));
	}
	/* Device blocks have no header the host could read: their sizes are
	 * kept here, for kn_free to count them out (memory.c). */
	pthread_mutex_lock(&sizes_lock);
	try {
		block_sizes[*out] = asked;
	} catch (...) {
		pthread_mutex_unlock(&sizes_lock);
		cudaFree(*out);
		*out = NULL;
		return kn_fail(KN_ENOMEM, "cuda: no host memory to record a %zu-byte block", bytes);
	}
	pthread_mutex_unlock(&sizes_lock);
	kn_memory_count(1, asked, 1);
	return KN_OK;
}

extern "C" void kn_cuda_free(void *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&sizes_lock);
	std::unordered_map<void *, size_t>::iterator it = block_sizes.find(p);
	size_t bytes = 0;
	if (it != block_sizes.end()) {
		bytes = it->second;
		block_sizes.erase(it);
	}
	pthread_mutex_unlock(&sizes_lock);
	cudaFree(p);
	if (bytes)
		kn_memory_count(1, bytes, 0);
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

/* ---- conv2d, depthwise conv2d, pooling -----------------------------------
 *
 * Direct kernels, one thread per output element over a grid-strided loop
 * (cuDNN is not a dependency).  The thread's output index is decoded in the
 * output's own layout, so consecutive threads write consecutive floats:
 * along ox for NCHW (x read along ix too), along the channel for NHWC (the
 * HWIO weights and x read along the channel too). */
__device__ static inline size_t conv_at(const kn_conv2d_params &p, size_t ci, size_t iy, size_t ix)
{
	return p.layout == KN_NCHW ? (ci * p.h + iy) * p.w + ix : (iy * p.w + ix) * p.c + ci;
}

/* Decodes output element i of p's output (k channels) into n, ch, oy, ox. */
__device__ static inline void conv_out_pos(const kn_conv2d_params &p, size_t k, size_t oh, size_t ow, size_t i,
					   size_t *n, size_t *ch, size_t *oy, size_t *ox)
{
	if (p.layout == KN_NCHW) {
		*ox = i % ow, i /= ow;
		*oy = i % oh, i /= oh;
		*ch = i % k, *n = i / k;
	} else {
		*ch = i % k, i /= k;
		*ox = i % ow, i /= ow;
		*oy = i % oh, *n = i / oh;
	}
}

__global__ void conv2d_kernel(kn_conv2d_params p, size_t oh, size_t ow, const float *x, const float *wt, float *y,
			      size_t total)
{
	GRID_STRIDE(i, total)
	{
		size_t n, k, oy, ox;
		conv_out_pos(p, p.k, oh, ow, i, &n, &k, &oy, &ox);
		const float *xi = x + n * p.c * p.h * p.w;
		float acc = 0.0f;
		for (size_t r = 0; r < p.r; r++) {
			size_t iy = oy * p.stride + r;
			if (iy < p.pad || iy - p.pad >= p.h)
				continue;
			for (size_t s = 0; s < p.s; s++) {
				size_t ix = ox * p.stride + s;
				if (ix < p.pad || ix - p.pad >= p.w)
					continue;
				for (size_t ci = 0; ci < p.c; ci++) {
					float wv = p.layout == KN_NCHW ? wt[((k * p.c + ci) * p.r + r) * p.s + s]
								       : wt[((r * p.s + s) * p.c + ci) * p.k + k];
					acc = fmaf(wv, xi[conv_at(p, ci, iy - p.pad, ix - p.pad)], acc);
				}
			}
		}
		y[i] = acc;
	}
}

__global__ void dwconv2d_kernel(kn_conv2d_params p, size_t oh, size_t ow, const float *x, const float *wt, float *y,
				size_t total)
{
	GRID_STRIDE(i, total)
	{
		size_t n, ci, oy, ox;
		conv_out_pos(p, p.c, oh, ow, i, &n, &ci, &oy, &ox);
		const float *xi = x + n * p.c * p.h * p.w;
		float acc = 0.0f;
		for (size_t r = 0; r < p.r; r++) {
			size_t iy = oy * p.stride + r;
			if (iy < p.pad || iy - p.pad >= p.h)
				continue;
			for (size_t s = 0; s < p.s; s++) {
				size_t ix = ox * p.stride + s;
				if (ix < p.pad || ix - p.pad >= p.w)
					continue;
				float wv = p.layout == KN_NCHW ? wt[(ci * p.r + r) * p.s + s] : wt[(r * p.s + s) * p.c + ci];
				acc = fmaf(wv, xi[conv_at(p, ci, iy - p.pad, ix - p.pad)], acc);
			}
		}
		y[i] = acc;
	}
}

__global__ void pool2d_kernel(int mx, kn_conv2d_params p, size_t oh, size_t ow, const float *x, float *y, size_t total)
{
	GRID_STRIDE(i, total)
	{
		size_t n, ci, oy, ox;
		conv_out_pos(p, p.c, oh, ow, i, &n, &ci, &oy, &ox);
		const float *xi = x + n * p.c * p.h * p.w;
		float m = -INFINITY, sum = 0.0f;
		size_t cnt = 0;
		for (size_t r = 0; r < p.r; r++) {
			size_t iy = oy * p.stride + r;
			if (iy < p.pad || iy - p.pad >= p.h)
				continue;
			for (size_t s = 0; s < p.s; s++) {
				size_t ix = ox * p.stride + s;
				if (ix < p.pad || ix - p.pad >= p.w)
					continue;
				float v = xi[conv_at(p, ci, iy - p.pad, ix - p.pad)];
				/* NaN kept: once m is NaN, v > m is false */
				if (v > m || v != v)
					m = m != m ? m : v;
				sum += v;
				cnt++;
			}
		}
		y[i] = mx ? m : sum / (float)cnt;
	}
}

extern "C" kn_status kn_cuda_conv2d(const kn_conv2d_params *p, const float *x, const float *wt, float *y)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK)
		return s;
	size_t oh = kn_conv_oh(p), ow = kn_conv_ow(p), total = p->n * p->k * oh * ow;
	conv2d_kernel<<<blocks_for(total), THREADS>>>(*p, oh, ow, x, wt, y, total);
	return launched("conv2d");
}

extern "C" kn_status kn_cuda_dwconv2d(const kn_conv2d_params *p, const float *x, const float *wt, float *y)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK)
		return s;
	size_t oh = kn_conv_oh(p), ow = kn_conv_ow(p), total = p->n * p->c * oh * ow;
	dwconv2d_kernel<<<blocks_for(total), THREADS>>>(*p, oh, ow, x, wt, y, total);
	return launched("dwconv2d");
}

extern "C" kn_status kn_cuda_pool2d(kn_pool_op op, const kn_conv2d_params *p, const float *x, float *y)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK)
		return s;
	size_t oh = kn_conv_oh(p), ow = kn_conv_ow(p), total = p->n * p->c * oh * ow;
	pool2d_kernel<<<blocks_for(total), THREADS>>>(op == KN_POOL_MAX, *p, oh, ow, x, y, total);
	return launched("pool2d");
}

/* ---- attention (0.14.0) -----------------------------------------------------
 * Head by head: the scores of all seq query rows (cuBLAS), their softmax,
 * their product with v (cuBLAS), in a scores buffer kept between calls (it
 * only grows: cudaMalloc per call would synchronise the device).  Every step
 * is launched on the default stream, in order, so the buffer is reused only
 * once the previous head's product has read it; the lock keeps two host
 * threads from sharing it. */
static pthread_mutex_t att_lock = PTHREAD_MUTEX_INITIALIZER;
static float *att_scores;
static size_t att_floats;

extern "C" kn_status kn_cuda_attention(const float *q, const float *k, const float *v, size_t ld, float *o,
				       size_t ldo, size_t seq, size_t heads, size_t dh, float scale)
{
	kn_status s = kn_cuda_probe();
	if (s != KN_OK)
		return s;
	pthread_mutex_lock(&att_lock);
	if (att_floats < seq * seq) {
		if (att_scores) {
			cudaFree(att_scores);
			kn_memory_count(1, att_floats * sizeof(float), 0); /* out of kn_memory_get's device count */
		}
		att_scores = NULL, att_floats = 0;
		if (seq > SIZE_MAX / sizeof(float) / seq) {
			pthread_mutex_unlock(&att_lock);
			return kn_fail(KN_ENOMEM, "cuda: attention: %zu x %zu scores overflow", seq, seq);
		}
		cudaError_t e = cudaMalloc((void **)&att_scores, seq * seq * sizeof(float));
		if (e != cudaSuccess) {
			att_scores = NULL;
			pthread_mutex_unlock(&att_lock);
			return kn_fail(KN_ENOMEM, "cuda: attention: %zu x %zu scores: %s", seq, seq,
				       cudaGetErrorString(e));
		}
		att_floats = seq * seq;
		kn_memory_count(1, att_floats * sizeof(float), 1);
	}
	for (size_t h = 0; h < heads && s == KN_OK; h++) {
		s = kn_cuda_sgemm(0, 1, seq, seq, dh, scale, q + h * dh, ld, k + h * dh, ld, 0.0f, att_scores, seq);
		if (s == KN_OK)
			s = kn_cuda_softmax(att_scores, att_scores, seq, seq, 0);
		if (s == KN_OK)
			s = kn_cuda_sgemm(0, 0, seq, dh, seq, 1.0f, att_scores, seq, v + h * dh, ld, 0.0f, o + h * dh,
					  ldo);
	}
	pthread_mutex_unlock(&att_lock);
	return s;
}
