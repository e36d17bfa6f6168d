/*
 * slurm.h - `run --slurm`: the shards of one comparison (shard.h) as one
 * Slurm job array, followed to the end and joined into the results log an
 * unsharded run writes (docs/scale-out.md, "Slurm").
 */
#ifndef BV_SLURM_H
#define BV_SLURM_H

#include <stddef.h>

#include "common.h"
#include "run_options.h"

struct bv_option;

/* Times a shard is submitted again after its job failed (a node failure,
 * a killed or cancelled task, a task that ended without finishing its
 * shard): a shard gets at most 1 + BV_SLURM_RETRIES jobs. */
#define BV_SLURM_RETRIES 2

typedef struct bv_slurm_opts {
	int enabled;           /* --slurm */
	const char *partition; /* --partition P; NULL: the cluster's default */
	int shards;            /* --shards N; 0: BV_SLURM_SHARDS_DEFAULT */
	int time_min;          /* --time MIN, each shard's limit; 0: the partition's */
	/* --slurm-cache shared|node: "shared" builds every version here first,
	 * into a cache the nodes see; "node": each shard builds into its
	 * node's own cache */
	const char *cache;
	const char *given; /* the first of these options given (options.h's seen), for messages */
} bv_slurm_opts;

#define BV_SLURM_SHARDS_DEFAULT 4
/* Lines in the table bv_slurm_table fills, its end included. */
#define BV_SLURM_OPTIONS 6

void bv_slurm_init(bv_slurm_opts *so);
/* The options above as an options.h table pointing into so (room for
 * BV_SLURM_OPTIONS), for run's table to include. */
void bv_slurm_table(bv_slurm_opts *so, struct bv_option *opts);

/* Checks the options against each other (BV_EINPUT), before anything else:
 * --partition and the like without --slurm, --resume with it. */
int bv_slurm_check(const bv_slurm_opts *so, const bv_run_cli *c);

/* The whole of `run --slurm`: finds sbatch, squeue and scancel (on PATH, or
 * in $BV_SLURM_BIN), makes and holds the results directory, asks sbatch to
 * check the job (--test-only: an unknown partition is said before anything
 * is built), builds every version here with a shared cache, submits the
 * shards as one array, follows them with a progress line, submits a failed
 * shard again (BV_SLURM_RETRIES), and joins the shards' logs into *dir (one
 * log per version in *logs, names' order), as bv_run_versions returns them.
 * The shards get the same versions and measuring options (c->given, as
 * bv_run_cli_given took them).  Ctrl-C or SIGTERM cancels the jobs
 * (scancel) and returns BV_EINTR; the shards that finished stay in
 * DIR/shards/.  Said on stderr as it goes. */
int bv_slurm_run(char *const *names, size_t n, bv_run_cli *c, const bv_slurm_opts *so, char **dir, char ***logs,
                 int *build_failures);

/* A shard's arguments for `run` (after "run --shard I/N --results DIR"):
 * the measuring options as given (c->given), then --seed, --layouts and the
 * lists as settled in c->mo (a later value wins), "--" and the versions.
 * Appended to *out. */
void bv_slurm_shard_args(const bv_run_cli *c, char *const *names, size_t n, bv_strv *out);

/* K tasks of another command as one job array, with run --slurm's submit,
 * follow, retry and cancel (bisect --slurm: one candidate a task).  Task I
 * (1-based) runs "PROGRAM VERB --slurm-task I --slurm-task-out OUT ARGS..."
 * with OUT a fresh directory under dir (absolute on the nodes), and is
 * done when it exits 0 or 3 having left OUT/done_file. */
typedef struct bv_slurm_tasks_spec {
	const bv_slurm_opts *so; /* --partition, --time */
	int threads;             /* CPUs per task */
	const char *dir;         /* made here; the job script and the tasks' output go in it */
	const char *verb;
	const char *done_file;
	char *const *args;
	size_t nargs;
	int ntasks;
} bv_slurm_tasks_spec;
/* 0 with *dirs (ntasks entries: task I's OUT at I - 1; the caller frees),
 * or an error (BV_EINPUT: sbatch or the like missing, or a refused input;
 * BV_EINTR after Ctrl-C, the jobs cancelled). */
int bv_slurm_tasks(const bv_slurm_tasks_spec *t, char ***dirs);
/* sbatch, squeue and scancel are there (as bv_slurm_tasks finds them; else
 * BV_EINPUT saying which is not), and `sbatch --test-only` of an array of ntasks tasks with so's
 * partition and time limit and threads CPUs each, which submits nothing:
 * 0, or BV_EINPUT with sbatch's words (an unknown partition, a time over
 * the partition's limit), before a command builds anything. */
int bv_slurm_preflight(const bv_slurm_opts *so, int threads, int ntasks);

/* What to do with a shard's job (a pure rule; unit-tested). */
typedef enum {
	BV_SLURM_WAIT,    /* still queued or running, or not yet known to have ended */
	BV_SLURM_DONE,    /* its run finished: collect it */
	BV_SLURM_RETRY,   /* it ended without finishing: submit it again */
	BV_SLURM_GIVE_UP, /* that, with no retry left: the run fails (exit 3) */
	BV_SLURM_REFUSED, /* its input was refused (exit 2): it would be again */
} bv_slurm_step;
/* exit_status: the shard's exit file (-1: none); finished_run: its run left
 * its results (`latest`); unseen: squeue polls in a row that did not list
 * it; jobs: jobs submitted for the shard so far.  Done is exit 0, or 3 (a
 * version failed to build) with a finished run; a task with no exit file
 * counts as ended once two polls missed it; at most BV_SLURM_RETRIES more
 * jobs after the first. */
bv_slurm_step bv_slurm_decide(int exit_status, int finished_run, int unseen, int jobs);

/* ---- what Slurm's commands print, parsed (hostile input: unit-tested) ---- */

/* sbatch --parsable's job id: the line "ID" or "ID;CLUSTER" among what it
 * printed (warnings may come first).  0, or BV_ERUN. */
int bv_slurm_parse_jobid(const char *out, unsigned long long *id);

/* One line of `squeue --array --format=%F|%K|%T|%r`: an array task. */
typedef struct bv_slurm_task {
	unsigned long long job; /* the array's job id (%F) */
	long index;             /* its task index (%K) */
	char state[24];         /* PENDING, RUNNING, COMPLETING, ... (upper case, digits, _) */
	char reason[64];        /* why pending, as squeue says it (printable ASCII; cut) */
} bv_slurm_task;
/* Every well-formed line of out into *tasks (the caller frees); a line that
 * is not one (another job's, N/A indices, garbage) is skipped.  Returns the
 * count, at most max. */
size_t bv_slurm_parse_squeue(const char *out, bv_slurm_task **tasks, size_t max);

/* From `scontrol show job ID`: JobState (upper case, digits, _) into state
 * and ExitCode's status and signal; 0 when JobState is there, else BV_ERUN
 * (the job is gone from the controller's memory too). */
int bv_slurm_parse_scontrol(const char *out, char *state, size_t len, int *exit_status, int *exit_signal);

/* A shard's exit file (written by the job script): a whole number 0-255 and
 * an optional newline, nothing else; -1 for anything else. */
int bv_slurm_parse_exit(const char *text);

#endif
