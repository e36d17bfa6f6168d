/* main.c - runs the unit test groups (all, or those named, in either order);
 * exit 1 when a test failed. */
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benches.h"
#include "common.h"
#include "ops_file.h"
#include "suite_file.h"
#include "tests.h"

char *test_tmpdir(void)
{
	char *t = bv_strdup("/tmp/bv-unit-XXXXXX");
	assert_non_null(mkdtemp(t));
	return t;
}

void test_write(const char *dir, const char *name, const char *text)
{
	char *path = bv_asprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(path);
}

/* The groups, in the order a plain run takes them.  No test may depend on
 * another having run, or on one not having run: `unit --reverse` and
 * `unit GROUP/TEST` show it (tests/run.sh runs the ASan/UBSan build
 * reversed, the plain one forward). */
static const struct {
	const char *name;
	int (*run)(void);
} groups[] = {
	{"stats", test_stats},
	{"semver", test_semver},
	{"compat", test_compat},
	{"benches", test_benches},
	{"names", test_names},
	{"releases", test_releases},
	{"merge", test_merge},
	{"bisect", test_bisect},
	{"history", test_history},
	{"share", test_share},
	{"faults", test_faults},
	{"report", test_report},
	{"hostile", test_hostile},
	{"verdict", test_verdict},
	{"backends", test_backends},
	{"changepoint", test_changepoint},
	{"trust", test_trust},
	{"options", test_options},
	{"machine", test_machine},
	{"slurm", test_slurm},
	{"shard", test_shard},
	{"classes", test_classes},
	{"project", test_project},
	{"expr", test_expr},
	{"store", test_store},
	{"counts", test_counts},
	{"ops_file", test_ops_file},
	{"suite_file", test_suite_file},
	{"status", test_status},
	{"cache_entry", test_cache_entry},
	{"site", test_site},
};

/* What the arguments ask for: test_run_group_n reads them. */
static int reverse, list;
static const char *group_now;  /* the running group's name in groups[] */
static const char *only_test; /* the TEST of GROUP/TEST, or NULL */

int test_run_group_n(const char *name, const struct CMUnitTest *tests, size_t n, CMFixtureFunction setup,
		     CMFixtureFunction teardown)
{
	if (list) {
		for (size_t i = 0; i < n; i++)
			printf("%s/%s\n", group_now, tests[i].name);
		return 0;
	}
	struct CMUnitTest *picked = calloc(n ? n : 1, sizeof(*picked));
	assert_non_null(picked);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const struct CMUnitTest *t = &tests[reverse ? n - 1 - i : i];
		if (!only_test || !strcmp(t->name, only_test))
			picked[m++] = *t;
	}
	int failed = m ? _cmocka_run_group_tests(name, picked, m, setup, teardown) : 0;
	free(picked);
	return failed;
}

int test_fresh_registry(void **state)
{
	(void)state;
	bv_bench_reset();
	bv_ops_file_reset();
	bv_suite_file_reset();
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: unit [--reverse] [--list] [GROUP | GROUP/TEST]...\n"
			"  no GROUP: every group; --reverse: the groups, and each one's tests, last first;\n"
			"  --list: the GROUP/TEST of each test it would run, one a line (to run each alone)\n");
	return 2;
}

int main(int argc, char **argv)
{
	const size_t ngroups = sizeof(groups) / sizeof(groups[0]);
	const char *want[256];
	size_t nwant = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reverse"))
			reverse = 1;
		else if (!strcmp(argv[i], "--list"))
			list = 1;
		else if (argv[i][0] == '-' || nwant == sizeof(want) / sizeof(want[0]))
			return usage();
		else
			want[nwant++] = argv[i];
	}
	/* libgit2 as the tool has it (main.c): the tests that open repositories
	 * (test_project, test_history, ...) need its settings, without which its
	 * object cache keeps nothing and loses what it is handed (LSan). */
	git_libgit2_init();
	int failed = 0;
	if (!nwant)
		for (size_t k = 0; k < ngroups; k++) {
			size_t g = reverse ? ngroups - 1 - k : k;
			group_now = groups[g].name;
			failed += groups[g].run();
		}
	for (size_t w = 0; w < nwant; w++) {
		char name[128];
		snprintf(name, sizeof(name), "%s", want[w]);
		char *slash = strchr(name, '/');
		if (slash)
			*slash = '\0';
		only_test = slash ? want[w] + (slash - name) + 1 : NULL;
		size_t g = 0;
		while (g < ngroups && strcmp(groups[g].name, name))
			g++;
		if (g == ngroups) {
			fprintf(stderr, "unit: no group '%s'\n", name);
			git_libgit2_shutdown();
			return usage();
		}
		group_now = groups[g].name;
		failed += groups[g].run();
	}
	git_libgit2_shutdown();
	return failed ? 1 : 0;
}
