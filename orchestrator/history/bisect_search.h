/*
 * bisect_search.h - the search of `bench-versions bisect` (bisect_search.c):
 * the ends opened and confirmed, the state opened, and the walk from good
 * to bad (one commit a step, or K a round with --parallel), down to the
 * first bad commit measured against its parent.
 */
#ifndef BV_BISECT_SEARCH_H
#define BV_BISECT_SEARCH_H

#include <git2.h>
#include <stddef.h>
#include <time.h>

#include "bisect.h"
#include "bisect_step.h"

/* What the command line asked for, beyond the measuring options (bv_bisect_ctx.mo). */
typedef struct bv_bisect_args {
	const char *good_name, *bad_name, *bench, *op, *backend, *size;
	const char *format;
	int first_parent, improvement, max_steps;
	/* --parallel K: K candidates a round (0: the sequential walk); with
	 * --slurm one Slurm array task each */
	int parallel, slurm, time_min;
	const char *partition, *slurm_cache;
	/* a Slurm task (hidden options, set by the job script): measure
	 * candidate task (1-based) of task_commits, write OUT/point.json */
	int task;
	const char *task_out, *task_commits;
	/* --slurm: the command line of a round's tasks, less the round's
	 * commits (cmd_bisect.c takes it from argv) */
	bv_strv task_cmd;
	const char *by; /* --by time|counts */
} bv_bisect_args;

/* The bisect as it goes: its ends, the walk's state and what it found. */
typedef struct bv_bisect_walk {
	time_t t0;
	char good_hex[41], bad_hex[41];
	git_oid good_id, bad_id;
	bv_version *good, *bad; /* built on first need; bv_bisect_ctx.vs owns them */
	bv_bisect_ratio check;  /* bad / good */
	/* git bisect's state: the current bad, the goods, the skipped */
	git_oid cur_bad;
	git_oid *goods, *skipped;
	size_t ngoods, nskipped;
	git_oid *set; /* the commits left, newest first */
	size_t nset;
	bv_bisect_point *steps;
	size_t nsteps;
	/* the answer */
	bv_bisect_ending status; /* found, range, stopped */
	char **range;            /* the commits that may be the first bad one */
	size_t nrange;
	bv_bisect_point *first; /* the first bad commit's step (NULL: it is bad itself) */
	char first_hex[41], parent_hex[41];
	bv_bisect_ratio vs_parent;
} bv_bisect_walk;

/* The repository, and good and bad as exact commits: good must be a proper
 * ancestor of bad, or there is no range to walk. */
int bv_bisect_open_ends(bv_bisect_ctx *x, const bv_bisect_args *a, bv_bisect_walk *w);
/* A project suite: the ends built, described and registered first. */
int bv_bisect_suite_ends(bv_bisect_ctx *x, bv_bisect_walk *w);
/* Good against bad first: refused unless bad moved. */
int bv_bisect_confirm_ends(bv_bisect_ctx *x, const bv_bisect_args *a, bv_bisect_walk *w);
/* The walks: one commit a step, or K a round (--parallel K). */
int bv_bisect_sequential(bv_bisect_ctx *x, const bv_bisect_args *a, bv_bisect_walk *w);
int bv_bisect_kary(bv_bisect_ctx *x, const bv_bisect_args *a, bv_bisect_walk *w);
/* A Slurm task of bisect --slurm: its one commit, to OUT/point.json. */
int bv_bisect_slurm_task(bv_bisect_ctx *x, const bv_bisect_args *a, bv_bisect_walk *w);
/* The first bad commit against its own parent. */
int bv_bisect_measure_parent(bv_bisect_ctx *x, bv_bisect_walk *w);
void bv_bisect_walk_free(bv_bisect_walk *w);

#endif
