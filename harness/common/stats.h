/*
 * stats.h - the statistics behind every number bench-versions reports.
 *
 * Estimates are medians and their 95 % intervals are distribution-free: the
 * order statistics x(k) .. x(n-k+1) that cover the true median with at least
 * the asked probability under the binomial law (no normality assumed, which
 * matters here: timings on these machines sit at a few discrete levels).
 */
#ifndef BV_STATS_H
#define BV_STATS_H

#include <stddef.h>

typedef struct bv_interval {
	double est;      /* the median */
	double lo, hi;   /* interval for the median */
	double coverage; /* its actual coverage (>= the level asked when n allows) */
	size_t n;
} bv_interval;

/* Median of n values (n > 0); v is not modified. */
double bv_median(const double *v, size_t n);

/* The q-quantile (0..1, nearest rank) of the finite values of v[0..n); v is
 * not modified.  NAN when none is finite. */
double bv_quantile(const double *v, size_t n, double q);

/* Median and order-statistic interval at `level` (e.g. 0.95).  With too few
 * values for the level the interval is [min, max] and coverage says how much
 * it really covers.  Returns -1 when n == 0. */
int bv_median_interval(const double *v, size_t n, double level, bv_interval *out);

/* A comparison's verdict.  bv_verdict_of gives the first three; the run's
 * decision (orchestrator/compare/verdict.c) adds inconclusive and unstable; NONE is
 * a comparison with no ratio (zeroed memory is NONE).  Text only where it is
 * written or read (bv_verdict_name, bv_verdict_parse). */
typedef enum { BV_NO_VERDICT = 0, BV_SAME, BV_FASTER, BV_SLOWER, BV_INCONCLUSIVE, BV_UNSTABLE } bv_verdict;

/* Verdict on a ratio (candidate time / baseline time): slower when the whole
 * interval lies above 1 and the estimate exceeds 1 + threshold, faster in the
 * mirror case, else same.  An interval that covers less than 95 % never
 * yields a verdict other than same. */
bv_verdict bv_verdict_of(const bv_interval *ratio, double threshold);
/* "same", "faster", "slower", "inconclusive", "unstable"; NULL for none. */
const char *bv_verdict_name(bv_verdict v);
/* The verdict a name gives, or BV_NO_VERDICT for NULL or any other text. */
bv_verdict bv_verdict_parse(const char *name);

/* A verdict of "same" that cannot rule out a change of threshold size: the
 * interval reaches beyond 1 + threshold or below 1 / (1 + threshold). */
int bv_interval_noisy(const bv_interval *ratio, double threshold);

/* ---- evidence for a change, valid across many cells and many looks ----
 *
 * A cell's processes are its independent units (each has its own level and
 * code placement), so the evidence that a cell changed comes from them: the
 * sign of each process's ratio against an edge (1 + threshold for slower,
 * 1 / (1 + threshold) for faster).  Under "no change beyond the edge" a sign
 * beyond it has probability at most 1/2, whatever the shape of the timings.
 *
 * The test is a one-sided mixture martingale over those signs (the
 * likelihood ratio of p = theta against p = 1/2, averaged over theta in
 * (1/2, 1] with the Jeffreys weight), and the p-value is 1 / its running
 * maximum.  By Ville's inequality that p-value stays valid whenever sampling
 * stops, however the stopping was decided: adaptive sampling may look after
 * every process without inflating the false-alarm rate.  Its price against a
 * fixed-size sign test is about two processes more for the same p-value. */

/* Anytime-valid p-value that the ratios r[0..n) (in the order measured) lie
 * beyond edge: dir > 0 above it, dir < 0 below it.  Values exactly at the
 * edge and non-finite ones carry no sign and are skipped.  1 when n == 0. */
double bv_sign_evidence(const double *r, size_t n, double edge, int dir);

/* The same evidence for a run of `k` signs beyond the edge out of `n`
 * (without the running maximum): the mixture's value, in log. */
double bv_sign_log_mixture(size_t n, size_t k);

/* Benjamini-Hochberg at level q over p[0..m): discovered[i] is set to 1 for
 * the discoveries, 0 otherwise; returns how many.  NaN p-values are never
 * discovered and do not count in m. */
size_t bv_bh(const double *p, size_t m, double q, int *discovered);

#endif
