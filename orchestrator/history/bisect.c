/*
 * bisect.c - the graph half of `bench-versions bisect`: git bisect's rules,
 * through libgit2 (no git command).
 *
 * The commits that may still be the first bad one are those reachable from
 * the current bad commit and from no good one (a revwalk that pushes bad and
 * hides every good).  The next to test is the one that splits that set most
 * evenly: for commit c, w(c) = how many commits of the set are ancestors of c
 * or c itself; testing c leaves w(c) commits if it is bad and n - w(c) if it
 * is good, so the best c maximises min(w, n - w).  On a linear history that is
 * the middle commit; with merges it is what git bisect picks.
 *
 * Then the rules that decide a step from its numbers (bisect.h says why
 * each is what it is); bisect_step.c measures and calls them, and
 * bisect_search.c walks.  Last, what the output says of a commit (its
 * subject, author, date, parent) and of a ratio, shared by the progress
 * lines and the answer's formats.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bisect.h"
#include "common.h"
#include "git_util.h"
#include "stats.h"
#include "verdict.h"


/* git rev-list bad ^good...: the one walk (git_util.c) history uses too. */
int bv_bisect_remaining(git_repository *repo, const git_oid *bad, const git_oid *goods, size_t ngoods,
			int first_parent, git_oid **out, size_t *n)
{
	return bv_git_walk(repo, bad, goods, ngoods, first_parent, 0, out, n);
}

/* Sorted copy of the set's ids with their index, for parent lookups. */
typedef struct keyed {
	git_oid id;
	size_t index;
} keyed;

static int keyed_cmp(const void *a, const void *b) { return git_oid_cmp(&((const keyed *)a)->id, &((const keyed *)b)->id); }

long bv_bisect_pick(git_repository *repo, const git_oid *set, size_t n, const git_oid *bad,
		    const unsigned char *skip, int first_parent)
{
	if (n < 2)
		return -1;
	keyed *sorted = bv_xmalloc(n * sizeof(keyed));
	for (size_t i = 0; i < n; i++)
		sorted[i].id = set[i], sorted[i].index = i;
	qsort(sorted, n, sizeof(keyed), keyed_cmp);
	/* parents[i]: indices of commit i's parents that are in the set.  A
	 * path from c to an ancestor a in the set never leaves the set (a
	 * commit on it that a good commit reaches would make a reachable
	 * too), so ancestors can be counted by walking inside the set. */
	size_t **parents = bv_xcalloc(n, sizeof(size_t *));
	size_t *nparents = bv_xcalloc(n, sizeof(size_t));
	int linear = 1;
	long rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		git_commit *c = NULL;
		if (git_commit_lookup(&c, repo, &set[i]) < 0) {
			rc = bv_git_fail(BV_ERUN, "reading a commit");
			break;
		}
		unsigned np = first_parent ? (git_commit_parentcount(c) > 0) : git_commit_parentcount(c);
		parents[i] = bv_xcalloc(np + 1, sizeof(size_t));
		for (unsigned k = 0; k < np; k++) {
			keyed key = {*git_commit_parent_id(c, k), 0};
			keyed *hit = bsearch(&key, sorted, n, sizeof(keyed), keyed_cmp);
			if (hit)
				parents[i][nparents[i]++] = hit->index;
		}
		linear &= nparents[i] <= 1;
		git_commit_free(c);
	}
	size_t *weight = bv_xcalloc(n, sizeof(size_t));
	if (rc == 0 && linear) {
		/* A chain, newest first: commit i has n - i ancestors in the set. */
		for (size_t i = 0; i < n; i++)
			weight[i] = n - i;
	} else if (rc == 0) {
		unsigned char *seen = bv_xmalloc(n);
		size_t *stack = bv_xmalloc(n * sizeof(size_t));
		for (size_t i = 0; i < n; i++) {
			memset(seen, 0, n);
			size_t top = 0, count = 0;
			stack[top++] = i, seen[i] = 1;
			while (top) {
				size_t c = stack[--top];
				count++;
				for (size_t k = 0; k < nparents[c]; k++)
					if (!seen[parents[c][k]])
						seen[parents[c][k]] = 1, stack[top++] = parents[c][k];
			}
			weight[i] = count;
		}
		free(seen);
		free(stack);
	}
	long best = -1;
	size_t best_score = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (git_oid_equal(&set[i], bad) || (skip && skip[i]))
			continue;
		size_t score = weight[i] < n - weight[i] ? weight[i] : n - weight[i];
		if (best < 0 || score > best_score)
			best = (long)i, best_score = score;
	}
	for (size_t i = 0; i < n; i++)
		free(parents[i]);
	free(parents);
	free(nparents);
	free(weight);
	free(sorted);
	return rc ? rc : best;
}

