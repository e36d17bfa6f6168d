/*
 * merge_gates.c - what is done to the merged table before it is shown and
 * what is asked of it after: the filters (--filter, --only-changes), the
 * folds of rows nobody ran, the geomeans, the notes of wrong results and
 * of cells the budget stopped undecided, the gates (--fail-on-slower,
 * --fail-on-wrong), and freeing the table (merge.h declares them all).
 *
 * Apart from merge.c, which makes the table from the logs: these read or
 * trim a table already decided, whichever logs it came from; compare, run
 * and the exports (export*.c) call them one by one.
 */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "classes.h"
#include "common.h"
#include "counts.h"
#include "merge.h"
#include "stats.h"
#include "status.h"
#include "table.h"

static void row_free(const bv_table *t, bv_row *r)
{
	for (size_t i = 0; i < t->nversions; i++) {
		free(r->results[i].reason), free(r->results[i].proc_ns), free(r->results[i].proc_id);
		free(r->changes[i].proc_ratio), free(r->changes[i].proc_gbps);
		free(r->changes[i].proc_compute_ns), free(r->changes[i].proc_running);
		bv_count_cmp_free(r->changes[i].why);
	}
	free(r->results), free(r->changes);
	free(r->bench), free(r->op), free(r->backend);
}

void bv_table_free(bv_table *t)
{
	for (size_t k = 0; k < t->nrows; k++)
		row_free(t, &t->rows[k]);
	for (size_t i = 0; i < t->nversions; i++) {
		if (t->labels)
			free(t->labels[i]);
		if (t->descriptions)
			free(t->descriptions[i]);
		if (t->meta)
			free(t->meta[i].commit), free(t->meta[i].tree), free(t->meta[i].cpu), free(t->meta[i].isa),
			    free(t->meta[i].simd_isa), free(t->meta[i].build_key);
	}
	for (size_t i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	free(t->notes);
	free(t->labels), free(t->descriptions), free(t->meta), free(t->rows), free(t->method), free(t->control), free(t->counts);
	for (size_t c = 0; c < t->nclasses; c++)
		bv_class_free(&t->classes[c]);
	free(t->classes), free(t->class_of);
	bv_backend_view_free(t);
	memset(t, 0, sizeof(*t));
}

void bv_table_filter(bv_table *t, const regex_t *re)
{
	size_t kept = 0;
	for (size_t k = 0; k < t->nrows; k++) {
		char key[512];
		bv_row_key(&t->rows[k], key, sizeof(key));
		if (regexec(re, key, 0, NULL, 0) == 0)
			t->rows[kept++] = t->rows[k];
		else
			row_free(t, &t->rows[k]);
	}
	t->nrows = kept;
}

/* A row a PR comment shows: some version did not give a result where
 * another did (an error is a change), or some change is not `same`. */
static int row_changed(const bv_table *t, const bv_row *r)
{
	/* Rows no version could run (cuda without a device) are no change. */
	if (!bv_row_ran(r, t->nversions))
		return 0;
	for (size_t i = 0; i < t->nversions; i++)
		if (r->results[i].status != BV_ST_OK)
			return 1;
	for (size_t i = 1; i < t->nversions; i++)
		if (!bv_table_is_base(t, i) &&
		    (!r->changes[i].valid || !r->changes[i].verdict || r->changes[i].verdict != BV_SAME))
			return 1;
	return 0;
}

void bv_table_only_changes(bv_table *t)
{
	size_t kept = 0, all = t->nrows;
	for (size_t k = 0; k < t->nrows; k++) {
		t->rows[k].hidden = !row_changed(t, &t->rows[k]);
		kept += !t->rows[k].hidden;
	}
	/* The left-out rows are still part of what was measured and decided:
	 * the footer (t->control) and the geomeans count them; this says they
	 * are not shown. */
	t->notes = bv_xrealloc(t->notes, (t->nnotes + 1) * sizeof(char *));
	t->notes[t->nnotes++] = bv_asprintf("--only-changes: %zu of %zu rows shown; the other %zu are same or "
					    "not run on any version",
					    kept, all, all - kept);
}


int bv_row_ran(const bv_row *r, size_t nversions)
{
	for (size_t i = 0; i < nversions; i++)
		if (bv_status_ran(r->results[i].status))
			return 1;
	return 0;
}

/* "status: reason" of version i of row r (the status alone without one). */
static char *fold_part(const bv_row *r, size_t i)
{
	const bv_result *x = &r->results[i];
	return x->reason ? bv_asprintf("%s: %s", bv_status_name(x->status), x->reason) : bv_strdup(bv_status_name(x->status));
}

/* What a folded row says: one "status: reason" when every version agrees;
 * when they differ (an old release's own cuda message beside a new one's),
 * each distinct one after the versions that gave it, in column order, so
 * no version's reason stands for another's. */
static char *fold_text(const bv_table *t, const bv_row *r)
{
	size_t nv = t->nversions;
	char **part = bv_xcalloc(nv + 1, sizeof(char *));
	int same = 1;
	for (size_t i = 0; i < nv; i++)
		part[i] = fold_part(r, i), same = same && !strcmp(part[i], part[0]);
	bv_buf b = BV_BUF_INIT;
	if (same)
		bv_buf_puts(&b, part[0]);
	for (size_t i = 0; i < nv && !same; i++) {
		int before = 0;
		for (size_t j = 0; j < i && !before; j++)
			before = !strcmp(part[j], part[i]);
		if (before)
			continue;
		bv_buf_printf(&b, "%s%s", b.len ? "; " : "", t->labels[i]);
		for (size_t j = i + 1; j < nv; j++)
			if (!strcmp(part[j], part[i]))
				bv_buf_printf(&b, ", %s", t->labels[j]);
		bv_buf_printf(&b, ": %s", part[i]);
	}
	for (size_t i = 0; i < nv; i++)
		free(part[i]);
	free(part);
	return b.s ? b.s : bv_strdup("");
}

size_t bv_table_folds(const bv_table *t, bv_fold **out)
{
	bv_fold *f = NULL;
	size_t n = 0;
	for (size_t k = 0; k < t->nrows; k++) {
		const bv_row *r = &t->rows[k];
		if (bv_row_ran(r, t->nversions) || r->hidden)
			continue;
		char *text = fold_text(t, r);
		size_t j = 0;
		while (j < n && (strcmp(f[j].backend, r->backend) || strcmp(f[j].text, text)))
			j++;
		if (j < n) {
			f[j].count++;
			free(text);
			continue;
		}
		f = bv_xrealloc(f, (n + 1) * sizeof(*f));
		f[n++] = (bv_fold){r->backend, text, 1};
	}
	*out = f;
	return n;
}

void bv_table_folds_free(bv_fold *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(f[i].text);
	free(f);
}

double bv_table_geomean(const bv_table *t, size_t v, const char *bench, size_t *n)
{
	double logsum = 0;
	*n = 0;
	for (size_t k = 0; k < t->nrows; k++)
		if ((!bench || !strcmp(t->rows[k].bench, bench)) && t->rows[k].changes[v].valid &&
		    t->rows[k].changes[v].ratio > 0)
			logsum += log(t->rows[k].changes[v].ratio), (*n)++;
	return *n ? exp(logsum / (double)*n) : 0;
}

int bv_table_has_slower(const bv_table *t)
{
	for (size_t k = 0; k < t->nrows; k++)
		for (size_t i = 1; i < t->nversions; i++) {
			const bv_change *ch = &t->rows[k].changes[i];
			/* the same instructions and misses on both sides: not the
			 * code (counts.c), so not what a CI gate is for */
			if (ch->valid && ch->verdict == BV_SLOWER && !(ch->why && !strcmp(ch->why->kind, "placement")))
				return 1;
		}
	return 0;
}

/* A candidate: a column with a ratio of its own; in a table of baselines
 * only (one version), each of them, or a gate would have nothing to check. */
static int is_candidate(const bv_table *t, size_t i)
{
	for (size_t v = 0; v < t->nversions; v++)
		if (!bv_table_is_base(t, v))
			return !bv_table_is_base(t, i);
	return 1;
}

void bv_table_note_wrong(bv_table *t)
{
	for (size_t k = 0; k < t->nrows; k++)
		for (size_t i = 0; i < t->nversions; i++) {
			const bv_result *x = &t->rows[k].results[i];
			if (x->status != BV_ST_WRONG)
				continue;
			char key[512];
			bv_row_key(&t->rows[k], key, sizeof(key));
			t->notes = bv_xrealloc(t->notes, (t->nnotes + 1) * sizeof(char *));
			t->notes[t->nnotes++] = bv_asprintf("wrong result: %s on %s: %s", key, t->labels[i],
							    x->reason ? x->reason : "the output failed the check");
		}
}

size_t bv_table_wrong(const bv_table *t, char *first, size_t len)
{
	size_t n = 0;
	for (size_t k = 0; k < t->nrows; k++)
		for (size_t i = 0; i < t->nversions; i++)
			if (t->rows[k].results[i].status == BV_ST_WRONG && is_candidate(t, i) && n++ == 0) {
				char key[512];
				bv_row_key(&t->rows[k], key, sizeof(key));
				snprintf(first, len, "%s on %s", key, t->labels[i]);
			}
	return n;
}

void bv_say_wrong(size_t n, const char *first, const char *flag)
{
	if (n == 1)
		fprintf(stderr, "bench-versions: 1 cell gives a wrong result (%s): %s\n", flag, first);
	else
		fprintf(stderr, "bench-versions: %zu cells give wrong results (%s): %s and %zu more (each is a note "
				"under the table)\n",
			n, flag, first, n - 1);
}

void bv_table_note_budget(bv_table *t)
{
	enum { SHOWN = 3 };
	bv_buf list = BV_BUF_INIT;
	size_t n = 0;
	const bv_result *first = NULL;
	char first_key[512] = "";
	for (size_t k = 0; k < t->nrows; k++) {
		const bv_row *r = &t->rows[k];
		const bv_result *x = NULL;
		for (size_t i = 0; i < t->nversions && !x; i++) {
			const bv_change *ch = &r->changes[i];
			if (ch->valid && ch->verdict == BV_INCONCLUSIVE && r->results[i].stopped &&
			    !strcmp(r->results[i].stopped, "budget"))
				x = &r->results[i];
		}
		if (!x)
			continue;
		char key[512];
		bv_row_key(r, key, sizeof(key));
		if (n == 0)
			first = x, snprintf(first_key, sizeof(first_key), "%s", key);
		if (n < SHOWN)
			bv_buf_printf(&list, "%s%s (%g s, %d %s)", n ? ", " : "", key, x->stop_budget_s, x->processes,
				      bv_plural(x->processes, "process", "processes"));
		n++;
	}
	if (n > SHOWN)
		bv_buf_printf(&list, " and %zu more", n - SHOWN);
	if (n) {
		char *text;
		if (n == 1)
			text = bv_asprintf("budget: %s stopped undecided by its time budget (%g s) after %d %s; "
					   "to decide it, measure it again with a larger --budget (a cell that looks "
					   "changed gets three), or --min-processes N (--filter selects it)",
					   first_key, first->stop_budget_s, first->processes,
					   bv_plural(first->processes, "process", "processes"));
		else
			text = bv_asprintf("budget: %zu inconclusive cells stopped undecided by their time budget: "
					   "%s; to decide them, measure them again with a larger --budget (a cell that "
					   "looks changed gets three), or --min-processes N (--filter selects them)",
					   n, list.s);
		t->notes = bv_xrealloc(t->notes, (t->nnotes + 1) * sizeof(char *));
		t->notes[t->nnotes++] = text;
	}
	bv_buf_free(&list);
}
