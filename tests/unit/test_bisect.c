/* test_bisect.c - bisect's graph: which commits remain and which is next,
 * on small histories made with libgit2 (empty trees, no files); and its
 * decision rules (bisect.h), each on made-up ratios at and around its edges:
 * whether bad moved, a step's side of the midpoint, the retries, when good
 * against bad is measured again, how the walk ends, the parent's verdict,
 * and a step's side as its text says it. */
#include <git2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "common.h"
#include "fs.h"
#include "tests.h"
#include "verdict.h"

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

/* ---- the decision rules ------------------------------------------------- */

#define T 0.01 /* the threshold of these tests: 1 % */

/* A valid ratio at 95 % over 20 processes, without per-process evidence. */
static bv_bisect_ratio r3(double est, double lo, double hi)
{
	bv_bisect_ratio r = {.valid = 1, .est = est, .lo = lo, .hi = hi, .coverage = 0.95, .processes = 20};
	return r;
}

static void moved_needs_the_whole_interval_beyond_the_threshold(void **state)
{
	(void)state;
	bv_bisect_ratio slower = r3(1.20, 1.10, 1.30), faster = r3(0.80, 0.70, 0.90);
	assert_true(bv_bisect_moved(&slower, T, 0));
	assert_false(bv_bisect_moved(&slower, T, 1)); /* the wrong direction */
	assert_true(bv_bisect_moved(&faster, T, 1));
	assert_false(bv_bisect_moved(&faster, T, 0));
	/* an invalid ratio never moved, whatever its numbers say */
	bv_bisect_ratio r = slower;
	r.valid = 0;
	assert_false(bv_bisect_moved(&r, T, 0));
	/* an interval reaching 1, an estimate within the threshold */
	r = r3(1.20, 0.99, 1.40);
	assert_false(bv_bisect_moved(&r, T, 0));
	r = r3(1.005, 1.001, 1.009);
	assert_false(bv_bisect_moved(&r, T, 0));
	assert_true(bv_bisect_moved(&r, 0.001, 0));
	/* coverage 0 is "not recorded" (a state file's check): read as 95 %;
	 * a recorded coverage under 95 % never moves; no processes: no verdict */
	r = slower;
	r.coverage = 0;
	assert_true(bv_bisect_moved(&r, T, 0));
	r.coverage = 0.90;
	assert_false(bv_bisect_moved(&r, T, 0));
	r = slower;
	r.processes = 0;
	assert_false(bv_bisect_moved(&r, T, 0));
}

static void moved_weighs_sign_evidence_only_when_it_is_there(void **state)
{
	(void)state;
	bv_bisect_ratio r = r3(1.20, 1.10, 1.30);
	r.ps = r.pf = 1; /* no evidence at all, but not there: no veto */
	assert_true(bv_bisect_moved(&r, T, 0));
	r.evidence = 1;
	assert_false(bv_bisect_moved(&r, T, 0));
	r.ps = BV_FDR / 2; /* two-sided at BV_FDR: just enough */
	assert_true(bv_bisect_moved(&r, T, 0));
	r.ps = BV_FDR / 2 * 1.01;
	assert_false(bv_bisect_moved(&r, T, 0));
	/* with improvement it is the faster evidence that counts */
	bv_bisect_ratio f = r3(0.80, 0.70, 0.90);
	f.evidence = 1, f.ps = 0.001, f.pf = 0.5;
	assert_false(bv_bisect_moved(&f, T, 1));
	f.ps = 0.5, f.pf = 0.001;
	assert_true(bv_bisect_moved(&f, T, 1));
}

