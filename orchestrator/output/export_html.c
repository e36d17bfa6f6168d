/*
 * export_html.c - the comparison as one self-contained HTML file: inline
 * CSS, a legend, one inline SVG chart per bench group (chart_svg.c, the
 * release report's chart: each non-baseline version's ratio per cell with
 * its 95 % interval as an error bar and as text, on a log scale with a line
 * at 1.0), the full table, the notes and the method line.
 *
 * The file is meant to be opened anywhere, attached to a PR or archived, so
 * it makes no request of any kind: no scripts, no external URLs, no fonts,
 * and a Content-Security-Policy that forbids loading anything should a
 * browser find something to load.  Every string taken from a log (labels,
 * reasons, names) is hostile input and goes through esc().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "benches.h"
#include "chart_svg.h"
#include "common.h"
#include "counts.h"
#include "export.h"
#include "html.h"
#include "merge.h"
#include "table.h"
#include "verdict.h"

static void esc(FILE *out, const char *s) { bv_html_esc(out, s); }

static const char css[] = "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}"
                          "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}"
                          "table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
                          "th,td{border:1px solid #ccc;padding:2px 8px;text-align:right}"
                          "th:nth-child(-n+3),td:nth-child(-n+3){text-align:left}"
                          "td.slower{color:#b3261e;font-weight:600}td.faster{color:#1b7f3b;font-weight:600}"
                          ".note{color:#8a5a00}.method{color:#555}"
                          "svg{display:block;margin:4px 0 2px}"
                          "svg text{font:11px system-ui,sans-serif;fill:#222}"
                          "svg .slower{stroke:#b3261e;fill:#b3261e}svg .faster{stroke:#1b7f3b;fill:#1b7f3b}"
                          "svg .same{stroke:#666;fill:#666}"
                          "td.inconclusive{color:#8a5a00}svg .inconclusive{stroke:#b08000;fill:#b08000}"
                          "td.unstable{color:#8250df}svg .unstable{stroke:#8250df;fill:#8250df}"
                          "svg text.slower,svg text.faster{font-weight:600}"
                          ".sw.slower{background:#b3261e}.sw.faster{background:#1b7f3b}"
                          ".sw.same{background:#666}"
                          ".sw.inconclusive{background:#b08000}.sw.unstable{background:#8250df}";

/* The group's chart (chart_svg.c): one row per (cell, later version) with a
 * ratio; cells without one (new, vanished, another machine) are in the
 * table below. */
static void chart(FILE *out, const bv_table *t, const char *bench)
{
	size_t n = 0, hidden = 0;
	bv_chart_row *rows = bv_xcalloc(t->nrows * t->nversions + 1, sizeof(*rows));
	for (size_t k = 0; k < t->nrows; k++) {
		const bv_row *r = &t->rows[k];
		if (strcmp(r->bench, bench))
			continue;
		hidden += r->hidden;
		for (size_t i = 1; i < t->nversions && !r->hidden; i++) {
			const bv_change *ch = &r->changes[i];
			if (!ch->valid)
				continue;
			char size[32], q[300], ratio[64];
			bv_size_format(r->size, size, sizeof(size));
			bv_format_qualifiers(t, ch, q, sizeof(q));
			bv_format_ratio(ch, ratio, sizeof(ratio));
			rows[n++] = (bv_chart_row){
			    .op = r->op,
			    .backend = r->backend,
			    .size = r->size,
			    /* with one later version every row is its; with more, say which */
			    .version = t->nversions > 2 ? t->labels[i] : NULL,
			    .cls = bv_verdict_name(ch->verdict),
			    .title = bv_asprintf("%s %s %s %s/%s: %s %s%s%s%s", r->op, r->backend, size,
			                         t->labels[i], t->labels[bv_table_base(t, i)], ratio, bv_verdict_name(ch->verdict), q,
			                         ch->why ? "; " : "", ch->why ? ch->why->text : ""),
			    .valid = 1,
			    .ratio = ch->ratio,
			    .lo = ch->ci_low,
			    .hi = ch->ci_high,
			    .interval = bv_change_has_interval(ch),
			};
		}
	}
	char *what = bv_asprintf("%s: ratio to the baseline with 95%% interval", bench);
	bv_chart c = {what, rows, n,
	              hidden ? "no change in this group (--only-changes)" : "no ratios in this group"};
	bv_chart_svg(out, &c);
	for (size_t i = 0; i < n; i++)
		free((char *)rows[i].title);
	free(rows), free(what);
}

