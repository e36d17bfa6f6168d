/*
 * bisect.h - the commit graph behind `bench-versions bisect` (walked by
 * bisect_search.c): which commits may still hold the first bad one, and
 * which to test next.  The rules are git bisect's, computed with libgit2.
 *
 * And the rules that decide one step from its numbers (the second half of
 * this header): pure functions of the ratios and options, no I/O, no
 * repository, so each is unit-tested on made-up numbers (test_bisect.c)
 * instead of through a real bisect that takes minutes.
 *
 * Last, a commit's subject, author and date, and a ratio as text: what the
 * progress lines and every format of the answer say of them.
 */
#ifndef BV_BISECT_H
#define BV_BISECT_H

#include <git2.h>
#include <stddef.h>

#include "stats.h"

/* The commits reachable from bad and from none of goods, bad included,
 * newest first (topological order); with first_parent only along first
 * parents.  *out is malloc'd (n entries). */
int bv_bisect_remaining(git_repository *repo, const git_oid *bad, const git_oid *goods, size_t ngoods,
			int first_parent, git_oid **out, size_t *n);

/* The commit of set (as bv_bisect_remaining returns it) that best halves
 * it: the one whose count of ancestors in the set (itself included) is
 * closest to half, never bad itself nor one with skip[i] set.  Returns its
 * index, or -1 when every other commit is skipped (the answer is a range).
 * Returns BV_ERUN (message set) when the graph cannot be read. */
long bv_bisect_pick(git_repository *repo, const git_oid *set, size_t n, const git_oid *bad,
		    const unsigned char *skip, int first_parent);

/* ---- the decision rules (pure) ------------------------------------------ */

/* Re-measurements of an inconclusive commit (or of good against bad) before
 * it is skipped (or refused): each doubles processes and budget, so two
 * retries cost at most 1 + 2 + 4 = 7 times the first one's budget. */
#define BV_BISECT_RETRIES 2

/* A ratio with its interval, as a log's "change" block gives it, and the
 * sign evidence of its per-process ratios when they were there.  One type
 * for the three ratios of a step (commit / good, bad / good, commit / bad),
 * good against bad at the start and the first bad commit against its
 * parent, so every rule below reads them the same way. */
typedef struct bv_bisect_ratio {
	int valid;
	double est, lo, hi, coverage; /* coverage 0: not recorded (read as 95 %) */
	int processes;
	int evidence;  /* the per-process ratios were there: */
	double ps, pf; /* their sign evidence, slower and faster (stats.h) */
} bv_bisect_ratio;

/* Has bad moved away from good in the direction asked (slower, or faster
 * with improvement), beyond threshold, with its whole interval and with
 * sign evidence at BV_FDR (the same rule as a table's verdicts, for a
 * family of one comparison)?  Evidence that is absent does not veto: a
 * ratio read back from the state file has none.  Invalid: no. */
int bv_bisect_moved(const bv_bisect_ratio *r, double threshold, int improvement);

/* The geometric midpoint of the two levels, sqrt(bad / good), from bad as
 * measured against good; NAN when bad is not valid.  Geometric, because
 * ratios multiply: a commit halfway in log time is as far from either end. */
double bv_bisect_midpoint(const bv_bisect_ratio *bad_vs_good);

typedef enum { BV_BISECT_INCONCLUSIVE = 0, BV_BISECT_GOOD, BV_BISECT_BAD } bv_bisect_side;

/* A step's verdict as the state file, a task's point.json and the output
 * say it: "good", "bad", and "skip" for inconclusive (a commit not placed
 * on either side is skipped: it did not build, its cell failed, or no
 * retry settled it). */
const char *bv_bisect_side_name(bv_bisect_side s);
/* The side a step's text names; anything but "good" or "bad" is a skip,
 * BV_BISECT_INCONCLUSIVE (a damaged state file's verdict decides nothing). */
bv_bisect_side bv_bisect_side_parse(const char *text);

/* One measured step: the commit is bad when its whole interval against good
 * lies past the midpoint (above it for a slowdown, below it with
 * improvement), good when wholly before it, and inconclusive when the
 * interval straddles the midpoint, the commit's ratio is not valid, or bad
 * (measured in the same processes) no longer shows the change, for then the
 * midpoint means nothing.  One noisy number must never decide a step: a
 * wrong step sends the search down the wrong half with no sign of it. */
