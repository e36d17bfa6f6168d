/*
 * bisect_step.h - one step of `bench-versions bisect` (bisect_step.c): a
 * commit built, measured against good and bad in the same processes, and
 * judged; and the state file that keeps every step, so that nothing is
 * measured twice.  The bisect's context (bv_bisect_ctx) lives here: every
 * part of the bisect reads it.
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
typedef struct bv_bisect_point {
	char commit[41];
	bv_bisect_side side;     /* its verdict: good, bad, or inconclusive: skipped */
	char *reason;            /* why skipped */
	bv_bisect_ratio vs_good; /* commit / good */
	bv_bisect_ratio bad;     /* bad / good, the same processes */
	bv_bisect_ratio vs_bad;  /* commit / bad, from the per-process ratios */
	int attempts;
	int reused;
} bv_bisect_point;

typedef struct bv_bisect_ctx {
	bv_repo *repo;
	git_repository *git;
	bv_compat *compat;
	const char *bench, *op, *backend;
	size_t size;
	char shape[32];
	int improvement;
	bv_measure_opts mo;
	char *dir;    /* <cache>/bisect/<key> */
	char *state;  /* dir/state.json */
	cJSON *doc;   /* the state */
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
} bv_bisect_ctx;

/* Measures vs[0..n) (vs[0] the baseline) on the one cell with the given
 * processes; status[i] and change[i] (i >= 1, against vs[0]) come back,
 * q the quotient of vs[1] over vs[2] when n == 3. */
typedef struct bv_bisect_outcome {
	bv_status status[3];
	char *reason[3];
	bv_bisect_ratio change[3];
	bv_bisect_ratio q;
} bv_bisect_outcome;

/* The commit's version, resolved, fetched and built (once per bisect).  A
 * commit that does not build comes back with build_error set and rc 0. */
int bv_bisect_version(bv_bisect_ctx *x, const char *commit, bv_version **out);
int bv_bisect_measure(bv_bisect_ctx *x, bv_version **vs, size_t n, int attempt, bv_bisect_outcome *out);
void bv_bisect_outcome_free(bv_bisect_outcome *o);

/* The state file: ratios and points as JSON, a commit's recorded point,
 * and saving a point (the whole state, atomically). */
cJSON *bv_bisect_ratio_json(const bv_bisect_ratio *r);
void bv_bisect_ratio_parse(const cJSON *o, bv_bisect_ratio *r);
cJSON *bv_bisect_point_json(const bv_bisect_point *p);
/* A point as bv_bisect_point_json wrote it, when it is commit's (0: it is not). */
int bv_bisect_point_from_json(const cJSON *e, const char *commit, bv_bisect_point *p);
/* The recorded point of a commit, if any. */
int bv_bisect_point_load(const bv_bisect_ctx *x, const char *commit, bv_bisect_point *p);
int bv_bisect_state_save(bv_bisect_ctx *x);
int bv_bisect_point_save(bv_bisect_ctx *x, const bv_bisect_point *p);
/* The state of the range good_hex..bad_hex, x's cell and way of measuring
 * (the key: x->dir, x->state), resumed when it is there, else made
 * (x->doc).  Needs x's cell settled and x->mo. */
int bv_bisect_open_state(bv_bisect_ctx *x, const char *good_hex, const char *bad_hex);

/* Measures commit against good and bad until it is clearly on one side of
 * the midpoint, or skips it after BV_BISECT_RETRIES more measurements. */
int bv_bisect_classify(bv_bisect_ctx *x, bv_version *good, bv_version *bad, const char *commit,
                       bv_bisect_point *p);
void bv_bisect_ctx_free(bv_bisect_ctx *x);

#endif