static void a_step_is_decided_only_wholly_past_or_before_the_midpoint(void **state)
{
	(void)state;
	bv_bisect_ratio bad = r3(1.44, 1.40, 1.48); /* midpoint sqrt(1.44) = 1.2 */
	assert_true(fabs(bv_bisect_midpoint(&bad) - 1.2) < 1e-12);
	bv_bisect_ratio v = r3(1.30, 1.25, 1.35);
	assert_int_equal(bv_bisect_side_of(&v, &bad, T, 0), BV_BISECT_BAD);
	v = r3(1.05, 1.00, 1.10);
	assert_int_equal(bv_bisect_side_of(&v, &bad, T, 0), BV_BISECT_GOOD);
	/* straddling the midpoint, or touching it: inconclusive */
	v = r3(1.20, 1.10, 1.30);
	assert_int_equal(bv_bisect_side_of(&v, &bad, T, 0), BV_BISECT_INCONCLUSIVE);
	v = r3(1.30, 1.2, 1.40);
	assert_int_equal(bv_bisect_side_of(&v, &bad, T, 0), BV_BISECT_INCONCLUSIVE);
	v = r3(1.10, 1.00, 1.2);
	assert_int_equal(bv_bisect_side_of(&v, &bad, T, 0), BV_BISECT_INCONCLUSIVE);
	/* the commit's ratio not valid */
	v = r3(1.30, 1.25, 1.35);
	v.valid = 0;
	assert_int_equal(bv_bisect_side_of(&v, &bad, T, 0), BV_BISECT_INCONCLUSIVE);
	/* bad, in these processes, no longer shows the change: no midpoint,
	 * however far the commit is from good */
	v = r3(1.30, 1.25, 1.35);
	bv_bisect_ratio flat = r3(1.44, 0.98, 1.60);
	assert_int_equal(bv_bisect_side_of(&v, &flat, T, 0), BV_BISECT_INCONCLUSIVE);
	flat = bad;
	flat.evidence = 1, flat.ps = 0.5;
	assert_int_equal(bv_bisect_side_of(&v, &flat, T, 0), BV_BISECT_INCONCLUSIVE);
	flat = bad;
	flat.valid = 0;
	assert_int_equal(bv_bisect_side_of(&v, &flat, T, 0), BV_BISECT_INCONCLUSIVE);
	assert_true(isnan(bv_bisect_midpoint(&flat)));
}

static void improvement_turns_the_sides_round(void **state)
{
	(void)state;
	bv_bisect_ratio bad = r3(0.64, 0.60, 0.68); /* faster; midpoint 0.8 */
	assert_true(fabs(bv_bisect_midpoint(&bad) - 0.8) < 1e-12);
	bv_bisect_ratio v = r3(0.70, 0.65, 0.75); /* below the midpoint: at bad's level */
	assert_int_equal(bv_bisect_side_of(&v, &bad, T, 1), BV_BISECT_BAD);
	v = r3(0.95, 0.90, 1.00); /* above it: at good's level */
	assert_int_equal(bv_bisect_side_of(&v, &bad, T, 1), BV_BISECT_GOOD);
	v = r3(0.80, 0.75, 0.85);
	assert_int_equal(bv_bisect_side_of(&v, &bad, T, 1), BV_BISECT_INCONCLUSIVE);
	/* the same numbers asked for a slowdown: bad did not move that way */
	v = r3(0.70, 0.65, 0.75);
	assert_int_equal(bv_bisect_side_of(&v, &bad, T, 0), BV_BISECT_INCONCLUSIVE);
	/* and a slowdown asked for with improvement: neither */
	bv_bisect_ratio slow = r3(1.44, 1.40, 1.48);
	v = r3(1.30, 1.25, 1.35);
	assert_int_equal(bv_bisect_side_of(&v, &slow, T, 1), BV_BISECT_INCONCLUSIVE);
}

