/*
 * site_changes.h - change points on a cell's page (site_changes.c): the
 * steps between adjacent versions of one machine class's series, built
 * from the runs on that class that measured both versions in the same
 * processes, and the change points over them found as `history` finds
 * its own (changepoint.h).
 */
#ifndef BV_SITE_CHANGES_H
#define BV_SITE_CHANGES_H

#include <stddef.h>

#include "changepoint.h"
#include "store.h"

/* One `changes` row of a run with its per-process ratios: version over
 * base, process by process (the run's baseline's own ratio is 1: it has no
 * row).  run, version and base are indexes the caller chose (the site's);
 * versions are compared by index only. */
typedef struct bv_site_paired {
	size_t run, version, base;
	const double *pr;
	size_t n;
} bv_site_paired;

/* The steps of one series: vers[0..nv) its versions in order, rows every
 * paired row of the runs on its class (any order).  steps[i] (nv - 1 of
 * them, caller's) is vers[i] -> vers[i + 1] from every run that has both
 * versions against one baseline with the same number of processes: per
 * run the quotients rb / ra process by process (ra 1 where vers[i] is the
 * baseline, rb 1 where vers[i + 1] is), pooled over the runs (each process
 * an independent unit) and made a step by bv_history_step.  A step no run
 * paired has ratio NAN and no proc_ratio: untested, and a gap no gradual
 * span crosses (changepoint.c).  runs[i]: how many runs gave step i.
 * Free the steps with bv_step_free. */
void bv_site_steps(const size_t *vers, size_t nv, const bv_site_paired *rows, size_t nrows, bv_step *steps,
                   size_t *runs);

/* The change points over several series' steps (steps[k][0..nsteps[k])),
 * all of them one family (bv_changepoints_table) at the method's default
 * threshold and BV_FDR; out's cell is k.  *out free()d by the caller. */
int bv_site_changepoints(bv_step *const *steps, const size_t *nsteps, size_t nseries, bv_change_point **out,
                         size_t *nout);

#endif
