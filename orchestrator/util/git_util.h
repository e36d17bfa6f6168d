/*
 * git_util.h - what every module that calls libgit2 shares: one way to turn
 * libgit2's last error into the tool's (common.h: bv_fail), and one walk of
 * a revision range (bisect's remaining commits and history's series are
 * both "reachable from this commit, not from those").
 */
#ifndef BV_GIT_UTIL_H
#define BV_GIT_UTIL_H

#include <git2.h>
#include <stddef.h>

/* bv_fail(code, "WHAT: libgit2's message"), returning code's value: a
 * failed libgit2 call says what the tool was doing and why libgit2 refused
 * (its git_error_last(), or "unknown libgit2 error" when it kept none). */
int bv_git_fail(int code, const char *what);

/* The commits reachable from tip and from none of hide[0..nhide), as git
 * rev-list tip ^hide... gives them: topologically sorted, newest first (or
 * oldest first with oldest_first), following first parents only with
 * first_parent.  *out (malloc'd, *n of them; NULL and 0 on an error) does
 * not hold the hidden commits.  0, or BV_ERUN naming what failed. */
int bv_git_walk(git_repository *repo, const git_oid *tip, const git_oid *hide, size_t nhide, int first_parent,
		int oldest_first, git_oid **out, size_t *n);

/* The working tree of the git repository holding PATH (absolute), or NULL:
 * none, or a bare one (the caller frees). */
char *bv_workdir_of(const char *path);

#endif