/* The verdicts' colours (css), once before the first chart. */
static void legend(FILE *out, const bv_table *t)
{
	static const bv_chart_key keys[] = {{"slower", "slower"},
	                                    {"faster", "faster"},
	                                    {"same", "same"},
	                                    {"inconclusive", "inconclusive"},
	                                    {"unstable", "unstable (follows the machine's state)"}};
	char *lead = bv_asprintf("each later version's time / the time of %s, per cell", t->labels[0]);
	bv_chart_legend(out, lead, keys, sizeof(keys) / sizeof(keys[0]), NULL);
	free(lead);
}

static void table(FILE *out, const bv_table *t)
{
	size_t nv = t->nversions;
	bv_notes n;
	bv_notes_build(t, &n);
	fputs("<table>\n<thead><tr><th>bench</th><th>op</th><th>backend</th><th>size</th>", out);
	for (size_t i = 0; i < nv; i++) {
		fputs("<th>", out), esc(out, t->labels[i]), fputs("</th>", out);
		if (!bv_table_is_base(t, i)) {
			fputs("<th>", out), esc(out, t->labels[i]), fputc('/', out), esc(out, t->labels[bv_table_base(t, i)]);
			fputs(" [95% CI]</th>", out);
			if (bv_why_column(t, &n, i))
				fputs("<th>why</th>", out);
		}
	}
	fputs("</tr></thead>\n<tbody>\n", out);
	for (size_t k = 0; k < t->nrows; k++) {
		const bv_row *r = &t->rows[k];
		char buf[128];
		if (r->hidden)
			continue;
		fputs("<tr><td>", out), esc(out, r->bench);
		fputs("</td><td>", out), esc(out, r->op);
		fputs("</td><td>", out), esc(out, r->backend);
		fprintf(out, "</td><td>%s</td>", bv_size_format(r->size, buf, sizeof(buf)));
		for (size_t i = 0; i < nv; i++) {
			const bv_result *res = &r->results[i];
			fputs("<td", out);
			if (res->reason)
				fputs(" title=\"", out), esc(out, res->reason), fputc('"', out);
			fputc('>', out);
			if (res->status == BV_ST_OK)
				bv_format_result(t, res, buf, sizeof(buf)), esc(out, buf);
			else
				esc(out, bv_status_name(res->status));
			fputs("</td>", out);
			if (bv_table_is_base(t, i))
				continue;
			const bv_change *ch = &r->changes[i];
			if (ch->valid) {
				char q[300], ratio[64];
				if (t->wide)
					bv_format_qualifiers(t, ch, q, sizeof(q));
				else
					bv_format_short_qualifiers(t, ch, q, sizeof(q));
				bv_format_ratio(ch, ratio, sizeof(ratio));
				fprintf(out, "<td class=\"%s\">", bv_verdict_name(ch->verdict));
				esc(out, ratio), fprintf(out, " %s", bv_verdict_name(ch->verdict));
				esc(out, q);
				if (ch->why && t->wide)
					fputs("; ", out), esc(out, ch->why->text);
				fputs("</td>", out);
			} else
				fputs("<td>", out), esc(out, ch->none ? ch->none : "-"), fputs("</td>", out);
			if (bv_why_column(t, &n, i)) {
				char why[64];
				bv_why_cell(&n, r, k, i, why, sizeof(why));
				fputs("<td class=\"why\">", out), esc(out, why), fputs("</td>", out);
			}
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody>\n</table>\n", out);
	for (size_t j = 0; j < n.n; j++)
		fprintf(out, "<p class=\"note\">[%zu] ", j + 1), esc(out, n.text[j]), fputs("</p>\n", out);
	bv_notes_free(&n);
}

/* The document's head and the list of versions: the title names every
 * version, the style sheet is the page's and the charts'. */
static void html_head(FILE *out, const bv_table *t)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
	      "'unsafe-inline'\">\n"
	      "<title>bench-versions: ",
	      out);
	for (size_t i = 0; i < t->nversions; i++)
		fputs(i ? " vs " : "", out), esc(out, t->labels[i]);
	fprintf(out, "</title>\n<style>%s%s</style>\n</head>\n<body>\n<h1>bench-versions comparison</h1>\n",
	        css, bv_chart_css);
	fputs("<ul class=\"versions\">\n", out);
	for (size_t i = 0; i < t->nversions; i++) {
		fputs("<li>", out), esc(out, t->descriptions[i]);
		fputs(i ? "</li>\n" : " (baseline)</li>\n", out);
	}
	fputs("</ul>\n", out);
}

