/*
 * slurm_follow.h - within the Slurm driver (slurm.c and its slurm_*.c):
 * the driver's state, and submitting and following a job array
 * (slurm_follow.c).
 */
#ifndef BV_SLURM_FOLLOW_H
#define BV_SLURM_FOLLOW_H

#include "common.h"
#include "progress.h"
#include "run_options.h"
#include "slurm.h"

typedef enum { SHARD_QUEUED, SHARD_DONE, SHARD_FAILED } shard_state;

typedef struct shard {
	int index; /* 1-based, as --shard I/N */
	int jobs;  /* jobs submitted for it */
	unsigned long long job;
	shard_state st;
	int unseen;      /* squeue polls since it was last listed, with no exit file */
	char state[24];  /* as squeue last said */
	char reason[64]; /* why it is pending, as squeue last said (printable ASCII) */
	char *run_dir;   /* done: its results directory */
	int exit_status;
} shard;

typedef struct driver {
	const bv_slurm_opts *so;
	const bv_run_cli *c;                        /* run's: NULL for bv_slurm_tasks */
	int threads;                                /* CPUs per task */
	const char *verb;                           /* "run", or bv_slurm_tasks' verb */
	const char *done_file;                      /* bv_slurm_tasks: the file a finished task leaves */
	char *sbatch, *squeue, *scancel, *scontrol; /* scontrol: NULL when missing (only messages need it) */
	char *dir, *shards_dir, *script, *prog, *cwd;
	bv_strv args; /* run's arguments for a shard: options, "--", the versions */
	int nshards;
	shard *sh;
	bv_progress *pg;
} driver;

/* Seconds on the monotonic clock. */
double bv_slurm_now(void);
/* sbatch's options every array of ours has (bv_slurm_submit, bv_slurm_preflight). */
void bv_slurm_sbatch_head(bv_strv *a, const char *sbatch, int test_only, const char *spec, int threads,
                          const bv_slurm_opts *so);
/* sbatch for shards spec ("1-4", "2"): 0 with *job, or an error carrying
 * sbatch's own words.  test_only: sbatch --test-only, which submits nothing. */
int bv_slurm_submit(driver *d, const char *spec, int test_only, unsigned long long *job);
/* Submits the array and follows it until every shard is done (0) or one
 * has failed past its retries, or a signal came. */
int bv_slurm_follow(driver *d, double *t_submit);
/* The jobs still queued, cancelled. */
void bv_slurm_cancel_queued(driver *d);

#endif
