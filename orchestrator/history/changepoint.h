/*
 * changepoint.h - where a cell's speed changed over a history (changepoint.c;
 * docs/history.md, "Change points"), found over the steps the
 * history measured (store.h's bv_step).
 */
#ifndef BV_CHANGEPOINT_H
#define BV_CHANGEPOINT_H

#include <stddef.h>

#include "store.h"

/*
 * Over one cell's steps s[0..n) (s[i]: version i to i + 1): where the
 * cell's level changed.  A change point at step i is between versions i
 * and i + 1; a gradual one spans steps first..last (several small steps in
 * one direction whose product is a change, none of them one alone). */
typedef struct bv_change_point {
	size_t cell;          /* bv_changepoints_table: the index into cells_steps (0 for one cell) */
	size_t first, last;  /* steps: first == last for a change at one step */
	double ratio, lo, hi; /* the level after over the level before, with its interval */
	bv_verdict direction; /* BV_SLOWER or BV_FASTER (bv_verdict_name says it) */
	double p;             /* its evidence: the step's sign test, or the span's z-test */
} bv_change_point;
/* threshold: the smallest change that counts (0.01); q: the chance of any
 * change point on a history where nothing changed, and the false-discovery
 * rate over every step of every cell tested together (changepoint.c says
 * how q is shared between single steps and gradual spans).  *out (n
 * entries, free(); NULL when none), sorted by cell then first step.
 * BV_EINPUT for a threshold or q out of range. */
int bv_changepoints(const bv_step *s, size_t n, double threshold, double q, bv_change_point **out, size_t *nout);
/* The same over many cells at once (cells_steps[c][0..nsteps)), every step
 * and span of every cell in one family: what `history` calls on its table. */
int bv_changepoints_table(bv_step **cells_steps, size_t ncells, size_t nsteps, double threshold, double q,
			  bv_change_point **out, size_t *nout);
/* The evidence a step needs for the history's control to call it: its
 * Bonferroni share of the single-step family.  Adaptive sampling of a
 * history's windows should stop a step that looks changed only once its
 * evidence (2 x the one-sided sign test) is at or below this, not the
 * window's own share (BV_FDR / the window's comparisons), or a real change
 * may stop sampling with too little evidence for the whole history. */
double bv_changepoint_step_share(size_t ncells, size_t nsteps, double q);
/* The chain from version 0 to version n (steps s[0..n)): the product of the
 * steps' ratios, returned, with an approximate 95 % interval in *lo, *hi
 * (log-space quadrature of the steps' half-widths: assumes independent
 * steps; NAN where a step has no interval).  1 [1, 1] for n == 0; NAN when
 * a step has no ratio. */
double bv_chain_interval(const bv_step *s, size_t n, double *lo, double *hi);

#endif
