/*
 * test_kernels.c - every op on every backend that can run here against a
 * double precision reference, plus the error paths callers rely on.  cuda is
 * compared when a device is present; without one its calls must say why.
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernels.h"

/* ---- unary ops ---------------------------------------------------------- */

/* The double-precision reference each op is checked against. */
static double reference(kn_unary_op op, double v, const kn_unary_params *p)
{
	switch (op) {
	case KN_ABS: return fabs(v);
	case KN_NEG: return -v;
	case KN_SQRT: return sqrt(v);
	case KN_EXP: return exp(v);
	case KN_RELU: return v > 0 ? v : 0;
	case KN_LOG: return log(v);
	case KN_SIGMOID: return 1.0 / (1.0 + exp(-v));
	case KN_TANH: return tanh(v);
	case KN_GELU: {
		/* x/2 (1 + tanh(u)) written as x / (1 + exp(-2u)): the same function
		 * without the cancellation of 1 + tanh(u) for negative u. */
		if (v == -INFINITY)
			return -0.0;
		double u = 0.7978845608028654 * (v + 0.044715 * v * v * v);
		return v / (1.0 + exp(-2.0 * u));
	}
	case KN_SILU: return v == -INFINITY ? -0.0 : v / (1.0 + exp(-v));
	case KN_CLAMP: return isnan(v) ? v : v < p->lo ? p->lo : v > p->hi ? p->hi : v;
	case KN_SCALE: return (double)p->alpha * v;
	default: return NAN;
	}
}

/*
 * Tolerances, in units in the last place of the float result, over the
 * inputs input() draws for the op (the range each op documents as accepted):
 *   abs, neg, sqrt, relu, clamp, scale: 0 (one IEEE operation, or none)
 *   exp  [-103, 88.7]            scalar 1 (glibc), simd 2
 *   log  (0, FLT_MAX] incl. denormals: 4 (scalar, glibc: 2)
 *   sigmoid [-87, 100], tanh [-10, 10] and tiny, silu [-80, 80],
 *   gelu [-10, 10]: 4 (scalar glibc tanhf: 2; scalar sigmoid/silu/gelu are
 *   computed in double: 1)
 * A result in the denormal range (|want| < FLT_MIN) has fewer significant bits,
 * so there the check is absolute: |got - want| <= 4 * 2^-149.
 */
static uint32_t tolerance(kn_unary_op op, kn_backend b)
{
	switch (op) {
	case KN_ABS: case KN_NEG: case KN_SQRT: case KN_RELU: case KN_CLAMP: case KN_SCALE: return 0;
	case KN_EXP: return b == KN_BACKEND_SCALAR ? 1 : 2;
	case KN_TANH: case KN_LOG: return b == KN_BACKEND_SCALAR ? 2 : 4; /* glibc tanhf: 2 */
	default: return b == KN_BACKEND_SCALAR ? 1 : 4;
	}
}

/* Distance in units in the last place between two floats (NaN matches NaN). */
static uint32_t ulp_distance(float a, float b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : UINT32_MAX;
	if (a == b)
		return 0;
	int32_t ia, ib;
	memcpy(&ia, &a, 4);
	memcpy(&ib, &b, 4);
	if (ia < 0)
		ia = INT32_MIN - ia;
	if (ib < 0)
		ib = INT32_MIN - ib;
	int64_t d = (int64_t)ia - ib;
	return (uint32_t)(d < 0 ? -d : d);
}

static int close_enough(float got, double want_d, uint32_t tol)
{
	float want = (float)want_d;
	if (fabs(want_d) < FLT_MIN && !isnan(got))
		return fabs((double)got - want_d) <= 4 * 0x1p-149;
	return ulp_distance(got, want) <= tol;
}

/* A deterministic spread of inputs over the range op accepts. */
static float input(kn_unary_op op, size_t i)
{
	uint32_t h = (uint32_t)(i * 2654435761u);
	double u = (h >> 8) / 16777216.0; /* [0, 1) */
	switch (op) {
	case KN_SQRT: return (float)(u * 1e4);
	case KN_EXP: return (float)(-103.0 + u * 191.7);
	case KN_LOG: return (float)ldexp(1.0 + u, (int)(h % 277) - 149); /* denormal to huge */
	case KN_SIGMOID: return (float)(-87.0 + u * 187.0);
	case KN_TANH: return i % 5 == 0 ? (float)((u - 0.5) * 1e-3) : (float)(-10.0 + 20.0 * u);
	case KN_SILU: return (float)(-80.0 + u * 160.0);
	default: return (float)(-10.0 + 20.0 * u); /* [-10, 10] */
	}
}

/* The host paths under test: scalar, and simd on every ISA this CPU runs. */
typedef struct path {
	kn_backend b;
	const char *isa; /* for simd */
} path;

/* Whether a cuda device is here to compare against (0.5.0).  Without one the
 * cuda tests only check that every call says why it cannot run. */
static int cuda_device(void)
{
	static int said;
	kn_status s = kn_backend_probe(KN_BACKEND_CUDA);
	if (s != KN_OK) {
		assert_int_equal(s, KN_EUNAVAILABLE);
		assert_true(kn_last_error()[0] != '\0');
		if (!said++)
			print_message("device comparisons skipped: %s\n", kn_last_error());
		return 0;
	}
	return 1;
}

/* The paths under test: scalar, simd on every ISA this CPU runs, and cuda
 * when a device is present (its buffers go through run_* below). */
static size_t host_paths(path *out)
{
	size_t n = 0;
	out[n++] = (path){KN_BACKEND_SCALAR, NULL};
	static const char *const isas[] = {"avx512", "avx2", "generic"};
	for (size_t i = 0; i < 3; i++)
		if (kn_simd_set_isa(isas[i]) == KN_OK)
			out[n++] = (path){KN_BACKEND_SIMD, isas[i]};
	kn_simd_set_isa(NULL);
	if (cuda_device())
		out[n++] = (path){KN_BACKEND_CUDA, NULL};
	return n;
}

/*
 * The tests hold host buffers; for the cuda path each call copies them to
 * device buffers (one per distinct host buffer, so in-place calls stay in
 * place), runs there and copies the outputs back.  The checks and tolerances
 * are then the same as for simd.
 */
static struct mirror {
	float *host, *dev;
	size_t n;
	int out;
} mirrors[KN_CONCAT_MAX + 8];
static size_t n_mirrors;

static float *dev_of(const float *h, size_t n, int out)
{
	if (!h)
		return NULL;
	for (size_t i = 0; i < n_mirrors; i++)
		if (mirrors[i].host == h) {
			mirrors[i].out |= out;
			return mirrors[i].dev;
		}
	assert_true(n_mirrors < sizeof(mirrors) / sizeof(mirrors[0]));
	struct mirror *m = &mirrors[n_mirrors++];
	void *d = NULL;
	assert_int_equal(kn_alloc(KN_BACKEND_CUDA, n * sizeof(float), &d), KN_OK);
	assert_int_equal(kn_copy_in(KN_BACKEND_CUDA, d, h, n * sizeof(float)), KN_OK);
	*m = (struct mirror){(float *)h, d, n, out};
	return d;
}

static void dev_done(void)
{
	for (size_t i = 0; i < n_mirrors; i++) {
		if (mirrors[i].out)
			assert_int_equal(kn_copy_out(KN_BACKEND_CUDA, mirrors[i].host, mirrors[i].dev,
						     mirrors[i].n * sizeof(float)), KN_OK);
		kn_free(KN_BACKEND_CUDA, mirrors[i].dev);
	}
	n_mirrors = 0;
}

static int on_dev(path p) { return p.b == KN_BACKEND_CUDA; }

static kn_status run_unary(path p, kn_unary_op op, const float *x, float *y, size_t n, const kn_unary_params *prm)
{
	if (!on_dev(p))
		return kn_unary_ex(p.b, op, x, y, n, prm);
	float *dx = dev_of(x, n, 0), *dy = dev_of(y, n, 1);
	kn_status s = kn_unary_ex(p.b, op, dx, dy, n, prm);
	dev_done();
	return s;
}

static kn_status run_binary(path p, kn_binary_op op, const float *a, const float *b, float *y, size_t n)
{
	if (!on_dev(p))
		return kn_binary(p.b, op, a, b, y, n);
	float *da = dev_of(a, n, 0), *db = dev_of(b, n, 0), *dy = dev_of(y, n, 1);
	kn_status s = kn_binary(p.b, op, da, db, dy, n);
	dev_done();
	return s;
}

static kn_status run_axpy(path p, float alpha, const float *x, float *y, size_t n)
{
	if (!on_dev(p))
		return kn_axpy(p.b, alpha, x, y, n);
	float *dx = dev_of(x, n, 0), *dy = dev_of(y, n, 1);
	kn_status s = kn_axpy(p.b, alpha, dx, dy, n);
	dev_done();
	return s;
}

/* Reductions write *out to host memory on every backend. */
static kn_status run_reduce(path p, kn_reduce_op op, const float *x, size_t n, float *out)
{
	if (!on_dev(p))
		return kn_reduce(p.b, op, x, n, out);
	kn_status s = kn_reduce(p.b, op, dev_of(x, n, 0), n, out);
	dev_done();
	return s;
}

static kn_status run_argreduce(path p, kn_argreduce_op op, const float *x, size_t n, size_t *out)
{
	if (!on_dev(p))
		return kn_argreduce(p.b, op, x, n, out);
	kn_status s = kn_argreduce(p.b, op, dev_of(x, n, 0), n, out);
	dev_done();
	return s;
}

static kn_status run_dot(path p, const float *x, const float *y, size_t n, float *out)
{
	if (!on_dev(p))
		return kn_dot(p.b, x, y, n, out);
	float *dx = dev_of(x, n, 0), *dy = dev_of(y, n, 0);
	kn_status s = kn_dot(p.b, dx, dy, n, out);
	dev_done();
	return s;
}

static kn_status run_softmax(path p, const float *x, float *y, size_t rows, size_t cols, int log_form)
{
	kn_status (*f)(kn_backend, const float *, float *, size_t, size_t) = log_form ? kn_log_softmax : kn_softmax;
	if (!on_dev(p))
		return f(p.b, x, y, rows, cols);
	float *dx = dev_of(x, rows * cols, 0), *dy = dev_of(y, rows * cols, 1);
	kn_status s = f(p.b, dx, dy, rows, cols);
	dev_done();
	return s;
}

/* layernorm (rms 0) or rmsnorm (rms 1, b ignored). */
static kn_status run_norm(path p, const float *x, const float *g, const float *b, float *y, size_t rows, size_t cols,
			  float eps, int rms)
{
	if (on_dev(p)) {
		x = dev_of(x, rows * cols, 0), g = dev_of(g, cols, 0), b = dev_of(b, cols, 0);
		y = dev_of(y, rows * cols, 1);
	}
	kn_status s = rms ? kn_rmsnorm(p.b, x, g, y, rows, cols, eps) : kn_layernorm(p.b, x, g, b, y, rows, cols, eps);
	if (on_dev(p))
		dev_done();
	return s;
}

/* na, nb, nc: how many floats the host buffers hold. */
static kn_status run_sgemm(path p, int ta, int tb, size_t M, size_t N, size_t K, float alpha, const float *A,
			   size_t na, size_t lda, const float *B, size_t nb, size_t ldb, float beta, float *C,
			   size_t nc, size_t ldc)
{
	if (!on_dev(p))
		return kn_sgemm(p.b, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
	float *dA = dev_of(A, na, 0), *dB = dev_of(B, nb, 0), *dC = dev_of(C, nc, 1);
	kn_status s = kn_sgemm(p.b, ta, tb, M, N, K, alpha, dA, lda, dB, ldb, beta, dC, ldc);
	dev_done();
	return s;
}

static kn_status run_sgemv(path p, int ta, size_t M, size_t N, float alpha, const float *A, size_t na, size_t lda,
			   const float *x, float beta, float *y)
{
	size_t ylen = ta ? N : M, xlen = ta ? M : N;
	if (!on_dev(p))
		return kn_sgemv(p.b, ta, M, N, alpha, A, lda, x, beta, y);
	float *dA = dev_of(A, na, 0), *dx = dev_of(x, xlen, 0), *dy = dev_of(y, ylen, 1);
	kn_status s = kn_sgemv(p.b, ta, M, N, alpha, dA, lda, dx, beta, dy);
	dev_done();
	return s;
}

static void use_path(path p)
{
	if (p.isa)
		assert_int_equal(kn_simd_set_isa(p.isa), KN_OK);
}

static const char *path_name(path p) { return p.isa ? p.isa : kn_backend_name(p.b); }

static const kn_unary_params test_params = {-2.5f, 3.0f, -1.75f};

/* Returns the largest error seen, in ulp. */
static uint32_t check_op(path pa, kn_unary_op op, size_t n, size_t misalign)
{
	float *xbuf = malloc((n + 16) * sizeof(float));
	float *ybuf = malloc((n + 16) * sizeof(float));
	assert_non_null(xbuf);
	assert_non_null(ybuf);
	float *x = xbuf + misalign, *y = ybuf + misalign;
	for (size_t i = 0; i < n; i++)
		x[i] = input(op, i);
	/* Guards after the end: a vector tail must not write past y[n - 1]. */
	for (size_t i = n; i < n + 16 - misalign; i++)
		y[i] = 12345.0f;
	use_path(pa);
	assert_int_equal(run_unary(pa, op, x, y, n, &test_params), KN_OK);
	uint32_t tol = tolerance(op, pa.b), worst = 0;
	for (size_t i = 0; i < n; i++) {
		double want = reference(op, x[i], &test_params);
		if (fabs(want) >= FLT_MIN && ulp_distance(y[i], (float)want) > worst)
			worst = ulp_distance(y[i], (float)want);
		if (!close_enough(y[i], want, tol))
			fail_msg("%s/%s n=%zu i=%zu x=%a got %a want %a (%u ulp > %u)", path_name(pa),
				 kn_unary_name(op), n, i, (double)x[i], (double)y[i], want,
				 ulp_distance(y[i], (float)want), tol);
	}
	for (size_t i = n; i < n + 16 - misalign; i++)
		assert_true(y[i] == 12345.0f);
	free(xbuf);
	free(ybuf);
	kn_simd_set_isa(NULL);
	return worst;
}

static void test_unary_all_paths_sizes_alignments(void **state)
{
	(void)state;
	static const size_t sizes[] = {0, 1, 7, 15, 16, 17, 1023, 4097};
	path paths[6];
	size_t np = host_paths(paths);
	for (size_t pi = 0; pi < np; pi++)
		for (int op = 0; op < KN_UNARY_COUNT_; op++)
			for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
				for (size_t mis = 0; mis < 2; mis++)
					check_op(paths[pi], (kn_unary_op)op, sizes[s], mis);
}

/* A dense sweep (1M inputs per op) for the worst-case error of each path. */
static void test_unary_accuracy_sweep(void **state)
{
	(void)state;
	path paths[6];
	size_t np = host_paths(paths);
	static const kn_unary_op ops[] = {KN_EXP, KN_LOG, KN_SIGMOID, KN_TANH, KN_GELU, KN_SILU};
	for (size_t pi = 0; pi < np; pi++) {
		print_message("worst ulp %-8s", path_name(paths[pi]));
		for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
			print_message(" %s %u", kn_unary_name(ops[o]), check_op(paths[pi], ops[o], 1u << 20, 0));
		print_message("\n");
	}
}

static void test_special_values(void **state)
{
	(void)state;
	const float in[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 0x1p-149f, -0x1p-149f, FLT_MAX, -FLT_MAX};
	const size_t n = sizeof(in) / sizeof(in[0]);
	float out[sizeof(in) / sizeof(in[0])];
	path paths[6];
	size_t np = host_paths(paths);
	for (size_t pi = 0; pi < np; pi++) {
		use_path(paths[pi]);
		for (int op = 0; op < KN_UNARY_COUNT_; op++) {
			assert_int_equal(run_unary(paths[pi], (kn_unary_op)op, in, out, n, &test_params), KN_OK);
			for (size_t i = 0; i < n; i++) {
				double want = reference((kn_unary_op)op, in[i], &test_params);
				if (op == KN_RELU && isnan(in[i]))
					continue; /* relu(NaN) may be 0 or NaN */
				if (!close_enough(out[i], want, tolerance((kn_unary_op)op, paths[pi].b)))
					fail_msg("%s/%s x=%a got %a want %a", path_name(paths[pi]),
						 kn_unary_name((kn_unary_op)op), (double)in[i], (double)out[i], want);
			}
		}
	}
	kn_simd_set_isa(NULL);
}

static void test_unary_params(void **state)
{
	(void)state;
	float v[3] = {-10, 1, 10}, o[3];
	/* kn_unary's defaults: clamp to [0, 6], scale by 1 */
	assert_int_equal(kn_unary(KN_BACKEND_SIMD, KN_CLAMP, v, o, 3), KN_OK);
	assert_true(o[0] == 0 && o[1] == 1 && o[2] == 6);
	assert_int_equal(kn_unary(KN_BACKEND_SCALAR, KN_SCALE, v, o, 3), KN_OK);
	assert_memory_equal(v, o, sizeof(v));
	kn_unary_params bad = {2, 1, 1};
	assert_int_equal(kn_unary_ex(KN_BACKEND_SIMD, KN_CLAMP, v, o, 3, &bad), KN_EINVAL);
	assert_non_null(strstr(kn_last_error(), "lo"));
	bad.lo = NAN;
	assert_int_equal(kn_unary_ex(KN_BACKEND_SCALAR, KN_CLAMP, v, o, 3, &bad), KN_EINVAL);
}

static void test_simd_isa(void **state)
{
	(void)state;
	const char *isa = kn_simd_isa();
	assert_true(!strcmp(isa, "avx512") || !strcmp(isa, "avx2") || !strcmp(isa, "generic"));
	assert_int_equal(kn_simd_set_isa("generic"), KN_OK);
	assert_string_equal(kn_simd_isa(), "generic");
	assert_int_equal(kn_simd_set_isa("sse9"), KN_EINVAL);
	assert_int_equal(kn_simd_set_isa("auto"), KN_OK);
	assert_string_equal(kn_simd_isa(), isa);
	assert_int_equal(kn_backend_probe(KN_BACKEND_SIMD), KN_OK);
}

/* ---- binary ops, axpy, reductions (0.3.0) --------------------------------- */

/* Host paths plus blas when it was built: kn_binary etc. take it too. */
static size_t all_host_paths(path *out)
{
	size_t n = host_paths(out);
	if (kn_backend_probe(KN_BACKEND_BLAS) == KN_OK)
		out[n++] = (path){KN_BACKEND_BLAS, NULL};
	return n;
}

static double binary_ref(kn_binary_op op, double a, double b)
{
	switch (op) {
	case KN_ADD: return a + b;
	case KN_SUB: return a - b;
	case KN_MUL: return a * b;
	case KN_DIV: return a / b;
	case KN_MAX: return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
	case KN_MIN: return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
	default: return NAN;
	}
}

static const size_t vec_sizes[] = {0, 1, 7, 15, 16, 17, 31, 64, 65, 1023, 4097, 20000};
#define N_VEC_SIZES (sizeof(vec_sizes) / sizeof(vec_sizes[0]))

static float *filled(size_t n, size_t misalign, unsigned seed, float **base)
{
	*base = malloc((n + 16) * sizeof(float));
	assert_non_null(*base);
	float *x = *base + misalign;
	for (size_t i = 0; i < n; i++)
		x[i] = input(KN_ABS, i * 7 + seed); /* [-10, 10] */
	return x;
}

/* Binary ops are one IEEE operation each: results must be exact (0 ulp), on
 * every path, NaN in either operand giving NaN for max/min too. */
static void test_binary_all_paths(void **state)
{
	(void)state;
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t pi = 0; pi < np; pi++)
		for (int op = 0; op < KN_BINARY_COUNT_; op++)
			for (size_t s = 0; s < N_VEC_SIZES; s++)
				for (size_t mis = 0; mis < 2; mis++) {
					size_t n = vec_sizes[s];
					float *ab, *bb, *yb;
					float *a = filled(n, mis, 1, &ab), *b = filled(n, mis, 2, &bb);
					float *y = filled(n + 8, mis, 3, &yb);
					if (n > 3)
						a[n / 2] = NAN, b[n / 3] = NAN, b[n - 1] = 0.0f;
					y[n] = 777.0f;
					use_path(paths[pi]);
					assert_int_equal(run_binary(paths[pi], (kn_binary_op)op, a, b, y, n), KN_OK);
					kn_simd_set_isa(NULL);
					for (size_t i = 0; i < n; i++)
						if (ulp_distance(y[i], (float)binary_ref((kn_binary_op)op, a[i], b[i])))
							fail_msg("%s/%s n=%zu i=%zu %a %a -> %a", path_name(paths[pi]),
								 kn_binary_name((kn_binary_op)op), n, i, (double)a[i],
								 (double)b[i], (double)y[i]);
					assert_true(y[n] == 777.0f);
					/* in place: y is a */
					assert_int_equal(run_binary(paths[pi], (kn_binary_op)op, a, b, a, n), KN_OK);
					for (size_t i = 0; i < n; i++)
						assert_true(ulp_distance(a[i], y[i]) == 0);
					free(ab), free(bb), free(yb);
				}
}

/* axpy: |got - want| <= 2^-23 (|alpha x| + |y|); an fma (simd) rounds once,
 * the scalar path computes in double, OpenBLAS may round twice. */