static void a_retry_doubles_processes_and_budget_up_to_the_last(void **state)
{
	(void)state;
	assert_int_equal(BV_BISECT_RETRIES, 2);
	for (int attempt = 0; attempt <= BV_BISECT_RETRIES; attempt++) {
		int lo = 10, hi = 60;
		double budget = 1.5;
		bv_bisect_retry_scale(attempt, &lo, &hi, &budget);
		assert_int_equal(lo, 10 << attempt);
		assert_int_equal(hi, 60 << attempt);
		assert_true(budget == 1.5 * (1 << attempt));
		/* another attempt after every one but the last */
		assert_int_equal(bv_bisect_may_retry(attempt), attempt < BV_BISECT_RETRIES);
	}
	int lo = 6, hi = 12;
	double budget = 0.25;
	bv_bisect_retry_scale(0, &lo, &hi, &budget); /* the first measurement: as asked */
	assert_int_equal(lo, 6);
	assert_int_equal(hi, 12);
	assert_true(budget == 0.25);
	bv_bisect_retry_scale(BV_BISECT_RETRIES, &lo, &hi, &budget);
	assert_int_equal(lo, 24);
	assert_int_equal(hi, 48);
	assert_true(budget == 1.0);
	assert_false(bv_bisect_may_retry(BV_BISECT_RETRIES));
	assert_true(bv_bisect_may_retry(0));
}

static void good_against_bad_is_measured_again_only_when_promising_and_noisy(void **state)
{
	(void)state;
	/* the estimate shows the change, the interval is too wide to confirm it */
	bv_bisect_ratio c = r3(1.10, 0.95, 1.30);
	assert_true(bv_bisect_ends_again(&c, T, 0));
	/* moved: nothing more to measure */
	c = r3(1.10, 1.05, 1.15);
	assert_false(bv_bisect_ends_again(&c, T, 0));
	/* an A/A range (estimate within the threshold): refused at once */
	c = r3(1.00, 0.90, 1.10);
	assert_false(bv_bisect_ends_again(&c, T, 0));
	/* not valid: nothing to go on */
	c = r3(1.10, 0.95, 1.30);
	c.valid = 0;
	assert_false(bv_bisect_ends_again(&c, T, 0));
	/* the interval says slower but the evidence does not: not noisy, and
	 * more processes would not change that it did not move */
	c = r3(1.10, 1.05, 1.15);
	c.evidence = 1, c.ps = 0.5;
	assert_false(bv_bisect_moved(&c, T, 0));
	assert_false(bv_bisect_ends_again(&c, T, 0));
	/* a coverage under 95 % is noisy: measured again */
	c = r3(1.10, 1.05, 1.15);
	c.coverage = 0.80;
	assert_true(bv_bisect_ends_again(&c, T, 0));
	/* with improvement, a faster estimate is the promising one */
	c = r3(0.90, 0.75, 1.05);
	assert_true(bv_bisect_ends_again(&c, T, 1));
	assert_false(bv_bisect_ends_again(&c, T, 0));
	c = r3(1.10, 0.95, 1.30);
	assert_false(bv_bisect_ends_again(&c, T, 1));
}

static void the_walk_ends_found_range_or_stopped(void **state)
{
	(void)state;
	assert_int_equal(bv_bisect_end(3, 8, 2, 0), BV_BISECT_GOES_ON);  /* a commit to test, no limit */
	assert_int_equal(bv_bisect_end(3, 8, 2, 3), BV_BISECT_GOES_ON);  /* below --max-steps */
	assert_int_equal(bv_bisect_end(0, 2, 500, 0), BV_BISECT_GOES_ON); /* no limit is no limit */
	assert_int_equal(bv_bisect_end(-1, 1, 6, 0), BV_BISECT_FOUND);   /* bad alone */
	assert_int_equal(bv_bisect_end(-1, 3, 6, 0), BV_BISECT_RANGE);   /* the rest skipped */
	assert_int_equal(bv_bisect_end(3, 8, 3, 3), BV_BISECT_STOPPED);  /* --max-steps */
	assert_int_equal(bv_bisect_end(-1, 1, 3, 3), BV_BISECT_FOUND);   /* found wins over the limit */
	assert_int_equal(bv_bisect_end(-1, 3, 3, 3), BV_BISECT_RANGE);
	assert_null(bv_bisect_ending_name(BV_BISECT_GOES_ON));
	assert_string_equal(bv_bisect_ending_name(BV_BISECT_FOUND), "found");
	assert_string_equal(bv_bisect_ending_name(BV_BISECT_RANGE), "range");
	assert_string_equal(bv_bisect_ending_name(BV_BISECT_STOPPED), "stopped");
}

