/*
 * changepoint.c - where a cell's speed changed over a history
 * (docs/history.md, "Change points" has the method and its simulated rates).
 *
 * A history's steps are paired: step i is version i + 1 over version i,
 * measured in the same processes.  So a change at one step needs no
 * segmentation at all: it is that step's own ratio, tested exactly as a run
 * tests a change (verdict.c): the sign of each process's ratio against the
 * threshold band's edge, an anytime-valid test whatever the timings'
 * shape, and a call only when the step's interval says the same direction.
 * Every step of every cell is one hypothesis; Benjamini-Hochberg holds them
 * together, so on a history where nothing changed the chance of any
 * single-step change point is at most the steps' share of q.
 *
 * What a step at a time cannot see is a gradual change: several adjacent
 * steps in one direction, none beyond the band's evidence alone, whose
 * product is.  For those the steps' log ratios are summed over a span (the
 * chain from the version before its first step to the one after its last),
 * with a variance from each step's own interval (its half-width in log
 * space over the normal quantile of its real coverage, 1.96 at 95 %, in
 * quadrature: steps measured in different processes are
 * independent; adjacent steps measured in the same processes share the
 * middle version, which makes their sum vary *less*, so quadrature is
 * conservative).  A span is a gradual change when the sum lies beyond the
 * band's edge by a z-test: z = (|sum| - log(1 + t)) / sd, p = 2 (1 -
 * Phi(z)), the edge and not 0 because a change is what leaves the band.
 * Spans are searched by circular binary segmentation (Olshen et al. 2004,
 * in its form for a known null mean: the steps' mean is 0 when nothing
 * changes): in each stretch of steps between the single-step change points
 * (and steps without an interval), the span of two steps or more with the
 * largest z; when it passes, it is reported and the stretches left and
 * right of it are searched again.  Its level is Bonferroni over every span
 * of two steps or more of every cell (n (n - 1) / 2 a cell), fixed before
 * looking, so the recursion costs nothing more.
 *
 * The two families share q: the steps' Benjamini-Hochberg runs at
 * (1 - BV_GRADUAL_SHARE) q, the spans at BV_GRADUAL_SHARE q.  On a history
 * where nothing changed the chance of any change point, single or gradual,
 * is then at most q (BH under the global null is Simes' test, valid for
 * independent or positively dependent p-values; adding the two families'
 * levels bounds their union).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "common.h"
#include "stats.h"
#include "store.h"

/* The gradual family's part of q (the rest goes to the single steps).  A
 * fifth: a single step is the common case and the one whose evidence is
 * exact; the span test's z threshold moves little with its level (4.3 at
 * 0.01 over 1300 spans against 4.1 at 0.02). */
#define BV_GRADUAL_SHARE 0.2

double bv_changepoint_step_share(size_t ncells, size_t nsteps, double q)
{
	size_t m = ncells * nsteps;
	return (1.0 - BV_GRADUAL_SHARE) * q / (double)(m ? m : 1);
}

/* ---- the steps' evidence ---------------------------------------------- */

enum { MEMO_N = 96 }; /* processes up to which interval_z is kept */

typedef struct step_eval {
	int tested; /* in the single-step family */
	double p, ps, pf;
	int dir;       /* the interval's verdict: +1 slower, -1 faster, 0 none */
	int ok;        /* a ratio and an interval: usable in a span */
	double x, var; /* log ratio and its variance */
	int called;
} step_eval;

static int has_interval(const bv_step *s)
{
	return isfinite(s->ratio) && isfinite(s->lo) && isfinite(s->hi) && s->lo > 0 && s->lo <= s->ratio &&
	       s->ratio <= s->hi;
}

/* The normal quantile an order-statistic interval of n processes reaches:
 * its real coverage is above 95 % (96.9 % at 6, where it is [min, max]),
 * so its half-width is more than 1.96 standard errors.  1.96 where the
 * number of processes is unknown (the interval from elsewhere). */
static double interval_z(size_t n)
{
	static _Thread_local double z[MEMO_N + 1];
	if (n < 6 || n > MEMO_N)
		return 1.96;
	if (!z[n]) {
		double v[MEMO_N];
		for (size_t i = 0; i < n; i++)
			v[i] = (double)i;
		bv_interval iv;
		double c = bv_median_interval(v, n, 0.95, &iv) == 0 ? iv.coverage : 0.95;
		/* Phi^-1((1 + c) / 2) by bisection on erfc: 2 (1 - Phi(x)) = 1 - c. */
		double lo = 1.0, hi = 4.0;
		for (int it = 0; it < 60; it++) {
			double mid = (lo + hi) / 2;
			if (erfc(mid / sqrt(2.0)) > 1 - c)
				lo = mid;
			else
				hi = mid;
		}
		z[n] = c > 0.95 ? (lo + hi) / 2 : 1.96;
	}
	return z[n];
}

