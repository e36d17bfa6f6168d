/*
 * site_changes.c - change points on a cell's page (site_changes.h).
 *
 * A `changes` row is one run's version against that run's baseline, with
 * each process's ratio.  Two versions a and b a run measured in the same
 * processes give the step a -> b exactly as `history` builds one from a
 * window (bv_history_step): process j's ratio of b over its ratio of a, the
 * baseline cancelling within the process.  Runs on one machine class are
 * pooled: their processes are independent units of the same class, so the
 * step's sign evidence and interval grow with them.  Nothing else is
 * pooled: a run that measured a and b but not in the same processes (its
 * counts differ), or not against one baseline, gives nothing for the step,
 * and two runs' times are never divided.
 *
 * The change points are then changepoint.c's, over the series' steps, with
 * history's threshold (the method's default, 1 %) and its q (BV_FDR).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "history.h"
#include "site_changes.h"
#include "verdict.h"

/* The method's default threshold (run_options.c): what `history` uses
 * unless told otherwise. */
#define SITE_THRESHOLD 0.01

/* The row of version v among one run's rows, or NULL. */
static const bv_site_paired *row_of(const bv_site_paired *rows, size_t nrows, size_t v)
{
	for (size_t i = 0; i < nrows; i++)
		if (rows[i].version == v)
			return &rows[i];
	return NULL;
}

/* One run's quotients for a -> b (its rows rows[0..nrows)) appended to *q
 * (*m of them, room grown): 1 when it paired them, 0 when it did not. */
static int run_step(const bv_site_paired *rows, size_t nrows, size_t a, size_t b, double **q, size_t *m,
                    size_t *cap)
{
	const bv_site_paired *ra = row_of(rows, nrows, a), *rb = row_of(rows, nrows, b);
	size_t n;
	if (ra && rb) /* both against one baseline, in the same processes */
		n = ra->base == rb->base && ra->n == rb->n ? ra->n : 0;
	else if (rb) /* a is that run's baseline: its ratio is 1 */
		n = rb->base == a ? rb->n : 0;
	else if (ra) /* b is the baseline */
		n = ra->base == b ? ra->n : 0;
	else
		n = 0;
	if (!n)
		return 0;
	if (*m + n > *cap) {
		*cap = 2 * (*m + n);
		*q = bv_xrealloc(*q, *cap * sizeof(double));
	}
	for (size_t j = 0; j < n; j++)
		(*q)[(*m)++] = (rb ? rb->pr[j] : 1.0) / (ra ? ra->pr[j] : 1.0);
	return 1;
}

static int by_run(const void *x, const void *y)
{
	const bv_site_paired *a = x, *b = y;
	return (a->run > b->run) - (a->run < b->run);
}

void bv_site_steps(const size_t *vers, size_t nv, const bv_site_paired *rows, size_t nrows, bv_step *steps,
                   size_t *runs)
{
	/* the rows run by run, so each run's few rows are looked at alone */
	bv_site_paired *byrun = bv_xcalloc(nrows + 1, sizeof(*byrun));
	if (nrows)
		memcpy(byrun, rows, nrows * sizeof(*rows));
	qsort(byrun, nrows, sizeof(*byrun), by_run);
	double *q = NULL;
	size_t cap = 0;
	for (size_t i = 0; i + 1 < nv; i++) {
		bv_step *s = &steps[i];
		memset(s, 0, sizeof(*s));
		s->ratio = s->lo = s->hi = s->p = NAN;
		s->verdict = BV_NO_VERDICT;
		runs[i] = 0;
		size_t m = 0;
		for (size_t g = 0, e; g < nrows; g = e) {
			for (e = g + 1; e < nrows && byrun[e].run == byrun[g].run; e++)
				;
			runs[i] += (size_t)run_step(byrun + g, e - g, vers[i], vers[i + 1], &q, &m, &cap);
		}
		double coverage;
		if (!m || bv_history_step(NULL, q, m, s, &coverage) != 0)
			runs[i] = 0;
	}
	free(q), free(byrun);
}

/* One family for the series given (the caller's page: site_cells.c says
 * why), each series' steps padded to the longest with steps that have no
 * ratio: untested, and no span reaches into them. */
int bv_site_changepoints(bv_step *const *steps, const size_t *nsteps, size_t nseries, bv_change_point **out,
                         size_t *nout)
{
	*out = NULL, *nout = 0;
	size_t longest = 0;
	for (size_t k = 0; k < nseries; k++)
		if (nsteps[k] > longest)
			longest = nsteps[k];
	if (!nseries || !longest)
		return 0;
	bv_step **cells = bv_xcalloc(nseries, sizeof(*cells));
	for (size_t k = 0; k < nseries; k++) {
		cells[k] = bv_xcalloc(longest, sizeof(bv_step));
		for (size_t i = 0; i < longest; i++)
			if (i < nsteps[k])
				cells[k][i] = steps[k][i]; /* shallow: the caller owns it */
			else
				cells[k][i] = (bv_step){.ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN,
				                        .verdict = BV_NO_VERDICT};
	}
	int rc = bv_changepoints_table(cells, nseries, longest, SITE_THRESHOLD, BV_FDR, out, nout);
	for (size_t k = 0; k < nseries; k++)
		free(cells[k]);
	free(cells);
	return rc;
}
