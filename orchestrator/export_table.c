/*
 * export_table.c - the comparison as an aligned text table for a terminal:
 * a row per cell, per version its time, and per later version its ratio to
 * the baseline with the 95 % interval and the verdict.  Rows where no
 * version produced a result for the same reason (cuda without a device) are
 * folded into one note under the table instead of filling it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "benches.h"
#include "common.h"
#include "counts.h"
#include "export.h"
#include "merge.h"
#include "table.h"

/* A row nobody could run, e.g. every version skipped for the same reason. */
static int row_empty(const bv_row *r, size_t nv) { return !bv_row_ran(r, nv); }

/* Why a row was not run, as the baseline reports it. */
typedef struct grid {
	char ***cells; /* [row][col] */
	const char **paint; /* [row * cols + col]: an SGR colour, or NULL */
	size_t rows, cols;
	size_t *width;
} grid;

static void put(grid *g, size_t r, size_t c, const char *s)
{
	g->cells[r][c] = bv_strdup(s);
	size_t w = strlen(s);
	if (w > g->width[c])
		g->width[c] = w;
}

/* On a terminal (t->colour): slower red, faster green, the undecided
 * yellow; same stays plain, so what needs a look stands out. */
static const char *verdict_colour(bv_verdict verdict)
{
	switch (verdict) {
	case BV_SLOWER: return "31";
	case BV_FASTER: return "32";
	case BV_INCONCLUSIVE:
	case BV_UNSTABLE: return "33";
	default: return NULL;
	}
}

/* The grid the table is laid out in, empty: a header line and one line per
 * row shown, with a ratio column beside every version but a baseline (one
 * per class). */
static grid grid_new(const bv_table *t)
{
	size_t nv = t->nversions;
	/* a ratio column beside every version but a baseline (one per class) */
	size_t nbase = 0;
	for (size_t i = 0; i < nv; i++)
		nbase += bv_table_is_base(t, i);
	size_t cols = 4 + nv + (nv - nbase);
	size_t shown = 0;
	for (size_t k = 0; k < t->nrows; k++)
		shown += !row_empty(&t->rows[k], nv) && !t->rows[k].hidden;
	grid g = {bv_xcalloc(shown + 1, sizeof(char **)), bv_xcalloc((shown + 1) * cols, sizeof(char *)), shown + 1,
		  cols, bv_xcalloc(cols, sizeof(size_t))};
	for (size_t r = 0; r <= shown; r++)
		g.cells[r] = bv_xcalloc(cols, sizeof(char *));
	return g;
}

/* The header line: the row's key, each version's label, and each ratio's
 * label against its baseline. */
static void grid_header(grid *g, const bv_table *t)
{
	size_t nv = t->nversions;
	const char *heads[] = {"bench", "op", "backend", "size"};
	for (size_t c = 0; c < 4; c++)
		put(g, 0, c, heads[c]);
	for (size_t i = 0, c = 4; i < nv; i++) {
		put(g, 0, c++, t->labels[i]);
		if (!bv_table_is_base(t, i)) {
			char h[300];
			snprintf(h, sizeof(h), "%s/%s [95%% CI]", t->labels[i], t->labels[bv_table_base(t, i)]);
			put(g, 0, c++, h);
		}
	}
}

/* One line per row that ran and is not hidden: each version's result or
 * status, each change's ratio and verdict (painted) or why there is none. */
static void grid_rows(grid *g, const bv_table *t)
{
	size_t nv = t->nversions, cols = g->cols;
	size_t r = 1;
	for (size_t k = 0; k < t->nrows; k++) {
		const bv_row *row = &t->rows[k];
		if (row_empty(row, nv) || row->hidden)
			continue;
		char buf[1024];
		put(g, r, 0, row->bench);
		put(g, r, 1, row->op);
		put(g, r, 2, row->backend);
		put(g, r, 3, bv_size_format(row->size, buf, sizeof(buf)));
		for (size_t i = 0, c = 4; i < nv; i++) {
			const bv_result *res = &row->results[i];
			if (res->status == BV_ST_OK)
				bv_format_result(t, res, buf, sizeof(buf));
			else
				snprintf(buf, sizeof(buf), "%s", bv_status_name(res->status));
			put(g, r, c++, buf);
			if (!bv_table_is_base(t, i)) {
				const bv_change *ch = &row->changes[i];
				if (ch->valid) {
					char q[96], ratio[64];
					bv_format_qualifiers(t, ch, q, sizeof(q));
					bv_format_ratio(ch, ratio, sizeof(ratio));
					snprintf(buf, sizeof(buf), "%s %s%s%s%s", ratio, bv_verdict_name(ch->verdict), q, ch->why ? "; " : "",
						 ch->why ? ch->why->text : "");
					g->paint[r * cols + c] = verdict_colour(ch->verdict);
				} else
					snprintf(buf, sizeof(buf), "%s", ch->none ? ch->none : "-");
				put(g, r, c++, buf);
			}
		}
		r++;
	}
}

