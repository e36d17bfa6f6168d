/* test_stats.c - medians, order-statistic intervals, verdicts. */
#include <math.h>

#include "stats.h"
#include "tests.h"

static void median_odd_even_and_unsorted(void **state)
{
	(void)state;
	double a[] = {5, 1, 3};
	double b[] = {4, 1, 3, 2};
	assert_float_equal(bv_median(a, 3), 3, 0);
	assert_float_equal(bv_median(b, 4), 2.5, 0);
	assert_float_equal(a[0], 5, 0); /* input untouched */
	assert_true(isnan(bv_median(a, 0)));
}

static void interval_ranks_follow_the_binomial(void **state)
{
	(void)state;
	double v[9] = {9, 1, 8, 2, 7, 3, 6, 4, 5};
	bv_interval iv;
	assert_int_equal(bv_median_interval(v, 9, 0.95, &iv), 0);
	/* n = 9: [x(2), x(8)] covers 1 - 2*P(B<=1) = 1 - 20/512 = 96.1 % */
	assert_float_equal(iv.est, 5, 0);
	assert_float_equal(iv.lo, 2, 0);
	assert_float_equal(iv.hi, 8, 0);
	assert_float_equal(iv.coverage, 1.0 - 20.0 / 512.0, 1e-12);
	/* n = 5 cannot reach 95 %: the whole range, with its true coverage. */
	assert_int_equal(bv_median_interval(v, 5, 0.95, &iv), 0);
	assert_float_equal(iv.lo, 1, 0);
	assert_float_equal(iv.hi, 9, 0);
	assert_float_equal(iv.coverage, 0.9375, 1e-12);
	assert_int_equal(bv_median_interval(v, 0, 0.95, &iv), -1);
}

static void verdicts_need_significance_and_size(void **state)
{
	(void)state;
	bv_interval slower = {1.05, 1.02, 1.08, 0.96, 9};
	bv_interval tiny = {1.01, 1.005, 1.02, 0.96, 9};
	bv_interval wide = {1.10, 0.95, 1.30, 0.96, 9};
	bv_interval faster = {0.90, 0.85, 0.95, 0.96, 9};
	bv_interval undercovered = {1.50, 1.40, 1.60, 0.90, 5};
	assert_string_equal(bv_verdict_name(bv_verdict_of(&slower, 0.02)), "slower");
	assert_string_equal(bv_verdict_name(bv_verdict_of(&tiny, 0.02)), "same");
	assert_string_equal(bv_verdict_name(bv_verdict_of(&wide, 0.02)), "same");
	assert_string_equal(bv_verdict_name(bv_verdict_of(&faster, 0.02)), "faster");
	assert_string_equal(bv_verdict_name(bv_verdict_of(&undercovered, 0.02)), "same");
}

static void noisy_means_same_but_not_ruled_out(void **state)
{
	(void)state;
	bv_interval tight = {1.001, 0.997, 1.004, 0.96, 20};
	bv_interval reaching = {1.004, 0.995, 1.03, 0.96, 20};
	bv_interval decided = {1.05, 1.02, 1.08, 0.96, 20};
	bv_interval few = {1.0, 0.999, 1.001, 0.90, 4};
	assert_false(bv_interval_noisy(&tight, 0.01));
	assert_true(bv_interval_noisy(&reaching, 0.01));
	assert_false(bv_interval_noisy(&decided, 0.01)); /* slower is not noisy */
	assert_true(bv_interval_noisy(&few, 0.01));      /* too few to cover 95 % */
}

int test_stats(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(median_odd_even_and_unsorted),
		cmocka_unit_test(interval_ranks_follow_the_binomial),
		cmocka_unit_test(verdicts_need_significance_and_size),
		cmocka_unit_test(noisy_means_same_but_not_ruled_out),
	};
	return test_run_group("stats", tests, NULL, NULL);
}
