/*
 * cmd_compat.c - bench-versions compat [VERSION...] [--build]: which versions
 * are in reach, which compat rules apply to each, and whether each builds.
 *
 * The versions in reach are every release in the history of HEAD (each
 * kernel version that VERSION takes, resolved as a release number would be:
 * its tag, else the first commit that reads it) and every tag; names given
 * select instead: those alone, so `compat 3.5.1 3.6 --build` builds two, not
 * every release beside them.  One line per distinct tree.  Without --build nothing is built
 * ("not tried"); with it each is built through the cache exactly as a
 * comparison would, so a release that stopped building with the current
 * harness shows here first.  The builds run --jobs at a time (each one
 * make, serial), as run's do: every release in the history is most of the
 * command's time.
 */
#include <ctype.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "cli.h"
#include "common.h"
#include "compat.h"
#include "locate.h"
#include "options.h"
#include "pipeline.h"
#include "proc.h"
#include "progress.h"
#include "project.h"
#include "resolve.h"

/* The compat rules a listing here would use, for --help: main.c opens no
 * repository for a subcommand's help, so the project file is found as the
 * ops file is (bv_project_here), and bv_compat_path says what it names.
 * The tool's own compat.json is only the bundled library's rules. */
static char *rules_for_help(void)
{
	bv_project *p = NULL;
	if (bv_project_here(&p) != 0)
		return bv_asprintf("the project file's \"compat\"; it cannot be read now: %s", bv_error_last());
	bv_project_set_current(p);
	const char *path = bv_compat_path();
	char *said = path ? bv_strdup(path) : bv_asprintf("none: the project file %s names no \"compat\"", p->path);
	bv_project_free(p); /* current again: none */
	return said;
}

static void usage(FILE *out, const bv_option *opts)
{
	char *rules = rules_for_help();
	fprintf(out, "usage: bench-versions compat [VERSION...] [--build [--jobs N] [--build-timeout S]]\n\n"
		     "Without VERSIONs, lists the versions in reach: every release in the history of\n"
		     "HEAD (each kernels VERSION, as its tag or the first commit that reads it; a\n"
		     "project file's release tags instead) and every tag; with VERSIONs, those alone.\n"
		     "For each its kernel version, the compat rules that apply and whether it builds\n"
		     "(--build builds the versions listed, no others).\n"
		     "compat rules: %s\n"
		     "(BENCH_VERSIONS_COMPAT, else the project file's \"compat\", else, for the bundled\n"
		     "kernels library, the tool's compat/compat.json)\n\n",
		rules);
	free(rules);
	bv_options_help(opts, out);
	fprintf(out, "\nexit codes: 0 success, 2 usage or input error, 3 a tried build failed\n");
}

/* Every release in reach (bv_releases_in_reach, shared with `list
 * versions`), by number: each resolves as the user's X.Y.Z would.  Not the
 * release index's: listing those would download every tarball. */
static void history_releases(bv_repo *repo, bv_strv *out)
{
	bv_known_release *rel = NULL;
	size_t n = 0;
	if (bv_releases_in_reach(repo, 0, &rel, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++)
		bv_strv_push(out, rel[i].version);
	bv_known_releases_free(rel, n);
}

static void tags(bv_repo *repo, bv_strv *out)
{
	git_repository *g = bv_repo_git(repo);
	git_strarray names = {0};
	if (!g || git_tag_list(&names, g) < 0)
		return;
	for (size_t i = 0; i < names.count; i++)
		bv_strv_push(out, names.strings[i]);
	git_strarray_dispose(&names);
}

static int same_tree(const bv_version *a, const bv_version *b)
{
	return a->kind == b->kind && !strcmp(a->tree, b->tree) && !strcmp(a->commit, b->commit);
}

static void print_rules(const bv_version *v, FILE *out)
{
	for (size_t k = 0; k < v->shims.npatches; k++)
		fprintf(out, "    patch: %s\n", v->shims.patches[k]);
	if (v->shims.nrecipe) {
		fprintf(out, "    build (rule %s):", v->shims.recipe_rule);
		for (size_t k = 0; k < v->shims.nrecipe; k++)
			fprintf(out, " %s", v->shims.recipe[k]);
		fprintf(out, "\n");
	}
}

/* The versions a compat table lists, resolved and matched to their rules
 * (vs, *n of them; vs has room for every candidate): the names given
 * (each must resolve) or, without any, every release and tag in reach
 * (one that does not resolve is skipped).  Two names of one tree are one
 * row. */
static int resolve_rows(bv_repo *repo, const bv_compat *compat, const bv_strv *names, bv_version **vs, size_t *n)
{
	bv_strv cands = BV_STRV_INIT;
	size_t ngiven = names->n;
	/* Names given select: what was asked about, alone (built alone under
	 * --build); without them, everything in reach. */
	if (ngiven == 0) {
		history_releases(repo, &cands);
		tags(repo, &cands);
	}
	/* The names given must resolve; found ones may be skipped. */
	for (size_t i = 0; i < ngiven; i++)
		bv_strv_push(&cands, names->v[i]);
	size_t nfound = cands.n - ngiven;
	*vs = bv_xcalloc(cands.n, sizeof(bv_version));
	*n = 0;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < cands.n; i++) {
		bv_version *v = &(*vs)[*n];
		int err = bv_resolve(repo, cands.v[i], v);
		if (err) {
			if (i >= nfound)
				rc = err; /* a name the user gave: an input error */
			continue;
		}
		size_t k;
		for (k = 0; k < *n && !same_tree(&(*vs)[k], v); k++)
			;
		bv_semver sv;
		if (k < *n)
			bv_version_free(v);
		else if (bv_semver_parse(v->kernel_version, &sv) == 0 && (err = bv_compat_match(compat, &sv, &v->shims)) == 0)
			(*n)++;
		else {
			bv_version_free(v);
			rc = err ? err : BV_EINPUT;
		}
	}
	bv_strv_free(&cands);
	return rc;
}

