/*
 * speed_cuda.cu - the cuda backend's speed targets, as ratios measured in one
 * run on one device (make speed-cuda; tests/gpu/check.sh runs it on a GPU
 * machine).  Each figure times the library's call against what the device
 * itself does for the same bytes or the same product:
 *
 *   elementwise 16M    bytes moved per second over cudaMemcpy's device-to-
 *                      device copy bandwidth (read + write)      >= 0.85
 *   sgemm 4096^3       cublasSgemm called directly, over kn_sgemm (the same
 *                      call underneath: only the wrapper's cost) >= 0.95
 *   softmax, norms     two read passes of x (a plain read kernel) over the
 *                      call, as speed.c measures the host paths  >= 0.70 / 0.80
 *   encoder layer      the layer's calls in order over the sum of each call
 *                      timed alone (no hidden cost between calls) <= 1.3
 *
 * Times come from CUDA events around a batch of calls (a batch of at least
 * about 2 ms, so launch latency is counted per call, as a caller pays it),
 * the best of 11 batches; the two sides of a ratio are timed in alternation
 * so that clocks ramping up fall on both.  Without a device the program says
 * why and exits 77 (a skip, never a pass).
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "kernels.h"
}

#define CUDA_B KN_BACKEND_CUDA
#define BATCHES 11

static int fails, checks;

static void die(const char *what, const char *why)
{
	fprintf(stderr, "speed_cuda: %s: %s\n", what, why);
	exit(1);
}

static void ck(cudaError_t e, const char *what)
{
	if (e != cudaSuccess)
		die(what, cudaGetErrorString(e));
}

static void kn_ck(kn_status s, const char *what)
{
	if (s != KN_OK)
		die(what, kn_last_error());
}

static void report(const char *what, double value, const char *unit, double target, int higher_is_better)
{
	int pass = higher_is_better ? value >= target : value <= target;
	fails += !pass;
	checks++;
	printf("%-48s %8.3f %-6s target %s %6.3f  %s\n", what, value, unit, higher_is_better ? ">=" : "<=", target,
	       pass ? "PASS" : "FAIL");
	fflush(stdout);
}

typedef void (*job_fn)(void *ctx);

/* Seconds per call of fn, timed by events around `calls` calls. */
static double batch(job_fn fn, void *ctx, long calls)
{
	cudaEvent_t a, b;
	ck(cudaEventCreate(&a), "event");
	ck(cudaEventCreate(&b), "event");
	ck(cudaEventRecord(a, 0), "event record");
	for (long i = 0; i < calls; i++)
		fn(ctx);
	ck(cudaEventRecord(b, 0), "event record");
	ck(cudaEventSynchronize(b), "event sync");
	float ms = 0;
	ck(cudaEventElapsedTime(&ms, a, b), "event time");
	cudaEventDestroy(a), cudaEventDestroy(b);
	ck(cudaGetLastError(), "a timed call");
	return ms * 1e-3 / (double)calls;
}

static long calls_for(job_fn fn, void *ctx)
{
	fn(ctx), fn(ctx); /* warm: lazy module load, cuBLAS handle, clocks */
	ck(cudaDeviceSynchronize(), "warm");
	double one = batch(fn, ctx, 3);
	long calls = (long)(2e-3 / (one > 1e-7 ? one : 1e-7)) + 1;
	return calls > 10000 ? 10000 : calls;
}

/* The best seconds per call of fa and of fb, their batches alternated. */
static void best_pair(job_fn fa, void *ca, job_fn fb, void *cb, double *ta, double *tb)
{
	long na = calls_for(fa, ca), nb = calls_for(fb, cb);
	*ta = *tb = INFINITY;
	for (int r = 0; r < BATCHES; r++) {
		double t = batch(fa, ca, na);
		*ta = t < *ta ? t : *ta;
		t = batch(fb, cb, nb);
		*tb = t < *tb ? t : *tb;
	}
}