bv_bisect_side bv_bisect_side_of(const bv_bisect_ratio *vs_good, const bv_bisect_ratio *bad_vs_good,
				 double threshold, int improvement);

/* What retry number attempt (0: the first measurement, up to
 * BV_BISECT_RETRIES) measures with: processes and budget doubled per retry
 * (an inconclusive interval is one too wide, and more processes are what
 * narrows it).  The three are scaled in place. */
void bv_bisect_retry_scale(int attempt, int *min_processes, int *max_processes, double *budget_s);

/* Whether an inconclusive measurement at attempt may be followed by another
 * (attempt < BV_BISECT_RETRIES); 0 at the last attempt: skip, or refuse. */
int bv_bisect_may_retry(int attempt);

/* Good against bad, just measured: measure it again (within the retries)?
 * Only when the estimate shows the change and the interval is merely too
 * wide to confirm it (bv_interval_noisy); an A/A range is refused at once,
 * a change that moved needs nothing more, and a real but noisy change gets
 * more processes before it is refused. */
int bv_bisect_ends_again(const bv_bisect_ratio *check, double threshold, int improvement);

/* How a walk ends: found when bad alone is left, range when every other
 * commit was skipped, stopped at --max-steps; BV_BISECT_GOES_ON: it does not. */
typedef enum { BV_BISECT_GOES_ON = 0, BV_BISECT_FOUND, BV_BISECT_RANGE, BV_BISECT_STOPPED } bv_bisect_ending;
/* As the JSON answer's status says it: "found", "range", "stopped"; NULL
 * for BV_BISECT_GOES_ON. */
const char *bv_bisect_ending_name(bv_bisect_ending e);

/* Whether the walk ends, and how, before testing set[pick] (pick from
 * bv_bisect_pick, >= -1) with nset commits left and nsteps taken
 * (max_steps 0: no limit). */
bv_bisect_ending bv_bisect_end(long pick, size_t nset, size_t nsteps, int max_steps);

/* The first bad commit against its parent: the verdict of the interval
 * (stats.h), but BV_SAME when the sign evidence is there and does not reach
 * BV_FDR; BV_NO_VERDICT when the ratio is not valid. */
bv_verdict bv_bisect_parent_verdict(const bv_bisect_ratio *r, double threshold);

/* ---- the K-ary split of `bisect --parallel K` (pure) ---------------------- */

/* The candidates of one round: of m commits that may be tested (the range
 * without bad and without skipped commits, oldest first), min(k, m) at
 * evenly spaced positions, into out (room for k), ascending.  Evenly
 * spaced, so each of the k + 1 sub-ranges a round can leave holds about
 * m / (k + 1) commits: the worst round is as good as the best.  k >= m
 * tests every one (the round then ends the walk).  Returns the count. */
size_t bv_bisect_kary_split(size_t m, int k, size_t *out);

/* After a round: sides[0..c) the verdicts of its candidates, oldest first.
 * *first_bad: the oldest bad one (c: none, bad itself stays the top);
 * *last_good: the newest good one older than it (-1: none, the bottom
 * stays).  The first bad commit lies after last_good and at or before
 * first_bad.  A good one newer than first_bad contradicts it (noise, or a
 * change that came and went) and is not used: the bad verdict is the one
 * with an interval wholly past the midpoint, as good's is, and the older
 * answer is the one a sequential bisect would have found first. */
void bv_bisect_kary_narrow(const bv_bisect_side *sides, size_t c, long *last_good, long *first_bad);

/* ---- what the output says of a commit and a ratio ---------------------- */

/* A commit's subject, author, date (ISO 8601 with its offset) and first
 * parent ("" if none); empty strings when it cannot be read. */
typedef struct bv_bisect_commit {
	char *subject, *author, *email, *date;
	char parent[41];
} bv_bisect_commit;
void bv_bisect_commit_read(git_repository *g, const char *hex, bv_bisect_commit *ci);
void bv_bisect_commit_free(bv_bisect_commit *ci);
/* "1.012 [1.004, 1.020]", or "-" when the ratio is not valid. */
void bv_bisect_ratio_text(const bv_bisect_ratio *r, char *buf, size_t len);

#endif
