/* test_history.c - the pure parts of `history` (history.h): which
 * versions --every keeps, how a series is cut into overlapping windows, a
 * step from two versions' per-process ratios, and the chain of steps with
 * its quadrature interval. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "history.h"
#include "history_html.h"
#include "store.h"
#include "tests.h"

static void every_keeps_both_ends(void **state)
{
	(void)state;
	size_t keep[16];
	/* every 1: all of them */
	assert_int_equal(bv_history_every(5, 1, keep), 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(keep[i], i);
	/* every 2 over 6: 0 2 4, then the last end 5 */
	assert_int_equal(bv_history_every(6, 2, keep), 4);
	assert_int_equal(keep[0], 0);
	assert_int_equal(keep[1], 2);
	assert_int_equal(keep[2], 4);
	assert_int_equal(keep[3], 5);
	/* every 2 over 5: 0 2 4, the last already in */
	assert_int_equal(bv_history_every(5, 2, keep), 3);
	assert_int_equal(keep[2], 4);
	/* every N past the length: the two ends */
	assert_int_equal(bv_history_every(4, 100, keep), 2);
	assert_int_equal(keep[0], 0);
	assert_int_equal(keep[1], 3);
	/* 0 is taken as 1, and one version stays one */
	assert_int_equal(bv_history_every(3, 0, keep), 3);
	assert_int_equal(bv_history_every(1, 3, keep), 1);
	assert_int_equal(bv_history_every(0, 3, keep), 0);
}

static void windows_overlap_by_one_and_cover_every_step_once(void **state)
{
	(void)state;
	size_t first[32], last[32];
	/* 4 versions, W = 4: one window */
	assert_int_equal(bv_history_windows(4, 4, first, last), 1);
	assert_int_equal(first[0], 0);
	assert_int_equal(last[0], 3);
	/* 6 versions, W = 4: 0..3 and 3..5 */
	assert_int_equal(bv_history_windows(6, 4, first, last), 2);
	assert_int_equal(first[1], 3);
	assert_int_equal(last[1], 5);
	/* 2 versions: one pair, whatever W */
	assert_int_equal(bv_history_windows(2, 8, first, last), 1);
	assert_int_equal(last[0], 1);
	/* W = 2: every window is one step */
	assert_int_equal(bv_history_windows(5, 2, first, last), 4);
	for (size_t k = 0; k < 4; k++) {
		assert_int_equal(first[k], k);
		assert_int_equal(last[k], k + 1);
	}
	/* every step (i, i + 1) in exactly one window, for many n and W */
	for (size_t n = 2; n < 20; n++)
		for (size_t w = 2; w < 9; w++) {
			size_t nw = bv_history_windows(n, w, first, last);
			assert_true(nw >= 1);
			assert_int_equal(first[0], 0);
			assert_int_equal(last[nw - 1], n - 1);
			for (size_t i = 0; i + 1 < n; i++) {
				int in = 0;
				for (size_t k = 0; k < nw; k++)
					in += first[k] <= i && i + 1 <= last[k];
				assert_int_equal(in, 1);
			}
			for (size_t k = 0; k < nw; k++) {
				assert_true(last[k] - first[k] + 1 <= w);
				if (k)
					assert_int_equal(first[k], last[k - 1]);
			}
		}
	/* nothing to cut */
	assert_int_equal(bv_history_windows(1, 4, first, last), 0);
	assert_int_equal(bv_history_windows(5, 1, first, last), 0);
}