static void test_axpy_all_paths(void **state)
{
	(void)state;
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t pi = 0; pi < np; pi++)
		for (size_t s = 0; s < N_VEC_SIZES; s++)
			for (size_t mis = 0; mis < 2; mis++) {
				size_t n = vec_sizes[s];
				float *xb, *yb, *y0b;
				float *x = filled(n, mis, 4, &xb), *y = filled(n + 1, mis, 5, &yb);
				float *y0 = filled(n, mis, 5, &y0b);
				y[n] = 777.0f;
				use_path(paths[pi]);
				assert_int_equal(run_axpy(paths[pi], -1.3f, x, y, n), KN_OK);
				kn_simd_set_isa(NULL);
				for (size_t i = 0; i < n; i++) {
					double want = (double)-1.3f * x[i] + y0[i];
					double bound = 0x1p-23 * (fabs(1.3 * x[i]) + fabs(y0[i]));
					if (fabs(y[i] - want) > bound)
						fail_msg("%s/axpy n=%zu i=%zu got %a want %a", path_name(paths[pi]), n, i,
							 (double)y[i], want);
				}
				assert_true(y[n] == 777.0f);
				free(xb), free(yb), free(y0b);
			}
}

/* Reference reductions, in double. */
static double reduce_ref(kn_reduce_op op, const float *x, size_t n, double *abs_sum)
{
	double s = 0, a = 0, m = n ? x[0] : 0;
	for (size_t i = 0; i < n; i++) {
		double v = x[i];
		a += op == KN_NORM_L2 ? v * v : fabs(v);
		switch (op) {
		case KN_SUM: case KN_MEAN: s += v; break;
		case KN_NORM_L1: s += fabs(v); break;
		case KN_NORM_L2: s += v * v; break;
		case KN_REDUCE_MAX: m = v > m ? v : m; break;
		case KN_REDUCE_MIN: m = v < m ? v : m; break;
		case KN_NORM_LINF: m = fabs(v) > m ? fabs(v) : m; break;
		default: break;
		}
	}
	if (op == KN_NORM_LINF && n)
		m = fabs(m) > fabs((double)x[0]) ? m : fabs((double)x[0]);
	*abs_sum = op == KN_NORM_L2 ? sqrt(a) : op == KN_MEAN && n ? a / n : a;
	switch (op) {
	case KN_MEAN: return s / n;
	case KN_NORM_L2: return sqrt(s);
	case KN_REDUCE_MAX: case KN_REDUCE_MIN: case KN_NORM_LINF: return m;
	default: return s;
	}
}

/*
 * Reduction tolerances: max, min, norm_linf and argmax/argmin are exact.
 * Sums (sum, mean, norm_l1, norm_l2, dot): |got - want| <= k eps sum|terms|,
 * k = 1 for scalar (double accumulation: one final rounding), 128 for simd
 * (at most 4096/(4W) = 128 float additions per accumulator lane before the
 * block total goes to double) and 256 for blas (OpenBLAS accumulates in float).
 */
static double sum_k(path p)
{
	return p.b == KN_BACKEND_SCALAR ? 1 : p.b == KN_BACKEND_BLAS ? 256 : 128;
}

static void test_reduce_all_paths(void **state)
{
	(void)state;
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t pi = 0; pi < np; pi++)
		for (int op = 0; op < KN_REDUCE_COUNT_; op++)
			for (size_t s = 0; s < N_VEC_SIZES; s++)
				for (size_t mis = 0; mis < 2; mis++) {
					size_t n = vec_sizes[s];
					float *xb, *x = filled(n, mis, 6, &xb), got = -1;
					double abs_sum, want = reduce_ref((kn_reduce_op)op, x, n, &abs_sum);
					use_path(paths[pi]);
					kn_status st = run_reduce(paths[pi], (kn_reduce_op)op, x, n, &got);
					kn_simd_set_isa(NULL);
					free(xb);
					if (n == 0 && (op == KN_MEAN || op == KN_REDUCE_MAX || op == KN_REDUCE_MIN)) {
						assert_int_equal(st, KN_EINVAL);
						assert_non_null(strstr(kn_last_error(), "empty"));
						continue;
					}
					assert_int_equal(st, KN_OK);
					int exact = op == KN_REDUCE_MAX || op == KN_REDUCE_MIN || op == KN_NORM_LINF;
					double bound = exact ? 0 : sum_k(paths[pi]) * FLT_EPSILON * abs_sum + 0x1p-149;
					if (exact ? got != (float)want : fabs(got - want) > bound)
						fail_msg("%s/%s n=%zu mis=%zu got %a want %a", path_name(paths[pi]),
							 kn_reduce_name((kn_reduce_op)op), n, mis, (double)got, want);
				}
}

static void test_dot_and_argreduce_all_paths(void **state)
{
	(void)state;
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t pi = 0; pi < np; pi++)
		for (size_t s = 0; s < N_VEC_SIZES; s++)
			for (size_t mis = 0; mis < 2; mis++) {
				size_t n = vec_sizes[s];
				float *xb, *yb, *x = filled(n, mis, 7, &xb), *y = filled(n, mis, 8, &yb), got = -1;
				double want = 0, abs_sum = 0;
				for (size_t i = 0; i < n; i++)
					want += (double)x[i] * y[i], abs_sum += fabs((double)x[i] * y[i]);
				use_path(paths[pi]);
				assert_int_equal(run_dot(paths[pi], x, y, n, &got), KN_OK);
				if (fabs(got - want) > sum_k(paths[pi]) * FLT_EPSILON * abs_sum + 0x1p-149)
					fail_msg("%s/dot n=%zu got %a want %a", path_name(paths[pi]), n, (double)got, want);
				if (n) {
					/* a tie: the first of two equal extremes wins */
					x[n - 1] = 50.0f;
					x[n / 2] = 50.0f;
					x[(n - 1) / 3] = -50.0f;
					x[n - 1 - n / 4] = -50.0f;
					size_t am = 99, an = 99;
					assert_int_equal(run_argreduce(paths[pi], KN_ARGMAX, x, n, &am), KN_OK);
					assert_int_equal(run_argreduce(paths[pi], KN_ARGMIN, x, n, &an), KN_OK);
					size_t wm = 0, wn = 0;
					for (size_t i = 0; i < n; i++) {
						wm = x[i] > x[wm] ? i : wm;
						wn = x[i] < x[wn] ? i : wn;
					}
					if (am != wm || an != wn)
						fail_msg("%s n=%zu argmax %zu (want %zu) argmin %zu (want %zu)",
							 path_name(paths[pi]), n, am, wm, an, wn);
				}
				kn_simd_set_isa(NULL);
				free(xb), free(yb);
			}
}

/* NaN anywhere (first element, middle, vector tail) makes max, min, norms,
 * sum and mean NaN, and argmax/argmin point at the first NaN.  Not checked
 * for blas: there NaN handling is OpenBLAS's. */
static void test_reduce_nan(void **state)
{
	(void)state;
	path paths[6];
	size_t np = host_paths(paths);
	const size_t n = 37;
	const size_t where[] = {0, 5, 33, 36};
	float x[37];
	for (size_t pi = 0; pi < np; pi++)
		for (size_t w = 0; w < 4; w++) {
			for (size_t i = 0; i < n; i++)
				x[i] = (float)i - 10;
			x[where[w]] = NAN;
			x[36 - where[w] / 2] = NAN; /* a second NaN, before or after */
			use_path(paths[pi]);
			for (int op = 0; op < KN_REDUCE_COUNT_; op++) {
				float got = 0;
				assert_int_equal(run_reduce(paths[pi], (kn_reduce_op)op, x, n, &got), KN_OK);
				if (!isnan(got))
					fail_msg("%s/%s NaN at %zu: got %a", path_name(paths[pi]),
						 kn_reduce_name((kn_reduce_op)op), where[w], (double)got);
			}
			size_t first = where[w] < 36 - where[w] / 2 ? where[w] : 36 - where[w] / 2, got = 0;
			assert_int_equal(run_argreduce(paths[pi], KN_ARGMAX, x, n, &got), KN_OK);
			assert_int_equal(got, first);
			assert_int_equal(run_argreduce(paths[pi], KN_ARGMIN, x, n, &got), KN_OK);
			assert_int_equal(got, first);
			kn_simd_set_isa(NULL);
		}
}

/* argmax/argmin against a plain loop on inputs made to catch a blocked
 * search (0.6: blocks of 4096): the extreme at a block's first or last
 * element, ties in different blocks, +-Inf, signed zeros, and a NaN in a
 * later block after a larger value. */
static void test_argreduce_blocks(void **state)
{
	(void)state;
	path paths[6];
	size_t np = host_paths(paths);
	const size_t n = 3 * 4096 + 21;
	float *x = malloc(n * sizeof(float));
	assert_non_null(x);
	for (size_t pi = 0; pi < np; pi++)
		for (int c = 0; c < 7; c++) {
			for (size_t i = 0; i < n; i++)
				x[i] = (float)((i * 7919) % 1000) - 500.0f;
			switch (c) {
			case 0: x[4096] = 1e6f, x[2 * 4096 - 1] = -1e6f; break;
			case 1: x[4095] = 1e6f, x[3 * 4096] = 1e6f, x[4096 + 5] = -1e6f, x[n - 1] = -1e6f; break;
			case 2: x[n - 1] = INFINITY, x[7] = -INFINITY; break;
			case 3: x[9000] = INFINITY, x[12000] = INFINITY, x[100] = -INFINITY, x[4100] = -INFINITY; break;
			case 4:
				for (size_t i = 0; i < n; i++)
					x[i] = i % 3 ? 0.0f : -0.0f;
				break;
			case 5: x[10] = 1e6f, x[n - 3] = NAN, x[n - 2] = NAN; break;
			case 6: x[2 * 4096] = NAN, x[4096 - 1] = NAN; break;
			}
			size_t wm = 0, wn = 0, first_nan = n;
			for (size_t i = n; i-- > 0;)
				first_nan = isnan(x[i]) ? i : first_nan;
			for (size_t i = 0; i < n; i++) {
				wm = x[i] > x[wm] ? i : wm;
				wn = x[i] < x[wn] ? i : wn;
			}
			if (first_nan < n)
				wm = wn = first_nan;
			size_t am = 99, an = 99;
			use_path(paths[pi]);
			assert_int_equal(run_argreduce(paths[pi], KN_ARGMAX, x, n, &am), KN_OK);
			assert_int_equal(run_argreduce(paths[pi], KN_ARGMIN, x, n, &an), KN_OK);
			kn_simd_set_isa(NULL);
			if (am != wm || an != wn)
				fail_msg("%s case %d: argmax %zu (want %zu) argmin %zu (want %zu)", path_name(paths[pi]), c,
					 am, wm, an, wn);
		}
	free(x);
}

/* 16M elements whose exact sum is known: a float accumulator would be off by
 * several percent (adding 0.1 to 1.6e6 loses most of its bits); the blocked
 * simd sums and the double scalar sums must be within 1e-6. */
static void test_sum_large_n(void **state)
{
	(void)state;
	const size_t n = (size_t)1 << 24;
	float *x = malloc(n * sizeof(float));
	assert_non_null(x);
	for (size_t i = 0; i < n; i++)
		x[i] = i % 2 ? 0.1f : 0.3f;
	const double want = (double)n / 2 * ((double)0.1f + (double)0.3f);
	path paths[6];
	size_t np = host_paths(paths);
	for (size_t pi = 0; pi < np; pi++) {
		float sum = 0, mean = 0, l1 = 0, dot = 0;
		use_path(paths[pi]);
		assert_int_equal(run_reduce(paths[pi], KN_SUM, x, n, &sum), KN_OK);
		assert_int_equal(run_reduce(paths[pi], KN_MEAN, x, n, &mean), KN_OK);
		assert_int_equal(run_reduce(paths[pi], KN_NORM_L1, x, n, &l1), KN_OK);
		assert_int_equal(run_dot(paths[pi], x, x, n, &dot), KN_OK);
		kn_simd_set_isa(NULL);
		double want_dot = (double)n / 2 * ((double)0.1f * 0.1f + (double)0.3f * 0.3f);
		if (fabs(sum / want - 1) > 1e-6 || fabs(mean / (want / n) - 1) > 1e-6 ||
		    fabs(l1 / want - 1) > 1e-6 || fabs(dot / want_dot - 1) > 1e-6)
			fail_msg("%s: sum %.9g mean %.9g l1 %.9g (want %.9g) dot %.9g (want %.9g)",
				 path_name(paths[pi]), (double)sum, (double)mean, (double)l1, want, (double)dot,
				 want_dot);
	}
	free(x);
}

/* norm_l2 must not overflow (squares of 1e30) or underflow (squares of 1e-30). */
static void test_norm_l2_extremes(void **state)
{
	(void)state;
	path paths[6];
	size_t np = all_host_paths(paths);
	const float scales[] = {1e30f, 1e-30f, 1e-44f, 3e37f};
	float x[100];
	for (size_t pi = 0; pi < np; pi++)
		for (size_t k = 0; k < 4; k++) {
			for (size_t i = 0; i < 100; i++)
				x[i] = scales[k] * (i % 2 ? 1.0f : -1.0f);
			float got = 0;
			use_path(paths[pi]);
			assert_int_equal(run_reduce(paths[pi], KN_NORM_L2, x, 100, &got), KN_OK);
			kn_simd_set_isa(NULL);
			double want = 10.0 * scales[k];
			if (fabs(got / want - 1) > 1e-6)
				fail_msg("%s/norm_l2 of 100 x %g: got %g", path_name(paths[pi]), (double)scales[k],
					 (double)got);
		}
}

static void test_reduce_bad_arguments(void **state)
{
	(void)state;
	float v[4] = {1, 2, 3, 4}, out;
	size_t idx;
	assert_int_equal(kn_reduce(KN_BACKEND_SIMD, KN_SUM, v, 4, NULL), KN_EINVAL);
	assert_int_equal(kn_reduce(KN_BACKEND_SIMD, KN_SUM, NULL, 4, &out), KN_EINVAL);
	assert_int_equal(kn_reduce(KN_BACKEND_SIMD, (kn_reduce_op)99, v, 4, &out), KN_EUNSUPPORTED);
	assert_int_equal(kn_reduce((kn_backend)9, KN_SUM, v, 4, &out), KN_EINVAL);
	assert_int_equal(kn_argreduce(KN_BACKEND_SCALAR, KN_ARGMAX, v, 0, &idx), KN_EINVAL);
	assert_int_equal(kn_argreduce(KN_BACKEND_SCALAR, (kn_argreduce_op)5, v, 4, &idx), KN_EUNSUPPORTED);
	assert_int_equal(kn_binary(KN_BACKEND_SIMD, KN_ADD, v, NULL, v, 4), KN_EINVAL);
	assert_int_equal(kn_binary(KN_BACKEND_SIMD, (kn_binary_op)42, v, v, v, 4), KN_EUNSUPPORTED);
	assert_int_equal(kn_axpy(KN_BACKEND_SIMD, 1.0f, NULL, v, 4), KN_EINVAL);
	assert_int_equal(kn_dot(KN_BACKEND_SIMD, v, v, 4, NULL), KN_EINVAL);
	/* empty sums are 0 */
	out = -1;
	assert_int_equal(kn_dot(KN_BACKEND_SIMD, NULL, NULL, 0, &out), KN_OK);
	assert_true(out == 0);
	assert_string_equal(kn_reduce_name(KN_NORM_L2), "norm_l2");
	assert_string_equal(kn_binary_name((kn_binary_op)-1), "?");
	/* blas: either it runs, or every call says why not */
	if (kn_backend_probe(KN_BACKEND_BLAS) != KN_OK) {
		assert_int_equal(kn_dot(KN_BACKEND_BLAS, v, v, 4, &out), KN_EUNAVAILABLE);
		assert_non_null(strstr(kn_last_error(), "blas"));
		assert_int_equal(kn_unary(KN_BACKEND_BLAS, KN_EXP, v, v, 4), KN_EUNAVAILABLE);
	}
	/* cuda without a device: unavailable, with the reason */
	if (kn_backend_probe(KN_BACKEND_CUDA) != KN_OK)
		assert_int_equal(kn_reduce(KN_BACKEND_CUDA, KN_SUM, v, 4, &out), KN_EUNAVAILABLE);
}

/* ---- softmax, sgemm, sgemv (0.4.0) --------------------------------------- */

/* softmax: relative error <= 8 eps per element (exp within 2 ulp, the sum,
 * one division); log_softmax: absolute error <= 8 eps (1 + |want|). */
static void test_softmax_all_paths(void **state)
{
	(void)state;
	static const size_t shapes[][2] = {{1, 1}, {3, 7}, {2, 16}, {5, 17}, {4, 1023}, {1, 4097}, {0, 5}, {5, 0}};
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t pi = 0; pi < np; pi++)
		for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
			for (int lf = 0; lf < 2; lf++) {
				size_t rows = shapes[sh][0], cols = shapes[sh][1], n = rows * cols;
				float *xb, *yb, *x = filled(n, 1, 9, &xb), *y = filled(n, 1, 10, &yb);
				for (size_t i = 0; i < n; i++)
					x[i] *= 9.0f; /* [-90, 90]: exp(x) alone would overflow */
				use_path(paths[pi]);
				assert_int_equal(run_softmax(paths[pi], x, y, rows, cols, lf), KN_OK);
				kn_simd_set_isa(NULL);
				for (size_t r = 0; r < rows; r++) {
					const float *a = x + r * cols;
					double m = a[0], sum = 0;
					for (size_t j = 0; j < cols; j++)
						m = a[j] > m ? a[j] : m;
					for (size_t j = 0; j < cols; j++)
						sum += exp(a[j] - m);
					for (size_t j = 0; j < cols; j++) {
						double want = lf ? a[j] - m - log(sum) : exp(a[j] - m) / sum;
						double got = y[r * cols + j];
						double bound = lf ? 8 * FLT_EPSILON * (1 + fabs(want))
								  : 8 * FLT_EPSILON * want + 0x1p-140;
						if (fabs(got - want) > bound)
							fail_msg("%s/%s %zux%zu [%zu,%zu] got %a want %a", path_name(paths[pi]),
								 lf ? "log_softmax" : "softmax", rows, cols, r, j, got, want);
					}
				}
				free(xb), free(yb);
			}
}

static void test_softmax_nan_and_in_place(void **state)
{
	(void)state;
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t pi = 0; pi < np; pi++) {
		float x[2][20];
		for (int j = 0; j < 20; j++)
			x[0][j] = (float)j, x[1][j] = (float)j;
		x[1][18] = NAN;
		use_path(paths[pi]);
		assert_int_equal(run_softmax(paths[pi], &x[0][0], &x[0][0], 2, 20, 0), KN_OK); /* in place */
		kn_simd_set_isa(NULL);
		double sum = 0;
		for (int j = 0; j < 20; j++)
			sum += x[0][j], assert_true(isnan(x[1][j]));
		assert_true(fabs(sum - 1) < 1e-6);
	}
	float v[4] = {0};
	assert_int_equal(kn_softmax(KN_BACKEND_SIMD, NULL, v, 2, 2), KN_EINVAL);
	assert_int_equal(kn_softmax(KN_BACKEND_SIMD, NULL, NULL, 0, 2), KN_OK);
	assert_int_equal(kn_log_softmax((kn_backend)17, v, v, 2, 2), KN_EINVAL);
}

/* Rows that reach each way simd (0.7.0) forms x - max exactly: Fast2Sum
 * with the max first (its exponent is the larger), with x first (max <= 0),
 * TwoSum, and the guarded TwoSum of rows whose range is 128 or more (huge,
 * infinite or NaN included); plus rows of denormals, of equal values and of
 * -0, and a huge max tied three times.  u: [0, 1). */
#define SOFTMAX_ROW_KINDS 15
static float softmax_row_value(int kind, size_t j, double u)
{
	switch (kind) {
	case 0: return (float)(-90 + 180 * u);                /* range 180: guarded */
	case 1: return (float)(-100 + 99.99 * u);             /* max <= 0: Fast2Sum(x, -max) */
	case 2: return (float)(-15 + 24 * u);                 /* max ~9, min > -16: Fast2Sum(-max, x) */
	case 3: return (float)(-100 + 120 * u);               /* max ~20, min < -32: TwoSum */
	case 4: return (float)(-121 + 130 * u);               /* range just over 128: guarded */
	case 5: return (float)(1e-39 * u);                    /* denormals */
	case 6: return 3.0f;                                  /* all equal */
	case 7: return j == 0 ? -0.0f : (float)(-50 * u);     /* max -0 */
	case 8: return j == 1 ? -INFINITY : (float)(10 * u - 5); /* one -Inf: its softmax is 0 */
	case 9: return j == 0 ? 3e38f : j % 2 ? -3e38f : (float)u; /* x - max = -Inf in float */
	case 10: return j == 2 ? NAN : (float)u;              /* NaN: the row is NaN */
	case 11: return j == 0 ? INFINITY : (float)u;         /* +Inf: the row is NaN */
	case 12: return (float)(-100 + 100.3 * u);            /* max ~0.3, min < -0.5: TwoSum */
	case 13: return j < 3 ? 1e30f : (float)u;             /* tied huge max: 1/3 each, not 1 (0.7.1) */
	default: return -INFINITY;                            /* all -Inf: NaN (-Inf - -Inf) */
	}
}

static void softmax_ref_row(const float *a, size_t n, int lf, double *want)
{
	double m = -INFINITY, sum = 0;
	int nan = 0;
	for (size_t j = 0; j < n; j++)
		if (isnan(a[j]))
			nan = 1;
		else if (a[j] > m)
			m = a[j];
	for (size_t j = 0; j < n && !nan; j++)
		sum += exp(a[j] - m);
	for (size_t j = 0; j < n; j++)
		want[j] = nan || isinf(m) ? NAN : lf ? a[j] - m - log(sum) : exp(a[j] - m) / sum;
}

