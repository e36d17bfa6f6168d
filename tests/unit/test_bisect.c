/* test_bisect.c - bisect's graph: which commits remain and which is next,
 * on small histories made with libgit2 (empty trees, no files). */
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "common.h"
#include "tests.h"

typedef struct fixture {
	char *dir;
	git_repository *repo;
	git_oid tree;
} fixture;

static void fixture_open(fixture *f)
{
	git_libgit2_init();
	f->dir = test_tmpdir();
	assert_int_equal(git_repository_init(&f->repo, f->dir, 1), 0);
	git_treebuilder *tb = NULL;
	assert_int_equal(git_treebuilder_new(&tb, f->repo, NULL), 0);
	assert_int_equal(git_treebuilder_write(&f->tree, tb), 0);
	git_treebuilder_free(tb);
}

static void fixture_close(fixture *f)
{
	git_repository_free(f->repo);
	bv_rm_rf(f->dir);
	free(f->dir);
	git_libgit2_shutdown();
}

/* A commit with the given parents (0, 1 or 2); msg keeps ids distinct. */
static git_oid commit(fixture *f, const char *msg, const git_oid *p1, const git_oid *p2)
{
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	git_commit *parents[2] = {NULL, NULL};
	size_t n = 0;
	assert_int_equal(git_signature_new(&sig, "t", "t@example.invalid", 1700000000, 0), 0);
	assert_int_equal(git_tree_lookup(&tree, f->repo, &f->tree), 0);
	if (p1)
		assert_int_equal(git_commit_lookup(&parents[n++], f->repo, p1), 0);
	if (p2)
		assert_int_equal(git_commit_lookup(&parents[n++], f->repo, p2), 0);
	git_oid id;
	assert_int_equal(git_commit_create(&id, f->repo, NULL, sig, sig, NULL, msg, tree, n,
					   (const git_commit **)parents), 0);
	for (size_t i = 0; i < n; i++)
		git_commit_free(parents[i]);
	git_tree_free(tree);
	git_signature_free(sig);
	return id;
}

static long index_of(const git_oid *set, size_t n, const git_oid *id)
{
	for (size_t i = 0; i < n; i++)
		if (git_oid_equal(&set[i], id))
			return (long)i;
	return -1;
}

static void linear_history_tests_the_middle(void **state)
{
	(void)state;
	fixture f;
	fixture_open(&f);
	git_oid c[9];
	char msg[16];
	for (int i = 0; i < 9; i++) {
		snprintf(msg, sizeof(msg), "c%d", i);
		c[i] = commit(&f, msg, i ? &c[i - 1] : NULL, NULL);
	}
	git_oid *set;
	size_t n;
	assert_int_equal(bv_bisect_remaining(f.repo, &c[8], &c[0], 1, 0, &set, &n), 0);
	assert_int_equal(n, 8); /* c1..c8: bad in, good out */
	assert_true(git_oid_equal(&set[0], &c[8]));
	long pick = bv_bisect_pick(f.repo, set, n, &c[8], NULL, 0);
	assert_true(pick >= 0);
	assert_true(git_oid_equal(&set[pick], &c[4])); /* 4 below it, 4 above */
	/* c4 good: c5..c8 remain; skipping c6 moves the pick, never to bad */
	git_oid goods[2] = {c[0], c[4]};
	free(set);
	assert_int_equal(bv_bisect_remaining(f.repo, &c[8], goods, 2, 0, &set, &n), 0);
	assert_int_equal(n, 4);
	unsigned char skip[4] = {0};
	skip[index_of(set, n, &c[6])] = 1;
	pick = bv_bisect_pick(f.repo, set, n, &c[8], skip, 0);
	assert_true(pick >= 0 && !git_oid_equal(&set[pick], &c[6]) && !git_oid_equal(&set[pick], &c[8]));
	/* everything but bad skipped: a range */
	memset(skip, 1, sizeof(skip));
	assert_int_equal(bv_bisect_pick(f.repo, set, n, &c[8], skip, 0), -1);
	free(set);
	/* bad alone: found */
	assert_int_equal(bv_bisect_remaining(f.repo, &c[1], &c[0], 1, 0, &set, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(bv_bisect_pick(f.repo, set, n, &c[1], NULL, 0), -1);
	free(set);
	fixture_close(&f);
}

static void merges_count_ancestors_and_first_parent_skips_the_side(void **state)
{
	(void)state;
	fixture f;
	fixture_open(&f);
	/* base - a1 - a2 - a3 - M - t   (first parents)
	 *     \- s1 - s2 ------/        (merged side branch) */
	git_oid base = commit(&f, "base", NULL, NULL);
	git_oid a1 = commit(&f, "a1", &base, NULL), a2 = commit(&f, "a2", &a1, NULL), a3 = commit(&f, "a3", &a2, NULL);
	git_oid s1 = commit(&f, "s1", &base, NULL), s2 = commit(&f, "s2", &s1, NULL);
	git_oid m = commit(&f, "M", &a3, &s2), t = commit(&f, "t", &m, NULL);
	git_oid *set;
	size_t n;
	assert_int_equal(bv_bisect_remaining(f.repo, &t, &base, 1, 0, &set, &n), 0);
	assert_int_equal(n, 7);
	/* ancestors in the set: a3 has 3 (a1 a2 a3), M 6, s2 2: a3 splits 7 best */
	long pick = bv_bisect_pick(f.repo, set, n, &t, NULL, 0);
	assert_true(pick >= 0 && git_oid_equal(&set[pick], &a3));
	free(set);
	assert_int_equal(bv_bisect_remaining(f.repo, &t, &base, 1, 1, &set, &n), 0);
	assert_int_equal(n, 5); /* t M a3 a2 a1 */
	assert_int_equal(index_of(set, n, &s1), -1);
	assert_int_equal(index_of(set, n, &s2), -1);
	pick = bv_bisect_pick(f.repo, set, n, &t, NULL, 1);
	assert_true(pick >= 0 && (git_oid_equal(&set[pick], &a2) || git_oid_equal(&set[pick], &a3)));
	free(set);
	fixture_close(&f);
}

int test_bisect(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(linear_history_tests_the_middle),
		cmocka_unit_test(merges_count_ancestors_and_first_parent_skips_the_side),
	};
	return cmocka_run_group_tests_name("bisect", tests, NULL, NULL);
}
