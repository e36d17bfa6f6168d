/*
 * history_html.c - `bench-versions history --format html`
 * (docs/cli/history.md): the timeline as one self-contained page, one
 * small chart per cell.
 *
 * chart_svg.c draws a comparison's cells as horizontal bars, one row per
 * cell; a timeline is another shape (versions along x, the chain up y), so
 * it is drawn here.  Each chart: x the versions in series order, evenly
 * spaced (labels rotated, thinned when there are many); y the chained ratio
 * to the first version on a log scale (a 2x slowdown and a 2x speedup are
 * the same distance from 1, and the chain is a product); the chain's
 * interval as a shaded band, the chain as a line with a point per version,
 * each change point a vertical marker at the version where it happened
 * (a gradual one a shaded span over its versions) labelled with its size
 * and direction.  No script and nothing loaded: the Content-Security-Policy
 * forbids it, as report_html.c's does.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "common.h"
#include "history.h"
#include "history_format.h"
#include "history_html.h"
#include "html.h"

enum {
	LEFT = 56, /* the y axis' tick labels */
	RIGHT = 16,
	TOP = 36, /* the change points' labels (two rows, staggered) */
	PLOT_H = 150,
	LABEL_H = 78,  /* the rotated version labels */
	STEP_MIN = 18, /* a rotated 11px label needs about this much across */
	PLOT_W_MIN = 360,
	PLOT_W_MAX = 900,
	LABEL_CHARS = 14
};

static const char css[] =
    "body{font:14px system-ui,sans-serif;color:#1f2328;margin:0;background:#fff}"
    "main{max-width:1000px;margin:0 auto;padding:16px}"
    "h1{font-size:20px;margin:0 0 8px}h2{font-size:15px;margin:22px 0 4px;font-family:ui-monospace,monospace}"
    ".meta{color:#57606a;margin:2px 0}.meta b{color:#1f2328;font-weight:600}"
    "ul.changes{margin:4px 0 0;padding-left:20px}ul.changes li{margin:2px 0}"
    "code{font:12px ui-monospace,monospace;background:#f6f8fa;padding:1px 4px;border-radius:3px}"
    ".none{color:#57606a}.slower{color:#cf222e}.faster{color:#1a7f37}.note{color:#57606a;font-size:13px}"
    "svg{display:block;overflow:visible}svg text{font:11px system-ui,sans-serif;fill:#57606a}"
    "svg .axis{stroke:#afb8c1}svg .grid{stroke:#eaeef2}"
    "svg .one{stroke:#1f2328;stroke-width:1;stroke-dasharray:5 3}"
    "svg .band{fill:#0969da;fill-opacity:.15;stroke:none}"
    "svg .chain{fill:none;stroke:#0969da;stroke-width:1.8}svg .pt{fill:#0969da}"
    "svg .cp{stroke-width:1.5;stroke-dasharray:4 2}svg .cp.slower{stroke:#cf222e}svg "
    ".cp.faster{stroke:#1a7f37}"
    "svg .span.slower{fill:#cf222e;fill-opacity:.10}svg .span.faster{fill:#1a7f37;fill-opacity:.10}"
    "svg text.cpl{font-weight:600}svg text.cpl.slower{fill:#cf222e}svg text.cpl.faster{fill:#1a7f37}";

static void esc(FILE *out, const char *s)
{
	bv_html_esc(out, s ? s : "");
}

/* The first n characters of s (not bytes: a UTF-8 continuation byte does
 * not count), escaped, with "…" when cut. */
static void esc_cut(FILE *out, const char *s, size_t n)
{
	char buf[256];
	size_t i = 0, chars = 0;
	for (; s[i] && i + 1 < sizeof(buf); i++) {
		if (((unsigned char)s[i] & 0xC0) != 0x80 && chars++ == n)
			break;
		buf[i] = s[i];
	}
	buf[i] = 0;
	esc(out, buf);
	if (s[i])
		fputs("\u2026", out);
}

typedef struct geom {
	double lo, hi; /* log ratios at the plot's bottom and top */
	double step;   /* pixels between versions */
	int plot_w;
	size_t nv;
} geom;

static double gx(const geom *g, size_t j)
{
	return LEFT + (g->nv > 1 ? g->step * (double)j : g->plot_w / 2.0);
}

