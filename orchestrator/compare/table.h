/*
 * table.h - the comparison table's types: bv_table, its rows, results and
 * changes, and the vs axis a table holds (bv_vs_axis).
 *
 * Apart from merge.h because several modules own parts of these types:
 * merge.c makes the table and frees it, verdict.c decides its changes,
 * backends.c fills its vs view, counts.c and classes.c hang their parts on
 * it, and the exporters read it.  Put in merge.h, they would make every one
 * of those modules depend on merge, and merge depends on verdict, backends,
 * classes and counts: an include cycle for scripts/layout.py (rule 3).  So
 * too the few functions every reader needs (table.c): a row's key, a
 * version's baseline column, --filter's regex.  The others stay in the
 * header of the module that defines them (merge.h, verdict.h, backends.h,
 * export.h).
 */
#ifndef BV_TABLE_H
#define BV_TABLE_H

#include <regex.h>
#include <stddef.h>

#include "stats.h"
#include "status.h"

/* The axis of the vs view (run/compare --vs NAME=VALUE, --vs-backend B;
 * backends.c): what varies between a cell and its reference cell, and the
 * reference's value.  The backend axis pairs each cell with the same bench,
 * op and size on backend ref; a parameter axis (a suite op's "[level=9]",
 * docs/suites-design.md "Cell identity") pairs pack[level=9] with
 * pack[level=1] of the same bench, backend and size.  A value type: no
 * pointers, copied into the table. */
typedef struct bv_vs_axis {
	int on;          /* 0: no view asked */
	char param[64];  /* "": the backend axis; else the parameter's name */
	char ref[128];   /* the reference value (a backend, or the parameter's value) */
	char option[224]; /* how it was asked, for messages: "--vs-backend simd", "--vs level=1" */
} bv_vs_axis;

typedef struct bv_result {
	bv_status status;
	char *reason;
	double median_ns, ci_low_ns, ci_high_ns;
	double gbps, gflops;                 /* 0 when the cell has no such work */
	double pct_copy_bw, pct_peak_flops;  /* of this machine's calibration, 0 if unknown */
	double host_bytes, device_bytes;     /* footprint */
	double library_host_bytes, library_device_bytes; /* the library's workspace; NAN: not counted */
	int processes;
	/* why sampling stopped (the log's "stopped", schema 1.8; NULL when not
	 * said): "decided", "budget" (stop_budget_s: the budget it would have
	 * passed) or "max_processes" */
	const char *stopped;
	double stop_budget_s;
	/* per process, paired with the process it came from (logs of schema
	 * 1.7 on; NULL before): what the backend view pairs by */
	double *proc_ns;
	int *proc_id;
	size_t nproc_ns;
} bv_result;

typedef struct bv_change {
	int valid;
	double ratio, ci_low, ci_high, coverage;
	bv_verdict verdict;  /* BV_NO_VERDICT without a ratio (verdict.c; stats.h) */
	int paired;          /* measured in the same processes as the baseline */
	const char *mode;    /* paired, isolated, unpaired (different runs) */
	/* unpaired because the two logs come from different runs: never called
	 * slower or faster (merge.c; docs/measurement.md has the figures) */
	int between_runs;
	int noisy;           /* "same", but the interval reaches past the threshold */
	int processes;
	const char *none; /* when !valid: why there is no ratio ("other machine"; "new": only
			   * this version has the cell; "vanished": only the baseline) */
	/* verdict.c: the evidence from the per-process ratios (anytime-valid
	 * sign tests against the threshold band, stats.h), NAN without them
	 * (logs before 1.3, unpaired ratios) */
	double p_slower, p_faster;
	double p;       /* min(1, 2 min(p_slower, p_faster)): either direction */
	int controlled; /* p took part in the run-wide false-discovery control */
	int held;       /* the cell's own interval would say slower/faster; the run's control does not */
	/* the per-process evidence, as merge read it (verdict.c decides on it):
	 * each process's ratio and the machine's state around it, the better of
	 * before and after (NAN where not recorded; verdict.c says why) */
	double *proc_ratio, *proc_gbps, *proc_compute_ns;
	double *proc_running; /* runnable tasks, the fewer of before and after; NULL or NAN where not recorded */
	size_t nproc;
	/* verdict.c: the processes split by the machine's state */
	int state_dependent;          /* the ratio follows the machine's state */
	int unstable;                 /* ... and too few processes at the usual state to judge */
	double level_usual, level_disturbed; /* median ratio at each */
	size_t n_usual, n_disturbed;
	int layouts;    /* code layouts measured (--layouts), 0 or 1: one */
	double layout_lo, layout_hi; /* the ratio's spread across layouts (measure.c), when layouts > 1 */
	/* counts.c: why the cell changed, from Valgrind's counts of one call of
	 * each side (NULL: not counted); the table owns it */
	struct bv_count_cmp *why;
} bv_change;

