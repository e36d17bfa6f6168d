/*
 * history_format.h - the formats of `bench-versions history` (the family
 * history_format.c, history_text.c, history_md.c, history_json.c,
 * history_html.c): each prints a decided history (history.h), behind one
 * table as export.h's bv_exporter is, and the words they share are here
 * (history_format.c), so a change reads the same in every format.
 */
#ifndef BV_HISTORY_FORMAT_H
#define BV_HISTORY_FORMAT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdio.h>

#include "history.h"

/* One change point in words, as the table, markdown and HTML print it:
 * where it begins and ends, its size with interval, and what it spans. */
typedef struct {
	char from[96], to[96], size[96];
	char gap[96]; /* "" or " (the change spans 2 versions that did not build)" */
	/* "" when each of its steps was called in its direction alone; else why
	 * the steps' own verdicts (the table's, the JSON's) do not show it */
	char why[160];
} bv_hist_change_line;

/* The versions left out just before built version j (a step spans them). */
void bv_hist_gap_before(const bv_hist *h, size_t j, bv_strv *out);
/* The bisect command that narrows change point cp of cell x, or NULL. */
char *bv_hist_bisect_command(const bv_hist *h, const bv_hist_cell *x, const bv_change_point *cp);
/* "0.1.1 (1a2b3c4d5e6f)", or the name alone when it is the short commit. */
void bv_hist_version_words(const bv_version *v, char *buf, size_t len);
/* Whether a change point of x ends at version j. */
int bv_hist_change_at(const bv_hist_cell *x, size_t j);
/* "%.3f", or "-" when v is not finite. */
void bv_hist_num(double v, char *buf, size_t len);
/* How many of a change point's steps the single-step test called in its direction. */
size_t bv_hist_steps_agreeing(const bv_hist_cell *x, const bv_change_point *cp);
/* Change point cp of cell x in words (bv_hist_change_line). */
void bv_hist_change_line_of(const bv_hist *h, const bv_hist_cell *x, const bv_change_point *cp,
                            bv_hist_change_line *l);
/* The change points of every cell, counted. */
size_t bv_hist_count_changes(const bv_hist *h);
/* The verdicts' control line, its newline included. */
void bv_hist_control_line(const bv_hist *h, FILE *out);

/* A format of --format: write prints a decided history on out; 0, or a
 * BV_E* code with the error said. */
typedef struct bv_hist_format {
	const char *name;
	int (*write)(const bv_hist *h, FILE *out);
} bv_hist_format;

/* The format named name, NULL when none is. */
const bv_hist_format *bv_hist_format_find(const char *name);
/* The formats' names, NULL-terminated: the values --format takes. */
const char *const *bv_hist_format_list(void);

/* One per format, each in its own history_<name>.c. */
int bv_hist_write_table(const bv_hist *h, FILE *out);
int bv_hist_write_markdown(const bv_hist *h, FILE *out);
int bv_hist_write_json(const bv_hist *h, FILE *out);
/* The page on out, and kept in the results directory as history.html. */
int bv_hist_write_html(const bv_hist *h, FILE *out);
/* The document --format json prints, and the command keeps as
 * history.json whatever the format (the caller deletes it). */
cJSON *bv_hist_json(const bv_hist *h);

#endif