static double gy(const geom *g, double r)
{
	double v = log(r);
	if (v < g->lo)
		v = g->lo;
	if (v > g->hi)
		v = g->hi;
	return TOP + (g->hi - v) / (g->hi - g->lo) * PLOT_H;
}

static int ok(double r)
{
	return isfinite(r) && r > 0;
}

/* The band between clo and chi, one polygon per run of versions that have
 * both (a step without an interval leaves the rest of the chain without). */
static void band(FILE *out, const geom *g, const bv_history_html_cell *c)
{
	size_t j = 0;
	while (j < g->nv) {
		if (!ok(c->clo[j]) || !ok(c->chi[j])) {
			j++;
			continue;
		}
		size_t k = j;
		while (k < g->nv && ok(c->clo[k]) && ok(c->chi[k]))
			k++;
		if (k - j >= 2) {
			fputs("<polygon class=\"band\" points=\"", out);
			for (size_t i = j; i < k; i++)
				fprintf(out, "%.1f,%.1f ", gx(g, i), gy(g, c->chi[i]));
			for (size_t i = k; i-- > j;)
				fprintf(out, "%.1f,%.1f ", gx(g, i), gy(g, c->clo[i]));
			fputs("\"/>\n", out);
		}
		j = k;
	}
}

/* "1.52x slower" / "1.25x faster": a change's size as the factor it made. */
static void change_words(const bv_change_point *cp, char *buf, size_t len)
{
	double f = cp->direction == BV_FASTER ? 1 / cp->ratio : cp->ratio;
	snprintf(buf, len, "%.2fx %s", f, bv_verdict_name(cp->direction));
}

/* The versions whose label is always drawn: the two ends, the version
 * where a change happened, and where a gradual one began. */
static int forced(const bv_history_html_view *v, const bv_history_html_cell *c, size_t j)
{
	if (j == 0 || j + 1 == v->nv)
		return 1;
	for (size_t k = 0; k < c->ncps; k++)
		if (c->cps[k].last + 1 == j || (c->cps[k].first == j && c->cps[k].last > c->cps[k].first))
			return 1;
	return 0;
}

/* Round tick values within [a, b] (0 < a < b), at most max of them. */
static size_t nice_ticks(double a, double b, double *t, size_t max)
{
	size_t n = 0;
	if (b / a > 10) {
		for (double d = pow(10, floor(log10(a))); d <= b && n < max; d *= 10)
			for (int k = 0; k < 3 && n < max; k++) {
				double v = d * (k == 0 ? 1 : k == 1 ? 2 : 5);
				if (v >= a && v <= b)
					t[n++] = v;
			}
		return n;
	}
	/* the largest step of 1, 2 or 5 times a power of ten that gives at
	 * least three ticks (then at most about seven) */
	static const double m[] = {5, 2, 1, 0.5, 0.2, 0.1};
	double span = b - a, e = pow(10, floor(log10(span))), step = e * 0.1;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (span / (m[i] * e) >= 3) {
			step = m[i] * e;
			break;
		}
	for (double v = ceil(a / step) * step; v <= b + step * 1e-9 && n < max; v += step)
		t[n++] = round(v / step) * step;
	return n;
}

/* The y range: every finite value, and 1, with a little room; at least
 * +-5 %.  The plot as wide as the versions ask, within its bounds. */
static void chart_geom(const bv_history_html_view *v, const bv_history_html_cell *c, geom *g)
{
	double lo = 0, hi = 0;
	for (size_t j = 0; j < v->nv; j++) {
		const double xs[3] = {c->chain[j], c->clo[j], c->chi[j]};
		for (int k = 0; k < 3; k++)
			if (ok(xs[k])) {
				lo = fmin(lo, log(xs[k]));
				hi = fmax(hi, log(xs[k]));
			}
	}
	double pad = fmax((hi - lo) * 0.08, 0.01);
	g->lo = fmin(lo - pad, log(0.95));
	g->hi = fmax(hi + pad, log(1.05));
	g->plot_w = (int)v->nv * 40;
	if (g->plot_w < PLOT_W_MIN)
		g->plot_w = PLOT_W_MIN;
	if (g->plot_w > PLOT_W_MAX)
		g->plot_w = PLOT_W_MAX;
	g->step = v->nv > 1 ? (double)g->plot_w / (double)(v->nv - 1) : 0;
}

