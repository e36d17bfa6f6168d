/*
 * export_md.c - the comparison as GitHub-flavoured Markdown, to paste into a
 * PR comment: the text table's rows and columns as a pipe table, then the
 * geomeans, the cells nobody could run, the notes and the method line.
 * Verdicts other than "same" are bold so a regression stands out.
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

/* Text from a log is hostile: every character Markdown or the HTML that
 * GitHub allows could act on is backslash-escaped (GFM escapes any ASCII
 * punctuation this way), so a label can neither end a table cell (`|`) nor
 * open a link, an image or a tag. */
void bv_md_esc(FILE *out, const char *s)
{
	for (const char *p = s ? s : ""; *p; p++) {
		if (strchr("\\`*_{}[]<>#|!~&$", *p))
			fputc('\\', out);
		fputc(*p == '\n' || *p == '\r' ? ' ' : *p, out);
	}
}

static void md(FILE *out, const char *s) { bv_md_esc(out, s); }

static void change_cell(FILE *out, const bv_table *t, const bv_row *r, size_t i)
{
	const bv_change *ch = &r->changes[i];
	if (!ch->valid) {
		md(out, ch->none ? ch->none : "-");
		return;
	}
	int bold = ch->verdict != BV_SAME;
	char ratio[64];
	bv_format_ratio(ch, ratio, sizeof(ratio));
	md(out, ratio);
	fprintf(out, " %s%s%s", bold ? "**" : "", bv_verdict_name(ch->verdict), bold ? "**" : "");
	char q[300];
	if (!t->wide) {
		bv_format_short_qualifiers(t, ch, q, sizeof(q));
		md(out, q);
		return;
	}
	bv_format_qualifiers(t, ch, q, sizeof(q));
	md(out, q);
	if (ch->why)
		fputs("; ", out), md(out, ch->why->text);
}

/* The instruction set line and the table's two header lines: the columns
 * depend on which versions are baselines, so they are written once here. */
static void md_header(const bv_table *t, const bv_notes *n, FILE *out)
{
	size_t nv = t->nversions;
	/* Results differ between instruction sets: say which ran, above the table. */
	char simd[512];
	bv_format_simd(t, simd, sizeof(simd));
	if (*simd)
		fputs("_simd ISA:_ ", out), md(out, simd), fputs("\n\n", out);
	fputs("| bench | op | backend | size |", out);
	for (size_t i = 0; i < nv; i++) {
		fputc(' ', out), md(out, t->labels[i]), fputs(" |", out);
		if (!bv_table_is_base(t, i)) {
			fputc(' ', out), md(out, t->labels[i]), fputc('/', out), md(out, t->labels[bv_table_base(t, i)]);
			fputs(" \\[95% CI\\] |", out);
			if (bv_why_column(t, n, i))
				fputs(" why |", out);
		}
	}
	fputs("\n|---|---|---|--:|", out);
	for (size_t i = 0; i < nv; i++)
		fputs(bv_table_is_base(t, i) ? "--:|" : bv_why_column(t, n, i) ? "--:|--:|---|" : "--:|--:|", out);
	fputc('\n', out);
}

/* One table line per row that ran and is not hidden: each version's result
 * or status, and its change against its baseline. */
static void md_rows(const bv_table *t, const bv_notes *n, FILE *out)
{
	size_t nv = t->nversions;
	for (size_t k = 0; k < t->nrows; k++) {
		const bv_row *r = &t->rows[k];
		if (!bv_row_ran(r, nv) || r->hidden)
			continue;
		char buf[128];
		fputs("| ", out), md(out, r->bench);
		fputs(" | ", out), md(out, r->op);
		fputs(" | ", out), md(out, r->backend);
		fprintf(out, " | %s |", bv_size_format(r->size, buf, sizeof(buf)));
		for (size_t i = 0; i < nv; i++) {
			const bv_result *res = &r->results[i];
			fputc(' ', out);
			if (res->status == BV_ST_OK) {
				bv_format_result(t, res, buf, sizeof(buf));
				md(out, buf);
			} else
				md(out, bv_status_name(res->status));
			fputs(" |", out);
			if (!bv_table_is_base(t, i)) {
				fputc(' ', out), change_cell(out, t, r, i), fputs(" |", out);
			}
			if (!bv_table_is_base(t, i) && bv_why_column(t, n, i)) {
				char why[64];
				bv_why_cell(n, r, k, i, why, sizeof(why));
				fputc(' ', out), md(out, why), fputs(" |", out);
			}
		}
		fputc('\n', out);
	}
	fputc('\n', out);
	/* the details a narrow table moves out of its cells, one numbered
	 * line each (a list, so GitHub keeps them apart; `*`, so it is not
	 * one list with the summary's `-` below) */
	for (size_t j = 0; j < n->n; j++) {
		fprintf(out, "* \\[%zu\\] ", j + 1), md(out, n->text[j]), fputc('\n', out);
		if (j + 1 == n->n)
			fputc('\n', out);
	}
}

/* The list under the table: geomeans per bench, the folded rows nobody
 * could run, and the notes.  One list, so GitHub keeps the lines apart. */
