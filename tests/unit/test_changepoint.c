/* test_changepoint.c - change points over a history's paired steps
 * (changepoint.c, docs/history.md, "Change points"): the pieces on hand-made steps, then
 * simulated histories: on pure noise the chance of any change point stays
 * within q; planted steps are found at their steps; a gradual drift, none
 * of whose steps is a change alone, is found as a span.
 *
 * The simulation draws each process's ratio as truth x lognormal noise
 * (sigma 0.5-2 %, one sigma per cell and history) and samples a step as
 * --quick's adaptive sampling does: at least 6 processes, at most 24,
 * stopping once the step's 95 % interval lies inside the band, or beyond it
 * with evidence at the history's share (bv_changepoint_step_share).  Steps
 * are independent (each its own processes): for a span's sum that is the
 * harder case (steps sharing processes vary less together, changepoint.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "common.h"
#include "stats.h"
#include "store.h"
#include "tests.h"

#define T 0.01 /* threshold */
#define Q 0.05
#define MAXP 24

/* ---- hand-made steps --------------------------------------------------- */

static bv_step step_of(double ratio, double lo, double hi, double *proc, size_t nproc)
{
	return (bv_step){.ratio = ratio,
	                 .lo = lo,
	                 .hi = hi,
	                 .proc_ratio = proc,
	                 .nproc = nproc,
	                 .verdict = BV_SAME,
	                 .p = NAN};
}

/* The sign mixture (stats.c, kept per (n, k) once computed) against a
 * direct midpoint integration over theta, on the first call and on the
 * kept value. */
static void sign_mixture_matches_a_direct_integral(void **state)
{
	(void)state;
	const size_t nk[][2] = {{1, 1}, {6, 6}, {6, 3}, {12, 10}, {40, 31}, {96, 80}, {97, 80}, {200, 150}};
	for (size_t t = 0; t < sizeof(nk) / sizeof(nk[0]); t++) {
		size_t n = nk[t][0], k = nk[t][1];
		/* log of 2^n * 2/pi * integral_(1/2)^1 th^(k-1/2) (1-th)^(n-k-1/2) */
		enum { M = 400000 };
		double maxl = -INFINITY, sum = 0, h = 0.5 / M;
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < M; i++) {
				double th = 0.5 + (i + 0.5) * h;
				double l = ((double)k - 0.5) * log(th) + ((double)(n - k) - 0.5) * log1p(-th);
				if (pass == 0)
					maxl = l > maxl ? l : maxl;
				else
					sum += exp(l - maxl);
			}
		double direct = (double)n * log(2.0) + log(2.0 / M_PI) + maxl + log(sum * h);
		for (int call = 0; call < 2; call++) {
			double got = bv_sign_log_mixture(n, k);
			/* the midpoint rule is coarse near theta = 1 where (1-th)^(-1/2)
			 * is singular (k = n): a relative 1e-3 is ample to catch a
			 * wrong memo entry, which is off by orders */
			assert_true(fabs(got - direct) < 1e-3 * fmax(1.0, fabs(direct)));
		}
	}
}

static void chain_multiplies_steps_and_adds_widths_in_quadrature(void **state)
{
	(void)state;
	bv_step s[2] = {step_of(1.1, 1.1 * exp(-0.03), 1.1 * exp(0.04), NULL, 0),
	                step_of(1.2, 1.2 * exp(-0.04), 1.2 * exp(0.03), NULL, 0)};
	double lo, hi;
	double c = bv_chain_interval(s, 2, &lo, &hi);
	assert_true(fabs(c - 1.32) < 1e-12);
	assert_true(fabs(log(c / lo) - 0.05) < 1e-12); /* sqrt(0.03^2 + 0.04^2) */
	assert_true(fabs(log(hi / c) - 0.05) < 1e-12);
	c = bv_chain_interval(s, 0, &lo, &hi);
	assert_true(c == 1 && lo == 1 && hi == 1);
	s[1].lo = NAN; /* a step without an interval: the chain has none */
	c = bv_chain_interval(s, 2, &lo, &hi);
	assert_true(fabs(c - 1.32) < 1e-12 && isnan(lo) && isnan(hi));
	s[0].ratio = NAN;
	assert_true(isnan(bv_chain_interval(s, 2, &lo, &hi)));
}