static double best(job_fn fn, void *ctx)
{
	long n = calls_for(fn, ctx);
	double b = INFINITY;
	for (int r = 0; r < BATCHES; r++) {
		double t = batch(fn, ctx, n);
		b = t < b ? t : b;
	}
	return b;
}

static float *dev(size_t n, float lo, float hi, unsigned seed)
{
	float *h = (float *)malloc(n * sizeof(float));
	void *d = NULL;
	if (!h)
		die("host buffer", "out of memory");
	unsigned s = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		s = s * 1664525u + 1013904223u;
		h[i] = lo + (hi - lo) * (float)(s >> 8) / 16777216.0f;
	}
	kn_ck(kn_alloc(CUDA_B, n * sizeof(float), &d), "kn_alloc");
	kn_ck(kn_copy_in(CUDA_B, d, h, n * sizeof(float)), "kn_copy_in");
	free(h);
	return (float *)d;
}

/* ---- the device's own figures ---------------------------------------------- */

/* One read of x: float4 loads, one sum per block written so the loads stay. */
__global__ void read_kernel(const float4 *x, size_t n4, float *out)
{
	float s = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
		float4 v = x[i];
		s += v.x + v.y + v.z + v.w;
	}
	if (s == 12345.678f) /* never, but the compiler cannot know */
		out[blockIdx.x] = s;
}

typedef struct ctx {
	float *x, *x2, *y, *g, *be, *sink;
	size_t n, m, cols;
	kn_unary_op uop;
	kn_binary_op bop;
	cublasHandle_t h;
	int sms;
} ctx;

static void j_memcpy(void *p)
{
	ctx *c = (ctx *)p;
	ck(cudaMemcpyAsync(c->y, c->x, c->n * sizeof(float), cudaMemcpyDeviceToDevice, 0), "memcpy");
}
static void j_read(void *p)
{
	ctx *c = (ctx *)p;
	read_kernel<<<c->sms * 8, 256>>>((const float4 *)c->x, c->n / 4, c->sink);
}
static void j_unary(void *p)
{
	ctx *c = (ctx *)p;
	kn_unary(CUDA_B, c->uop, c->x, c->y, c->n);
}
static void j_binary(void *p)
{
	ctx *c = (ctx *)p;
	kn_binary(CUDA_B, c->bop, c->x, c->x2, c->y, c->n);
}
static void j_softmax(void *p)
{
	ctx *c = (ctx *)p;
	kn_softmax(CUDA_B, c->x, c->y, c->m, c->cols);
}
static void j_layernorm(void *p)
{
	ctx *c = (ctx *)p;
	kn_layernorm(CUDA_B, c->x, c->g, c->be, c->y, c->m, c->cols, 1e-5f);
}
static void j_rmsnorm(void *p)
{
	ctx *c = (ctx *)p;
	kn_rmsnorm(CUDA_B, c->x, c->g, c->y, c->m, c->cols, 1e-5f);
}
static void j_sgemm(void *p)
{
	ctx *c = (ctx *)p;
	size_t n = c->m;
	kn_sgemm(CUDA_B, 0, 0, n, n, n, 1.0f, c->x, n, c->x2, n, 0.0f, c->y, n);
}
/* The same product through cuBLAS directly: row-major C = A B is column-
 * major C^T = B^T A^T (cuda.cu's mapping), on a handle of its own with the
 * same default (fp32, no TF32) math mode. */
static void j_cublas(void *p)
{
	ctx *c = (ctx *)p;
	int n = (int)c->m;
	float one = 1, zero = 0;
	if (cublasSgemm(c->h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, c->x2, n, c->x, n, &zero, c->y, n) !=
	    CUBLAS_STATUS_SUCCESS)
		die("cublasSgemm", "failed");
}

/* ---- an encoder layer: its calls in order against each call alone ----------
 * The shapes and steps of speed.c's layer (harness/plugin/plugin.c's model group):
 * QKV projection, attention per sequence, output projection, residual add,
 * layernorm, the 4d MLP with gelu, add, layernorm; linear layers as a K = 1
 * product with ones for the bias, then the product. */