/* y ticks at round ratios: a 1-2-5 step over the range (0.9 1.0 1.1,
 * 1 1.5 2), or 1-2-5 ratios themselves when the range spans more than a
 * factor of ten; then the line at 1 and the x axis. */
static void y_axis(FILE *out, const geom *g)
{
	double a = exp(g->lo), b = exp(g->hi), ticks[16];
	size_t nt = nice_ticks(a, b, ticks, 16);
	for (size_t t = 0; t < nt; t++) {
		double y = gy(g, ticks[t]);
		fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", LEFT, y,
		        LEFT + g->plot_w, y);
		fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", LEFT - 6, y + 4,
		        ticks[t]);
	}
	double y1 = gy(g, 1.0);
	fprintf(out, "<line class=\"one\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", LEFT, y1,
	        LEFT + g->plot_w, y1);
	fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", LEFT, TOP + PLOT_H,
	        LEFT + g->plot_w, TOP + PLOT_H);
}

/* Change points, under the data: a span for a gradual one, a marker at
 * the version where the level changed, its size above the plot. */
static void change_points(FILE *out, const bv_history_html_view *v, const bv_history_html_cell *c,
			  const geom *g)
{
	for (size_t k = 0; k < c->ncps; k++) {
		const bv_change_point *cp = &c->cps[k];
		if (cp->last + 1 >= v->nv)
			continue;
		const char *dir = bv_verdict_name(cp->direction);
		double xa = gx(g, cp->first), xb = gx(g, cp->last + 1);
		if (cp->last > cp->first)
			fprintf(
			    out,
			    "<rect class=\"span %s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"/>\n",
			    dir, xa, TOP, xb - xa, PLOT_H);
		char words[64];
		change_words(cp, words, sizeof(words));
		fprintf(out, "<line class=\"cp %s\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", dir, xb,
		        TOP - 4, xb, TOP + PLOT_H);
		const char *anchor = xb > LEFT + g->plot_w - 60 ? "end" : xb < LEFT + 60 ? "start" : "middle";
		fprintf(out, "<text class=\"cpl %s\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s<title>", dir,
		        xb, TOP - 6 - (int)(k % 2) * 14, anchor, words);
		esc(out, c->lines[k]);
		fputs("</title></text>\n", out);
	}
}

/* The chain, one polyline per run of finite values, and a point per
 * version with its value (and interval) as its title. */
static void chain(FILE *out, const bv_history_html_view *v, const bv_history_html_cell *c, const geom *g)
{
	for (size_t j = 0; j < v->nv;) {
		if (!ok(c->chain[j])) {
			j++;
			continue;
		}
		fputs("<polyline class=\"chain\" points=\"", out);
		for (; j < v->nv && ok(c->chain[j]); j++)
			fprintf(out, "%.1f,%.1f ", gx(g, j), gy(g, c->chain[j]));
		fputs("\"/>\n", out);
	}
	for (size_t j = 0; j < v->nv; j++) {
		if (!ok(c->chain[j]))
			continue;
		fprintf(out, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>", gx(g, j),
		        gy(g, c->chain[j]));
		esc(out, v->titles[j]);
		fprintf(out, ": %.3f", c->chain[j]);
		if (ok(c->clo[j]) && ok(c->chi[j]))
			fprintf(out, " [%.3f, %.3f]", c->clo[j], c->chi[j]);
		fputs("</title></circle>\n", out);
	}
}

/* x labels, rotated; every k-th when the versions are close, and always
 * the ends and the versions of a change (a regular label too close to one
 * of those is left out, not drawn over it). */
static void x_labels(FILE *out, const bv_history_html_view *v, const bv_history_html_cell *c, const geom *g)
{
	size_t every = g->step >= STEP_MIN || v->nv < 2 ? 1 : (size_t)ceil(STEP_MIN / g->step);
	size_t near = every > 1 ? every - 1 : 0; /* versions closer than STEP_MIN */
	for (size_t j = 0; j < v->nv; j++) {
		int show = forced(v, c, j);
		if (!show && j % every == 0) {
			show = 1;
			for (size_t f = j > near ? j - near : 0; f <= j + near && f < v->nv; f++)
				if (f != j && forced(v, c, f))
					show = 0;
		}
		if (!show)
			continue;
		double x = gx(g, j);
		int y = TOP + PLOT_H + 12;
		fprintf(out,
		        "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\" transform=\"rotate(-40 %.1f %d)\">", x,
		        y, x, y);
		esc_cut(out, v->labels[j], LABEL_CHARS);
		fputs("<title>", out), esc(out, v->titles[j]), fputs("</title></text>\n", out);
	}
}

