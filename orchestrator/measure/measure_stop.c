/*
 * measure_stop.c - the stopping rule of adaptive sampling: after each trial
 * the cell's ratios per process, whether its interval has decided (held to
 * the family of comparisons it will be judged in), its time budget and the
 * run's spare time, the --vs reference cells, and the cells whose ratio
 * followed the machine's state (measured again at the end).
 *
 * Apart from the runner's side (measure_process.c) because it is the
 * statistics of when to stop, which reads only the session's numbers.
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "benches.h"
#include "build.h"
#include "child.h"
#include "common.h"
#include "env.h"
#include "fs.h"
#include "json.h"
#include "machine.h"
#include "measure_session.h"
#include "measure_stop.h"
#include "ops_file.h"
#include "plan.h"
#include "proc.h"
#include "progress.h"
#include "resolve.h"
#include "results.h"
#include "shard.h"
#include "stats.h"
#include "status.h"
#include "suite.h"
#include "table.h"
#include "trust.h"
#include "verdict.h"

/* After every version's part of trial t: the trial's ratios, then the count. */
void bv_ms_close_trial(session *s, cstate *c)
{
	int t = c->ntrials;
	vstate *b = &c->v[0];
	for (size_t i = 0; i < s->n; i++) {
		if (!c->v[i].nsamples[t])
			c->v[i].med[t] = NAN;
		c->v[i].layout[t] = s->layout[i];
	}
	for (size_t i = 1; i < s->n; i++) {
		vstate *v = &c->v[i];
		v->ratio[t] = NAN;
		if (!v->nsamples[t] || !b->nsamples[t] || v->status || b->status)
			continue;
		if (s->o->isolated) {
			v->ratio[t] = v->med[t] / b->med[t];
		} else if (v->nsamples[t] == b->nsamples[t]) {
			size_t ns = v->nsamples[t];
			double *r = bv_xcalloc(ns, sizeof(double));
			for (size_t k = 0; k < ns; k++)
				r[k] = v->samples[t][k] / b->samples[t][k];
			v->ratio[t] = bv_median(r, ns);
			free(r);
		}
	}
	c->ntrials++;
	c->checked = 1;
}

/* The finite values of x[0..n). */
size_t bv_ms_finite_of(const double *x, int n, double *out)
{
	size_t k = 0;
	for (int i = 0; i < n; i++)
		if (isfinite(x[i]))
			out[k++] = x[i];
	return k;
}

/* The comparisons the run's verdicts are decided over (verdict.c): every
 * cell against the baseline, for every other version that built. */
static size_t family(const session *s)
{
	size_t built = 0;
	for (size_t i = 1; i < s->n; i++)
		built += bv_ms_measurable(&s->vs[i]);
	size_t cells = s->plan_cells > s->ncells ? s->plan_cells : s->ncells;
	size_t m = cells * (built ? built : 1);
	if (s->o->family > m)
		m = s->o->family;
	return m ? m : 1;
}

/* Has the cell's every comparison decided, so more trials cannot change it? */
/* Version i's per-process ratios to version ref: the baseline's own
 * (v[i].ratio) when ref is 0, else the quotient of the two medians each
 * process timed (every host version of a cell runs in the same process). */
static size_t ratios_to(const cstate *c, size_t i, size_t ref, double *r)
{
	if (ref == 0)
		return bv_ms_finite_of(c->v[i].ratio, c->ntrials, r);
	size_t k = 0;
	for (int t = 0; t < c->ntrials; t++) {
		double a = c->v[ref].med[t], b = c->v[i].med[t];
		if (isfinite(a) && isfinite(b) && a > 0 && b > 0)
			r[k++] = b / a;
	}
	return k;
}

/* One comparison's per-process ratios r[0..k): 1 when decided (its interval
 * past the band with evidence that survives the run's control, or inside
 * it); *pending when it looks changed without that evidence yet, and
 * *need (the largest over the comparisons) the processes its evidence
 * needs when, besides, every one of its processes is beyond the same edge
 * of the band (only more processes can decide it); 0 otherwise. */
