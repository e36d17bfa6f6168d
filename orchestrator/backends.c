/*
 * backends.c - the backend view (run/compare --vs-backend REF): for each
 * version, every backend's time over the reference backend's in the same
 * cell (bench, op, size), paired by process.
 *
 * A run measures every host cell of a version in one runner process per
 * trial (measure.c), and each cell's log says which process each of its
 * per-process medians came from (process_ids, schema 1.7).  So simd's
 * median over scalar's in process 7 is a ratio measured under one machine
 * state, as a version's ratio to the baseline is; the view is the median of
 * those per-process quotients with its order-statistic interval, decided
 * exactly as version changes are (bv_changes_decide: an interval past the
 * threshold band and anytime-valid sign evidence surviving
 * Benjamini-Hochberg), over a family of its own: the question "which backend
 * wins here" is not the question "did this version change", and the two
 * families do not dilute each other.
 *
 * cuda cells run in processes of their own (measure.c), so a cuda cell
 * shares no process with a host reference: it is shown without a ratio and
 * says why, never paired across processes.
 *
 * "Which backend wins here" is then answered per cell: the backend with the
 * smallest ratio to the reference (the reference's own is 1) against the
 * next smallest, their own paired ratio (all host backends of a version
 * share their processes), decided as one more family.  A winner is clear
 * only when that ratio is called faster; otherwise the two are not told
 * apart, and both are named.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "stages.h"
#include "stats.h"

static int same_cell_but_backend(const bv_row *a, const bv_row *b)
{
	return a->size == b->size && !strcmp(a->bench, b->bench) && !strcmp(a->op, b->op);
}

static int ok(const bv_result *r) { return r->status && !strcmp(r->status, "ok"); }

size_t bv_result_pair_by_process(const bv_result *x, const bv_result *ref, double *out)
{
	size_t n = 0;
	for (size_t i = 0; i < x->nproc_ns; i++)
		for (size_t j = 0; j < ref->nproc_ns; j++)
			if (x->proc_id[i] == ref->proc_id[j]) {
				out[n++] = x->proc_ns[i] / ref->proc_ns[j];
				break;
			}
	return n;
}

static void compare_one(const bv_table *t, const bv_row *row, const bv_row *refrow, size_t v, bv_change *ch)
{
	memset(ch, 0, sizeof(*ch));
	ch->p = ch->p_slower = ch->p_faster = NAN;
	const bv_result *x = &row->results[v], *ref = &refrow->results[v];
	if (!ok(x) || !ok(ref)) {
		ch->none = !ok(x) ? "the backend has no result" : "the reference has no result";
		return;
	}
	if (!x->proc_ns || !ref->proc_ns) {
		ch->none = "the log does not say which process measured what (a log before schema 1.7)";
		return;
	}
	double *q = bv_xcalloc(x->nproc_ns + 1, sizeof(double));
	size_t n = bv_result_pair_by_process(x, ref, q);
	if (n == 0) {
		free(q);
		ch->none = "measured in other processes than the reference (cuda cells run in processes of "
		           "their own)";
		return;
	}
	bv_interval iv;
	if (bv_median_interval(q, n, 0.95, &iv) != 0) {
		free(q);
		ch->none = "no ratio";
		return;
	}
	ch->valid = 1;
	ch->paired = 1;
	ch->mode = "paired";
	ch->ratio = iv.est, ch->ci_low = iv.lo, ch->ci_high = iv.hi, ch->coverage = iv.coverage;
	ch->processes = (int)n;
	ch->proc_ratio = q;
	ch->nproc = n;
	bv_change_evidence(ch, q, n, t->threshold);
	ch->verdict = "same"; /* until decided */
}

static void find_wins(bv_table *t);

int bv_table_backends(bv_table *t, const char *ref)
{
	bv_backend_view_free(t);
	size_t nref = 0;
	for (size_t r = 0; r < t->nrows; r++)
		nref += !strcmp(t->rows[r].backend, ref);
	if (nref == 0) {
		bv_buf names = BV_BUF_INIT;
		for (size_t r = 0; r < t->nrows; r++) {
			char want[64];
			snprintf(want, sizeof(want), " %s,", t->rows[r].backend);
			if (!names.s || !strstr(names.s, want))
				bv_buf_printf(&names, " %s,", t->rows[r].backend);
		}
		if (names.len)
			names.s[--names.len] = '\0';
		int rc = bv_fail(BV_EINPUT, "--vs-backend %s: no cell of backend %s was measured (backends here:%s)",
		                 ref, ref, names.s ? names.s : " none");
		bv_buf_free(&names);
		return rc;
	}
	t->vs_backend = bv_strdup(ref);
	for (size_t r = 0; r < t->nrows; r++) {
		const bv_row *row = &t->rows[r];
		if (!strcmp(row->backend, ref))
			continue;
		const bv_row *refrow = NULL;
		for (size_t k = 0; k < t->nrows && !refrow; k++)
			if (!strcmp(t->rows[k].backend, ref) && same_cell_but_backend(&t->rows[k], row))
				refrow = &t->rows[k];
		if (!refrow)
			continue; /* the reference has no such cell: nothing to say */
		for (size_t v = 0; v < t->nversions; v++) {
			/* A backend the version lacks (n/a) or that cannot run here
			 * (skipped: the table's "not run" line says why) has nothing
			 * to compare; a failure of either cell is shown. */
			const char *st = row->results[v].status;
			if (st && (!strcmp(st, "n/a") || !strcmp(st, "skipped")))
				continue;
			t->backends = bv_xrealloc(t->backends, (t->nbackends + 1) * sizeof(*t->backends));
			bv_backend_cmp *b = &t->backends[t->nbackends++];
			b->version = v;
			b->row = r;
			b->ref_row = (size_t)(refrow - t->rows);
			compare_one(t, row, refrow, v, &b->ch);
		}
	}
	bv_change **all = bv_xcalloc(t->nbackends + 1, sizeof(*all));
	for (size_t i = 0; i < t->nbackends; i++)
		all[i] = &t->backends[i].ch;
	t->backends_decided = bv_changes_decide(all, t->nbackends, BV_FDR, t->threshold);
	free(all);
	find_wins(t);
	return 0;
}

