/*
 * site_chart.c - the chart of one cell's page (bv_site_chart, site_page.h):
 * time over versions, one series per machine class.
 *
 * chart_svg.c draws a comparison's ratios, one row per cell; history_html.c
 * draws one machine's chained ratio.  Neither fits: across classes and runs
 * there is no ratio to draw (two machines' times are not paired), only each
 * run's own time with its interval.  So x is the versions in the site's
 * order, evenly spaced; y the time, linear from zero when the figures lie
 * within 20x of each other, else log; per class a dot at the median and its
 * 95 % interval as a bar, the class's dots joined by a faint line, each
 * class a little to the side of the others so the bars do not hide each
 * other; a change point of a class (site_changes.c: found over the steps
 * between its versions as `history` finds them) gets a triangle between
 * the two versions it lies between, above the bars when slower, below when
 * faster.  Nothing is loaded and there is no script: an SVG needs neither.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "site.h"
#include "site_page.h"

enum {
	LEFT = 70,
	RIGHT = 20,
	TOP = 16,
	PLOT_H = 220,
	LABEL_H = 90,
	STEP_MIN = 22,
	STEP_MAX = 90,
	PLOT_W_MIN = 300
};

typedef struct axis {
	int log;
	double lo, hi; /* ns at the bottom and top (log: their logs) */
	double unit;   /* ns per tick unit */
	const char *uname;
	double step; /* pixels between versions */
	int plot_w;
} axis;

static double ypos(const axis *a, double ns)
{
	double v = a->log ? log(ns > 0 ? ns : 1e-3) : ns;
	if (v < a->lo)
		v = a->lo;
	if (v > a->hi)
		v = a->hi;
	return TOP + (a->hi - v) / (a->hi - a->lo) * PLOT_H;
}

static void range(const bv_site_series *sr, size_t ns, size_t nv, double *mn, double *mx)
{
	*mn = INFINITY, *mx = 0;
	for (size_t k = 0; k < ns; k++)
		for (size_t j = 0; j < nv; j++) {
			const bv_site_point *p = &sr[k].p[j];
			double v[3] = {p->median, p->lo, p->hi};
			for (int i = 0; i < 3 && p->has; i++)
				if (isfinite(v[i]) && v[i] > 0)
					*mn = fmin(*mn, v[i]), *mx = fmax(*mx, v[i]);
		}
	if (!(*mx > 0))
		*mn = 1, *mx = 10;
}

static void make_axis(axis *a, const bv_site_series *sr, size_t ns, size_t nv)
{
	double mn, mx;
	range(sr, ns, nv, &mn, &mx);
	a->log = mx / mn > 20;
	if (a->log)
		a->lo = log(mn / 1.2), a->hi = log(mx * 1.2);
	else
		a->lo = 0, a->hi = mx * 1.08;
	a->unit = mx >= 1e9 ? 1e9 : mx >= 1e6 ? 1e6 : mx >= 1e3 ? 1e3 : 1;
	a->uname = mx >= 1e9 ? "s" : mx >= 1e6 ? "ms" : mx >= 1e3 ? "us" : "ns";
	int w = (int)nv * STEP_MAX;
	a->plot_w = w < PLOT_W_MIN ? PLOT_W_MIN : w > 900 ? 900 : w;
	a->step = nv > 1 ? (double)a->plot_w / (double)nv : a->plot_w;
	if (a->step < STEP_MIN)
		a->step = STEP_MIN, a->plot_w = (int)(STEP_MIN * nv);
}

static double xpos(const axis *a, size_t j)
{
	return LEFT + a->step * ((double)j + 0.5);
}

static void tick(FILE *out, const axis *a, double ns)
{
	double y = ypos(a, ns);
	fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>", LEFT, y,
	        LEFT + a->plot_w, y);
	/* A log axis spans units: each tick in its own ("10 us", "1 ms"). */
	double unit = a->unit;
	const char *uname = a->uname;
	if (a->log)
		unit = ns >= 1e9   ? 1e9
		       : ns >= 1e6 ? 1e6
		       : ns >= 1e3 ? 1e3
		                   : 1,
		uname = ns >= 1e9   ? "s"
		        : ns >= 1e6 ? "ms"
		        : ns >= 1e3 ? "us"
		                    : "ns";
	fprintf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g %s</text>\n", LEFT - 6, y + 4,
	        ns / unit, uname);
}

