/*
 * history_format.h - the formats of `bench-versions history` (the family
 * history_format.c, history_text.c, history_md.c, history_json.c,
 * history_html.c): each prints a decided history (history.h), and the
 * words they share are here, so a change reads the same in every format.
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
} change_line;

/* The versions left out just before built version j (a step spans them). */
void gap_before(const hist *h, size_t j, bv_strv *out);
/* The bisect command that narrows change point cp of cell x, or NULL. */
char *bisect_command(const hist *h, const hcell *x, const bv_change_point *cp);
/* "0.1.1 (1a2b3c4d5e6f)", or the name alone when it is the short commit. */
void version_words(const bv_version *v, char *buf, size_t len);
/* Whether a change point of x ends at version j. */
int change_at(const hcell *x, size_t j);
/* "%.3f", or "-" when v is not finite. */
void fmt_num(double v, char *buf, size_t len);
/* How many of a change point's steps the single-step test called in its direction. */
size_t steps_agreeing(const hcell *x, const bv_change_point *cp);
void change_line_of(const hist *h, const hcell *x, const bv_change_point *cp, change_line *l);
size_t count_changes(const hist *h);
/* The verdicts' control line, its newline included. */
void control_line(const hist *h, FILE *out);

/* One per format, each in its own history_<name>.c. */
void print_table(const hist *h, FILE *out);
void print_markdown(const hist *h, FILE *out);
cJSON *history_json(const hist *h);
int write_html(const hist *h);

#endif