/* rows x cols through every host path, both forms; y at misalign floats
 * past a 64-byte boundary, or in place. */
static void check_softmax_rows(size_t rows, size_t cols, size_t misalign, int in_place)
{
	size_t n = rows * cols;
	path paths[6];
	size_t np = all_host_paths(paths);
	void *xb = NULL, *yb = NULL;
	assert_int_equal(kn_alloc(KN_BACKEND_SCALAR, (n + 16) * sizeof(float), &xb), KN_OK);
	assert_int_equal(kn_alloc(KN_BACKEND_SCALAR, (n + 16) * sizeof(float), &yb), KN_OK);
	float *x0 = malloc(n * sizeof(float));
	double *want = malloc(cols * sizeof(double));
	assert_non_null(x0);
	assert_non_null(want);
	for (size_t r = 0; r < rows; r++)
		for (size_t j = 0; j < cols; j++)
			x0[r * cols + j] = softmax_row_value((int)(r % SOFTMAX_ROW_KINDS), j,
							     input(KN_ABS, (r * cols + j) * 7) / 20.0 + 0.5);
	for (size_t pi = 0; pi < np; pi++)
		for (int lf = 0; lf < 2; lf++) {
			float *x = (float *)xb + misalign, *y = in_place ? x : (float *)yb + misalign;
			memcpy(x, x0, n * sizeof(float));
			use_path(paths[pi]);
			assert_int_equal(run_softmax(paths[pi], x, y, rows, cols, lf), KN_OK);
			kn_simd_set_isa(NULL);
			for (size_t r = 0; r < rows; r++) {
				softmax_ref_row(x0 + r * cols, cols, lf, want);
				for (size_t j = 0; j < cols; j++) {
					float got = y[r * cols + j];
					double bound = lf ? 8 * FLT_EPSILON * (1 + fabs(want[j]))
							  : 8 * FLT_EPSILON * want[j] + 0x1p-140;
					if (isnan(want[j]) ? isnan(got) : got == (float)want[j] || fabs(got - want[j]) <= bound)
						continue;
					fail_msg("%s/%s %zux%zu%s kind %d [%zu,%zu] x %a got %a want %a", path_name(paths[pi]),
						 lf ? "log_softmax" : "softmax", rows, cols, in_place ? " in place" : "",
						 (int)(r % SOFTMAX_ROW_KINDS), r, j, x0[r * cols + j], got, want[j]);
				}
			}
		}
	kn_free(KN_BACKEND_SCALAR, xb);
	kn_free(KN_BACKEND_SCALAR, yb);
	free(x0);
	free(want);
}

static void test_softmax_row_kinds(void **state)
{
	(void)state;
	static const size_t cols[] = {1, 7, 16, 33, 1000};
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		for (size_t mis = 0; mis < 2; mis++)
			check_softmax_rows(2 * SOFTMAX_ROW_KINDS, cols[c], mis, 0);
	check_softmax_rows(SOFTMAX_ROW_KINDS, 33, 0, 1);
}

/* Outputs of 2 MB and more with aligned rows go through the row pipeline
 * (three rows at a time), the rest row by row with non-temporal stores: both,
 * with every kind of row, in place too, and rows that do not fill a vector. */
static void test_softmax_large(void **state)
{
	(void)state;
	check_softmax_rows(130, 4096, 0, 0);  /* pipeline */
	check_softmax_rows(130, 4096, 0, 1);  /* pipeline, in place */
	check_softmax_rows(260, 2056, 0, 0);  /* pipeline: 2056 % 16 == 8, avx2 only */
	check_softmax_rows(129, 4111, 1, 0);  /* row by row, misaligned rows */
	check_softmax_rows(2, 300000, 0, 0);  /* rows beyond the prefetch size */
}

static size_t at_least(size_t v) { return v ? v : 1; }

/* Double reference for C = alpha op(A) op(B) + beta C. */
static void gemm_ref(int ta, int tb, size_t M, size_t N, size_t K, double alpha, const float *A, size_t lda,
		     const float *B, size_t ldb, double beta, const float *C0, size_t ldc, double *out, double *mag)
{
	for (size_t i = 0; i < M; i++)
		for (size_t j = 0; j < N; j++) {
			double s = 0, a = 0;
			for (size_t k = 0; k < K; k++) {
				double p = (double)(ta ? A[k * lda + i] : A[i * lda + k]) *
					   (tb ? B[j * ldb + k] : B[k * ldb + j]);
				s += p, a += fabs(p);
			}
			double c = beta == 0 ? 0 : beta * C0[i * ldc + j];
			out[i * N + j] = alpha * s + c;
			mag[i * N + j] = fabs(alpha) * a + fabs(c);
		}
}

/*
 * sgemm/sgemv tolerance: |got - want| <= 2 (K + 2) eps (|alpha| sum|a b| +
 * |beta c|): the float error bound of a length-K dot product plus the alpha
 * and beta roundings, whatever the summation order of the path.
 */
static void check_gemm(path pa, int ta, int tb, size_t M, size_t N, size_t K, float alpha, float beta, size_t pad)
{
	/* leading dimensions are at least 1 even for empty matrices, as in BLAS */
	size_t lda = at_least(ta ? M : K) + pad, ldb = at_least(tb ? K : N) + pad, ldc = at_least(N) + pad;
	size_t arows = ta ? K : M, brows = tb ? N : K;
	float *Ab, *Bb, *Cb, *C0b;
	float *A = filled(arows * lda + 1, 0, 11, &Ab), *B = filled(brows * ldb + 1, 0, 12, &Bb);
	float *C = filled(M * ldc + 1, 0, 13, &Cb), *C0 = filled(M * ldc + 1, 0, 13, &C0b);
	double *want = malloc((M * N + 1) * sizeof(double)), *mag = malloc((M * N + 1) * sizeof(double));
	gemm_ref(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C0, ldc, want, mag);
	use_path(pa);
	assert_int_equal(run_sgemm(pa, ta, tb, M, N, K, alpha, A, arows * lda + 1, lda, B, brows * ldb + 1, ldb, beta, C, M * ldc + 1, ldc), KN_OK);
	kn_simd_set_isa(NULL);
	for (size_t i = 0; i < M; i++) {
		for (size_t j = 0; j < N; j++) {
			double got = C[i * ldc + j], w = want[i * N + j];
			if (fabs(got - w) > 2.0 * (K + 2) * FLT_EPSILON * mag[i * N + j] + 1e-30)
				fail_msg("%s sgemm ta=%d tb=%d %zux%zux%zu C[%zu,%zu] got %a want %a", path_name(pa), ta,
					 tb, M, N, K, i, j, got, w);
		}
		for (size_t j = N; j < ldc; j++) /* padding untouched */
			if (C[i * ldc + j] != C0[i * ldc + j])
				fail_msg("%s sgemm ta=%d tb=%d %zux%zux%zu wrote padding C[%zu,%zu]", path_name(pa), ta,
					 tb, M, N, K, i, j);
	}
	free(Ab), free(Bb), free(Cb), free(C0b), free(want), free(mag);
}

static void test_sgemm_all_paths(void **state)
{
	(void)state;
	static const size_t shapes[][3] = {{1, 1, 1}, {17, 33, 65}, {6, 32, 256}, {13, 70, 300},
					   {130, 35, 7}, {3, 5, 0}, {64, 64, 64}, {7, 1100, 3}};
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t pi = 0; pi < np; pi++)
		for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
			for (int t = 0; t < 4; t++)
				check_gemm(paths[pi], t & 1, t >> 1, shapes[s][0], shapes[s][1], shapes[s][2],
					   t == 3 ? -0.75f : 1.0f, t == 0 ? 0.0f : t == 1 ? 1.0f : 0.5f, t == 2 ? 3 : 0);
}

static void test_sgemv_all_paths(void **state)
{
	(void)state;
	static const size_t shapes[][2] = {{1, 1}, {17, 33}, {64, 64}, {5, 1000}, {300, 7}, {4, 0}};
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t pi = 0; pi < np; pi++)
		for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
			for (int ta = 0; ta < 2; ta++) {
				size_t M = shapes[s][0], N = shapes[s][1], lda = N + 2;
				size_t ylen = ta ? N : M, xlen = ta ? M : N;
				float *Ab, *xb, *yb, *y0b;
				float *A = filled(M * lda + 1, 0, 14, &Ab), *x = filled(xlen + 1, 1, 15, &xb);
				float *y = filled(ylen + 1, 1, 16, &yb), *y0 = filled(ylen + 1, 1, 16, &y0b);
				use_path(paths[pi]);
				assert_int_equal(run_sgemv(paths[pi], ta, M, N, 1.5f, A, M * lda + 1, lda, x, 0.5f, y), KN_OK);
				kn_simd_set_isa(NULL);
				for (size_t i = 0; i < ylen; i++) {
					double s_ = 0, a = 0;
					for (size_t k = 0; k < xlen; k++) {
						double p = (double)(ta ? A[k * lda + i] : A[i * lda + k]) * x[k];
						s_ += p, a += fabs(p);
					}
					double want = 1.5 * s_ + 0.5 * y0[i], mag = 1.5 * a + 0.5 * fabs(y0[i]);
					if (fabs(y[i] - want) > 2.0 * (xlen + 2) * FLT_EPSILON * mag + 1e-30)
						fail_msg("%s sgemv ta=%d %zux%zu y[%zu] got %a want %a", path_name(paths[pi]),
							 ta, M, N, i, (double)y[i], want);
				}
				free(Ab), free(xb), free(yb), free(y0b);
			}
}

static void test_sgemm_bad_arguments(void **state)
{
	(void)state;
	float A[16] = {0}, B[16] = {0}, C[16] = {0};
	/* row-major: lda >= K (or M with trans_a), ldb >= N (or K), ldc >= N */
	assert_int_equal(kn_sgemm(KN_BACKEND_SIMD, 0, 0, 2, 3, 4, 1, A, 3, B, 3, 0, C, 3), KN_EINVAL);
	assert_non_null(strstr(kn_last_error(), "lda"));
	assert_int_equal(kn_sgemm(KN_BACKEND_SIMD, 1, 0, 2, 3, 4, 1, A, 1, B, 3, 0, C, 3), KN_EINVAL);
	assert_int_equal(kn_sgemm(KN_BACKEND_SIMD, 0, 0, 2, 3, 4, 1, A, 4, B, 2, 0, C, 3), KN_EINVAL);
	assert_non_null(strstr(kn_last_error(), "ldb"));
	assert_int_equal(kn_sgemm(KN_BACKEND_SIMD, 0, 1, 2, 3, 4, 1, A, 4, B, 3, 0, C, 3), KN_EINVAL);
	assert_int_equal(kn_sgemm(KN_BACKEND_SIMD, 0, 0, 2, 3, 4, 1, A, 4, B, 3, 0, C, 2), KN_EINVAL);
	assert_non_null(strstr(kn_last_error(), "ldc"));
	assert_int_equal(kn_sgemm(KN_BACKEND_SIMD, 0, 0, 2, 3, 4, 1, NULL, 4, B, 3, 0, C, 3), KN_EINVAL);
	assert_int_equal(kn_sgemm(KN_BACKEND_SIMD, 0, 0, 2, 3, 4, 1, A, 4, B, 3, 0, C, 3), KN_OK);
	assert_int_equal(kn_sgemm((kn_backend)8, 0, 0, 2, 3, 4, 1, A, 4, B, 3, 0, C, 3), KN_EINVAL);
	assert_int_equal(kn_sgemv(KN_BACKEND_SIMD, 0, 2, 3, 1, A, 2, B, 0, C), KN_EINVAL);
	assert_int_equal(kn_sgemv(KN_BACKEND_SIMD, 0, 2, 3, 1, A, 3, NULL, 0, C), KN_EINVAL);
	if (kn_backend_probe(KN_BACKEND_CUDA) != KN_OK)
		assert_int_equal(kn_sgemm(KN_BACKEND_CUDA, 0, 0, 2, 3, 4, 1, A, 4, B, 3, 0, C, 3), KN_EUNAVAILABLE);
}

static void test_in_place(void **state)
{
	(void)state;
	float v[4] = {-1, 2, -3, 4};
	assert_int_equal(kn_unary(KN_BACKEND_SCALAR, KN_ABS, v, v, 4), KN_OK);
	assert_true(v[0] == 1 && v[2] == 3);
	float w[40];
	for (int i = 0; i < 40; i++)
		w[i] = (float)i - 20;
	assert_int_equal(kn_unary(KN_BACKEND_SIMD, KN_NEG, w, w, 40), KN_OK);
	assert_true(w[0] == 20 && w[39] == -19);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	float v[2] = {0};
	assert_int_equal(kn_unary(KN_BACKEND_SCALAR, KN_ABS, NULL, v, 2), KN_EINVAL);
	assert_non_null(strstr(kn_last_error(), "null"));
	assert_int_equal(kn_unary(KN_BACKEND_SCALAR, KN_ABS, NULL, NULL, 0), KN_OK);
	assert_int_equal(kn_unary(KN_BACKEND_SIMD, KN_ABS, NULL, NULL, 0), KN_OK);
	assert_int_equal(kn_unary(KN_BACKEND_SCALAR, (kn_unary_op)999, v, v, 2), KN_EUNSUPPORTED);
	assert_int_equal(kn_unary((kn_backend)77, KN_ABS, v, v, 2), KN_EINVAL);
	assert_int_equal(kn_alloc(KN_BACKEND_SCALAR, 16, NULL), KN_EINVAL);
	assert_string_equal(kn_backend_name((kn_backend)77), "?");
}

static void test_backends_report_reasons(void **state)
{
	(void)state;
	assert_int_equal(kn_backend_probe(KN_BACKEND_SCALAR), KN_OK);
	/* No GPU on the build machines: cuda must say why it cannot run, never crash. */
	kn_status s = kn_backend_probe(KN_BACKEND_CUDA);
	if (s != KN_OK) {
		assert_int_equal(s, KN_EUNAVAILABLE);
		assert_non_null(strstr(kn_last_error(), "cuda"));
		void *p = (void *)1;
		assert_int_equal(kn_alloc(KN_BACKEND_CUDA, 64, &p), KN_EUNAVAILABLE);
		assert_null(p);
	}
}

/* ---- layernorm, rmsnorm (0.8.0) ------------------------------------------ */

/* The double-precision reference of one row: two passes, want[j] and the
 * scale its error is held to, 8 eps ((|z| + 1) |g| + |b|) with z the
 * normalised value: each backend rounds z (and the mean inside it) a few
 * times, then multiplies by g and adds b.  A row with a NaN or Inf: NaN. */
static void norm_ref_row(const float *a, const float *g, const float *b, size_t n, float eps, int rms,
			 double *want, double *bound)
{
	double mean = 0, q = 0;
	if (!rms) {
		for (size_t j = 0; j < n; j++)
			mean += a[j];
		mean /= (double)n;
	}
	for (size_t j = 0; j < n; j++)
		q += ((double)a[j] - mean) * ((double)a[j] - mean);
	double var = q / (double)n, rstd = 1.0 / sqrt(var + eps);
	int bad = !isfinite(mean) || !isfinite(var);
	for (size_t j = 0; j < n; j++) {
		double z = ((double)a[j] - mean) * rstd, bj = !rms && b ? b[j] : 0;
		want[j] = bad ? NAN : z * g[j] + bj;
		bound[j] = 8 * FLT_EPSILON * ((fabs(z) + 1) * fabs(g[j]) + fabs(bj)) + 0x1p-140;
	}
}

/* Row kinds: uniform [-10, 10]; mean 1000 with spread 1 (a float mean is off
 * by up to 2^-15 here: the correction must carry the rest); constant (var 0,
 * eps decides); huge (1e30: squares overflow float); tiny (1e-30: squares
 * underflow float); a NaN; a +Inf; a -Inf. */
#define NORM_ROW_KINDS 8
static float norm_row_value(int kind, size_t j, double u)
{
	switch (kind) {
	case 0: return (float)(-10 + 20 * u);
	case 1: return (float)(1000 + u);
	case 2: return 3.25f;
	case 3: return (float)((2 * u - 1) * 1e30);
	case 4: return (float)((2 * u - 1) * 1e-30);
	case 5: return j == 3 ? NAN : (float)u;
	case 6: return j == 0 ? INFINITY : (float)u;
	default: return j == 2 ? -INFINITY : (float)u;
	}
}

static void check_norm(size_t rows, size_t cols, size_t misalign, int kinds, int in_place, float eps)
{
	path paths[6];
	size_t np = all_host_paths(paths), n = rows * cols;
	float *xb = malloc((n + 16) * sizeof(float)), *x0 = malloc((n + 1) * sizeof(float));
	float *yb = malloc((n + 16) * sizeof(float)), *gb = malloc((cols + 16) * sizeof(float));
	float *bb = malloc((cols + 16) * sizeof(float));
	double *want = malloc((cols + 1) * sizeof(double)), *bound = malloc((cols + 1) * sizeof(double));
	assert_true(xb && x0 && yb && gb && bb && want && bound);
	float *x = xb + misalign, *y = in_place ? x : yb + (misalign + 2) % 16;
	float *g = gb + (misalign + 1) % 16, *b = bb + (misalign + 3) % 16;
	for (size_t j = 0; j < cols; j++)
		g[j] = (float)(0.5 + (double)((j * 37) % 101) / 100), b[j] = (float)((double)((j * 53) % 61) / 30 - 1);
	for (int rms = 0; rms < 2; rms++)
		for (int with_b = 0; with_b < 2 - rms; with_b++)
			for (size_t pi = 0; pi < np; pi++) {
				for (size_t r = 0; r < rows; r++)
					for (size_t j = 0; j < cols; j++) {
						double u = (double)((r * 7919 + j * 104729) % 10007) / 10007;
						x0[r * cols + j] = kinds ? norm_row_value((int)(r % NORM_ROW_KINDS), j, u)
									 : (float)(-10 + 20 * u);
					}
				memcpy(x, x0, n * sizeof(float));
				use_path(paths[pi]);
				assert_int_equal(run_norm(paths[pi], x, g, with_b ? b : NULL, y, rows, cols, eps, rms), KN_OK);
				kn_simd_set_isa(NULL);
				for (size_t r = 0; r < rows; r++) {
					norm_ref_row(x0 + r * cols, g, with_b ? b : NULL, cols, eps, rms, want, bound);
					for (size_t j = 0; j < cols; j++) {
						double got = y[r * cols + j];
						int ok = isnan(want[j]) ? isnan(got) : fabs(got - want[j]) <= bound[j];
						if (!ok)
							fail_msg("%s/%s%s %zux%zu%s eps %g [%zu,%zu] got %a want %a",
								 path_name(paths[pi]), rms ? "rmsnorm" : "layernorm",
								 with_b ? "" : " (no beta)", rows, cols,
								 in_place ? " in place" : "", (double)eps, r, j, got, want[j]);
					}
				}
			}
	free(xb), free(x0), free(yb), free(gb), free(bb), free(want), free(bound);
}

/* Odd shapes (1 x 1, 3 x 7, 17 x 1001 and the vector widths' edges),
 * unaligned x, y, gamma and beta, on every path. */
static void test_norm_all_paths(void **state)
{
	(void)state;
	static const size_t shapes[][2] = {{1, 1}, {3, 7}, {2, 16}, {5, 17}, {17, 1001}, {4, 4096}, {2, 4099}};
	for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
		for (size_t mis = 0; mis < 2; mis++)
			check_norm(shapes[sh][0], shapes[sh][1], mis, 0, 0, 1e-5f);
}

/* NaN and Inf rows give NaN throughout; constant rows give beta; huge and
 * tiny rows (the simd path's double fallback), a mean far from 0; in place;
 * eps 0 (finite rows only: a constant row would be 0/0). */
static void test_norm_row_kinds(void **state)
{
	(void)state;
	static const size_t cols[] = {1, 5, 16, 33, 1001};
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++) {
		check_norm(2 * NORM_ROW_KINDS, cols[c], 1, 1, 0, 1e-5f);
		check_norm(NORM_ROW_KINDS, cols[c], 0, 1, 1, 1e-3f);
	}
	/* a constant row: exactly beta on every path */
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t pi = 0; pi < np; pi++) {
		float x[40], g[20], b[20];
		for (int j = 0; j < 20; j++)
			x[j] = 7.5f, x[20 + j] = (float)j, g[j] = 2.0f, b[j] = (float)j - 3;
		use_path(paths[pi]);
		assert_int_equal(run_norm(paths[pi], x, g, b, x, 2, 20, 1e-5f, 0), KN_OK);
		kn_simd_set_isa(NULL);
		for (int j = 0; j < 20; j++)
			assert_true(x[j] == b[j]);
	}
	/* eps 0: the statistic alone; a constant row is 0/0, NaN on every path
	 * (the reference's too), and tiny rows go to simd's double fallback */
	check_norm(3, 1001, 1, 0, 0, 0.0f);
	check_norm(2 * NORM_ROW_KINDS, 33, 1, 1, 0, 0.0f);
}

/* Large enough for the simd path's non-temporal stores (>= 2 MB of output),
 * aligned and not. */
static void test_norm_large(void **state)
{
	(void)state;
	check_norm(130, 4096, 0, 0, 0, 1e-5f);
	check_norm(129, 4111, 1, 0, 0, 1e-5f);
	check_norm(130, 4096, 0, 0, 1, 1e-5f);
}