/* ---- the decision rules ------------------------------------------------- */

int bv_bisect_moved(const bv_bisect_ratio *r, double threshold, int improvement)
{
	if (!r->valid)
		return 0;
	bv_interval iv = {r->est, r->lo, r->hi, r->coverage ? r->coverage : 0.95, (size_t)r->processes};
	if (bv_verdict_of(&iv, threshold) != (improvement ? BV_FASTER : BV_SLOWER))
		return 0;
	return !r->evidence || 2 * (improvement ? r->pf : r->ps) <= BV_FDR;
}

double bv_bisect_midpoint(const bv_bisect_ratio *bad_vs_good)
{
	return bad_vs_good->valid ? sqrt(bad_vs_good->est) : NAN;
}

static const char *const side_names[] = {
	[BV_BISECT_INCONCLUSIVE] = "skip", [BV_BISECT_GOOD] = "good", [BV_BISECT_BAD] = "bad"};

const char *bv_bisect_side_name(bv_bisect_side s)
{
	return (unsigned)s < sizeof(side_names) / sizeof(side_names[0]) ? side_names[s] : side_names[0];
}

bv_bisect_side bv_bisect_side_parse(const char *text)
{
	for (bv_bisect_side s = BV_BISECT_GOOD; text && s <= BV_BISECT_BAD; s++)
		if (!strcmp(text, side_names[s]))
			return s;
	return BV_BISECT_INCONCLUSIVE;
}

bv_bisect_side bv_bisect_side_of(const bv_bisect_ratio *vs_good, const bv_bisect_ratio *bad_vs_good,
				 double threshold, int improvement)
{
	if (!vs_good->valid || !bv_bisect_moved(bad_vs_good, threshold, improvement))
		return BV_BISECT_INCONCLUSIVE;
	double mid = bv_bisect_midpoint(bad_vs_good);
	int above = vs_good->lo > mid, below = vs_good->hi < mid;
	if (!above && !below)
		return BV_BISECT_INCONCLUSIVE;
	return above != improvement ? BV_BISECT_BAD : BV_BISECT_GOOD;
}

void bv_bisect_retry_scale(int attempt, int *min_processes, int *max_processes, double *budget_s)
{
	*min_processes <<= attempt, *max_processes <<= attempt, *budget_s *= 1 << attempt;
}

int bv_bisect_may_retry(int attempt) { return attempt < BV_BISECT_RETRIES; }

int bv_bisect_ends_again(const bv_bisect_ratio *check, double threshold, int improvement)
{
	bv_interval iv = {check->est, check->lo, check->hi, check->coverage, (size_t)check->processes};
	int promising = check->valid && (improvement ? check->est < 1.0 / (1.0 + threshold)
						     : check->est > 1.0 + threshold);
	return !bv_bisect_moved(check, threshold, improvement) && promising &&
	       bv_interval_noisy(&iv, threshold);
}

const char *bv_bisect_ending_name(bv_bisect_ending e)
{
	switch (e) {
	case BV_BISECT_FOUND: return "found";
	case BV_BISECT_RANGE: return "range";
	case BV_BISECT_STOPPED: return "stopped";
	case BV_BISECT_GOES_ON: break;
	}
	return NULL;
}

