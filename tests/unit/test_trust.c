/* test_trust.c - the runner's preemption rule, its re-take bound, the load
 * line it reads, and the probes' shape (harness/common/trust.h).  No timing: the
 * takes are made up, the probes only checked for sane, finite output. */
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trust.h"
#include "tests.h"

static bv_take tk(double wall_us, double cpu_us, long nivcsw) { return (bv_take){wall_us * 1e3, cpu_us * 1e3, nivcsw, 0}; }

static void clean_takes_are_clean(void **state)
{
	(void)state;
	/* The clocks' own cost (about 1 us here) and a short interrupt. */
	bv_take a = tk(2000, 1999, 0), b = tk(300, 291, 1), c = tk(30000, 29800, 3);
	assert_false(bv_take_contaminated(&a, 1));
	assert_false(bv_take_contaminated(&b, 1)); /* 9 us: under the 10 us floor */
	assert_false(bv_take_contaminated(&c, 1)); /* 200 us: under 1 % of 30 ms */
	/* CPU time above wall (clock granularity) is not negative contamination. */
	bv_take d = tk(1000, 1000.5, 0);
	assert_false(bv_take_contaminated(&d, 1));
}

static void preempted_takes_are_contaminated(void **state)
{
	(void)state;
	/* A time slice lost: 4 ms off the CPU in a 6 ms take of a 2 ms sample. */
	bv_take a = tk(6100, 2100, 1), b = tk(300, 285, 0), c = tk(30000, 29600, 0);
	assert_true(bv_take_contaminated(&a, 1));
	assert_true(bv_take_contaminated(&b, 1)); /* 15 us > 10 us floor; no switch needed */
	assert_true(bv_take_contaminated(&c, 1)); /* 400 us > 1 % of 30 ms */
	/* The floor and the share, at their edges. */
	bv_take e = tk(500, 490, 0), f = tk(500, 489.9, 0);
	assert_false(bv_take_contaminated(&e, 1));
	assert_true(bv_take_contaminated(&f, 1));
}

static void threads_use_switches_not_cpu_time(void **state)
{
	(void)state;
	/* With workers the main thread may sleep: a big gap alone is no sign. */
	bv_take sleepy = tk(2000, 200, 0), one = tk(2000, 1999, 1), long_one = tk(30000, 29000, 3),
		long_many = tk(30000, 29999, 4);
	assert_false(bv_take_contaminated(&sleepy, 2));
	assert_true(bv_take_contaminated(&one, 2));
	assert_false(bv_take_contaminated(&long_one, 4)); /* one switch per 10 ms allowed */
	assert_true(bv_take_contaminated(&long_many, 4));
	/* The allowance comes from what the sample should take, not from a
	 * wall time the preemptions themselves stretched: 8 switches in a
	 * 30 ms sample that took 89 ms. */
	bv_take stretched = tk(89000, 30000, 8);
	assert_false(bv_take_contaminated(&stretched, 2));
	stretched.expect_ns = 30e6;
	assert_true(bv_take_contaminated(&stretched, 2));
	/* Single-threaded, the same sleepy take is contaminated. */
	assert_true(bv_take_contaminated(&sleepy, 1));
}

static void the_least_contaminated_take_is_kept(void **state)
{
	(void)state;
	bv_take a = tk(6000, 2000, 1), b = tk(5000, 2000, 1), c = tk(5000, 1900, 2);
	assert_true(bv_take_better(&b, &a, 1));
	assert_false(bv_take_better(&a, &b, 1));
	assert_false(bv_take_better(&c, &b, 1)); /* same time off the CPU */
	assert_true(bv_take_better(&b, &c, 2));  /* fewer switches */
	assert_true(bv_take_better(&b, &a, 2));  /* as many, shorter */
}

static void kept_takes_count_their_cpu_time(void **state)
{
	(void)state;
	/* 4 calls, 6 ms of wall, 2 ms on the CPU: 0.5 ms a call, not 1.5. */
	bv_take a = tk(6000, 2000, 1);
	assert_float_equal(bv_take_kept_ns(&a, 1.5e6, 4, 1), 0.5e6, 1e-6);
	/* Never above the wall time per call (the clocks differ a little). */
	bv_take b = tk(1000, 1001, 0);
	assert_float_equal(bv_take_kept_ns(&b, 0.99e6, 1, 1), 0.99e6, 1e-6);
	/* With workers, or without a CPU time, the wall time stays. */
	assert_float_equal(bv_take_kept_ns(&a, 1.5e6, 4, 2), 1.5e6, 1e-6);
	bv_take c = tk(6000, 0, 1);
	assert_float_equal(bv_take_kept_ns(&c, 1.5e6, 4, 1), 1.5e6, 1e-6);
}

static void retakes_are_bounded(void **state)
{
	(void)state;
	assert_true(bv_retake_allowed(0, 0, 10));
	assert_true(bv_retake_allowed(3, 0, 10)); /* the first few always */
	assert_false(bv_retake_allowed(4, 0, 10)); /* none of four paid off */
	assert_true(bv_retake_allowed(4, 1, 10));
	assert_true(bv_retake_allowed(8, 2, 10));
	assert_false(bv_retake_allowed(9, 2, 10));
	assert_false(bv_retake_allowed(10, 10, 10)); /* one per sample at most */
	assert_false(bv_retake_allowed(0, 0, 0));
}