static void bad_arguments_are_input_errors(void **state)
{
	(void)state;
	bv_step s = step_of(1, 0.99, 1.01, NULL, 0);
	bv_change_point *cp = (void *)1;
	size_t n = 7;
	assert_int_equal(bv_changepoints(&s, 1, 0, Q, &cp, &n), BV_EINPUT);
	assert_true(cp == NULL && n == 0);
	assert_int_equal(bv_changepoints(&s, 1, NAN, Q, &cp, &n), BV_EINPUT);
	assert_int_equal(bv_changepoints(&s, 1, T, 0, &cp, &n), BV_EINPUT);
	assert_int_equal(bv_changepoints(&s, 1, T, 1.5, &cp, &n), BV_EINPUT);
	assert_int_equal(bv_changepoints_table(NULL, 2, 3, T, Q, &cp, &n), BV_EINPUT);
	/* An empty history has no change point. */
	assert_int_equal(bv_changepoints(NULL, 0, T, Q, &cp, &n), 0);
	assert_true(cp == NULL && n == 0);
}

/* Twelve steps with 20 processes each, tight; step 5 is +8 %. */
static void one_clear_step_is_a_change_point_at_that_step(void **state)
{
	(void)state;
	enum { N = 12, P = 20 };
	double proc[N][P];
	bv_step s[N];
	for (int i = 0; i < N; i++) {
		double truth = i == 5 ? 1.08 : 1.0;
		for (int j = 0; j < P; j++)
			proc[i][j] = truth * (1 + 0.002 * ((j * 7 + i) % 9 - 4));
		s[i] = step_of(truth, truth * 0.996, truth * 1.004, proc[i], P);
	}
	bv_change_point *cp;
	size_t n;
	assert_int_equal(bv_changepoints(s, N, T, Q, &cp, &n), 0);
	assert_int_equal(n, 1);
	assert_true(cp[0].first == 5 && cp[0].last == 5 && cp[0].cell == 0);
	assert_int_equal(cp[0].direction, BV_SLOWER);
	assert_true(cp[0].ratio == 1.08 && cp[0].p < 1e-4);
	free(cp);
	/* The same step judged unstable (the machine changed under it) is
	 * judged on nothing. */
	s[5].verdict = BV_UNSTABLE;
	assert_int_equal(bv_changepoints(s, N, T, Q, &cp, &n), 0);
	assert_int_equal(n, 0);
	free(cp);
	/* Without per-process ratios the step's own p counts. */
	s[5].verdict = BV_SLOWER, s[5].proc_ratio = NULL, s[5].nproc = 0, s[5].p = 1e-6;
	assert_int_equal(bv_changepoints(s, N, T, Q, &cp, &n), 0);
	assert_true(n == 1 && cp[0].first == 5);
	free(cp);
	/* ... and a step whose interval holds 1 is never called, whatever p. */
	s[5].lo = 0.99;
	assert_int_equal(bv_changepoints(s, N, T, Q, &cp, &n), 0);
	assert_int_equal(n, 0);
	free(cp);
}

/* Six steps of +0.8 % among flat ones, each alone inside the band: their
 * product (4.9 %) is a gradual change over exactly those steps; a step
 * without an interval inside such a drift splits it. */
