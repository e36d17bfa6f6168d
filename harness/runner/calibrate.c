/*
 * calibrate.c - one core's copy and read bandwidth and peak f32 FLOP rate.
 *
 * Each figure is the best of several repetitions: a peak is what the machine
 * can do, and noise only ever makes a run slower (below: best per chunk).  Bandwidth counts the bytes
 * a loop moves (a copy reads and writes, so 2 bytes per byte copied) over
 * buffers far larger than the last-level cache.  The FLOP peak runs
 * independent fused multiply-add chains in the widest vectors the CPU has,
 * chosen at run time.
 */
#include "calibrate.h"

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUF_FLOATS (32u << 20) /* 128 MiB per buffer */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Eight independent accumulators in the widest vectors the CPU has, so the
 * loop is limited by memory, not by the adds (a generic vector loop reached
 * only about half the read bandwidth on the project's machine). */
__attribute__((target("avx512f"))) static float read_avx512(const float *x, size_t n)
{
	__m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
	for (size_t i = 0; i + 128 <= n; i += 128) {
		s0 = _mm512_add_ps(s0, _mm512_load_ps(x + i)), s1 = _mm512_add_ps(s1, _mm512_load_ps(x + i + 16));
		s2 = _mm512_add_ps(s2, _mm512_load_ps(x + i + 32)), s3 = _mm512_add_ps(s3, _mm512_load_ps(x + i + 48));
		s4 = _mm512_add_ps(s4, _mm512_load_ps(x + i + 64)), s5 = _mm512_add_ps(s5, _mm512_load_ps(x + i + 80));
		s6 = _mm512_add_ps(s6, _mm512_load_ps(x + i + 96)), s7 = _mm512_add_ps(s7, _mm512_load_ps(x + i + 112));
	}
	s0 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)),
			   _mm512_add_ps(_mm512_add_ps(s4, s5), _mm512_add_ps(s6, s7)));
	return _mm512_reduce_add_ps(s0);
}

__attribute__((target("avx2"))) static float read_avx2(const float *x, size_t n)
{
	__m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
	for (size_t i = 0; i + 32 <= n; i += 32) {
		s0 = _mm256_add_ps(s0, _mm256_load_ps(x + i)), s1 = _mm256_add_ps(s1, _mm256_load_ps(x + i + 8));
		s2 = _mm256_add_ps(s2, _mm256_load_ps(x + i + 16)), s3 = _mm256_add_ps(s3, _mm256_load_ps(x + i + 24));
	}
	float out[8];
	_mm256_storeu_ps(out, _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
	return out[0] + out[7];
}

static float read_sum(const float *a, size_t n)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return read_avx512(a, n);
	if (__builtin_cpu_supports("avx2"))
		return read_avx2(a, n);
	float t = 0;
	for (size_t i = 0; i < n; i++)
		t += a[i];
	return t;
}

#define CHAINS 12
/* Twelve named accumulators (an array would live in memory at -O2). */
#define FMA_BODY(T, set1, fmadd, add, store, lanes)                                                \
	T m = set1(0.999999f), c = set1(1e-7f);                                                    \
	T a0 = set1(0), a1 = set1(1), a2 = set1(2), a3 = set1(3), a4 = set1(4), a5 = set1(5);      \
	T a6 = set1(6), a7 = set1(7), a8 = set1(8), a9 = set1(9), a10 = set1(10), a11 = set1(11);  \
	for (long i = 0; i < iters; i++) {                                                         \
		a0 = fmadd(a0, m, c), a1 = fmadd(a1, m, c), a2 = fmadd(a2, m, c);                  \
		a3 = fmadd(a3, m, c), a4 = fmadd(a4, m, c), a5 = fmadd(a5, m, c);                  \
		a6 = fmadd(a6, m, c), a7 = fmadd(a7, m, c), a8 = fmadd(a8, m, c);                  \
		a9 = fmadd(a9, m, c), a10 = fmadd(a10, m, c), a11 = fmadd(a11, m, c);              \
	}                                                                                          \
	T s = add(add(add(a0, a1), add(a2, a3)), add(add(a4, a5), add(a6, a7)));                   \
	s = add(s, add(add(a8, a9), add(a10, a11)));                                               \
	float out[lanes];                                                                          \
	store(out, s);                                                                             \
	sink += out[0];                                                                            \
	return 2.0 * (lanes) * CHAINS * (double)iters;

