/*
 * report.h - the release-readiness verdict: a baseline and a candidate
 * merged into one table (merge.c), each cell judged against its budget
 * (budgets.h), the reasons for NOT READY, geomeans, and what the two logs say
 * about their builds and machines.  The formats (report_html.c,
 * report_md.c, report_junit.c, report_text.c) only format a bv_report;
 * report.c holds their table.  report_classes.c judges one run per machine
 * class side by side (report --from RUN_DIR RUN_DIR...).
 */
#ifndef BV_REPORT_H
#define BV_REPORT_H

#include <stdio.h>

#include "budgets.h"
#include "table.h"

/* What became of one cell, worst first (the order of the reasons). */
typedef enum {
	BV_CELL_BUILD_FAILED, /* the candidate did not build */
	BV_CELL_WRONG,        /* the candidate's output failed the check */
	BV_CELL_FAILED,       /* the candidate crashed, hung or failed */
	BV_CELL_VANISHED,     /* the baseline ran it, the candidate lacks it */
	BV_CELL_REGRESSION,   /* the whole interval lies beyond 1 + budget */
	BV_CELL_WARNING,      /* within budget, but significantly slower */
	BV_CELL_IMPROVEMENT,  /* significantly faster, or fixed (the baseline was wrong) */
	BV_CELL_OK,           /* no significant change */
	BV_CELL_NEW,          /* the candidate runs a cell the baseline lacked */
	BV_CELL_UNCOMPARED,   /* both ran, but no ratio (another machine, the baseline failed) */
	BV_CELL_NOT_RUN,      /* neither version ran it here (n/a, skipped) */
	BV_CELL_NSTATUS
} bv_cell_status;

/* "regression", "build failed", ...: for tables and JUnit. */
const char *bv_cell_status_name(bv_cell_status s);
/* "3 regressions", "1 warning": a count with the status's plural. */
const char *bv_cell_status_count(bv_cell_status s, size_t n, char *buf, size_t len);
/* Whether a cell with this status makes the candidate NOT READY. */
int bv_cell_status_blocks(bv_cell_status s);

typedef struct bv_report_cell {
	const bv_row *row; /* in the report's table */
	bv_cell_status status;
	double budget; /* allowed slowdown (fraction) */
	const bv_budget_rule *rule; /* the override that set it, or NULL: the default */
	char *why; /* one line: how the ratio stands against the budget, or the failure's reason */
} bv_report_cell;

typedef struct bv_report_group {
	char *bench;
	double geomean; /* of the candidate's ratios; 0 when n == 0 */
	size_t n;
	size_t counts[BV_CELL_NSTATUS];
} bv_report_group;

/* What one log says about its version and machine (all strings cleaned of
 * control characters; NULL when the log lacks them). */
typedef struct bv_report_env {
	char *label, *name, *kind, *commit, *tree, *kernel_version, *rule, *summary;
	char *run_id, *created;
	char **compat; /* ids of the compat rules applied */
	size_t ncompat;
	char **compat_notes; /* each rule's note from compat.json here, or NULL */
	char *cflags;        /* the build's extra flags, space-separated */
	int build_failed;
	char *build_error;
	char *hostname, *cpu, *os, *compiler, *governor, *openblas, *gpu;
	int cores;
	double copy_gbps, peak_gflops;
	int quick;
	char *method_mode;
	char *log; /* the log's path */
} bv_report_env;

typedef struct bv_report {
	bv_table table; /* owned: [0] the baseline, [1] the candidate */
	const bv_budgets *budgets;
	bv_report_cell *cells; /* one per table row, in its order */
	size_t ncells;
	size_t counts[BV_CELL_NSTATUS];
	bv_report_group *groups;
	size_t ngroups;
	double geomean; /* over every cell with a ratio; 0 when none */
	size_t ngeomean;
	int ready;
	int baseline_failed; /* the baseline did not build: nothing could be judged */
	char **reasons; /* why NOT READY, one sentence each, worst first */
	size_t nreasons;
	bv_report_env env[2];
	char *reproduce; /* a command line that measures this again */
} bv_report;

