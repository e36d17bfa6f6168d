/*
 * test_kernels.c - every unary op on every host backend against a double
 * precision reference, plus the error paths callers rely on.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernels.h"

static double reference(kn_unary_op op, double v)
{
	switch (op) {
	case KN_ABS: return fabs(v);
	case KN_NEG: return -v;
	case KN_SQRT: return sqrt(v);
	case KN_EXP: return exp(v);
	case KN_RELU: return v > 0 ? v : 0;
	default: return NAN;
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

/* Inputs over the domain each op accepts, including 0, denormals and huge values. */
static float input(kn_unary_op op, size_t i)
{
	float t = (float)((i * 2654435761u) % 20001u) / 1000.0f - 10.0f; /* [-10, 10] */
	if (op == KN_SQRT)
		t = fabsf(t) * 1e3f;
	if (op == KN_EXP)
		t *= 8.0f; /* [-80, 80]: underflow to denormals and overflow to inf */
	return t;
}

static void check_op(kn_backend b, kn_unary_op op, size_t n, size_t misalign)
{
	float *xbuf = malloc((n + 16) * sizeof(float));
	float *ybuf = malloc((n + 16) * sizeof(float));
	assert_non_null(xbuf);
	assert_non_null(ybuf);
	float *x = xbuf + misalign, *y = ybuf + misalign;
	for (size_t i = 0; i < n; i++)
		x[i] = input(op, i);
	assert_int_equal(kn_unary(b, op, x, y, n), KN_OK);
	for (size_t i = 0; i < n; i++) {
		float want = (float)reference(op, x[i]);
		uint32_t d = ulp_distance(y[i], want);
		if (d > 1)
			fail_msg("%s/%s n=%zu i=%zu x=%a got %a want %a (%u ulp)", kn_backend_name(b),
				 kn_unary_name(op), n, i, (double)x[i], (double)y[i], (double)want, d);
	}
	free(xbuf);
	free(ybuf);
}

static void test_scalar_all_ops_sizes_alignments(void **state)
{
	(void)state;
	static const size_t sizes[] = {0, 1, 7, 16, 1023, 4097};
	for (int op = 0; op < KN_UNARY_COUNT_; op++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			for (size_t mis = 0; mis < 3; mis++)
				check_op(KN_BACKEND_SCALAR, (kn_unary_op)op, sizes[s], mis);
}

static void test_special_values(void **state)
{
	(void)state;
	const float in[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f};
	float out[5];
	for (int op = 0; op < KN_UNARY_COUNT_; op++) {
		assert_int_equal(kn_unary(KN_BACKEND_SCALAR, (kn_unary_op)op, in, out, 5), KN_OK);
		for (int i = 0; i < 5; i++)
			assert_true(ulp_distance(out[i], (float)reference((kn_unary_op)op, in[i])) == 0 ||
				    (op == KN_RELU && isnan(in[i]))); /* relu(NaN) may be 0 or NaN */
	}
}

static void test_in_place(void **state)
{
	(void)state;
	float v[4] = {-1, 2, -3, 4};
	assert_int_equal(kn_unary(KN_BACKEND_SCALAR, KN_ABS, v, v, 4), KN_OK);
	assert_true(v[0] == 1 && v[2] == 3);
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
		cmocka_unit_test(test_scalar_all_ops_sizes_alignments),
		cmocka_unit_test(test_special_values),
		cmocka_unit_test(test_in_place),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_backends_report_reasons),
		cmocka_unit_test(test_aligned_alloc),
	};
	return cmocka_run_group_tests_name("kernels", tests, NULL, NULL);
}
