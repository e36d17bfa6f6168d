/*
 * chart_svg.h - the inline SVG chart of one bench group, drawn by both HTML
 * pages: the comparison's --format html (export_html.c) and the release
 * report (report_html.c).  One row per (cell, version): the ratio to the
 * baseline as a dot, its 95 % interval as a bar, the ratio as text at the
 * right, on a log axis with a dashed line at 1x; optionally each row's
 * budget, with the region beyond it shaded.
 *
 * The caller says what each row is; the chart lays it out.  Strings in a row
 * may come from a log: the chart escapes every one of them (bv_html_esc).
 */
#ifndef BV_CHART_SVG_H
#define BV_CHART_SVG_H

#include <stddef.h>
#include <stdio.h>

typedef struct bv_chart_row {
	const char *op, *backend; /* the row's name, with its size */
	size_t size;
	const char *version; /* shown after the name when not NULL (a table of 3+ versions) */
	const char *cls;     /* the row's CSS class: a verdict or a status */
	const char *title;   /* the tooltip (the full story of the cell), or NULL */
	int valid;           /* there is a ratio to draw; else `none` is written */
	double ratio, lo, hi;
	int interval; /* lo and hi are a 95 % interval: drawn as the bar (else the dot alone) */
	const char *none;
	int has_budget; /* draw the line at 1 + budget and shade beyond it */
	double budget;
} bv_chart_row;

typedef struct bv_chart {
	const char *what; /* the chart's title and aria-label */
	const bv_chart_row *rows;
	size_t nrows;
	const char *empty; /* written when there is no row */
} bv_chart;

void bv_chart_svg(FILE *out, const bv_chart *c);

/* A legend: what each colour means, then what the dot, the bar and the
 * dashed line are.  lead opens it, more ends it (either may be NULL). */
typedef struct bv_chart_key {
	const char *cls, *name;
} bv_chart_key;
void bv_chart_legend(FILE *out, const char *lead, const bv_chart_key *keys, size_t n, const char *more);

/* The layout's CSS (ticks, grid, separators, budget, legend): each page adds
 * its own fonts and colours per class (the swatch of class X is .sw.X). */
extern const char bv_chart_css[];

#endif
