/* cmd_list.c - bench-versions list benches|backends|versions|baselines. */
#include <cjson/cJSON.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "benches.h"
#include "cli.h"
#include "common.h"
#include "fs.h"
#include "locate.h"
#include "options.h"
#include "project.h"
#include "proc.h"
#include "resolve.h"
#include "results.h"
#include "user_ops.h"

static void usage(FILE *out, const bv_option *opts)
{
	fprintf(out, "usage: bench-versions list benches|backends|versions|baselines [--results DIR]\n\n"
		     "  benches    groups with their ops, default sizes and backends\n"
		     "  backends   every backend a bench can run on\n"
		     "  versions   what resolves: local, every release in reach (X.Y.Z, also written\n"
		     "             vX.Y.Z: from a tag, the release index or the first commit whose\n"
		     "             kernels/VERSION reads it; a project file's tags and version rule\n"
		     "             instead: docs/project.md), and the repository's branches and tags\n"
		     "  baselines  the names saved with run --save-baseline, for compare --baseline,\n"
		     "             each with the versions its logs hold\n\n");
	bv_options_help(opts, out);
	fprintf(out, "\nexit codes: 0 success, 2 usage error, KERNEL_DIR does not exist or a bad release index\n");
}

/* One line per saved baseline: its name, then the labels of the logs it
 * holds (what compare --baseline NAME compares against). */
static int list_baselines(const char *results)
{
	char *root = results ? bv_strdup(results) : NULL;
	int rc = root ? 0 : bv_results_default(&root);
	if (rc) {
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
		return bv_exit_code(rc);
	}
	bv_strv names = BV_STRV_INIT;
	bv_baseline_names(root, &names);
	for (size_t i = 0; i < names.n; i++) {
		char *dir = bv_asprintf("%s/baselines/%s", root, names.v[i]);
		char **paths = NULL;
		size_t n = 0, nv = 0;
		printf("%s\t(", names.v[i]);
		if (bv_run_dir_logs(dir, &paths, &n, &nv) == 0) {
			for (size_t k = 0; k < n; k++) {
				const char *base = strrchr(paths[k], '/');
				base = base ? base + 1 : paths[k];
				size_t len = strlen(base);
				if (len > 5 && !strcmp(base + len - 5, ".json"))
					len -= 5;
				char *label = bv_asprintf("%.*s", (int)len, base);
				char *safe = bv_escape(label);
				printf("%s%s", k ? ", " : "", safe);
				free(safe), free(label), free(paths[k]);
			}
			free(paths);
		} else
			printf("no logs: %s", bv_error_last());
		printf(")\n");
		free(dir);
	}
	if (!names.n)
		fprintf(stderr, "no baselines saved in %s/baselines yet; save one with: bench-versions run VERSION... "
				"--save-baseline NAME\n", root);
	bv_strv_free(&names);
	free(root);
	return 0;
}

/* list benches in a project whose benchmarks are its suite: the suite's
 * benchmarks as the latest run here described them (their parameters are
 * known once a version is built: the plugin describes them), or where
 * they come from when nothing ran yet.  Never the bundled catalog, which
 * such a project does not measure. */
static int list_suite(const bv_project *p)
{
	char *root = NULL, *path = NULL, *text = NULL;
	size_t len = 0;
	cJSON *d = NULL;
	if (bv_results_default(&root) == 0) {
		path = bv_asprintf("%s/latest/suite.json", root);
		if (bv_read_file(path, 16 << 20, &text, &len) == 0)
			d = cJSON_ParseWithLength(text, len);
	}
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(d, "suite");
	const cJSON *benches = cJSON_GetObjectItemCaseSensitive(d, "benchmarks");
	if (!cJSON_IsString(name) || !cJSON_IsArray(benches)) {
		printf("suite in %s (%s): its benchmarks are described by each version's build; "
		       "run `bench-versions VERSION --quick` once, then list them here\n",
		       p->suite, p->path);
	} else {
		printf("%s (suite in %s, as the run %s described it)\n  ops:", name->valuestring, p->suite, path);
		const cJSON *b;
		cJSON_ArrayForEach(b, benches)
		{
			const cJSON *n = cJSON_GetObjectItemCaseSensitive(b, "name");
			if (cJSON_IsString(n))
				printf(" %s", n->valuestring);
		}
		printf("\n");
		cJSON_ArrayForEach(b, benches)
		{
			const cJSON *n = cJSON_GetObjectItemCaseSensitive(b, "name"), *pa;
			if (!cJSON_IsString(n))
				continue;
			printf("  %s:", n->valuestring);
			cJSON_ArrayForEach(pa, cJSON_GetObjectItemCaseSensitive(b, "params"))
			{
				const cJSON *pn = cJSON_GetObjectItemCaseSensitive(pa, "name"), *v;
				if (!cJSON_IsString(pn))
					continue;
				printf(" %s=", pn->valuestring);
				int first = 1;
				cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(pa, "values"))
				if (cJSON_IsString(v))
					printf("%s%s", first ? "" : ",", v->valuestring), first = 0;
			}
			printf("\n");
		}
	}
	cJSON_Delete(d);
	free(text), free(path), free(root);
	return 0;
}