/* Per bench, once in the order the benches first appear: its heading, its
 * chart and its geomeans. */
static void html_benches(FILE *out, const bv_table *t)
{
	for (size_t k = 0; k < t->nrows; k++) {
		const char *bench = t->rows[k].bench;
		int seen = 0;
		for (size_t j = 0; j < k && !seen; j++)
			seen = !strcmp(t->rows[j].bench, bench);
		if (seen)
			continue;
		fputs("<h2>", out), esc(out, bench), fputs("</h2>\n", out);
		chart(out, t, bench);
		for (size_t i = 1; i < t->nversions; i++) {
			size_t n;
			double g = bv_table_geomean(t, i, bench, &n);
			if (!n || bv_table_is_base(t, i))
				continue;
			fputs("<p>geomean ", out), esc(out, t->labels[i]), fputc('/', out),
			    esc(out, t->labels[bv_table_base(t, i)]);
			fprintf(out, ": %.3f (%zu %s)</p>\n", g, n, bv_plural((long long)n, "cell", "cells"));
		}
	}
}

/* --vs's fastest-per-cell table; plural is the caption's noun, computed once
 * by html_vs. */
static void html_vs_wins(FILE *out, const bv_table *t, const char *plural)
{
	fputs("<h2 id=\"fastest\">Fastest ", out), esc(out, bv_vs_noun(t));
	fputs(" per cell</h2>\n<p class=\"method\">against the "
	      "next fastest, in the same processes</p>\n<table class=\"fastest\">\n<thead><tr>"
	      "<th>version</th><th>cell</th><th>fastest</th></tr></thead>\n<tbody>\n",
	      out);
	for (size_t i = 0; i < t->nwins; i++) {
		const bv_backend_win *w = &t->wins[i];
		const bv_row *r = &t->rows[w->row];
		char cell[512], text[512];
		bv_vs_group(t, r, cell, sizeof(cell));
		bv_backend_win_text(t, w, text, sizeof(text));
		int clear = w->ch.valid && w->ch.verdict == BV_FASTER;
		fputs("<tr><td>", out), esc(out, t->labels[w->version]), fputs("</td><td>", out);
		/* the cell's parts escaped, its slashes as they are */
		for (char *part = cell, *sl; part; part = sl ? sl + 1 : NULL) {
			if ((sl = strchr(part, '/')))
				*sl = '\0';
			esc(out, part);
			if (sl)
				fputc('/', out);
		}
		fprintf(out, "</td><td class=\"%s\">", clear ? "faster" : "inconclusive");
		esc(out, text), fputs("</td></tr>\n", out);
	}
	fputs("</tbody>\n</table>\n", out);
	char *wc = bv_wins_control(t);
	fputs("<p class=\"method\">fastest ", out), esc(out, plural), fputs(": ", out), esc(out, wc),
	    fputs("</p>\n", out);
	free(wc);
}