static void test_norm_bad_arguments(void **state)
{
	(void)state;
	float v[4] = {1, 2, 3, 4}, g[2] = {1, 1};
	for (int be = 0; be < KN_BACKEND_COUNT_; be++) {
		kn_backend b = (kn_backend)be;
		assert_int_equal(kn_layernorm(b, NULL, g, NULL, v, 2, 2, 1e-5f), KN_EINVAL);
		assert_int_equal(kn_layernorm(b, v, NULL, NULL, v, 2, 2, 1e-5f), KN_EINVAL);
		assert_int_equal(kn_rmsnorm(b, v, g, NULL, 2, 2, 1e-5f), KN_EINVAL);
		assert_int_equal(kn_layernorm(b, v, g, NULL, v, 2, 2, -1e-5f), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "eps"));
		assert_int_equal(kn_rmsnorm(b, v, g, v, 2, 2, NAN), KN_EINVAL);
		assert_int_equal(kn_rmsnorm(b, v, g, v, 2, 2, INFINITY), KN_EINVAL);
		assert_int_equal(kn_layernorm(b, v, g, v, v, SIZE_MAX / 2, 4, 1e-5f), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "overflows"));
	}
	/* empty: nothing to do, no buffer needed (cuda and blas: only when they run) */
	assert_int_equal(kn_layernorm(KN_BACKEND_SIMD, NULL, NULL, NULL, NULL, 0, 4, 1e-5f), KN_OK);
	assert_int_equal(kn_rmsnorm(KN_BACKEND_SCALAR, NULL, NULL, NULL, 4, 0, 1e-5f), KN_OK);
	assert_int_equal(kn_rmsnorm((kn_backend)17, v, g, v, 2, 2, 1e-5f), KN_EINVAL);
}

/* ---- memory: copy, transpose, gather, scatter_add (0.9.0) ---------------- */

/* Exact ops: every check here is bit for bit (memcmp), NaN payloads and
 * -0 included, except cuda's scatter_add with repeated indices (atomics add
 * in no fixed order). */
static float mem_value(size_t i)
{
	uint32_t h = (uint32_t)(i * 2654435761u) ^ 0x9e3779b9u;
	if (i % 97 == 5)
		return -0.0f;
	if (i % 89 == 7) {
		float f;
		uint32_t bits = 0x7fc00000u | (h & 0x3fffffu); /* a NaN with a payload */
		memcpy(&f, &bits, 4);
		return f;
	}
	return (float)((double)(h % 200001) / 1000.0 - 100.0);
}

static kn_status run_mem(path p, int op, const float *x, size_t nx, const int32_t *idx, float *y, size_t ny,
			 size_t n, size_t rows, size_t cols)
{
	if (on_dev(p)) {
		x = dev_of(x, nx, 0), y = dev_of(y, ny, 1);
		idx = idx ? (const int32_t *)dev_of((const float *)idx, n, 0) : NULL;
	}
	kn_status s = op == 0   ? kn_copy(p.b, x, y, n)
		      : op == 1 ? kn_transpose(p.b, x, y, rows, cols)
		      : op == 2 ? kn_gather(p.b, x, nx, idx, y, n)
				: kn_scatter_add(p.b, x, idx, n, y, ny);
	if (on_dev(p))
		dev_done();
	return s;
}

static float *mem_buf(size_t n, size_t misalign, float **base)
{
	/* 64-byte aligned, so that misalign 0 takes the non-temporal paths */
	*base = aligned_alloc(64, ((n + 17) * sizeof(float) + 63) & ~(size_t)63);
	assert_non_null(*base);
	for (size_t i = 0; i < n + 17; i++)
		(*base)[i] = mem_value(i + 12345);
	return *base + misalign;
}

/* Sizes around the vector widths, the 4-vector step, and past 16 MB (the
 * non-temporal path, which first aligns y); x and y misaligned apart. */
static void test_copy_all_paths(void **state)
{
	(void)state;
	static const size_t ns[] = {1, 7, 8, 15, 16, 17, 63, 64, 65, 1000, (1u << 20) + 13, (1u << 22) + 3};
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++)
		for (size_t mis = 0; mis < 3; mis++)
			for (size_t pi = 0; pi < np; pi++) {
				size_t n = ns[k];
				float *xb, *yb, *x = mem_buf(n, mis, &xb), *y = mem_buf(n, (mis * 5 + 1) % 16, &yb);
				for (size_t i = 0; i < n; i++)
					x[i] = mem_value(i);
				float after = y[n];
				use_path(paths[pi]);
				assert_int_equal(run_mem(paths[pi], 0, x, n, NULL, y, n, n, 0, 0), KN_OK);
				kn_simd_set_isa(NULL);
				if (memcmp(x, y, n * sizeof(float)))
					fail_msg("%s/copy n %zu misalign %zu: y differs from x", path_name(paths[pi]), n, mis);
				assert_memory_equal(&y[n], &after, sizeof(float)); /* nothing past the end */
				free(xb), free(yb);
			}
}

/* Shapes with and without whole 8 x 8 blocks and 16-row bands, a single
 * row or column, and 16 MB ones (the non-temporal path when y is aligned:
 * misalign 0). */
static void test_transpose_all_paths(void **state)
{
	(void)state;
	static const size_t shapes[][2] = {{1, 1},  {1, 9},   {9, 1},    {3, 7},     {8, 8},     {9, 17},
					   {64, 64}, {65, 130}, {257, 100}, {128, 1000}, {1000, 1001},
					   {2048, 2048}, {2064, 2040}};
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
		for (size_t mis = 0; mis < 2; mis++)
			for (size_t pi = 0; pi < np; pi++) {
				size_t r = shapes[sh][0], c = shapes[sh][1], n = r * c;
				float *xb, *yb, *x = mem_buf(n, mis, &xb), *y = mem_buf(n, mis + 3, &yb);
				float *want = malloc(n * sizeof(float));
				assert_non_null(want);
				for (size_t i = 0; i < r; i++)
					for (size_t j = 0; j < c; j++)
						x[i * c + j] = mem_value(i * c + j), want[j * r + i] = x[i * c + j];
				use_path(paths[pi]);
				assert_int_equal(run_mem(paths[pi], 1, x, n, NULL, y, n, 0, r, c), KN_OK);
				kn_simd_set_isa(NULL);
				if (memcmp(want, y, n * sizeof(float)))
					fail_msg("%s/transpose %zux%zu misalign %zu: wrong", path_name(paths[pi]), r, c, mis);
				free(xb), free(yb), free(want);
			}
}

/* Indices with repeats, both ends (0 and nx - 1), into an x shorter and
 * longer than y; scatter_add's repeats sum in order of i on host paths. */
static void test_gather_scatter_all_paths(void **state)
{
	(void)state;
	static const size_t sizes[][2] = {{1, 1}, {5, 3}, {16, 16}, {17, 40}, {100, 33}, {1000, 4099}, {65536, 70000},
					  {1000, (1u << 22) + 7}};
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		for (size_t pi = 0; pi < np; pi++) {
			size_t nx = sizes[k][0], n = sizes[k][1];
			float *xb, *yb, *x = mem_buf(nx > n ? nx : n, 1, &xb), *y = mem_buf(nx > n ? nx : n, 0, &yb);
			int32_t *idx = malloc(n * sizeof(int32_t));
			float *want = malloc((nx > n ? nx : n) * sizeof(float));
			assert_true(idx && want);
			for (size_t i = 0; i < n; i++)
				idx[i] = i == 0 ? (int32_t)(nx - 1) : i == 1 ? 0 : (int32_t)((i * 7919u + i / 3) % nx);
			/* gather: finite x (a NaN would compare by bits anyway) */
			for (size_t i = 0; i < nx; i++)
				x[i] = mem_value(i);
			for (size_t i = 0; i < n; i++)
				want[i] = x[idx[i]];
			use_path(paths[pi]);
			assert_int_equal(run_mem(paths[pi], 2, x, nx, idx, y, n, n, 0, 0), KN_OK);
			kn_simd_set_isa(NULL);
			if (memcmp(want, y, n * sizeof(float)))
				fail_msg("%s/gather nx %zu n %zu: wrong", path_name(paths[pi]), nx, n);
			/* scatter_add: n values into nx slots, x finite here */
			for (size_t i = 0; i < n; i++)
				x[i] = (float)((double)((i * 31) % 2001) / 64.0 - 15.0);
			for (size_t j = 0; j < nx; j++)
				y[j] = want[j % n] = (float)((double)(j % 7) - 3.5);
			for (size_t j = 0; j < nx; j++)
				want[j] = y[j];
			for (size_t i = 0; i < n; i++)
				want[idx[i]] += x[i];
			use_path(paths[pi]);
			assert_int_equal(run_mem(paths[pi], 3, x, n, idx, y, nx, n, 0, 0), KN_OK);
			kn_simd_set_isa(NULL);
			for (size_t j = 0; j < nx; j++) {
				int ok = on_dev(paths[pi]) ? fabsf(y[j] - want[j]) <= 1e-4f * (1 + fabsf(want[j])) * (float)n
							   : memcmp(&y[j], &want[j], sizeof(float)) == 0;
				if (!ok)
					fail_msg("%s/scatter_add nx %zu n %zu [%zu]: got %a want %a", path_name(paths[pi]), nx, n,
						 j, (double)y[j], (double)want[j]);
			}
			free(xb), free(yb), free(idx), free(want);
		}
}

/* An index out of range, at the start, inside a vector, at the last full
 * vector and in the tail: KN_EINVAL naming it, y untouched, nothing read
 * outside x (ASan would see it; here x is exactly nx long). */
static void test_gather_scatter_bad_indices(void **state)
{
	(void)state;
	path paths[6];
	size_t np = all_host_paths(paths);
	static const int32_t bad[] = {-1, 50, INT32_MIN, INT32_MAX, 51};
	static const size_t where[] = {0, 5, 31, 47, 66};
	enum { NX = 50, N = 67 };
	for (size_t pi = 0; pi < np; pi++)
		for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++)
			for (size_t w = 0; w < sizeof(where) / sizeof(where[0]); w++)
				for (int op = 2; op <= 3; op++) {
					float *x = malloc(NX * sizeof(float)), y[N], y0[N], v[N];
					int32_t idx[N];
					assert_non_null(x);
					for (size_t i = 0; i < N; i++)
						idx[i] = (int32_t)(i % NX), y[i] = y0[i] = (float)i, v[i] = 1.0f;
					for (size_t i = 0; i < NX; i++)
						x[i] = (float)i;
					idx[where[w]] = bad[b];
					use_path(paths[pi]);
					kn_status s = op == 2 ? run_mem(paths[pi], 2, x, NX, idx, y, N, N, 0, 0)
							      : run_mem(paths[pi], 3, v, N, idx, y, NX, N, 0, 0);
					kn_simd_set_isa(NULL);
					if (s != KN_EINVAL || memcmp(y, y0, sizeof(y)))
						fail_msg("%s/%s idx[%zu] = %d: status %d, y %s", path_name(paths[pi]),
							 op == 2 ? "gather" : "scatter_add", where[w], (int)bad[b], (int)s,
							 memcmp(y, y0, sizeof(y)) ? "written" : "untouched");
					char want[64];
					snprintf(want, sizeof(want), "idx[%zu] = %d", where[w], (int)bad[b]);
					assert_non_null(strstr(kn_last_error(), want));
					free(x);
				}
	/* nx 0: every index is out of range */
	float y[2] = {0, 0};
	int32_t z[2] = {0, 0};
	assert_int_equal(kn_gather(KN_BACKEND_SIMD, NULL, 0, z, y, 2), KN_EINVAL);
	assert_int_equal(kn_scatter_add(KN_BACKEND_SCALAR, y, z, 2, NULL, 0), KN_EINVAL);
}

static void test_memory_bad_arguments(void **state)
{
	(void)state;
	float v[4] = {1, 2, 3, 4};
	int32_t idx[2] = {0, 1};
	for (int be = 0; be < KN_BACKEND_COUNT_; be++) {
		kn_backend b = (kn_backend)be;
		assert_int_equal(kn_copy(b, NULL, v, 4), KN_EINVAL);
		assert_int_equal(kn_copy(b, v, NULL, 4), KN_EINVAL);
		assert_int_equal(kn_transpose(b, NULL, v, 2, 2), KN_EINVAL);
		assert_int_equal(kn_transpose(b, v, v, 2, 2), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "out of place"));
		assert_int_equal(kn_transpose(b, v, v + 1, SIZE_MAX / 2, 4), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "overflows"));
		assert_int_equal(kn_gather(b, v, 4, NULL, v, 2), KN_EINVAL);
		assert_int_equal(kn_gather(b, v, 4, idx, NULL, 2), KN_EINVAL);
		assert_int_equal(kn_scatter_add(b, NULL, idx, 2, v, 4), KN_EINVAL);
		assert_int_equal(kn_scatter_add(b, v, NULL, 2, v, 4), KN_EINVAL);
	}
	/* empty: nothing to do, no buffer needed */
	assert_int_equal(kn_copy(KN_BACKEND_SIMD, NULL, NULL, 0), KN_OK);
	assert_int_equal(kn_transpose(KN_BACKEND_SCALAR, NULL, NULL, 0, 5), KN_OK);
	assert_int_equal(kn_gather(KN_BACKEND_SIMD, NULL, 0, NULL, NULL, 0), KN_OK);
	assert_int_equal(kn_scatter_add(KN_BACKEND_SIMD, NULL, NULL, 0, NULL, 0), KN_OK);
	/* a single row or column is its own transpose: y == x is fine */
	assert_int_equal(kn_transpose(KN_BACKEND_SIMD, v, v, 1, 4), KN_OK);
	assert_true(v[0] == 1 && v[3] == 4);
	assert_int_equal(kn_copy((kn_backend)17, v, v, 4), KN_EINVAL);
}

/* ---- batchnorm, concat -------------------------------------------------- */

/* The reference in double, written from the definition: (x - mean) /
 * sqrt(var + eps) gamma + beta, a channel of NaN for var < 0 or NaN or a NaN
 * statistic.  *bound gets the error the fused form may make, 2^-23 (|x s| +
 * |mean s| + |beta| + |y|) plus a denormal's worth (twice the fold's). */
static double bn_ref(float x, float m, float v, float g, float b, float eps, double *bound)
{
	*bound = 2 * FLT_TRUE_MIN;
	if (isnan(m) || isnan(g) || isnan(b) || !(v >= 0.0f))
		return NAN;
	double sd = sqrt((double)v + (double)eps);
	double y = ((double)x - m) / sd * g + b, s = (double)g / sd;
	double e = fabs((double)x * s) + fabs((double)m * s) + fabs((double)b) + fabs(y);
	if (isfinite(e))
		*bound += FLT_EPSILON * e;
	else
		*bound += FLT_EPSILON * fabs(y);
	return y;
}

/* got against want: NaN for NaN, the same infinity, else within bound. */
static int bn_close(float got, double want, double bound)
{
	if (isnan(want))
		return isnan(got);
	if (isinf((float)want))
		return got == (float)want;
	return fabs((double)got - want) <= bound;
}

/* The worst error seen per path (index into all_host_paths), in units of
 * eps (|x s| + |mean s| + |beta| + |y|): the figure kernels/README.md quotes. */
static double bn_worst[6];

/* Runs batchnorm on a path; on cuda through device mirrors of every buffer. */
static kn_status run_bn(path p, const float *x, const float *m, const float *v, const float *g, const float *b,
			float *y, size_t n, size_t c, size_t hw, float eps)
{
	if (!on_dev(p))
		return kn_batchnorm(p.b, x, m, v, g, b, y, n, c, hw, eps);
	const float *dx = dev_of(x, n * c * hw, 0), *dm = dev_of(m, c, 0), *dv = dev_of(v, c, 0);
	const float *dg = dev_of(g, c, 0), *db = dev_of(b, c, 0);
	float *dy = dev_of(y, n * c * hw, 1);
	kn_status s = kn_batchnorm(p.b, dx, dm, dv, dg, db, dy, n, c, hw, eps);
	dev_done();
	return s;
}

/* One shape on every path: x of mean about mean[c] with NaN and +-Inf
 * sprinkled in (kinds), statistics per channel (gamma 0 and var 0 among
 * them), beta or NULL, x and y misaligned by mis floats, or in place. */
static void check_bn(size_t n, size_t c, size_t hw, size_t mis, int kinds, int with_b, int in_place, float eps,
		     const float *stats /* 4 c floats: mean, var, gamma, beta; NULL: generated */)
{
	size_t tot = n * c * hw;
	float *xb, *yb, *x = mem_buf(tot, mis, &xb), *y = mem_buf(tot, (mis * 3 + 1) % 16, &yb);
	float *x0 = malloc((tot + 1) * sizeof(float)), *st = malloc(4 * c * sizeof(float) + 4);
	assert_true(x0 && st);
	/* the statistics, shifted by a float so that none is 64-byte aligned */
	float *m = st + 1, *v = m + c, *g = v + c, *b = g + c;
	for (size_t j = 0; j < c; j++) {
		if (stats) {
			m[j] = stats[j], v[j] = stats[c + j], g[j] = stats[2 * c + j], b[j] = stats[3 * c + j];
			continue;
		}
		uint32_t h = (uint32_t)(j * 2654435761u) ^ 0x85ebca6bu;
		m[j] = (float)((double)(h % 10007) / 1000.0 - 5.0);
		v[j] = j % 11 == 3 ? 0.0f : (float)((double)(h % 4001) / 1000.0 + 0.001);
		g[j] = j % 7 == 5 ? 0.0f : (float)((double)((h >> 8) % 4001) / 1000.0 - 2.0);
		b[j] = (float)((double)((h >> 4) % 2001) / 1000.0 - 1.0);
	}
	for (size_t i = 0; i < tot; i++) {
		size_t j = (i / hw) % c;
		uint32_t h = (uint32_t)(i * 2246822519u) ^ 0x27d4eb2fu;
		x[i] = m[j] + (float)((double)(h % 8001) / 1000.0 - 4.0);
		if (kinds && i % 53 == 7)
			x[i] = i % 3 == 0 ? NAN : i % 3 == 1 ? INFINITY : -INFINITY;
		if (i % 61 == 9)
			x[i] = m[j]; /* exactly the mean: y exactly beta (or 0/0 at var + eps 0) */
		x0[i] = x[i];
	}
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t pi = 0; pi < np; pi++) {
		for (size_t i = 0; i < tot; i++)
			x[i] = x0[i];
		float *out = in_place ? x : y;
		float after = out[tot];
		use_path(paths[pi]);
		kn_status s = run_bn(paths[pi], x, m, v, g, with_b ? b : NULL, out, n, c, hw, eps);
		kn_simd_set_isa(NULL);
		assert_int_equal(s, KN_OK);
		assert_memory_equal(&out[tot], &after, sizeof(float)); /* nothing past the end */
		for (size_t i = 0; i < tot; i++) {
			size_t j = (i / hw) % c;
			double bound, want = bn_ref(x0[i], m[j], v[j], g[j], with_b ? b[j] : 0.0f, eps, &bound);
			double e = fabs((double)out[i] - want) / (bound - 2 * FLT_TRUE_MIN); /* in eps (...) */
			if (isfinite(want) && bound > 2 * FLT_TRUE_MIN && isfinite(e) && e > bn_worst[pi])
				bn_worst[pi] = e;
			if (!bn_close(out[i], want, bound))
				fail_msg("%s/batchnorm %zux%zux%zu%s%s mis %zu eps %g [%zu] (c %zu: m %a v %a g %a b %a) x %a "
					 "got %a want %a (bound %g)",
					 path_name(paths[pi]), n, c, hw, with_b ? "" : " (no beta)",
					 in_place ? " in place" : "", mis, (double)eps, i, j, (double)m[j], (double)v[j],
					 (double)g[j], (double)b[j], (double)x0[i], (double)out[i], want, bound);
		}
	}
	free(xb), free(yb), free(x0), free(st);
}

/* Odd shapes around the vector widths, 1 x C x 1, short rows with N > 1
 * (the channel-at-a-time order), ResNet's 56 x 56 rows; NaN and Inf in x,
 * misaligned, with and without beta, in place. */
static void test_batchnorm_all_paths(void **state)
{
	(void)state;
	static const size_t shapes[][3] = {{1, 1, 1},  {1, 3, 7},   {2, 5, 17},  {3, 4, 1},   {4, 9, 15},
					   {2, 3, 63}, {1, 64, 100}, {2, 7, 1001}, {1, 2, 4099}, {1, 8, 3136}};
	for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
		for (size_t mis = 0; mis < 2; mis++) {
			const size_t *s = shapes[sh];
			check_bn(s[0], s[1], s[2], mis, 1, 1, 0, 1e-5f, NULL);
			check_bn(s[0], s[1], s[2], mis, 0, 0, mis, 1e-3f, NULL);
		}
	path paths[6];
	size_t np = all_host_paths(paths);
	print_message("batchnorm worst, in eps (|x s| + |mean s| + |beta| + |y|):");
	for (size_t pi = 0; pi < np; pi++)
		print_message(" %s %.2f", path_name(paths[pi]), bn_worst[pi]);
	print_message("\n");
}

/* Channels the fused form cannot say: NaN statistics and negative
 * variances (NaN throughout), var + eps == 0 (Inf, or NaN at x == mean), a
 * scale beyond float (gamma 1e30 over var 1e-30), one below float's normal
 * range (gamma 1e-40), infinite mean and variance, and a mean far from x's
 * spread (cancellation within the bound); eps 0 and eps 1e-5. */
