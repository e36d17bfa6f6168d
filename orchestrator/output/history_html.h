/*
 * history_html.h - `bench-versions history --format html` (history_html.c;
 * docs/cli/history.md): the timeline as one self-contained page, one small
 * chart per cell, drawn from plain data (the view below) so that the unit
 * tests draw it without a repository; history_html.c also makes the view
 * from a decided history (bv_hist_write_html, history_format.h).
 */
#ifndef BV_HISTORY_HTML_H
#define BV_HISTORY_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "changepoint.h"

/*
 * What the page shows, as bv_hist_write_html hands it over from the history
 * (history.h): plain strings and arrays, nothing the page must compute from
 * a repository. */
typedef struct bv_history_html_cell {
	const char *key;                     /* bench/op/backend/size */
	const double *chain, *clo, *chi;     /* nv each: the ratio to version 0 and its interval */
	const bv_change_point *cps;          /* ncps, by first step */
	size_t ncps;
	const char *const *lines;            /* ncps: each change as the table writes it */
	const char *const *bisect;           /* ncps: its bisect command, NULL where none */
	const char *const *step_notes;       /* nv - 1: why a step has no paired interval, or NULL */
} bv_history_html_cell;

typedef struct bv_history_html_view {
	const char *series;        /* "HEAD~4..HEAD", "releases", "0.1.0 0.2.0" */
	const char *machine_class; /* NULL: not computed (--no-store) */
	const char *method;        /* the store's method key */
	const char *control;       /* the verdicts' control line */
	const char *windows;       /* "2 windows of up to 4 versions, overlapping by one" */
	const char *const *labels; /* nv: the versions' short labels, in series order */
	const char *const *titles; /* nv: each version in words ("0.1.1 (1a2b3c4d5e6f)") */
	size_t nv;
	const bv_history_html_cell *cells;
	size_t ncells;
	const char *const *notes;
	size_t nnotes;
} bv_history_html_view;

/* One self-contained page (inline CSS and SVG, no scripts, a CSP that
 * forbids loading anything): the header, then one chart per cell.  Every
 * string is escaped.  Returns 0, or -1 when out reports a write error. */
int bv_history_html(const bv_history_html_view *v, FILE *out);

#endif
