/*
 * runner_internal.h - what the files of bv-runner (runner_main.c,
 * runner_limits.c, runner_check.c, runner_timing.c, runner_cell.c) share:
 * a version as loaded, a cell's data, the settings, and each stage's entry
 * point.  Internal to bv-runner; what bench-versions must know of the
 * runner is runner.h.
 */
#ifndef BV_RUNNER_INTERNAL_H
#define BV_RUNNER_INTERNAL_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "benches.h"
#include "plugin.h"
#include "runner.h"
#include "trust.h"

#define MAX_VERSIONS BV_RUNNER_MAX_VERSIONS
#define ST_WRONG (-1) /* status: output differs from the reference */
/* --count: the largest footprint whose warm call is simulated too, twice
 * counts.h's simulated LL (8 MiB) */
#define BV_COUNT_WARM_MAX (16.0 * 1024 * 1024)

typedef struct version {
	const char *label;
	const bv_plugin *p;
	/* --simd-isa that this version's suite library could not be forced
	 * onto (BVS_LIBRARY without set_isa, or its refusal): why, and its
	 * suite cells are n/a here rather than measured on another ISA. */
	char isa_refused[1000]; /* fits a reason (1024) */
} version;

/* A version's state in the child that times a cell. */
typedef struct timed {
	version *v;
	bv_call call; /* the benchmark's run (the suite's trampoline) */
	bv_args args; /* args.cell: the cell's state (suite_open) */
	double *samples;
	long retaken, contaminated; /* re-takes, and samples kept though preempted */
} timed;

/* What the parent knows of a cell before any child forks: its layout (a
 * catalog cell's footprint and input sets are the layout's) and the input
 * sets the run asks for (--inputs: every version's setup makes its own). */
typedef struct cell_data {
	const bv_cell *c;
	bv_layout l;
	int inputs;
} cell_data;

typedef struct settings {
	int rounds;
	double sample_ns;
	double timeout_s;
	double cell_ns; /* target time for timing one cell in this process */
	int threads;    /* threads a backend may use (--threads) */
	int inputs;     /* input sets cycled through (--inputs) */
} settings;

/* The memory suite cells share between the versions timed side by side
 * (bv_suite.h's bvs_alloc_shared; bv_share_fn): the index-th buffer of the
 * cell, made by the first version that asks and given to every later one
 * that asks for as many bytes, so they run on the same addresses and pages
 * (no version on fresher pages or other alignment than another).  A version
 * that asks for another size gets memory of its own. */
typedef struct share_arena {
	struct {
		void *buf;
		size_t bytes;
	} *made;                 /* every buffer made: the shared ones first, by index */
	unsigned nshared, n, cap;
} share_arena;

typedef struct check_job {
	version *v;
	const cell_data *d;
	int out_fd; /* a suite cell's: where the plugin writes the output (-1: none) */
} check_job;

typedef struct time_job {
	version **vs;
	int n;
	const cell_data *d;
	const settings *set;
	double since_ns; /* when this process began on the cell (now_ns) */
} time_job;

/* runner_timing.c: the clock, and the random order (seeded by main). */
extern uint64_t rng_state;
void shuffle(int *v, int n);
double now_ns(void);
/* in a child: the versions of one cell timed (a time_job) */
cJSON *time_child(void *arg);

/* runner_limits.c: --memory-limit (0: none), the children, OUT.cell */
extern unsigned long long memory_limit;
void at_open(const char *out);
void at_close(const char *out);
void at_say(long index, const char *label);
cJSON *in_child(cJSON *(*fn)(void *), void *arg, double timeout_s, const char **status, char *why, size_t len);

/* runner_check.c: statuses, a cell opened in a version, its check */
const char *status_name(int s);
cJSON *status_object(int s, const char *reason);
int catalog_cell(const bv_cell *c);
int suite_setup(timed *t, const bv_cell *c, int inputs, char *reason, size_t len);
void *share_take(void *ctx, unsigned index, size_t bytes, int *fill);
void share_free(share_arena *a);
/* in a child: one version's check of one cell (a check_job) */
cJSON *check_child(void *arg);
void suite_checks_agree(const bv_cell *c, const version *vs, int nv, cJSON **entry, const int *out_fd);

/* runner_cell.c: one cell measured, or counted (--count) */
cJSON *measure_cell(version *vs, int nv, const bv_cell *c, long index, const settings *set, char **drops,
		    int ndrops, int checked, bv_probe *probe);
cJSON *count_cell(version *v, const bv_cell *c, long index);

#endif