/* The lines above the rows: where the rules and the versions come from,
 * and the columns' names. */
static void print_header(bv_repo *repo)
{
	printf("compat rules: %s\nrepository: %s\n",
	       bv_compat_path() ? bv_compat_path() : "none (the project file names no \"compat\")",
	       bv_repo_describe(repo));
	/* the library's name, upper case: KERNELS for the bundled one */
	char lib[10];
	snprintf(lib, sizeof(lib), "%s", bv_project_current()->name);
	for (char *c = lib; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	printf("%-14s %-9s %-14s %-24s %s\n", "VERSION", lib, "COMMIT", "COMPAT RULES", "BUILD");
}

/* One version's row, what its rules apply under it, and why its build
 * failed, indented under it. */
static void print_row(const bv_version *v, int build)
{
	bv_buf rules = BV_BUF_INIT;
	for (size_t k = 0; k < v->shims.nrules; k++)
		bv_buf_printf(&rules, "%s%s", k ? "," : "", v->shims.rules[k]);
	const char *state = "not tried";
	if (build)
		state = v->build_error ? "FAILED" : v->cached ? "builds (cached)" : "builds (built)";
	printf("%-14s %-9s %-14.12s %-24s %s\n", v->name, v->kernel_version,
	       v->kind == BV_VERSION_LOCAL ? "working tree" : v->commit, rules.s ? rules.s : "none", state);
	print_rules(v, stdout);
	if (v->build_error) {
		/* The reason, indented under its version. */
		printf("    ");
		for (const char *p = v->build_error; *p; p++) {
			putchar(*p);
			if (*p == '\n' && p[1])
				printf("    ");
		}
		printf("\n");
	}
	fflush(stdout);
	bv_buf_free(&rules);
}

int bv_cmd_compat(int argc, char **argv)
{
	int build = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int jobs = ncpu > 0 ? (int)ncpu : 1;
	const bv_option opts[] = {
	    BV_FLAG("--build", &build,
		    "build each one (through the cache) with the current harness; "
		    "without it the build column says \"not tried\""),
	    BV_INT("--jobs", &jobs, "N", 1, 1024, "with --build: build at most N versions at once (default: the CPUs)"),
	    BV_DURATION("--build-timeout", &bv_build_timeout_s, "S", 0, 7 * 86400,
			"with --build: a version whose build takes longer is stopped, its processes killed, and "
			"fails (default 30m; seconds, or with m, h; 0: no limit), as run's"),
	    BV_END,
	};
	char **given = bv_xcalloc((size_t)argc, sizeof(char *));
	size_t ngiven_args = 0;
	int prc = bv_options_parse(opts, argc, argv, given, &ngiven_args);
	bv_strv names = BV_STRV_INIT;
	for (size_t i = 0; prc == 0 && i < ngiven_args; i++)
		bv_strv_push(&names, given[i]);
	free(given);
	int code = bv_options_done(prc, 0, "bench-versions compat", "compat", usage, opts);
	if (code >= 0) {
		bv_strv_free(&names);
		return code;
	}

	/* --build runs make: Ctrl-C and SIGTERM must reach it (proc.c), and
	 * the builds in flight remove their temporary directories. */
	if (build)
		bv_signals_install();
	bv_repo *repo = NULL;
	bv_compat *compat = NULL;
	bv_version *vs = NULL;
	size_t n = 0;
	int failures = 0;
	int rc = bv_repo_open(&repo);
	if (rc == 0)
		rc = bv_compat_load(bv_compat_path(), &compat);
	if (rc == 0)
		rc = resolve_rows(repo, compat, &names, &vs, &n);
	if (rc == 0 && n == 0)
		printf("no versions in reach (%s); name one: bench-versions compat local\n", bv_repo_describe(repo));
	if (rc == 0 && n)
		print_header(repo);
	if (rc == 0 && build && n) {
		/* All at once, --jobs at a time; a version that fails is in its
		 * row, an error that stops every build is returned. */
		bv_progress *pg = bv_progress_new("build", n);
		rc = bv_build_versions(repo, vs, n, jobs, -1, pg, &failures);
		bv_progress_end(pg);
	}
	for (size_t i = 0; rc == 0 && i < n; i++)
		print_row(&vs[i], build);
	if (rc == 0 && build && n)
		printf("%zu of %zu %s with the current harness\n", n - (size_t)failures, n,
		       n == 1 ? "version builds" : "versions build");
	if (rc)
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
	for (size_t i = 0; i < n; i++)
		bv_version_free(&vs[i]);
	free(vs);
	bv_strv_free(&names);
	bv_compat_free(compat);
	bv_repo_free(repo);
	if (rc)
		return bv_exit_code(rc);
	return failures ? BV_EXIT_FAILED : 0;
}
