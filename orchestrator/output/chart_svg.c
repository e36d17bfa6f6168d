/*
 * chart_svg.c - the one chart both HTML pages draw per bench group
 * (chart_svg.h).  It used to be written twice, in export_html.c and
 * report_html.c, and the two drifted: the comparison's copy kept ticks only
 * on the 1-2-5 series (one label on a narrow axis), no ratio as text and no
 * legend, and drew a group of 96 cells as one undivided strip.
 *
 * The layout, left to right: each row's name (op backend size, and the
 * version where the table has more than two), the plot (log scale, ticks
 * above, and below too on a tall chart), the ratio as text.  Rows are
 * separated where the op or the backend changes, with a little space, so a
 * big group reads as blocks.  Nothing here loads anything: the pages'
 * Content-Security-Policy forbids it, and an SVG needs nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "chart_svg.h"
#include "common.h"
#include "html.h"

/* Geometry.  The names' column is as wide as the longest name, at least
 * NAME_MIN; names and versions are cut to NAME_CHARS and VERSION_CHARS (the
 * tooltip has them whole), so a long label cannot push the plot off the
 * page.  VERSION_CHARS holds a label with its run id ("main@20260101T120000Z"),
 * what tells two runs of one version apart. */
enum {
	PAD = 10,
	PLOT_W = 560,
	TEXT_W = 80, /* "1234.567x" */
	ROW_H = 20,
	TOP = 30,
	GAP = 6,          /* between blocks of rows (another op or backend) */
	BOTTOM_AXIS = 20, /* rows beyond which the tick labels repeat below */
	NAME_MIN = 150,
	NAME_CHARS = 40,
	VERSION_CHARS = 24
};
#define CHAR_W 6.6 /* a 12px system-ui character, roughly: enough to size columns */
#define TICK_CHAR_W 6.2

const char bv_chart_css[] =
    "svg text.tick{fill:#57606a;font-size:11px;stroke:none}"
    "svg .grid{stroke:#eaeef2}svg .one{stroke:#1f2328;stroke-width:1.5;stroke-dasharray:5 3}"
    "svg .sep{stroke:#d8dee4}svg .sep.op{stroke:#afb8c1}"
    "svg .budget{stroke:#cf222e;stroke-width:1.5;stroke-dasharray:3 2}svg .beyond{fill:#fdecef}"
    "svg text.name{stroke:none;fill:#1f2328}svg tspan.ver{fill:#57606a}"
    "svg text.ratio,svg text.status{stroke:none;font-variant-numeric:tabular-nums}"
    ".legend{font-size:12px;color:#57606a;margin:2px 0 10px}"
    ".legend .key{white-space:nowrap;margin-right:12px}"
    ".legend .sw{display:inline-block;width:9px;height:9px;border-radius:50%;margin-right:4px}";

typedef struct scale {
	double lo, hi; /* ratios at the plot's edges */
	int x0;        /* where the plot starts */
} scale;

static double xpos(const scale *s, double v)
{
	if (!(v > s->lo))
		v = s->lo;
	if (!(v < s->hi))
		v = s->hi;
	return s->x0 + (log(v) - log(s->lo)) / (log(s->hi) - log(s->lo)) * PLOT_W;
}

static void widen(scale *s, double v)
{
	if (v > 0 && isfinite(v)) {
		if (v < s->lo)
			s->lo = v;
		if (v > s->hi)
			s->hi = v;
	}
}

/* Characters, not bytes: a UTF-8 continuation byte adds none. */
static size_t chars(const char *s)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		n += (*p & 0xc0) != 0x80;
	return n;
}

/* s cut to at most max characters, with "..." where it was cut. */
static void cut(char *s, size_t max)
{
	size_t n = 0;
	for (char *p = s; *p; p++)
		if ((*p & 0xc0) != 0x80 && n++ == max) {
			strcpy(p, "...");
			return;
		}
}

static void row_name(const bv_chart_row *r, char *name, size_t nlen, char *ver, size_t vlen)
{
	char size[32];
	bv_size_format(r->size, size, sizeof(size));
	snprintf(name, nlen, "%s %s %s", r->op ? r->op : "", r->backend ? r->backend : "", size);
	cut(name, NAME_CHARS);
	snprintf(ver, vlen, "%s", r->version ? r->version : "");
	cut(ver, VERSION_CHARS);
}

/* A separator before row i: "op" where the op changes, "" where only the
 * backend does, NULL where neither. */
static const char *separator(const bv_chart *c, size_t i)
{
	if (i == 0)
		return NULL;
	const bv_chart_row *a = &c->rows[i - 1], *b = &c->rows[i];
	if (strcmp(a->op ? a->op : "", b->op ? b->op : ""))
		return " op";
	if (strcmp(a->backend ? a->backend : "", b->backend ? b->backend : ""))
		return "";
	return NULL;
}

typedef struct tick {
	double v, x, w; /* w: the label's width */
	int level;      /* which to keep first: 1x, powers of ten, 2 and 5, the rest */
	int on;
} tick;