static int judged(const session *s, double *r, size_t k, int *pending, int *need)
{
	double lo_band = 1.0 / (1.0 + s->o->threshold), hi_band = 1.0 + s->o->threshold;
	bv_interval iv;
	if (k == 0 || bv_median_interval(r, k, 0.95, &iv) != 0 || iv.coverage < 0.95)
		return 0;
	/* Beyond the band only with evidence that survives the run's
	 * false-discovery control whatever the other cells say (a
	 * Bonferroni share of it, verdict.c); the evidence is valid at
	 * any stopping time (stats.h), so looking after every process
	 * costs nothing. */
	double share = BV_FDR / (double)family(s);
	int beyond = (iv.lo > hi_band && 2 * bv_sign_evidence(r, k, hi_band, +1) <= share) ||
		     (iv.hi < lo_band && 2 * bv_sign_evidence(r, k, lo_band, -1) <= share);
	int within = iv.lo >= lo_band && iv.hi <= hi_band;
	/* It looks changed (estimate or interval past the band), its
	 * evidence is not there yet. */
	int looks = bv_budget_scale(iv.est, iv.lo, iv.hi, s->o->threshold, beyond) > 1;
	*pending |= looks;
	size_t up = 0, down = 0;
	for (size_t i = 0; i < k; i++)
		up += r[i] > hi_band, down += r[i] < lo_band;
	if (looks && (up == k || down == k) && !beyond) {
		/* How many processes, all beyond the edge, its evidence needs
		 * to pass the share: the mixture of a unanimous run only grows */
		size_t n = k;
		while (n < 100000 && 2 * exp(-bv_sign_log_mixture(n, n)) > share)
			n++;
		if ((int)n > *need)
			*need = (int)n;
	}
	return beyond || within;
}

/* The vs view's reference cell of c (o->vs: the same bench, op and size on
 * the reference backend, or the same but for the parameter's value), or
 * NULL: c is the reference, or it has none (find_references). */
static cstate *reference_of(session *s, const cstate *c)
{
	return c->ref >= 0 ? &s->cells[c->ref] : NULL;
}

/* Each cell's reference on the axis, once: its key (the cell without its
 * value on the axis) and the reference value.  */
void bv_ms_find_references(session *s)
{
	const bv_vs_axis *ax = s->o->vs;
	char (*keys)[512] = bv_xcalloc(s->ncells + 1, sizeof(*keys));
	int *isref = bv_xcalloc(s->ncells + 1, sizeof(int)), *has = bv_xcalloc(s->ncells + 1, sizeof(int));
	for (size_t i = 0; i < s->ncells; i++) {
		cstate *c = &s->cells[i];
		char value[128];
		c->ref = -1;
		if (ax && ax->on &&
		    bv_vs_place(ax, c->bench, c->op, c->backend, c->size, value, sizeof(value), keys[i], sizeof(keys[i])))
			has[i] = 1, isref[i] = !strcmp(value, ax->ref);
	}
	for (size_t i = 0; i < s->ncells; i++)
		for (size_t k = 0; has[i] && !isref[i] && k < s->ncells && s->cells[i].ref < 0; k++)
			if (isref[k] && !strcmp(keys[k], keys[i]))
				s->cells[i].ref = (long)k;
	free(keys), free(isref), free(has);
}

/* Version i's per-process ratios of cell c over cell ref, paired by the
 * runner process that timed both (every host cell of a version runs in
 * each process; bv_result_pair_by_process does the same from the logs). */
static size_t ratios_by_process(const cstate *c, const cstate *ref, size_t i, double *r)
{
	size_t k = 0;
	for (int t = 0; t < c->ntrials; t++) {
		double b = c->v[i].med[t];
		if (!isfinite(b) || b <= 0)
			continue;
		for (int u = 0; u < ref->ntrials; u++)
			if (ref->v[i].proc[u] == c->v[i].proc[t]) {
				double a = ref->v[i].med[u];
				if (isfinite(a) && a > 0)
					r[k++] = b / a;
				break;
			}
	}
	return k;
}

static int decided(session *s, cstate *c, int *pending, int *need)
{
	double *r = bv_xcalloc((size_t)c->ntrials + 1, sizeof(double));
	int all = 1;
	*pending = 0, *need = 0;
	/* The reference: the baseline; in a history's window whose first
	 * version lacks the cell, the first version that has it (bv_measure_opts
	 * .series), so its steps sample until decided like any other. */
	size_t ref = 0;
	while (s->o->series && ref + 1 < s->n && c->v[ref].status == BV_ST_NA)
		ref++;
	for (size_t i = ref + 1; i < s->n; i++) {
		if (c->v[i].status || c->v[ref].status)
			continue;
		all = judged(s, r, ratios_to(c, i, ref, r), pending, need) && all;
	}
	/* The vs view (--vs, --vs-backend): each version's ratio to the
	 * reference cell decides too, so a clear win is sampled until the
	 * view can call it (a run of one version has no other ratio). */
	cstate *rc = reference_of(s, c);
	for (size_t i = 0; rc && i < s->n; i++) {
		if (c->v[i].status || rc->v[i].status)
			continue;
		all = judged(s, r, ratios_by_process(c, rc, i, r), pending, need) && all;
	}
	free(r);
	return all;
}

/* The run's spare time: what the cells leave unused of their own --budget
 * (a cell that stopped: its budget less what it took; one still sampling:
 * less what it takes at most, at its cost per process, up to
 * --max-processes), less what cells already took past their three budgets
 * from it.  A cell every one of whose processes so far is beyond the same
 * edge of the band, whose evidence still falls short of the run's control,
 * samples on from it (update_active): at 1M elements and more a process can
 * take a second, three budgets of --quick buy six or seven, and six processes
 * can never call a change (stats.h).  So the run's time stays within what
 * its cells' budgets allowed. */