typedef struct step {
	int kind; /* 0 gemm, 1 gelu, 2 add, 3 layernorm, 4 attention */
	size_t m, n, k, lda, ldb, ldc;
	float alpha, beta;
	const float *a, *b, *g, *be;
	float *c;
} step;

typedef struct layer {
	step s[64];
	size_t n, at;
} layer;

static void run_step(const step *s)
{
	switch (s->kind) {
	case 0: kn_sgemm(CUDA_B, 0, 0, s->m, s->n, s->k, s->alpha, s->a, s->lda, s->b, s->ldb, s->beta, s->c, s->ldc); break;
	case 1: kn_unary(CUDA_B, KN_GELU, s->a, s->c, s->m * s->n); break;
	case 2: kn_binary(CUDA_B, KN_ADD, s->a, s->b, s->c, s->m * s->n); break;
	case 3: kn_layernorm(CUDA_B, s->a, s->g, s->be, s->c, s->m, s->n, 1e-5f); break;
	default:
		kn_attention(CUDA_B, s->a, s->a + s->n * s->k, s->a + 2 * s->n * s->k, s->lda, s->c, s->ldc, s->m, s->n,
			     s->k, s->alpha);
	}
}
static void j_layer(void *p)
{
	layer *l = (layer *)p;
	for (size_t i = 0; i < l->n; i++)
		run_step(&l->s[i]);
}
static void j_step(void *p)
{
	layer *l = (layer *)p;
	run_step(&l->s[l->at]);
}
static void add(layer *l, step s)
{
	if (l->n == sizeof(l->s) / sizeof(l->s[0]))
		die("layer", "too many steps");
	l->s[l->n++] = s;
}
static void linear(layer *l, const float *x, const float *w, const float *bias, const float *ones, float *y,
		   size_t rows, size_t in, size_t out)
{
	add(l, (step){0, rows, out, 1, 1, out, out, 1.0f, 0.0f, ones, bias, NULL, NULL, y});
	add(l, (step){0, rows, out, in, in, out, out, 1.0f, 1.0f, x, w, NULL, NULL, y});
}

static double layer_ratio(size_t seq, size_t d, size_t batch_n, double *layer_s)
{
	size_t t = seq * batch_n, f = 4 * d, heads = d / 64, dh = 64, ld = 3 * d;
	unsigned sd = 20;
	float *x = dev(t * d, -1, 1, sd++), *ones = dev(t > f ? t : f, 1, 1, sd++);
	float *wqkv = dev(d * ld, -0.06f, 0.06f, sd++), *bqkv = dev(ld, -0.1f, 0.1f, sd++);
	float *wo = dev(d * d, -0.06f, 0.06f, sd++), *bo = dev(d, -0.1f, 0.1f, sd++);
	float *w1 = dev(d * f, -0.06f, 0.06f, sd++), *c1 = dev(f, -0.1f, 0.1f, sd++);
	float *w2 = dev(f * d, -0.03f, 0.03f, sd++), *c2 = dev(d, -0.1f, 0.1f, sd++);
	float *g = dev(d, 0.5f, 1.5f, sd++), *be = dev(d, -0.5f, 0.5f, sd++);
	float *qkv = dev(t * ld, 0, 0, sd++), *ctxb = dev(t * d, 0, 0, sd++), *a1 = dev(t * d, 0, 0, sd++);
	float *x1 = dev(t * d, 0, 0, sd++), *h = dev(t * f, 0, 0, sd++), *a2 = dev(t * d, 0, 0, sd++);
	float *y = dev(t * d, 0, 0, sd++);
	layer *l = (layer *)calloc(1, sizeof(*l));
	if (!l)
		die("layer", "out of memory");
	linear(l, x, wqkv, bqkv, ones, qkv, t, d, ld);
	for (size_t s = 0; s < batch_n; s++)
		add(l, (step){4, seq, heads, dh, ld, 0, d, 0.125f, 0.0f, qkv + s * seq * ld, NULL, NULL, NULL,
			      ctxb + s * seq * d});
	linear(l, ctxb, wo, bo, ones, a1, t, d, d);
	add(l, (step){2, t, d, 0, 0, 0, 0, 0, 0, a1, x, NULL, NULL, a1});
	add(l, (step){3, t, d, 0, 0, 0, 0, 0, 0, a1, NULL, g, be, x1});
	linear(l, x1, w1, c1, ones, h, t, d, f);
	add(l, (step){1, t, f, 0, 0, 0, 0, 0, 0, h, NULL, NULL, NULL, h});
	linear(l, h, w2, c2, ones, a2, t, f, d);
	add(l, (step){2, t, d, 0, 0, 0, 0, 0, 0, a2, x1, NULL, NULL, a2});
	add(l, (step){3, t, d, 0, 0, 0, 0, 0, 0, a2, NULL, g, be, y});
	double sum = 0;
	*layer_s = best(j_layer, l);
	for (l->at = 0; l->at < l->n; l->at++)
		sum += best(j_step, l);
	free(l);
	float *all[] = {x, ones, wqkv, bqkv, wo, bo, w1, c1, w2, c2, g, be, qkv, ctxb, a1, x1, h, a2, y};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		kn_free(CUDA_B, all[i]);
	return *layer_s / sum;
}