static void the_parent_verdict_needs_the_evidence_too(void **state)
{
	(void)state;
	bv_bisect_ratio r = r3(1.20, 1.10, 1.30);
	r.ps = r.pf = 1; /* evidence not there (a state file's ratio): the interval decides */
	assert_int_equal(bv_bisect_parent_verdict(&r, T), BV_SLOWER);
	r.evidence = 1, r.ps = 0.001, r.pf = 1;
	assert_int_equal(bv_bisect_parent_verdict(&r, T), BV_SLOWER);
	r.ps = 0.5; /* the interval alone says so */
	assert_int_equal(bv_bisect_parent_verdict(&r, T), BV_SAME);
	r = r3(0.80, 0.70, 0.90);
	assert_int_equal(bv_bisect_parent_verdict(&r, T), BV_FASTER);
	r.evidence = 1, r.ps = 0.001, r.pf = 0.5; /* faster is judged on pf */
	assert_int_equal(bv_bisect_parent_verdict(&r, T), BV_SAME);
	r = r3(1.00, 0.95, 1.05);
	assert_int_equal(bv_bisect_parent_verdict(&r, T), BV_SAME);
	r.valid = 0;
	assert_int_equal(bv_bisect_parent_verdict(&r, T), BV_NO_VERDICT);
}

/* ---- the K-ary split ---------------------------------------------------- */

static void kary_candidates_are_evenly_spaced(void **state)
{
	(void)state;
	size_t out[8];
	/* 15 commits, 3 candidates: four sub-ranges of 3 commits each */
	assert_int_equal(bv_bisect_kary_split(15, 3, out), 3);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[1], 7);
	assert_int_equal(out[2], 11);
	/* K = 1 is the sequential bisect's middle */
	assert_int_equal(bv_bisect_kary_split(15, 1, out), 1);
	assert_int_equal(out[0], 7);
	/* 63 commits (the 64-commit fixture), K = 2, 3, 4: no gap between
	 * neighbours (or the ends) differs from another by more than one */
	for (int k = 2; k <= 4; k++) {
		size_t c = bv_bisect_kary_split(63, k, out);
		assert_int_equal(c, (size_t)k);
		size_t lo = 63, hi = 0, prev = (size_t)-1;
		for (size_t j = 0; j <= c; j++) {
			size_t pos = j < c ? out[j] : 63;
			size_t gap = pos - (prev + 1);
			lo = gap < lo ? gap : lo, hi = gap > hi ? gap : hi;
			prev = pos;
		}
		assert_true(hi - lo <= 1);
	}
}

static void kary_with_k_at_least_the_range_tests_every_commit(void **state)
{
	(void)state;
	size_t out[8];
	assert_int_equal(bv_bisect_kary_split(3, 3, out), 3);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 1);
	assert_int_equal(out[2], 2);
	assert_int_equal(bv_bisect_kary_split(2, 8, out), 2);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 1);
	assert_int_equal(bv_bisect_kary_split(0, 3, out), 0);
	assert_int_equal(bv_bisect_kary_split(5, 0, out), 0);
}