static void eval_step(const bv_step *s, double t, step_eval *e)
{
	memset(e, 0, sizeof(*e));
	e->p = e->ps = e->pf = NAN;
	/* A ratio that followed the machine's state is judged on nothing
	 * (verdict.c): out of both families. */
	if (s->verdict == BV_UNSTABLE)
		return;
	e->ok = has_interval(s);
	if (e->ok) {
		double sd = (log(s->hi) - log(s->lo)) / 2.0 / interval_z(s->nproc);
		e->x = log(s->ratio), e->var = sd * sd;
	}
	if (s->proc_ratio && s->nproc) {
		e->ps = bv_sign_evidence(s->proc_ratio, s->nproc, 1.0 + t, +1);
		e->pf = bv_sign_evidence(s->proc_ratio, s->nproc, 1.0 / (1.0 + t), -1);
		e->p = fmin(1.0, 2.0 * fmin(e->ps, e->pf));
		e->tested = 1;
	} else if (isfinite(s->p) && s->p >= 0 && s->p <= 1) {
		e->p = s->p; /* evidence from where the step was measured */
		e->tested = 1;
	}
	/* The interval's verdict, as bv_verdict_of: fewer than 6 processes
	 * give no 95 % interval. */
	if (e->ok && !(s->nproc > 0 && s->nproc < 6)) {
		if (s->lo > 1.0 && s->ratio > 1.0 + t)
			e->dir = +1;
		else if (s->hi < 1.0 && s->ratio < 1.0 / (1.0 + t))
			e->dir = -1;
	}
}

/* ---- gradual changes --------------------------------------------------- */

typedef struct span_search {
	const step_eval *e;
	size_t cell;
	double edge, level;
	bv_change_point *out;
	size_t nout, cap;
} span_search;

/* The span's z against the band's edge, signed by its direction. */
static double span_z(double sum, double var, double edge, int *dir)
{
	*dir = sum >= 0 ? +1 : -1;
	double excess = fabs(sum) - edge;
	if (var <= 0)
		return excess > 0 ? INFINITY : excess < 0 ? -INFINITY : 0;
	return excess / sqrt(var);
}

static void emit(span_search *ss, bv_change_point cp)
{
	if (ss->nout == ss->cap) {
		ss->cap = ss->cap ? 2 * ss->cap : 8;
		ss->out = bv_xrealloc(ss->out, ss->cap * sizeof(*ss->out));
	}
	ss->out[ss->nout++] = cp;
}

/* Steps [a, b) of one cell, every one usable and none called.  Spans of
 * one step count too: a step whose sign evidence fell short of the single
 * steps' control (too few processes for the history's family) but whose
 * interval lies far past the band is found here, at that step, not as the
 * two-step span around it that a search of spans of two or more would
 * report. */
static void segment(span_search *ss, size_t a, size_t b)
{
	if (b <= a)
		return;
	double best = -INFINITY, bsum = 0, bvar = 0;
	size_t bi = 0, bj = 0;
	for (size_t i = a; i < b; i++) {
		double sum = 0, var = 0;
		for (size_t j = i; j < b; j++) {
			sum += ss->e[j].x, var += ss->e[j].var;
			int dir;
			double z = span_z(sum, var, ss->edge, &dir);
			if (z > best)
				best = z, bi = i, bj = j, bsum = sum, bvar = var;
		}
	}
	double p = erfc(best / sqrt(2.0)); /* 2 (1 - Phi(z)) */
	if (!(best > 0) || p > ss->level)
		return;
	double hw = 1.96 * sqrt(bvar);
	emit(ss, (bv_change_point){.cell = ss->cell,
	                           .first = bi,
	                           .last = bj,
	                           .ratio = exp(bsum),
	                           .lo = exp(bsum - hw),
	                           .hi = exp(bsum + hw),
	                           .direction = bsum > 0 ? BV_SLOWER : BV_FASTER,
	                           .p = p});
	segment(ss, a, bi);
	segment(ss, bj + 1, b);
}

static int cmp_cp(const void *x, const void *y)
{
	const bv_change_point *a = x, *b = y;
	if (a->cell != b->cell)
		return a->cell < b->cell ? -1 : 1;
	return (a->first > b->first) - (a->first < b->first);
}