static void a_step_is_the_median_of_per_process_quotients(void **state)
{
	(void)state;
	/* a: 1.0 in every process, b: 2.0: the step is 2 */
	double ra[8] = {1, 1.1, 0.9, 1, 1.05, 0.95, 1, 1};
	double rb[8];
	for (int j = 0; j < 8; j++)
		rb[j] = 2 * ra[j] * (j % 2 ? 1.01 : 0.99);
	bv_step s;
	memset(&s, 0, sizeof(s));
	double cov = 0;
	assert_int_equal(bv_history_step(ra, rb, 8, &s, &cov), 0);
	assert_int_equal(s.nproc, 8);
	assert_true(fabs(s.ratio - 2.0) < 0.021);
	assert_true(s.lo <= s.ratio && s.ratio <= s.hi);
	assert_true(s.lo >= 1.97 && s.hi <= 2.03); /* the process's own level cancels */
	assert_true(cov >= 0.95);
	free(s.proc_ratio);
	/* ra NULL: rb is already the step (a is the window's baseline) */
	memset(&s, 0, sizeof(s));
	assert_int_equal(bv_history_step(NULL, rb, 8, &s, &cov), 0);
	assert_true(fabs(s.ratio - 2 * 1.0) < 0.12);
	free(s.proc_ratio);
	/* five processes: an estimate, no 95 % interval */
	memset(&s, 0, sizeof(s));
	assert_int_equal(bv_history_step(ra, rb, 5, &s, &cov), 0);
	assert_true(isfinite(s.ratio));
	assert_true(isnan(s.lo) && isnan(s.hi));
	assert_true(cov < 0.95);
	free(s.proc_ratio);
	/* non-finite quotients are left out; none at all is an error */
	double bad[3] = {0, NAN, 1};
	double one[3] = {1, 1, NAN};
	memset(&s, 0, sizeof(s));
	assert_int_equal(bv_history_step(bad, one, 3, &s, &cov), -1);
	assert_null(s.proc_ratio);
	assert_true(isnan(s.ratio));
}

static void the_chain_is_the_product_with_a_quadrature_interval(void **state)
{
	(void)state;
	bv_step s[3];
	memset(s, 0, sizeof(s));
	s[0].ratio = 1.0, s[0].lo = 0.99, s[0].hi = 1.01;
	s[1].ratio = 2.0, s[1].lo = 1.9, s[1].hi = 2.2;
	s[2].ratio = 0.5, s[2].lo = 0.45, s[2].hi = 0.52;
	double r[4], lo[4], hi[4];
	bv_history_chain(s, 3, r, lo, hi);
	assert_true(r[0] == 1 && lo[0] == 1 && hi[0] == 1);
	assert_true(fabs(r[1] - 1.0) < 1e-12);
	assert_true(fabs(r[2] - 2.0) < 1e-12);
	assert_true(fabs(r[3] - 1.0) < 1e-12);
	/* one step: its own interval */
	assert_true(fabs(lo[1] - 0.99) < 1e-12 && fabs(hi[1] - 1.01) < 1e-12);
	/* two: the log half-widths in quadrature, below and above apart */
	double d = sqrt(pow(log(1.0 / 0.99), 2) + pow(log(2.0 / 1.9), 2));
	double u = sqrt(pow(log(1.01 / 1.0), 2) + pow(log(2.2 / 2.0), 2));
	assert_true(fabs(lo[2] - 2.0 * exp(-d)) < 1e-12);
	assert_true(fabs(hi[2] - 2.0 * exp(u)) < 1e-12);
	/* wider than each step's alone, narrower than their sum */
	assert_true(log(2.0 / lo[2]) > log(2.0 / 1.9));
	assert_true(log(2.0 / lo[2]) < log(1.0 / 0.99) + log(2.0 / 1.9));
	for (int j = 0; j < 4; j++)
		assert_true(lo[j] <= r[j] && r[j] <= hi[j]);
	/* a step without an interval: the chain's interval is gone from there */
	s[1].lo = s[1].hi = NAN;
	bv_history_chain(s, 3, r, lo, hi);
	assert_true(isfinite(lo[1]));
	assert_true(isnan(lo[2]) && isnan(hi[3]));
	assert_true(fabs(r[3] - 1.0) < 1e-12);
	/* a step without a ratio: the chain ends there */
	s[1].ratio = NAN;
	bv_history_chain(s, 3, r, lo, hi);
	assert_true(isfinite(r[1]));
	assert_true(isnan(r[2]) && isnan(r[3]));
	/* a cell new at version 1 (no first step): its chain starts there at 1 */
	s[1].ratio = 2.0, s[1].lo = 1.9, s[1].hi = 2.2;
	s[0].ratio = s[0].lo = s[0].hi = NAN;
	bv_history_chain(s, 3, r, lo, hi);
	assert_true(isnan(r[0]) && isnan(lo[0]));
	assert_true(r[1] == 1 && lo[1] == 1 && hi[1] == 1);
	assert_true(fabs(r[2] - 2.0) < 1e-12 && fabs(lo[2] - 1.9) < 1e-12);
	assert_true(fabs(r[3] - 1.0) < 1e-12);
}