static void chart(FILE *out, const bv_history_html_view *v, const bv_history_html_cell *c)
{
	geom g = {.nv = v->nv};
	chart_geom(v, c, &g);
	int w = LEFT + g.plot_w + RIGHT, hgt = TOP + PLOT_H + LABEL_H;
	fprintf(out,
	        "<svg class=\"timeline\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n", w,
	        hgt, w, hgt);
	fputs("<title>", out), esc(out, c->key),
	    fputs(": each version's time over the first's</title>\n", out);
	y_axis(out, &g);
	change_points(out, v, c, &g);
	band(out, &g, c);
	chain(out, v, c, &g);
	x_labels(out, v, c, &g);
	fputs("</svg>\n", out);
}

int bv_history_html(const bv_history_html_view *v, FILE *out)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
	      "'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>history: ",
	      out);
	esc(out, v->series);
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n", css);
	fputs("<h1>bench-versions history: ", out), esc(out, v->series), fputs("</h1>\n", out);
	fprintf(out, "<p class=\"meta\"><b>%zu versions</b>, ", v->nv);
	esc(out, v->titles[0]), fputs(" to ", out), esc(out, v->titles[v->nv - 1]);
	fprintf(out, "; %zu %s</p>\n", v->ncells, v->ncells == 1 ? "cell" : "cells");
	fputs("<p class=\"meta\"><b>machine class</b> ", out);
	esc(out, v->machine_class ? v->machine_class : "not computed (--no-store)");
	fputs("</p>\n<p class=\"meta\"><b>method</b> ", out), esc(out, v->method);
	fputs("; ", out), esc(out, v->windows);
	fputs("</p>\n<p class=\"meta\"><b>verdicts</b> ", out), esc(out, v->control);
	fputs("</p>\n<p class=\"meta\">Each chart: the versions in series order; up, each version's time "
	      "over the first's (log scale), the product of the paired steps, with its approximate 95% "
	      "interval shaded; a dashed line where a change point is, labelled with its size.</p>\n",
	      out);
	for (size_t i = 0; i < v->nnotes; i++)
		fputs("<p class=\"note\">note: ", out), esc(out, v->notes[i]), fputs("</p>\n", out);

	for (size_t c = 0; c < v->ncells; c++) {
		const bv_history_html_cell *x = &v->cells[c];
		fputs("<section class=\"cell\">\n<h2>", out), esc(out, x->key), fputs("</h2>\n", out);
		chart(out, v, x);
		if (!x->ncps)
			fputs("<p class=\"none\">no change point</p>\n", out);
		else
			fputs("<ul class=\"changes\">\n", out);
		for (size_t k = 0; k < x->ncps; k++) {
			const char *dir = bv_verdict_name(x->cps[k].direction);
			fprintf(out, "<li class=\"%s\">", dir), esc(out, x->lines[k]);
			if (x->bisect[k])
				fputs("<br>narrow it: <code>", out), esc(out, x->bisect[k]),
				    fputs("</code>", out);
			fputs("</li>\n", out);
		}
		if (x->ncps)
			fputs("</ul>\n", out);
		for (size_t i = 0; x->step_notes && i + 1 < v->nv; i++)
			if (x->step_notes[i]) {
				fputs("<p class=\"note\">note: ", out), esc(out, v->labels[i]),
				    fputs(" \u2192 ", out);
				esc(out, v->labels[i + 1]), fputs(": ", out), esc(out, x->step_notes[i]);
				fputs("</p>\n", out);
			}
		fputs("</section>\n", out);
	}
	fputs("</main>\n</body>\n</html>\n", out);
	return ferror(out) ? -1 : 0;
}

/* ---- the view, from the history (history.h) -------------------------------- */

/* "relu: a -> b: 3.040 [2.862, 3.183] slower", without the cell: the
 * table's change line. */
static char *change_text(const bv_hist *h, const bv_hist_cell *x, const bv_change_point *cp)
{
	bv_hist_change_line l;
	bv_hist_change_line_of(h, x, cp, &l);
	return bv_asprintf("%s -> %s: %s %s%s%s", l.from, l.to, l.size, bv_verdict_name(cp->direction), l.gap,
	                   l.why);
}

