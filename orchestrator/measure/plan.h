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

/* The expected time of each of n cells (bv_cell_expected_s) in whole ms, and
 * their cut into count shards (bv_shard_partition): *cost_ms and *shard_of
 * (n each) and *shard_ms (count: each shard's total) for the caller to free.
 * What bv_plan_cells's --shard and the plan (planner.h) both cut by. */
void bv_shard_cut(const struct bv_cell *cells, long n, const bv_measure_opts *o, int count, long long **cost_ms,
		  int **shard_of, long long **shard_ms);

/* What a command measures, planned once from its options (planner.h's
 * bv_plan_build) and handed to every stage that needs it: the estimate,
 * --dry-run, the --resume check, the measuring and its logs, `plan`.  The
 * cells are bv_plan_cells's, in the run's order; a shard's are the cut's. */
struct cJSON;
struct bv_version;
typedef struct bv_plan {
	const bv_measure_opts *o; /* planned from (the caller's: it outlives the plan) */
	const struct bv_version *vs; /* the versions (the caller's), NULL when planned without */
	size_t nvs;
	/* Every planned cell of the matrix (every shard's), the run's order;
	 * all_pos: each one's position in the lists' selection (bv-runner's
	 * index); cost_ms: its expected time; shard_of: its shard (0-based;
	 * all 0 when the matrix is not cut); shard_ms: each shard's total. */
	struct bv_cell *all;
	long nall;
	long *all_pos;
	long long *cost_ms, *shard_ms;
	int *shard_of;
	/* The cut (o->shard_count; 0: none) and this command's part of it
	 * (o->shard_index; 0: every shard, as `plan` shows them). */
	int shard_count, shard_index;
	/* This command's cells: its shard's, or all; pos as all_pos. */
	struct bv_cell *cells;
	long ncells;
	long *pos;
	/* With versions and a cut: the plan block every shard log records
	 * (shard.h: id, index, count, versions, cells, method); else NULL. */
	struct cJSON *block;
} bv_plan;
void bv_plan_free(bv_plan *p);

/* The method block: the options that shape a number, as a results log
 * records them (log 1, with processes_started, the seed, the memory limit
 * and how the interval is made) or as a plan does (log 0: without what
 * differs from node to node, the seed, the memory limit (80 % of each node's
 * own memory by default) and --jobs, which would make every node's plan
 * differ).  The one writer of "method": the two agree on every field they
 * share; each keeps its keys in the order its readers have always seen. */
struct cJSON *bv_method_block(const bv_measure_opts *o, int log, int processes_started);

/* The part of bv_run_cli_finish (run_options.h) that checks the selection
 * against the registry: the cells it names (none: an error saying why, a
 * --sizes hint, a --filter that matches nothing); *ncells (when not NULL)
 * their count.  With a project suite it runs once the suite is registered
 * (suite.h). */
int bv_selection_check(bv_measure_opts *mo, long *ncells);

#endif
