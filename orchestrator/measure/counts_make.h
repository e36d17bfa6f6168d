/*
 * counts_make.h - the counts to find or make (counts_make.c), for the
 * stage that lists them and reads what they found (counts.c).  Private to
 * the counts files: every other module sees counts.h.
 */
#ifndef BV_COUNTS_MAKE_H
#define BV_COUNTS_MAKE_H

#include <stddef.h>
#include <sys/types.h>

#include "counts.h"

/* One count to make or find. */
typedef struct bv_count_job {
	bv_count c;
	const char *key;      /* the version's build key */
	const char *timed;    /* the simd ISA it was timed on (--simd-isa for the count), or NULL */
	const char *bench, *op, *backend;
	size_t size;
	char id[41];          /* the count's identity in the cache */
	char cg_digest[41];   /* its callgrind file's digest, once made ("": none) */
	char *dir;            /* its scratch directory while it runs */
	pid_t pid;
	double started, deadline;
	int state;            /* 0 to make, 1 running, 2 done, 3 none to show (compare, nothing counted) */
} bv_count_job;

/* Finds or makes every job's count (state 0: to make): the cache first,
 * then Valgrind, o->jobs at once.  *vg_version gets Valgrind's version
 * (NULL: none ran); *cached and *made how many came from where. */
int bv_count_jobs_make(bv_count_job *js, size_t n, const char *results_dir, const bv_counts_opts *o,
		       char **vg_version, size_t *cached, size_t *made);

#endif