static void test_batchnorm_channel_kinds(void **state)
{
	(void)state;
	enum { C = 14 };
	static const float mean[C] = {0, NAN, 1, 0, 2, 0.5f, -3, 1, 0, 1e4f, INFINITY, 0, 1, 0};
	static const float var[C] = {-1, 1, NAN, 0, 1e-30f, 1, 1, -1e-9f, 1, 1, 1, INFINITY, 4, 2};
	static const float gam[C] = {1, 1, 1, 1, 1e30f, 1e-40f, NAN, 1, 0, 3, 1, 1, -2, 1};
	static const float bet[C] = {0, 0, 0, 1, 0.5f, 0, 1, 0, 2, -1, 0, 3, NAN, -1};
	float st[4 * C];
	memcpy(st, mean, sizeof(mean)), memcpy(st + C, var, sizeof(var));
	memcpy(st + 2 * C, gam, sizeof(gam)), memcpy(st + 3 * C, bet, sizeof(bet));
	static const size_t hws[] = {1, 5, 16, 37, 300};
	for (size_t h = 0; h < sizeof(hws) / sizeof(hws[0]); h++) {
		check_bn(2, C, hws[h], 1, 1, 1, 0, 0.0f, st);
		check_bn(1, C, hws[h], 0, 1, 1, 1, 1e-5f, st);
	}
	/* the statistics alone decide a NaN channel: even x finite and eps > 0 */
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t pi = 0; pi < np; pi++) {
		float x[40], y[40], m[2] = {0, 0}, v[2] = {-0.5f, 1}, g[2] = {1, 1};
		for (int i = 0; i < 40; i++)
			x[i] = (float)i;
		use_path(paths[pi]);
		assert_int_equal(run_bn(paths[pi], x, m, v, g, NULL, y, 1, 2, 20, 1.0f), KN_OK);
		kn_simd_set_isa(NULL);
		for (int i = 0; i < 40; i++)
			assert_true(i < 20 ? isnan(y[i]) : fabs(y[i] - i / sqrt(2.0)) <= FLT_EPSILON * i);
	}
}

/* Past 16 MB of y: the non-temporal path, y aligned and not. */
static void test_batchnorm_large(void **state)
{
	(void)state;
	check_bn(1, 8, (1u << 19) + 3, 0, 0, 1, 0, 1e-5f, NULL);
	check_bn(2, 4, (1u << 19) + 1, 1, 1, 0, 0, 1e-5f, NULL);
}

static void test_batchnorm_bad_arguments(void **state)
{
	(void)state;
	float v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, s[2] = {0, 1};
	for (int be = 0; be < KN_BACKEND_COUNT_; be++) {
		kn_backend b = (kn_backend)be;
		assert_int_equal(kn_batchnorm(b, NULL, s, s, s, s, v, 1, 2, 4, 1e-5f), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "null"));
		assert_int_equal(kn_batchnorm(b, v, NULL, s, s, s, v, 1, 2, 4, 1e-5f), KN_EINVAL);
		assert_int_equal(kn_batchnorm(b, v, s, NULL, s, s, v, 1, 2, 4, 1e-5f), KN_EINVAL);
		assert_int_equal(kn_batchnorm(b, v, s, s, NULL, s, v, 1, 2, 4, 1e-5f), KN_EINVAL);
		assert_int_equal(kn_batchnorm(b, v, s, s, s, s, NULL, 1, 2, 4, 1e-5f), KN_EINVAL);
		assert_int_equal(kn_batchnorm(b, v, s, s, s, NULL, v, 1, 2, 4, -1e-5f), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "eps"));
		assert_int_equal(kn_batchnorm(b, v, s, s, s, NULL, v, 1, 2, 4, NAN), KN_EINVAL);
		assert_int_equal(kn_batchnorm(b, v, s, s, s, NULL, v, 1, 2, 4, INFINITY), KN_EINVAL);
		/* each product overflowing on its own: n c, then n c hw, and bytes */
		assert_int_equal(kn_batchnorm(b, v, s, s, s, s, v, SIZE_MAX / 2, 4, 1, 1e-5f), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "overflows"));
		assert_int_equal(kn_batchnorm(b, v, s, s, s, s, v, 1u << 20, 1u << 20, 1u << 24, 1e-5f), KN_EINVAL);
		assert_int_equal(kn_batchnorm(b, v, s, s, s, s, v, 1, 1, SIZE_MAX / 4 + 1, 1e-5f), KN_EINVAL);
	}
	/* empty: nothing to do, no buffer needed */
	assert_int_equal(kn_batchnorm(KN_BACKEND_SIMD, NULL, NULL, NULL, NULL, NULL, NULL, 0, 4, 4, 1e-5f), KN_OK);
	assert_int_equal(kn_batchnorm(KN_BACKEND_SCALAR, NULL, NULL, NULL, NULL, NULL, NULL, 4, 0, 4, 1e-5f), KN_OK);
	assert_int_equal(kn_batchnorm(KN_BACKEND_SIMD, NULL, NULL, NULL, NULL, NULL, NULL, 4, 4, 0, 1e-5f), KN_OK);
	assert_int_equal(kn_batchnorm((kn_backend)17, v, s, s, s, s, v, 1, 2, 4, 1e-5f), KN_EINVAL);
}

/* concat on a path; on cuda through device mirrors of every input and y. */
static kn_status run_concat(path p, size_t k, const float *const *xs, const size_t *cols, float *y, size_t rows,
			    size_t total)
{
	if (!on_dev(p))
		return kn_concat(p.b, k, xs, cols, y, rows);
	const float *dxs[KN_CONCAT_MAX];
	for (size_t i = 0; i < k; i++)
		dxs[i] = cols[i] ? dev_of(xs[i], rows * cols[i], 0) : NULL;
	float *dy = dev_of(y, rows * total, 1);
	kn_status s = kn_concat(p.b, k, dxs, cols, dy, rows);
	dev_done();
	return s;
}

/* Widths around the vector widths, a piece shorter than a vector, empty
 * inputs as NULL, 64 inputs, inputs misaligned apart from y and from each
 * other, and a y past 16 MB (the non-temporal path); bit for bit, NaN
 * payloads and -0 included, nothing written past y. */
static void check_concat(size_t rows, size_t k, const size_t *cols, size_t mis)
{
	const float *xs[KN_CONCAT_MAX];
	float *bases[KN_CONCAT_MAX];
	size_t total = 0;
	for (size_t i = 0; i < k; i++)
		total += cols[i];
	for (size_t i = 0; i < k; i++) {
		if (!cols[i]) {
			xs[i] = NULL, bases[i] = NULL;
			continue;
		}
		float *x = mem_buf(rows * cols[i], (mis + i) % 4, &bases[i]);
		for (size_t e = 0; e < rows * cols[i]; e++)
			x[e] = mem_value(e * 131 + i);
		xs[i] = x;
	}
	float *want = malloc((rows * total + 1) * sizeof(float));
	assert_non_null(want);
	for (size_t r = 0, o = 0; r < rows; r++)
		for (size_t i = 0; i < k; i++)
			for (size_t j = 0; j < cols[i]; j++)
				want[o++] = xs[i][r * cols[i] + j];
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t pi = 0; pi < np; pi++) {
		if (on_dev(paths[pi]) && k >= sizeof(mirrors) / sizeof(mirrors[0]))
			continue;
		float *yb, *y = mem_buf(rows * total, mis ? 0 : 3, &yb), after = y[rows * total];
		use_path(paths[pi]);
		kn_status s = run_concat(paths[pi], k, xs, cols, y, rows, total);
		kn_simd_set_isa(NULL);
		assert_int_equal(s, KN_OK);
		if (memcmp(want, y, rows * total * sizeof(float))) {
			size_t e = 0;
			while (!memcmp(&want[e], &y[e], sizeof(float)))
				e++;
			fail_msg("%s/concat rows %zu k %zu total %zu mis %zu: y[%zu] = %a, want %a", path_name(paths[pi]),
				 rows, k, total, mis, e, (double)y[e], (double)want[e]);
		}
		assert_memory_equal(&y[rows * total], &after, sizeof(float));
		free(yb);
	}
	for (size_t i = 0; i < k; i++)
		free(bases[i]);
	free(want);
}

static void test_concat_all_paths(void **state)
{
	(void)state;
	static const size_t c1[] = {1}, c2[] = {3, 5}, c3[] = {0, 7, 0, 2}, c4[] = {16, 1, 33},
			    c5[] = {64, 65, 63, 128}, c6[] = {2048, 1024, 1023}, c7[] = {0, 0};
	static const size_t rows[] = {1, 3, 17};
	for (size_t r = 0; r < 3; r++)
		for (size_t mis = 0; mis < 2; mis++) {
			check_concat(rows[r], 1, c1, mis);
			check_concat(rows[r], 2, c2, mis);
			check_concat(rows[r], 4, c3, mis);
			check_concat(rows[r], 3, c4, mis);
			check_concat(rows[r], 4, c5, mis);
			check_concat(rows[r], 3, c6, mis);
		}
	/* 64 inputs of widths 0 to 20 */
	size_t c64[KN_CONCAT_MAX];
	for (size_t i = 0; i < KN_CONCAT_MAX; i++)
		c64[i] = (i * 7) % 21;
	check_concat(9, KN_CONCAT_MAX, c64, 1);
	/* nothing to copy: only zero-width (NULL) inputs */
	float y = 5.0f;
	const float *none[2] = {NULL, NULL};
	assert_int_equal(kn_concat(KN_BACKEND_SIMD, 2, none, c7, &y, 4), KN_OK);
	assert_true(y == 5.0f);
	/* past 16 MB of y, aligned and not */
	check_concat(1100, 3, c6, 0);
	check_concat(1100, 3, c6, 1);
}

static void test_concat_bad_arguments(void **state)
{
	(void)state;
	float buf[64] = {0};
	const float *xs[KN_CONCAT_MAX + 1];
	size_t cols[KN_CONCAT_MAX + 1];
	for (size_t i = 0; i <= KN_CONCAT_MAX; i++)
		xs[i] = buf, cols[i] = 0;
	for (int be = 0; be < KN_BACKEND_COUNT_; be++) {
		kn_backend b = (kn_backend)be;
		float *y = buf + 32;
		const float *two[2] = {buf, buf + 8};
		size_t w[2] = {2, 2};
		assert_int_equal(kn_concat(b, KN_CONCAT_MAX + 1, xs, cols, y, 1), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "at most"));
		assert_int_equal(kn_concat(b, 2, NULL, w, y, 2), KN_EINVAL);
		assert_int_equal(kn_concat(b, 2, two, NULL, y, 2), KN_EINVAL);
		assert_int_equal(kn_concat(b, 2, two, w, NULL, 2), KN_EINVAL);
		const float *holed[2] = {buf, NULL};
		assert_int_equal(kn_concat(b, 2, holed, w, y, 2), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "input 1 is null"));
		/* overlaps: y on an input, y's end on an input's start, an
		 * input's end inside y; touching ranges are fine */
		assert_int_equal(kn_concat(b, 2, two, w, buf + 8, 2), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "overlaps input 1"));
		assert_int_equal(kn_concat(b, 2, two, w, buf + 1, 2), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "overlaps input 0"));
		assert_int_equal(kn_concat(b, 2, two, w, buf + 11, 2), KN_EINVAL);
		assert_int_equal(kn_concat(b, 2, two, w, buf + 3, 2), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "overlaps input 0"));
		/* widths and shape overflowing */
		size_t huge[2] = {SIZE_MAX / 2, SIZE_MAX / 2};
		assert_int_equal(kn_concat(b, 2, two, huge, y, 1), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "overflow"));
		assert_int_equal(kn_concat(b, 2, two, w, y, SIZE_MAX / 8), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "overflows"));
	}
	/* touching, not overlapping: x0 [0, 4), x1 [8, 12), y [12, 20) */
	const float *two[2] = {buf, buf + 8};
	size_t w[2] = {2, 2};
	for (int i = 0; i < 12; i++)
		buf[i] = (float)i;
	assert_int_equal(kn_concat(KN_BACKEND_SIMD, 2, two, w, buf + 12, 2), KN_OK);
	static const float want[8] = {0, 1, 8, 9, 2, 3, 10, 11};
	assert_memory_equal(buf + 12, want, sizeof(want));
	/* empty: nothing to do, no buffer needed */
	assert_int_equal(kn_concat(KN_BACKEND_SCALAR, 0, NULL, NULL, NULL, 5), KN_OK);
	assert_int_equal(kn_concat(KN_BACKEND_SIMD, 2, two, w, NULL, 0), KN_OK);
	assert_int_equal(kn_concat((kn_backend)17, 2, two, w, buf + 32, 2), KN_EINVAL);
}

/* ---- cuda (0.5.0) ----------------------------------------------------------- */

/* ---- quant: int8, bf16, fp16 (0.11.0) -------------------------------------
 *
 * Everything here but bf16gemm is exact, so checked bit for bit against
 * references written independently of the library's (lrintf for the
 * rounding, int64 sums, nearest-of-two-candidates for bf16, GCC's _Float16
 * for f16).  Buffers of int8 / uint16 go to the cuda path through the float
 * mirrors, sized in whole floats. */

static uint64_t q_rng = 88172645463325252ull;
static uint32_t q_rand(void)
{
	q_rng ^= q_rng << 13, q_rng ^= q_rng >> 7, q_rng ^= q_rng << 17;
	return (uint32_t)(q_rng >> 16);
}
static float q_f32(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}
static uint32_t q_u32(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}
static size_t in_floats(size_t bytes) { return (bytes + 3) / 4; }
static void *dev_bytes(path p, const void *h, size_t bytes, int out)
{
	return on_dev(p) ? (void *)dev_of((const float *)h, in_floats(bytes), out) : (void *)h;
}

/* sat(rne(x / s)) with lrintf (the rounding mode's own rounding, to nearest
 * even here), not the library's add-and-subtract trick. */
static int8_t q_ref(float x, float s)
{
	float v = x / s;
	if (isnan(v))
		return 0;
	if (v >= 127.0f)
		return 127;
	if (v <= -127.0f)
		return -127;
	return (int8_t)lrintf(v);
}

static float q_input(size_t i, float s)
{
	switch (q_rand() % 8) {
	case 0: return ((float)(int)(q_rand() % 300) - 150.0f + 0.5f) * s; /* ties, if x / s is exact */
	case 1: return (float)((int)(q_rand() % 400) - 200) * s * 0.999f;
	case 2: return i % 3 ? -0.0f : NAN;
	case 3: return i % 2 ? INFINITY : -INFINITY;
	default: return ((float)(q_rand() % 2000001) / 1000.0f - 1000.0f) * s / 7.0f;
	}
}

static void check_quant(path p, size_t rows, size_t cols, size_t ns, size_t mis)
{
	size_t n = rows * cols;
	float *xb = malloc((n + 8) * sizeof(float)), *yb = malloc((n + 8) * sizeof(float));
	int8_t *qb = malloc(n + 64), *want = malloc(n + 1);
	float *sc = malloc(rows * sizeof(float));
	assert_true(xb && yb && qb && want && sc);
	float *x = xb + mis, *y = yb + mis;
	int8_t *q = qb + 4 * mis + 1; /* q odd-aligned, and apart from x */
	for (size_t r = 0; r < ns; r++) /* one scale 0 and one negative among them */
		sc[r] = r == 2 ? 0.0f : r == 3 ? -0.37f : 0.003f * (float)(1 + q_rand() % 1000);
	for (size_t i = 0; i < n; i++)
		x[i] = q_input(i, sc[ns == 1 ? 0 : i / cols]);
	memset(qb, 0x55, n + 64);
	for (size_t i = 0; i < n; i++)
		want[i] = q_ref(x[i], sc[ns == 1 ? 0 : i / cols]);
	use_path(p);
	float *dx = dev_bytes(p, x, n * 4, 0), *ds = dev_bytes(p, sc, ns * 4, 0);
	int8_t *dq = dev_bytes(p, q, n, 1);
	assert_int_equal(kn_quantize_i8(p.b, dx, dq, rows, cols, ds, ns), KN_OK);
	if (on_dev(p))
		dev_done();
	for (size_t i = 0; i < n; i++)
		if (q[i] != want[i])
			fail_msg("%s/quantize %zux%zu ns %zu i %zu: x %a s %a got %d want %d", path_name(p), rows, cols,
				 ns, i, (double)x[i], (double)sc[ns == 1 ? 0 : i / cols], q[i], want[i]);
	if (!on_dev(p))
		for (size_t i = n; i < n + 32; i++)
			assert_int_equal(q[i], 0x55); /* nothing past the end */
	/* dequantize what came out: (float)q s, one rounding (the double product
	 * of an int8 and a float is exact) */
	for (size_t i = 0; i < n + 8 - mis; i++)
		y[i] = 12345.0f;
	dq = dev_bytes(p, q, n, 0), ds = dev_bytes(p, sc, ns * 4, 0);
	float *dy = dev_bytes(p, y, n * 4, 1);
	assert_int_equal(kn_dequantize_i8(p.b, dq, dy, rows, cols, ds, ns), KN_OK);
	if (on_dev(p))
		dev_done();
	kn_simd_set_isa(NULL);
	for (size_t i = 0; i < n; i++) {
		float w = (float)((double)q[i] * (double)sc[ns == 1 ? 0 : i / cols]);
		if (q_u32(y[i]) != q_u32(w))
			fail_msg("%s/dequantize %zux%zu i %zu: got %a want %a", path_name(p), rows, cols, i,
				 (double)y[i], (double)w);
	}
	for (size_t i = n; i < n + 8 - mis; i++)
		assert_true(y[i] == 12345.0f);
	free(xb), free(yb), free(qb), free(want), free(sc);
}

/* Shapes around the vector widths (one row of n per tensor, rows of odd
 * lengths per channel) and one long row past 1M. */
static void test_quantize_all_paths(void **state)
{
	(void)state;
	static const size_t shapes[][2] = {{1, 1}, {1, 31}, {1, 32}, {1, 33}, {3, 17}, {5, 64}, {7, 100}, {64, 129},
					   {1, (1u << 20) + 5}};
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
		for (size_t per_row = 0; per_row < 2; per_row++)
			for (size_t pi = 0; pi < np; pi++)
				check_quant(paths[pi], shapes[sh][0], shapes[sh][1], per_row ? shapes[sh][0] : 1,
					    (sh + pi) % 3);
	/* The rules spelled out, on every path */
	static const float xs[] = {2.5f, 3.5f, -2.5f, -3.5f, 0.5f, -0.5f, 1.5f, 126.5f, 127.49f, 127.5f, -127.5f, -128.0f,
				   -200.0f, 1e30f, NAN, INFINITY, -INFINITY, -0.0f, 5.0f, 7.0f, 9.0f, 11.0f, 13.0f, 15.0f,
				   17.0f, 19.0f, 21.0f, 23.0f, 25.0f, 27.0f, 29.0f, 31.0f};
	static const int8_t want[] = {2, 4, -2, -4, 0, 0, 2, 126, 127, 127, -127, -127, -127, 127, 0, 127, -127, 0,
				      5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31};
	float one = 1.0f;
	for (size_t pi = 0; pi < np; pi++) {
		if (on_dev(paths[pi]))
			continue;
		int8_t got[32];
		use_path(paths[pi]);
		assert_int_equal(kn_quantize_i8(paths[pi].b, xs, got, 1, 32, &one, 1), KN_OK);
		kn_simd_set_isa(NULL);
		for (size_t i = 0; i < 32; i++)
			if (got[i] != want[i])
				fail_msg("%s/quantize %a: got %d want %d", path_name(paths[pi]), (double)xs[i], got[i],
					 want[i]);
	}
}

static void check_qgemm(path p, size_t M, size_t N, size_t K, size_t pad, int fill)
{
	size_t lda = K + pad + !K, ldb = N + 2 * pad, ldc = N + pad;
	int8_t *A = malloc(M * lda + 4), *B = malloc(K * ldb + 4);
	int32_t *C = malloc((M * ldc + 1) * sizeof(int32_t));
	assert_true(A && B && C);
	for (size_t i = 0; i < M * lda; i++)
		A[i] = fill == 1 ? -128 : fill == 2 ? 127 : (int8_t)q_rand();
	for (size_t i = 0; i < K * ldb; i++)
		B[i] = fill ? -128 : (int8_t)q_rand();
	for (size_t i = 0; i < M * ldc + 1; i++)
		C[i] = -7; /* the gaps between rows of C must stay */
	use_path(p);
	int8_t *dA = dev_bytes(p, A, M * lda, 0), *dB = dev_bytes(p, B, K * ldb, 0);
	int32_t *dC = dev_bytes(p, C, M * ldc * 4, 1);
	assert_int_equal(kn_qgemm_i8(p.b, M, N, K, dA, lda, dB, ldb, dC, ldc), KN_OK);
	if (on_dev(p))
		dev_done();
	kn_simd_set_isa(NULL);
	for (size_t i = 0; i < M; i++)
		for (size_t j = 0; j < ldc; j++) {
			int64_t w = -7;
			if (j < N) {
				w = 0;
				for (size_t k = 0; k < K; k++)
					w += (int64_t)A[i * lda + k] * B[k * ldb + j];
			}
			if (C[i * ldc + j] != w)
				fail_msg("%s/qgemm %zux%zux%zu pad %zu fill %d: C[%zu][%zu] = %d, want %lld", path_name(p),
					 M, N, K, pad, fill, i, j, C[i * ldc + j], (long long)w);
		}
	assert_int_equal(C[M * ldc], -7);
	free(A), free(B), free(C);
}

/* Shapes across every blocking edge: tiles (8 x 48 VNNI, 6 or 4 x 32 / 16
 * int16), k groups (odd K, K % 4), the k blocks (256, 512) and the n block
 * (1536); then K at its limit with the extreme values, where the VNNI
 * path's int32 lanes wrap on the way. */