/* A candidate for a cell's fastest: a row and its ratio to the reference. */
typedef struct cand {
	size_t row;
	double ratio;
} cand;

static int by_ratio(const void *a, const void *b)
{
	const cand *x = a, *y = b;
	return x->ratio < y->ratio ? -1 : x->ratio > y->ratio ? 1 : (x->row > y->row) - (x->row < y->row);
}

/* Each (version, reference cell) with two or more backends that have a
 * paired ratio, the reference counted at 1: its fastest against the next. */
static void find_wins(bv_table *t)
{
	cand *c = bv_xcalloc(t->nbackends + 2, sizeof(cand));
	for (size_t i = 0; i < t->nbackends; i++) {
		const bv_backend_cmp *first = &t->backends[i];
		int seen = 0; /* the group was done at its first member */
		for (size_t k = 0; k < i && !seen; k++)
			seen = t->backends[k].version == first->version && t->backends[k].ref_row == first->ref_row;
		if (seen)
			continue;
		size_t n = 0;
		c[n++] = (cand){first->ref_row, 1.0};
		for (size_t k = i; k < t->nbackends; k++) {
			const bv_backend_cmp *b = &t->backends[k];
			if (b->version == first->version && b->ref_row == first->ref_row && b->ch.valid)
				c[n++] = (cand){b->row, b->ch.ratio};
		}
		if (n < 2)
			continue;
		qsort(c, n, sizeof(cand), by_ratio);
		t->wins = bv_xrealloc(t->wins, (t->nwins + 1) * sizeof(*t->wins));
		bv_backend_win *w = &t->wins[t->nwins++];
		w->version = first->version, w->row = c[0].row, w->next_row = c[1].row;
		compare_one(t, &t->rows[c[0].row], &t->rows[c[1].row], first->version, &w->ch);
	}
	free(c);
	bv_change **all = bv_xcalloc(t->nwins + 1, sizeof(*all));
	for (size_t i = 0; i < t->nwins; i++)
		all[i] = &t->wins[i].ch;
	t->wins_decided = bv_changes_decide(all, t->nwins, BV_FDR, t->threshold);
	free(all);
}

void bv_backend_view_free(bv_table *t)
{
	for (size_t i = 0; i < t->nbackends; i++)
		free(t->backends[i].ch.proc_ratio);
	for (size_t i = 0; i < t->nwins; i++)
		free(t->wins[i].ch.proc_ratio);
	free(t->backends);
	free(t->wins);
	free(t->vs_backend);
	t->backends = NULL, t->nbackends = 0, t->vs_backend = NULL;
	t->wins = NULL, t->nwins = 0;
	memset(&t->backends_decided, 0, sizeof(t->backends_decided));
	memset(&t->wins_decided, 0, sizeof(t->wins_decided));
}

char *bv_backends_control(const bv_table *t)
{
	const bv_decided *d = &t->backends_decided;
	return bv_asprintf("%zu backend comparison%s decided together at a %g%% false-discovery rate "
	                   "(Benjamini-Hochberg over anytime-valid sign tests against the %.1f%% band; a "
	                   "family of its own, apart from the versions' changes); %zu called faster or slower%s",
	                   d->tested, d->tested == 1 ? "" : "s", BV_FDR * 100, t->threshold * 100, d->called,
	                   d->inconclusive ? ", some inconclusive (measure again)" : "");
}

char *bv_wins_control(const bv_table *t)
{
	const bv_decided *d = &t->wins_decided;
	return bv_asprintf("%zu cell%s with two or more backends; %zu with a clear fastest (its paired ratio to the "
	                   "next fastest decided as the backend comparisons are, a family of its own)%s",
	                   t->nwins, t->nwins == 1 ? "" : "s", d->called,
	                   d->inconclusive ? ", some not yet told apart (measure again)" : "");
}
