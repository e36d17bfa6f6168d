/*
 * history.h - the history `bench-versions history` builds (history.c: the
 * series and its verdicts; history_measure.c: its windows and the store):
 * the versions of a series, resolved and built, and for each cell its
 * steps between adjacent versions, the chain back to the first version and
 * its change points.  The command (cmd_history.c) takes the command line
 * into a bv_hist and calls these stages in order; the formats
 * (history_format.h) print what they leave.  Apart from the command so
 * that the unit tests reach the pure parts (tests/unit/test_history.c)
 * without a repository or a measurement: which versions of a series are
 * kept, how the series is cut into windows, a step from two versions'
 * per-process ratios, and the chain of steps back to the first version.
 */
#ifndef BV_HISTORY_H
#define BV_HISTORY_H

#include <git2.h>
#include <stddef.h>

#include "changepoint.h"
#include "common.h"
#include "compat.h"
#include "plan.h"
#include "resolve.h"
#include "run_options.h"
#include "store.h"
#include "verdict.h"

/* --every N over a series of n versions: the indices kept, in keep (room
 * for n): 0, N, 2N, ... and always n - 1, so both ends stay.  Returns how
 * many (n when N <= 1). */
size_t bv_history_every(size_t n, size_t every, size_t *keep);

/* Windows of w consecutive versions (w >= 2) over n versions (n >= 2), each
 * overlapping the next by one version: window k is first[k] = k (w - 1) ..
 * last[k] = min(first[k] + w - 1, n - 1), so every step (i, i + 1) lies in
 * exactly one window.  first and last have room for n; returns the count. */
size_t bv_history_windows(size_t n, size_t w, size_t *first, size_t *last);

/* The step a -> b of one cell from the processes of one window: ra[j] and
 * rb[j] are process j's ratios of a and of b to the window's baseline (the
 * same processes, in the same order); ra NULL when a is the baseline itself
 * (rb is then b / a already).  Fills out->ratio (the median of the
 * per-process quotients rb / ra), lo and hi (its order-statistic 95 %
 * interval; NAN when n processes cannot give one: fewer than 6),
 * proc_ratio (malloc'd) and nproc; *coverage gets the interval's actual
 * coverage.  verdict and p are left for the caller (decided over every step
 * at once).  Returns -1 when no process has a finite quotient. */
int bv_history_step(const double *ra, const double *rb, size_t n, bv_step *out, double *coverage);

/* The step a -> b under the machine's state, as a run's cells are judged
 * (verdict.c): gbps, compute_ns and running are each trial's probes (any
 * may be NULL; all NULL: logs without them, nothing done), ra, rb and n as
 * for bv_history_step, out and coverage what it filled from them.  When the
 * processes measured while the machine was disturbed (another job taking
 * memory bandwidth, a CPU shared) form a cluster apart from the usual ones,
 * the step followed the machine, not the code: out is then the step of the
 * usual processes alone, and *state (malloc'd) says both levels.  Returns
 * 0 (it did not: out untouched, *state NULL), 1 (judged on the usual
 * processes) or 2 (unstable: fewer than six usual ones; out holds their
 * estimate without an interval, to be left out of the change points and
 * of the store, and measured again). */
int bv_history_step_state(const bv_usual *u, double threshold, const double *ra, const double *rb,
                          const double *gbps, const double *compute_ns, const double *running, size_t n,
                          bv_step *out, double *coverage, char **state);

/* The chain: ratio[j] = version j over version 0, the product of steps
 * s[0..j) (ratio[0] = 1), for j = 0..n (n + 1 entries each).  Its interval
 * adds the steps' half-widths in log space in quadrature, below and above
 * apart: it assumes the steps are independent (each is measured in its own
 * processes, or in one window's processes, whose shared noise it then
 * understates a little), and is an approximation, not an order statistic.
 * A step without a ratio ends the chain (NAN from there); a step without an
 * interval leaves the chain's interval NAN from there. */
void bv_history_chain(const bv_step *s, size_t n, double *ratio, double *lo, double *hi);

/* One step of one cell, as measured (or found in the store). */
typedef struct bv_hist_step {
	bv_step s;
	double coverage;
	double p_slower, p_faster;
	char *why;  /* no ratio, or no paired interval: why (NULL: measured paired) */
	int window; /* the window that measured it (1-based), 0: from the store */
	/* The step followed the machine's state (split_step): what it was at
	 * either state (NULL: it did not); unstable when too few processes
	 * were at the usual state to judge it (then never stored) */
	char *state;
	int unstable;
} bv_hist_step;

typedef struct bv_hist_cell {
	char *key; /* bench/op/backend/size */
	const char *bench, *op, *backend;
	char size[32];
	bv_hist_step *steps;       /* nv - 1 */
	double *chain, *clo, *chi; /* nv */
	bv_change_point *cps;
	size_t ncps;
} bv_hist_cell;

typedef struct bv_hist {
	/* the command line */
	int releases, first_parent, every, window;
	const char *format;
	const char *range; /* A..B as typed */
	char **names;      /* a list, as typed */
	size_t nnames;
	bv_run_cli cli;
	char *method;           /* bv_hist_method_key of the settled options: the store's key */
	const char *store_path; /* --store, else bv_store_default_path() */
	int no_store;           /* --no-store: measure every window, keep nothing */
	const char *import;     /* --import RUN_DIR: a run's logs into the store, nothing measured */
	bv_store *store;        /* NULL with --no-store */
	char *cls;              /* this machine's class: the store's key */
	size_t from_store;      /* windows the store gave whole */
	/* the series, resolved: all of it, then the versions that built */
	bv_repo *repo;
	git_repository *git;
	bv_compat *compat;
	bv_version *all;
	size_t nall, nresolved;
	size_t *built; /* indices into all, in series order */
	size_t nv;
	bv_strv notes;
	/* the measurement */
	char *dir;
	int lockfd;
	bv_plan plan; /* the cells every window measures, planned once by the command */
	bv_hist_cell *cells;
	size_t ncells;
	size_t nwindows;
	size_t measured; /* windows whose measuring began (their logs stay) */
	size_t tested, called;
	/* steps past the band that neither a step nor a change point called
	 * (undecided), and steps that followed the machine (unstable): said,
	 * never left silent */
	size_t inconclusive, unstable;
} bv_hist;

/* Built version j of the series (h->built[j] in h->all). */
bv_version *bv_hist_version(const bv_hist *h, size_t j);
void bv_hist_free(bv_hist *h);

/* The stages, in the order the command calls them; each returns 0 or a
 * BV_E* code with the error said (common.h). */
/* resolve -> compat for the series, labels unique. */
int bv_hist_resolve(bv_hist *h);
/* The results directory, made and held before anything is built (as run's). */
int bv_hist_open_results(bv_hist *h);
/* Builds every version of the series; those that do not build are left out. */
int bv_hist_build(bv_hist *h);
/* Every step of every cell decided together (verdict.c's rule), and each
 * cell's chain. */
void bv_hist_decide(bv_hist *h);
/* The change points of every cell, decided over the whole table at once. */
int bv_hist_find_changes(bv_hist *h);
/* After bv_hist_find_changes: the undecided steps (h->inconclusive). */
void bv_hist_count_undecided(bv_hist *h);
/* Step i of cell x is inconclusive past the band and no change point holds it. */
int bv_hist_undecided(const bv_hist_cell *x, size_t i, double thr);

#endif
