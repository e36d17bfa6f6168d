/* test_status.c - the enums that stand for words inside the program:
 * each value named and read back by its parse function, and
 * the words a file may hold that the enum does not know read as nothing.
 * The cell statuses (status.h) and their gaps (new, vanished), and the
 * verdicts (stats.h) that the history's change points and a bisect's
 * parent verdict now carry. */
#include <string.h>

#include "stats.h"
#include "status.h"
#include "tests.h"

/* bv_status_parse reads what a results log may say, bv_status_parse_any
 * the program's own statuses too (counts.json's "not run"). */
static void every_status_reads_back_what_it_wrote(void **state)
{
	(void)state;
	int any = 0;
	for (bv_status s = BV_ST_OK; bv_status_name(s); s++, any++) {
		const char *name = bv_status_name(s);
		assert_int_equal(bv_status_parse_any(name), s);
		assert_int_equal(bv_status_parse(name), s <= BV_ST_LAST_LOGGED ? s : BV_ST_NONE);
	}
	assert_int_equal(any, BV_ST_NOT_RUN); /* every value from BV_ST_OK on has a name */
	assert_null(bv_status_name(BV_ST_NONE));
	assert_string_equal(bv_status_name(BV_ST_OK), "ok");
	assert_string_equal(bv_status_name(BV_ST_NA), "n/a");
	assert_string_equal(bv_status_name(BV_ST_WRONG), "wrong result");
	assert_string_equal(bv_status_name(BV_ST_OOM), "out of memory");
	assert_string_equal(bv_status_name(BV_ST_BUILD_FAILED), "build failed");
	assert_string_equal(bv_status_name(BV_ST_NOT_RUN), "not run");
	assert_int_equal(bv_status_parse("not run"), BV_ST_NONE);
	assert_int_equal(bv_status_parse("build failed"), BV_ST_NONE);
	const char *unknown[] = {"great", "OK", "ok ", "", "dropped", NULL};
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		assert_int_equal(bv_status_parse(unknown[i]), BV_ST_NONE);
		assert_int_equal(bv_status_parse_any(unknown[i]), BV_ST_NONE);
	}
}

/* A cell one side lacks: the gap, and the word every output says for it. */
static void a_gap_is_new_or_vanished(void **state)
{
	(void)state;
	assert_int_equal(bv_status_gap(BV_ST_NA, BV_ST_OK), BV_GAP_NEW);
	assert_int_equal(bv_status_gap(BV_ST_SKIPPED, BV_ST_OK), BV_GAP_NEW);
	assert_int_equal(bv_status_gap(BV_ST_OK, BV_ST_NA), BV_GAP_VANISHED);
	assert_int_equal(bv_status_gap(BV_ST_CRASHED, BV_ST_NA), BV_GAP_VANISHED);
	assert_int_equal(bv_status_gap(BV_ST_SKIPPED, BV_ST_NA), BV_GAP_NONE);
	assert_int_equal(bv_status_gap(BV_ST_OK, BV_ST_OK), BV_GAP_NONE);
	assert_string_equal(bv_gap_name(BV_GAP_NEW), "new");
	assert_string_equal(bv_gap_name(BV_GAP_VANISHED), "vanished");
	assert_null(bv_gap_name(BV_GAP_NONE));
}

static void every_verdict_reads_back_what_it_wrote(void **state)
{
	(void)state;
	const char *names[] = {"same", "faster", "slower", "inconclusive", "unstable"};
	for (bv_verdict v = BV_SAME; v <= BV_UNSTABLE; v++) {
		assert_string_equal(bv_verdict_name(v), names[v - BV_SAME]);
		assert_int_equal(bv_verdict_parse(bv_verdict_name(v)), v);
	}
	assert_null(bv_verdict_name(BV_NO_VERDICT));
	assert_int_equal(bv_verdict_parse("noisy"), BV_NO_VERDICT);
	assert_int_equal(bv_verdict_parse(NULL), BV_NO_VERDICT);
}

int test_status(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_status_reads_back_what_it_wrote),
		cmocka_unit_test(a_gap_is_new_or_vanished),
		cmocka_unit_test(every_verdict_reads_back_what_it_wrote),
	};
	return test_run_group("status", tests, NULL, NULL);
}