static int fits(const tick *t, size_t n, size_t i)
{
	for (size_t j = 0; j < n; j++)
		if (j != i && t[j].on && fabs(t[i].x - t[j].x) < (t[i].w + t[j].w) / 2 + 8)
			return 0;
	return 1;
}

/* The ticks worth a label: on the 1-2-5 series, finer on a narrow axis (a
 * group within 0.9x..1.1x would otherwise get the one label "1x"); then
 * thinned so no two labels overlap, keeping 1x, then the powers of ten, then
 * 2 and 5 (all of them or none, so the axis stays regular), then the finer
 * ones where each fits. */
static size_t ticks(const scale *s, tick *t)
{
	static const double fine[] = {1, 1.1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9};
	static const double coarse[] = {1, 2, 5};
	int narrow = s->hi / s->lo < 30;
	const double *steps = narrow ? fine : coarse;
	int nsteps = narrow ? 13 : 3;
	size_t n = 0;
	for (int e = -3; e <= 3; e++)
		for (int j = 0; j < nsteps; j++) {
			double v = pow(10, e) * steps[j];
			if (v < s->lo || v > s->hi)
				continue;
			char label[32];
			snprintf(label, sizeof(label), "%gx", v);
			t[n] = (tick){v, xpos(s, v), (double)strlen(label) * TICK_CHAR_W,
			              steps[j] == 1                    ? (e == 0 ? 0 : 1)
			              : steps[j] == 2 || steps[j] == 5 ? 2
			                                               : 3,
			              0};
			n++;
		}
	for (int level = 0; level <= 3; level++) {
		for (size_t i = 0; i < n; i++)
			if (t[i].level == level)
				t[i].on = fits(t, n, i);
		if (level != 2)
			continue;
		int all = 1;
		for (size_t i = 0; i < n; i++)
			all &= t[i].level != 2 || t[i].on;
		for (size_t i = 0; i < n && !all; i++)
			t[i].on &= t[i].level != 2;
	}
	return n;
}

/* Where everything of one chart lies. */
typedef struct geometry {
	scale s;
	double *top;  /* each row's top */
	int plot_end; /* the plot's right edge; the ratios' text follows */
	int rows_end; /* the last row's bottom */
	int below;    /* the axis repeated below the rows (a long chart) */
	int w, h;
	double one; /* where 1x is */
} geometry;

/* The scale over every row's ratio, interval and budget (a wild
 * interval must not squash every other bar to a dot: 1e-3 to 1e3 at
 * most), the names' column as wide as the widest name, and each row's top,
 * with a gap before each new block. */
static void chart_geometry(const bv_chart *c, geometry *g)
{
	scale s = {1 / 1.1, 1.1, 0};
	size_t namew = 0;
	for (size_t i = 0; i < c->nrows; i++) {
		const bv_chart_row *r = &c->rows[i];
		if (r->has_budget)
			widen(&s, 1 + r->budget);
		if (r->valid) {
			widen(&s, r->ratio);
			if (r->interval)
				widen(&s, r->lo), widen(&s, r->hi);
		}
		char name[256], ver[128];
		row_name(r, name, sizeof(name), ver, sizeof(ver));
		size_t w = chars(name) + (*ver ? 1 + chars(ver) : 0);
		if (w > namew)
			namew = w;
	}
	if (s.lo < 1e-3)
		s.lo = 1e-3;
	if (s.hi > 1e3)
		s.hi = 1e3;
	s.lo /= 1.06, s.hi *= 1.06;
	int name_w = 2 * PAD + (int)(namew * CHAR_W);
	s.x0 = name_w < NAME_MIN ? NAME_MIN : name_w;
	g->s = s;
	g->plot_end = s.x0 + PLOT_W;
	g->top = bv_xcalloc(c->nrows + 1, sizeof(*g->top));
	double y = TOP;
	for (size_t i = 0; i < c->nrows; i++) {
		y += separator(c, i) ? GAP : 0;
		g->top[i] = y;
		y += ROW_H;
	}
	g->rows_end = (int)ceil(c->nrows ? y : TOP + ROW_H);
	g->below = c->nrows > BOTTOM_AXIS;
	g->h = g->rows_end + (g->below ? 22 : 0) + PAD, g->w = g->plot_end + TEXT_W;
	g->one = xpos(&g->s, 1.0);
}

/* What lies under the rows: the region beyond each row's budget (first,
 * so everything lies on it), the ticks and their grid, the blocks'
 * separators and the line at 1x. */