typedef struct bv_row {
	char *bench, *op, *backend;
	size_t size;
	double bytes, flops; /* work per call */
	bv_result *results;  /* one per version */
	bv_change *changes;  /* one per version; [0] (the baseline) unused */
	/* --only-changes: not shown, still part of what was measured (the
	 * geomeans and the verdicts line count it) */
	int hidden;
} bv_row;

/* What a version's log says about where its numbers come from, for the
 * exporters that print it (JSON): escaped strings, NULL where the log has
 * none (an older log, a local tree has no commit). */
typedef struct bv_version_meta {
	char *commit, *tree;  /* version.commit, version.tree */
	char *cpu, *isa;      /* machine.cpu, machine.calibration.isa */
	char *simd_isa;       /* version.simd_isa: what its simd backend dispatched to */
	char *build_key;      /* version.build.key (40 hex digits): its build in the cache */
	double cores;         /* machine.cores; 0 when not said */
} bv_version_meta;

/* What a family of changes came to (bv_changes_decide). */
typedef struct bv_decided {
	size_t tested, called, inconclusive;
} bv_decided;

/* The backend view (backends.c): one backend's cell over the reference
 * backend's, in one version, paired by process. */
typedef struct bv_backend_cmp {
	size_t version;      /* column */
	size_t row, ref_row; /* the backend's row and the reference's */
	bv_change ch;        /* ratio < 1: the backend is faster; none says why there is no ratio */
} bv_backend_cmp;

/* The fastest backend of one version's cell (bench, op, size) by its paired
 * ratio to the reference, against the next fastest (backends.c).  Every
 * host backend of a version runs in the same processes, so the two are
 * paired by process too, whichever they are. */
typedef struct bv_backend_win {
	size_t version;
	size_t row, next_row; /* the fastest backend's row and the next fastest's */
	bv_change ch;         /* row's time over next_row's: faster means a clear winner */
} bv_backend_win;

typedef struct bv_table {
	size_t nversions;
	char **labels;
	char **descriptions; /* "0.1.0: commit 1a2b3c4 (kernels 0.1.0)" */
	bv_version_meta *meta; /* per version; NULL in a table built by hand */
	size_t nrows;
	bv_row *rows;
	char *method; /* how the numbers were measured, in one line */
	double threshold;
	const char *units; /* how exporters show a result: time (default), rate, peak */
	char **notes;      /* caveats every exporter shows: "main.json was measured on ..." */
	size_t nnotes;
	/* verdict.c: run-wide error control */
	double fdr;      /* the false-discovery rate the verdicts are held to */
	size_t tested;   /* comparisons decided together (controlled changes) */
	size_t called;   /* of those, slower or faster */
	size_t unstable; /* changes whose ratio followed the machine's state, not judged */
	size_t inconclusive; /* changes neither shown same nor called (verdict.c) */
	size_t between_runs; /* unpaired changes across runs: inconclusive by rule (merge.c) */
	char *control;   /* one line saying so, for every exporter's footer */
	char *counts;    /* counts.c: how the changes were explained, one line; NULL: not counted */
	int colour;      /* the table format paints verdicts (bv_colour_wanted) */
	/* --wide: each change's details in its cell (the layout before notes);
	 * width: the columns the text table fits (bv_term_width), 0: any */
	int wide;
	size_t width;
	/* Machine classes side by side (classes.c): NULL/0 in a table of one
	 * class.  Otherwise each version belongs to classes[class_of[v]], and the
	 * first version of a class is that class's baseline (bv_table_base). */
	struct bv_class *classes;
	size_t nclasses;
	size_t *class_of;
	/* --vs / --vs-backend (bv_table_vs): vs.on 0 and the rest 0 unless
	 * asked for.  The names say backends (the view began as the backend
	 * view); each is a cell compared along vs's axis. */
	bv_vs_axis vs;
	bv_backend_cmp *backends;
	size_t nbackends;
	bv_decided backends_decided;
	/* and the fastest backend of each cell, a family of its own */
	bv_backend_win *wins;
	size_t nwins;
	bv_decided wins_decided;
} bv_table;

/* The baseline column of version v: 0, or the first column of v's class. */
size_t bv_table_base(const bv_table *t, size_t v);
/* Whether v is a baseline (no ratio of its own): column 0 or a class's first. */
int bv_table_is_base(const bv_table *t, size_t v);

/* --filter: a POSIX extended regex matched against "bench/op/backend/size"
 * (size as 64K).  A bad regex is BV_EINPUT naming it and regerror's text. */
int bv_filter_compile(const char *regex, regex_t *out);
void bv_row_key(const bv_row *r, char *buf, size_t len);

#endif