static void md_summary(const bv_table *t, FILE *out)
{
	size_t nv = t->nversions;
	for (size_t i = 1; i < nv; i++)
		for (size_t k = 0; k < t->nrows; k++) {
			if (k > 0 && !strcmp(t->rows[k - 1].bench, t->rows[k].bench))
				continue;
			size_t n;
			double g = bv_table_geomean(t, i, t->rows[k].bench, &n);
			if (!n || bv_table_is_base(t, i))
				continue;
			fputs("- geomean ", out), md(out, t->labels[i]), fputc('/', out),
			    md(out, t->labels[bv_table_base(t, i)]);
			fputs(" over ", out), md(out, t->rows[k].bench);
			fprintf(out, ": %.3f (%zu %s)\n", g, n, bv_plural((long long)n, "cell", "cells"));
		}
	/* Rows nobody could run, folded as in the text table: one line per
	 * backend and reason. */
	bv_fold *folds;
	size_t nfolds = bv_table_folds(t, &folds);
	for (size_t i = 0; i < nfolds; i++) {
		fprintf(out, "- not run: %zu ", folds[i].count), md(out, folds[i].backend);
		fprintf(out, " cell%s on every version: ", folds[i].count == 1 ? "" : "s");
		md(out, folds[i].text), fputc('\n', out);
	}
	bv_table_folds_free(folds, nfolds);
	for (size_t i = 0; i < t->nnotes; i++)
		fputs("- **note:** ", out), md(out, t->notes[i]), fputc('\n', out);
	if (t->method)
		fputs("\n_method:_ ", out), md(out, t->method), fputc('\n', out);
	if (t->control)
		fputs("\n_verdicts:_ ", out), md(out, t->control), fputc('\n', out);
	if (t->counts)
		fputs("\n_counts:_ ", out), md(out, t->counts), fputc('\n', out);
}

/* --vs's fastest-per-cell table, under the comparison table; plural is the
 * heading's noun (bv_vs_plural), computed once by the caller. */
static void md_vs_wins(const bv_table *t, const char *plural, FILE *out)
{
	fputs("\n**Fastest ", out), md(out, bv_vs_noun(t));
	fputs(" per cell** (against the next fastest, in the same processes)\n\n"
	      "| version | cell | fastest |\n|---|---|---|\n",
	      out);
	for (size_t i = 0; i < t->nwins; i++) {
		const bv_backend_win *w = &t->wins[i];
		const bv_row *r = &t->rows[w->row];
		char cell[512], text[512];
		bv_vs_group(t, r, cell, sizeof(cell));
		bv_backend_win_text(t, w, text, sizeof(text));
		fputs("| ", out), md(out, t->labels[w->version]), fputs(" | ", out);
		md(out, cell), fputs(" | ", out), md(out, text), fputs(" |\n", out);
	}
	char *wc = bv_wins_control(t);
	fputs("\n_fastest ", out), md(out, plural), fputs(":_ ", out), md(out, wc), fputc('\n', out);
	free(wc);
}

/* --vs: each variant against the reference in the same cell and process,
 * then the fastest per cell when there are wins. */
static void md_vs(const bv_table *t, FILE *out)
{
	char plural[80], ref[200], cap[80];
	bv_vs_plural(t, plural, sizeof(plural));
	bv_vs_ref(t, ref, sizeof(ref));
	snprintf(cap, sizeof(cap), "%s", plural);
	cap[0] = (char)(cap[0] >= 'a' && cap[0] <= 'z' ? cap[0] - 'a' + 'A' : cap[0]);
	fputs("\n**", out), md(out, cap), fputs(" vs ", out), md(out, ref);
	fputs("** (each ", out), md(out, bv_vs_noun(t));
	fputs(t->vs.param[0] ? "'s time over the reference's, the cell otherwise the same, in the same process; "
	                       "below 1: faster)\n\n"
	                     : "'s time over the reference's in the same cell and process; below 1: faster)\n\n",
	      out);
	fputs("| version | cell | ratio [95% CI], verdict |\n|---|---|---|\n", out);
	for (size_t i = 0; i < t->nbackends; i++) {
		const bv_backend_cmp *b = &t->backends[i];
		const bv_row *r = &t->rows[b->row];
		char size[32], text[256];
		bv_size_format(r->size, size, sizeof(size));
		bv_backend_cell_text(t, b, text, sizeof(text));
		fputs("| ", out), md(out, t->labels[b->version]), fputs(" | ", out);
		md(out, r->bench), fputc('/', out), md(out, r->op), fputc('/', out), md(out, r->backend);
		fprintf(out, "/%s | ", size), md(out, text), fputs(" |\n", out);
	}
	char *bc = bv_backends_control(t);
	fputs("\n_", out), md(out, bv_vs_noun(t)), fputs(" verdicts:_ ", out), md(out, bc), fputc('\n', out);
	free(bc);
	if (t->nwins)
		md_vs_wins(t, plural, out);
}

int bv_export_markdown(const bv_table *t, FILE *out)
{
	bv_notes n;
	bv_notes_build(t, &n);
	md_header(t, &n, out);
	md_rows(t, &n, out);
	bv_notes_free(&n);
	md_summary(t, out);
	if (t->vs.on)
		md_vs(t, out);
	return ferror(out) ? bv_fail(BV_ERUN, "cannot write Markdown") : 0;
}
