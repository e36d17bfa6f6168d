/* test_semver.c - versions and ranges as compat.json uses them. */
#include "semver.h"
#include "tests.h"

static int sat(const char *v, const char *range)
{
	bv_semver sv;
	char err[128];
	assert_int_equal(bv_semver_parse(v, &sv), 0);
	return bv_semver_satisfies(&sv, range, err, sizeof(err));
}

static void parses_valid_and_refuses_invalid(void **state)
{
	(void)state;
	bv_semver v;
	assert_int_equal(bv_semver_parse("0.16.1", &v), 0);
	assert_true(v.major == 0 && v.minor == 16 && v.patch == 1);
	assert_int_equal(bv_semver_parse("1.2.3-rc.1+build.5", &v), 0);
	assert_string_equal(v.pre, "rc.1");
	const char *bad[] = {"", "1", "1.2", "01.2.3", "1.2.3-", "1.2.3-a..b", "v1.2.3", "1.2.3 ",
			     "1.2.3.4", "99999999999.0.0", "-1.0.0", "1.2.3+", NULL};
	for (int i = 0; bad[i]; i++)
		if (bv_semver_parse(bad[i], &v) == 0)
			fail_msg("accepted '%s'", bad[i]);
}

static void orders_by_precedence(void **state)
{
	(void)state;
	const char *order[] = {"0.9.9", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta.2",
			       "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.10.0", NULL};
	for (int i = 0; order[i + 1]; i++) {
		bv_semver a, b;
		bv_semver_parse(order[i], &a);
		bv_semver_parse(order[i + 1], &b);
		if (bv_semver_cmp(&a, &b) >= 0 || bv_semver_cmp(&b, &a) <= 0)
			fail_msg("%s should sort before %s", order[i], order[i + 1]);
	}
}

static void ranges_match(void **state)
{
	(void)state;
	assert_int_equal(sat("0.1.5", ">=0.1.0 <0.2.0"), 1);
	assert_int_equal(sat("0.2.0", ">=0.1.0 <0.2.0"), 0);
	assert_int_equal(sat("0.1.7", "0.1.x"), 1);
	assert_int_equal(sat("0.1.7", "0.1"), 1);
	assert_int_equal(sat("0.2.0", "0.1"), 0);
	assert_int_equal(sat("0.2.9", "^0.2.1"), 1);
	assert_int_equal(sat("0.3.0", "^0.2.1"), 0);
	assert_int_equal(sat("1.9.0", "^1.2"), 1);
	assert_int_equal(sat("1.4.9", "~1.4.2"), 1);
	assert_int_equal(sat("1.5.0", "~1.4.2"), 0);
	assert_int_equal(sat("3.0.0", "<0.2.0 || >=2.0.0"), 1);
	assert_int_equal(sat("1.0.0", "<0.2.0 || >=2.0.0"), 0);
	assert_int_equal(sat("0.1.0", "<=0.1"), 1);
	assert_int_equal(sat("0.1.9", ">0.1"), 0);
	assert_int_equal(sat("7.7.7", "*"), 1);
}

static void malformed_ranges_are_errors(void **state)
{
	(void)state;
	const char *bad[] = {"", ">=", ">=a.b", "||", ">=1.0.0 ||", "=>1.0.0", "1.2.3.4", NULL};
	for (int i = 0; bad[i]; i++)
		if (sat("1.0.0", bad[i]) != -1)
			fail_msg("range '%s' should be malformed", bad[i]);
}

int test_semver(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parses_valid_and_refuses_invalid),
		cmocka_unit_test(orders_by_precedence),
		cmocka_unit_test(ranges_match),
		cmocka_unit_test(malformed_ranges_are_errors),
	};
	return test_run_group("semver", tests, NULL, NULL);
}
