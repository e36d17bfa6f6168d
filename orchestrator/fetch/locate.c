/*
 * locate.c - where the kernel library is, and where results go.
 *
 * An installed bench-versions has no library of its own beside it: it must
 * find the one the user means, as git finds a repository, from the current
 * directory.  Running from the source tree keeps the embedded default (its
 * own kernels/ and results/), which `make demo` and the tests rely on.
 */
#include <git2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "fs.h"
#include "locate.h"
#include "git_util.h"
#include "project.h"

int bv_library_find(const char *workdir, char **lib)
{
	/* The project file says where the library is (project.c); without one
	 * it lives in kernels/, the built-in default. */
	*lib = NULL;
	bv_project *p = NULL;
	int rc = bv_project_find(workdir, &p);
	if (rc)
		return rc;
	char *dir = *p->dir ? bv_asprintf("%s/%s", workdir, p->dir) : bv_strdup(workdir);
	char real[PATH_MAX];
	size_t wl = strlen(workdir);
	if (!p->builtin && bv_is_dir(dir) &&
	    (!realpath(dir, real) || strncmp(real, workdir, wl) != 0 || (real[wl] != '/' && real[wl] != '\0')))
		/* "dir" spelt inside, a symlink leading out */
		rc = bv_fail(BV_EINPUT, "%s: \"dir\" %s leaves the repository %s", p->path, p->dir, workdir);
	else if (!p->builtin && !bv_is_dir(dir))
		rc = bv_fail(BV_EINPUT, "%s: \"dir\" %s is no directory in %s: fix \"dir\"", p->path, p->dir,
			     workdir);
	bv_project_free(p);
	if (rc == 0 && bv_is_dir(dir))
		*lib = dir;
	else
		free(dir);
	return rc;
}

int bv_project_here(bv_project **out)
{
	char start[PATH_MAX];
	const char *kd = getenv("KERNEL_DIR");
	if (!(kd && *kd && realpath(kd, start)) && !getcwd(start, sizeof(start)))
		start[0] = '\0';
	char *top = *start ? bv_workdir_of(start) : NULL;
	int rc = bv_project_find(top, out);
	free(top);
	return rc;
}

char *bv_library_in(const char *workdir)
{
	char *lib = NULL;
	bv_library_find(workdir, &lib);
	return lib;
}

/* The working tree of the git repository holding PATH (absolute, without a
 * trailing slash), or NULL: none, or a bare one. */

static char *cwd(void)
{
	char buf[PATH_MAX];
	return bv_strdup(getcwd(buf, sizeof(buf)) ? buf : ".");
}

int bv_locate_library(char **kernel_dir, char **how)
{
	*kernel_dir = NULL;
	if (how)
		*how = NULL;
	char real[PATH_MAX];
	const char *env = getenv("KERNEL_DIR");
	if (env && *env) {
		if (!realpath(env, real))
			return bv_fail(BV_EINPUT, "KERNEL_DIR %s does not exist", env);
		*kernel_dir = bv_strdup(real);
		if (how)
			*how = bv_strdup("KERNEL_DIR");
		return 0;
	}
	char *here = cwd();
	char *top = bv_workdir_of(here);
	const char *penv = getenv("BENCH_VERSIONS_PROJECT");
	if (!top && penv && *penv && realpath(penv, real)) {
		/* outside any repository: the library is the project file's */
		char *slash = strrchr(real, '/');
		if (slash && slash != real)
			*slash = '\0';
		top = bv_workdir_of(real);
	}
	char *lib = NULL;
	if (top) {
		int frc = bv_library_find(top, &lib);
		if (frc) {
			free(top);
			free(here);
			return frc;
		}
	}
	if (lib && realpath(lib, real)) {
		*kernel_dir = bv_strdup(real);
		if (how)
			*how = bv_asprintf("the repository at %s", top);
	} else if (bv_from_source_tree() && !(penv && *penv)) {
		/* (not under another library's project file) */
		free(lib);
		lib = bv_asprintf("%s/kernels", bv_home());
		if (realpath(lib, real)) {
			*kernel_dir = bv_strdup(real);
			if (how)
				*how = bv_strdup("this source tree");
		}
	}
	int rc = 0;
	if (!*kernel_dir) {
		/* The one message an installed user sees first: it says the rule
		 * and both ways out. */
		if (top)
			rc = bv_fail(BV_EINPUT,
				     "no kernel library here: the git repository at %s has no kernels/ directory; "
				     "run bench-versions inside a checkout of the library, or set KERNEL_DIR to the "
				     "library's directory (e.g. KERNEL_DIR=/path/to/checkout/kernels)",
				     top);
		else
			rc = bv_fail(BV_EINPUT,
				     "no kernel library here: %s is not inside a git repository; run bench-versions "
				     "inside a checkout of the library (it is found as git finds a repository, from "
				     "the current directory up), or set KERNEL_DIR to the library's directory "
				     "(e.g. KERNEL_DIR=/path/to/checkout/kernels)",
				     here);
	}
	free(lib);
	free(top);
	free(here);
	return rc;
}

int bv_results_default(char **root)
{
	*root = NULL;
	/* Run from this tool's source tree: its results/, unless the run is
	 * in another library's checkout (one with a project file of its own),
	 * whose results are that project's, as an installed tool's are. */
	bv_project *here = NULL;
	int elsewhere = bv_from_source_tree() && bv_project_here(&here) == 0 && here && !here->builtin;
	bv_project_free(here);
	if (bv_from_source_tree() && !elsewhere) {
		*root = bv_asprintf("%s/results", bv_home());
		return 0;
	}
	char *lib = NULL;
	int rc = bv_locate_library(&lib, NULL);
	const char *repo_env = getenv("KERNEL_REPO");
	if (rc && repo_env && *repo_env) {
		/* No checkout around, the versions from KERNEL_REPO: the user's
		 * data directory (XDG), not wherever the shell happens to be. */
		const char *data = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
		if (data && *data == '/')
			*root = bv_asprintf("%s/bench-versions/results", data);
		else if (home && *home == '/')
			*root = bv_asprintf("%s/.local/share/bench-versions/results", home);
		else
			return rc; /* nowhere sensible: the library's error says what to set */
		return 0;
	}
	if (rc)
		return rc;
	/* Installed: the project the user is working in, never PREFIX/share
	 * (not writable for a user of /usr/local, and shared by every project).
	 * A hidden directory with a .gitignore of its own, so the checkout's
	 * `git status` stays clean and no tracked file is ever in the way. */
	char *top = bv_workdir_of(lib);
	if (!top)
		top = cwd();
	char *base = bv_asprintf("%s/.bench-versions", top);
	free(top);
	free(lib);
	if (bv_mkdir_p(base) == 0) {
		char *ignore = bv_asprintf("%s/.gitignore", base);
		if (!bv_exists(ignore)) {
			FILE *f = fopen(ignore, "w");
			if (f) {
				fputs("# bench-versions' results (docs/cli/bench-versions.md): not part of the project\n*\n", f);
				fclose(f);
			}
		}
		free(ignore);
	}
	/* A base that could not be made is said by the caller, naming the path. */
	*root = bv_asprintf("%s/results", base);
	free(base);
	return 0;
}
