/*
 * verdict.c - the table's verdicts, decided over all its cells at once.
 *
 * One cell's 95 % interval is right for one cell and wrong for a release
 * check: a table of 330 cells judged at 5 % each says `slower` somewhere on
 * identical code most of the time, and a false NOT READY is what makes teams
 * stop trusting a gate.  So the unit of trust is the run:
 *
 *   - each change gets evidence from its per-process ratios, the independent
 *     units of the measurement: an anytime-valid sign test against the
 *     threshold band (stats.h), valid however adaptive sampling stopped;
 *   - the changes of the whole table are then held together to a false
 *     discovery rate (Benjamini-Hochberg at BV_FDR): a change is `slower` or
 *     `faster` only when its cell's interval says so *and* its evidence
 *     survives the control.
 *
 * Why Benjamini-Hochberg and not Holm: in a run where nothing changed (the
 * case that produces false NOT READY) both hold the chance of any false
 * verdict to q; in a release with real changes BH keeps far more power, and
 * a false call among real ones changes no release decision.  BH needs the
 * p-values independent or positively dependent; cells measured in the same
 * processes share the machine's state, which moves them together
 * (positively).  docs/measurement.md has the rates measured with it.
 *
 * Before that, each change's processes are split by the machine's state
 * around them (the runner's bandwidth and compute probes): a ratio that
 * follows the state (one level while another job took the memory
 * bandwidth, another without) is judged on the processes at the machine's
 * usual state only, or called `unstable` with both levels when too few of
 * those remain: never a confident verdict about a condition of the machine.
 *
 * Changes without per-process ratios (logs before schema 1.3, unpaired
 * ratios) keep their cell's own verdict and are not counted in the family;
 * the footer says how many comparisons were controlled.  Unpaired ratios
 * across runs come here already `inconclusive` (merge.c): no verdict can be
 * false, so they neither join the family (their p-values would only dilute
 * it) nor count among the calls, and the footer counts them apart.
 *
 * Last, `same` is kept for what the data show to be the same: an estimate
 * inside the threshold band, with a 95 % interval.  A change that is not
 * called but whose estimate lies past the band (a 3.24x ratio whose interval
 * still reaches 1 on a loaded machine; a cell the run's control held), or
 * that has no interval at all (fewer than 6 processes), is `inconclusive`:
 * neither the same nor a change, so measure it again.  An estimate inside
 * the band with a wide interval stays `same, noisy`: on a loaded machine
 * that is a third of an identical-code run (docs/measurement.md), and its
 * best estimate is no change.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "stats.h"
#include "table.h"
#include "verdict.h"

void bv_change_evidence(bv_change *ch, const double *ratios, size_t n, double threshold)
{
	ch->p_slower = bv_sign_evidence(ratios, n, 1.0 + threshold, +1);
	ch->p_faster = bv_sign_evidence(ratios, n, 1.0 / (1.0 + threshold), -1);
	/* Two one-sided tests, either of which could give a false call. */
	ch->p = fmin(1.0, 2.0 * fmin(ch->p_slower, ch->p_faster));
	ch->controlled = n > 0;
}

/* ---- the machine's state ---------------------------------------------- */

/* A process measured the cell while the machine was *disturbed* when its
 * bandwidth probe read below 70 % of the run's usual, its compute probe
 * ran 50 % slow, or more tasks were runnable than usual both before and
 * after the cell's timing.  The last is what a job sharing the measuring
 * CPU shows: tests/e2e/test_contention.sh's copy loop on that CPU left the
 * probes at their quiet readings (bandwidth even up, 20 GB/s instead of 17)
 * while the cell's paired ratio went from 2.7 to 4.6.  Of the probes before and after the cell's timing the
 * better counts (merge.c): interference that changes a ratio lasts (another
 * job streaming memory for seconds), while a probe that was itself
 * preempted once reads 25x slow for a moment (seen under a make -j2 loop),
 * and the samples' own re-takes already deal with preemption.  The run's
 * usual state is the 90th percentile of every bandwidth probe and the 10th
 * of every compute probe in the table: the machine as it is when nothing
 * else takes from it, if it was so at least a tenth of the time, else as it
 * mostly was. */