static void a_drift_of_small_steps_is_one_gradual_change(void **state)
{
	(void)state;
	enum { N = 20 };
	bv_step s[N];
	for (int i = 0; i < N; i++) {
		double truth = i >= 7 && i <= 12 ? 1.008 : 1.0;
		s[i] = step_of(truth, truth * 0.997, truth * 1.003, NULL, 0);
	}
	bv_change_point *cp;
	size_t n;
	assert_int_equal(bv_changepoints(s, N, T, Q, &cp, &n), 0);
	assert_int_equal(n, 1);
	assert_true(cp[0].first == 7 && cp[0].last == 12);
	assert_int_equal(cp[0].direction, BV_SLOWER);
	assert_true(fabs(cp[0].ratio - pow(1.008, 6)) < 1e-9);
	assert_true(cp[0].lo > 1.01 && cp[0].hi > cp[0].ratio);
	free(cp);
	/* Mirror: faster. */
	for (int i = 7; i <= 12; i++)
		s[i] = step_of(1 / 1.008, 0.997 / 1.008, 1.003 / 1.008, NULL, 0);
	assert_int_equal(bv_changepoints(s, N, T, Q, &cp, &n), 0);
	assert_true(n == 1 && cp[0].first == 7 && cp[0].last == 12);
	assert_int_equal(cp[0].direction, BV_FASTER);
	free(cp);
	/* Two drifts of three steps, apart: two gradual changes, in order. */
	for (int i = 0; i < N; i++) {
		double truth = (i >= 2 && i <= 4) ? 1.012 : (i >= 14 && i <= 16) ? 1 / 1.012 : 1.0;
		s[i] = step_of(truth, truth * 0.998, truth * 1.002, NULL, 0);
	}
	assert_int_equal(bv_changepoints(s, N, T, Q, &cp, &n), 0);
	assert_int_equal(n, 2);
	assert_true(cp[0].first == 2 && cp[0].last == 4 && cp[1].first == 14 && cp[1].last == 16);
	free(cp);
	/* Flat with wide intervals: nothing. */
	for (int i = 0; i < N; i++)
		s[i] = step_of(1.004, 0.98, 1.03, NULL, 0);
	assert_int_equal(bv_changepoints(s, N, T, Q, &cp, &n), 0);
	assert_int_equal(n, 0);
	free(cp);
}

/* A step without sign evidence (no per-process ratios) but with an
 * interval far past the band is found by the span search, at that step
 * alone: not as a span of it and a neighbour (the proof's run before spans
 * of one step counted: a -20 % step reported over two steps). */
static void a_step_without_evidence_is_found_at_itself(void **state)
{
	(void)state;
	enum { N = 29 };
	bv_step s[N];
	for (int i = 0; i < N; i++)
		s[i] = i == 19 ? step_of(0.803, 0.765, 0.849, NULL, 0) : step_of(1.0, 0.99, 1.01, NULL, 0);
	bv_change_point *cp;
	size_t n;
	assert_int_equal(bv_changepoints(s, N, T, Q, &cp, &n), 0);
	assert_int_equal(n, 1);
	assert_true(cp[0].first == 19 && cp[0].last == 19);
	assert_int_equal(cp[0].direction, BV_FASTER);
	assert_true(fabs(cp[0].ratio - 0.803) < 1e-9);
	free(cp);
}

/* Two steps make three spans (each step alone, and both), each tested at
 * a third of the gradual share of q (0.2 x 0.05 / 3: z 2.9352 beyond the
 * edge): the two-step span just past it is a change, just short of it is
 * not (either step alone is far short of the edge). */
static void a_span_is_tested_at_its_bonferroni_level(void **state)
{
	(void)state;
	double zc = 2.9351994688667062, sd = sqrt(2.0) * 0.0025, hw = 0.0025 * 1.96;
	for (int past = 0; past <= 1; past++) {
		double sum = log1p(T) + zc * sd * (past ? 1.001 : 0.999), x = sum / 2;
		bv_step s[2];
		for (int i = 0; i < 2; i++)
			s[i] = step_of(exp(x), exp(x - hw), exp(x + hw), NULL, 0);
		bv_change_point *cp;
		size_t n;
		assert_int_equal(bv_changepoints(s, 2, T, Q, &cp, &n), 0);
		assert_int_equal(n, (size_t)past);
		if (past)
			assert_true(cp[0].first == 0 && cp[0].last == 1 && fabs(cp[0].p - 0.01 / 3) < 1e-4);
		free(cp);
	}
}

/* ---- simulated histories ------------------------------------------------ */

typedef struct rng {
	uint64_t s;
} rng;

static uint64_t next64(rng *r) /* splitmix64 */
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double unif(rng *r)
{
	return ((double)(next64(r) >> 11) + 0.5) * 0x1p-53;
}

