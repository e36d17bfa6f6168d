/* tests.h - the unit test groups, one file each, run by main.c. */
#ifndef BV_TESTS_H
#define BV_TESTS_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

int test_stats(void);
int test_semver(void);
int test_compat(void);
int test_benches(void);
int test_names(void);
int test_releases(void);
int test_merge(void);
int test_bisect(void);
int test_history(void);
int test_share(void);
int test_faults(void);
int test_report(void);
int test_hostile(void);
int test_verdict(void);
int test_backends(void);
int test_changepoint(void);
int test_trust(void);
int test_options(void);
int test_machine(void);
int test_slurm(void);
int test_shard(void);
int test_classes(void);
int test_project(void);
int test_expr(void);
int test_store(void);
int test_counts(void);
int test_ops_file(void);
int test_suite_file(void);
int test_status(void);
int test_cache_entry(void);
int test_site(void);

/* Runs a group's tests as cmocka_run_group_tests_name does, but in the
 * order and selection `unit`'s arguments ask for (main.c: --reverse, a
 * GROUP/TEST filter), so that every test can be shown to pass alone and in
 * any order.  Every group runs its tests through it. */
#define test_run_group(name, tests, setup, teardown)                                                         \
	test_run_group_n((name), (tests), sizeof(tests) / sizeof((tests)[0]), (setup), (teardown))
int test_run_group_n(const char *name, const struct CMUnitTest *tests, size_t n, CMFixtureFunction setup,
		     CMFixtureFunction teardown);

/* A setup and teardown for a test that registers ops or a suite
 * (bv_bench_add_ops, bv_bench_add_group): the registry back to the
 * built-in groups and no ops file or suite loaded (bv_bench_reset,
 * bv_ops_file_reset, bv_suite_file_reset), before and after it, so that
 * no other test sees what it registered. */
int test_fresh_registry(void **state);

/* A fresh temporary directory for one test (removed by the caller). */
char *test_tmpdir(void);
void test_write(const char *dir, const char *name, const char *text);
#endif
