/*
 * plan.h - what a run measures (plan.c): its options (bv_measure_opts,
 * which run_options.c fills from the command line and bv_measure takes),
 * the cells they select, and the cut of those cells into shards.
 *
 * Apart from measure.h and shard.h because both use it and each uses the
 * other's (measure.c runs its shard's plan, shard.c plans the shards), as
 * suite.c and run_options.c do: with it in measure.h, each was an include
 * cycle through measure for scripts/layout.py (rule 3).
 */
#ifndef BV_PLAN_H
#define BV_PLAN_H

#include <stddef.h>

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
 * o->filter, then to o's shard (o->shard_count > 0: the cut below).
 * bv-runner selects by the lists alone, so *pos (optional) gets each kept
 * cell's position in that list: the index the runner knows it by.
 * Returns the count (0: the filter matches nothing), or -1 with err set (a
 * bad list or regex). */
struct bv_cell;
long bv_plan_cells(const bv_measure_opts *o, struct bv_cell **out, long **pos, char *err, size_t errlen);

/* The measuring time a cell is expected to take, all versions together, in
 * seconds (a model, docs/scale-out.md): a cell samples until its interval
 * decides or its budget is spent, at least --min-processes processes, each
 * writing the cell's inputs and timing a pair of versions `rounds` times.
 * It depends on the cell and the method only, never on this machine, so
 * every node of a cluster cuts the matrix the same way. */
double bv_cell_expected_s(const struct bv_cell *c, const bv_measure_opts *o);

/* Cuts n cells, cell k expected to take cost_ms[k] (whole milliseconds, so
 * every machine adds them alike), into count shards: shard_of[k] gets cell
 * k's shard, 0-based.  Longest first onto the shard with the least time so
 * far (ties: the earlier cell, the lower shard), which stays within 4/3 of
 * the best possible longest shard.  Deterministic; with count > n the last
 * shards are empty. */
void bv_shard_partition(const long long *cost_ms, size_t n, int count, int *shard_of);

/* The part of bv_run_cli_finish (run_options.h) that checks the selection
 * against the registry: the cells it names (none: an error saying why, a
 * --sizes hint, a --filter that matches nothing); *ncells (when not NULL)
 * their count.  With a project suite it runs once the suite is registered
 * (suite.h). */
int bv_selection_check(bv_measure_opts *mo, long *ncells);

#endif
