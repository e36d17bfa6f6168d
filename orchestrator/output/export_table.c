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

/* The grid a table (or one block of it) is laid out in: the row's key, and
 * for each version shown its time, and beside each one but a baseline its
 * ratio and its why. */
typedef struct grid {
	char ***cells; /* [row][col] */
	const char **paint; /* [row * cols + col]: an SGR colour, or NULL */
	size_t rows, cols;
	size_t *width;
	int *why; /* [col]: a why column, left out when no row has one */
	int nobench; /* the bench column left out: one bench, said above the blocks */
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

/* Shown rows: ran, and not hidden by --only-changes. */
static int row_shown(const bv_row *r, size_t nv) { return !row_empty(r, nv) && !r->hidden; }

/* The grid for the versions sel[0..nsel), empty: a header line and one
 * line per row shown. */
static grid grid_new(const bv_table *t, const size_t *sel, size_t nsel)
{
	size_t cols = 4;
	for (size_t i = 0; i < nsel; i++)
		cols += bv_table_is_base(t, sel[i]) ? 1 : 3;
	size_t shown = 0;
	for (size_t k = 0; k < t->nrows; k++)
		shown += row_shown(&t->rows[k], t->nversions);
	grid g = {bv_xcalloc(shown + 1, sizeof(char **)), bv_xcalloc((shown + 1) * cols, sizeof(char *)), shown + 1,
		  cols, bv_xcalloc(cols, sizeof(size_t)), bv_xcalloc(cols, sizeof(int)), 0};
	for (size_t r = 0; r <= shown; r++)
		g.cells[r] = bv_xcalloc(cols, sizeof(char *));
	return g;
}

/* The header line: the row's key, each version's label, and each ratio's
 * label against its baseline. */
static void grid_header(grid *g, const bv_table *t, const size_t *sel, size_t nsel)
{
	const char *heads[] = {"bench", "op", "backend", "size"};
	for (size_t c = 0; c < 4; c++)
		put(g, 0, c, heads[c]);
	for (size_t j = 0, c = 4; j < nsel; j++) {
		size_t i = sel[j];
		put(g, 0, c++, t->labels[i]);
		if (!bv_table_is_base(t, i)) {
			char h[300];
			snprintf(h, sizeof(h), "%s/%s [95%% CI]", t->labels[i], t->labels[bv_table_base(t, i)]);
			put(g, 0, c++, h);
			g->why[c] = 1;
			put(g, 0, c++, "why");
		}
	}
}

/* A change's ratio cell: with --wide every detail, else the short
 * qualifiers only (the rest is its note). */
static void ratio_cell(const bv_table *t, const bv_change *ch, char *buf, size_t len)
{
	if (!ch->valid) {
		snprintf(buf, len, "%s", ch->none ? ch->none : "-");
		return;
	}
	char q[300], ratio[64];
	if (t->wide)
		bv_format_qualifiers(t, ch, q, sizeof(q));
	else
		bv_format_short_qualifiers(t, ch, q, sizeof(q));
	int why = t->wide && ch->why;
	bv_format_ratio(ch, ratio, sizeof(ratio));
	snprintf(buf, len, "%s %s%s%s%s", ratio, bv_verdict_name(ch->verdict), q, why ? "; " : "",
		 why ? ch->why->text : "");
}

/* One line per row shown: each version's result or status, each change's
 * ratio and verdict (painted) or why there is none, and its why. */
static void grid_rows(grid *g, const bv_table *t, const bv_notes *n, const size_t *sel, size_t nsel)
{
	size_t nv = t->nversions, cols = g->cols;
	size_t r = 1;
	for (size_t k = 0; k < t->nrows; k++) {
		const bv_row *row = &t->rows[k];
		if (!row_shown(row, nv))
			continue;
		char buf[2048];
		put(g, r, 0, row->bench);
		put(g, r, 1, row->op);
		put(g, r, 2, row->backend);
		put(g, r, 3, bv_size_format(row->size, buf, sizeof(buf)));
		for (size_t j = 0, c = 4; j < nsel; j++) {
			size_t i = sel[j];
			const bv_result *res = &row->results[i];
			if (res->status == BV_ST_OK)
				bv_format_result(t, res, buf, sizeof(buf));
			else
				snprintf(buf, sizeof(buf), "%s", bv_status_name(res->status));
			put(g, r, c++, buf);
			if (bv_table_is_base(t, i))
				continue;
			const bv_change *ch = &row->changes[i];
			ratio_cell(t, ch, buf, sizeof(buf));
			if (ch->valid)
				g->paint[r * cols + c] = verdict_colour(ch->verdict);
			put(g, r, c++, buf);
			/* --wide: the why is in the ratio's cell */
			if (t->wide)
				buf[0] = '\0';
			else
				bv_why_cell(n, row, k, i, buf, sizeof(buf));
			put(g, r, c++, buf);
		}
		r++;
	}
}

/* A why column no row fills (nothing counted, no notes) is left out. */
static int col_shown(const grid *g, size_t c)
{
	if (c == 0 && g->nobench)
		return 0;
	if (!g->why[c])
		return 1;
	for (size_t i = 1; i < g->rows; i++)
		if (g->cells[i][c] && *g->cells[i][c])
			return 1;
	return 0;
}

/* The width of the grid's lines. */
static size_t grid_width(const grid *g)
{
	size_t w = 0, n = 0;
	for (size_t c = 0; c < g->cols; c++)
		if (col_shown(g, c))
			w += g->width[c], n++;
	return w + (n ? 2 * (n - 1) : 0);
}

/* The grid written out, names and whys left-aligned and numbers
 * right-aligned (print 0: freed only). */
static void grid_print(grid *g, const bv_table *t, FILE *out, int print)
{
	size_t cols = g->cols;
	int *shown = bv_xcalloc(cols, sizeof(int));
	for (size_t c = 0; c < cols; c++)
		shown[c] = col_shown(g, c);
	for (size_t i = 0; i < g->rows; i++) {
		/* each line in memory first: an empty last column leaves no blanks */
		bv_buf lo = BV_BUF_INIT;
		for (size_t c = 0, first = 1; c < cols && print; c++) {
			if (!shown[c])
				continue;
			int left = c < 3 || g->why[c];
			const char *text = g->cells[i][c] ? g->cells[i][c] : "";
			const char *paint = t->colour ? g->paint[i * cols + c] : NULL;
			bv_buf_printf(&lo, "%s", first ? "" : "  ");
			first = 0;
			if (paint) /* the escapes take no column: padding is the text's */
				bv_buf_printf(&lo, "%*s\033[%sm%s\033[0m", (int)(g->width[c] - strlen(text)), "", paint, text);
			else
				bv_buf_printf(&lo, left ? "%-*s" : "%*s", (int)g->width[c], text);
		}
		char *line = bv_buf_detach(&lo);
		if (print) {
			size_t linelen = line ? strlen(line) : 0;
			while (linelen && line[linelen - 1] == ' ')
				line[--linelen] = '\0';
			fprintf(out, "%s\n", line ? line : "");
		}
		free(line);
		for (size_t c = 0; c < cols; c++)
			free(g->cells[i][c]);
		free(g->cells[i]);
	}
	free(shown);
	free(g->cells);
	free(g->paint);
	free(g->width);
	free(g->why);
}

/* The narrowest layout, when even one version's block is wider than the
 * terminal: a few lines per cell, each wrapped to the width. */
static void table_records(const bv_table *t, const bv_notes *n, FILE *out)
{
	size_t nv = t->nversions, w = t->width;
	for (size_t k = 0; k < t->nrows; k++) {
		const bv_row *r = &t->rows[k];
		if (!row_shown(r, nv))
			continue;
		char size[32], buf[2048], res[128], why[64];
		bv_buf b = BV_BUF_INIT;
		bv_size_format(r->size, size, sizeof(size));
		bv_buf_printf(&b, "%s %s %s %s ", r->bench, r->op, r->backend, size);
		for (size_t i = 0; i < nv; i++) {
			if (r->results[i].status == BV_ST_OK)
				bv_format_result(t, &r->results[i], res, sizeof(res));
			else
				snprintf(res, sizeof(res), "%s", bv_status_name(r->results[i].status));
			bv_buf_printf(&b, "%s %s %s", i ? "," : "", t->labels[i], res);
		}
		char *times = bv_buf_detach(&b);
		bv_wrap(out, times, w, 2);
		free(times);
		for (size_t i = 0; i < nv; i++) {
			if (bv_table_is_base(t, i))
				continue;
			ratio_cell(t, &r->changes[i], res, sizeof(res));
			bv_why_cell(n, r, k, i, why, sizeof(why));
			/* painted as in the table (the escapes only make a wrap come sooner) */
			const char *paint = t->colour && r->changes[i].valid ? verdict_colour(r->changes[i].verdict) : NULL;
			snprintf(buf, sizeof(buf), "  %s/%s: %s%s%s%s%s%s%s", t->labels[i], t->labels[bv_table_base(t, i)],
				 paint ? "\033[" : "", paint ? paint : "", paint ? "m" : "", res, paint ? "\033[0m" : "",
				 *why ? "  why: " : "", why);
			bv_wrap(out, buf, w, 4);
		}
	}
}

/* One version's block: its baseline and it. */
static grid block(const bv_table *t, const bv_notes *n, size_t v, int nobench)
{
	size_t sel[2] = {bv_table_base(t, v), v};
	grid b = grid_new(t, sel, 2);
	grid_header(&b, t, sel, 2);
	grid_rows(&b, t, n, sel, 2);
	b.nobench = nobench;
	return b;
}

/* Whether every compared version's block fits t->width. */
static int blocks_fit(const bv_table *t, const bv_notes *n, int nobench)
{
	int fit = 1;
	for (size_t i = 0; i < t->nversions; i++)
		if (!bv_table_is_base(t, i)) {
			grid b = block(t, n, i, nobench);
			fit &= grid_width(&b) <= t->width;
			grid_print(&b, t, NULL, 0);
		}
	return fit;
}

/* The blocks, a blank line between two. */
static void print_blocks(const bv_table *t, const bv_notes *n, int nobench, FILE *out)
{
	for (size_t i = 0, first = 1; i < t->nversions; i++)
		if (!bv_table_is_base(t, i)) {
			grid b = block(t, n, i, nobench);
			if (!first)
				fputc('\n', out);
			first = 0;
			grid_print(&b, t, out, 1);
		}
}

/* The table fitted to t->width: the whole table when it fits (or no width
 * is given), else one block per compared version (its baseline and it),
 * else a few lines per cell. */
static void table_body(const bv_table *t, const bv_notes *n, FILE *out)
{
	size_t nv = t->nversions;
	size_t *all = bv_xcalloc(nv + 1, sizeof(size_t));
	for (size_t i = 0; i < nv; i++)
		all[i] = i;
	grid g = grid_new(t, all, nv);
	grid_header(&g, t, all, nv);
	grid_rows(&g, t, n, all, nv);
	free(all);
	int fits = !t->width || grid_width(&g) <= t->width;
	grid_print(&g, t, out, fits);
	if (fits)
		return;
	/* every block must fit, or none is used; a table of one bench may
	 * leave its column out for that, saying the bench once above */
	const char *bench = NULL;
	for (size_t k = 0; k < t->nrows; k++)
		if (row_shown(&t->rows[k], nv))
			bench = !bench || !strcmp(bench, t->rows[k].bench) ? t->rows[k].bench : "";
	size_t compared = 0;
	for (size_t i = 0; i < nv; i++)
		compared += !bv_table_is_base(t, i);
	/* (no compared version: no block, the table is its baseline alone) */
	int with = compared && blocks_fit(t, n, 0);
	int without = compared && !with && bench && *bench && blocks_fit(t, n, 1);
	if (without)
		fprintf(out, "bench: %s\n", bench);
	if (with || without)
		print_blocks(t, n, without, out);
	else
		table_records(t, n, out);
}

/* The notes under the table, each wrapped to the width. */
static void table_notes(const bv_table *t, const bv_notes *n, FILE *out)
{
	for (size_t j = 0; j < n->n; j++) {
		char *line = bv_asprintf("[%zu] %s", j + 1, n->text[j]);
		bv_wrap(out, line, t->width, 4);
		free(line);
	}
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
			if (n && !bv_table_is_base(t, i)) {
				char *line = bv_asprintf("geomean %s/%s over %s: %.3f (%zu %s)", t->labels[i],
							 t->labels[bv_table_base(t, i)], group, gm, n,
							 bv_plural((long long)n, "cell", "cells"));
				bv_wrap(out, line, t->width, 2);
				free(line);
			}
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
	bv_buf b = BV_BUF_INIT;
	for (size_t i = 0; i < nfolds; i++)
		bv_buf_printf(&b, "not run: %zu %s cell%s on every version: %s\n", folds[i].count, folds[i].backend,
			      folds[i].count == 1 ? "" : "s", folds[i].text);
	bv_table_folds_free(folds, nfolds);
	for (size_t i = 0; i < t->nnotes; i++)
		bv_buf_printf(&b, "note: %s\n", t->notes[i]);
	if (t->method)
		bv_buf_printf(&b, "method: %s\n", t->method);
	if (t->control)
		bv_buf_printf(&b, "verdicts: %s\n", t->control);
	if (t->counts)
		bv_buf_printf(&b, "counts: %s\n", t->counts);
	if (t->vs.on) {
		char *bc = bv_backends_control(t), plural[80];
		bv_vs_plural(t, plural, sizeof(plural));
		bv_buf_printf(&b, "%s verdicts: %s\n", bv_vs_noun(t), bc);
		free(bc);
		if (t->nwins) {
			char *wc = bv_wins_control(t);
			bv_buf_printf(&b, "fastest %s: %s\n", plural, wc);
			free(wc);
		}
	}
	/* each line wrapped to the terminal's width, its rest indented */
	char *text = bv_buf_detach(&b);
	for (char *line = text, *nl; line && (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		bv_wrap(out, line, t->width, 2);
	}
	free(text);
}

int bv_export_table(const bv_table *t, FILE *out)
{
	bv_notes n;
	bv_notes_build(t, &n);
	/* Results differ between instruction sets: the header says which ran. */
	char simd[512];
	bv_format_simd(t, simd, sizeof(simd));
	if (*simd) {
		char *line = bv_asprintf("simd ISA: %s", simd);
		bv_wrap(out, line, t->width, 2);
		free(line);
	}
	table_body(t, &n, out);
	table_notes(t, &n, out);
	bv_notes_free(&n);
	table_geomeans(t, out);
	table_footer(t, out);
	return ferror(out) ? bv_fail(BV_ERUN, "cannot write the table") : 0;
}