int main(void)
{
	printf("kernels %s, cuda backend\n", kn_version());
	if (kn_backend_probe(CUDA_B) != KN_OK) {
		printf("cuda backend unavailable: %s\nno cuda figures (skipped)\n", kn_last_error());
		return 77;
	}
	cudaDeviceProp prop;
	int devno = 0, rt = 0, drv = 0;
	ck(cudaGetDevice(&devno), "device");
	ck(cudaGetDeviceProperties(&prop, devno), "device properties");
	cudaRuntimeGetVersion(&rt), cudaDriverGetVersion(&drv);
	printf("device: %s, %d SMs, %.1f GiB, L2 %.0f MiB, compute %d.%d; runtime %d, driver %d\n", prop.name,
	       prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0, prop.l2CacheSize / 1048576.0, prop.major,
	       prop.minor, rt, drv);

	const size_t N = 16u << 20; /* 64 MB a buffer: beyond L2 with the other two */
	ctx c;
	memset(&c, 0, sizeof(c));
	c.sms = prop.multiProcessorCount;
	c.n = N;
	c.x = dev(N, -10, 10, 1), c.x2 = dev(N, 0.5f, 10, 2), c.y = dev(N, 0, 1, 3);
	ck(cudaMalloc(&c.sink, 65536 * sizeof(float)), "sink");
	double bytes = (double)N * sizeof(float), t_copy, t_op;

	/* Elementwise against the device's own copy: bytes read and written
	 * per second, the copy's counted the same way. */
	static const struct {
		const char *name;
		int binary;
		int op;
	} elem[] = {{"relu", 0, KN_RELU}, {"exp", 0, KN_EXP}, {"gelu", 0, KN_GELU}, {"add", 1, KN_ADD},
		    {"mul", 1, KN_MUL}};
	for (size_t i = 0; i < sizeof(elem) / sizeof(elem[0]); i++) {
		char what[96];
		c.uop = (kn_unary_op)elem[i].op, c.bop = (kn_binary_op)elem[i].op;
		best_pair(j_memcpy, &c, elem[i].binary ? j_binary : j_unary, &c, &t_copy, &t_op);
		double streams = elem[i].binary ? 3 : 2;
		if (i == 0)
			printf("device copy (cudaMemcpy, 16M floats): %.0f GB/s read + write\n", 2 * bytes / t_copy / 1e9);
		snprintf(what, sizeof(what), "cuda %s 16M, share of copy bandwidth", elem[i].name);
		report(what, streams * bytes / t_op / (2 * bytes / t_copy), "", 0.85, 1);
	}

	/* Softmax and the norms against two read passes of x, at the bench's
	 * 1024 x 4096 (16 MB: it stays in L2) and at 8192 x 4096 (128 MB:
	 * from memory), the read pass over the same buffer. */
	static const size_t rows[] = {1024, 8192};
	float *big = dev(8192 * 4096, -4, 4, 4), *bigy = dev(8192 * 4096, 0, 0, 5);
	c.g = dev(4096, 0.5f, 1.5f, 6), c.be = dev(4096, -0.5f, 0.5f, 7);
	for (size_t r = 0; r < 2; r++) {
		ctx s = c;
		s.x = big, s.y = bigy, s.m = rows[r], s.cols = 4096, s.n = rows[r] * 4096;
		double t_read, t;
		char what[96];
		struct {
			const char *name;
			job_fn fn;
			double target;
		} rowwise[] = {{"softmax", j_softmax, 0.70}, {"layernorm", j_layernorm, 0.80}, {"rmsnorm", j_rmsnorm, 0.80}};
		for (size_t k = 0; k < 3; k++) {
			best_pair(j_read, &s, rowwise[k].fn, &s, &t_read, &t);
			snprintf(what, sizeof(what), "cuda %s %zux4096, share of 2 read passes", rowwise[k].name, rows[r]);
			report(what, 2 * t_read / t, "", rowwise[k].target, 1);
		}
	}
	kn_free(CUDA_B, big), kn_free(CUDA_B, bigy);

	/* sgemm 4096^3 against cuBLAS itself. */
	{
		ctx g = c;
		g.m = 4096;
		float *A = dev(4096 * 4096, -1, 1, 8), *B = dev(4096 * 4096, -1, 1, 9), *C = dev(4096 * 4096, 0, 0, 10);
		g.x = A, g.x2 = B, g.y = C;
		if (cublasCreate(&g.h) != CUBLAS_STATUS_SUCCESS)
			die("cublasCreate", "failed");
		cublasSetMathMode(g.h, CUBLAS_DEFAULT_MATH);
		double t_lib, t_cublas;
		best_pair(j_sgemm, &g, j_cublas, &g, &t_lib, &t_cublas);
		printf("cuda sgemm 4096^3: %.1f TFLOP/s (cuBLAS directly: %.1f)\n", 2.0 * 4096 * 4096 * 4096 / t_lib / 1e12,
		       2.0 * 4096 * 4096 * 4096 / t_cublas / 1e12);
		report("cuda sgemm 4096^3, cuBLAS time / kn_sgemm time", t_cublas / t_lib, "", 0.95, 1);
		cublasDestroy(g.h);
		kn_free(CUDA_B, A), kn_free(CUDA_B, B), kn_free(CUDA_B, C);
	}

	/* The encoder layer against its calls alone. */
	static const size_t shapes[][3] = {{128, 256, 1}, {128, 256, 8}, {128, 768, 1}, {512, 1024, 8}};
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		char what[96];
		double t;
		double r = layer_ratio(shapes[i][0], shapes[i][1], shapes[i][2], &t);
		snprintf(what, sizeof(what), "cuda encoder %zux%zux%zu, layer/calls", shapes[i][0], shapes[i][1],
			 shapes[i][2]);
		report(what, r, "x", 1.3, 0);
		printf("  %-46s %8.3f ms\n", "(the layer)", t * 1e3);
	}
	kn_free(CUDA_B, c.x), kn_free(CUDA_B, c.x2), kn_free(CUDA_B, c.y), kn_free(CUDA_B, c.g), kn_free(CUDA_B, c.be);
	cudaFree(c.sink);
	printf("\n%d of %d target%s missed\n", fails, checks, checks == 1 ? "" : "s");
	return fails ? 1 : 0;
}
