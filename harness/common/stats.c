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

double bv_quantile(const double *v, size_t n, double q)
{
	double *s = malloc((n ? n : 1) * sizeof(*s));
	size_t k = 0;
	for (size_t i = 0; s && i < n; i++)
		if (isfinite(v[i]))
			s[k++] = v[i];
	double out = NAN;
	if (k) {
		qsort(s, k, sizeof(*s), cmp_double);
		out = s[(size_t)(q * (double)(k - 1) + 0.5)];
	}
	free(s);
	return out;
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
	double cdf = binom_cdf_half(n, 0);
	double coverage = 1.0 - 2.0 * cdf;
	/* P(B <= k-1) summed on as k grows, term by term in the order
	 * binom_cdf_half adds them (the same sums, bit for bit): a step pooled
	 * from many runs has a thousand processes, and summing afresh at each k
	 * made this quadratic in them. */
	for (size_t k = 2; k <= (n + 1) / 2; k++) {
		cdf += exp(lgamma((double)n + 1) - lgamma((double)(k - 1) + 1) - lgamma((double)(n - k + 1) + 1) -
			   (double)n * log(2.0));
		double c = 1.0 - 2.0 * cdf;
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
	case BV_SAME: return "same";
	case BV_FASTER: return "faster";
	case BV_SLOWER: return "slower";
	case BV_INCONCLUSIVE: return "inconclusive";
	case BV_UNSTABLE: return "unstable";
	case BV_NO_VERDICT: break;
	}
	return NULL;
}

bv_verdict bv_verdict_parse(const char *name)
{
	for (bv_verdict v = BV_SAME; v <= BV_UNSTABLE; v++)
		if (name && !strcmp(name, bv_verdict_name(v)))
			return v;
	return BV_NO_VERDICT;
}

int bv_interval_noisy(const bv_interval *r, double threshold)
{
	if (r->n == 0 || r->coverage < 0.95)
		return 1;
	return bv_verdict_of(r, threshold) == BV_SAME &&
	       (r->hi > 1.0 + threshold || r->lo < 1.0 / (1.0 + threshold));
}

/* log of the one-sided Jeffreys mixture of the sign likelihood ratio:
 *   M(n, k) = 2^n / B(1/2, 1/2) * 2 * integral over (1/2, 1] of
 *             theta^(k - 1/2) (1 - theta)^(n - k - 1/2) d theta
 * (the factor 2 renormalises the Jeffreys density to the half interval).
 * With theta = 1 - u^2 the integrand becomes 2 (1 - u^2)^(k - 1/2) u^(2(n-k)),
 * smooth on [0, 1/sqrt 2]; Simpson's rule on it, summed in log space so
 * hundreds of processes neither overflow nor underflow. */
static double sign_log_mixture(size_t n, size_t k)
{
	enum { STEPS = 512 }; /* even; ample for the widths that occur (1/sqrt n) */
	const double top = sqrt(0.5), h = top / STEPS;
	double logs[STEPS + 1], maxl = -INFINITY;
	for (int i = 0; i <= STEPS; i++) {
		double u = i * h;
		double l = log(2.0) + ((double)k - 0.5) * log1p(-u * u);
		l += n > k ? 2.0 * (double)(n - k) * log(u) : 0.0; /* u^0 = 1, also at u = 0 */
		double w = i == 0 || i == STEPS ? 1.0 : i % 2 ? 4.0 : 2.0;
		logs[i] = l + log(w); /* -inf at u = 0 when n > k */
		if (logs[i] > maxl)
			maxl = logs[i];
	}
	double sum = 0.0;
	for (int i = 0; i <= STEPS; i++)
		sum += exp(logs[i] - maxl);
	double log_integral = maxl + log(sum) + log(h / 3.0);
	/* 2^n * 2 / B(1/2,1/2), and B(1/2,1/2) = pi */
	return (double)n * log(2.0) + log(2.0) - log(M_PI) + log_integral;
}

/* A history or a bisect asks for the same few (n, k) thousands of times:
 * the values up to MEMO_N processes are kept (per thread).  Above that, up
 * to BIG_N (a site's step pooled from many runs: hundreds of processes,
 * each prefix of them asking for its own (n, k)), row n is kept once asked
 * for, NAN where not yet computed: a publish asks for the same rows for
 * every cell.  Every row up to BIG_N is 67 MB at most (n + 1 doubles
 * each); a longer step is computed afresh. */
enum { MEMO_N = 96, BIG_N = 4096 };
static double big_mixture(size_t n, size_t k)
{
	static _Thread_local double *rows[BIG_N + 1];
	if (!rows[n]) {
		rows[n] = malloc((n + 1) * sizeof(double));
		if (!rows[n])
			return sign_log_mixture(n, k);
		for (size_t i = 0; i <= n; i++)
			rows[n][i] = NAN;
	}
	if (isnan(rows[n][k]))
		rows[n][k] = sign_log_mixture(n, k);
	return rows[n][k];
}

double bv_sign_log_mixture(size_t n, size_t k)
{
	static _Thread_local double memo[MEMO_N + 1][MEMO_N + 1];
	static _Thread_local unsigned char known[MEMO_N + 1][MEMO_N + 1];
	if (k > n)
		return sign_log_mixture(n, k);
	if (n > MEMO_N)
		return n <= BIG_N ? big_mixture(n, k) : sign_log_mixture(n, k);
	if (!known[n][k]) {
		memo[n][k] = sign_log_mixture(n, k);
		known[n][k] = 1;
	}
	return memo[n][k];
}

double bv_sign_evidence(const double *r, size_t n, double edge, int dir)
{
	size_t seen = 0, beyond = 0;
	double best = 0.0; /* log of the running maximum; M_0 = 1 */
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(r[i]) || r[i] == edge)
			continue;
		seen++;
		beyond += dir > 0 ? r[i] > edge : r[i] < edge;
		/* With no more than half the processes beyond the edge the
		 * likelihood ratio is at most 1 at every theta above 1/2, so
		 * the mixture is too: it cannot raise the running maximum
		 * (which starts at 1), and is not computed (for a step of
		 * hundreds of processes most of the time went here). */
		if (2 * beyond <= seen)
			continue;
		double l = bv_sign_log_mixture(seen, beyond);
		if (l > best)
			best = l;
	}
	return fmin(1.0, exp(-best));
}

typedef struct ranked {
	double p;
	size_t i;
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
	double x = ((const ranked *)a)->p, y = ((const ranked *)b)->p;
	return (x > y) - (x < y);
}

size_t bv_bh(const double *p, size_t m, double q, int *discovered)
{
	ranked *s = malloc((m ? m : 1) * sizeof(*s));
	size_t k = 0, found = 0;
	for (size_t i = 0; i < m; i++) {
		discovered[i] = 0;
		if (s && !isnan(p[i]))
			s[k++] = (ranked){p[i], i};
	}
	if (!s)
		return 0;
	qsort(s, k, sizeof(*s), cmp_ranked);
	/* The largest rank j whose p-value is at most j q / m: it and every
	 * smaller p-value are discoveries (step-up). */
	size_t last = 0;
	for (size_t j = 1; j <= k; j++)
		if (s[j - 1].p <= (double)j * q / (double)k)
			last = j;
	for (size_t j = 0; j < last; j++)
		discovered[s[j].i] = 1, found++;
	free(s);
	return found;
}
