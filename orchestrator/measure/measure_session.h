/*
 * measure_session.h - what one measure call (bv_measure, measure.c)
 * accumulates: per cell, per version and per runner process, and the
 * helpers every file of the measure stage uses on it (measure_session.c).
 *
 * Apart from measure.h because it is the stage's inside: no other module
 * reads a session, and each of the stage's files (measure_process.c,
 * measure_stop.c, measure_log.c, measure_resume.c) does.  The functions they
 * share are named bv_ms_*.
 */
#ifndef BV_MEASURE_SESSION_H
#define BV_MEASURE_SESSION_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "benches.h"
#include "plan.h"
#include "resolve.h"
#include "status.h"

/* The machine's state around one process's timing of a cell, as the runner
 * reported it: [0] before, [1] after; NAN where it said nothing. */
typedef struct pstate {
	double loadavg[2], running[2], gbps[2], compute_ns[2];
} pstate;

/* One version in one cell, accumulated over trials. */
typedef struct vstate {
	bv_status status; /* BV_ST_NONE while every trial said ok; else the first failure */
	char *reason;
	double host_bytes, device_bytes;
	double lib_host, lib_device; /* the library's workspace in a call; NAN: not counted */
	double work[3]; /* a suite cell's bvs_work (bytes, flops, items) as the runner said it; 0: not said */
	double **samples; /* [trial] ns per call, one per round */
	size_t *nsamples;
	double *med;   /* [trial] median of the trial's samples, NAN if none */
	double *ratio; /* [trial] vs the baseline, NAN if none */
	int *layout;   /* [trial] the code layout this version had (--layouts) */
	pstate *state; /* [trial] the machine around this version's process */
	int *proc;     /* [trial] the runner process (raw/process-N.json's N) */
	double retaken, kept; /* samples re-taken, and kept though preempted, over trials */
} vstate;

typedef struct cstate {
	long index;
	char *bench, *op, *backend;
	size_t size;
	double reps, elapsed_s;
	double input_sets; /* the sets the runner cycled (--inputs); 0 until a process says */
	int ntrials, active;
	int checked; /* every version's output checked in an earlier trial */
	int again;   /* 1: its ratio followed the machine's state; measured again at the end of the run */
	int again_from; /* the trial at which that began */
	/* Why sampling stopped, for the log: "decided", "budget" (the next
	 * process would have passed stop_budget_s, one --budget or three for a
	 * cell that looked changed) or "max_processes"; NULL while active, or
	 * when no version could be measured. */
	const char *stopped;
	double stop_budget_s;
	int drew; /* sampled past its three budgets on the run's spare time */
	/* The first process's time (it checks every version's output, which a
	 * suite's reference can make seconds) and the latest's (what the next
	 * costs): a long cell's own extension is reckoned without the check. */
	double first_s, last_s;
	/* The vs view's reference cell of this one (o->vs: the same cell but
	 * for the axis's value, which is the reference's), an index into the
	 * session's cells; -1: none, or this is a reference. */
	long ref;
	vstate *v; /* one per version */
	cJSON **prior; /* --resume: the cell as an earlier run logged it, per version */
} cstate;

typedef struct session {
	const bv_version *vs;
	size_t n;
	const bv_measure_opts *o;
	cstate *cells;
	size_t ncells;
	int max_trials;
	char *raw;
	int processes; /* runner processes started (by earlier runs too, when resumed) */
	int *layout;   /* per version: the layout the current process loads */
	char **simd_isa; /* per version: what its simd backend dispatched to (runner) */
	uint64_t layout_rng;
	/* the logs */
	const char *dir;
	const bv_cell *defs;
	long ndefs;
	cJSON *calib, *machine;
	char *created;    /* the run's first start */
	cJSON *resumed;   /* when it was resumed, UTC */
	size_t nwritten;  /* finished cells in the logs last written */
	int probe_fd;     /* the runners' probe buffers, one memory file for the run; -1 if none */
	/* --shard I/N: the plan this shard belongs to (shard.h), recorded in
	 * every log; NULL when the run is not a shard */
	cJSON *plan;
	/* cells of the whole plan: a shard's stopping rule holds its evidence to
	 * the share of the false-discovery rate the joined run will decide it
	 * at, not to its own (smaller) family's */
	size_t plan_cells;
} session;

/* A version that built and loaded: the ones a process measures. */
int bv_ms_measurable(const bv_version *v);
/* Cells still sampling, and cells finished (sampled to their end, or reused). */
size_t bv_ms_count_active(const session *s);
size_t bv_ms_count_finished(const session *s);
void bv_ms_session_free(session *s);
/* dir/<label>.json: version v's log in a results directory. */
char *bv_ms_log_path(const char *dir, const bv_version *v);

#endif