/* Ticks: on a linear axis 1, 2 or 5 times a power of ten, about five of
 * them; on a log axis each 1, 2 and 5 in range (only the powers of ten when
 * the range spans more than three decades). */
static void y_ticks(FILE *out, const axis *a)
{
	if (!a->log) {
		double raw = a->hi / 5, p = pow(10, floor(log10(raw))), step = p;
		if (raw / p > 5)
			step = 10 * p;
		else if (raw / p > 2)
			step = 5 * p;
		else if (raw / p > 1)
			step = 2 * p;
		for (double v = 0; v <= a->hi * (1 + 1e-9); v += step)
			tick(out, a, v);
		return;
	}
	int sparse = a->hi - a->lo > log(1e3);
	for (int e = -3; e <= 12; e++)
		for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
			double v = m * pow(10, e);
			if ((sparse && m != 1) || log(v) < a->lo || log(v) > a->hi)
				continue;
			tick(out, a, v);
		}
}

static void x_labels(FILE *out, const bv_site *s, const axis *a, const size_t *versions, size_t nv)
{
	int y = TOP + PLOT_H + 12;
	for (size_t j = 0; j < nv; j++) {
		double x = xpos(a, j);
		char label[64];
		snprintf(label, sizeof(label), "%.20s", s->versions[versions[j]].title);
		fprintf(out,
		        "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\" transform=\"rotate(-40 %.1f %d)\">",
		        x + 3, y, x + 3, y);
		bv_site_esc(out, label);
		fputs("<title>", out), bv_site_esc(out, s->versions[versions[j]].title),
		    fputs("</title></text>\n", out);
	}
}

static void point(FILE *out, const bv_site *s, const axis *a, const bv_site_series *sr, size_t j, double x,
                  const char *colour, const size_t *versions)
{
	const bv_site_point *p = &sr->p[j];
	char med[32], lo[32], hi[32];
	bv_site_time(p->median, med, sizeof(med)), bv_site_time(p->lo, lo, sizeof(lo));
	bv_site_time(p->hi, hi, sizeof(hi));
	fputs("<g><title>", out), bv_site_esc(out, s->classes[sr->cls].name), fputs(", ", out);
	bv_site_esc(out, s->versions[versions[j]].title);
	fprintf(out, ": %s [%s, %s], run ", med, lo, hi), bv_site_esc(out, p->run_id);
	fputs("</title>", out);
	double ym = ypos(a, p->median);
	if (isfinite(p->lo) && isfinite(p->hi) && p->hi > 0) {
		double y0 = ypos(a, p->lo), y1 = ypos(a, p->hi);
		fprintf(out,
		        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		        "stroke-width=\"2.5\"/>",
		        x, y0, x, y1, colour);
	}
	fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" stroke=\"#fff\"/></g>\n", x, ym,
	        colour);
}

/* The top (up) or bottom of point j's bar, or its dot without a bar. */
static double bar_end(const axis *a, const bv_site_point *p, int up)
{
	double v = up ? p->hi : p->lo;
	return ypos(a, isfinite(v) && v > 0 ? v : p->median);
}

/* A change point: a triangle between its two versions, in the class's
 * series (dx), apex up above the higher bar end when slower, apex down
 * below the lower one when faster; its title says what it is. */
