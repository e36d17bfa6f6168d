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

/* What the command line asked for, beyond the measuring options (ctx.mo). */
typedef struct args {
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
	int argc; /* the command line, for the tasks' */
	char **argv;
	const char *by; /* --by time|counts */
} args;

/* The bisect as it goes: its ends, the walk's state and what it found. */
typedef struct walk {
	time_t t0;
	char good_hex[41], bad_hex[41];
	git_oid good_id, bad_id;
	bv_version *good, *bad; /* built on first need; ctx.vs owns them */
	bv_bisect_ratio check;  /* bad / good */
	/* git bisect's state: the current bad, the goods, the skipped */
	git_oid cur_bad;
	git_oid *goods, *skipped;
	size_t ngoods, nskipped;
	git_oid *set; /* the commits left, newest first */
	size_t nset;
	point *steps;
	size_t nsteps;
	/* the answer */
	bv_bisect_ending status; /* found, range, stopped */
	char **range;       /* the commits that may be the first bad one */
	size_t nrange;
	point *first; /* the first bad commit's step (NULL: it is bad itself) */
	char first_hex[41], parent_hex[41];
	bv_bisect_ratio vs_parent;
} walk;

/* The repository, and good and bad as exact commits: good must be a proper
 * ancestor of bad, or there is no range to walk. */
int open_ends(ctx *x, const args *a, walk *w);
/* A project suite: the ends built, described and registered first. */
int suite_ends(ctx *x, walk *w);
/* The state of this range, cell and way of measuring: resumed or made. */
int open_state(ctx *x, const args *a, const walk *w);
/* Good against bad first: refused unless bad moved. */
int confirm_ends(ctx *x, const args *a, walk *w);
/* The walks: one commit a step, or K a round (--parallel K). */
int bisect_walk(ctx *x, const args *a, walk *w);
int bisect_walk_kary(ctx *x, const args *a, walk *w);
/* A Slurm task of bisect --slurm: its one commit, to OUT/point.json. */
int slurm_task(ctx *x, const args *a, walk *w);
/* The first bad commit against its own parent. */
int measure_parent(ctx *x, walk *w);
void walk_free(walk *w);

#endif
