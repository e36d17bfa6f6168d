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

/* Median and order-statistic interval at `level` (e.g. 0.95).  With too few
 * values for the level the interval is [min, max] and coverage says how much
 * it really covers.  Returns -1 when n == 0. */
int bv_median_interval(const double *v, size_t n, double level, bv_interval *out);

typedef enum { BV_SAME = 0, BV_FASTER, BV_SLOWER } bv_verdict;

/* Verdict on a ratio (candidate time / baseline time): slower when the whole
 * interval lies above 1 and the estimate exceeds 1 + threshold, faster in the
 * mirror case, else same.  An interval that covers less than 95 % never
 * yields a verdict other than same. */
bv_verdict bv_verdict_of(const bv_interval *ratio, double threshold);
const char *bv_verdict_name(bv_verdict v);

/* A verdict of "same" that cannot rule out a change of threshold size: the
 * interval reaches beyond 1 + threshold or below 1 / (1 + threshold). */
int bv_interval_noisy(const bv_interval *ratio, double threshold);

#endif
