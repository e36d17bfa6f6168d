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
int test_ops_file(void); /* last two: they register ops for good */
int test_suite_file(void);

/* A fresh temporary directory for one test (removed by the caller). */
char *test_tmpdir(void);
void test_write(const char *dir, const char *name, const char *text);
#endif
