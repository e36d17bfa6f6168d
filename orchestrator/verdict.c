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
 * ratios across runs) keep their cell's own verdict and are not counted in
 * the family; the footer says how many comparisons were controlled.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "stages.h"
#include "stats.h"

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
 * bandwidth probe read below 70 % of the run's usual or its compute probe
 * ran 50 % slow.  Of the probes before and after the cell's timing the
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

/* The q-quantile of the finite values among every change's processes. */
static double table_quantile(const bv_table *t, int gbps, double q)
{
	size_t n = 0;
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t i = 1; i < t->nversions; i++)
			n += t->rows[r].changes[i].nproc;
	double *v = calloc(n + 1, sizeof(double));
	size_t k = 0;
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t i = 1; i < t->nversions; i++) {
			const bv_change *ch = &t->rows[r].changes[i];
			for (size_t j = 0; j < ch->nproc; j++) {
				double x = gbps ? ch->proc_gbps[j] : ch->proc_compute_ns[j];
				v[k++] = x > 0 ? x : NAN;
			}
		}
	double out = bv_quantile(v, k, q);
	free(v);
	return out;
}

static int disturbed(const bv_change *ch, size_t j, double ref_gbps, double ref_compute)
{
	double g = ch->proc_gbps[j], c = ch->proc_compute_ns[j];
	return (isfinite(g) && isfinite(ref_gbps) && g < DISTURBED_GBPS * ref_gbps) ||
	       (isfinite(c) && isfinite(ref_compute) && c > DISTURBED_COMPUTE * ref_compute);
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
 * ratios gets the processes to judge on. */
static size_t split_by_state(bv_change *ch, double threshold, double ref_gbps, double ref_compute, double *ratios)
{
	double *usual = calloc(ch->nproc + 1, sizeof(double)), *other = calloc(ch->nproc + 1, sizeof(double));
	size_t nu = 0, nd = 0;
	for (size_t j = 0; j < ch->nproc; j++) {
		if (disturbed(ch, j, ref_gbps, ref_compute))
			other[nd++] = ch->proc_ratio[j];
		else
			usual[nu++] = ch->proc_ratio[j]; /* in the order measured */
	}
	ch->n_usual = nu, ch->n_disturbed = nd;
	ch->level_usual = nu ? bv_median(usual, nu) : NAN;
	ch->level_disturbed = nd ? bv_median(other, nd) : NAN;
	double ulo = INFINITY, uhi = -INFINITY, dlo = INFINITY, dhi = -INFINITY;
	for (size_t j = 0; j < nu; j++)
		ulo = fmin(ulo, usual[j]), uhi = fmax(uhi, usual[j]);
	for (size_t j = 0; j < nd; j++)
		dlo = fmin(dlo, other[j]), dhi = fmax(dhi, other[j]);
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

int bv_change_state_split(bv_change *ch, double threshold, double ref_gbps, double ref_compute_ns)
{
	double *use = calloc(ch->nproc + 1, sizeof(double));
	split_by_state(ch, threshold, ref_gbps, ref_compute_ns, use);
	free(use);
	return ch->state_dependent;
}

void bv_table_decide(bv_table *t, double q)
{
	double ref_gbps = table_quantile(t, 1, 0.9), ref_compute = table_quantile(t, 0, 0.1);
	size_t unstable = 0;
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t i = 1; i < t->nversions; i++) {
			bv_change *ch = &t->rows[r].changes[i];
			if (!ch->valid || !ch->nproc)
				continue;
			double *use = calloc(ch->nproc, sizeof(double));
			size_t n = split_by_state(ch, t->threshold, ref_gbps, ref_compute, use);
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
	size_t m = 0, k = 0;
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t i = 1; i < t->nversions; i++)
			m += t->rows[r].changes[i].valid && t->rows[r].changes[i].controlled;
	double *p = calloc(m + 1, sizeof(double));
	int *found = calloc(m + 1, sizeof(int));
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t i = 1; i < t->nversions; i++) {
			const bv_change *ch = &t->rows[r].changes[i];
			if (ch->valid && ch->controlled)
				p[k++] = ch->p;
		}
	bv_bh(p, m, q, found);
	size_t called = 0;
	k = 0;
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t i = 1; i < t->nversions; i++) {
			bv_change *ch = &t->rows[r].changes[i];
			if (ch->valid && ch->unstable) {
				ch->verdict = "unstable";
				ch->noisy = 0;
				continue;
			}
			if (!ch->valid || !ch->controlled)
				continue;
			int discovered = found[k++];
			bv_interval iv = {ch->ratio, ch->ci_low, ch->ci_high, ch->coverage, (size_t)(ch->processes > 0 ? ch->processes : 1)};
			bv_verdict v = bv_verdict_of(&iv, t->threshold);
			/* The evidence must point the way the interval does. */
			int agrees = v == BV_SLOWER ? ch->p_slower <= ch->p_faster : ch->p_faster <= ch->p_slower;
			ch->held = v != BV_SAME && !(discovered && agrees);
			if (ch->held)
				v = BV_SAME;
			ch->verdict = bv_verdict_name(v);
			ch->noisy = ch->held || bv_interval_noisy(&iv, t->threshold);
			called += v != BV_SAME;
		}
	free(p);
	free(found);
	t->fdr = q, t->tested = m, t->called = called, t->unstable = unstable;
	free(t->control);
	char extra[160] = "";
	if (unstable)
		snprintf(extra, sizeof(extra), "; %zu cell%s unstable (the machine changed under %s: not judged)",
			 unstable, unstable == 1 ? "" : "s", unstable == 1 ? "it" : "them");
	if (m == 0 && !unstable)
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