static void test_qgemm_all_paths(void **state)
{
	(void)state;
	static const size_t shapes[][3] = {{1, 1, 1},    {2, 3, 5},     {7, 49, 13},  {9, 47, 4},   {13, 100, 67},
					   {37, 96, 515}, {17, 130, 257}, {6, 1537, 9}, {97, 50, 1024}, {1, 1, 0}};
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
		for (size_t pi = 0; pi < np; pi++)
			check_qgemm(paths[pi], shapes[sh][0], shapes[sh][1], shapes[sh][2], sh % 3, 0);
	for (size_t pi = 0; pi < np; pi++) {
		check_qgemm(paths[pi], 2, 3, KN_QGEMM_MAX_K, 0, 1); /* (-128)(-128) K: 2^31 - 2^14 */
		check_qgemm(paths[pi], 2, 50, 3001, 1, 2);           /* 127 x -128 */
	}
}

/* The avx512 path without its extensions (KN_SIMD_AVX512_EXT=0): the
 * AVX-512BW int16 qgemm and the widening bf16gemm, which a CPU with VNNI
 * and BF16 would otherwise never run. */
static void check_bf16gemm(path p, size_t M, size_t N, size_t K, size_t pad, int small_ints);
static void test_lowp_gemm_avx512_without_extensions(void **state)
{
	(void)state;
	static const size_t shapes[][3] = {{1, 1, 1}, {7, 49, 13}, {9, 47, 4}, {37, 96, 515}, {17, 130, 257}, {6, 1537, 9}};
	path p = {KN_BACKEND_SIMD, "avx512"};
	if (kn_simd_set_isa("avx512") != KN_OK)
		skip();
	kn_simd_set_isa(NULL);
	assert_int_equal(setenv("KN_SIMD_AVX512_EXT", "0", 1), 0);
	for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
		check_qgemm(p, shapes[sh][0], shapes[sh][1], shapes[sh][2], sh % 3, 0);
		check_bf16gemm(p, shapes[sh][0], shapes[sh][1], shapes[sh][2], sh % 3, 0);
		check_bf16gemm(p, shapes[sh][0], shapes[sh][1], shapes[sh][2], sh % 3, 1);
	}
	check_qgemm(p, 2, 3, KN_QGEMM_MAX_K, 0, 1);
	unsetenv("KN_SIMD_AVX512_EXT");
}

static uint16_t bf16_of(float f) { return (uint16_t)(q_u32(f) >> 16); }

static void check_bf16gemm(path p, size_t M, size_t N, size_t K, size_t pad, int small_ints)
{
	size_t lda = K + pad, ldb = N + pad, ldc = N + 2 * pad;
	uint16_t *A = malloc(M * lda * 2 + 4), *B = malloc(K * ldb * 2 + 4);
	float *C = malloc((M * ldc + 1) * sizeof(float));
	assert_true(A && B && C);
	for (size_t i = 0; i < M * lda; i++)
		A[i] = small_ints ? bf16_of((float)((int)(q_rand() % 9) - 4)) : bf16_of((float)(q_rand() % 20001) / 10000.0f - 1.0f);
	for (size_t i = 0; i < K * ldb; i++)
		B[i] = small_ints ? bf16_of((float)((int)(q_rand() % 9) - 4)) : bf16_of((float)(q_rand() % 20001) / 5000.0f - 2.0f);
	for (size_t i = 0; i < M * ldc + 1; i++)
		C[i] = -7.0f;
	use_path(p);
	uint16_t *dA = dev_bytes(p, A, M * lda * 2, 0), *dB = dev_bytes(p, B, K * ldb * 2, 0);
	float *dC = dev_bytes(p, C, M * ldc * 4, 1);
	assert_int_equal(kn_bf16gemm(p.b, M, N, K, dA, lda, dB, ldb, dC, ldc), KN_OK);
	if (on_dev(p))
		dev_done();
	kn_simd_set_isa(NULL);
	for (size_t i = 0; i < M; i++)
		for (size_t j = 0; j < ldc; j++) {
			double w = -7.0, mag = 0.0;
			if (j < N) {
				w = 0.0;
				for (size_t k = 0; k < K; k++) {
					double t = (double)q_f32((uint32_t)A[i * lda + k] << 16) *
						   (double)q_f32((uint32_t)B[k * ldb + j] << 16);
					w += t, mag += fabs(t);
				}
			}
			/* kernels.h's bound; small integers sum exactly in any order */
			double tol = small_ints ? 0.0 : (double)(K + 2) * 0x1p-24 * mag;
			if (!(fabs((double)C[i * ldc + j] - w) <= tol))
				fail_msg("%s/bf16gemm %zux%zux%zu: C[%zu][%zu] = %a, want %a (bound %g)", path_name(p), M, N,
					 K, i, j, (double)C[i * ldc + j], w, tol);
		}
	assert_true(C[M * ldc] == -7.0f);
	free(A), free(B), free(C);
}

static void test_bf16gemm_all_paths(void **state)
{
	(void)state;
	static const size_t shapes[][3] = {{1, 1, 1},    {2, 3, 5},     {7, 49, 13},   {9, 47, 4},
					   {13, 100, 67}, {37, 96, 515}, {17, 130, 257}, {6, 1537, 9}, {1, 1, 0}};
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
		for (size_t pi = 0; pi < np; pi++)
			for (int ints = 0; ints < 2; ints++)
				check_bf16gemm(paths[pi], shapes[sh][0], shapes[sh][1], shapes[sh][2], sh % 3, ints);
	/* A NaN in A poisons its row of C, an Inf in B its column (times
	 * nonzero: Inf or NaN), and nothing else */
	for (size_t pi = 0; pi < np; pi++) {
		if (on_dev(paths[pi]))
			continue;
		enum { M = 9, N = 50, K = 21 };
		uint16_t A[M * K], B[K * N];
		float C[M * N];
		for (size_t i = 0; i < M * K; i++)
			A[i] = bf16_of(1.0f + (float)(i % 3));
		for (size_t i = 0; i < K * N; i++)
			B[i] = bf16_of(0.5f - (float)(i % 2));
		A[4 * K + 7] = 0x7fc1;  /* NaN in row 4 */
		B[3 * N + 33] = 0x7f80; /* +Inf in column 33 */
		use_path(paths[pi]);
		assert_int_equal(kn_bf16gemm(paths[pi].b, M, N, K, A, K, B, N, C, N), KN_OK);
		kn_simd_set_isa(NULL);
		for (size_t i = 0; i < M; i++)
			for (size_t j = 0; j < N; j++) {
				float c = C[i * N + j];
				if (i == 4)
					assert_true(isnan(c));
				else if (j == 33)
					assert_true(isinf(c) || isnan(c));
				else
					assert_true(isfinite(c));
			}
	}
}

/* f32 -> bf16 by the nearest of the two candidates around x (ties to the
 * even one), in double; overflow past the largest bf16 goes to Inf. */
static uint16_t bf16_ref(float x)
{
	uint32_t u = q_u32(x);
	if (isnan(x))
		return (uint16_t)((u >> 16) | 0x40);
	uint32_t lo = u & 0xffff0000u, hi = lo + 0x10000u;
	double dl = fabs((double)q_f32(lo)), dx = fabs((double)x);
	double dh = (hi & 0x7fffffffu) == 0x7f800000u ? 0x1p128 : fabs((double)q_f32(hi));
	if (dx - dl < dh - dx)
		return (uint16_t)(lo >> 16);
	if (dx - dl > dh - dx)
		return (uint16_t)(hi >> 16);
	return (uint16_t)(((lo >> 16) & 1) ? hi >> 16 : lo >> 16);
}

/* f32 -> f16 by GCC's _Float16 (libgcc's soft conversion: this file is not
 * built for F16C); NaNs by the rule (quiet, top 10 payload bits). */
static uint16_t f16_ref(float x)
{
	uint32_t u = q_u32(x);
	if (isnan(x))
		return (uint16_t)(((u >> 16) & 0x8000u) | 0x7e00u | ((u >> 13) & 0x3ffu));
	_Float16 h = (_Float16)x;
	uint16_t b;
	memcpy(&b, &h, 2);
	return b;
}

static float f16_to_f32_ref(uint16_t b)
{
	if ((b & 0x7c00u) == 0x7c00u && (b & 0x3ffu))
		return q_f32(((uint32_t)(b & 0x8000u) << 16) | 0x7fc00000u | ((uint32_t)(b & 0x3ffu) << 13));
	_Float16 h;
	memcpy(&h, &b, 2);
	return (float)h;
}

/* Inputs: random bit patterns (every exponent, NaNs with payloads), then the
 * edges: ties at both formats' rounding bits, overflow thresholds, f16
 * subnormals and their rounding, zeros, Infs. */
static void cvt_inputs(float *x, size_t n)
{
	static const uint32_t edge[] = {
		0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x7f80ffffu,
		0x3f808000u, 0x3f818000u, 0x3f80c000u, 0x3f807fffu, 0x7f7f8000u, 0x7f7fffffu, 0x7f7f7fffu, 0x00008000u,
		0x00018000u, 0x477fe000u, 0x477fefffu, 0x477ff000u, 0x47800000u, 0x38800000u, 0x387fffffu, 0x387fe000u,
		0x33800000u, 0x33000000u, 0x33000001u, 0x32ffffffu, 0x33c00000u, 0x34400000u, 0x3f801000u, 0x3f803000u,
		0x3f800fffu, 0x00000001u, 0x007fffffu, 0xc77ff000u, 0xb3000001u, 0x37800000u, 0x37801000u, 0x37803000u};
	size_t ne = sizeof(edge) / sizeof(edge[0]);
	for (size_t i = 0; i < n; i++)
		x[i] = q_f32(i < ne ? edge[i] : q_rand() ^ (q_rand() << 16));
}

static void test_convert_all_paths(void **state)
{
	(void)state;
	static const size_t ns[] = {1, 15, 16, 17, 33, 1000, (1u << 18) + 3};
	path paths[6];
	size_t np = all_host_paths(paths);
	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++)
		for (size_t pi = 0; pi < np; pi++) {
			path p = paths[pi];
			size_t n = ns[k], mis = (k + pi) % 3;
			float *xb = malloc((n + 8) * 4), *yb = malloc((n + 8) * 4), *x = xb + mis, *y = yb + mis;
			uint16_t *hb = malloc((n + 16) * 2), *h = hb + mis;
			assert_true(xb && yb && hb);
			cvt_inputs(x, n);
			for (int bf = 0; bf < 2; bf++) {
				/* to 16 bits */
				for (size_t i = 0; i < n + 16 - mis; i++)
					h[i] = 0xabcd;
				use_path(p);
				float *dx = dev_bytes(p, x, n * 4, 0);
				uint16_t *dh = dev_bytes(p, h, n * 2, 1);
				assert_int_equal(bf ? kn_f32_to_bf16(p.b, dx, dh, n) : kn_f32_to_f16(p.b, dx, dh, n), KN_OK);
				if (on_dev(p))
					dev_done();
				kn_simd_set_isa(NULL);
				for (size_t i = 0; i < n; i++) {
					uint16_t w = bf ? bf16_ref(x[i]) : f16_ref(x[i]);
					if (h[i] != w)
						fail_msg("%s/f32_to_%s n %zu i %zu: %08x -> %04x, want %04x", path_name(p),
							 bf ? "bf16" : "f16", n, i, q_u32(x[i]), h[i], w);
				}
				if (!on_dev(p))
					for (size_t i = n; i < n + 16 - mis; i++)
						assert_int_equal(h[i], 0xabcd);
				/* and back: every 16-bit pattern comes up among the random ones */
				for (size_t i = 0; i < n; i++)
					h[i] = (uint16_t)(i < 65536 && n > 65536 ? i : q_rand());
				for (size_t i = 0; i < n + 8 - mis; i++)
					y[i] = 12345.0f;
				use_path(p);
				dh = dev_bytes(p, h, n * 2, 0);
				float *dy = dev_bytes(p, y, n * 4, 1);
				assert_int_equal(bf ? kn_bf16_to_f32(p.b, dh, dy, n) : kn_f16_to_f32(p.b, dh, dy, n), KN_OK);
				if (on_dev(p))
					dev_done();
				kn_simd_set_isa(NULL);
				for (size_t i = 0; i < n; i++) {
					uint32_t w = bf ? (uint32_t)h[i] << 16 : q_u32(f16_to_f32_ref(h[i]));
					if (q_u32(y[i]) != w)
						fail_msg("%s/%s_to_f32 i %zu: %04x -> %08x, want %08x", path_name(p),
							 bf ? "bf16" : "f16", i, h[i], q_u32(y[i]), w);
				}
				for (size_t i = n; i < n + 8 - mis; i++)
					assert_true(y[i] == 12345.0f);
			}
			free(xb), free(yb), free(hb);
		}
}

static void test_quant_bad_arguments(void **state)
{
	(void)state;
	float v[16] = {0}, s = 1.0f;
	int8_t q[16] = {0};
	int32_t c[16];
	uint16_t h[16] = {0};
	for (kn_backend b = KN_BACKEND_SCALAR; b <= KN_BACKEND_CUDA; b++) {
		assert_int_equal(kn_quantize_i8(b, NULL, q, 2, 2, &s, 1), KN_EINVAL);
		assert_int_equal(kn_quantize_i8(b, v, q, 2, 2, NULL, 1), KN_EINVAL);
		assert_int_equal(kn_quantize_i8(b, v, q, 3, 2, v, 2), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "2 scales for 3 rows"));
		assert_int_equal(kn_quantize_i8(b, v, q, SIZE_MAX / 2, 3, &s, 1), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "overflows"));
		assert_int_equal(kn_dequantize_i8(b, q, NULL, 2, 2, &s, 1), KN_EINVAL);
		assert_int_equal(kn_dequantize_i8(b, q, v, 2, 2, &s, 0), KN_EINVAL);
		assert_int_equal(kn_qgemm_i8(b, 2, 3, 4, q, 3, q, 3, c, 3), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "lda"));
		assert_int_equal(kn_qgemm_i8(b, 2, 3, 4, q, 4, q, 2, c, 3), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "ldb"));
		assert_int_equal(kn_qgemm_i8(b, 2, 3, 4, q, 4, q, 3, c, 2), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "ldc"));
		assert_int_equal(kn_qgemm_i8(b, 2, 3, 4, q, 4, NULL, 3, c, 3), KN_EINVAL);
		assert_int_equal(kn_qgemm_i8(b, 1, 1, KN_QGEMM_MAX_K + 1, q, KN_QGEMM_MAX_K + 1, q, 1, c, 1), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "overflow"));
		assert_int_equal(kn_qgemm_i8(b, 3, 2, 2, q, SIZE_MAX / 2, q, 2, c, 2), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "overflows"));
		assert_int_equal(kn_bf16gemm(b, 2, 3, 4, h, 4, h, 3, NULL, 3), KN_EINVAL);
		assert_int_equal(kn_bf16gemm(b, 2, 3, 4, h, 4, h, 3, v, SIZE_MAX / 3), KN_EINVAL);
		assert_int_equal(kn_f32_to_bf16(b, NULL, h, 4), KN_EINVAL);
		assert_int_equal(kn_bf16_to_f32(b, h, NULL, 4), KN_EINVAL);
		assert_int_equal(kn_f32_to_f16(b, v, NULL, 4), KN_EINVAL);
		assert_int_equal(kn_f16_to_f32(b, NULL, v, 4), KN_EINVAL);
	}
	/* empty: nothing to do, no buffer needed */
	assert_int_equal(kn_quantize_i8(KN_BACKEND_SIMD, NULL, NULL, 0, 5, NULL, 7), KN_OK);
	assert_int_equal(kn_dequantize_i8(KN_BACKEND_SCALAR, NULL, NULL, 5, 0, NULL, 0), KN_OK);
	assert_int_equal(kn_qgemm_i8(KN_BACKEND_SIMD, 0, 3, 4, NULL, 4, NULL, 3, NULL, 3), KN_OK);
	assert_int_equal(kn_f32_to_f16(KN_BACKEND_SCALAR, NULL, NULL, 0), KN_OK);
	assert_int_equal(kn_f16_to_f32((kn_backend)17, h, v, 4), KN_EINVAL);
	/* K == 0: C = 0, A and B never read */
	c[0] = c[1] = 99;
	assert_int_equal(kn_qgemm_i8(KN_BACKEND_SIMD, 1, 2, 0, NULL, 1, NULL, 2, c, 2), KN_OK);
	assert_true(c[0] == 0 && c[1] == 0);
}

/* ---- convolution and pooling ------------------------------------------- */

enum { CV_CONV, CV_DW, CV_MAX, CV_AVG };
static const char *const cv_names[] = {"conv2d", "dwconv2d", "maxpool2d", "avgpool2d"};

static size_t cv_oh(const kn_conv2d_params *p) { return (p->h + 2 * p->pad - p->r) / p->stride + 1; }
static size_t cv_ow(const kn_conv2d_params *p) { return (p->w + 2 * p->pad - p->s) / p->stride + 1; }
static size_t cv_nx(const kn_conv2d_params *p) { return p->n * p->c * p->h * p->w; }
static size_t cv_ny(const kn_conv2d_params *p) { return p->n * p->k * cv_oh(p) * cv_ow(p); }
static size_t cv_nw(int op, const kn_conv2d_params *p)
{
	return op == CV_CONV ? p->k * p->c * p->r * p->s : op == CV_DW ? p->c * p->r * p->s : 0;
}

static kn_status run_conv(path p, int op, const kn_conv2d_params *prm, const float *x, const float *wt, float *y)
{
	if (on_dev(p)) {
		x = dev_of(x, cv_nx(prm), 0), y = dev_of(y, cv_ny(prm), 1);
		wt = op <= CV_DW ? dev_of(wt, cv_nw(op, prm), 0) : NULL;
	}
	kn_status s = op == CV_CONV ? kn_conv2d(p.b, prm, x, wt, y)
		      : op == CV_DW ? kn_dwconv2d(p.b, prm, x, wt, y)
				    : kn_pool2d(p.b, op == CV_MAX ? KN_POOL_MAX : KN_POOL_AVG, prm, x, y);
	if (on_dev(p))
		dev_done();
	return s;
}

/* Element (ci, iy, ix) of image i, in p's layout. */
static size_t cv_x_at(const kn_conv2d_params *p, size_t i, size_t ci, size_t iy, size_t ix)
{
	return i * p->c * p->h * p->w +
	       (p->layout == KN_NCHW ? (ci * p->h + iy) * p->w + ix : (iy * p->w + ix) * p->c + ci);
}

/* The definition, in double, one output at a time: want, and scale = sum
 * |terms| (conv; for avg the mean of |x|; max is exact, scale 0). */
static void cv_ref(int op, const kn_conv2d_params *p, const float *x, const float *wt, double *want, double *scale)
{
	size_t oh = cv_oh(p), ow = cv_ow(p);
	for (size_t i = 0; i < p->n; i++)
		for (size_t k = 0; k < p->k; k++)
			for (size_t oy = 0; oy < oh; oy++)
				for (size_t ox = 0; ox < ow; ox++) {
					double acc = 0, sc = 0, m = -INFINITY;
					size_t cnt = 0;
					int nan = 0;
					for (size_t ci = 0; ci < p->c; ci++) {
						if (op != CV_CONV && ci != k)
							continue;
						for (size_t r = 0; r < p->r; r++)
							for (size_t s = 0; s < p->s; s++) {
								long iy = (long)(oy * p->stride + r) - (long)p->pad;
								long ix = (long)(ox * p->stride + s) - (long)p->pad;
								if (iy < 0 || ix < 0 || iy >= (long)p->h || ix >= (long)p->w)
									continue;
								double v = x[cv_x_at(p, i, ci, (size_t)iy, (size_t)ix)], w = 1;
								if (op == CV_CONV)
									w = p->layout == KN_NCHW
										    ? wt[((k * p->c + ci) * p->r + r) * p->s + s]
										    : wt[((r * p->s + s) * p->c + ci) * p->k + k];
								else if (op == CV_DW)
									w = p->layout == KN_NCHW ? wt[(ci * p->r + r) * p->s + s]
												 : wt[(r * p->s + s) * p->c + ci];
								acc += w * v, sc += fabs(w * v), cnt++;
								nan |= isnan(v);
								if (v > m)
									m = v;
							}
					}
					size_t o = p->layout == KN_NCHW ? ((i * p->k + k) * oh + oy) * ow + ox
									: ((i * oh + oy) * ow + ox) * p->k + k;
					if (op == CV_MAX)
						want[o] = nan ? NAN : m, scale[o] = 0;
					else if (op == CV_AVG)
						want[o] = acc / (double)cnt, scale[o] = sc / (double)cnt;
					else
						want[o] = acc, scale[o] = sc;
				}
}

static float cv_value(size_t i, unsigned seed)
{
	uint32_t h = (uint32_t)((i + seed * 7919u) * 2654435761u) ^ 0x85ebca6bu;
	return (float)((double)(h % 20001) / 10000.0 - 1.0); /* [-1, 1] */
}

/* Runs op on every path for p, x and w misaligned by mis floats, against
 * cv_ref: NaN where the reference is NaN, +-Inf where it is, else within
 * (terms + 2) eps sum |terms| (conv, dw), (r s + 2) eps mean |x| (avg), exact
 * (max).  specials: put NaN and +-Inf into x. */
