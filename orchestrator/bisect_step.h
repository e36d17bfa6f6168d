/*
 * bisect_step.h - one step of `bench-versions bisect` (bisect_step.c): a
 * commit built, measured against good and bad in the same processes, and
 * judged; and the state file that keeps every step, so that nothing is
 * measured twice.  The bisect's context (ctx) lives here: every part of
 * the bisect reads it.
 */
#ifndef BV_BISECT_STEP_H
#define BV_BISECT_STEP_H

#include <git2.h>
#include <stddef.h>

#include "bisect.h"
#include "common.h"
#include "compat.h"
#include "json.h"
#include "plan.h"
#include "resolve.h"
#include "status.h"

/* What one commit measured, against good and bad in the same processes. */
typedef struct point {
	char commit[41];
	bv_bisect_side side; /* its verdict: good, bad, or inconclusive: skipped */
	char *reason;        /* why skipped */
	bv_bisect_ratio vs_good; /* commit / good */
	bv_bisect_ratio bad;     /* bad / good, the same processes */
	bv_bisect_ratio vs_bad;  /* commit / bad, from the per-process ratios */
	int attempts;
	int reused;
} point;

typedef struct ctx {
	bv_repo *repo;
	git_repository *git;
	bv_compat *compat;
	const char *bench, *op, *backend;
	size_t size;
	char shape[32];
	int improvement;
	bv_measure_opts mo;
	char *dir;   /* <cache>/bisect/<key> */
	char *state; /* dir/state.json */
	cJSON *doc;  /* the state */
	int nmeasure; /* measurements taken, for the log directories */
	/* versions built so far, by commit */
	bv_version **vs;
	size_t nvs;
	int builds, builds_new, builds_failed;
	int taken, reused;
	int rounds; /* rounds of candidates measured (a sequential step is one) */
	/* --by counts: each step is Valgrind's instruction count of one call
	 * per version (counts.h), not a timing: deterministic, one process */
	int by_counts;
	double count_timeout;
	/* A project suite (suite.h): where the ends' description was
	 * registered (removed at the end), and the commits described since */
	char *suite_tmp;
	bv_strv described;
} ctx;

/* Measures vs[0..n) (vs[0] the baseline) on the one cell with the given
 * processes; status[i] and change[i] (i >= 1, against vs[0]) come back,
 * q the quotient of vs[1] over vs[2] when n == 3. */
typedef struct outcome {
	bv_status status[3];
	char *reason[3];
	bv_bisect_ratio change[3];
	bv_bisect_ratio q;
} outcome;

/* The commit's version, resolved, fetched and built (once per bisect).  A
 * commit that does not build comes back with build_error set and rc 0. */
int version_of(ctx *x, const char *commit, bv_version **out);
int measure(ctx *x, bv_version **vs, size_t n, int attempt, outcome *out);
void outcome_free(outcome *o);

/* The state file: ratios and points as JSON, a commit's recorded point,
 * and saving a point (the whole state, atomically). */
cJSON *ratio_json(const bv_bisect_ratio *r);
void ratio_parse(const cJSON *o, bv_bisect_ratio *r);
cJSON *point_json(const point *p);
/* A point as point_json wrote it, when it is commit's (0: it is not). */
int point_from_json(const cJSON *e, const char *commit, point *p);
/* The recorded point of a commit, if any. */
int point_load(const ctx *x, const char *commit, point *p);
int state_save(ctx *x);
int point_save(ctx *x, const point *p);

/* Measures commit against good and bad until it is clearly on one side of
 * the midpoint, or skips it after BV_BISECT_RETRIES more measurements. */
int classify(ctx *x, bv_version *good, bv_version *bad, const char *commit, point *p);
void ctx_free(ctx *x);

#endif
