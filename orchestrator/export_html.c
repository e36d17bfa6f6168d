/*
 * export_html.c - the comparison as one self-contained HTML file: inline
 * CSS, one inline SVG chart per bench group (each non-baseline version's
 * ratio per cell with its 95 % interval as an error bar, on a log scale
 * with a line at 1.0), the full table, the notes and the method line.
 *
 * The file is meant to be opened anywhere, attached to a PR or archived, so
 * it makes no request of any kind: no scripts, no external URLs, no fonts,
 * and a Content-Security-Policy that forbids loading anything should a
 * browser find something to load.  Every string taken from a log (labels,
 * reasons, names) is hostile input and goes through esc().
 */
#include <math.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "stages.h"

/* Escapes for element text and quoted attribute values alike.  Anything but
 * letters, digits, UTF-8 bytes and a few harmless marks becomes a numeric
 * character reference, so no text can close a tag or an attribute, and no
 * "scheme://" or "name=" survives as such even in the raw file. */
void bv_html_esc(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p < 0x20 || *p == 0x7f)
			fputc(' ', out);
		else if (*p >= 0x80 || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		         (*p >= 'A' && *p <= 'Z') || strchr(" .,-_()[]%+", *p))
			fputc(*p, out);
		else
			fprintf(out, "&#%d;", *p);
	}
}

static void esc(FILE *out, const char *s) { bv_html_esc(out, s); }

static const char css[] = "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}"
                          "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}"
                          "table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
                          "th,td{border:1px solid #ccc;padding:2px 8px;text-align:right}"
                          "th:nth-child(-n+3),td:nth-child(-n+3){text-align:left}"
                          "td.slower{color:#b3261e;font-weight:600}td.faster{color:#1b7f3b;font-weight:600}"
                          ".note{color:#8a5a00}.method{color:#555}"
                          "svg text{font:11px system-ui,sans-serif;fill:#222}"
                          "svg .axis{stroke:#999}svg .one{stroke:#222;stroke-dasharray:4 3}"
                          "svg .slower{stroke:#b3261e;fill:#b3261e}svg .faster{stroke:#1b7f3b;fill:#1b7f3b}"
                          "svg .same{stroke:#666;fill:#666}"
                          "td.inconclusive{color:#8a5a00}svg .inconclusive{stroke:#b08000;fill:#b08000}";

/* Chart geometry: labels on the left, the ratio axis (log scale) right. */
enum { LABEL_W = 300, PLOT_W = 460, ROW_H = 18, TOP = 28, PAD = 12 };

typedef struct scale {
	double lo, hi; /* ratios at the plot's edges */
} scale;

static double xpos(const scale *s, double v)
{
	if (!(v > s->lo))
		v = s->lo;
	if (!(v < s->hi))
		v = s->hi;
	return LABEL_W + (log(v) - log(s->lo)) / (log(s->hi) - log(s->lo)) * PLOT_W;
}

static void chart(FILE *out, const bv_table *t, const char *bench)
{
	size_t n = 0, hidden = 0;
	scale s = {1 / 1.25, 1.25};
	for (size_t k = 0; k < t->nrows; k++)
		hidden += t->rows[k].hidden && !strcmp(t->rows[k].bench, bench);
	for (size_t k = 0; k < t->nrows; k++)
		for (size_t i = 1; i < t->nversions; i++) {
			const bv_change *ch = &t->rows[k].changes[i];
			if (strcmp(t->rows[k].bench, bench) || !ch->valid || t->rows[k].hidden)
				continue;
			n++;
			if (ch->ci_low > 0 && ch->ci_low < s.lo)
				s.lo = ch->ci_low;
			if (isfinite(ch->ci_high) && ch->ci_high > s.hi)
				s.hi = ch->ci_high;
			if (ch->ratio > 0 && ch->ratio < s.lo)
				s.lo = ch->ratio;
			if (ch->ratio > s.hi)
				s.hi = ch->ratio;
		}
	/* A wild interval must not squash every other bar to a dot. */
	if (s.lo < 1e-3)
		s.lo = 1e-3;
	if (s.hi > 1e3)
		s.hi = 1e3;
	s.lo /= 1.05, s.hi *= 1.05;
	int h = TOP + (int)(n ? n : 1) * ROW_H + PAD, w = LABEL_W + PLOT_W + PAD;
	fprintf(out, "<svg class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">", w,
	        h, w, h);
	fputs("<title>", out), esc(out, bench),
	    fputs(": ratio to the baseline with 95% interval</title>\n", out);
	/* ticks on the 1-2-5 series, thinned to powers of ten on wide axes */
	static const double steps[] = {1, 2, 5};
	int wide = s.hi / s.lo > 200;
	for (double dec = 1e-3; dec <= 1e3; dec *= 10)
		for (int j = 0; j < 3; j++) {
			double v = dec * steps[j];
			if (v < s.lo || v > s.hi || (wide && j))
				continue;
			double x = xpos(&s, v);
			fprintf(out, "<line class=\"axis\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x,
			        TOP - 6, x, h - PAD);
			fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", x,
			        TOP - 10, v);
		}
	double one = xpos(&s, 1.0);
	fprintf(out, "<line class=\"one\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", one, TOP - 6, one,
	        h - PAD);
	if (!n)
		fprintf(out, "<text x=\"%d\" y=\"%d\">%s</text>", PAD, TOP + ROW_H - 5,
			hidden ? "no change in this group (--only-changes)" : "no ratios in this group");
	size_t row = 0;
	for (size_t k = 0; k < t->nrows; k++)
		for (size_t i = 1; i < t->nversions; i++) {
			const bv_row *r = &t->rows[k];
			const bv_change *ch = &r->changes[i];
			if (strcmp(r->bench, bench) || !ch->valid || r->hidden)
				continue;
			char size[32];
			bv_size_format(r->size, size, sizeof(size));
			double y = TOP + (double)row++ * ROW_H + ROW_H / 2.0;
			double x0 = xpos(&s, ch->ci_low), x1 = xpos(&s, ch->ci_high), x = xpos(&s, ch->ratio);
			fprintf(out, "<g class=\"%s\"><title>", ch->verdict);
			esc(out, r->op), fputc(' ', out), esc(out, r->backend), fprintf(out, " %s ", size);
			esc(out, t->labels[i]), fputc('/', out), esc(out, t->labels[0]);
			char q[96], ratio[64];
			bv_format_qualifiers(t, ch, q, sizeof(q));
			bv_format_ratio(ch, ratio, sizeof(ratio));
			fputs(": ", out), esc(out, ratio), fprintf(out, " %s", ch->verdict);
			esc(out, q), fputs("</title>", out);
			fprintf(out, "<text x=\"%d\" y=\"%.1f\">", PAD, y + 4);
			esc(out, r->op), fputc(' ', out), esc(out, r->backend), fprintf(out, " %s  ", size);
			esc(out, t->labels[i]);
			fputs("</text>", out);
			fprintf(out,
			        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke-width=\"2\"/>",
			        x0, y, x1, y);
			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x0, y - 4, x0,
			        y + 4);
			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x1, y - 4, x1,
			        y + 4);
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\"/></g>\n", x, y);
		}
	fputs("</svg>\n", out);
}

