/* main.c - runs every unit test group; the exit status is the failure count. */
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
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

int main(void)
{
	/* libgit2 as the tool has it (main.c): the tests that open repositories
	 * (test_project, test_history, ...) need its settings, without which its
	 * object cache keeps nothing and loses what it is handed (LSan). */
	git_libgit2_init();
	int failed = 0;
	failed += test_stats();
	failed += test_semver();
	failed += test_compat();
	failed += test_benches();
	failed += test_names();
	failed += test_releases();
	failed += test_merge();
	failed += test_bisect();
	failed += test_history();
	failed += test_share();
	failed += test_faults();
	failed += test_report();
	failed += test_hostile();
	failed += test_verdict();
	failed += test_backends();
	failed += test_changepoint();
	failed += test_trust();
	failed += test_options();
	failed += test_machine();
	failed += test_slurm();
	failed += test_shard();
	failed += test_classes();
	failed += test_project();
	failed += test_expr();
	failed += test_store();
	failed += test_counts();
	failed += test_ops_file(); /* last two: their ops stay registered */
	failed += test_suite_file();
	git_libgit2_shutdown();
	return failed ? 1 : 0;
}