/* The HTML timeline (history_html.c) on a made-up history of 80 versions:
 * one chart, hostile names escaped, a gradual change shaded over its
 * versions and a single one marked, each labelled with its factor, the
 * labels thinned (not 80 of them) but both ends kept, and a band that stops
 * where the chain's interval does. */
static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void the_html_timeline_draws_the_chain_and_its_changes(void **state)
{
	(void)state;
	enum { NV = 80 };
	double chain[NV], lo[NV], hi[NV];
	char names[NV][32];
	const char *labels[NV], *titles[NV];
	for (size_t j = 0; j < NV; j++) {
		/* 0.8 after a gradual speedup over versions 10..15, then 2x slower at 31 */
		chain[j] = j < 10 ? 1.0 : j < 15 ? 1.0 - 0.04 * (double)(j - 9) : j < 31 ? 0.8 : 1.6;
		lo[j] = j < 60 ? chain[j] * 0.98 : NAN;
		hi[j] = j < 60 ? chain[j] * 1.02 : NAN;
		snprintf(names[j], sizeof(names[j]), j == 0 ? "v<0>&\"first\"" : "commit-%02zu", j);
		labels[j] = titles[j] = names[j];
	}
	bv_change_point cps[2] = {
	    {.first = 9, .last = 14, .ratio = 0.8, .lo = 0.78, .hi = 0.82, .direction = BV_FASTER},
	    {.first = 30, .last = 30, .ratio = 2.0, .lo = 1.9, .hi = 2.1, .direction = BV_SLOWER},
	};
	const char *lines[2] = {"a -> b: 0.800 [0.780, 0.820] faster", "c -> d: 2.000 [1.900, 2.100] slower"};
	const char *bisect[2] = {NULL, "bench-versions bisect --good c --bad d"};
	bv_history_html_cell cell = {.key = "unary/<script>alert(1)</script>/scalar/64K",
	                             .chain = chain,
	                             .clo = lo,
	                             .chi = hi,
	                             .cps = cps,
	                             .ncps = 2,
	                             .lines = lines,
	                             .bisect = bisect};
	const char *notes[1] = {"a <b>note</b>"};
	bv_history_html_view v = {.series = "A..B<img src=x>",
	                          .machine_class = "x86-64 test",
	                          .method = "threshold 0.01",
	                          .control = "39 steps of 1 cell decided together",
	                          .windows = "13 windows",
	                          .labels = labels,
	                          .titles = titles,
	                          .nv = NV,
	                          .cells = &cell,
	                          .ncells = 1,
	                          .notes = notes,
	                          .nnotes = 1};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(bv_history_html(&v, f), 0);
	fclose(f);
	assert_null(strstr(text, "<script"));
	assert_null(strstr(text, "<img"));
	assert_null(strstr(text, "<b>note"));
	assert_null(strstr(text, "v<0>"));
	assert_int_equal(count(text, "<svg "), 1);
	assert_int_equal(count(text, "</svg>"), 1);
	assert_int_equal(count(text, "<rect class=\"span faster\""), 1);
	assert_int_equal(count(text, "<rect class=\"span slower\""), 0);
	assert_int_equal(count(text, "<line class=\"cp faster\""), 1);
	assert_int_equal(count(text, "<line class=\"cp slower\""), 1);
	assert_non_null(strstr(text, ">1.25x faster<title>"));
	assert_non_null(strstr(text, ">2.00x slower<title>"));
	assert_int_equal(count(text, "<circle class=\"pt\""), NV);
	/* the band: versions 0..59 have an interval, 60.. none: one polygon */
	assert_int_equal(count(text, "<polygon class=\"band\""), 1);
	assert_int_equal(count(text, "<polyline class=\"chain\""), 1);
	/* labels: thinned, the last kept, the versions of a change kept */
	size_t nlabels = count(text, "transform=\"rotate(");
	assert_true(nlabels < NV && nlabels >= 4);
	assert_non_null(strstr(text, ">commit-79<title>"));
	assert_non_null(strstr(text, ">commit-31<title>"));
	assert_non_null(strstr(text, "narrow it: <code>bench-versions bisect --good c --bad d</code>"));
	free(text);
}

/* 24 processes of a step, ratios and bandwidth probes made up: the usual
 * ones at 1.00 (+-0.4 %) with 20 GB/s, the disturbed ones (5 GB/s: another
 * job streaming memory) at 1.40, as a memory-bound version under a hog. */
