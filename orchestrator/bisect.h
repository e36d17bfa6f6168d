/*
 * bisect.h - the commit graph behind `bench-versions bisect` (cmd_bisect.c):
 * which commits may still hold the first bad one, and which to test next.
 * The rules are git bisect's, computed with libgit2.
 */
#ifndef BV_BISECT_H
#define BV_BISECT_H

#include <git2.h>
#include <stddef.h>

/* The commits reachable from bad and from none of goods, bad included,
 * newest first (topological order); with first_parent only along first
 * parents.  *out is malloc'd (n entries). */
int bv_bisect_remaining(git_repository *repo, const git_oid *bad, const git_oid *goods, size_t ngoods,
			int first_parent, git_oid **out, size_t *n);

/* The commit of set (as bv_bisect_remaining returns it) that best halves
 * it: the one whose count of ancestors in the set (itself included) is
 * closest to half, never bad itself nor one with skip[i] set.  Returns its
 * index, or -1 when every other commit is skipped (the answer is a range).
 * Returns BV_ERUN (message set) when the graph cannot be read. */
long bv_bisect_pick(git_repository *repo, const git_oid *set, size_t n, const git_oid *bad,
		    const unsigned char *skip, int first_parent);

#endif