static double gauss(rng *r)
{
	return sqrt(-2 * log(unif(r))) * cos(2 * M_PI * unif(r));
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* k of the order-statistic interval [x(k), x(n-k+1)] at each n, from stats.c. */
static size_t k95[MAXP + 1];

static void fill_k95(void)
{
	double v[MAXP];
	for (size_t n = 1; n <= MAXP; n++) {
		for (size_t i = 0; i < n; i++)
			v[i] = (double)i;
		bv_interval iv;
		assert_int_equal(bv_median_interval(v, n, 0.95, &iv), 0);
		k95[n] = (size_t)iv.lo + 1;
	}
}

static void sim_step(rng *r, bv_step *s, double *buf, double truth, double sigma, double share)
{
	double hi_band = 1 + T, lo_band = 1 / (1 + T), sorted[MAXP];
	size_t n = 0;
	for (;;) {
		buf[n++] = truth * exp(sigma * gauss(r));
		if (n < 6)
			continue;
		if (n == MAXP)
			break;
		memcpy(sorted, buf, n * sizeof(double));
		qsort(sorted, n, sizeof(double), cmp_d);
		double lo = sorted[k95[n] - 1], hi = sorted[n - k95[n]];
		if (lo >= lo_band && hi <= hi_band)
			break;
		if (lo > hi_band && 2 * bv_sign_evidence(buf, n, hi_band, +1) <= share)
			break;
		if (hi < lo_band && 2 * bv_sign_evidence(buf, n, lo_band, -1) <= share)
			break;
	}
	bv_interval iv;
	assert_int_equal(bv_median_interval(buf, n, 0.95, &iv), 0);
	*s = step_of(iv.est, iv.lo, iv.hi, buf, n);
}

enum { CELLS = 3, STEPS = 30 };

typedef struct history {
	bv_step steps[CELLS][STEPS];
	bv_step *cells[CELLS];
	double sigma[CELLS];
	double buf[CELLS][STEPS][MAXP];
} history;

/* truth(cell, step): the true ratio of each step. */
typedef double (*truth_fn)(size_t c, size_t i);

static void simulate(rng *r, history *h, truth_fn truth, bv_change_point **cp, size_t *n)
{
	double share = bv_changepoint_step_share(CELLS, STEPS, Q);
	for (size_t c = 0; c < CELLS; c++) {
		double sigma = h->sigma[c] = 0.005 + 0.015 * unif(r);
		for (size_t i = 0; i < STEPS; i++)
			sim_step(r, &h->steps[c][i], h->buf[c][i], truth(c, i), sigma, share);
		h->cells[c] = h->steps[c];
	}
	assert_int_equal(bv_changepoints_table(h->cells, CELLS, STEPS, T, Q, cp, n), 0);
}

static double flat(size_t c, size_t i)
{
	return (void)c, (void)i, 1.0;
}

static double planted(size_t c, size_t i)
{
	return c == 0 && i == 10 ? 1.05 : c == 0 && i == 22 ? 0.80 : 1.0;
}

static double drift(size_t c, size_t i)
{
	return c == 0 && i >= 12 && i <= 16 ? 1.006 : 1.0;
}

/* The acceptance that matters most: on pure noise, any change point at all
 * (single or gradual, in any of the 3 cells) in at most about q of the
 * histories. */
static void noise_histories_rarely_show_any_change_point(void **state)
{
	(void)state;
	fill_k95();
	history *h = bv_xcalloc(1, sizeof(*h));
	rng r = {20191};
	int any = 0, gradual = 0;
	for (int sim = 0; sim < 1000; sim++) {
		bv_change_point *cp;
		size_t n;
		simulate(&r, h, flat, &cp, &n);
		any += n > 0;
		for (size_t k = 0; k < n; k++)
			gradual += cp[k].first != cp[k].last;
		free(cp);
	}
	print_message("changepoint A/A: %d of 1000 histories (3 cells x 30 steps) with any change point "
	              "(%d gradual)\n",
	              any, gradual);
	assert_true(any <= 70);
	/* The gradual family alone holds a fifth of q (changepoint.c): about
	 * 10 of 1000 histories at most, 20 with room for the simulation's
	 * own noise. */
	assert_true(gradual <= 20);
	free(h);
}

static void planted_steps_are_found_at_their_steps(void **state)
{
	(void)state;
	fill_k95();
	history *h = bv_xcalloc(1, sizeof(*h));
	rng r = {4242};
	int both = 0, clean = 0;
	for (int sim = 0; sim < 200; sim++) {
		bv_change_point *cp;
		size_t n;
		simulate(&r, h, planted, &cp, &n);
		int up = 0, down = 0, other = 0;
		for (size_t k = 0; k < n; k++) {
			const bv_change_point *x = &cp[k];
			if (x->cell == 0 && x->first == 10 && x->last == 10 &&
			    x->direction == BV_SLOWER)
				up = 1;
			else if (x->cell == 0 && x->first == 22 && x->last == 22 &&
			         x->direction == BV_FASTER)
				down = 1;
			else
				other++;
		}
		both += up && down;
		clean += !other;
		free(cp);
	}
	print_message("changepoint planted +5%% at 10, -20%% at 22: both found in %d of 200, nothing else in "
	              "%d of 200\n",
	              both, clean);
	assert_true(both >= 190);
	assert_true(clean >= 180);
	free(h);
}

static void a_gradual_drift_is_found_as_a_span(void **state)
{
	(void)state;
	fill_k95();
	history *h = bv_xcalloc(1, sizeof(*h));
	rng r = {777};
	int exact = 0, near = 0, single = 0, other = 0, by_sigma[3][2] = {{0}};
	for (int sim = 0; sim < 200; sim++) {
		bv_change_point *cp;
		size_t n;
		simulate(&r, h, drift, &cp, &n);
		int e = 0, nr = 0;
		for (size_t k = 0; k < n; k++) {
			const bv_change_point *x = &cp[k];
			int in_cell = x->cell == 0 && x->direction == BV_SLOWER;
			/* within two steps of the drift at either end, holding at
			 * least 3 of its 5 steps */
			size_t lo = x->first > 12 ? x->first : 12, hi = x->last < 16 ? x->last : 16;
			if (in_cell && x->first < x->last && x->first >= 10 && x->last <= 18 && hi >= lo &&
			    hi - lo + 1 >= 3) {
				nr = 1;
				e |= x->first == 12 && x->last == 16;
			} else if (in_cell && x->first == x->last && x->first >= 12 && x->first <= 16) {
				single++;
			} else {
				other++;
			}
		}
		exact += e, near += nr;
		int b = h->sigma[0] < 0.01 ? 0 : h->sigma[0] < 0.015 ? 1 : 2;
		by_sigma[b][0]++, by_sigma[b][1] += nr;
		free(cp);
	}
	print_message(
	    "changepoint drift +0.6%%/step over steps 12-16: found as a gradual change in %d of 200 "
	    "(exactly 12..16 in %d), as a single step in %d, other change points %d\n",
	    near, exact, single, other);
	print_message("changepoint drift by the cell's noise: sigma 0.5-1%%: %d of %d, 1-1.5%%: %d of %d, "
	              "1.5-2%%: %d of %d\n",
	              by_sigma[0][1], by_sigma[0][0], by_sigma[1][1], by_sigma[1][0], by_sigma[2][1],
	              by_sigma[2][0]);
	/* The rate is what the simulation gives (docs/history.md, "Change points"); this
	 * floor only keeps the detector from silently going blind. */
	assert_true(near >= 20); /* 34 of 200 with this seed */
	assert_true(other <= 20);
	free(h);
}

int test_changepoint(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sign_mixture_matches_a_direct_integral),
	    cmocka_unit_test(chain_multiplies_steps_and_adds_widths_in_quadrature),
	    cmocka_unit_test(bad_arguments_are_input_errors),
	    cmocka_unit_test(one_clear_step_is_a_change_point_at_that_step),
	    cmocka_unit_test(a_drift_of_small_steps_is_one_gradual_change),
	    cmocka_unit_test(a_span_is_tested_at_its_bonferroni_level),
	    cmocka_unit_test(a_step_without_evidence_is_found_at_itself),
	    cmocka_unit_test(noise_histories_rarely_show_any_change_point),
	    cmocka_unit_test(planted_steps_are_found_at_their_steps),
	    cmocka_unit_test(a_gradual_drift_is_found_as_a_span),
	};
	return test_run_group("changepoint", tests, NULL, NULL);
}
