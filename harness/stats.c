/* stats.c - medians, order-statistic intervals and verdicts (see stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double *sorted_copy(const double *v, size_t n)
{
	double *s = malloc(n * sizeof(*s));
	if (s) {
		memcpy(s, v, n * sizeof(*s));
		qsort(s, n, sizeof(*s), cmp_double);
	}
	return s;
}

static double median_sorted(const double *s, size_t n)
{
	return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double bv_median(const double *v, size_t n)
{
	if (n == 0)
		return NAN;
	double *s = sorted_copy(v, n);
	if (!s)
		return NAN;
	double m = median_sorted(s, n);
	free(s);
	return m;
}

/* P(Binomial(n, 1/2) <= k), summed in log space so large n does not overflow. */
static double binom_cdf_half(size_t n, size_t k)
{
	double total = 0.0;
	for (size_t i = 0; i <= k && i <= n; i++)
		total += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) -
			     (double)n * log(2.0));
	return total;
}

int bv_median_interval(const double *v, size_t n, double level, bv_interval *out)
{
	memset(out, 0, sizeof(*out));
	if (n == 0)
		return -1;
	double *s = sorted_copy(v, n);
	if (!s)
		return -1;
	out->n = n;
	out->est = median_sorted(s, n);
	/* The interval [x(k), x(n-k+1)] (1-based) misses the median with
	 * probability 2 P(B <= k-1); take the largest k that keeps coverage. */
	size_t best = 1;
	double coverage = 1.0 - 2.0 * binom_cdf_half(n, 0);
	for (size_t k = 2; k <= (n + 1) / 2; k++) {
		double c = 1.0 - 2.0 * binom_cdf_half(n, k - 1);
		if (c < level)
			break;
		best = k, coverage = c;
	}
	out->lo = s[best - 1];
	out->hi = s[n - best];
	out->coverage = coverage;
	free(s);
	return 0;
}

bv_verdict bv_verdict_of(const bv_interval *r, double threshold)
{
	if (r->n == 0 || r->coverage < 0.95)
		return BV_SAME;
	if (r->lo > 1.0 && r->est > 1.0 + threshold)
		return BV_SLOWER;
	if (r->hi < 1.0 && r->est < 1.0 / (1.0 + threshold))
		return BV_FASTER;
	return BV_SAME;
}

const char *bv_verdict_name(bv_verdict v)
{
	switch (v) {
	case BV_FASTER: return "faster";
	case BV_SLOWER: return "slower";
	default: return "same";
	}
}

int bv_interval_noisy(const bv_interval *r, double threshold)
{
	if (r->n == 0 || r->coverage < 0.95)
		return 1;
	return bv_verdict_of(r, threshold) == BV_SAME &&
	       (r->hi > 1.0 + threshold || r->lo < 1.0 / (1.0 + threshold));
}