static int changepoints(const bv_step *const *cells, size_t ncells, size_t nsteps, double threshold, double q,
                        bv_change_point **out, size_t *nout)
{
	*out = NULL, *nout = 0;
	if (!(isfinite(threshold) && threshold > 0 && threshold < 10))
		return bv_fail(BV_EINPUT,
		               "change points: threshold %g is not a fraction above 0 (0.01 is 1 %%)",
		               threshold);
	if (!(q > 0 && q < 1))
		return bv_fail(BV_EINPUT, "change points: false-discovery rate %g is not between 0 and 1", q);
	if (ncells && nsteps && !cells)
		return bv_fail(BV_EINPUT, "change points: no steps given for %zu cells", ncells);
	for (size_t c = 0; c < ncells; c++)
		if (nsteps && !cells[c])
			return bv_fail(BV_EINPUT, "change points: cell %zu has no steps", c);
	size_t all = ncells * nsteps;
	step_eval *e = bv_xcalloc(all + 1, sizeof(*e));
	for (size_t c = 0; c < ncells; c++)
		for (size_t i = 0; i < nsteps; i++)
			eval_step(&cells[c][i], threshold, &e[c * nsteps + i]);

	/* Single steps: Benjamini-Hochberg over every tested step of every cell. */
	double *p = bv_xcalloc(all + 1, sizeof(double));
	int *found = bv_xcalloc(all + 1, sizeof(int));
	size_t m = 0;
	for (size_t k = 0; k < all; k++)
		if (e[k].tested)
			p[m++] = e[k].p;
	bv_bh(p, m, (1.0 - BV_GRADUAL_SHARE) * q, found);
	span_search ss = {.e = NULL};
	m = 0;
	for (size_t c = 0; c < ncells; c++)
		for (size_t i = 0; i < nsteps; i++) {
			step_eval *x = &e[c * nsteps + i];
			if (!x->tested)
				continue;
			int discovered = found[m++];
			/* The evidence must point the way the interval does (where
			 * both directions were tested). */
			int agrees = !isfinite(x->ps) || !isfinite(x->pf) ||
			             (x->dir > 0 ? x->ps <= x->pf : x->pf <= x->ps);
			x->called = discovered && x->dir != 0 && agrees;
			if (x->called) {
				const bv_step *s = &cells[c][i];
				emit(&ss, (bv_change_point){.cell = c,
				                            .first = i,
				                            .last = i,
				                            .ratio = s->ratio,
				                            .lo = s->lo,
				                            .hi = s->hi,
				                            .direction = x->dir > 0 ? BV_SLOWER : BV_FASTER,
				                            .p = x->p});
			}
		}

	/* Gradual: binary segmentation in the stretches between them. */
	double spans = (double)ncells * (double)nsteps * (double)(nsteps + 1) / 2.0;
	ss.edge = log1p(threshold);
	ss.level = spans > 0 ? BV_GRADUAL_SHARE * q / spans : 0;
	for (size_t c = 0; spans > 0 && c < ncells; c++) {
		ss.e = e + c * nsteps, ss.cell = c;
		size_t a = 0;
		for (size_t i = 0; i <= nsteps; i++)
			if (i == nsteps || !ss.e[i].ok || ss.e[i].called) {
				segment(&ss, a, i);
				a = i + 1;
			}
	}
	if (ss.nout)
		qsort(ss.out, ss.nout, sizeof(*ss.out), cmp_cp);
	free(e), free(p), free(found);
	*out = ss.out, *nout = ss.nout;
	return 0;
}

int bv_changepoints_table(bv_step **cells_steps, size_t ncells, size_t nsteps, double threshold, double q,
                          bv_change_point **out, size_t *nout)
{
	return changepoints((const bv_step *const *)cells_steps, ncells, nsteps, threshold, q, out, nout);
}

int bv_changepoints(const bv_step *s, size_t n, double threshold, double q, bv_change_point **out,
                    size_t *nout)
{
	const bv_step *cells[1] = {s};
	return changepoints(cells, 1, n, threshold, q, out, nout);
}

/* The chain from version 0 to version n: the product of the steps' ratios.
 * Its interval adds each step's half-widths in log space in quadrature, the
 * lower and the upper apart (order-statistic intervals are not symmetric):
 * that assumes the steps independent, which steps measured in different
 * processes are; steps measured in the same processes share their middle
 * version, which makes the product vary less than this says.  Approximate
 * either way: an order-statistic interval's half-width over 1.96 is not
 * exactly a standard error, and the sum of a few is not exactly normal. */
double bv_chain_interval(const bv_step *s, size_t n, double *lo, double *hi)
{
	double sum = 0, vlo = 0, vhi = 0;
	int intervals = 1;
	for (size_t i = 0; i < n; i++) {
		if (!(isfinite(s[i].ratio) && s[i].ratio > 0)) {
			*lo = *hi = NAN;
			return NAN;
		}
		double x = log(s[i].ratio);
		sum += x;
		if (has_interval(&s[i])) {
			double dl = x - log(s[i].lo), dh = log(s[i].hi) - x;
			vlo += dl * dl, vhi += dh * dh;
		} else {
			intervals = 0;
		}
	}
	*lo = intervals ? exp(sum - sqrt(vlo)) : NAN;
	*hi = intervals ? exp(sum + sqrt(vhi)) : NAN;
	return exp(sum);
}