bv_bisect_ending bv_bisect_end(long pick, size_t nset, size_t nsteps, int max_steps)
{
	if (pick != -1 && !(max_steps && (int)nsteps >= max_steps))
		return BV_BISECT_GOES_ON;
	/* bad alone, or bad and commits that could not be told */
	return nset == 1 ? BV_BISECT_FOUND : pick == -1 ? BV_BISECT_RANGE : BV_BISECT_STOPPED;
}

bv_verdict bv_bisect_parent_verdict(const bv_bisect_ratio *r, double threshold)
{
	bv_interval iv = {r->est, r->lo, r->hi, r->coverage, (size_t)r->processes};
	if (!r->valid)
		return BV_NO_VERDICT;
	bv_verdict v = bv_verdict_of(&iv, threshold);
	double p = v == BV_SLOWER ? r->ps : r->pf;
	if (v != BV_SAME && r->evidence && 2 * p > BV_FDR)
		v = BV_SAME; /* the interval alone says so; the evidence does not */
	return v;
}

size_t bv_bisect_kary_split(size_t m, int k, size_t *out)
{
	if (k < 1 || m == 0)
		return 0;
	size_t c = (size_t)k < m ? (size_t)k : m;
	/* floor((j + 1) m / (c + 1)): with c < m the step m / (c + 1) is at
	 * least 1, so the positions differ; with c == m it is j itself. */
	for (size_t j = 0; j < c; j++)
		out[j] = (j + 1) * m / (c + 1);
	return c;
}

void bv_bisect_kary_narrow(const bv_bisect_side *sides, size_t c, long *last_good, long *first_bad)
{
	size_t fb = 0;
	while (fb < c && sides[fb] != BV_BISECT_BAD)
		fb++;
	long lg = -1;
	for (size_t j = 0; j < fb; j++)
		if (sides[j] == BV_BISECT_GOOD)
			lg = (long)j;
	*first_bad = (long)fb;
	*last_good = lg;
}

/* ---- what the output says of a commit and a ratio ---------------------- */

void bv_bisect_commit_read(git_repository *g, const char *hex, bv_bisect_commit *ci)
{
	memset(ci, 0, sizeof(*ci));
	git_oid id;
	git_commit *c = NULL;
	if (git_oid_fromstr(&id, hex) < 0 || git_commit_lookup(&c, g, &id) < 0) {
		ci->subject = bv_strdup(""), ci->author = bv_strdup(""), ci->email = bv_strdup("");
		ci->date = bv_strdup("");
		return;
	}
	const char *s = git_commit_summary(c);
	const git_signature *a = git_commit_author(c);
	ci->subject = bv_strdup(s ? s : "");
	ci->author = bv_strdup(a && a->name ? a->name : "");
	ci->email = bv_strdup(a && a->email ? a->email : "");
	char buf[40] = "";
	if (a) {
		time_t t = (time_t)a->when.time + (time_t)a->when.offset * 60;
		struct tm tm;
		gmtime_r(&t, &tm);
		size_t k = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
		int off = a->when.offset;
		snprintf(buf + k, sizeof(buf) - k, "%c%02d:%02d", off < 0 ? '-' : '+', abs(off) / 60, abs(off) % 60);
	}
	ci->date = bv_strdup(buf);
	if (git_commit_parentcount(c) > 0)
		git_oid_tostr(ci->parent, sizeof(ci->parent), git_commit_parent_id(c, 0));
	git_commit_free(c);
}

void bv_bisect_commit_free(bv_bisect_commit *ci)
{
	free(ci->subject), free(ci->author), free(ci->email), free(ci->date);
}

void bv_bisect_ratio_text(const bv_bisect_ratio *r, char *buf, size_t len)
{
	if (r->valid)
		snprintf(buf, len, "%.3f [%.3f, %.3f]", r->est, r->lo, r->hi);
	else
		snprintf(buf, len, "-");
}