static void draw_background(FILE *out, const bv_chart *c, const geometry *g)
{
	for (size_t i = 0; i < c->nrows; i++) {
		const bv_chart_row *r = &c->rows[i];
		if (!r->has_budget || !r->valid)
			continue;
		double xb = xpos(&g->s, 1 + r->budget);
		fprintf(out, "<rect class=\"beyond\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"/>",
		        xb, g->top[i], g->plot_end - xb, ROW_H);
	}
	tick t[7 * 13];
	size_t nt = ticks(&g->s, t);
	for (size_t i = 0; i < nt; i++) {
		if (!t[i].on)
			continue;
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", t[i].x,
		        TOP - 4, t[i].x, g->rows_end);
		fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%gx</text>",
		        t[i].x, TOP - 12, t[i].v);
		if (g->below)
			fprintf(out,
			        "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%gx</text>",
			        t[i].x, g->rows_end + 16, t[i].v);
		fputc('\n', out);
	}
	for (size_t i = 0; i < c->nrows; i++) {
		const char *sep = separator(c, i);
		if (sep)
			fprintf(out, "<line class=\"sep%s\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
			        sep, PAD / 2, g->top[i] - GAP / 2.0, g->w - PAD / 2, g->top[i] - GAP / 2.0);
	}
	fprintf(out, "<line class=\"one\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", g->one, TOP - 6,
	        g->one, g->rows_end);
}

/* One row: its budget line, its name, and its ratio with the interval's
 * bar, or why it has none. */
static void draw_row(FILE *out, const bv_chart_row *r, const geometry *g, double y0)
{
	double ym = y0 + ROW_H / 2.0;
	if (r->has_budget && r->valid) {
		double xb = xpos(&g->s, 1 + r->budget);
		fprintf(out,
		        "<line class=\"budget\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
		        xb, y0, xb, y0 + ROW_H);
	}
	fputs("<g class=\"cell ", out), bv_html_esc(out, r->cls), fputs("\">", out);
	if (r->title)
		fputs("<title>", out), bv_html_esc(out, r->title), fputs("</title>", out);
	char name[256], ver[128];
	row_name(r, name, sizeof(name), ver, sizeof(ver));
	fprintf(out, "<text class=\"name\" x=\"%d\" y=\"%.1f\">", PAD, ym + 4);
	bv_html_esc(out, name);
	if (*ver)
		fputs(" <tspan class=\"ver\">", out), bv_html_esc(out, ver), fputs("</tspan>", out);
	fputs("</text>", out);
	if (r->valid) {
		double x = xpos(&g->s, r->ratio);
		if (r->interval) {
			double x0 = xpos(&g->s, r->lo), x1 = xpos(&g->s, r->hi);
			if (x1 - x0 < 1) /* a bar too short to see still shows */
				x0 -= 0.5, x1 += 0.5;
			fprintf(out,
			        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			        "stroke-width=\"2.5\"/>",
			        x0, ym, x1, ym);
			fprintf(out,
			        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			        "stroke-width=\"1.5\"/>",
			        x0, ym - 5, x0, ym + 5);
			fprintf(out,
			        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			        "stroke-width=\"1.5\"/>",
			        x1, ym - 5, x1, ym + 5);
		}
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\"/>", x, ym);
		fputs("<text class=\"ratio ", out), bv_html_esc(out, r->cls);
		fprintf(out, "\" x=\"%d\" y=\"%.1f\">%.3fx</text>", g->plot_end + 8, ym + 4, r->ratio);
	} else {
		fputs("<text class=\"status ", out), bv_html_esc(out, r->cls);
		fprintf(out, "\" x=\"%.1f\" y=\"%.1f\">", g->one + 8, ym + 4);
		bv_html_esc(out, r->none ? r->none : "no ratio");
		fputs("</text>", out);
	}
	fputs("</g>\n", out);
}

void bv_chart_svg(FILE *out, const bv_chart *c)
{
	geometry g;
	chart_geometry(c, &g);
	fprintf(out,
	        "<svg class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
	        "aria-label=\"",
	        g.w, g.h, g.w, g.h);
	bv_html_esc(out, c->what);
	fputs("\"><title>", out), bv_html_esc(out, c->what), fputs("</title>\n", out);
	draw_background(out, c, &g);
	for (size_t i = 0; i < c->nrows; i++)
		draw_row(out, &c->rows[i], &g, g.top[i]);
	if (!c->nrows) {
		fprintf(out, "<text x=\"%d\" y=\"%d\">", PAD, TOP + ROW_H - 5);
		bv_html_esc(out, c->empty);
		fputs("</text>", out);
	}
	fputs("</svg>\n", out);
	free(g.top);
}

void bv_chart_legend(FILE *out, const char *lead, const bv_chart_key *keys, size_t n, const char *more)
{
	fputs("<p class=\"legend\">", out);
	if (lead)
		bv_html_esc(out, lead), fputs("<br>", out);
	for (size_t i = 0; i < n; i++) {
		fputs("<span class=\"key\"><i class=\"sw ", out), bv_html_esc(out, keys[i].cls);
		fputs("\"></i>", out), bv_html_esc(out, keys[i].name), fputs("</span> ", out);
	}
	fputs("<br>dot: ratio (median over processes); bar: 95 % interval; dashed line: 1x, no change; "
	      "log scale",
	      out);
	if (more)
		fputs("; ", out), bv_html_esc(out, more);
	fputs("</p>\n", out);
}
