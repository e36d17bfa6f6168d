/* test_machine.c - when a stored calibration is measured again. */
#include <cjson/cJSON.h>
#include <string.h>

#include "machine.h"
#include "tests.h"

static cJSON *calibration(double copy, double at, double load)
{
	cJSON *c = cJSON_CreateObject();
	cJSON_AddNumberToObject(c, "copy_gbps", copy);
	cJSON_AddNumberToObject(c, "read_gbps", 25);
	cJSON_AddNumberToObject(c, "peak_gflops", 110);
	if (at >= 0)
		cJSON_AddNumberToObject(c, "measured_at", at);
	if (load >= 0)
		cJSON_AddNumberToObject(c, "load_average", load);
	return c;
}

static int stale(double copy, double at, double load, time_t now, double load_now, const char *want)
{
	cJSON *c = calibration(copy, at, load);
	char why[256] = "";
	int r = bv_calibration_stale(c, now, load_now, 2, why, sizeof(why));
	cJSON_Delete(c);
	if (want)
		assert_non_null(strstr(why, want));
	return r;
}

static void a_calibration_is_taken_again_when_stale_or_from_a_busy_machine(void **state)
{
	(void)state;
	time_t now = 1800000000;
	/* Fresh, taken quiet: kept. */
	assert_int_equal(stale(19, (double)now - 3600, 0.3, now, 0.5, NULL), 0);
	/* Taken under load, still under load: kept (measuring again would
	 * give the same low figures on every run). */
	assert_int_equal(stale(19, (double)now - 3600, 5.6, now, 4.0, NULL), 0);
	/* Taken at load 5.6 on 2 CPUs, the machine quiet now. */
	assert_int_equal(stale(2, (double)now - 3600, 5.6, now, 0.4, "load 5.6"), 1);
	/* A week and a day old. */
	assert_int_equal(stale(19, (double)now - 8 * 86400, 0.3, now, 0.3, "8 days old"), 1);
	/* From the future (a clock set back): not trusted either. */
	assert_int_equal(stale(19, (double)now + 86400, 0.3, now, 0.3, "days old"), 1);
	/* A file from before: no time or load recorded. */
	assert_int_equal(stale(19, -1, -1, now, 0.3, "does not say when"), 1);
	/* Figures no machine has. */
	assert_int_equal(stale(0, (double)now, 0.3, now, 0.3, "unreadable"), 1);
	assert_int_equal(stale(1e9, (double)now, 0.3, now, 0.3, "unreadable"), 1);
	cJSON *c = cJSON_CreateObject();
	char why[64];
	assert_int_equal(bv_calibration_stale(c, now, 0.3, 2, why, sizeof(why)), 1);
	cJSON_Delete(c);
}

/* An unknown load is stored as null, never as a quiet 0, and a calibration
 * taken at one is not kept as a quiet one is once the load can be read. */
static void an_unknown_load_is_null_not_quiet(void **state)
{
	(void)state;
	time_t now = 1800000000;
	cJSON *c = calibration(19, -1, -1);
	bv_calibration_stamp(c, now - 3600, -1, 2);
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(c, "load_average");
	assert_true(cJSON_IsNull(l));
	char why[256] = "";
	assert_int_equal(bv_calibration_stale(c, now, 0.3, 2, why, sizeof(why)), 1);
	assert_non_null(strstr(why, "does not say at what load"));
	/* Still unknown now: measuring again would not know better. */
	assert_int_equal(bv_calibration_stale(c, now, -1, 2, why, sizeof(why)), 0);
	cJSON_Delete(c);
	/* A known load is a number, to the hundredth. */
	c = calibration(19, -1, -1);
	bv_calibration_stamp(c, now - 3600, 0.456, 2);
	l = cJSON_GetObjectItemCaseSensitive(c, "load_average");
	assert_true(cJSON_IsNumber(l));
	assert_true(l->valuedouble > 0.455 && l->valuedouble < 0.465);
	assert_int_equal(bv_calibration_stale(c, now, 0.3, 2, why, sizeof(why)), 0);
	cJSON_Delete(c);
}

int test_machine(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_calibration_is_taken_again_when_stale_or_from_a_busy_machine),
		cmocka_unit_test(an_unknown_load_is_null_not_quiet),
	};
	return test_run_group("machine", tests, NULL, NULL);
}