static void check_conv(int op, kn_conv2d_params p, size_t mis, int specials)
{
	path paths[6];
	size_t np = all_host_paths(paths);
	size_t nx = cv_nx(&p), ny = cv_ny(&p), nw = cv_nw(op, &p);
	float *xb = malloc((nx + 16) * sizeof(float)), *wb = malloc((nw + 16) * sizeof(float));
	float *yb = malloc((ny + 17) * sizeof(float));
	double *want = malloc((ny + 1) * sizeof(double)), *scale = malloc((ny + 1) * sizeof(double));
	assert_true(xb && wb && yb && want && scale);
	float *x = xb + mis, *w = wb + (mis * 3) % 16, *y = yb + (mis * 5 + 1) % 16;
	for (size_t i = 0; i < nx; i++)
		x[i] = cv_value(i, 1);
	if (specials && nx > 8) {
		x[nx / 3] = NAN, x[nx / 2] = INFINITY, x[nx - 1] = -INFINITY;
		x[1] = INFINITY, x[2] = -INFINITY; /* both in one window: NaN for conv */
	}
	for (size_t i = 0; i < nw; i++)
		w[i] = cv_value(i, 2) + (cv_value(i, 2) >= 0 ? 0.01f : -0.01f); /* never 0 */
	cv_ref(op, &p, x, w, want, scale);
	double terms = op == CV_CONV ? (double)(p.c * p.r * p.s) : (double)(p.r * p.s);
	for (size_t pi = 0; pi < np; pi++) {
		for (size_t i = 0; i < ny + 1; i++)
			y[i] = -7.0f; /* y[ny] must stay */
		use_path(paths[pi]);
		kn_status s = run_conv(paths[pi], op, &p, x, w, y);
		kn_simd_set_isa(NULL);
		if (s != KN_OK)
			fail_msg("%s/%s: %s", path_name(paths[pi]), cv_names[op], kn_last_error());
		for (size_t o = 0; o < ny; o++) {
			double g = y[o], e = want[o];
			int ok = isnan(e) ? isnan(g) : isinf(e) ? g == e
				: op == CV_MAX ? g == e
					       : fabs(g - e) <= (terms + 2) * FLT_EPSILON * scale[o] + 1e-30;
			if (!ok)
				fail_msg("%s/%s %s n %zu c %zu %zux%zu k %zu %zux%zu st %zu pad %zu mis %zu: y[%zu] = %.9g, "
					 "want %.9g (scale %g)",
					 path_name(paths[pi]), cv_names[op], p.layout == KN_NCHW ? "NCHW" : "NHWC", p.n, p.c,
					 p.h, p.w, p.k, p.r, p.s, p.stride, p.pad, mis, o, g, e, scale[o]);
		}
		assert_true(y[ny] == -7.0f); /* nothing past the end */
	}
	free(xb), free(wb), free(yb), free(want), free(scale);
}

/* n c h w k r s stride pad: 3x3 and 1x1 (the no-im2col path), strides 1, 2
 * and 3, rectangular windows, 1x1 images, odd channel counts around the
 * vector widths, and one shape whose im2col takes two bands (64 x 40 x 40). */
static const kn_conv2d_params cv_shapes[] = {
	{1, 3, 5, 7, 4, 3, 3, 1, 1, KN_NCHW},     {2, 5, 9, 8, 6, 3, 3, 2, 1, KN_NCHW},
	{1, 8, 6, 6, 16, 1, 1, 1, 0, KN_NCHW},    {2, 3, 7, 5, 2, 1, 1, 2, 0, KN_NCHW},
	{1, 17, 11, 13, 19, 3, 3, 1, 0, KN_NCHW}, {1, 2, 4, 4, 3, 3, 3, 3, 2, KN_NCHW},
	{1, 4, 1, 1, 3, 1, 1, 1, 0, KN_NCHW},     {1, 20, 33, 35, 3, 5, 3, 2, 2, KN_NCHW},
	{1, 33, 19, 40, 17, 3, 3, 1, 1, KN_NCHW}, {1, 2, 3, 3, 2, 3, 3, 1, 2, KN_NCHW},
};

static void test_conv_all_paths(void **state)
{
	(void)state;
	for (int op = CV_CONV; op <= CV_AVG; op++)
		for (size_t sh = 0; sh < sizeof(cv_shapes) / sizeof(cv_shapes[0]); sh++)
			for (int lay = 0; lay < 2; lay++)
				for (size_t mis = 0; mis < 2; mis++) {
					kn_conv2d_params p = cv_shapes[sh];
					if (op != CV_CONV)
						p.k = p.c;
					p.layout = lay ? KN_NHWC : KN_NCHW;
					check_conv(op, p, mis, 0);
				}
}

/* One layer from the workload (two im2col bands on the host paths), and
 * MobileNet's depthwise shape at a quarter of its size. */
static void test_conv_large(void **state)
{
	(void)state;
	check_conv(CV_CONV, (kn_conv2d_params){1, 64, 40, 40, 32, 3, 3, 1, 1, KN_NCHW}, 0, 0);
	check_conv(CV_CONV, (kn_conv2d_params){1, 64, 20, 20, 48, 3, 3, 2, 1, KN_NHWC}, 1, 0);
	check_conv(CV_DW, (kn_conv2d_params){1, 32, 56, 56, 32, 3, 3, 1, 1, KN_NCHW}, 0, 0);
	check_conv(CV_DW, (kn_conv2d_params){1, 32, 56, 56, 32, 3, 3, 1, 1, KN_NHWC}, 0, 0);
}

/* NaN and +-Inf in x: NaN stays NaN, Inf + -Inf in one window is NaN, a
 * lone Inf stays Inf (max and avg too). */
static void test_conv_nan_inf(void **state)
{
	(void)state;
	for (int op = CV_CONV; op <= CV_AVG; op++)
		for (int lay = 0; lay < 2; lay++) {
			kn_conv2d_params p = {2, 5, 9, 8, 6, 3, 3, 1, 1, lay ? KN_NHWC : KN_NCHW};
			if (op != CV_CONV)
				p.k = p.c;
			check_conv(op, p, 1, 1);
			p.stride = 2;
			check_conv(op, p, 0, 1);
		}
}

/* n == 0 is an empty batch: KN_OK with y untouched, on every backend that
 * can run (x, w and y may then be NULL). */
static void test_conv_empty(void **state)
{
	(void)state;
	path paths[6];
	size_t np = all_host_paths(paths);
	float y = 3.0f;
	for (size_t pi = 0; pi < np; pi++)
		for (int op = CV_CONV; op <= CV_AVG; op++) {
			kn_conv2d_params p = {0, 4, 5, 5, 4, 3, 3, 1, 1, KN_NCHW};
			use_path(paths[pi]);
			assert_int_equal(run_conv(paths[pi], op, &p, NULL, NULL, &y), KN_OK);
			kn_simd_set_isa(NULL);
			assert_true(y == 3.0f);
		}
}

/* Every check of the descriptor, on every backend (cuda included, which
 * answers before asking a device), with the field named in the message. */
static void test_conv_bad_arguments(void **state)
{
	(void)state;
	float v[64] = {0};
	const kn_conv2d_params ok = {1, 2, 4, 4, 2, 3, 3, 1, 1, KN_NCHW};
	struct {
		kn_conv2d_params p;
		const char *says;
	} bad[] = {
		{{1, 0, 4, 4, 2, 3, 3, 1, 1, KN_NCHW}, "zero size"},
		{{1, 2, 0, 4, 2, 3, 3, 1, 1, KN_NCHW}, "zero size"},
		{{1, 2, 4, 4, 0, 3, 3, 1, 1, KN_NCHW}, "zero size"},
		{{1, 2, 4, 4, 2, 0, 3, 1, 0, KN_NCHW}, "zero size"},
		{{1, 2, 4, 4, 2, 3, 3, 0, 1, KN_NCHW}, "stride 0"},
		{{1, 2, 4, 4, 2, 3, 3, 1, 3, KN_NCHW}, "pad 3"},
		{{1, 2, 4, 4, 2, 3, 1, 1, 1, KN_NCHW}, "pad 1"},
		{{1, 2, 4, 4, 2, 7, 3, 1, 1, KN_NCHW}, "larger than the padded"},
		{{1, 2, 4, 4, 2, 3, 3, 1, 1, (kn_layout)2}, "layout"},
		{{1, 2, 4, 4, 2, 3, 3, 1, 1, (kn_layout)-1}, "layout"},
		{{(size_t)1 << 40, 2, (size_t)1 << 20, 4, 2, 3, 3, 1, 1, KN_NCHW}, "overflows"},
		{{1, 2, 4, 4, SIZE_MAX / 2, 3, 3, 1, 1, KN_NCHW}, "overflows"},
		{{1, 2, SIZE_MAX - 1, 4, 2, 3, 3, 1, 1, KN_NCHW}, "overflows"},
		{{1, 2, 4, 4, 2, 3, 3, 1, SIZE_MAX / 2, KN_NCHW}, "pad"},
	};
	for (int b = 0; b < KN_BACKEND_COUNT_; b++) {
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			for (int op = CV_CONV; op <= CV_AVG; op++) {
				kn_conv2d_params p = bad[i].p;
				if (op != CV_CONV && p.k > p.c)
					continue; /* the huge k: conv's alone (k == c otherwise) */
				if (op != CV_CONV && p.k)
					p.k = p.c;
				kn_status s = op == CV_CONV ? kn_conv2d((kn_backend)b, &p, v, v, v + 32)
					      : op == CV_DW ? kn_dwconv2d((kn_backend)b, &p, v, v, v + 32)
							    : kn_pool2d((kn_backend)b, (kn_pool_op)(op - CV_MAX), &p, v, v + 32);
				if (s != KN_EINVAL || !strstr(kn_last_error(), bad[i].says))
					fail_msg("%s %s case %zu: %d '%s', want EINVAL '%s'", kn_backend_name((kn_backend)b),
						 cv_names[op], i, s, kn_last_error(), bad[i].says);
			}
		kn_backend be = (kn_backend)b;
		assert_int_equal(kn_conv2d(be, NULL, v, v, v), KN_EINVAL);
		assert_int_equal(kn_conv2d(be, &ok, NULL, v, v), KN_EINVAL);
		assert_int_equal(kn_conv2d(be, &ok, v, NULL, v), KN_EINVAL);
		assert_int_equal(kn_conv2d(be, &ok, v, v, NULL), KN_EINVAL);
		assert_int_equal(kn_dwconv2d(be, &ok, v, NULL, v), KN_EINVAL);
		kn_conv2d_params k3 = ok;
		k3.k = 3;
		assert_int_equal(kn_dwconv2d(be, &k3, v, v, v + 32), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "must equal c"));
		assert_int_equal(kn_pool2d(be, KN_POOL_MAX, &k3, v, v + 32), KN_EINVAL);
		assert_int_equal(kn_pool2d(be, KN_POOL_AVG, &ok, v, NULL), KN_EINVAL);
		/* a newer header's pool op: unsupported, as every op enum */
		assert_int_equal(kn_pool2d(be, (kn_pool_op)2, &ok, v, v + 32), KN_EUNSUPPORTED);
		assert_non_null(strstr(kn_last_error(), "pool op 2 not in kernels"));
	}
	size_t oh = 0, ow = 0;
	kn_conv2d_params s2 = {1, 2, 28, 27, 2, 3, 3, 2, 1, KN_NHWC};
	assert_int_equal(kn_conv2d_out_size(&s2, &oh, &ow), KN_OK);
	assert_true(oh == 14 && ow == 14);
	assert_int_equal(kn_conv2d_out_size(&bad[4].p, &oh, &ow), KN_EINVAL);
	assert_int_equal(kn_conv2d_out_size(&s2, NULL, &ow), KN_EINVAL);
	/* an unknown backend: KN_EINVAL, as every op answers it */
	assert_int_equal(kn_conv2d((kn_backend)9, &ok, v, v, v + 32), KN_EINVAL);
	assert_non_null(strstr(kn_last_error(), "unknown backend"));
}

static kn_status unavailable_with_reason(kn_status s)
{
	assert_int_equal(s, KN_EUNAVAILABLE);
	assert_non_null(strstr(kn_last_error(), "cuda"));
	return s;
}

/* Without a device (or without nvcc at build time) every op says why it
 * cannot run; with one, the path tests above have compared it already.  The
 * host buffers here are never touched: the calls stop at the probe. */
static void test_cuda_every_op_unavailable_or_compared(void **state)
{
	(void)state;
	if (cuda_device()) {
		print_message("cuda: device present; compared with the other paths in the tests above\n");
		return;
	}
	float v[16] = {0}, out = 0;
	size_t idx = 0;
	for (int op = 0; op < KN_UNARY_COUNT_; op++)
		unavailable_with_reason(kn_unary_ex(KN_BACKEND_CUDA, (kn_unary_op)op, v, v, 4, &test_params));
	for (int op = 0; op < KN_BINARY_COUNT_; op++)
		unavailable_with_reason(kn_binary(KN_BACKEND_CUDA, (kn_binary_op)op, v, v, v, 4));
	unavailable_with_reason(kn_axpy(KN_BACKEND_CUDA, 2.0f, v, v, 4));
	for (int op = 0; op < KN_REDUCE_COUNT_; op++)
		unavailable_with_reason(kn_reduce(KN_BACKEND_CUDA, (kn_reduce_op)op, v, 4, &out));
	for (int op = 0; op < KN_ARGREDUCE_COUNT_; op++)
		unavailable_with_reason(kn_argreduce(KN_BACKEND_CUDA, (kn_argreduce_op)op, v, 4, &idx));
	unavailable_with_reason(kn_dot(KN_BACKEND_CUDA, v, v, 4, &out));
	unavailable_with_reason(kn_softmax(KN_BACKEND_CUDA, v, v, 2, 2));
	unavailable_with_reason(kn_log_softmax(KN_BACKEND_CUDA, v, v, 2, 2));
	unavailable_with_reason(kn_layernorm(KN_BACKEND_CUDA, v, v, v, v, 2, 2, 1e-5f));
	unavailable_with_reason(kn_layernorm(KN_BACKEND_CUDA, v, v, NULL, v, 2, 2, 1e-5f));
	unavailable_with_reason(kn_rmsnorm(KN_BACKEND_CUDA, v, v, v, 2, 2, 1e-5f));
	int32_t iv[4] = {0, 1, 2, 3};
	unavailable_with_reason(kn_copy(KN_BACKEND_CUDA, v, v + 4, 4));
	unavailable_with_reason(kn_transpose(KN_BACKEND_CUDA, v, v + 4, 2, 2));
	unavailable_with_reason(kn_gather(KN_BACKEND_CUDA, v, 4, iv, v + 4, 4));
	unavailable_with_reason(kn_scatter_add(KN_BACKEND_CUDA, v, iv, 4, v + 4, 4));
	kn_conv2d_params cp = {1, 1, 2, 2, 1, 1, 1, 1, 0, KN_NCHW};
	unavailable_with_reason(kn_conv2d(KN_BACKEND_CUDA, &cp, v, v, v + 4));
	unavailable_with_reason(kn_dwconv2d(KN_BACKEND_CUDA, &cp, v, v, v + 4));
	unavailable_with_reason(kn_pool2d(KN_BACKEND_CUDA, KN_POOL_MAX, &cp, v, v + 4));
	unavailable_with_reason(kn_pool2d(KN_BACKEND_CUDA, KN_POOL_AVG, &cp, v, v + 4));
	unavailable_with_reason(kn_batchnorm(KN_BACKEND_CUDA, v, v, v + 1, v, v, v + 4, 1, 2, 2, 1e-5f));
	unavailable_with_reason(kn_batchnorm(KN_BACKEND_CUDA, v, v, v + 1, v, NULL, v, 1, 2, 2, 1e-5f));
	const float *cx[2] = {v, v + 2};
	size_t cw[2] = {1, 1};
	unavailable_with_reason(kn_concat(KN_BACKEND_CUDA, 2, cx, cw, v + 4, 2));
	unavailable_with_reason(kn_sgemm(KN_BACKEND_CUDA, 0, 1, 2, 2, 2, 1, v, 2, v, 2, 0, v, 2));
	unavailable_with_reason(kn_sgemm(KN_BACKEND_CUDA, 0, 0, 2, 2, 0, 1, v, 1, v, 2, 0, v, 2));
	unavailable_with_reason(kn_sgemv(KN_BACKEND_CUDA, 1, 2, 2, 1, v, 2, v, 0, v));
	unavailable_with_reason(kn_sgemv(KN_BACKEND_CUDA, 0, 2, 0, 1, v, 1, NULL, 0, v));
	int8_t qv[16] = {0};
	int32_t cv[16];
	uint16_t hv[16] = {0};
	unavailable_with_reason(kn_quantize_i8(KN_BACKEND_CUDA, v, qv, 2, 2, v, 2));
	unavailable_with_reason(kn_dequantize_i8(KN_BACKEND_CUDA, qv, v, 2, 2, v, 1));
	unavailable_with_reason(kn_qgemm_i8(KN_BACKEND_CUDA, 2, 2, 2, qv, 2, qv, 2, cv, 2));
	unavailable_with_reason(kn_bf16gemm(KN_BACKEND_CUDA, 2, 2, 2, hv, 2, hv, 2, v, 2));
	unavailable_with_reason(kn_f32_to_bf16(KN_BACKEND_CUDA, v, hv, 4));
	unavailable_with_reason(kn_bf16_to_f32(KN_BACKEND_CUDA, hv, v, 4));
	unavailable_with_reason(kn_f32_to_f16(KN_BACKEND_CUDA, v, hv, 4));
	unavailable_with_reason(kn_f16_to_f32(KN_BACKEND_CUDA, hv, v, 4));
	unavailable_with_reason(kn_sync(KN_BACKEND_CUDA));
	unavailable_with_reason(kn_copy_in(KN_BACKEND_CUDA, v, v, 4));
	/* the result slots are left alone */
	assert_true(out == 0 && idx == 0);
}

/* The device comparison as a test of its own, so that a machine without a
 * device reports it as skipped (cmocka's skip(), counted apart by the
 * project's tests/run.sh), never as passed: the comparisons inside the tests
 * above quietly leave the cuda path out there.  With a device: exp on the
 * device against the scalar path, element by element. */
static void test_cuda_device_compared(void **state)
{
	(void)state;
	if (kn_backend_probe(KN_BACKEND_CUDA) != KN_OK) {
		print_message("no cuda device here: %s\n", kn_last_error());
		skip();
	}
	enum { N = 4096 };
	static float x[N], want[N], got[N];
	for (size_t i = 0; i < N; i++)
		x[i] = (float)((int)(i % 200) - 100) / 25.0f;
	assert_int_equal(kn_unary(KN_BACKEND_SCALAR, KN_EXP, x, want, N), KN_OK);
	void *dx = NULL, *dy = NULL;
	assert_int_equal(kn_alloc(KN_BACKEND_CUDA, sizeof(x), &dx), KN_OK);
	assert_int_equal(kn_alloc(KN_BACKEND_CUDA, sizeof(x), &dy), KN_OK);
	assert_int_equal(kn_copy_in(KN_BACKEND_CUDA, dx, x, sizeof(x)), KN_OK);
	assert_int_equal(kn_unary(KN_BACKEND_CUDA, KN_EXP, dx, dy, N), KN_OK);
	assert_int_equal(kn_sync(KN_BACKEND_CUDA), KN_OK);
	assert_int_equal(kn_copy_out(KN_BACKEND_CUDA, got, dy, sizeof(got)), KN_OK);
	kn_free(KN_BACKEND_CUDA, dx);
	kn_free(KN_BACKEND_CUDA, dy);
	for (size_t i = 0; i < N; i++)
		assert_true(fabsf(got[i] - want[i]) <= 1e-5f * fabsf(want[i]) + 1e-30f);
}

/* Bad arguments are KN_EINVAL on cuda as on every backend, checked before
 * the device is asked anything (so also on machines without one). */
static void test_cuda_bad_arguments(void **state)
{
	(void)state;
	const kn_backend c = KN_BACKEND_CUDA;
	float v[16] = {0}, out;
	size_t idx;
	kn_unary_params bad = {2, 1, 1};
	assert_int_equal(kn_unary(c, KN_LOG, NULL, v, 4), KN_EINVAL);
	assert_int_equal(kn_unary_ex(c, KN_CLAMP, v, v, 4, &bad), KN_EINVAL);
	assert_int_equal(kn_binary(c, KN_DIV, v, NULL, v, 4), KN_EINVAL);
	assert_int_equal(kn_axpy(c, 1.0f, v, NULL, 4), KN_EINVAL);
	assert_int_equal(kn_reduce(c, KN_SUM, v, 4, NULL), KN_EINVAL);
	assert_int_equal(kn_reduce(c, KN_NORM_L2, NULL, 4, &out), KN_EINVAL);
	assert_int_equal(kn_reduce(c, KN_MEAN, v, 0, &out), KN_EINVAL);
	assert_non_null(strstr(kn_last_error(), "empty"));
	assert_int_equal(kn_argreduce(c, KN_ARGMIN, v, 0, &idx), KN_EINVAL);
	assert_int_equal(kn_argreduce(c, KN_ARGMAX, v, 4, NULL), KN_EINVAL);
	assert_int_equal(kn_dot(c, v, NULL, 4, &out), KN_EINVAL);
	assert_int_equal(kn_softmax(c, NULL, v, 2, 2), KN_EINVAL);
	assert_int_equal(kn_log_softmax(c, v, NULL, 2, 2), KN_EINVAL);
	assert_int_equal(kn_sgemm(c, 0, 0, 2, 3, 4, 1, v, 3, v, 3, 0, v, 3), KN_EINVAL);
	assert_non_null(strstr(kn_last_error(), "lda"));
	assert_int_equal(kn_sgemm(c, 0, 1, 2, 3, 4, 1, v, 4, v, 3, 0, v, 3), KN_EINVAL);
	assert_non_null(strstr(kn_last_error(), "ldb"));
	assert_int_equal(kn_sgemm(c, 0, 0, 2, 3, 4, 1, v, 4, v, 3, 0, v, 2), KN_EINVAL);
	assert_int_equal(kn_sgemm(c, 0, 0, 2, 3, 4, 1, v, 4, NULL, 3, 0, v, 3), KN_EINVAL);
	assert_int_equal(kn_sgemv(c, 0, 2, 3, 1, v, 2, v, 0, v), KN_EINVAL);
	assert_int_equal(kn_sgemv(c, 1, 2, 3, 1, v, 3, v, 0, NULL), KN_EINVAL);
	/* ops a newer header may name: unsupported, not a crash */
	assert_int_equal(kn_unary(c, (kn_unary_op)99, v, v, 4), KN_EUNSUPPORTED);
	assert_int_equal(kn_reduce(c, (kn_reduce_op)99, v, 4, &out), KN_EUNSUPPORTED);
}

