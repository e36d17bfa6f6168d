/*
 * pipeline.h - resolve, fetch, compat, build and measure for a list of names
 * (pipeline.c), and the results directory a run writes into.
 */
#ifndef BV_PIPELINE_H
#define BV_PIPELINE_H

#include <stddef.h>

#include "resolve.h"
#include "run_options.h"

/* resolve -> fetch -> compat -> build -> measure for every name, progress on
 * stderr; Ctrl-C and SIGTERM stop it between steps (BV_EINTR).  *dir gets
 * the results directory (new, or --resume's) and *logs one log per name (the
 * first is the baseline).  A version that fails to build still gets a log
 * (its build block says why) and counts in *build_failures.  A failure is
 * said here, with, once measuring began, the command that resumes it:
 * c->again --resume DIR (bv_run_cli_given). */
int bv_run_versions(char *const *names, size_t n, bv_run_cli *c, long ncells, char **dir, char ***logs,
		    int *build_failures);
/* A new results directory under root, named by the time (UTC) as a run's
 * is; NULL with the message set.  Then the run's hold on it: an flock a
 * resume or another run is refused by, and a write test; *lockfd stays open
 * for as long as the directory is being written. */
char *bv_results_dir_new(const char *root);
int bv_results_dir_claim(const char *dir, int *lockfd);
/* resolve -> compat for every name, nothing fetched or built: what a plan
 * (bench-versions plan) needs to know each version's build key.  The
 * resolve lines go to stderr as run's do.  *vs (n, each bv_version_free'd,
 * then the array) for the caller. */
int bv_plan_versions(char *const *names, size_t n, bv_version **vs);
struct bv_progress;
/* fetch -> build for resolved versions whose compat shims are matched, at
 * most jobs at once, each in a child process that dies with this one
 * (PR_SET_PDEATHSIG) and takes make and its compilers with it, so no build
 * outlives a SIGKILL of the tool.  Call bv_signals_install() first: a
 * SIGINT/SIGTERM then reaches the builds, and this returns BV_EINTR once
 * they have cleaned up.  lockfd (a results directory's lock, or -1) is
 * closed in the children.  pg (or NULL) gets one line per version.  A
 * version that does not build has build_error set and counts in *failures
 * (not an error); an error (nothing can be built) is returned. */
int bv_build_versions(bv_repo *repo, bv_version *vs, size_t n, int jobs, int lockfd, struct bv_progress *pg,
		      int *failures);

#endif
