/*
 * cmd_history.h - the pure parts of `bench-versions history` (cmd_history.c),
 * apart so the unit tests reach them without a repository or a measurement
 * (tests/unit/test_history.c): which versions of a series are kept, how the
 * series is cut into windows, a step from two versions' per-process ratios,
 * and the chain of steps back to the first version.
 */
#ifndef BV_CMD_HISTORY_H
#define BV_CMD_HISTORY_H

#include <stddef.h>

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

#endif
