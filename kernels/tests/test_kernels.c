/*
 * test_kernels.c - every unary op on every host backend against a double
 * precision reference, plus the error paths callers rely on.
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

static size_t host_paths(path *out)
{
	size_t n = 0;
	out[n++] = (path){KN_BACKEND_SCALAR, NULL};
	static const char *const isas[] = {"avx512", "avx2", "generic"};
	for (size_t i = 0; i < 3; i++)
		if (kn_simd_set_isa(isas[i]) == KN_OK)
			out[n++] = (path){KN_BACKEND_SIMD, isas[i]};
	kn_simd_set_isa(NULL);
	return n;
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
	assert_int_equal(kn_unary_ex(pa.b, op, x, y, n, &test_params), KN_OK);
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
	path paths[4];
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
	path paths[4];
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
	path paths[4];
	size_t np = host_paths(paths);
	for (size_t pi = 0; pi < np; pi++) {
		use_path(paths[pi]);
		for (int op = 0; op < KN_UNARY_COUNT_; op++) {
			assert_int_equal(kn_unary_ex(paths[pi].b, (kn_unary_op)op, in, out, n, &test_params), KN_OK);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unary_all_paths_sizes_alignments),
		cmocka_unit_test(test_unary_accuracy_sweep),
		cmocka_unit_test(test_special_values),
		cmocka_unit_test(test_unary_params),
		cmocka_unit_test(test_simd_isa),
		cmocka_unit_test(test_in_place),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_backends_report_reasons),
		cmocka_unit_test(test_aligned_alloc),
	};
	return cmocka_run_group_tests_name("kernels", tests, NULL, NULL);
}