static volatile float sink;

__attribute__((target("avx512f"))) static double fma_avx512(long iters)
{
	FMA_BODY(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps, _mm512_storeu_ps, 16)
}

__attribute__((target("avx2,fma"))) static double fma_avx2(long iters)
{
	FMA_BODY(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps, _mm256_storeu_ps, 8)
}

/* Without FMA a multiply and an add are two operations, as counted. */
static inline __m128 mul_add(__m128 a, __m128 m, __m128 c) { return _mm_add_ps(_mm_mul_ps(a, m), c); }

static double fma_sse(long iters)
{
	FMA_BODY(__m128, _mm_set1_ps, mul_add, _mm_add_ps, _mm_storeu_ps, 4)
}

/* Each figure is the best of many short timings, added up: on a loaded
 * machine a long timing is nearly always preempted somewhere (128 MiB
 * copied in one go, best of 5, gave 1.4-2.8 GB/s at load 10 on 2 vCPUs where
 * the machine copies 19), while a short one usually is not; taking each
 * chunk's fastest pass over many passes keeps the method's meaning (what
 * the machine can do) and loses the preemptions.  Each chunk is still cold
 * when timed: the whole 128 MiB streams through the caches between two
 * visits to it. */
#define CHUNKS 16
#define PASSES 12
#define FMA_REPS 40
#define FMA_ITERS 400000

cJSON *bv_calibrate(void)
{
	cJSON *o = cJSON_CreateObject();
	float *a = aligned_alloc(64, BUF_FLOATS * sizeof(float));
	float *b = aligned_alloc(64, BUF_FLOATS * sizeof(float));
	if (a && b) {
		for (size_t i = 0; i < BUF_FLOATS; i++)
			a[i] = (float)(i & 1023), b[i] = 0;
		const size_t chunk = BUF_FLOATS / CHUNKS;
		double copy_s[CHUNKS], read_s[CHUNKS];
		for (int k = 0; k < CHUNKS; k++)
			copy_s[k] = read_s[k] = 1e30;
		for (int r = 0; r < PASSES; r++) {
			/* All the copies, then all the reads of what was copied:
			 * a chunk read right after its copy would come from the
			 * cache. */
			for (int k = 0; k < CHUNKS; k++) {
				double t0 = now_s();
				memcpy(b + k * chunk, a + k * chunk, chunk * sizeof(float));
				double t = now_s() - t0;
				copy_s[k] = t < copy_s[k] ? t : copy_s[k];
			}
			for (int k = 0; k < CHUNKS; k++) {
				double t0 = now_s();
				sink += read_sum(b + k * chunk, chunk);
				double t = now_s() - t0;
				read_s[k] = t < read_s[k] ? t : read_s[k];
			}
		}
		double copy_t = 0, read_t = 0;
		for (int k = 0; k < CHUNKS; k++)
			copy_t += copy_s[k], read_t += read_s[k];
		cJSON_AddNumberToObject(o, "copy_gbps", 2.0 * BUF_FLOATS * sizeof(float) / copy_t / 1e9);
		cJSON_AddNumberToObject(o, "read_gbps", (double)BUF_FLOATS * sizeof(float) / read_t / 1e9);
		cJSON_AddNumberToObject(o, "buffer_bytes", (double)BUF_FLOATS * sizeof(float));
	}
	free(a);
	free(b);

	const char *isa = "sse";
	double (*fma)(long) = fma_sse;
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		isa = "avx512f", fma = fma_avx512;
	else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		isa = "avx2+fma", fma = fma_avx2;
	double best = 0;
	for (int r = 0; r < FMA_REPS; r++) {
		double t0 = now_s();
		double flops = fma(FMA_ITERS);
		double g = flops / (now_s() - t0) / 1e9;
		best = g > best ? g : best;
	}
	cJSON_AddNumberToObject(o, "peak_gflops", best);
	cJSON_AddStringToObject(o, "isa", isa);
	cJSON_AddStringToObject(o, "method", "one core; each 8 MiB chunk's fastest of 12 passes, summed: memcpy of "
					     "128 MiB (read + write bytes), AVX-512/AVX2 sum of 128 MiB; best of 40 "
					     "runs of 12 independent FMA chains");
	return o;
}