static void long_calls_time_as_long_as_they_prepared(void **state)
{
	(void)state;
	/* Short calls: the setting, however long preparing took. */
	assert_int_equal(bv_rounds_fit(21, 417e6, 5e6, 2e6), 21);
	assert_int_equal(bv_rounds_fit(21, 417e6, 2e9, 2e6), 21);
	/* A long call, cheap to prepare: what fits in cell_ns (417 / 30). */
	assert_int_equal(bv_rounds_fit(21, 417e6, 100e6, 30e6), 13);
	/* Preparing took 0.9 s: as many as fit in that, past the setting... */
	assert_int_equal(bv_rounds_fit(21, 417e6, 900e6, 30e6), 30);
	/* ... but not without bound. */
	assert_int_equal(bv_rounds_fit(21, 417e6, 60e9, 30e6), 21 * BV_ROUNDS_STRETCH);
	/* Never fewer than 5, nor more than asked for when fewer fit. */
	assert_int_equal(bv_rounds_fit(21, 417e6, 0, 1e9), 5);
	assert_int_equal(bv_rounds_fit(3, 417e6, 0, 1e9), 3);
	assert_int_equal(bv_rounds_fit(1, 417e6, 0, 1e9), 1);
	/* No target, or no calibration: the setting. */
	assert_int_equal(bv_rounds_fit(21, 0, 900e6, 30e6), 21);
	assert_int_equal(bv_rounds_fit(21, 417e6, 900e6, NAN), 21);
}

static void loadavg_lines_parse(void **state)
{
	(void)state;
	double l = -1;
	int r = -1;
	assert_int_equal(bv_loadavg_parse("0.52 0.58 0.59 3/467 12345\n", &l, &r), 0);
	assert_float_equal(l, 0.52, 1e-12);
	assert_int_equal(r, 3);
	assert_int_equal(bv_loadavg_parse("4.10 2.00 1.00 12/90 7", &l, &r), 0);
	assert_int_equal(r, 12);
	assert_int_equal(bv_loadavg_parse("", &l, &r), -1);
	assert_int_equal(bv_loadavg_parse("0.5 0.5 0.5", &l, &r), -1);
	assert_int_equal(bv_loadavg_parse("0.5 0.5 0.5 x/4 1", &l, &r), -1);
	assert_int_equal(bv_loadavg_parse(NULL, &l, &r), -1);
}

static void probes_report_finite_rates(void **state)
{
	(void)state;
	bv_probe p = {0};
	bv_state s;
	assert_int_equal(bv_probe_init(&p, -1), 0);
	bv_state_take(&p, &s);
	assert_true(isfinite(s.gbps) && s.gbps > 0);
	assert_true(isfinite(s.compute_ns) && s.compute_ns > 0);
	assert_true(isnan(s.load1) || s.load1 >= 0);
	assert_true(s.running >= -1);
	bv_probe_free(&p);
	assert_null(p.buf[0]);
	/* Without buffers the load and the compute chain still come. */
	bv_state_take(&p, &s);
	assert_true(isnan(s.gbps));
	assert_true(isfinite(s.compute_ns) && s.compute_ns > 0);
}

static void probes_map_a_run_wide_probe_file(void **state)
{
	(void)state;
	int fd = memfd_create("probe-test", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)bv_probe_file_bytes()), 0);
	bv_probe p;
	bv_state s;
	assert_int_equal(bv_probe_init(&p, fd), 0);
	assert_true(p.mapped);
	bv_state_take(&p, &s);
	bv_state_take(&p, &s); /* buffers 1 and 0: every one of them is usable */
	assert_true(isfinite(s.gbps) && s.gbps > 0);
	bv_probe_free(&p);
	assert_null(p.buf[0]);
	/* A file too small for the buffers (or no file): buffers of its own. */
	assert_int_equal(ftruncate(fd, 4096), 0);
	assert_int_equal(bv_probe_init(&p, fd), 0);
	assert_false(p.mapped);
	bv_state_take(&p, &s);
	assert_true(isfinite(s.gbps) && s.gbps > 0);
	bv_probe_free(&p);
	close(fd);
	assert_int_equal(bv_probe_init(&p, fd), 0); /* closed: not a file at all */
	assert_false(p.mapped);
	bv_probe_free(&p);
}

int test_trust(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clean_takes_are_clean),
		cmocka_unit_test(preempted_takes_are_contaminated),
		cmocka_unit_test(threads_use_switches_not_cpu_time),
		cmocka_unit_test(the_least_contaminated_take_is_kept),
		cmocka_unit_test(kept_takes_count_their_cpu_time),
		cmocka_unit_test(retakes_are_bounded),
		cmocka_unit_test(long_calls_time_as_long_as_they_prepared),
		cmocka_unit_test(loadavg_lines_parse),
		cmocka_unit_test(probes_report_finite_rates),
		cmocka_unit_test(probes_map_a_run_wide_probe_file),
	};
	return test_run_group("trust", tests, NULL, NULL);
}
