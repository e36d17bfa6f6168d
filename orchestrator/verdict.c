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

void bv_table_decide(bv_table *t, double q)
{
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
	t->fdr = q, t->tested = m, t->called = called;
	free(t->control);
	if (m == 0)
		t->control = NULL;
	else if (called == 0)
		t->control = bv_asprintf("%zu comparison%s decided together at a %g%% false-discovery rate "
					 "(Benjamini-Hochberg over anytime-valid sign tests against the %.1f%% band); "
					 "no change called; had nothing changed, the chance of any false verdict in "
					 "this run was at most %g%%",
					 m, m == 1 ? "" : "s", q * 100, t->threshold * 100, q * 100);
	else
		t->control = bv_asprintf("%zu comparison%s decided together at a %g%% false-discovery rate "
					 "(Benjamini-Hochberg over anytime-valid sign tests against the %.1f%% band); "
					 "%zu change%s called, of which at most %.2g expected false; had nothing "
					 "changed, the chance of any false verdict in this run was at most %g%%",
					 m, m == 1 ? "" : "s", q * 100, t->threshold * 100, called,
					 called == 1 ? "" : "s", q * (double)called, q * 100);
}