#define DISTURBED_GBPS 0.70
#define DISTURBED_COMPUTE 1.50

enum { GBPS, COMPUTE, RUNNING };

static double proc_field(const bv_change *ch, size_t j, int field)
{
	const double *v = field == GBPS ? ch->proc_gbps : field == COMPUTE ? ch->proc_compute_ns : ch->proc_running;
	return v && v[j] > 0 ? v[j] : NAN;
}

/* The q-quantile of the finite values among every change's processes. */
static double table_quantile(const bv_table *t, int field, double q)
{
	size_t n = 0;
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t i = 1; i < t->nversions; i++)
			n += t->rows[r].changes[i].nproc;
	double *v = bv_xcalloc(n + 1, sizeof(double));
	size_t k = 0;
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t i = 1; i < t->nversions; i++) {
			const bv_change *ch = &t->rows[r].changes[i];
			for (size_t j = 0; j < ch->nproc; j++)
				v[k++] = proc_field(ch, j, field);
		}
	double out = bv_quantile(v, k, q);
	free(v);
	return out;
}

static int disturbed(const bv_change *ch, size_t j, const bv_usual *u)
{
	double g = proc_field(ch, j, GBPS), c = proc_field(ch, j, COMPUTE), r = proc_field(ch, j, RUNNING);
	return (isfinite(g) && isfinite(u->gbps) && g < DISTURBED_GBPS * u->gbps) ||
	       (isfinite(c) && isfinite(u->compute_ns) && c > DISTURBED_COMPUTE * u->compute_ns) ||
	       (isfinite(r) && isfinite(u->running) && r >= u->running + 1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Does the change's ratio follow the machine's state?  When the processes
 * measured while the machine was disturbed (two at least) form a cluster
 * apart from those at its usual state (every one of them beyond every usual
 * one, by more than the threshold and by more than either group spreads),
 * the ratio depends on the machine (a
 * memory-bound version slowed by another job's bandwidth far more than a
 * compute-bound one, say): it is judged on the usual processes only, or,
 * with fewer than six of them, not at all (`unstable`, both levels shown).
 * Separation, not a difference of medians: on a loaded machine the probes
 * mark some processes disturbed all the time, and two groups of noisy
 * ratios differ in their medians by chance; clusters apart by more than
 * the threshold do not happen by chance on identical code (A/A runs).
 * Each group may have one in eight of its processes on the wrong side: the
 * process during which the other job started or stopped is measured partly
 * in each state, and its probes, taken before and after, see only one
 * (test_contention.sh has one at each end of the hog).
 * ratios gets the processes to judge on. */
size_t bv_change_split_by_state(bv_change *ch, double threshold, const bv_usual *u, double *ratios)
{
	double *usual = bv_xcalloc(ch->nproc + 1, sizeof(double)), *other = bv_xcalloc(ch->nproc + 1, sizeof(double));
	size_t nu = 0, nd = 0;
	for (size_t j = 0; j < ch->nproc; j++) {
		if (disturbed(ch, j, u))
			other[nd++] = ch->proc_ratio[j];
		else
			usual[nu++] = ch->proc_ratio[j]; /* in the order measured */
	}
	ch->n_usual = nu, ch->n_disturbed = nd;
	ch->level_usual = nu ? bv_median(usual, nu) : NAN;
	ch->level_disturbed = nd ? bv_median(other, nd) : NAN;
	/* Each group's range without its one-in-eight most extreme at either end. */
	double *su = bv_xcalloc(nu + 1, sizeof(double)), *sd = bv_xcalloc(nd + 1, sizeof(double));
	memcpy(su, usual, nu * sizeof(double)), memcpy(sd, other, nd * sizeof(double));
	qsort(su, nu, sizeof(double), cmp_double), qsort(sd, nd, sizeof(double), cmp_double);
	size_t ku = nu / 8, kd = nd / 8;
	double ulo = nu ? su[ku] : NAN, uhi = nu ? su[nu - 1 - ku] : NAN;
	double dlo = nd ? sd[kd] : NAN, dhi = nd ? sd[nd - 1 - kd] : NAN;
	free(su), free(sd);
	double gap = nd && nu ? fmax(log(dlo / uhi), log(ulo / dhi)) : 0; /* > 0: apart */
	/* ... and apart by more than either group spreads: a ratio with
	 * levels of its own (processes settle at levels whatever the load)
	 * puts a few disturbed processes on one level by chance. */
	double spread = nd && nu ? fmax(log(uhi / ulo), log(dhi / dlo)) : 0;
	ch->state_dependent = nd >= 2 && nu >= 1 && gap > log(1.0 + threshold) && gap > spread;
	ch->unstable = ch->state_dependent && nu < 6;
	/* usual[] kept the order measured (the evidence is sequential). */
	size_t n = ch->state_dependent ? nu : ch->nproc;
	memcpy(ratios, ch->state_dependent ? usual : ch->proc_ratio, n * sizeof(double));
	free(usual), free(other);
	return n;
}

int bv_change_has_interval(const bv_change *ch) { return ch->coverage >= 0.95; }

/* Neither shown the same (estimate in the band, with an interval) nor
 * called: see the head of this file. */
static int inconclusive(const bv_change *ch, double threshold)
{
	return ch->verdict == BV_SAME &&
	       (!bv_change_has_interval(ch) || ch->ratio > 1.0 + threshold || ch->ratio < 1.0 / (1.0 + threshold));
}

int bv_budget_scale(double est, double lo, double hi, double threshold, int beyond)
{
	double edge_lo = 1.0 / (1.0 + threshold), edge_hi = 1.0 + threshold;
	/* An estimate past the band whose interval still holds it: at 16M
	 * elements on a loaded machine one budget buys 6-8 processes, and a
	 * planted 3 % ended `inconclusive` in 15 of 16 cells
	 * (docs/measurement.md); the run's control needs more. */
	int past = est > edge_hi || est < edge_lo || lo > edge_hi || hi < edge_lo;
	return past && !beyond ? 3 : 1;
}

int bv_change_state_split(bv_change *ch, double threshold, const bv_usual *u)
{
	double *use = bv_xcalloc(ch->nproc + 1, sizeof(double));
	bv_change_split_by_state(ch, threshold, u, use);
	free(use);
	return ch->state_dependent;
}

bv_decided bv_changes_decide(bv_change **chs, size_t n, double q, double threshold)
{
	bv_decided d = {0, 0, 0};
	for (size_t i = 0; i < n; i++)
		d.tested += chs[i]->valid && chs[i]->controlled;
	double *p = bv_xcalloc(d.tested + 1, sizeof(double));
	int *found = bv_xcalloc(d.tested + 1, sizeof(int));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (chs[i]->valid && chs[i]->controlled)
			p[k++] = chs[i]->p;
	bv_bh(p, d.tested, q, found);
	k = 0;
	for (size_t i = 0; i < n; i++) {
		bv_change *ch = chs[i];
		if (ch->valid && ch->unstable) {
			ch->verdict = BV_UNSTABLE;
			ch->noisy = 0;
			continue;
		}
		if (!ch->valid || !ch->controlled)
			continue;
		int discovered = found[k++];
		bv_interval iv = {ch->ratio, ch->ci_low, ch->ci_high, ch->coverage,
		                  (size_t)(ch->processes > 0 ? ch->processes : 1)};
		bv_verdict v = bv_verdict_of(&iv, threshold);
		/* The evidence must point the way the interval does. */
		int agrees = v == BV_SLOWER ? ch->p_slower <= ch->p_faster : ch->p_faster <= ch->p_slower;
		ch->held = v != BV_SAME && !(discovered && agrees);
		if (ch->held)
			v = BV_SAME;
		ch->verdict = v;
		ch->noisy = ch->held || bv_interval_noisy(&iv, threshold);
		d.called += v != BV_SAME;
	}
	/* Every change, controlled or not (unpaired ratios, old logs): same
	 * only when the data show it. */
	for (size_t i = 0; i < n; i++) {
		bv_change *ch = chs[i];
		if (ch->valid && ch->verdict && inconclusive(ch, threshold)) {
			ch->verdict = BV_INCONCLUSIVE;
			d.inconclusive++;
		}
	}
	free(p);
	free(found);
	return d;
}

bv_usual bv_table_usual(const bv_table *t)
{
	bv_usual u = {table_quantile(t, GBPS, 0.9), table_quantile(t, COMPUTE, 0.1), table_quantile(t, RUNNING, 0.1)};
	return u;
}

void bv_table_decide(bv_table *t, double q)
{
	bv_usual u = bv_table_usual(t);
	size_t unstable = 0;
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t i = 1; i < t->nversions; i++) {
			bv_change *ch = &t->rows[r].changes[i];
			if (!ch->valid || !ch->nproc)
				continue;
			double *use = bv_xcalloc(ch->nproc, sizeof(double));
			size_t n = bv_change_split_by_state(ch, t->threshold, &u, use);
			if (ch->unstable) {
				ch->controlled = 0; /* judged on nothing: out of the family */
				unstable++;
			} else {
				bv_change_evidence(ch, use, n, t->threshold);
				if (ch->state_dependent) {
					/* The estimate and its interval from the usual processes. */
					bv_interval iv;
					if (bv_median_interval(use, n, 0.95, &iv) == 0) {
						ch->ratio = iv.est, ch->ci_low = iv.lo, ch->ci_high = iv.hi;
						ch->coverage = iv.coverage, ch->processes = (int)n;
					}
				}
			}
			free(use);
		}
	size_t n = 0, k = 0;
	for (size_t r = 0; r < t->nrows; r++)
		n += t->nversions - 1;
	bv_change **all = bv_xcalloc(n + 1, sizeof(*all));
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t i = 1; i < t->nversions; i++)
			all[k++] = &t->rows[r].changes[i];
	bv_decided d = bv_changes_decide(all, n, q, t->threshold);
	free(all);
	size_t m = d.tested, called = d.called, unsure = d.inconclusive, across = 0;
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t i = 1; i < t->nversions; i++)
			across += t->rows[r].changes[i].valid && t->rows[r].changes[i].between_runs;
	t->fdr = q, t->tested = m, t->called = called, t->unstable = unstable, t->inconclusive = unsure;
	t->between_runs = across;
	free(t->control);
	char extra[512] = "";
	if (unstable)
		snprintf(extra, sizeof(extra), "; %zu cell%s unstable (the machine changed under %s: not judged)",
			 unstable, unstable == 1 ? "" : "s", unstable == 1 ? "it" : "them");
	if (unsure)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
			 "; %zu inconclusive (estimate past the band or no interval, not called: measure again)", unsure);
	if (across)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
			 "; %zu unpaired across runs, not called (inconclusive: runs differ by more than one run "
			 "per version can measure; measure the versions in one run)",
			 across);
	if (m == 0 && !unstable && !across)
		t->control = NULL;
	else if (m == 0)
		t->control = bv_asprintf("no comparison could be judged%s", extra);
	else if (called == 0)
		t->control = bv_asprintf("%zu comparison%s decided together at a %g%% false-discovery rate "
					 "(Benjamini-Hochberg over anytime-valid sign tests against the %.1f%% band); "
					 "no change called; had nothing changed, the chance of any false verdict in "
					 "this run was at most %g%%%s",
					 m, m == 1 ? "" : "s", q * 100, t->threshold * 100, q * 100, extra);
	else
		t->control = bv_asprintf("%zu comparison%s decided together at a %g%% false-discovery rate "
					 "(Benjamini-Hochberg over anytime-valid sign tests against the %.1f%% band); "
					 "%zu change%s called, of which at most %.2g expected false; had nothing "
					 "changed, the chance of any false verdict in this run was at most %g%%%s",
					 m, m == 1 ? "" : "s", q * 100, t->threshold * 100, called,
					 called == 1 ? "" : "s", q * (double)called, q * 100, extra);
}
