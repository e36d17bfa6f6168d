/*
 * locate.h - where the kernel library is and where a run's results go,
 * decided once for every command (locate.c; docs/cli/bench-versions.md,
 * "Finding the library").
 */
#ifndef BV_LOCATE_H
#define BV_LOCATE_H

#include "project.h"

/* The library's directory, absolute, in *kernel_dir (the caller frees):
 *   1. KERNEL_DIR, where it is set;
 *   2. else the library in the git repository that holds the current
 *      directory (found as git finds it: this directory, then its parents);
 *   3. else, when running from the source tree (not installed), the source
 *      tree's own kernels/ (what `make demo` compares);
 *   4. else a usage error saying how to point bench-versions at a library.
 * *how, if not NULL, says which rule matched (for messages; the caller frees). */
int bv_locate_library(char **kernel_dir, char **how);

/* The library's directory inside a repository's working tree WORKDIR
 * (absolute, real), or NULL when it has none: the project file's "dir"
 * (project.h), else kernels/.  The one place that knows the layout.
 * bv_library_find fails (BV_EINPUT) on a bad project file or a "dir" that
 * is missing or leaves the repository; bv_library_in then says NULL. */
int bv_library_find(const char *workdir, char **lib);
char *bv_library_in(const char *workdir);


/* The project file of the library's repository, found without opening it:
 * KERNEL_DIR's, else the current directory's (bv_project_find: the
 * environment's BENCH_VERSIONS_PROJECT first, else the built-in default).
 * For what is decided before any repository is opened: the ops file, a
 * --help that names the compat rules. */
int bv_project_here(bv_project **out);

/* Where results go when --results is not given, in *root (the caller frees):
 * running from the source tree, its results/ (as `make demo` always had);
 * installed, <top of the repository holding the library>/.bench-versions/
 * results, or ./.bench-versions/results when the library is in no
 * repository; with KERNEL_REPO set and no library around,
 * $XDG_DATA_HOME/bench-versions/results (~/.local/share/...).  Fails (a
 * BV_E* code, the error set) only when the library cannot be found and
 * KERNEL_REPO is not set. */
int bv_results_default(char **root);

#endif
