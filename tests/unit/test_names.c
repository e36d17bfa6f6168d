/* test_names.c - version names from the command line are checked first. */
#include <string.h>

#include "common.h"
#include "proc.h"
#include "resolve.h"
#include "tests.h"

static void hostile_version_names_are_refused(void **state)
{
	(void)state;
	char long_name[400];
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	const char *bad[] = {"", "--x", "-", "a b", "main\n", "x\ty", long_name, NULL};
	for (int i = 0; bad[i]; i++)
		assert_int_equal(bv_version_name_check(bad[i]), BV_EINPUT);
	const char *good[] = {"main", "0.16.1", "HEAD~3", "v0.2.0^", "feature/x", "a1b2c3d", "local", NULL};
	for (int i = 0; good[i]; i++)
		assert_int_equal(bv_version_name_check(good[i]), 0);
}

static void exit_codes_follow_error_kinds(void **state)
{
	(void)state;
	assert_int_equal(bv_exit_code(0), 0);
	assert_int_equal(bv_exit_code(BV_EINPUT), 2);
	assert_int_equal(bv_exit_code(BV_ERUN), 3);
	bv_fail(BV_EINPUT, "inner %d", 7);
	bv_fail_context(BV_EINPUT, "outer");
	assert_string_equal(bv_error_last(), "outer: inner 7");
}

int test_names(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hostile_version_names_are_refused),
		cmocka_unit_test(exit_codes_follow_error_kinds),
	};
	return test_run_group("names", tests, NULL, NULL);
}
