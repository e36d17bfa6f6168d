/*
 * verdict.h - the table's verdicts, decided over all its cells together
 * (verdict.c): run-wide false-discovery control, the per-process evidence and
 * the split by the machine's state (bv_usual).
 */
#ifndef BV_VERDICT_H
#define BV_VERDICT_H

#include <stddef.h>

#include "table.h"

#define BV_FDR 0.05 /* the run-wide false-discovery rate of every verdict */
/* The fewest processes whose order-statistic interval for the median
 * reaches 95 %: [min, max] of n covers 1 - 2^(1-n), 96.9 % at 6 and 93.8 %
 * at 5 (stats.c).  run refuses fewer (run_options.c). */
#define BV_INTERVAL_MIN_PROCESSES 6
/* Whether a change has a 95 % interval to show and judge on (a log with
 * fewer processes than that has an estimate only). */
int bv_change_has_interval(const bv_change *ch);
/* Every change's verdict, decided over the whole table at once: a change is
 * slower/faster only when its cell's interval says so *and* its evidence
 * survives Benjamini-Hochberg at level q over all controlled changes of the
 * table.  bv_merge calls it; call it again after filtering rows only if the
 * family should shrink (it should not: the family is what was measured). */
void bv_table_decide(bv_table *t, double q);
/* The decision of bv_table_decide over any family of changes (valid ones
 * with their evidence, bv_change_evidence): Benjamini-Hochberg at q over
 * the controlled ones, each called only when its interval says so and its
 * evidence survives and agrees; `same` without the data to show it becomes
 * inconclusive.  The backend view (backends.c) is such a family of its own. */
bv_decided bv_changes_decide(bv_change **chs, size_t n, double q, double threshold);

/* Splits a change's processes (proc_* filled) by the machine's state against
 * the usual one (bandwidth, compute step): fills state_dependent, unstable,
 * the levels and counts; returns state_dependent.  measure.c asks it to
 * measure such a cell again later in the run. */
typedef struct bv_usual {
	double gbps;       /* 90th percentile of the bandwidth probes */
	double compute_ns; /* 10th percentile of the compute steps */
	double running;    /* 10th percentile of the runnable tasks */
} bv_usual;
int bv_change_state_split(bv_change *ch, double threshold, const bv_usual *u);
/* The same split, and the processes to judge ch on in ratios (room for
 * ch->nproc): the usual ones, in the order measured, when the ratio follows
 * the state, else all of them; returns how many.  history judges its steps
 * so (cmd_history.c). */
size_t bv_change_split_by_state(bv_change *ch, double threshold, const bv_usual *u, double *ratios);
/* A table's usual state: the 90th percentile of its bandwidth probes, the
 * 10th of its compute steps and runnable tasks (verdict.c). */
bv_usual bv_table_usual(const bv_table *t);
/* How many budgets (--budget) a cell still sampling may spend: 3 when its
 * estimate est or its whole interval [lo, hi] lies past the band [1/(1+t), 1+t] and its
 * evidence has not yet reached what the run's control asks (beyond = 0),
 * else 1.  Such a cell would end `inconclusive`; more processes are what
 * decide it either way, and the evidence is valid at any stopping time. */
int bv_budget_scale(double est, double lo, double hi, double threshold, int beyond);
/* The per-process ratios' evidence for one change (fills p_slower, p_faster,
 * p and controlled). */
void bv_change_evidence(bv_change *ch, const double *ratios, size_t n, double threshold);

#endif