static void kary_narrowing_keeps_the_sub_range_between_last_good_and_first_bad(void **state)
{
	(void)state;
	long lg, fb;
	const bv_bisect_side G = BV_BISECT_GOOD, B = BV_BISECT_BAD, I = BV_BISECT_INCONCLUSIVE;
	bv_bisect_side a[] = {G, G, B};
	bv_bisect_kary_narrow(a, 3, &lg, &fb);
	assert_int_equal(lg, 1);
	assert_int_equal(fb, 2);
	bv_bisect_side all_good[] = {G, G, G};
	bv_bisect_kary_narrow(all_good, 3, &lg, &fb);
	assert_int_equal(lg, 2);
	assert_int_equal(fb, 3); /* bad itself stays the top */
	bv_bisect_side all_bad[] = {B, B, B};
	bv_bisect_kary_narrow(all_bad, 3, &lg, &fb);
	assert_int_equal(lg, -1); /* good itself stays the bottom */
	assert_int_equal(fb, 0);
	/* an inconclusive one is neither: the range spans it */
	bv_bisect_side skip[] = {G, I, B};
	bv_bisect_kary_narrow(skip, 3, &lg, &fb);
	assert_int_equal(lg, 0);
	assert_int_equal(fb, 2);
	/* a good one after the first bad contradicts it and is not used */
	bv_bisect_side odd[] = {B, G, G};
	bv_bisect_kary_narrow(odd, 3, &lg, &fb);
	assert_int_equal(lg, -1);
	assert_int_equal(fb, 0);
	bv_bisect_side mixed[] = {G, B, G, B};
	bv_bisect_kary_narrow(mixed, 4, &lg, &fb);
	assert_int_equal(lg, 0);
	assert_int_equal(fb, 1);
}

/* Every side named and read back; whatever else a state file says is a
 * skip, as it was before the side was an enum. */
static void a_steps_side_reads_back_what_it_wrote(void **state)
{
	(void)state;
	const bv_bisect_side all[] = {BV_BISECT_INCONCLUSIVE, BV_BISECT_GOOD, BV_BISECT_BAD};
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		assert_int_equal(bv_bisect_side_parse(bv_bisect_side_name(all[i])), all[i]);
	assert_string_equal(bv_bisect_side_name(BV_BISECT_GOOD), "good");
	assert_string_equal(bv_bisect_side_name(BV_BISECT_BAD), "bad");
	assert_string_equal(bv_bisect_side_name(BV_BISECT_INCONCLUSIVE), "skip");
	assert_int_equal(bv_bisect_side_parse("skip"), BV_BISECT_INCONCLUSIVE);
	assert_int_equal(bv_bisect_side_parse("Bad"), BV_BISECT_INCONCLUSIVE);
	assert_int_equal(bv_bisect_side_parse(""), BV_BISECT_INCONCLUSIVE);
	assert_int_equal(bv_bisect_side_parse(NULL), BV_BISECT_INCONCLUSIVE);
}

int test_bisect(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(linear_history_tests_the_middle),
		cmocka_unit_test(merges_count_ancestors_and_first_parent_skips_the_side),
		cmocka_unit_test(moved_needs_the_whole_interval_beyond_the_threshold),
		cmocka_unit_test(moved_weighs_sign_evidence_only_when_it_is_there),
		cmocka_unit_test(a_step_is_decided_only_wholly_past_or_before_the_midpoint),
		cmocka_unit_test(improvement_turns_the_sides_round),
		cmocka_unit_test(a_retry_doubles_processes_and_budget_up_to_the_last),
		cmocka_unit_test(good_against_bad_is_measured_again_only_when_promising_and_noisy),
		cmocka_unit_test(the_walk_ends_found_range_or_stopped),
		cmocka_unit_test(the_parent_verdict_needs_the_evidence_too),
		cmocka_unit_test(kary_candidates_are_evenly_spaced),
		cmocka_unit_test(kary_with_k_at_least_the_range_tests_every_commit),
		cmocka_unit_test(kary_narrowing_keeps_the_sub_range_between_last_good_and_first_bad),
		cmocka_unit_test(a_steps_side_reads_back_what_it_wrote),
	};
	return test_run_group("bisect", tests, NULL, NULL);
}
