/*
 * measure.h - plugins to paired samples in many short processes, to logs
 * (measure.c).  bv_measure_opts is measure's: what bv_measure and
 * bv_plan_cells take; run_options.h fills it from the command line.
 */
#ifndef BV_MEASURE_H
#define BV_MEASURE_H

#include <stddef.h>

#include "resolve.h"

typedef struct bv_measure_opts {
	const char *benches, *ops, *backends, *sizes; /* comma lists, NULL: all */
	/* --filter: a regex over "bench/op/backend/size" that narrows the cells
	 * the lists select before anything is measured (bv_plan_cells); NULL: all */
	const char *filter;
	int isolated;      /* one process per version instead of all in one */
	int min_processes; /* per cell, before the interval may stop sampling */
	int max_processes; /* per cell; equal to min: a fixed count */
	double budget_s;   /* measuring time per cell, all versions together */
	int rounds;
	double sample_us;
	double timeout_s; /* one check or timing step of one cell */
	double threshold; /* smallest change that counts (0.02 = 2 %) */
	unsigned long long seed;
	int pin;     /* CPU to pin the measuring processes to, or -1 */
	int threads; /* threads a backend may use (OpenBLAS, OpenMP) */
	int inputs;  /* input sets each call cycles through (--inputs; 1: one buffer) */
	/* the simd backend forced onto one instruction set in every version
	 * (kn_simd_set_isa: "avx512", "avx2", "generic"); NULL: each version's
	 * own choice for this CPU */
	const char *simd_isa;
	int quick;
	int resume; /* results_dir holds an unfinished run of the same plan: reuse its finished cells */
	int layouts; /* code layouts per version (>= 1); each process takes one at random per version */
	int recalibrate; /* measure the machine's calibration again before measuring (machine.h) */
	/* bytes a measuring child (a check or a timing of one cell) may
	 * allocate beyond what bv-runner holds, else its cell is "out of
	 * memory"; 0: no limit */
	unsigned long long memory_limit;
	/* --shard I/N: measure only the I-th of N slices of the planned cells
	 * (shard.h; bv_plan_cells applies it); 0/0: the whole matrix */
	int shard_index, shard_count;
	/* The comparisons whose evidence is decided together, when more than
	 * this run's own (0: this run's cells x versions): history measures a
	 * window of a series whose every step is one family (cmd_history.c), so
	 * a window samples until its steps' evidence would survive there. */
	size_t family;
	/* History's windows (consecutive versions of a series): a cell the
	 * window's first version lacks (an op a later release added) is
	 * steered by its ratios to the first version that has it, per process,
	 * instead of stopping at min_processes for want of a ratio. */
	int series;
	/* Processes a cell takes even past its time budget (0: the budget may
	 * stop a cell at 6): the backend view's verdicts need about 10, and a
	 * 19x win stopped at 6 by the budget came out inconclusive. */
	int floor_processes;
	/* --vs NAME=VALUE / --vs-backend B: sampling also decides each cell's
	 * ratio to its reference cell on the axis (paired by process), and the
	 * reference is measured in the same processes, so the view's verdicts
	 * get the processes they need; NULL: versions only.  Not const: a
	 * suite's variant parameter (--vs variant=B) is the backend axis, known
	 * once the suite is described (bv_suite_describe settles it). */
	struct bv_vs_axis *vs;
} bv_measure_opts;

/* The cells a run measures: bv_cells_select's for o's lists, narrowed by
 * o->filter, then to o's shard (o->shard_count > 0: shard.h's cut).  bv-runner selects by the lists alone, so *pos (optional) gets
 * each kept cell's position in that list: the index the runner knows it by.
 * Returns the count (0: the filter matches nothing), or -1 with err set (a
 * bad list or regex). */
struct bv_cell;
long bv_plan_cells(const bv_measure_opts *o, struct bv_cell **out, long **pos, char *err, size_t errlen);
/* Whether this machine can run cuda cells: an NVIDIA device or driver is
 * visible (/dev/nvidia0, /proc/driver/nvidia).  Without one the runner
 * marks them skipped at once, so they cost no measuring time. */
int bv_gpu_visible(void);

/* Measures every version that built, writes results_dir/<label>.json per
 * version and returns their paths in *logs (n entries, one per version).
 * The logs are rewritten whenever a cell finishes; on an interruption
 * (BV_EINTR) or a failure they keep what finished, for o->resume. */
int bv_measure(const bv_version *vs, size_t n, const bv_measure_opts *o, const char *results_dir,
	       char ***logs);
/* --resume: BV_EINPUT naming the difference unless dir's logs (if any) come
 * from the same versions, trees, cells and method as vs and o; after_build
 * also compares the builds and the machine.  Takes over the run's seed. */
int bv_resume_check(const char *dir, const bv_version *vs, size_t n, bv_measure_opts *o, int after_build);

#endif
