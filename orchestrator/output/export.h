/*
 * export.h - table to text, markdown, csv, json, html (export.c, and one
 * export_<name>.c per format behind bv_exporter), the view options run and
 * compare share (bv_view_opts), and the formatting every exporter uses.
 */
#ifndef BV_EXPORT_H
#define BV_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "table.h"

struct bv_option;

/* A cell's fastest backend as "simd, 0.075 [0.074, 0.075] of scalar's
 * time" when it is clearly faster than the next, else "simd or scalar:
 * not told apart (...)". */
void bv_backend_win_text(const bv_table *t, const bv_backend_win *w, char *buf, size_t len);
/* A backend comparison as "0.083 [0.080, 0.086] faster" (or why none),
 * and the table format's section of them (export.c). */
void bv_backend_cell_text(const bv_table *t, const bv_backend_cmp *b, char *buf, size_t len);
void bv_export_backends_table(const bv_table *t, FILE *out);

typedef struct bv_exporter {
	const char *name;
	int (*write)(const bv_table *t, FILE *out);
} bv_exporter;

const bv_exporter *bv_exporter_find(const char *name);
/* One per format, each in its own export_<name>.c. */
int bv_export_table(const bv_table *t, FILE *out);
int bv_export_markdown(const bv_table *t, FILE *out);
int bv_export_csv(const bv_table *t, FILE *out);
int bv_export_json(const bv_table *t, FILE *out);
int bv_export_html(const bv_table *t, FILE *out);
/* --color=auto|always|never: whether the table format paints verdicts on
 * out.  auto: only on a terminal, and not when NO_COLOR is set and not
 * empty (https://no-color.org); always and never are what they say. */
int bv_colour_wanted(const char *when, FILE *out);
/* The values --color takes, NULL-terminated. */
extern const char *const bv_colour_values[];
/* How a table is shown, the same for run and compare: --only-changes and
 * --color. */
typedef struct bv_view_opts {
	int only_changes;
	const char *colour; /* a bv_colour_values; bv_view_init: "auto" */
	const char *vs_backend; /* --vs-backend: the backend view's reference, NULL: none */
	const char *vs;         /* --vs NAME=VALUE as given, NULL: none */
	bv_vs_axis axis;        /* either, parsed (bv_view_vs); axis.on 0: no view */
	/* --counts: which changes Valgrind's counts explain (counts.h);
	 * NULL: the command's default (run: changed; compare: what the run's
	 * counts.json holds, nothing counted anew) */
	const char *counts;
	double count_timeout; /* --count-timeout: one call under Valgrind */
	int wide; /* --wide: every detail in its cell, no notes, no fitting */
} bv_view_opts;
/* Lines in the table bv_view_table fills, its end included. */
#define BV_VIEW_OPTIONS 8
/* --counts and --count-timeout alone (report), in opts (room for
 * BV_COUNTS_OPTIONS); bv_view_table has them too. */
#define BV_COUNTS_OPTIONS 3
void bv_counts_table(bv_view_opts *v, struct bv_option *opts);
void bv_view_init(bv_view_opts *v);
/* The two options as an options.h table pointing into v, in opts (room for
 * BV_VIEW_OPTIONS), for a command's table to include (BV_INCLUDE). */
void bv_view_table(bv_view_opts *v, struct bv_option *opts);
/* Applies them to a merged table that format will write, and notes its
 * wrong results (bv_table_note_wrong); BV_EINPUT when --vs-backend names no
 * backend of the table. */
int bv_view_apply(const bv_view_opts *v, const char *format, bv_table *t);
/* --vs and --vs-backend, parsed into v->axis (both given, a malformed
 * --vs, size: BV_EINPUT).  Commands call it after parsing their options. */
int bv_view_vs(bv_view_opts *v);
/* The counts (counts.c) for a table merged from results_dir's logs: what
 * --counts asks, else counted anew when counting (run), else what the
 * directory's counts.json holds (compare).  results_dir NULL: none. */
int bv_view_counts(const bv_view_opts *v, bv_table *t, const char *results_dir, int counting);
/* "table|markdown|...": for help texts and error messages. */
const char *bv_exporter_names(void);
/* The formats' names, NULL-terminated: the values --format takes. */
const char *const *bv_exporter_list(void);
/* Shared by the exporters: a result in the table's units (t->units), e.g.
 * "18.03 us", "12.1 GB/s" or "41% of copy bw". */
void bv_format_result(const bv_table *t, const bv_result *res, char *buf, size_t len);
void bv_format_time(double ns, char *buf, size_t len);
/* "avx512" when every version's simd backend ran on that ISA, else
 * "0.1.0 -, main avx512" ("-": the log does not say, or the version has no
 * simd backend); "" when no log says (logs before version.simd_isa). */
void bv_format_simd(const bv_table *t, char *buf, size_t len);
/* A change's ratio and interval, "1.004 [0.998, 1.010]", or the estimate
 * with "[no 95% interval: 1 process]" when it has none. */
void bv_format_ratio(const bv_change *ch, char *buf, size_t len);
/* What follows a change's verdict, shared by every exporter: ", noisy",
 * ", unconfirmed" (its own interval said changed, the run's control did not),
 * ", layout [0.57, 1.76]" (a `same` that placement alone moves past the
 * threshold), the machine's two levels of an `unstable` change, and the mode
 * when it is not paired (" unpaired"). */
void bv_format_qualifiers(const bv_table *t, const bv_change *ch, char *buf, size_t len);
/* The qualifiers short enough to stay in a narrow cell: ", noisy",
 * ", unconfirmed" and the mode when not paired (export_notes.c). */
void bv_format_short_qualifiers(const bv_table *t, const bv_change *ch, char *buf, size_t len);
/* What a narrow table moves into a change's note: the layouts' spread, the
 * machine's states, the counts' sentence, "; "-separated; "" when none. */
void bv_change_details(const bv_table *t, const bv_change *ch, char *buf, size_t len);
/* The counts' kind as one word: code, data, placement, machine (counts.h's
 * mixed), not counted, not told (counted on another path); NULL: none. */
const char *bv_why_word(const bv_change *ch);
/* The numbered notes of a table's shown cells (none with t->wide): identical
 * details share one number; num[row * nv + v] is a cell's (0: none). */
typedef struct bv_notes {
	size_t *num, nv;
	char **text; /* note j + 1, with the cell it is about, or how many share it */
	size_t n;
} bv_notes;
void bv_notes_build(const bv_table *t, bv_notes *n);
size_t bv_notes_of(const bv_notes *n, size_t row, size_t v);
void bv_notes_free(bv_notes *n);
/* A change's why cell: "code [1]", "[2]" (a note, no counts), "" (neither). */
void bv_why_cell(const bv_notes *n, const bv_row *r, size_t row, size_t v, char *buf, size_t len);
/* The width to fit out's table to: COLUMNS when set, else the terminal's
 * (TIOCGWINSZ) when out is one, else 0 (no limit). */
size_t bv_term_width(FILE *out);
/* text on lines of at most width (0: one line), each after the first
 * indented by indent. */
void bv_wrap(FILE *out, const char *text, size_t width, size_t indent);
/* same or inconclusive: judged, and not called slower or faster. */
int bv_change_not_called(const bv_change *ch);
/* Whether placement alone moves the change past the threshold band. */
int bv_change_layout_bound(const bv_table *t, const bv_change *ch);
void bv_md_esc(FILE *out, const char *s);

/* Whether any shown change of version v has a why cell (export_notes.c). */
int bv_why_column(const bv_table *t, const bv_notes *n, size_t v);

#endif