/* --vs: each variant against the reference in the same cell and process,
 * then the fastest per cell when there are wins. */
static void html_vs(FILE *out, const bv_table *t)
{
	char plural[80], ref[200], cap[80];
	bv_vs_plural(t, plural, sizeof(plural));
	bv_vs_ref(t, ref, sizeof(ref));
	snprintf(cap, sizeof(cap), "%s", plural);
	cap[0] = (char)(cap[0] >= 'a' && cap[0] <= 'z' ? cap[0] - 'a' + 'A' : cap[0]);
	fputs("<h2 id=\"backends\">", out), esc(out, cap), fputs(" vs ", out), esc(out, ref);
	fputs("</h2>\n<p class=\"method\">each ", out), esc(out, bv_vs_noun(t));
	fputs(t->vs.param[0] ? "'s time over the reference's, the cell otherwise the same, in the same process; "
	                       "below 1: faster"
	                     : "'s time over the reference's in the same cell and process; below 1: faster",
	      out);
	fputs("</p>\n<table class=\"backends\">\n<thead><tr><th>version</th>"
	      "<th>cell</th><th>ratio [95% CI], verdict</th></tr></thead>\n<tbody>\n",
	      out);
	for (size_t i = 0; i < t->nbackends; i++) {
		const bv_backend_cmp *b = &t->backends[i];
		const bv_row *r = &t->rows[b->row];
		char size[32], text[256];
		bv_size_format(r->size, size, sizeof(size));
		bv_backend_cell_text(t, b, text, sizeof(text));
		fputs("<tr><td>", out), esc(out, t->labels[b->version]), fputs("</td><td>", out);
		esc(out, r->bench), fputc('/', out), esc(out, r->op), fputc('/', out), esc(out, r->backend);
		fprintf(out, "/%s</td><td class=\"%s\">", size, b->ch.valid ? bv_verdict_name(b->ch.verdict) : "none");
		esc(out, text), fputs("</td></tr>\n", out);
	}
	fputs("</tbody>\n</table>\n", out);
	char *bc = bv_backends_control(t);
	fputs("<p class=\"method\">", out), esc(out, bv_vs_noun(t)), fputs(" verdicts: ", out), esc(out, bc),
	    fputs("</p>\n", out);
	free(bc);
	if (t->nwins)
		html_vs_wins(out, t, plural);
}

int bv_export_html(const bv_table *t, FILE *out)
{
	html_head(out, t);
	char simd[512]; /* results differ between instruction sets: say which ran */
	bv_format_simd(t, simd, sizeof(simd));
	if (*simd)
		fputs("<p class=\"simd\">simd ISA: ", out), esc(out, simd), fputs("</p>\n", out);
	for (size_t i = 0; i < t->nnotes; i++)
		fputs("<p class=\"note\">note: ", out), esc(out, t->notes[i]), fputs("</p>\n", out);
	if (t->nrows)
		legend(out, t);
	html_benches(out, t);
	fputs("<h2>table</h2>\n", out);
	table(out, t);
	if (t->method)
		fputs("<p class=\"method\">method: ", out), esc(out, t->method), fputs("</p>\n", out);
	if (t->control)
		fputs("<p class=\"method\">verdicts: ", out), esc(out, t->control), fputs("</p>\n", out);
	if (t->counts)
		fputs("<p class=\"method\">counts: ", out), esc(out, t->counts), fputs("</p>\n", out);
	if (t->vs.on)
		html_vs(out, t);
	fputs("</body>\n</html>\n", out);
	return ferror(out) ? bv_fail(BV_ERUN, "cannot write HTML") : 0;
}