static void change_point(FILE *out, const bv_site *s, const axis *a, const bv_site_series *sr,
                         const bv_site_cp *c, double dx, const char *colour)
{
	const char *name = s->classes[sr->cls].name;
	fputs("<g class=\"cp\"><title>", out);
	fputs(c->gradual ? "gradual change point on " : "change point on ", out);
	bv_site_esc(out, name), fputs(": ", out), bv_site_esc(out, s->versions[c->from].title);
	fputs(" -&gt; ", out), bv_site_esc(out, s->versions[c->to].title);
	fprintf(out, ", %.2fx [%.2f, %.2f], %s, %zu processes from %zu %s", c->ratio, c->lo, c->hi,
	        c->dir > 0 ? "slower" : "faster", c->nproc, c->nruns, c->nruns == 1 ? "run" : "runs");
	if (c->gradual)
		fputs(" (the fewest of any step of the span)", out);
	fputs("</title>", out);
	double x = (xpos(a, c->jfrom) + xpos(a, c->jto)) / 2 + dx;
	const bv_site_point *p0 = &sr->p[c->jfrom], *p1 = &sr->p[c->jto];
	if (c->dir > 0) {
		double y = fmin(bar_end(a, p0, 1), bar_end(a, p1, 1)) - 14;
		fprintf(out, "<path d=\"M%.1f %.1fl-6 10h12z\" fill=\"#cf222e\" stroke=\"%s\"/>", x,
		        y < 2 ? 2 : y, colour);
	} else {
		double y = fmax(bar_end(a, p0, 0), bar_end(a, p1, 0)) + 14;
		fprintf(out, "<path d=\"M%.1f %.1fl-6 -10h12z\" fill=\"#1a7f37\" stroke=\"%s\"/>", x,
		        y > TOP + PLOT_H ? TOP + PLOT_H : y, colour);
	}
	fputs("</g>\n", out);
}

void bv_site_chart(const bv_site *s, FILE *out, const char *what, const size_t *versions, size_t nv,
                   const bv_site_series *series, size_t nseries)
{
	axis a;
	make_axis(&a, series, nseries, nv);
	int w = LEFT + a.plot_w + RIGHT, h = TOP + PLOT_H + LABEL_H;
	fprintf(out, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", w, h,
	        w, h);
	bv_site_esc(out, what);
	fputs("\"><title>", out), bv_site_esc(out, what), fputs("</title>\n", out);
	y_ticks(out, &a);
	fprintf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", LEFT, TOP + PLOT_H,
	        LEFT + a.plot_w, TOP + PLOT_H);
	x_labels(out, s, &a, versions, nv);
	double spread = fmin(8, a.step / (double)(nseries + 1));
	for (size_t k = 0; k < nseries; k++) {
		char colour[16];
		bv_site_class_colour(series[k].cls, colour, sizeof(colour));
		double dx = ((double)k - (double)(nseries - 1) / 2) * spread;
		bv_buf line = BV_BUF_INIT;
		for (size_t j = 0; j < nv; j++)
			if (series[k].p[j].has)
				bv_buf_printf(&line, "%.1f,%.1f ", xpos(&a, j) + dx,
				              ypos(&a, series[k].p[j].median));
		if (line.s)
			fprintf(
			    out,
			    "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-opacity=\".45\"/>\n",
			    line.s, colour);
		bv_buf_free(&line);
		for (size_t j = 0; j < nv; j++)
			if (series[k].p[j].has)
				point(out, s, &a, &series[k], j, xpos(&a, j) + dx, colour, versions);
		for (size_t c = 0; c < series[k].ncp; c++)
			change_point(out, s, &a, &series[k], &series[k].cp[c], dx, colour);
	}
	fputs("</svg>\n<p class=\"note\">", out);
	for (size_t k = 0; k < nseries; k++) {
		char colour[16];
		bv_site_class_colour(series[k].cls, colour, sizeof(colour));
		fprintf(out, "<span class=\"sw\" style=\"background:%s\"></span>", colour);
		bv_site_esc(out, s->classes[series[k].cls].name);
		fputs(" &nbsp; ", out);
	}
	fprintf(
	    out,
	    "<br>dot: the run's median time over processes; bar: its 95 %% interval; time axis %s; "
	    "<span class=\"slower\">&#9650;</span> slower / <span class=\"faster\">&#9660;</span> faster: "
	    "a change point of that class between the two versions, found as <code>history</code> finds "
	    "them (over every step of this page, false-discovery controlled) from the runs on that class "
	    "that measured both versions in the same processes</p>\n",
	    a.log ? "on a log scale (the times span more than a factor of 20)" : "linear from zero");
}