static int print_html(const bv_hist *h, FILE *out)
{
	bv_history_html_view v;
	memset(&v, 0, sizeof(v));
	bv_strv labels = {0}, titles = {0};
	char *series_text = NULL;
	size_t slen = 0;
	FILE *sm = open_memstream(&series_text, &slen);
	if (sm) {
		if (h->range)
			fputs(h->range, sm);
		else if (h->releases)
			fputs("every release", sm);
		else
			for (size_t i = 0; i < h->nnames; i++)
				fprintf(sm, "%s%s", i ? " " : "", h->names[i]);
		fclose(sm);
	}
	for (size_t j = 0; j < h->nv; j++) {
		char words[96];
		bv_hist_version_words(bv_hist_version(h, j), words, sizeof(words));
		bv_strv_push(&labels, bv_hist_version(h, j)->label);
		bv_strv_push(&titles, words);
	}
	char *control = NULL,
	     *windows = bv_asprintf("%zu %s of up to %d versions, overlapping by one", h->nwindows,
	                            bv_plural((long long)h->nwindows, "window", "windows"), h->window);
	size_t clen = 0;
	FILE *m = open_memstream(&control, &clen);
	if (m) {
		bv_hist_control_line(h, m);
		fclose(m);
		if (clen && control[clen - 1] == '\n')
			control[clen - 1] = 0;
	}
	bv_history_html_cell *cells = bv_xcalloc(h->ncells + 1, sizeof(*cells));
	for (size_t c = 0; c < h->ncells; c++) {
		const bv_hist_cell *x = &h->cells[c];
		bv_history_html_cell *o = &cells[c];
		o->key = x->key, o->chain = x->chain, o->clo = x->clo, o->chi = x->chi;
		o->cps = x->cps, o->ncps = x->ncps;
		char **lines = bv_xcalloc(x->ncps + 1, sizeof(char *));
		char **bisect = bv_xcalloc(x->ncps + 1, sizeof(char *));
		const char **why = bv_xcalloc(h->nv, sizeof(char *));
		for (size_t k = 0; k < x->ncps; k++) {
			lines[k] = change_text(h, x, &x->cps[k]);
			bisect[k] = bv_hist_bisect_command(h, x, &x->cps[k]);
		}
		for (size_t i = 0; i + 1 < h->nv; i++)
			why[i] = x->steps[i].why ? x->steps[i].why : x->steps[i].state;
		o->lines = (const char *const *)lines, o->bisect = (const char *const *)bisect;
		o->step_notes = why;
	}
	v.series = series_text ? series_text : "";
	v.machine_class = h->cls;
	v.method = h->method;
	v.control = control ? control : "";
	v.windows = windows;
	v.labels = (const char *const *)labels.v, v.titles = (const char *const *)titles.v, v.nv = h->nv;
	v.cells = cells, v.ncells = h->ncells;
	v.notes = (const char *const *)h->notes.v, v.nnotes = h->notes.n;
	int rc = bv_history_html(&v, out);
	for (size_t c = 0; c < h->ncells; c++) {
		for (size_t k = 0; k < cells[c].ncps; k++) {
			free((char *)cells[c].lines[k]);
			free((char *)cells[c].bisect[k]);
		}
		free((void *)cells[c].lines), free((void *)cells[c].bisect),
		    free((void *)cells[c].step_notes);
	}
	free(cells);
	free(control), free(windows), free(series_text);
	bv_strv_free(&labels), bv_strv_free(&titles);
	return rc;
}

/* --format html: the page on out (the command's stdout) and kept beside
 * history.json as history.html, so the results directory holds it to open
 * later. */
int bv_hist_write_html(const bv_hist *h, FILE *out)
{
	char *path = bv_asprintf("%s/history.html", h->dir);
	FILE *f = fopen(path, "w");
	int rc = 0;
	if (!f)
		rc = bv_fail(BV_ERUN, "cannot write %s: %s", path, strerror(errno));
	else if (print_html(h, f) != 0 || fclose(f) != 0)
		rc = bv_fail(BV_ERUN, "cannot write %s: %s", path, strerror(errno));
	if (rc == 0 && print_html(h, out) != 0)
		rc = bv_fail(BV_ERUN, "cannot write the page to stdout");
	free(path);
	return rc;
}
