/*
 * baseline.h - saved baselines (results/baselines/NAME/) and results/latest
 * (baseline.c): the two names by which a later command finds an earlier run
 * without its timestamp (`run --save-baseline main`, then `compare
 * --baseline main`).
 */
#ifndef BV_BASELINE_H
#define BV_BASELINE_H

#include "common.h"

/*
 * A baseline is a copy of a run's logs under ROOT/baselines/NAME/; ROOT/latest
 * is a relative symlink to the newest run's directory.  Both are replaced
 * atomically (baseline.c says how). */
/* NAME is 1-64 of letters, digits, '.', '_', '-', not starting with '.':
 * else BV_EINPUT saying so. */
int bv_baseline_name_check(const char *name);
/* Copies run_dir's logs to <run_dir's parent>/baselines/NAME, replacing what
 * was saved under NAME; *saved gets that directory (the caller frees). */
int bv_baseline_save(const char *run_dir, const char *name, char **saved);
/* ROOT/baselines/NAME in *dir (the caller frees), or BV_EINPUT naming the
 * saved baselines. */
int bv_baseline_find(const char *root, const char *name, char **dir);
/* The names saved under ROOT/baselines, sorted, appended to *names (none
 * when there is no such directory). */
void bv_baseline_names(const char *root, bv_strv *names);
/* Points <run_dir's parent>/latest at run_dir; a failure is a warning on
 * stderr (the run itself succeeded). */
void bv_results_mark_latest(const char *run_dir);
/* A results argument of compare or report --from in *path (a new string):
 * "latest", when no such path exists here, as ROOT/latest, ROOT being
 * root_opt (--results) or else bv_results_default(); any other argument as
 * it is.  BV_EINPUT when ROOT/latest does not exist (no run has finished
 * there yet), or bv_results_default's error; *path is then NULL. */
int bv_results_resolve(const char *root_opt, const char *arg, char **path);

#endif