static void test_aligned_alloc(void **state)
{
	(void)state;
	void *p = NULL;
	assert_int_equal(kn_alloc(KN_BACKEND_SCALAR, 100, &p), KN_OK);
	assert_int_equal((uintptr_t)p % 64, 0);
	float src[3] = {1, 2, 3}, dst[3];
	assert_int_equal(kn_copy_in(KN_BACKEND_SCALAR, p, src, sizeof(src)), KN_OK);
	assert_int_equal(kn_copy_out(KN_BACKEND_SCALAR, dst, p, sizeof(dst)), KN_OK);
	assert_memory_equal(src, dst, sizeof(src));
	kn_free(KN_BACKEND_SCALAR, p);
	assert_int_equal(kn_alloc(KN_BACKEND_SCALAR, SIZE_MAX - 3, &p), KN_ENOMEM);
}

/* exp near the ends of its range on every path, densely: the AVX2 path
 * (0.10.1) scales by one multiply by 2^n in the middle and takes two
 * half-steps where n < -126 (results near or in the denormal range) or n =
 * 128 (x in (88.38, 88.72]: 2^128 overflows while y 2^128 may not), lane by
 * lane in one vector.  Neighbouring inputs share vectors, so vectors mixing
 * both kinds of lane are met at each border; then Inf, -Inf and NaN. */
static void test_exp_range_ends(void **state)
{
	(void)state;
	path ps[8];
	size_t np = host_paths(ps);
	enum { N = 4096 };
	static float x[N + 3], y[N + 3];
	for (size_t i = 0; i < N; i++) /* [-104, -86] then [88, 89] */
		x[i] = i < N / 2 ? -104.0f + 18.0f * (float)i / (N / 2) : 88.0f + (float)(i - N / 2) / (N / 2);
	x[N] = INFINITY, x[N + 1] = -INFINITY, x[N + 2] = NAN;
	for (size_t k = 0; k < np; k++) {
		use_path(ps[k]);
		assert_int_equal(run_unary(ps[k], KN_EXP, x, y, N + 3, NULL), KN_OK);
		for (size_t i = 0; i < N; i++) {
			double want = exp((double)x[i]);
			if (!close_enough(y[i], want, tolerance(KN_EXP, ps[k].b)))
				fail_msg("%s exp(%a) = %a, want %a", path_name(ps[k]), (double)x[i], (double)y[i], want);
		}
		assert_true(isinf(y[N]) && y[N] > 0);
		assert_true(y[N + 1] == 0.0f);
		assert_true(isnan(y[N + 2]));
		kn_simd_set_isa(NULL);
	}
}

/* 0.10.0: every allocation is counted.  kn_alloc's blocks come in and go
 * out; a call's scratch (sgemm's packed panels at 256^3, softmax's row
 * buffer) shows in the peak and is given back when the call returns; the
 * peak starts again from what is held at kn_memory_reset_peak. */
static void test_memory_accounting(void **state)
{
	(void)state;
	kn_memory_usage u0, u;
	assert_int_equal(kn_memory_get(NULL), KN_EINVAL);
	assert_int_equal(kn_memory_get(&u0), KN_OK);
	void *p = NULL;
	assert_int_equal(kn_alloc(KN_BACKEND_SIMD, 1000, &p), KN_OK);
	assert_int_equal(kn_memory_get(&u), KN_OK);
	assert_true(u.host_bytes >= u0.host_bytes + 1000);
	assert_true(u.host_peak_bytes >= u.host_bytes);
	kn_free(KN_BACKEND_SIMD, p);
	assert_int_equal(kn_memory_get(&u), KN_OK);
	assert_int_equal(u.host_bytes, u0.host_bytes);

	size_t n = 256;
	float *A = NULL, *B = NULL, *C = NULL;
	assert_int_equal(kn_alloc(KN_BACKEND_SIMD, n * n * sizeof(float), (void **)&A), KN_OK);
	assert_int_equal(kn_alloc(KN_BACKEND_SIMD, n * n * sizeof(float), (void **)&B), KN_OK);
	assert_int_equal(kn_alloc(KN_BACKEND_SIMD, n * n * sizeof(float), (void **)&C), KN_OK);
	for (size_t i = 0; i < n * n; i++)
		A[i] = (float)(i % 7) - 3.0f, B[i] = (float)(i % 5) - 2.0f;
	kn_memory_reset_peak();
	kn_memory_usage before, after;
	assert_int_equal(kn_memory_get(&before), KN_OK);
	assert_int_equal(before.host_peak_bytes, before.host_bytes);
	assert_int_equal(kn_sgemm(KN_BACKEND_SIMD, 0, 0, n, n, n, 1, A, n, B, n, 0, C, n), KN_OK);
	assert_int_equal(kn_memory_get(&after), KN_OK);
	assert_int_equal(after.host_bytes, before.host_bytes); /* scratch given back */
	assert_true(after.host_peak_bytes > before.host_bytes); /* and seen in the peak */
	/* a reset starts from what is held now */
	kn_memory_reset_peak();
	assert_int_equal(kn_memory_get(&after), KN_OK);
	assert_int_equal(after.host_peak_bytes, after.host_bytes);
	/* a call that allocates nothing leaves the peak where it was */
	assert_int_equal(kn_unary(KN_BACKEND_SIMD, KN_ABS, A, C, n * n), KN_OK);
	assert_int_equal(kn_memory_get(&u), KN_OK);
	assert_int_equal(u.host_peak_bytes, after.host_bytes);
	/* every scratch-using op gives back what it counted in, on every ISA
	 * (a scratch block released with free() would stay counted) */
	static const char *const isas[] = {"avx512", "avx2", "generic"};
	for (size_t k = 0; k < 3; k++) {
		if (kn_simd_set_isa(isas[k]) != KN_OK)
			continue;
		assert_int_equal(kn_memory_get(&before), KN_OK);
		assert_int_equal(kn_qgemm_i8(KN_BACKEND_SIMD, 64, 64, 64, (const int8_t *)A, 64, (const int8_t *)B, 64,
					     (int32_t *)C, 64), KN_OK);
		assert_int_equal(kn_bf16gemm(KN_BACKEND_SIMD, 64, 64, 64, (const uint16_t *)A, 64, (const uint16_t *)B,
					     64, C, 64), KN_OK);
		assert_int_equal(kn_softmax(KN_BACKEND_SIMD, A, C, 16, 256), KN_OK);
		/* conv2d's im2col band, pooling's row buffers (NCHW) */
		kn_conv2d_params cp = {1, 8, 16, 16, 8, 3, 3, 1, 1, KN_NCHW};
		assert_int_equal(kn_conv2d(KN_BACKEND_SIMD, &cp, A, B, C), KN_OK);
		assert_int_equal(kn_pool2d(KN_BACKEND_SIMD, KN_POOL_MAX, &cp, A, C), KN_OK);
		/* attention's block of scores: seq 64, 2 heads of 16 (q, k, v
		 * rows 96 apart in A; small values: the scores stay finite) */
		assert_int_equal(kn_attention(KN_BACKEND_SIMD, A, A + 32, A + 64, 96, C, 32, 64, 2, 16, 0.01f), KN_OK);
		assert_int_equal(kn_memory_get(&after), KN_OK);
		if (after.host_bytes != before.host_bytes)
			fail_msg("%s: %zu bytes held after the calls, %zu before", isas[k], after.host_bytes,
				 before.host_bytes);
	}
	kn_simd_set_isa(NULL);
	kn_free(KN_BACKEND_SIMD, A);
	kn_free(KN_BACKEND_SIMD, B);
	kn_free(KN_BACKEND_SIMD, C);
	assert_int_equal(kn_memory_get(&u), KN_OK);
	assert_int_equal(u.host_bytes, u0.host_bytes);
	/* no device here: nothing on the device is counted */
	if (kn_backend_probe(KN_BACKEND_CUDA) != KN_OK)
		assert_int_equal(u.device_peak_bytes, 0);
}

/* ---- attention (0.14.0) ----------------------------------------------------- */

/* q, k, v inside one packed host buffer qkv of n floats (at offsets 0, kof,
 * vof), as a transformer's QKV projection leaves them; o holds no floats. */
static kn_status run_attention(path p, const float *qkv, size_t n, size_t kof, size_t vof, size_t ld, float *o,
			       size_t no, size_t ldo, size_t seq, size_t heads, size_t dh, float scale)
{
	if (!on_dev(p))
		return kn_attention(p.b, qkv, qkv + kof, qkv + vof, ld, o, ldo, seq, heads, dh, scale);
	float *d = dev_of(qkv, n, 0), *dout = dev_of(o, no, 1);
	kn_status s = kn_attention(p.b, d, d + kof, d + vof, ld, dout, ldo, seq, heads, dh, scale);
	dev_done();
	return s;
}

/* The reference of one output row of one head, in double, and a bound on a
 * float computation's error: each score's dot product of dh terms is off by
 * at most (dh + 2) eps |scale| sum |q k|; softmax turns score errors e_j into
 * p_j (e_j + sum p_k e_k) <= 2 p_j max e, plus its own 16 eps p_j; the
 * product with v adds (seq + 2) eps sum p_j |v_j|.  Doubled for safety.
 * A row whose scores hold a NaN or +Inf is NaN (as kn_softmax). */
static void attention_ref(const float *q, const float *k, const float *v, size_t ld, size_t seq, size_t dh,
			  float scale, double *want, double *bound)
{
	double *s = malloc(seq * sizeof(double)), mx = -INFINITY, sum = 0, emax = 0;
	assert_non_null(s);
	int bad = 0;
	for (size_t j = 0; j < seq; j++) {
		double d = 0, a = 0;
		for (size_t c = 0; c < dh; c++)
			d += (double)q[c] * k[j * ld + c], a += fabs((double)q[c] * k[j * ld + c]);
		s[j] = (double)scale * d;
		bad |= isnan(s[j]) || s[j] == INFINITY;
		mx = s[j] > mx ? s[j] : mx;
		emax = fmax(emax, (double)(dh + 2) * FLT_EPSILON * fabs((double)scale) * a);
	}
	for (size_t j = 0; j < seq; j++)
		sum += exp(s[j] - mx);
	for (size_t c = 0; c < dh; c++) {
		double o = 0, pv = 0;
		for (size_t j = 0; j < seq; j++) {
			double pj = exp(s[j] - mx) / sum;
			o += pj * v[j * ld + c], pv += pj * fabs((double)v[j * ld + c]);
		}
		want[c] = bad ? NAN : o;
		bound[c] = 2 * pv * (2 * emax + (16 + seq + 2) * FLT_EPSILON) + FLT_MIN;
	}
	free(s);
}

/* seq tokens x heads of dh, q/k/v packed in rows of 3 heads dh + pad, o in
 * rows of heads dh + pad (the padding must stay untouched), misaligned by
 * mis floats; amp scales q and k (large: scores of hundreds, which only a
 * max-subtracted softmax survives).  poison: 0 none, 1 a NaN in q (its row
 * of that head is NaN), 2 a NaN in v (its column of that head is NaN), 3 an
 * Inf in v (that column is not finite). */
static void check_attention(size_t seq, size_t heads, size_t dh, size_t pad, size_t mis, float amp, int poison)
{
	path paths[6];
	size_t np = all_host_paths(paths), w = heads * dh, ld = 3 * w + pad, ldo = w + pad;
	size_t n = seq * ld, no = seq * ldo;
	float *qb = malloc((n + 16) * sizeof(float)), *ob = malloc((no + 16) * sizeof(float));
	double *want = malloc((dh + 1) * sizeof(double)), *bound = malloc((dh + 1) * sizeof(double));
	assert_true(qb && ob && want && bound);
	float *qkv = qb + mis, *o = ob + (mis + 3) % 16;
	for (size_t i = 0; i < n; i++) {
		double u = (double)((i * 7919 + 13) % 10007) / 10007 * 2 - 1;
		qkv[i] = (float)(i % ld < 2 * w ? amp * u : u);
	}
	size_t pi_row = seq / 2, ph = heads - 1, pc = dh / 2;
	if (poison == 1)
		qkv[pi_row * ld + ph * dh + pc] = NAN;
	if (poison >= 2)
		qkv[pi_row * ld + 2 * w + ph * dh + pc] = poison == 2 ? NAN : INFINITY;
	float scale = (float)(1 / sqrt((double)dh));
	for (size_t pi = 0; pi < np; pi++) {
		for (size_t i = 0; i < no; i++)
			o[i] = -12345.0f;
		use_path(paths[pi]);
		kn_status st = run_attention(paths[pi], qkv, n, w, 2 * w, ld, o, no, ldo, seq, heads, dh, scale);
		kn_simd_set_isa(NULL);
		assert_int_equal(st, KN_OK);
		for (size_t i = 0; i < seq; i++) {
			for (size_t j = w; j < ldo; j++)
				assert_true(o[i * ldo + j] == -12345.0f);
			for (size_t h = 0; h < heads; h++) {
				attention_ref(qkv + i * ld + h * dh, qkv + w + h * dh, qkv + 2 * w + h * dh, ld, seq, dh,
					      scale, want, bound);
				for (size_t c = 0; c < dh; c++) {
					double got = o[i * ldo + h * dh + c];
					int hit = h == ph && (poison == 1 ? i == pi_row : poison >= 2 && c == pc);
					int ok = poison == 3 && hit ? !isfinite(got)
						 : isnan(want[c])   ? isnan(got)
								    : fabs(got - want[c]) <= bound[c];
					if (poison && hit && poison < 3)
						ok = ok && isnan(got);
					if (!ok)
						fail_msg("%s attention %zu x %zu heads x %zu (pad %zu, mis %zu, amp %g, poison %d) "
							 "[%zu, %zu, %zu] got %a want %a (bound %g)",
							 path_name(paths[pi]), seq, heads, dh, pad, mis, (double)amp, poison, i,
							 h, c, got, want[c], bound[c]);
				}
			}
		}
	}
	free(qb), free(ob), free(want), free(bound);
}

/* Odd shapes, one row, blocks of query rows that end short (130 rows: 126
 * + 4; 1100: blocks of 16, the last of 12), padded rows, unaligned buffers,
 * large scores; every path. */
static void test_attention_all_paths(void **state)
{
	(void)state;
	static const size_t shapes[][3] = {{1, 1, 1}, {3, 2, 5}, {17, 3, 7}, {65, 2, 16}, {130, 2, 64}, {8, 1, 33}, {1100, 1, 3}};
	for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++)
		for (size_t mis = 0; mis < 2; mis++)
			check_attention(shapes[sh][0], shapes[sh][1], shapes[sh][2], mis * 3, mis, 1.0f, 0);
	check_attention(33, 2, 8, 1, 1, 12.0f, 0); /* scores up to ~400: exp(400) overflows */
}

/* A NaN in q makes its row of that head NaN and nothing else; a NaN or an
 * Inf in v reaches its column of that head in every row. */
static void test_attention_nan_inf(void **state)
{
	(void)state;
	for (int poison = 1; poison <= 3; poison++) {
		check_attention(9, 2, 5, 0, 1, 1.0f, poison);
		check_attention(70, 3, 16, 2, 0, 1.0f, poison);
	}
}

static void test_attention_bad_arguments(void **state)
{
	(void)state;
	float buf[64] = {0}, o[16];
	for (int be = 0; be < KN_BACKEND_COUNT_; be++) {
		kn_backend b = (kn_backend)be;
		assert_int_equal(kn_attention(b, buf, buf + 4, buf + 8, 3, o, 4, 2, 1, 4, 0.5f), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "ld"));
		assert_int_equal(kn_attention(b, buf, buf + 4, buf + 8, 12, o, 3, 2, 1, 4, 0.5f), KN_EINVAL);
		assert_int_equal(kn_attention(b, buf, buf + 4, buf + 8, 12, o, 4, 2, 1, 4, NAN), KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "scale"));
		assert_int_equal(kn_attention(b, buf, buf + 4, buf + 8, 12, o, 4, 2, 1, 4, INFINITY), KN_EINVAL);
		assert_int_equal(kn_attention(b, NULL, buf + 4, buf + 8, 12, o, 4, 2, 1, 4, 0.5f), KN_EINVAL);
		assert_int_equal(kn_attention(b, buf, buf + 4, buf + 8, 12, NULL, 4, 2, 1, 4, 0.5f), KN_EINVAL);
		assert_int_equal(kn_attention(b, buf, buf, buf, SIZE_MAX, o, SIZE_MAX, 2, SIZE_MAX / 2, 4, 0.5f),
				 KN_EINVAL);
		assert_non_null(strstr(kn_last_error(), "overflows"));
		assert_int_equal(kn_attention(b, buf, buf, buf, SIZE_MAX / 2 + 1, o, 4, 3, 1, 4, 0.5f), KN_EINVAL);
		/* empty: nothing to do, whatever the buffers */
		assert_int_equal(kn_attention(b, NULL, NULL, NULL, 12, NULL, 4, 0, 1, 4, 0.5f), KN_OK);
		assert_int_equal(kn_attention(b, NULL, NULL, NULL, 0, NULL, 0, 5, 0, 4, 0.5f), KN_OK);
		assert_int_equal(kn_attention(b, NULL, NULL, NULL, 0, NULL, 0, 5, 2, 0, 0.5f), KN_OK);
	}
	assert_int_equal(kn_attention((kn_backend)9, buf, buf, buf, 4, o, 4, 1, 1, 4, 0.5f), KN_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unary_all_paths_sizes_alignments),
		cmocka_unit_test(test_unary_accuracy_sweep),
		cmocka_unit_test(test_special_values),
		cmocka_unit_test(test_unary_params),
		cmocka_unit_test(test_simd_isa),
		cmocka_unit_test(test_binary_all_paths),
		cmocka_unit_test(test_axpy_all_paths),
		cmocka_unit_test(test_reduce_all_paths),
		cmocka_unit_test(test_dot_and_argreduce_all_paths),
		cmocka_unit_test(test_reduce_nan),
		cmocka_unit_test(test_argreduce_blocks),
		cmocka_unit_test(test_sum_large_n),
		cmocka_unit_test(test_norm_l2_extremes),
		cmocka_unit_test(test_reduce_bad_arguments),
		cmocka_unit_test(test_softmax_all_paths),
		cmocka_unit_test(test_softmax_nan_and_in_place),
		cmocka_unit_test(test_softmax_row_kinds),
		cmocka_unit_test(test_softmax_large),
		cmocka_unit_test(test_norm_all_paths),
		cmocka_unit_test(test_norm_row_kinds),
		cmocka_unit_test(test_norm_large),
		cmocka_unit_test(test_norm_bad_arguments),
		cmocka_unit_test(test_attention_all_paths),
		cmocka_unit_test(test_attention_nan_inf),
		cmocka_unit_test(test_attention_bad_arguments),
		cmocka_unit_test(test_copy_all_paths),
		cmocka_unit_test(test_transpose_all_paths),
		cmocka_unit_test(test_gather_scatter_all_paths),
		cmocka_unit_test(test_gather_scatter_bad_indices),
		cmocka_unit_test(test_memory_bad_arguments),
		cmocka_unit_test(test_quantize_all_paths),
		cmocka_unit_test(test_qgemm_all_paths),
		cmocka_unit_test(test_bf16gemm_all_paths),
		cmocka_unit_test(test_lowp_gemm_avx512_without_extensions),
		cmocka_unit_test(test_convert_all_paths),
		cmocka_unit_test(test_quant_bad_arguments),
		cmocka_unit_test(test_conv_all_paths),
		cmocka_unit_test(test_conv_large),
		cmocka_unit_test(test_conv_nan_inf),
		cmocka_unit_test(test_conv_empty),
		cmocka_unit_test(test_conv_bad_arguments),
		cmocka_unit_test(test_batchnorm_all_paths),
		cmocka_unit_test(test_batchnorm_channel_kinds),
		cmocka_unit_test(test_batchnorm_large),
		cmocka_unit_test(test_batchnorm_bad_arguments),
		cmocka_unit_test(test_concat_all_paths),
		cmocka_unit_test(test_concat_bad_arguments),
		cmocka_unit_test(test_sgemm_all_paths),
		cmocka_unit_test(test_sgemv_all_paths),
		cmocka_unit_test(test_sgemm_bad_arguments),
		cmocka_unit_test(test_in_place),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_backends_report_reasons),
		cmocka_unit_test(test_cuda_every_op_unavailable_or_compared),
		cmocka_unit_test(test_cuda_bad_arguments),
		cmocka_unit_test(test_cuda_device_compared),
		cmocka_unit_test(test_aligned_alloc),
		cmocka_unit_test(test_memory_accounting),
		cmocka_unit_test(test_exp_range_ends),
	};
	return cmocka_run_group_tests_name("kernels", tests, NULL, NULL);
}