static void state_case(size_t ndisturbed, double *rb, double *gbps)
{
	for (size_t j = 0; j < 24; j++) {
		int d = j >= 24 - ndisturbed;
		rb[j] = (d ? 1.40 : 1.00) * (1 + 0.004 * (double)((j % 3) - 1.0));
		gbps[j] = d ? 5 : 20;
	}
}

static void a_step_that_follows_the_machine_is_judged_on_its_usual_processes(void **state)
{
	(void)state;
	bv_usual u = {20, NAN, NAN};
	double rb[24], gbps[24], cov = 0;
	char *note = NULL;
	bv_step s;

	/* logs without the machine's state: nothing done */
	state_case(12, rb, gbps);
	memset(&s, 0, sizeof(s));
	assert_int_equal(bv_history_step(NULL, rb, 24, &s, &cov), 0);
	double all = s.ratio;
	assert_int_equal(bv_history_step_state(&u, 0.01, NULL, rb, NULL, NULL, NULL, 24, &s, &cov, &note), 0);
	assert_null(note);
	assert_true(s.ratio == all && s.nproc == 24);
	free(s.proc_ratio);

	/* 12 disturbed at 1.40, 12 usual at 1.00: the step is the usual ones' */
	memset(&s, 0, sizeof(s));
	assert_int_equal(bv_history_step(NULL, rb, 24, &s, &cov), 0);
	assert_int_equal(bv_history_step_state(&u, 0.01, NULL, rb, gbps, NULL, NULL, 24, &s, &cov, &note), 1);
	assert_int_equal(s.nproc, 12);
	assert_true(fabs(s.ratio - 1.0) < 0.005);
	assert_true(isfinite(s.lo) && isfinite(s.hi) && s.hi < 1.01);
	assert_non_null(strstr(note, "1.000 in 12 processes at its usual state, 1.400 in 12 disturbed"));
	assert_non_null(strstr(note, "judged on the usual ones"));
	free(note), free(s.proc_ratio);

	/* against a's ratios (a step inside a window): the quotients are split */
	double ra[24];
	for (size_t j = 0; j < 24; j++)
		ra[j] = 2.0, rb[j] *= 2.0;
	memset(&s, 0, sizeof(s));
	assert_int_equal(bv_history_step(ra, rb, 24, &s, &cov), 0);
	assert_int_equal(bv_history_step_state(&u, 0.01, ra, rb, gbps, NULL, NULL, 24, &s, &cov, &note), 1);
	assert_true(fabs(s.ratio - 1.0) < 0.005);
	free(note), free(s.proc_ratio);

	/* 20 disturbed, 4 usual: too few to judge: unstable, no interval */
	state_case(20, rb, gbps);
	memset(&s, 0, sizeof(s));
	assert_int_equal(bv_history_step(NULL, rb, 24, &s, &cov), 0);
	assert_int_equal(bv_history_step_state(&u, 0.01, NULL, rb, gbps, NULL, NULL, 24, &s, &cov, &note), 2);
	assert_int_equal(s.nproc, 4);
	assert_true(isnan(s.lo) && isnan(s.hi) && cov == 0);
	assert_non_null(strstr(note, "unstable"));
	free(note), free(s.proc_ratio);

	/* disturbed processes whose ratios are the usual ones': the code's
	 * step (1.40 everywhere), not the machine's */
	for (size_t j = 0; j < 24; j++)
		rb[j] = 1.40 * (1 + 0.004 * (double)((j % 3) - 1.0));
	memset(&s, 0, sizeof(s));
	assert_int_equal(bv_history_step(NULL, rb, 24, &s, &cov), 0);
	assert_int_equal(bv_history_step_state(&u, 0.01, NULL, rb, gbps, NULL, NULL, 24, &s, &cov, &note), 0);
	assert_null(note);
	assert_int_equal(s.nproc, 24);
	free(s.proc_ratio);
}

int test_history(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_keeps_both_ends),
	    cmocka_unit_test(windows_overlap_by_one_and_cover_every_step_once),
	    cmocka_unit_test(a_step_is_the_median_of_per_process_quotients),
	    cmocka_unit_test(a_step_that_follows_the_machine_is_judged_on_its_usual_processes),
	    cmocka_unit_test(the_chain_is_the_product_with_a_quadrature_interval),
	    cmocka_unit_test(the_html_timeline_draws_the_chain_and_its_changes),
	};
	return test_run_group("history", tests, NULL, NULL);
}