/* The grid written out, names left-aligned and numbers right-aligned, and
 * freed as it goes. */
static void grid_print(grid *g, const bv_table *t, FILE *out)
{
	size_t cols = g->cols;
	for (size_t i = 0; i < g->rows; i++) {
		for (size_t c = 0; c < cols; c++) {
			/* names left-aligned, numbers right-aligned */
			int left = c < 3;
			const char *text = g->cells[i][c] ? g->cells[i][c] : "";
			const char *paint = t->colour ? g->paint[i * cols + c] : NULL;
			fprintf(out, c ? "  " : "");
			if (paint) /* the escapes take no column: padding is the text's */
				fprintf(out, "%*s\033[%sm%s\033[0m", (int)(g->width[c] - strlen(text)), "", paint, text);
			else
				fprintf(out, left ? "%-*s" : "%*s", (int)g->width[c], text);
			free(g->cells[i][c]);
		}
		fputc('\n', out);
		free(g->cells[i]);
	}
	free(g->cells);
	free(g->paint);
	free(g->width);
}

/* Geometric mean of the ratios per group, over cells both versions ran
 * (hidden rows too: the summary is of what was measured). */
static void table_geomeans(const bv_table *t, FILE *out)
{
	size_t nv = t->nversions;
	for (size_t i = 1; i < nv; i++) {
		const char *group = NULL;
		for (size_t k = 0; k <= t->nrows; k++) {
			if (k < t->nrows && group && !strcmp(group, t->rows[k].bench))
				continue;
			size_t n = 0;
			double gm = group ? bv_table_geomean(t, i, group, &n) : 0;
			if (n && !bv_table_is_base(t, i))
				fprintf(out, "geomean %s/%s over %s: %.3f (%zu %s)\n", t->labels[i], t->labels[bv_table_base(t, i)],
					group, gm, n, bv_plural((long long)n, "cell", "cells"));
			group = k < t->nrows ? t->rows[k].bench : NULL;
		}
	}
}

/* The lines under the table: --vs's backends, the folded rows, the notes,
 * the method and the verdicts' control. */
static void table_footer(const bv_table *t, FILE *out)
{
	bv_export_backends_table(t, out);
	/* Folded rows: one line per distinct backend and reason (merge.c). */
	bv_fold *folds;
	size_t nfolds = bv_table_folds(t, &folds);
	for (size_t i = 0; i < nfolds; i++)
		fprintf(out, "not run: %zu %s cell%s on every version: %s\n", folds[i].count, folds[i].backend,
			folds[i].count == 1 ? "" : "s", folds[i].text);
	bv_table_folds_free(folds, nfolds);
	for (size_t i = 0; i < t->nnotes; i++)
		fprintf(out, "note: %s\n", t->notes[i]);
	if (t->method)
		fprintf(out, "method: %s\n", t->method);
	if (t->control)
		fprintf(out, "verdicts: %s\n", t->control);
	if (t->counts)
		fprintf(out, "counts: %s\n", t->counts);
	if (t->vs.on) {
		char *bc = bv_backends_control(t), plural[80];
		bv_vs_plural(t, plural, sizeof(plural));
		fprintf(out, "%s verdicts: %s\n", bv_vs_noun(t), bc);
		free(bc);
		if (t->nwins) {
			char *wc = bv_wins_control(t);
			fprintf(out, "fastest %s: %s\n", plural, wc);
			free(wc);
		}
	}
}

int bv_export_table(const bv_table *t, FILE *out)
{
	grid g = grid_new(t);
	grid_header(&g, t);
	grid_rows(&g, t);
	/* Results differ between instruction sets: the header says which ran. */
	char simd[512];
	bv_format_simd(t, simd, sizeof(simd));
	if (*simd)
		fprintf(out, "simd ISA: %s\n", simd);
	grid_print(&g, t, out);
	table_geomeans(t, out);
	table_footer(t, out);
	return ferror(out) ? bv_fail(BV_ERUN, "cannot write the table") : 0;
}