static double spare_budget(const session *s)
{
	const bv_measure_opts *o = s->o;
	double spare = 0;
	for (size_t ci = 0; ci < s->ncells; ci++) {
		const cstate *c = &s->cells[ci];
		int n = c->ntrials;
		double use = c->elapsed_s;
		if (c->active && n > 0 && n < o->max_processes)
			use += c->elapsed_s / n * (o->max_processes - n);
		if (c->active && n == 0)
			use = o->budget_s;
		spare += fmax(0, o->budget_s - use) - fmax(0, c->elapsed_s - 3 * o->budget_s);
	}
	return spare;
}

void bv_ms_update_active(session *s)
{
	const bv_measure_opts *o = s->o;
	double spare = spare_budget(s);
	for (size_t ci = 0; ci < s->ncells; ci++) {
		cstate *c = &s->cells[ci];
		if (!c->active)
			continue;
		size_t ok = 0;
		for (size_t i = 0; i < s->n; i++)
			ok += bv_ms_measurable(&s->vs[i]) && !c->v[i].status;
		int n = c->ntrials;
		int fixed = o->min_processes == o->max_processes;
		/* A cell that looks changed (its estimate or its interval past
		 * the band) but whose evidence does not yet survive the run's
		 * control may take up to three budgets (bv_budget_scale): six
		 * processes can never call a change alone (stats.h), a clear 6x
		 * improvement must not end `same` for want of the few more
		 * processes that prove it, and a 3 % change at 16M elements on a
		 * loaded machine gets only 6-8 processes from one budget. */
		int pending = 0, need = 0, done = decided(s, c, &pending, &need) && n >= o->min_processes;
		int unanimous = need > 0; /* every process of a comparison beyond the same edge */
		double budget = pending ? 3 * o->budget_s : o->budget_s;
		double next = n > 0 ? c->elapsed_s / n : 0;
		int over = next * (n + 1) > budget; /* after one more trial */
		/* Past its three budgets, a cell whose every process is beyond
		 * the band the same way samples on from the run's spare time
		 * (spare_budget); the evidence is valid at any stopping time, so
		 * this costs no false alarms. */
		if (over && pending && unanimous && !done && n >= 6) {
			if (next <= spare)
				over = 0, spare -= next, c->drew = 1;
			/* No spare (every other cell used its budget): the
			 * processes its evidence still needs (need, all beyond
			 * the edge as so far), when they fit in three budgets
			 * more of its own (its first process's checks not
			 * counted), so a long cell's clear change is called
			 * whatever the rest of the run did; only a cell so
			 * clearly changed gets them, and none that cannot get
			 * there in that time. */
			else if (need > n && c->elapsed_s - c->first_s + (need - n) * c->last_s <= 2 * budget)
				over = 0, c->drew = 1;
		}
		if (c->drew && c->elapsed_s > budget)
			budget = c->elapsed_s; /* what it took, spare time included */
		c->stopped = NULL;
		if (ok == 0 || n >= o->max_processes)
			c->active = 0, c->stopped = !ok ? NULL : done ? "decided" : "max_processes";
		else if (!fixed && over && n >= 6 && n >= o->floor_processes)
			/* 6: the fewest whose interval covers 95 %.  Said in the
			 * log: a cell the budget stopped undecided is shown as
			 * such, with what to give (merge.c's note). */
			c->active = 0, c->stopped = done ? "decided" : "budget", c->stop_budget_s = budget;
		else if (n < o->min_processes || (c->again && n < c->again_from + 6))
			c->active = 1; /* measured again: six more processes at least */
		else
			c->active = !done, c->stopped = done ? "decided" : NULL;
	}
	/* A reference cell is measured while a cell paired with it is: its
	 * processes are the other half of every pair. */
	for (size_t ci = 0; o->vs && ci < s->ncells; ci++) {
		cstate *c = &s->cells[ci], *ref = reference_of(s, c);
		if (c->active && ref && !ref->active && ref->ntrials < o->max_processes)
			for (size_t i = 0; i < s->n; i++)
				if (bv_ms_measurable(&s->vs[i]) && !ref->v[i].status && !c->v[i].status)
					ref->active = 1;
	}
}

/* The machine's usual state over every process and cell so far: the 90th
 * percentile of the bandwidth probes, the 10th of the compute probes and of
 * the runnable tasks (of each before/after pair the better: the higher
 * bandwidth, the shorter step, the fewer tasks), as verdict.c takes it from
 * the logs. */