/* list benches: each group with its ops (user-defined ones marked with
 * their function), sizes and backends; a project's suite instead where it
 * has one. */
static int list_benches(void)
{
	bv_project *here = NULL;
	if (bv_project_here(&here) == 0 && here && here->suite) {
		int rc = list_suite(here);
		bv_project_free(here);
		return rc;
	}
	bv_project_free(here);
	int project_rc = 0;
	const char *perr = bv_user_ops_project_error(&project_rc);
	if (perr) {
		fprintf(stderr, "bench-versions: %s\n", perr);
		return bv_exit_code(project_rc);
	}
	size_t nb;
	const bv_bench *all = bv_bench_all(&nb);
	for (size_t b = 0; b < nb; b++) {
		char buf[32];
		printf("%s\n  ops:", all[b].name);
		for (size_t o = 0; o < all[b].nops; o++)
			printf(" %s", all[b].ops[o].name);
		/* user-defined ops (an ops file) are listed above too, and
		 * marked here with their function */
		int first = 1;
		for (size_t o = 0; o < all[b].nops; o++)
			if (all[b].ops[o].function) {
				printf("%s %s (%s)", first ? "\n  user-defined ops:" : ",", all[b].ops[o].name,
				       all[b].ops[o].function);
				first = 0;
			}
		printf("\n  sizes:");
		for (const size_t *s = all[b].sizes; *s; s++)
			printf(" %s", bv_size_format(*s, buf, sizeof(buf)));
		printf("\n  backends:");
		for (const char *const *be = all[b].backends; *be; be++)
			printf(" %s", *be);
		printf("\n");
	}
	return 0;
}

/* list backends: every backend of any group, once, in first-seen order. */
static int list_backends(void)
{
	size_t nb;
	const bv_bench *all = bv_bench_all(&nb);
	const char *seen[32];
	size_t n = 0;
	for (size_t b = 0; b < nb; b++)
		for (const char *const *be = all[b].backends; *be; be++) {
			size_t k;
			for (k = 0; k < n && strcmp(seen[k], *be); k++)
				;
			if (k == n && n < 32)
				seen[n++] = *be, printf("%s\n", *be);
		}
	return 0;
}

/* The repository's branches and tags, as git names them. */
static void list_refs(bv_repo *repo)
{
	git_repository *g = bv_repo_git(repo);
	git_reference_iterator *it = NULL;
	git_reference *ref;
	if (!g || git_reference_iterator_new(&it, g) != 0)
		return;
	while (git_reference_next(&ref, it) == 0) {
		if (git_reference_is_branch(ref) || git_reference_is_tag(ref)) {
			/* the repository's names, escaped as every name from outside */
			char *name = bv_escape(git_reference_shorthand(ref));
			printf("%s\t(%s)\n", name, git_reference_is_tag(ref) ? "tag" : "branch");
			free(name);
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
}

/* list versions: local, then the releases in reach, then every branch
 * and tag.  Releases first: they are what a comparison usually names, and
 * most exist only in the history (kernels/VERSION), never as a tag, so
 * the ref list would not show them. */
static int list_versions(void)
{
	bv_repo *repo = NULL;
	bv_known_release *rel = NULL;
	size_t nrel = 0;
	int rc = bv_repo_open(&repo);
	if (rc)
		goto cleanup;
	if (bv_repo_kernel_dir(repo))
		printf("local\t(working tree at %s)\n", bv_repo_kernel_dir(repo));
	else
		printf("local\t(none: no checkout of the library here; KERNEL_REPO gives the rest)\n");
	printf("repository: %s\n", bv_repo_describe(repo));
	if ((rc = bv_releases_in_reach(repo, 1, &rel, &nrel)) != 0)
		goto cleanup;
	for (size_t i = 0; i < nrel; i++) {
		/* ids shortened as on the resolve line: 12 hex digits */
		int sha = !strncmp(rel[i].id, "sha256 ", 7);
		printf("%s\t(release: %s, %s%.12s)\n", rel[i].version, rel[i].source, sha ? "sha256 " : "commit ",
		       rel[i].id + (sha ? 7 : 0));
	}
	bv_known_releases_free(rel, nrel);
	list_refs(repo);
cleanup:
	if (rc)
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
	bv_repo_free(repo);
	return rc ? bv_exit_code(rc) : 0;
}

int bv_cmd_list(int argc, char **argv)
{
	const char *results = NULL;
	const bv_option opts[] = {
	    BV_STRING("--results", &results, "DIR", "where runs are, for baselines (default as for run)"),
	    BV_END,
	};
	char **args = bv_xcalloc((size_t)argc, sizeof(char *));
	size_t nargs = 0;
	int prc = bv_options_parse(opts, argc, argv, args, &nargs);
	const char *what = nargs == 1 ? args[0] : NULL;
	free(args);
	int code = bv_options_done(prc, !what, "bench-versions list", "list", usage, opts);
	if (code >= 0)
		return code;
	if (!strcmp(what, "benches"))
		return list_benches();
	if (!strcmp(what, "backends"))
		return list_backends();
	if (!strcmp(what, "versions"))
		return list_versions();
	if (!strcmp(what, "baselines"))
		return list_baselines(results);
	usage(stderr, opts);
	return BV_EXIT_USAGE;
}