static void table(FILE *out, const bv_table *t)
{
	size_t nv = t->nversions;
	fputs("<table>\n<thead><tr><th>bench</th><th>op</th><th>backend</th><th>size</th>", out);
	for (size_t i = 0; i < nv; i++) {
		fputs("<th>", out), esc(out, t->labels[i]), fputs("</th>", out);
		if (i > 0) {
			fputs("<th>", out), esc(out, t->labels[i]), fputc('/', out), esc(out, t->labels[0]);
			fputs(" [95% CI]</th>", out);
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
			if (!strcmp(res->status, "ok"))
				bv_format_result(t, res, buf, sizeof(buf)), esc(out, buf);
			else
				esc(out, res->status);
			fputs("</td>", out);
			if (i == 0)
				continue;
			const bv_change *ch = &r->changes[i];
			if (ch->valid) {
				char q[96], ratio[64];
				bv_format_qualifiers(t, ch, q, sizeof(q));
				bv_format_ratio(ch, ratio, sizeof(ratio));
				fprintf(out, "<td class=\"%s\">", ch->verdict);
				esc(out, ratio), fprintf(out, " %s", ch->verdict);
				esc(out, q), fputs("</td>", out);
			} else
				fputs("<td>", out), esc(out, ch->none ? ch->none : "-"), fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody>\n</table>\n", out);
}

int bv_export_html(const bv_table *t, FILE *out)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
	      "'unsafe-inline'\">\n"
	      "<title>bench-versions: ",
	      out);
	for (size_t i = 0; i < t->nversions; i++)
		fputs(i ? " vs " : "", out), esc(out, t->labels[i]);
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>bench-versions comparison</h1>\n",
	        css);
	fputs("<ul class=\"versions\">\n", out);
	for (size_t i = 0; i < t->nversions; i++) {
		fputs("<li>", out), esc(out, t->descriptions[i]);
		fputs(i ? "</li>\n" : " (baseline)</li>\n", out);
	}
	fputs("</ul>\n", out);
	char simd[512]; /* results differ between instruction sets: say which ran */
	bv_format_simd(t, simd, sizeof(simd));
	if (*simd)
		fputs("<p class=\"simd\">simd ISA: ", out), esc(out, simd), fputs("</p>\n", out);
	for (size_t i = 0; i < t->nnotes; i++)
		fputs("<p class=\"note\">note: ", out), esc(out, t->notes[i]), fputs("</p>\n", out);
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
			if (!n)
				continue;
			fputs("<p>geomean ", out), esc(out, t->labels[i]), fputc('/', out),
			    esc(out, t->labels[0]);
			fprintf(out, ": %.3f (%zu %s)</p>\n", g, n, bv_plural((long long)n, "cell", "cells"));
		}
	}
	fputs("<h2>table</h2>\n", out);
	table(out, t);
	if (t->method)
		fputs("<p class=\"method\">method: ", out), esc(out, t->method), fputs("</p>\n", out);
	if (t->control)
		fputs("<p class=\"method\">verdicts: ", out), esc(out, t->control), fputs("</p>\n", out);
	fputs("</body>\n</html>\n", out);
	return ferror(out) ? bv_fail(BV_ERUN, "cannot write HTML") : 0;
}