static double better(const double pair[2], int dir)
{
	double x = dir < 0 ? fmax(pair[0], pair[1]) : fmin(pair[0], pair[1]);
	return x > 0 ? x : NAN;
}

static void usual_state(const session *s, bv_usual *u)
{
	size_t cap = 0, n = 0;
	for (size_t c = 0; c < s->ncells; c++)
		cap += (size_t)s->cells[c].ntrials * s->n;
	double *g = bv_xcalloc(cap + 1, sizeof(double)), *k = bv_xcalloc(cap + 1, sizeof(double)), *r = bv_xcalloc(cap + 1, sizeof(double));
	for (size_t c = 0; c < s->ncells; c++)
		for (size_t i = 0; i < s->n; i++)
			for (int t = 0; t < s->cells[c].ntrials; t++, n++) {
				const pstate *p = &s->cells[c].v[i].state[t];
				g[n] = better(p->gbps, -1), k[n] = better(p->compute_ns, +1), r[n] = better(p->running, +1);
			}
	u->gbps = bv_quantile(g, n, 0.9);
	u->compute_ns = bv_quantile(k, n, 0.1);
	u->running = bv_quantile(r, n, 0.1);
	free(g), free(k), free(r);
}

/* Would the cell's verdict rest on too few processes at the machine's usual
 * state, its ratio having followed the state (verdict.c)?  Such a cell is
 * measured again once every other cell is done: later in the run the
 * machine is often back to its usual state. */
static int follows_state(const session *s, const cstate *c, const bv_usual *u)
{
	int any = 0;
	size_t cap = (size_t)c->ntrials + 1;
	for (size_t i = 1; i < s->n && !any; i++) {
		const vstate *v = &c->v[i];
		bv_change ch;
		memset(&ch, 0, sizeof(ch));
		double *r = bv_xcalloc(cap, sizeof(double)), *g = bv_xcalloc(cap, sizeof(double)), *k = bv_xcalloc(cap, sizeof(double)),
		       *n = bv_xcalloc(cap, sizeof(double));
		for (int t = 0; t < c->ntrials; t++)
			if (isfinite(v->ratio[t])) {
				const pstate *p = &v->state[t];
				r[ch.nproc] = v->ratio[t];
				g[ch.nproc] = better(p->gbps, -1);
				k[ch.nproc] = better(p->compute_ns, +1);
				n[ch.nproc] = better(p->running, +1);
				ch.nproc++;
			}
		ch.proc_ratio = r, ch.proc_gbps = g, ch.proc_compute_ns = k, ch.proc_running = n;
		any = ch.nproc && bv_change_state_split(&ch, s->o->threshold, u) && ch.unstable;
		free(r), free(g), free(k), free(n);
	}
	return any;
}

/* At the end of the run: the cells whose ratio followed the machine's state
 * get a second budget, and the processes left up to --max-processes (at
 * least 6), once.  Returns how many. */
size_t bv_ms_measure_again(session *s)
{
	bv_usual u;
	usual_state(s, &u);
	size_t n = 0;
	for (size_t ci = 0; ci < s->ncells; ci++) {
		cstate *c = &s->cells[ci];
		if (c->again || c->prior || c->ntrials + 6 > s->o->max_processes)
			continue;
		if (follows_state(s, c, &u)) {
			c->again = 1, c->again_from = c->ntrials, c->active = 1, c->elapsed_s = 0;
			n++;
		}
	}
	return n;
}

/* A calibration below what this run's own bandwidth probes reached (their
 * usual level, far more than one copy's noise above it) was taken when the
 * machine was slower: measured again now, so that this run's --units
 * rate|peak and later runs' rest on figures the machine can reach. */
int bv_ms_check_calibration(session *s)
{
	bv_usual u;
	double copy;
	usual_state(s, &u);
	if (bv_json_num(s->calib, "copy_gbps", &copy) || !(u.gbps > BV_CALIBRATION_PROBE_FACTOR * copy))
		return 0;
	char why[160];
	snprintf(why, sizeof(why), "this run's bandwidth probes reached %.1f GB/s, above the stored copy bandwidth %.1f",
		 u.gbps, copy);
	cJSON *fresh = NULL;
	int rc = bv_machine_calibration(1, why, &fresh);
	if (rc == BV_EINTR)
		return rc;
	if (rc) {
		/* Every cell is measured by now: a calibration that cannot be
		 * re-taken (a full cache disk, a crashed child) must not turn the
		 * run into a failed one.  Only --units rate|peak read it. */
		fprintf(stderr, "bench-versions: warning: %s; could not re-measure the machine's calibration (%s): "
				"the logs keep the stored one\n", why, bv_error_last());
		return 0;
	}
	cJSON_Delete(s->calib);
	s->calib = fresh;
	if (s->machine)
		cJSON_ReplaceItemInObject(s->machine, "calibration", cJSON_Duplicate(fresh, 1));
	return 0;
}
