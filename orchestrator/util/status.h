/*
 * status.h - what became of one cell in one version: the one list of cell
 * statuses.  A log says them as text (docs/results-format.md; the runner
 * and measure.c write it); everything between reading a log and writing an
 * output holds this enum, and text appears only at those edges.
 */
#ifndef BV_STATUS_H
#define BV_STATUS_H

typedef enum {
	BV_ST_NONE = 0,     /* not read: no status (zeroed memory) */
	BV_ST_OK,           /* "ok": measured */
	BV_ST_NA,           /* "n/a": this version lacks the op or backend */
	BV_ST_SKIPPED,      /* "skipped": this machine cannot run it (no GPU) */
	BV_ST_WRONG,        /* "wrong result": its output failed the check */
	BV_ST_CRASHED,      /* "crashed": killed by a signal */
	BV_ST_TIMEOUT,      /* "timeout": past --timeout */
	BV_ST_FAILED,       /* "failed": an error of the version's own */
	BV_ST_UNFINISHED,   /* "unfinished": the run stopped before it */
	BV_ST_OOM,          /* "out of memory": past --memory-limit */
	BV_ST_BUILD_FAILED, /* "build failed": the version did not build (merge's own, never in a log) */
	BV_ST_NOT_RUN,      /* "not run": a count not made, its build gone or Valgrind not started
	                       (counts.c's own, in counts.json, never in a results log) */
} bv_status;

#define BV_ST_LAST_LOGGED BV_ST_OOM /* the statuses a log may hold: BV_ST_OK .. this */

/* The status's text ("wrong result"); NULL for BV_ST_NONE or no status. */
const char *bv_status_name(bv_status s);
/* The status a log's text names (BV_ST_OK .. BV_ST_LAST_LOGGED), else
 * BV_ST_NONE. */
bv_status bv_status_parse(const char *text);
/* The status any text of bv_status_name names, the program's own ones too
 * (build failed, not run), else BV_ST_NONE: for what only this program
 * writes and reads back (counts.json). */
bv_status bv_status_parse_any(const char *text);
/* Whether a cell with this status ran (ok, wrong result, crashed, timeout,
 * out of memory, failed), as opposed to n/a, skipped, unfinished or a
 * version that did not build: the one list merge, report and the exporters
 * share.  A crash, a timeout, running out of memory or a failed check
 * happened while the cell's code ran, and are results a table shows and a
 * report judges; the others mean nothing of it was executed. */
int bv_status_ran(bv_status s);
/* A cell only one side has: new when the candidate ran it ok and the
 * baseline lacks it (n/a or skipped), vanished when the baseline ran it and
 * the candidate lacks it (n/a). */
typedef enum { BV_GAP_NONE = 0, BV_GAP_NEW, BV_GAP_VANISHED } bv_gap;
bv_gap bv_status_gap(bv_status base, bv_status cand);
/* The gap as every exporter and report say it: "new", "vanished"; NULL for
 * BV_GAP_NONE. */
const char *bv_gap_name(bv_gap g);

#endif