/* Fills r->env from the two logs (baseline, candidate): versions, builds,
 * compat rules, machines.  r starts zeroed; call before bv_report_judge. */
int bv_report_read_env(bv_report *r, char *const *logs);
/* Judges a merged table of two versions against budgets: every cell's
 * status, the reasons, the geomeans, the reproduce line.  Takes ownership of
 * *t (moved into r->table); b must outlive r.  A version counts as not built
 * when r->env says so or its cells say "build failed".  Reads no files (for
 * unit tests, r->env may stay empty). */
int bv_report_judge(bv_report *r, bv_table *t, const bv_budgets *b);
void bv_report_free(bv_report *r);
/* `again` measures (some of) the same cells anew: every regression it does
 * not confirm (a controlled `slower` wholly beyond the budget) becomes a
 * warning saying both measurements, the reasons and the verdict are made
 * again, and a note says how many were re-measured and confirmed.  A cell
 * blocks a release only when two measurements say so: interference that
 * lasts many processes (another job taking memory bandwidth) can make a
 * paired ratio real for a while and wrong about the code. */
void bv_report_recheck(bv_report *r, const bv_table *again);
/* After the table's changes got their counts (counts.c: bv_counts_explain):
 * a regression whose counts are identical on both sides is placement or
 * the machine, not the code, and becomes a warning saying so; every other
 * counted cell's why gets the counts' text ("instr +3.0 % (fn +3.1 %)"). */
void bv_report_explain(bv_report *r);

/* The exit status that goes with a report: 0 ready, 1 not ready, 3 when the
 * baseline did not build (no comparison was possible). */
int bv_report_exit_code(const bv_report *r);

/* Formatting shared by the three formats. */
void bv_report_ratio(const bv_report_cell *c, char *buf, size_t len); /* "3.02x [2.95, 3.10]" or "-" */
void bv_report_budget(const bv_report_cell *c, char *buf, size_t len); /* "+5%" */
/* The ratio (when there is one) and the why: "3.02x [2.95, 3.10]: ..." (malloc'd). */
char *bv_report_cell_summary(const bv_report_cell *c);
/* "unary relu scalar 64K" */
void bv_report_cell_name(const bv_report_cell *c, char *buf, size_t len);

int bv_report_html(const bv_report *r, FILE *out);
int bv_report_markdown(const bv_report *r, FILE *out);
int bv_report_junit(const bv_report *r, FILE *out);
/* The text format, for stdout only (report_text.c). */
int bv_report_text(const bv_report *r, FILE *out);

/* The formats (report.c): each one's name, its file next to the logs
 * (NULL: stdout only) and its writer; NFORMATS of them. */
typedef struct bv_report_format {
	const char *name, *file;
	int (*fn)(const bv_report *, FILE *);
} bv_report_format;
enum { BV_REPORT_NFORMATS = 4 };
extern const bv_report_format bv_report_formats[BV_REPORT_NFORMATS];
int bv_report_write_file(const char *path, int (*fn)(const bv_report *, FILE *), const bv_report *r);
int bv_report_format_index(const char *name);
/* "html,junit" -> which of the three files to write. */
int bv_report_formats_parse(const char *list, int want[BV_REPORT_NFORMATS]);

/* report --from RUN_DIR RUN_DIR... (report_classes.c), and one run's two
 * logs (the baseline first). */
int bv_report_run_logs(const char *dir, const char *base, const char *cand, char **paths);
int bv_report_classes(char *const *dirs, size_t n, const char *baseline, const char *candidate,
                      double threshold, int across, const bv_budgets *budgets, const char *out_dir,
                      const int want[BV_REPORT_NFORMATS], int print_index);

#endif
