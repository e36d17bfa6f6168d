/*
 * results.h - the results log (docs/results-format.md): its schema, the one
 * loader every reader of a log goes through (compare's and run's tables in
 * merge.c, run --resume in measure.c, bisect, report --from, share), and
 * typed views of a log's cells.
 *
 * A log is hostile input until the loader has checked it: its size before a
 * byte is read, the JSON (json.c: positions, nesting, no key twice), the
 * schema, and every cell: types, a known status, numbers that are finite,
 * positive and ordered (ci_low <= estimate <= ci_high), and no cell twice.
 * Readers then take typed values and never meet a number they would have to
 * second-guess; a check added here protects every command at once.
 */
#ifndef BV_RESULTS_H
#define BV_RESULTS_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "common.h"
#include "status.h"

#define BV_RESULTS_SCHEMA "bench-versions-results"
/* What measure.c writes; readers take every 1.x (minor versions only add). */
#define BV_RESULTS_MAJOR 1
#define BV_RESULTS_MINOR 3
#define BV_RESULTS_VERSION "1.10"
/* Bytes of one log, and of all the logs one command reads: both checked
 * with fstat before anything is read.  A full matrix measured with the
 * default method is a few MB; parsed, a log takes 5-15 times its size. */
#define BV_RESULTS_MAX ((size_t)256 << 20)
#define BV_RESULTS_TOTAL_MAX ((unsigned long long)1 << 30)


/* A cell's change block ("change"; "paired" in 1.0 logs): its ratio to the
 * baseline of its run. */
typedef struct bv_log_change {
	const char *baseline; /* the label it is a ratio to; NULL when not said */
	const char *mode;     /* "paired" or "isolated" (canonical strings) */
	double ratio, ci_low, ci_high; /* finite, > 0, ci_low <= ratio <= ci_high */
	double coverage;      /* in [0, 1]; -1 when not said */
	int processes;        /* 0 when not said */
	const cJSON *process_ratios; /* numbers, finite and > 0; NULL when absent */
	const cJSON *process_state;  /* an array, or NULL */
	int layouts;                 /* 0 when not said */
	double layout_lo, layout_hi; /* with layouts > 1 and a layout_spread */
	int has_spread;
} bv_log_change;

/* One cell of a log.  Strings point into the document, unescaped: they are
 * the log's text (escape them before showing them). */
typedef struct bv_log_cell {
	const char *bench, *op, *backend;
	size_t size; /* packed shapes are exact up to 2^53 */
	bv_status status;   /* a logged one: BV_ST_OK .. BV_ST_LAST_LOGGED (status.h) */
	const char *reason; /* NULL when none */
	int processes;      /* 0 when not said */
	/* ok cells: finite, > 0, ci_low <= median <= ci_high; else 0 */
	double median_ns, ci_low_ns, ci_high_ns;
	/* finite and >= 0 where present; 0 when absent */
	double gbps, gflops, pct_copy_bw, pct_peak_flops, host_bytes, device_bytes;
	/* the library's own peak allocation during a call (its workspace),
	 * finite and >= 0 where present; NAN when absent or null */
	double library_host_bytes, library_device_bytes;
	int has_change;
	bv_log_change change;
	/* ok cells since schema 1.7: process_medians_ns[] (each > 0, finite)
	 * and process_ids[] (the runner process of each, whole numbers >= 1),
	 * of one length; NULL when the log has no ids (older logs) */
	const cJSON *process_medians, *process_ids;
	/* why sampling stopped (schema 1.8; NULL when not said): "decided",
	 * "budget" (with stop_budget_s > 0, the budget it would have passed)
	 * or "max_processes" */
	const char *stopped;
	double stop_budget_s;
} bv_log_cell;

/* Loads path as a results log and checks all of the above; BV_EINPUT with
 * "FILE: ..." or "FILE: cells[N] (bench op backend size): what is wrong"
 * (the JSON's own errors as "FILE:LINE:COLUMN: ...").  *doc is NULL on
 * error; the caller cJSON_Deletes it. */
int bv_log_load(const char *path, cJSON **doc);
/* Whether a document says it is a results log (its "schema"), before any
 * other check: share skips other JSON but refuses a broken log. */
int bv_log_claims(const cJSON *doc);
/* The checks of bv_log_load on a document already parsed from path. */
int bv_log_check(const char *path, const cJSON *doc);
/* Before reading any of them: each of paths is a regular file of at most
 * BV_RESULTS_MAX bytes, and together at most BV_RESULTS_TOTAL_MAX. */
int bv_logs_check_sizes(char *const *paths, size_t n);

/* The cells of a checked log, for cJSON_ArrayForEach. */
const cJSON *bv_log_cells(const cJSON *doc);
/* One element of bv_log_cells(doc) read into *out: on a log bv_log_load
 * accepted it cannot fail (returns 0). */
int bv_log_cell_read(const cJSON *cell, bv_log_cell *out);

/* The logs of a run's directory (results/<run>/, as run writes it): the
 * run's baseline first, then its other versions in the run's order (the
 * run block of the first log there; file names only for logs without one).
 * *paths (n of them, each and the array for the caller to free); nversions,
 * when not NULL, gets how many versions the run had.  BV_EINPUT when dir
 * cannot be opened or holds no results log.  compare DIR and report --from
 * DIR both read a directory through this. */
int bv_run_dir_logs(const char *dir, char ***paths, size_t *n, size_t *nversions);
/* The same, handing back the log it loaded to read the run's order (already
 * checked, as bv_log_load leaves it) in *kept, and its index in *paths in
 * *kept_at, so a caller that loads every log reads that one once; *kept is
 * NULL when it is not among the paths. */
int bv_run_dir_logs_keep(const char *dir, char ***paths, size_t *n, size_t *nversions, cJSON **kept,
			 size_t *kept_at);

#endif
