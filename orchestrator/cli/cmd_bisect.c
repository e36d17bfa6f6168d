/*
 * cmd_bisect.c - bench-versions bisect --good REV --bad REV --bench B --op O
 * --backend BE --size S: the first commit where one cell moved from the good
 * level to the bad level.
 *
 * The graph is git bisect's (bisect.c): the candidates are the commits that
 * bad reaches and good does not, and each step tests the one that best
 * halves them.  A step builds its commit through the usual stages and
 * measures good, the commit and bad together in one bv_measure call over the
 * one cell, so the paired method compares the three in the same processes.
 * The commit's ratio to good is then set against the geometric midpoint of
 * the two levels, sqrt(bad / good): a commit is bad only when its whole
 * interval lies past the midpoint, good when wholly before it, and anything
 * else is measured again with more processes, then skipped.  One noisy
 * number never decides a step: a wrong step sends the search down the wrong
 * half and the answer is wrong with no sign of it.
 *
 * Every measurement is kept in a state file in the cache
 * (<cache>/bisect/<key>/state.json, written atomically after each one), keyed
 * by the two ends, the cell and the measuring options.  A second bisect of the
 * same range measures nothing twice, and an interrupted one goes on where it
 * stopped.  --first-parent is not part of the key: it changes which commits
 * are visited, not what a commit measures.
 *
 * This file measures, keeps the state and prints; the command at its end is
 * a sequence of phases (options, the one cell, the ends, the state, good
 * against bad, the walk, the first bad commit's parent, the answer).  The
 * rules that decide on the numbers (has bad moved, which side of the
 * midpoint, the retries, when the walk ends) are pure functions in bisect.c,
 * unit-tested on their own (tests/unit/test_bisect.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benches.h"
#include "bisect.h"
#include "cli.h"
#include "common.h"
#include "counts.h"
#include "fs.h"
#include "plan.h"
#include "proc.h"
#include "project.h"
#include "hash.h"
#include "json.h"
#include "results.h"
#include "slurm.h"
#include "options.h"
#include "compat.h"
#include "resolve.h"
#include "measure.h"
#include "run_options.h"
#include "pipeline.h"
#include "stats.h"
#include "status.h"
#include "suite.h"
#include "suite_file.h"

#define STATE_SCHEMA "bench-versions-bisect"
#define STATE_SCHEMA_VERSION "1.0"

static void usage(FILE *out, const bv_option *opts)
{
	fprintf(out,
		"usage: bench-versions bisect --good REV --bad REV --bench B --op O --backend BE --size S\n"
		"                             [--first-parent] [--improvement] [--format text|json]\n"
		"                             [--quick] [--max-steps N] [--parallel K [--slurm]] [options]\n\n"
		"Finds the first commit between good and bad where one cell moved from good's\n"
		"level to bad's (a slowdown; with --improvement a speed-up).  Each step builds\n"
		"a commit and measures it together with good and bad; a commit is bad when\n"
		"its 95%% interval lies wholly past the midpoint of the two levels, good when\n"
		"wholly before it, else it is measured again with more processes and then\n"
		"skipped.  Commits that do not build or whose cell fails are skipped too.\n"
		"Measurements are kept in the cache: a second bisect of the same range\n"
		"measures nothing twice, and an interrupted one continues.  --parallel K tests\n"
		"K evenly spaced commits a round (with --slurm as one Slurm job array, one\n"
		"node each): fewer rounds for the same answer (docs/cli/bisect.md).\n\n"
		"options (--opt VALUE or --opt=VALUE):\n");
	bv_options_help(opts, out);
	fprintf(out, "\nenvironment: KERNEL_DIR, KERNEL_REPO, BENCH_VERSIONS_CACHE, BENCH_VERSIONS_COMPAT, CC\n"
		     "exit codes: 0 done (a commit or, with skips or --max-steps, a range), 2 usage or\n"
		     "input error (unknown cell or revision, good not an ancestor of bad, no change\n"
		     "between good and bad), 3 a build of an end or a measurement failed\n");
}

/* The anytime-valid sign evidence of per-process ratios (verdict.c's test,
 * for a family of one comparison). */
static void evidence_of(bv_bisect_ratio *r, const double *v, size_t n, double threshold)
{
	if (n == 0)
		return;
	r->evidence = 1;
	r->ps = bv_sign_evidence(v, n, 1 + threshold, +1);
	r->pf = bv_sign_evidence(v, n, 1 / (1 + threshold), -1);
}

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

/* ---- builds ----------------------------------------------------------- */

/* The commit's version, resolved, fetched and built (once per bisect).  A
 * commit that does not build comes back with build_error set and rc 0. */
static int version_of(ctx *x, const char *commit, bv_version **out)
{
	for (size_t i = 0; i < x->nvs; i++)
		if (!strcmp(x->vs[i]->commit, commit)) {
			*out = x->vs[i];
			return 0;
		}
	bv_version *v = bv_xcalloc(1, sizeof(*v));
	int rc = bv_resolve(x->repo, commit, v);
	if (rc == 0) {
		/* Short labels: the three versions of a measurement differ in them. */
		free(v->label);
		v->label = bv_asprintf("%.12s", v->commit);
		bv_semver sv;
		if (bv_semver_parse(v->kernel_version, &sv) == 0)
			rc = bv_compat_match(x->compat, &sv, &v->shims);
	}
	/* In a child that dies with us, as run's builds are: a SIGKILL of the
	 * bisect ends make and its compilers too. */
	int failed = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (rc == 0) /* one build at a time: make gets every CPU */
		rc = bv_build_versions(x->repo, v, 1, ncpu > 0 ? (int)ncpu : 1, -1, NULL, &failed);
	if (rc) {
		bv_version_free(v);
		free(v);
		return rc;
	}
	x->builds++;
	x->builds_new += !v->cached && !v->build_error;
	x->builds_failed += v->build_error != NULL;
	if (v->build_error)
		fprintf(stderr, "build: %.12s FAILED: %s\n", v->commit, v->build_error);
	else
		fprintf(stderr, "build: %.12s %s\n", v->commit, v->cached ? "cached, nothing rebuilt" : "built");
	x->vs = bv_xrealloc(x->vs, (x->nvs + 1) * sizeof(*x->vs));
	x->vs[x->nvs++] = v;
	*out = v;
	return 0;
}

/* ---- measuring -------------------------------------------------------- */

static void ratio_from(const cJSON *change, bv_bisect_ratio *r, double threshold)
{
	memset(r, 0, sizeof(*r));
	double p = 0;
	if (!bv_json_num(change, "ratio", &r->est) && !bv_json_num(change, "ratio_ci_low", &r->lo) &&
	    !bv_json_num(change, "ratio_ci_high", &r->hi) && !bv_json_num(change, "processes", &p)) {
		r->valid = 1;
		r->processes = (int)p;
		if (bv_json_num(change, "coverage", &r->coverage))
			r->coverage = 0;
		const cJSON *pr = cJSON_GetObjectItemCaseSensitive(change, "process_ratios"), *e;
		size_t n = 0;
		double *v = bv_xcalloc((size_t)cJSON_GetArraySize(pr) + 1, sizeof(double));
		cJSON_ArrayForEach(e, pr) if (cJSON_IsNumber(e)) v[n++] = e->valuedouble;
		evidence_of(r, v, n, threshold);
		free(v);
	}
}

/* The one cell's entry in a log (checked as every log is: results.c). */
static int log_cell(const char *path, cJSON **doc, const cJSON **cell)
{
	int rc = bv_log_load(path, doc);
	if (rc)
		return rc;
	const cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(*doc, "cells"))
	{
		*cell = c;
		return 0;
	}
	*cell = NULL;
	return 0;
}

/* Per-process quotient of two versions' ratios to the same baseline: their
 * ratio to each other, process by process (both lists come from the same
 * processes when both versions ran in all of them). */
static void quotient(const cJSON *a, const cJSON *b, bv_bisect_ratio *out, double threshold)
{
	memset(out, 0, sizeof(*out));
	const cJSON *ra = cJSON_GetObjectItemCaseSensitive(a, "process_ratios");
	const cJSON *rb = cJSON_GetObjectItemCaseSensitive(b, "process_ratios");
	int n = cJSON_GetArraySize(ra);
	if (n == 0 || n != cJSON_GetArraySize(rb))
		return;
	double *q = bv_xcalloc((size_t)n, sizeof(double));
	for (int i = 0; i < n; i++) {
		double x = cJSON_GetArrayItem(ra, i)->valuedouble, y = cJSON_GetArrayItem(rb, i)->valuedouble;
		q[i] = y > 0 ? x / y : NAN;
	}
	bv_interval iv;
	if (bv_median_interval(q, (size_t)n, 0.95, &iv) == 0 && isfinite(iv.est)) {
		out->valid = 1;
		out->est = iv.est, out->lo = iv.lo, out->hi = iv.hi, out->coverage = iv.coverage;
		out->processes = n;
		evidence_of(out, q, (size_t)n, threshold);
	}
	free(q);
}

/* Measures vs[0..n) (vs[0] the baseline) on the one cell with the given
 * processes; status[i] and change[i] (i >= 1, against vs[0]) come back,
 * q the quotient of vs[1] over vs[2] when n == 3. */
typedef struct outcome {
	bv_status status[3];
	char *reason[3];
	bv_bisect_ratio change[3];
	bv_bisect_ratio q;
} outcome;

static void outcome_free(outcome *o)
{
	for (int i = 0; i < 3; i++)
		free(o->reason[i]);
	memset(o, 0, sizeof(*o));
}

/* An exact ratio: a count has no interval, the same code counts the same. */
static bv_bisect_ratio exact(double r)
{
	return (bv_bisect_ratio){1, r, r, r, 1.0, 1, 0, NAN, NAN};
}

/* --by counts: each version's call counted once under Valgrind; the ratios
 * are of instructions per call. */
static int count_step(ctx *x, bv_version **vs, size_t n, outcome *out)
{
	bv_count_req reqs[3];
	bv_count cs[3];
	for (size_t i = 0; i < n; i++)
		reqs[i] = (bv_count_req){vs[i]->label, vs[i]->build_key, x->bench, x->op, x->backend, x->size, x->mo.simd_isa};
	bv_counts_opts co = {BV_COUNTS_ALL, x->count_timeout, 0, 1};
	char *dir = bv_asprintf("%s/logs/%d-%.12s-counts", x->dir, ++x->nmeasure, vs[n > 2 ? 1 : n - 1]->commit);
	int rc = bv_mkdir_p(dir);
	if (rc == 0)
		rc = bv_counts_make(reqs, n, dir, &co, cs);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		out->status[i] = cs[i].status;
		out->reason[i] = cs[i].reason ? bv_strdup(cs[i].reason) : NULL;
	}
	for (size_t i = 1; rc == 0 && i < n; i++)
		if (cs[0].status == BV_ST_OK && cs[i].status == BV_ST_OK && cs[0].ev[BV_EV_IR] > 0)
			out->change[i] = exact(cs[i].ev[BV_EV_IR] / cs[0].ev[BV_EV_IR]);
	if (rc == 0 && n == 3 && out->change[1].valid && out->change[2].valid)
		out->q = exact(cs[1].ev[BV_EV_IR] / cs[2].ev[BV_EV_IR]);
	for (size_t i = 0; rc == 0 && i < n; i++)
		bv_count_free(&cs[i]);
	free(dir);
	x->taken++;
	return rc;
}

/* A project suite: a commit measured for the first time is described
 * first, with the others of its measurement, as run's versions are after
 * their builds (bv_suite_describe, the same call): its benchmarks must
 * agree with every commit's before it, or the bisect stops naming both. */
static int describe_new(ctx *x, const bv_version *vs, size_t n, const char *dir, bv_measure_opts *o)
{
	if (!bv_suite_dir())
		return 0;
	size_t fresh = 0;
	for (size_t i = 0; i < n; i++) {
		int known = 0;
		for (size_t k = 0; k < x->described.n && !known; k++)
			known = !strcmp(x->described.v[k], vs[i].commit);
		fresh += !known;
	}
	if (!fresh)
		return 0;
	int rc = bv_suite_describe(vs, n, dir, o);
	for (size_t i = 0; rc == 0 && i < n; i++)
		bv_strv_push(&x->described, vs[i].commit);
	return rc;
}

static int measure(ctx *x, bv_version **vs, size_t n, int attempt, outcome *out)
{
	memset(out, 0, sizeof(*out));
	if (x->by_counts)
		return count_step(x, vs, n, out);
	bv_measure_opts o = x->mo;
	o.benches = x->bench, o.ops = x->op, o.backends = x->backend, o.sizes = x->shape;
	bv_bisect_retry_scale(attempt, &o.min_processes, &o.max_processes, &o.budget_s);
	o.seed = x->mo.seed + (unsigned long long)x->nmeasure * 7919u;
	bv_version *copies = bv_xcalloc(n, sizeof(bv_version));
	for (size_t i = 0; i < n; i++)
		copies[i] = *vs[i]; /* shallow: bv_measure only reads them */
	char *dir = bv_asprintf("%s/logs/%d-%.12s-%d", x->dir, ++x->nmeasure, vs[n > 2 ? 1 : n - 1]->commit,
				attempt);
	bv_rm_rf(dir);
	char **logs = NULL;
	int rc = bv_mkdir_p(dir);
	if (rc == 0)
		rc = describe_new(x, copies, n, dir, &o);
	if (rc == 0)
		rc = bv_measure(copies, n, &o, dir, &logs);
	free(copies);
	cJSON *docs[3] = {NULL, NULL, NULL};
	const cJSON *cells[3] = {NULL, NULL, NULL};
	for (size_t i = 0; rc == 0 && i < n; i++) {
		rc = log_cell(logs[i], &docs[i], &cells[i]);
		if (rc == 0 && !cells[i])
			rc = bv_fail(BV_ERUN, "%s: no cell measured", logs[i]);
		if (rc)
			break;
		bv_status st = bv_status_parse(bv_json_str(cells[i], "status"));
		const char *why = bv_json_str(cells[i], "reason");
		out->status[i] = st != BV_ST_NONE ? st : BV_ST_FAILED;
		out->reason[i] = why ? bv_strdup(why) : NULL;
		if (i > 0)
			ratio_from(cJSON_GetObjectItemCaseSensitive(cells[i], "change"), &out->change[i], x->mo.threshold);
	}
	if (rc == 0 && n == 3 && out->change[1].valid && out->change[2].valid)
		quotient(cJSON_GetObjectItemCaseSensitive(cells[1], "change"),
			 cJSON_GetObjectItemCaseSensitive(cells[2], "change"), &out->q, x->mo.threshold);
	for (size_t i = 0; i < n; i++) {
		cJSON_Delete(docs[i]);
		if (logs)
			free(logs[i]);
	}
	free(logs);
	free(dir);
	x->taken++;
	return rc;
}

/* ---- the state file --------------------------------------------------- */

static cJSON *ratio_json(const bv_bisect_ratio *r)
{
	if (!r->valid)
		return cJSON_CreateNull();
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "ratio", r->est);
	cJSON_AddNumberToObject(o, "ci_low", r->lo);
	cJSON_AddNumberToObject(o, "ci_high", r->hi);
	cJSON_AddNumberToObject(o, "coverage", r->coverage);
	cJSON_AddNumberToObject(o, "processes", r->processes);
	return o;
}

static void ratio_parse(const cJSON *o, bv_bisect_ratio *r)
{
	memset(r, 0, sizeof(*r));
	double p = 0;
	if (cJSON_IsObject(o) && !bv_json_num(o, "ratio", &r->est) && !bv_json_num(o, "ci_low", &r->lo) &&
	    !bv_json_num(o, "ci_high", &r->hi) && !bv_json_num(o, "processes", &p)) {
		r->valid = 1, r->processes = (int)p;
		bv_json_num(o, "coverage", &r->coverage);
	}
}

static cJSON *point_json(const point *p)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "commit", p->commit);
	cJSON_AddStringToObject(o, "verdict", bv_bisect_side_name(p->side));
	if (p->reason)
		cJSON_AddStringToObject(o, "reason", p->reason);
	cJSON_AddItemToObject(o, "vs_good", ratio_json(&p->vs_good));
	cJSON_AddItemToObject(o, "bad_vs_good", ratio_json(&p->bad));
	cJSON_AddItemToObject(o, "vs_bad", ratio_json(&p->vs_bad));
	cJSON_AddNumberToObject(o, "attempts", p->attempts);
	return o;
}

/* A point as point_json wrote it, when it is commit's (0: it is not). */
static int point_from_json(const cJSON *e, const char *commit, point *p)
{
	const char *c = bv_json_str(e, "commit"), *v = bv_json_str(e, "verdict");
	if (!c || !v || strcmp(c, commit))
		return 0;
	memset(p, 0, sizeof(*p));
	snprintf(p->commit, sizeof(p->commit), "%s", c);
	p->side = bv_bisect_side_parse(v);
	/* a node's text (or a state file's) reaches the terminal: no controls */
	const char *why = bv_json_str(e, "reason");
	p->reason = why ? bv_escape(why) : NULL;
	ratio_parse(cJSON_GetObjectItemCaseSensitive(e, "vs_good"), &p->vs_good);
	ratio_parse(cJSON_GetObjectItemCaseSensitive(e, "bad_vs_good"), &p->bad);
	ratio_parse(cJSON_GetObjectItemCaseSensitive(e, "vs_bad"), &p->vs_bad);
	double a = 0;
	bv_json_num(e, "attempts", &a);
	p->attempts = a >= 0 && a <= 100 ? (int)a : 0;
	p->reused = 1;
	return 1;
}

/* The recorded point of a commit, if any. */
static int point_load(const ctx *x, const char *commit, point *p)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(x->doc, "points"))
	{
		if (point_from_json(e, commit, p))
			return 1;
	}
	return 0;
}

static int state_save(ctx *x) { return bv_json_save(x->state, x->doc); }

static int point_save(ctx *x, const point *p)
{
	cJSON *points = cJSON_GetObjectItemCaseSensitive(x->doc, "points");
	if (!cJSON_IsArray(points)) {
		cJSON_DeleteItemFromObjectCaseSensitive(x->doc, "points");
		points = cJSON_AddArrayToObject(x->doc, "points");
	}
	cJSON_AddItemToArray(points, point_json(p));
	return state_save(x);
}

/* ---- one step --------------------------------------------------------- */

/* Measures commit against good and bad until it is clearly on one side of
 * the midpoint, or skips it after BV_BISECT_RETRIES more measurements. */
static int classify(ctx *x, bv_version *good, bv_version *bad, const char *commit, point *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->commit, sizeof(p->commit), "%s", commit);
	bv_version *v;
	int rc = version_of(x, commit, &v);
	if (rc)
		return rc;
	if (v->build_error) {
		p->side = BV_BISECT_INCONCLUSIVE;
		p->reason = bv_strdup("build failed");
		return 0;
	}
	for (int attempt = 0;; attempt++) {
		outcome out;
		bv_version *three[3] = {good, v, bad};
		rc = measure(x, three, 3, attempt, &out);
		if (rc)
			return rc;
		p->attempts = attempt + 1;
		if (out.status[0] != BV_ST_OK || out.status[2] != BV_ST_OK) {
			int which = out.status[0] != BV_ST_OK ? 0 : 2;
			rc = bv_fail(BV_ERUN, "the %s commit %.12s failed in this cell: %s%s%s",
				     which ? "bad" : "good", three[which]->commit,
				     bv_status_name(out.status[which]), out.reason[which] ? ": " : "",
				     out.reason[which] ? out.reason[which] : "");
			outcome_free(&out);
			return rc;
		}
		if (out.status[1] != BV_ST_OK) {
			p->side = BV_BISECT_INCONCLUSIVE;
			const char *why = out.reason[1];
			p->reason = bv_asprintf("%s%s%s", bv_status_name(out.status[1]), why ? ": " : "",
						why ? why : "");
			outcome_free(&out);
			return 0;
		}
		p->vs_good = out.change[1], p->bad = out.change[2], p->vs_bad = out.q;
		outcome_free(&out);
		/* The midpoint of the two levels, from bad as measured in these
		 * very processes (bv_bisect_side_of). */
		bv_bisect_side s = bv_bisect_side_of(&p->vs_good, &p->bad, x->mo.threshold, x->improvement);
		if (s != BV_BISECT_INCONCLUSIVE) {
			p->side = s;
			return 0;
		}
		if (!bv_bisect_may_retry(attempt))
			break;
		fprintf(stderr, "bisect: %.12s: %.3f [%.3f, %.3f] against a midpoint of %.3f: inconclusive, "
				"measuring again with more processes\n",
			commit, p->vs_good.est, p->vs_good.lo, p->vs_good.hi, bv_bisect_midpoint(&p->bad));
	}
	p->side = BV_BISECT_INCONCLUSIVE;
	p->reason = bv_strdup("inconclusive after more processes");
	return 0;
}

/* ---- output ----------------------------------------------------------- */

typedef struct commit_info {
	char *subject, *author, *email, *date;
	char parent[41];
} commit_info;

static void commit_info_of(git_repository *g, const char *hex, commit_info *ci)
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

static void commit_info_free(commit_info *ci) { free(ci->subject), free(ci->author), free(ci->email), free(ci->date); }

static void fmt_ratio(const bv_bisect_ratio *r, char *buf, size_t len)
{
	if (r->valid)
		snprintf(buf, len, "%.3f [%.3f, %.3f]", r->est, r->lo, r->hi);
	else
		snprintf(buf, len, "-");
}

/* What a bisect found, for the two output formats. */
typedef struct answer {
	bv_bisect_ending status; /* found, range, stopped */
	const char *good, *bad, *first; /* first: the first bad commit when found */
	const point *first_step;         /* its step (NULL: it is bad itself) */
	const char *parent;              /* its first parent ("" if none) */
	const bv_bisect_ratio *check, *vs_parent;
	const point *steps;
	size_t nsteps;
	char *const *range; /* the commits that may be the first bad one */
	size_t nrange;
	int first_parent;
	double elapsed;
} answer;

static void print_json(const ctx *x, const answer *a)
{
	bv_verdict pverdict = bv_bisect_parent_verdict(a->vs_parent, x->mo.threshold);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "status", bv_bisect_ending_name(a->status));
	cJSON *c = cJSON_AddObjectToObject(o, "cell");
	cJSON_AddStringToObject(c, "bench", x->bench);
	cJSON_AddStringToObject(c, "op", x->op);
	cJSON_AddStringToObject(c, "backend", x->backend);
	cJSON_AddNumberToObject(c, "size", (double)x->size);
	cJSON_AddStringToObject(c, "shape", x->shape);
	cJSON_AddStringToObject(o, "direction", x->improvement ? "faster" : "slower");
	cJSON_AddNumberToObject(o, "threshold", x->mo.threshold);
	/* what a step's ratio is of: paired timings, or instructions per call */
	cJSON_AddStringToObject(o, "by", x->by_counts ? "counts" : "time");
	if (x->mo.simd_isa)
		cJSON_AddStringToObject(o, "simd_isa_forced", x->mo.simd_isa);
	else
		cJSON_AddNullToObject(o, "simd_isa_forced");
	cJSON_AddBoolToObject(o, "first_parent", a->first_parent);
	cJSON_AddStringToObject(o, "good", a->good);
	cJSON_AddStringToObject(o, "bad", a->bad);
	cJSON_AddItemToObject(o, "bad_vs_good", ratio_json(a->check));
	if (a->status == BV_BISECT_FOUND) {
		commit_info fi;
		commit_info_of(x->git, a->first, &fi);
		cJSON *f = cJSON_AddObjectToObject(o, "first_bad");
		cJSON_AddStringToObject(f, "commit", a->first);
		cJSON_AddStringToObject(f, "subject", fi.subject);
		cJSON_AddStringToObject(f, "author", fi.author);
		cJSON_AddStringToObject(f, "email", fi.email);
		cJSON_AddStringToObject(f, "date", fi.date);
		commit_info_free(&fi);
		cJSON_AddItemToObject(f, "vs_good", ratio_json(a->first_step ? &a->first_step->vs_good : a->check));
		cJSON_AddItemToObject(f, "vs_bad",
				      a->first_step ? ratio_json(&a->first_step->vs_bad) : cJSON_CreateNull());
		if (*a->parent)
			cJSON_AddStringToObject(f, "parent", a->parent);
		else
			cJSON_AddNullToObject(f, "parent");
		cJSON *vp = ratio_json(a->vs_parent);
		if (pverdict != BV_NO_VERDICT)
			cJSON_AddStringToObject(vp, "verdict", bv_verdict_name(pverdict));
		cJSON_AddItemToObject(f, "vs_parent", vp);
	} else
		cJSON_AddNullToObject(o, "first_bad");
	cJSON *cand = cJSON_AddArrayToObject(o, "candidates");
	for (size_t i = 0; i < a->nrange; i++)
		cJSON_AddItemToArray(cand, cJSON_CreateString(a->range[i]));
	cJSON *sj = cJSON_AddArrayToObject(o, "steps");
	for (size_t i = 0; i < a->nsteps; i++) {
		cJSON *e = point_json(&a->steps[i]);
		commit_info si;
		commit_info_of(x->git, a->steps[i].commit, &si);
		cJSON_AddStringToObject(e, "subject", si.subject);
		commit_info_free(&si);
		cJSON_AddBoolToObject(e, "reused", a->steps[i].reused);
		cJSON_AddItemToArray(sj, e);
	}
	cJSON *b = cJSON_AddObjectToObject(o, "builds");
	cJSON_AddNumberToObject(b, "total", x->builds);
	cJSON_AddNumberToObject(b, "new", x->builds_new);
	cJSON_AddNumberToObject(b, "cached", x->builds - x->builds_new - x->builds_failed);
	cJSON_AddNumberToObject(b, "failed", x->builds_failed);
	cJSON *m = cJSON_AddObjectToObject(o, "measurements");
	cJSON_AddNumberToObject(m, "taken", x->taken);
	cJSON_AddNumberToObject(m, "reused", x->reused);
	cJSON_AddNumberToObject(o, "rounds", x->rounds);
	cJSON_AddNumberToObject(o, "elapsed_s", a->elapsed);
	cJSON_AddStringToObject(o, "state", x->state);
	char *text = cJSON_Print(o);
	printf("%s\n", text);
	free(text);
	cJSON_Delete(o);
}

static void print_text(const ctx *x, const answer *a)
{
	char r[64];
	const char *dir = x->improvement ? "faster" : "slower";
	if (a->status == BV_BISECT_FOUND) {
		commit_info fi;
		commit_info_of(x->git, a->first, &fi);
		printf("first %s commit: %s\n", dir, a->first);
		printf("  subject: %s\n  author:  %s <%s>\n  date:    %s\n", fi.subject, fi.author, fi.email, fi.date);
		commit_info_free(&fi);
		fmt_ratio(a->first_step ? &a->first_step->vs_good : a->check, r, sizeof(r));
		printf("  vs good %.12s:   %s\n", a->good, r);
		if (a->first_step) {
			fmt_ratio(&a->first_step->vs_bad, r, sizeof(r));
			printf("  vs bad %.12s:    %s\n", a->bad, r);
		}
		if (a->vs_parent->valid) {
			fmt_ratio(a->vs_parent, r, sizeof(r));
			printf("  vs parent %.12s: %s %s\n", a->parent, r,
			       bv_verdict_name(bv_bisect_parent_verdict(a->vs_parent, x->mo.threshold)));
		}
	} else {
		printf("%s: the first %s commit is one of %zu:\n",
		       a->status == BV_BISECT_RANGE ? "skipped commits leave a range" : "stopped at --max-steps",
		       dir, a->nrange);
		for (size_t i = 0; i < a->nrange; i++) {
			commit_info ri;
			commit_info_of(x->git, a->range[i], &ri);
			printf("  %.12s %s\n", a->range[i], ri.subject);
			commit_info_free(&ri);
		}
	}
	fmt_ratio(a->check, r, sizeof(r));
	printf("bad/good: %s in %s/%s/%s/%s\n", r, x->bench, x->op, x->backend, x->shape);
	printf("steps:\n  #  commit        ratio to good [95%% CI]   verdict\n");
	for (size_t i = 0; i < a->nsteps; i++) {
		const point *p = &a->steps[i];
		fmt_ratio(&p->vs_good, r, sizeof(r));
		printf("  %-2zu %.12s  %-24s %s%s%s%s%s\n", i + 1, p->commit, r, bv_bisect_side_name(p->side),
		       p->reason ? " (" : "", p->reason ? p->reason : "", p->reason ? ")" : "",
		       p->reused ? ", reused" : "");
	}
	printf("builds: %d (%d new, %d cached, %d failed); measured %d, reused %d %s; %.0f s\n", x->builds,
	       x->builds_new, x->builds - x->builds_new - x->builds_failed, x->builds_failed, x->taken, x->reused,
	       bv_plural(x->reused, "measurement", "measurements"), a->elapsed);
	if (x->rounds)
		printf("rounds: %d\n", x->rounds);
	printf("state: %s\n", x->state);
}

/* ---- the command ------------------------------------------------------ */

static const char *const format_values[] = {"text", "json", NULL};
static const char *const by_values[] = {"time", "counts", NULL};
static const char *const slurm_cache_values[] = {"shared", "node", NULL};

/* What bisect takes of the measuring options (run_options.c), as run takes
 * them; --quick, --threshold and --layouts are bisect's own lines below,
 * with its own help and defaults. */
static const char *const measuring[] = {"--min-processes", "--max-processes", "--budget", "--seed",
					"--memory-limit", "--simd-isa", "--build-timeout", NULL};

/* What the command line asked for, beyond the measuring options (ctx.mo). */
typedef struct args {
	const char *good_name, *bad_name, *bench, *op, *backend, *size;
	const char *format;
	int first_parent, improvement, max_steps;
	/* --parallel K: K candidates a round (0: the sequential walk); with
	 * --slurm one Slurm array task each */
	int parallel, slurm, time_min;
	const char *partition, *slurm_cache;
	/* a Slurm task (hidden options, set by the job script): measure
	 * candidate task (1-based) of task_commits, write OUT/point.json */
	int task;
	const char *task_out, *task_commits;
	int argc; /* the command line, for the tasks' */
	char **argv;
	const char *by; /* --by time|counts */
} args;

/* The bisect as it goes: its ends, the walk's state and what it found. */
typedef struct walk {
	time_t t0;
	char good_hex[41], bad_hex[41];
	git_oid good_id, bad_id;
	bv_version *good, *bad; /* built on first need; ctx.vs owns them */
	bv_bisect_ratio check;  /* bad / good */
	/* git bisect's state: the current bad, the goods, the skipped */
	git_oid cur_bad;
	git_oid *goods, *skipped;
	size_t ngoods, nskipped;
	git_oid *set; /* the commits left, newest first */
	size_t nset;
	point *steps;
	size_t nsteps;
	/* the answer */
	bv_bisect_ending status; /* found, range, stopped */
	char **range;       /* the commits that may be the first bad one */
	size_t nrange;
	point *first; /* the first bad commit's step (NULL: it is bad itself) */
	char first_hex[41], parent_hex[41];
	bv_bisect_ratio vs_parent;
} walk;

/* The six options that name the cell and its ends, those missing said by
 * name: six options are too many to find the one left out by eye.
 * Returns -1 when none is missing, else the exit status. */
static int missing_options(const args *a, const bv_option *opts)
{
	const struct {
		const char *name, *value;
	} needed[] = {{"--good", a->good_name}, {"--bad", a->bad_name},	 {"--bench", a->bench},
		      {"--op", a->op},	      {"--backend", a->backend}, {"--size", a->size}};
	bv_buf missing = BV_BUF_INIT;
	size_t nmissing = 0;
	for (size_t k = 0; k < sizeof(needed) / sizeof(needed[0]); k++)
		if (!needed[k].value)
			bv_buf_printf(&missing, "%s%s", nmissing++ ? ", " : "", needed[k].name);
	if (nmissing) {
		fprintf(stderr,
			"bench-versions bisect: %s %s missing (--good, --bad, --bench, --op, --backend and --size are "
			"all needed)\n",
			missing.s, nmissing == 1 ? "is" : "are");
		bv_buf_free(&missing);
		usage(stderr, opts);
		return BV_EXIT_USAGE;
	}
	return -1;
}

/* --slurm's options only with it; --slurm only with --parallel (the
 * sequential walk has one commit a round: nothing to spread); the job
 * script's three options together.  The message (to free), or NULL. */
static char *slurm_why(const args *a)
{
	const char *alone = a->partition ? "--partition" : a->time_min ? "--time" : a->slurm_cache ? "--slurm-cache" : NULL;
	char *why = NULL;
	if (alone && !a->slurm)
		why = bv_asprintf("%s is an option of --slurm, which is not given", alone);
	else if (a->slurm && !a->parallel)
		why = bv_strdup("--slurm needs --parallel K: K commits a round, one Slurm task each");
	else if ((a->task != 0) != (a->task_out != NULL) || (a->task != 0) != (a->task_commits != NULL))
		why = bv_strdup("--slurm-task, --slurm-task-out and --slurm-commits go together (the job "
				"script's options)");
	return why;
}

/* Valgrind 3.19 presents an AVX2 CPU: on an AVX-512 machine the simd
 * and blas paths it counts are not the ones this machine times, which
 * --by counts says before it starts (called with --by counts only). */
static void counts_isa_warning(const args *a, const bv_measure_opts *mo)
{
	if ((!strcmp(a->backend, "blas") || (!strcmp(a->backend, "simd") &&
	    !(mo->simd_isa && strcmp(mo->simd_isa, "avx512")))) && __builtin_cpu_supports("avx512f"))
		fprintf(stderr, "bisect: --by counts counts the %s backend's AVX2 path (the CPU Valgrind presents); "
				"this machine times AVX-512: a change in the AVX-512 path alone is not seen\n",
			a->backend);
}

/* The command line, checked, with bisect's own measuring defaults settled
 * into x->mo: every usage error is found here, before a repository is
 * opened.  Returns -1 to go on, else the exit status (0 after --help). */
static int parse_options(int argc, char **argv, args *a, ctx *x)
{
	a->format = "text";
	bv_run_cli cli;
	bv_run_cli_init(&cli);
	bv_option shared[BV_RUN_CLI_OPTIONS];
	bv_run_cli_table(&cli, shared, measuring);
	const bv_option opts[] = {
	    BV_STRING("--good", &a->good_name, "REV", "a commit at the old level (any git revision)"),
	    BV_STRING("--bad", &a->bad_name, "REV",
		      "a later commit at the new level; good must be its ancestor"),
	    BV_STRING("--bench", &a->bench, "B", "the one cell's group (see: bench-versions list benches)"),
	    BV_STRING("--op", &a->op, "O", "its op"),
	    BV_STRING("--backend", &a->backend, "BE", "its backend"),
	    BV_STRING("--size", &a->size, "S", "its size (64K, 1M, 1024x4096); one cell, no lists"),
	    BV_FLAG("--first-parent", &a->first_parent, "follow first parents only (a merge is one step)"),
	    BV_FLAG("--improvement", &a->improvement, "look for the first commit that got faster"),
	    BV_ENUM("--format", &a->format, "F", format_values, "text (default) or json"),
	    BV_ENUM("--by", &a->by, "WHAT", by_values,
		    "time (default: paired timings) or counts: each step is Valgrind's count of the\n"
		    "cell's instructions per call (one process per version, the same on every run and\n"
		    "under any load; finds code changes, not placement; see docs/cli/bisect.md)"),
	    BV_DURATION("--count-timeout", &x->count_timeout, "S", 1, 86400,
			"--by counts: one call under Valgrind may take this long (default 120 s)"),
	    BV_FLAG("--quick", &cli.mo.quick, "fewer processes per measurement (6-12 instead of 10-60)"),
	    BV_INT("--max-steps", &a->max_steps, "N", 1, 10000,
		   "stop after N steps and name the commits still in the range"),
	    BV_PERCENT("--threshold", &cli.mo.threshold, "P", 0, 1000,
		       "the smallest change good..bad must show, percent (default 1)"),
	    BV_INT("--layouts", &cli.mo.layouts, "N", 1, 8,
		   "code layouts per version, one at random per process (default 4; "
		   "see bench-versions run --help)"),
	    BV_INT("--parallel", &a->parallel, "K", 1, 64,
		   "test K commits a round, evenly spaced in the range (K-ary search: fewer\n"
		   "rounds); without --slurm one after another here"),
	    BV_FLAG("--slurm", &a->slurm, "with --parallel K: a round's K commits as one Slurm job array"),
	    BV_STRING("--partition", &a->partition, "P", "--slurm: the partition (default: the cluster's)"),
	    BV_INT("--time", &a->time_min, "MIN", 1, 525600, "--slurm: each task's time limit, minutes"),
	    BV_ENUM("--slurm-cache", &a->slurm_cache, "shared|node", slurm_cache_values,
		    "--slurm: build here into a cache the nodes share (shared, the default) or on\n"
		    "each node into its own cache (node)"),
	    BV_INT("--slurm-task", &a->task, "I", 1, 64, NULL),
	    BV_STRING("--slurm-task-out", &a->task_out, "DIR", NULL),
	    BV_STRING("--slurm-commits", &a->task_commits, "LIST", NULL),
	    BV_INCLUDE(shared, "--min-processes N, --max-processes N, --budget S, --seed N,\n"
			       "--memory-limit SIZE, --simd-isa ISA and --build-timeout S as for run\n"
			       "(see bench-versions run --help)"),
	    BV_END,
	};
	char **pos = bv_xcalloc((size_t)argc + 1, sizeof(char *));
	size_t npos = 0;
	int prc = bv_options_parse(opts, argc, argv, pos, &npos);
	if (prc == 0 && npos)
		prc = bv_fail(BV_EINPUT, "unexpected argument '%s': bisect takes options only", pos[0]);
	free(pos);
	if (prc == 1) {
		usage(stdout, opts);
		return 0;
	}
	if (prc) {
		fprintf(stderr, "bench-versions bisect: %s (see bench-versions bisect --help)\n", bv_error_last());
		return BV_EXIT_USAGE;
	}
	int mrc = missing_options(a, opts);
	if (mrc >= 0)
		return mrc;
	char *why = slurm_why(a);
	if (why) {
		fprintf(stderr, "bench-versions bisect: %s (see bench-versions bisect --help)\n", why);
		free(why);
		return BV_EXIT_USAGE;
	}
	if (!a->slurm_cache)
		a->slurm_cache = "shared";
	x->by_counts = a->by && !strcmp(a->by, "counts");
	if (x->count_timeout <= 0)
		x->count_timeout = 120;
	if (x->by_counts)
		counts_isa_warning(a, &cli.mo);
	a->argc = argc, a->argv = argv;
	/* bisect's own defaults: at most 12 processes with --quick (a step is
	 * one cell, measured again when inconclusive), and four layouts, so a
	 * step's verdict is not where the linker put a loop. */
	if (cli.mo.quick && !cli.mo.max_processes)
		cli.mo.max_processes = 12;
	if (!cli.mo.layouts)
		cli.mo.layouts = 4;
	if (bv_measure_opts_settle(&cli.mo)) {
		fprintf(stderr, "bench-versions bisect: %s\n", bv_error_last());
		return BV_EXIT_USAGE;
	}
	x->mo = cli.mo;
	/* Ctrl-C and SIGTERM reach the builds and measuring processes and stop
	 * the bisect between steps; what was measured is in the state file, so
	 * the same command goes on from there. */
	bv_signals_install();
	return -1;
}

/* Exactly one cell: a list would bisect several questions at once.  Also
 * the thread count the measured libraries see.  Returns -1 to go on, else
 * the exit status. */
static int settle_cell(const args *a, ctx *x)
{
	bv_cell *cells = NULL;
	char err[256];
	/* A suite build holds the suite's cells only (suite.h). */
	const char *suite = bv_suite_file_suite();
	if (suite && strcmp(a->bench, suite)) {
		fprintf(stderr,
			"bench-versions bisect: --bench %s: this project's builds hold its suite '%s' only (the project "
			"file's \"suite\"): --bench %s, its benchmark with --op\n",
			a->bench, suite, suite);
		return BV_EXIT_USAGE;
	}
	bv_selection sel = {a->bench, a->op, a->backend, a->size};
	int list = strpbrk(sel.benches, ",") || strpbrk(sel.ops, ",") || strpbrk(sel.backends, ",") ||
		   strpbrk(sel.sizes, ",");
	long ncells = list ? -2 : bv_cells_select(&sel, &cells, err, sizeof(err));
	if (ncells != 1) {
		char hint[1024] = "";
		if (ncells == 0)
			bv_sizes_hint(&sel, hint, sizeof(hint));
		if (*hint) /* the size does not fit the op: the sizes that do */
			fprintf(stderr,
				"bench-versions bisect: --size '%s' does not fit %s/%s; its sizes: %s (others of the same "
				"dimensions work too; see: bench-versions list benches)\n",
				a->size, a->bench, a->op, hint);
		else
			fprintf(stderr, "bench-versions bisect: %s\n",
				ncells == -1 ? err
				: ncells == 0
				    ? "that bench, op, backend and size name no cell (see: bench-versions list benches)"
				    : "name exactly one cell: one bench, op, backend and size");
		free(cells);
		return BV_EXIT_USAGE;
	}
	x->bench = a->bench, x->op = a->op, x->backend = a->backend, x->size = cells[0].size;
	x->improvement = a->improvement;
	bv_size_format(x->size, x->shape, sizeof(x->shape));
	free(cells);
	char threads[16];
	snprintf(threads, sizeof(threads), "%d", x->mo.threads);
	setenv("OPENBLAS_NUM_THREADS", threads, 1);
	setenv("OMP_NUM_THREADS", threads, 1);
	return -1;
}

/* The repository, and good and bad as exact commits: good must be a proper
 * ancestor of bad, or there is no range to walk. */
static int open_ends(ctx *x, const args *a, walk *w)
{
	int rc = bv_repo_open(&x->repo);
	if (rc == 0 && !(x->git = bv_repo_git(x->repo)))
		rc = bv_fail(BV_EINPUT, "bisect needs a git repository: %s", bv_repo_describe(x->repo));
	bv_version ends[2] = {{0}};
	const char *names[2] = {a->good_name, a->bad_name};
	for (int i = 0; rc == 0 && i < 2; i++) {
		rc = bv_resolve(x->repo, names[i], &ends[i]);
		if (rc == 0 && ends[i].kind != BV_VERSION_GIT)
			rc = bv_fail(BV_EINPUT, "%s is not a commit of %s (bisect walks git history)", names[i],
				     bv_repo_describe(x->repo));
		if (rc == 0)
			fprintf(stderr, "resolve: %-12s -> commit %.12s, %s %s [%s]\n", names[i], ends[i].commit,
				bv_project_current()->name, ends[i].kernel_version, ends[i].rule);
	}
	snprintf(w->good_hex, sizeof(w->good_hex), "%s", ends[0].commit);
	snprintf(w->bad_hex, sizeof(w->bad_hex), "%s", ends[1].commit);
	if (rc == 0) {
		git_oid_fromstr(&w->good_id, w->good_hex);
		git_oid_fromstr(&w->bad_id, w->bad_hex);
		int desc = git_graph_descendant_of(x->git, &w->bad_id, &w->good_id);
		if (git_oid_equal(&w->good_id, &w->bad_id))
			rc = bv_fail(BV_EINPUT, "good and bad are the same commit %.12s: nothing to bisect",
				     w->good_hex);
		else if (desc < 0)
			rc = bv_fail(BV_ERUN, "comparing %s and %s: %s", a->good_name, a->bad_name,
				     git_error_last() ? git_error_last()->message : "libgit2 error");
		else if (desc == 0)
			rc = bv_fail(BV_EINPUT, "good %s (%.12s) is not an ancestor of bad %s (%.12s)",
				     a->good_name, w->good_hex, a->bad_name, w->bad_hex);
	}
	for (int i = 0; i < 2; i++)
		bv_version_free(&ends[i]);
	/* the compat rules every build needs (the ends' first, with a suite) */
	if (rc == 0)
		rc = bv_compat_load(bv_compat_path(), &x->compat);
	return rc;
}

/* A project suite (suite.h): its cells are what the builds describe, so the
 * ends are built first, described and registered (bv_suite_describe, as
 * run does after its builds), and only then is the one cell settled.  The
 * description the runners read is kept in a directory of this bisect's
 * own, removed at its end. */
static int suite_ends(ctx *x, walk *w)
{
	int rc = version_of(x, w->good_hex, &w->good);
	if (rc == 0)
		rc = version_of(x, w->bad_hex, &w->bad);
	for (int i = 0; rc == 0 && i < 2; i++) {
		bv_version *v = i ? w->bad : w->good;
		if (v->build_error)
			rc = bv_fail(BV_ERUN, "the %s commit %.12s does not build: %s", i ? "bad" : "good", v->commit,
				     v->build_error);
	}
	char *root = bv_asprintf("%s/bisect", bv_cache_dir());
	if (rc == 0 && !(x->suite_tmp = bv_mkdtemp_in(root, ".describe-")))
		rc = BV_ERUN;
	free(root);
	if (rc == 0) {
		bv_version two[2] = {*w->good, *w->bad}; /* shallow: only read */
		bv_measure_opts o = x->mo;           /* its selection: the suite's group */
		rc = bv_suite_describe(two, 2, x->suite_tmp, &o);
	}
	for (int i = 0; rc == 0 && i < 2; i++)
		bv_strv_push(&x->described, (i ? w->bad : w->good)->commit);
	return rc;
}

/* The state: one per range, cell and way of measuring (the key), resumed
 * when it is there, so nothing is measured twice; then the compat rules
 * the builds need. */
static int open_state(ctx *x, const args *a, const walk *w)
{
	double threshold = x->mo.threshold;
	const bv_measure_opts *mo = &x->mo;
	char *keytext = bv_asprintf("%s\n%s\n%s/%s/%s/%zu\n%s\n%g\n%d %d %d %g %g\nlayouts %d\n", w->good_hex,
				    w->bad_hex, a->bench, a->op, a->backend, x->size,
				    a->improvement ? "faster" : "slower", threshold, mo->quick, mo->min_processes,
				    mo->max_processes, mo->budget_s, mo->sample_us, mo->layouts);
	if (x->by_counts) { /* only then, as below */
		char *more = bv_asprintf("%sby counts\n", keytext);
		free(keytext);
		keytext = more;
	}
	if (mo->simd_isa) { /* only then: the states of earlier bisects keep their keys */
		char *more = bv_asprintf("%ssimd %s\n", keytext, mo->simd_isa);
		free(keytext);
		keytext = more;
	}
	if (bv_suite_dir()) {
		/* A project suite is the benchmark's code: another suite (edited,
		 * or another project file's) measures something else, so it
		 * keys a state of its own (its files, as a build key holds them). */
		bv_buf sk = BV_BUF_INIT;
		char sh[41];
		int src = bv_suite_key(&sk);
		if (src) {
			bv_buf_free(&sk);
			free(keytext);
			return src;
		}
		bv_hash_bytes(sk.s ? sk.s : "", sk.len, sh);
		bv_buf_free(&sk);
		char *more = bv_asprintf("%ssuite %s\n", keytext, sh);
		free(keytext);
		keytext = more;
	}
	char key[41];
	bv_hash_bytes(keytext, strlen(keytext), key);
	free(keytext);
	x->dir = bv_asprintf("%s/bisect/%.16s", bv_cache_dir(), key);
	x->state = bv_asprintf("%s/state.json", x->dir);
	int rc = bv_mkdir_p(x->dir);
	if (rc == 0 && bv_exists(x->state)) {
		rc = bv_json_load(x->state, (size_t)1 << 28, &x->doc);
		const char *schema = rc == 0 ? bv_json_str(x->doc, "schema") : NULL;
		if (rc == 0 && (!schema || strcmp(schema, STATE_SCHEMA))) {
			rc = bv_fail(BV_EINPUT, "%s is not a bisect state file (remove it to start afresh)",
				     x->state);
		} else if (rc == 0) {
			int npoints = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(x->doc, "points"));
			fprintf(stderr, "bisect: resuming from %s (%d %s)\n", x->state, npoints,
				bv_plural(npoints, "measurement", "measurements"));
		}
	} else if (rc == 0) {
		x->doc = cJSON_CreateObject();
		cJSON_AddStringToObject(x->doc, "schema", STATE_SCHEMA);
		cJSON_AddStringToObject(x->doc, "schema_version", STATE_SCHEMA_VERSION);
		cJSON_AddStringToObject(x->doc, "good", w->good_hex);
		cJSON_AddStringToObject(x->doc, "bad", w->bad_hex);
		cJSON *c = cJSON_AddObjectToObject(x->doc, "cell");
		cJSON_AddStringToObject(c, "bench", a->bench);
		cJSON_AddStringToObject(c, "op", a->op);
		cJSON_AddStringToObject(c, "backend", a->backend);
		cJSON_AddNumberToObject(c, "size", (double)x->size);
		cJSON_AddStringToObject(x->doc, "direction", a->improvement ? "faster" : "slower");
		cJSON_AddNumberToObject(x->doc, "threshold", threshold);
		cJSON_AddArrayToObject(x->doc, "points");
	}
	return rc;
}

/* Good against bad first: without a clear change between them there is
 * nothing to find, and every step would be a coin toss.  A check kept in
 * the state is reused when it shows the change; else both ends are built
 * and measured (again, within the retries, while the change shows but is
 * too noisy to confirm: bv_bisect_ends_again), and the range is refused
 * unless bad moved. */
static int confirm_ends(ctx *x, const args *a, walk *w)
{
	double threshold = x->mo.threshold;
	ratio_parse(cJSON_GetObjectItemCaseSensitive(x->doc, "check"), &w->check);
	if (w->check.valid) {
		x->reused++;
		fprintf(stderr, "bisect: good -> bad %.3f [%.3f, %.3f] (reused)\n", w->check.est, w->check.lo,
			w->check.hi);
	}
	if (bv_bisect_moved(&w->check, threshold, a->improvement))
		return 0;
	int rc = version_of(x, w->good_hex, &w->good);
	if (rc == 0)
		rc = version_of(x, w->bad_hex, &w->bad);
	for (int i = 0; rc == 0 && i < 2; i++) {
		bv_version *v = i ? w->bad : w->good;
		if (v->build_error)
			rc = bv_fail(BV_ERUN, "the %s commit %.12s does not build: %s", i ? "bad" : "good",
				     v->commit, v->build_error);
	}
	for (int attempt = 0; rc == 0; attempt++) {
		outcome out;
		bv_version *two[2] = {w->good, w->bad};
		rc = measure(x, two, 2, attempt, &out);
		if (rc)
			break;
		for (int i = 0; rc == 0 && i < 2; i++)
			if (out.status[i] != BV_ST_OK)
				rc = bv_fail(BV_ERUN, "the %s commit %.12s failed in %s/%s/%s/%s: %s%s%s",
					     i ? "bad" : "good", two[i]->commit, a->bench, a->op, a->backend,
					     x->shape, bv_status_name(out.status[i]),
					     out.reason[i] ? ": " : "", out.reason[i] ? out.reason[i] : "");
		w->check = out.change[1];
		outcome_free(&out);
		if (rc)
			break;
		const bv_bisect_ratio *c = &w->check;
		fprintf(stderr, "bisect: good -> bad %.3f [%.3f, %.3f]\n", c->est, c->lo, c->hi);
		if (!bv_bisect_ends_again(c, threshold, a->improvement) || !bv_bisect_may_retry(attempt))
			break;
	}
	if (rc == 0 && !bv_bisect_moved(&w->check, threshold, a->improvement)) {
		char r[64];
		fmt_ratio(&w->check, r, sizeof(r));
		/* Moved the other way: the question was asked backwards. */
		const char *other = !bv_bisect_moved(&w->check, threshold, !a->improvement) ? ""
				    : a->improvement ? "; it is significantly slower: to find the commit that made it "
						       "slower, leave out --improvement"
						     : "; it is significantly faster: to find the commit that made it "
						       "faster, add --improvement";
		rc = bv_fail(BV_EINPUT,
			     "bad %.12s is not significantly %s than good %.12s in %s/%s/%s/%s: ratio %s, "
			     "threshold %g%%; nothing to bisect%s",
			     w->bad_hex, a->improvement ? "faster" : "slower", w->good_hex, a->bench, a->op,
			     a->backend, x->shape, r, threshold * 100, other);
	}
	if (rc == 0) {
		cJSON_DeleteItemFromObjectCaseSensitive(x->doc, "check");
		cJSON_AddItemToObject(x->doc, "check", ratio_json(&w->check));
		rc = state_save(x);
	}
	return rc;
}

/* The commits left (w->set) and the index of the next to test, skipped
 * commits left out of the pick (git bisect's rules: bisect.c); -1: none. */
static int next_pick(const ctx *x, const args *a, walk *w, long *pick)
{
	free(w->set);
	int rc = bv_bisect_remaining(x->git, &w->cur_bad, w->goods, w->ngoods, a->first_parent, &w->set,
				     &w->nset);
	if (rc)
		return rc;
	unsigned char *skip = bv_xcalloc(w->nset + 1, 1);
	for (size_t i = 0; i < w->nset; i++)
		for (size_t k = 0; k < w->nskipped; k++)
			skip[i] |= git_oid_equal(&w->set[i], &w->skipped[k]);
	*pick = bv_bisect_pick(x->git, w->set, w->nset, &w->cur_bad, skip, a->first_parent);
	free(skip);
	return *pick < -1 ? (int)*pick : 0;
}

/* The point of commit hex: from the state when it was measured before,
 * else classified against good and bad (built here on first need: a
 * resumed bisect may not have built them) and saved at once, so an
 * interruption loses nothing. */
static int point_of(ctx *x, walk *w, const char *hex, point *p)
{
	if (point_load(x, hex, p)) {
		x->reused++;
		return 0;
	}
	memset(p, 0, sizeof(*p));
	int rc = 0;
	if (!w->good)
		rc = version_of(x, w->good_hex, &w->good);
	if (rc == 0 && !w->bad)
		rc = version_of(x, w->bad_hex, &w->bad);
	if (rc == 0 && (w->good->build_error || w->bad->build_error)) {
		const bv_version *broken = w->good->build_error ? w->good : w->bad;
		rc = bv_fail(BV_ERUN, "the %s commit %.12s no longer builds: %s",
			     broken == w->good ? "good" : "bad", broken->commit, broken->build_error);
	}
	if (rc == 0)
		rc = classify(x, w->good, w->bad, hex, p);
	if (rc == 0)
		rc = point_save(x, p);
	if (rc) {
		free(p->reason);
		p->reason = NULL;
	}
	return rc;
}

/* A step said and kept among the answer's steps (which owns p's reason). */
static void step_append(walk *w, const point *p)
{
	char r[64];
	fmt_ratio(&p->vs_good, r, sizeof(r));
	fprintf(stderr, "bisect: step %zu: %.12s %s -> %s%s%s%s%s\n", w->nsteps + 1, p->commit, r,
		bv_bisect_side_name(p->side), p->reason ? " (" : "", p->reason ? p->reason : "",
		p->reason ? ")" : "", p->reused ? " [reused]" : "");
	w->steps = bv_xrealloc(w->steps, (w->nsteps + 1) * sizeof(point));
	w->steps[w->nsteps++] = *p;
}

static void add_oid(git_oid **v, size_t *n, const git_oid *id)
{
	*v = bv_xrealloc(*v, (*n + 1) * sizeof(git_oid));
	(*v)[(*n)++] = *id;
}

/* A step's verdict moves the walk: bad lowers the top of the range, good
 * raises its bottom, a skip only keeps the commit out of later picks. */
static void record(walk *w, const git_oid *id, const point *p)
{
	step_append(w, p);
	if (p->side == BV_BISECT_BAD)
		w->cur_bad = *id;
	else if (p->side == BV_BISECT_GOOD) {
		w->goods = bv_xrealloc(w->goods, (w->ngoods + 1) * sizeof(git_oid));
		w->goods[w->ngoods++] = *id;
	} else {
		w->skipped = bv_xrealloc(w->skipped, (w->nskipped + 1) * sizeof(git_oid));
		w->skipped[w->nskipped++] = *id;
	}
}

/* The walk: git bisect's, one measured step at a time, until bad alone is
 * left, only skipped commits are, or --max-steps (bv_bisect_end); the
 * commits left are the answer's range. */
static int bisect_walk(ctx *x, const args *a, walk *w)
{
	w->cur_bad = w->bad_id;
	w->goods = bv_xmalloc(sizeof(git_oid));
	w->goods[w->ngoods++] = w->good_id;
	int rc = 0;
	while (rc == 0) {
		long pick;
		rc = next_pick(x, a, w, &pick);
		if (rc)
			break;
		if ((w->status = bv_bisect_end(pick, w->nset, w->nsteps, a->max_steps))) {
			for (size_t i = 0; i < w->nset; i++) {
				w->range = bv_xrealloc(w->range, (w->nrange + 1) * sizeof(char *));
				w->range[w->nrange] = bv_xmalloc(41);
				git_oid_tostr(w->range[w->nrange++], 41, &w->set[i]);
			}
			break;
		}
		char hex[41];
		git_oid_tostr(hex, sizeof(hex), &w->set[pick]);
		int steps = (int)ceil(log2((double)w->nset));
		fprintf(stderr, "bisect: %zu %s left (about %d %s), testing %.12s\n", w->nset,
			bv_plural((long long)w->nset, "commit", "commits"), steps, bv_plural(steps, "step", "steps"), hex);
		point p;
		rc = point_of(x, w, hex, &p);
		x->rounds++;
		if (rc == 0)
			record(w, &w->set[pick], &p);
	}
	return rc;
}

/* ---- bisect --parallel K: rounds of K candidates ------------------------ */

/* The command line for a round's Slurm tasks: bisect's own, less the
 * options only the submitting side reads (--slurm and its options,
 * --parallel, --format, --max-steps), plus the round's commits.  A list of
 * words handed to sbatch as argv, never a shell string. */
static void task_args(const args *a, const char *commits, bv_strv *out)
{
	static const char *const drop_value[] = {"--parallel", "--partition", "--time", "--slurm-cache",
						 "--format", "--max-steps", "--slurm-task", "--slurm-task-out",
						 "--slurm-commits", NULL};
	for (int i = 1; i < a->argc; i++) {
		const char *o = a->argv[i];
		if (!strcmp(o, "--")) /* bisect takes no positionals: nothing follows */
			break;
		if (!strcmp(o, "--slurm"))
			continue;
		int dropped = 0;
		for (size_t k = 0; drop_value[k] && !dropped; k++) {
			size_t n = strlen(drop_value[k]);
			if (!strncmp(o, drop_value[k], n) && (o[n] == '=' || o[n] == '\0')) {
				dropped = 1;
				if (o[n] == '\0')
					i++; /* its value */
			}
		}
		if (!dropped)
			bv_strv_push(out, o);
	}
	bv_strv_pushf(out, "--slurm-commits=%s", commits);
}

/* The round's commits hex[0..n) not in the state yet, measured as one Slurm
 * job array (one task a commit, each paired with good and bad as a step
 * here is), their points read back from the tasks' files, checked (a node's
 * file is input like any other) and saved into the state as a sequential
 * step's are.  With --slurm-cache shared every build happens here first. */
static int slurm_round(ctx *x, const args *a, walk *w, char (*hex)[41], size_t n, point *pts)
{
	int rc = 0;
	char **todo = bv_xcalloc(n + 1, sizeof(char *));
	size_t *where = bv_xcalloc(n + 1, sizeof(size_t)), ntodo = 0;
	int shared = !strcmp(a->slurm_cache, "shared");
	if (shared) {
		if (!w->good)
			rc = version_of(x, w->good_hex, &w->good);
		if (rc == 0 && !w->bad)
			rc = version_of(x, w->bad_hex, &w->bad);
		if (rc == 0 && (w->good->build_error || w->bad->build_error))
			rc = bv_fail(BV_ERUN, "the %s commit no longer builds", w->good->build_error ? "good" : "bad");
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		bv_version *v = NULL;
		if (shared && (rc = version_of(x, hex[i], &v)) == 0 && v->build_error) {
			/* no task for a commit that does not build: skipped here */
			memset(&pts[i], 0, sizeof(pts[i]));
			snprintf(pts[i].commit, sizeof(pts[i].commit), "%s", hex[i]);
			pts[i].side = BV_BISECT_INCONCLUSIVE;
			pts[i].reason = bv_strdup("build failed");
			rc = point_save(x, &pts[i]);
			continue;
		}
		where[ntodo] = i;
		todo[ntodo++] = hex[i];
	}
	bv_buf list = BV_BUF_INIT;
	for (size_t i = 0; i < ntodo; i++)
		bv_buf_printf(&list, "%s%s", i ? "," : "", todo[i]);
	char **dirs = NULL;
	bv_strv targs = BV_STRV_INIT;
	char *tdir = bv_asprintf("%s/slurm/round-%d-%ld-%d", x->dir, x->rounds, (long)time(NULL), (int)getpid());
	if (rc == 0 && ntodo) {
		task_args(a, list.s, &targs);
		bv_slurm_opts so;
		bv_slurm_init(&so);
		so.enabled = 1, so.partition = a->partition, so.time_min = a->time_min, so.cache = a->slurm_cache;
		bv_slurm_tasks_spec t = {.so = &so,
					 .threads = x->mo.threads,
					 .dir = tdir,
					 .verb = "bisect",
					 .done_file = "point.json",
					 .args = targs.v,
					 .nargs = targs.n,
					 .ntasks = (int)ntodo};
		rc = bv_slurm_tasks(&t, &dirs);
	}
	for (size_t i = 0; rc == 0 && i < ntodo; i++) {
		char *f = bv_asprintf("%s/point.json", dirs[i]);
		cJSON *doc = NULL;
		point *p = &pts[where[i]];
		rc = bv_json_load(f, (size_t)1 << 20, &doc);
		if (rc == 0 && !point_from_json(doc, todo[i], p))
			rc = bv_fail(BV_ERUN, "%s: not the point of %.12s", f, todo[i]);
		if (rc == 0) {
			p->reused = 0;
			x->taken += p->attempts > 0 ? p->attempts : 1;
			rc = point_save(x, p);
		}
		cJSON_Delete(doc);
		free(f);
	}
	for (size_t i = 0; dirs && i < ntodo; i++)
		free(dirs[i]);
	free(dirs);
	free(tdir);
	bv_strv_free(&targs);
	bv_buf_free(&list);
	free(todo);
	free(where);
	return rc;
}

/* The commits a K-ary round may test, oldest first: the remaining set
 * less the current bad and the commits skipped; *m is how many. */
static git_oid *kary_eligible(const walk *w, size_t *m)
{
	git_oid *elig = bv_xcalloc(w->nset + 1, sizeof(git_oid));
	*m = 0;
	for (size_t i = w->nset; i-- > 0;) {
		int out = git_oid_equal(&w->set[i], &w->cur_bad);
		for (size_t k = 0; k < w->nskipped && !out; k++)
			out = git_oid_equal(&w->set[i], &w->skipped[k]);
		if (!out)
			elig[(*m)++] = w->set[i];
	}
	return elig;
}

/* A round's c points judged and the range narrowed to between the last
 * good and the first bad (bv_bisect_kary_narrow): every point becomes a
 * step (which owns its reason from then on, so have[] is cleared), the
 * inconclusive ones are skipped, and a good measured after the first bad
 * is said and not used. */
static void kary_narrow(walk *w, point *pts, int *have, const git_oid *ids, char (*hex)[41], size_t c)
{
	bv_bisect_side *sides = bv_xcalloc(c, sizeof(*sides));
	for (size_t j = 0; j < c; j++)
		sides[j] = pts[j].side;
	long lg, fb;
	bv_bisect_kary_narrow(sides, c, &lg, &fb);
	for (size_t j = 0; j < c; j++) {
		step_append(w, &pts[j]);
		have[j] = 0; /* the steps own the reason now */
		if (sides[j] == BV_BISECT_INCONCLUSIVE)
			add_oid(&w->skipped, &w->nskipped, &ids[j]);
		else if ((long)j == fb)
			w->cur_bad = ids[j];
		else if (sides[j] == BV_BISECT_GOOD && (long)j < fb)
			add_oid(&w->goods, &w->ngoods, &ids[j]);
		else if (sides[j] == BV_BISECT_GOOD)
			fprintf(stderr, "bisect: %.12s measured good after the bad %.12s: not used "
					"(the older bad one bounds the range)\n",
				hex[j], hex[fb]);
	}
	free(sides);
}

/* The K-ary walk: each round tests K commits evenly spaced in the range
 * (bv_bisect_kary_split), here one after another or as one Slurm array,
 * then keeps the sub-range between the last good and the first bad
 * (bv_bisect_kary_narrow).  Ranges are positions in the topological order
 * of bv_bisect_remaining, which on a linear history (or --first-parent) is
 * the history itself; on one with merges the spacing is approximate and
 * the goods and bad still bound the range as git bisect's do. */
static int bisect_walk_kary(ctx *x, const args *a, walk *w)
{
	w->cur_bad = w->bad_id;
	w->goods = bv_xmalloc(sizeof(git_oid));
	w->goods[w->ngoods++] = w->good_id;
	int rc = 0;
	size_t K = (size_t)a->parallel;
	while (rc == 0) {
		long pick;
		rc = next_pick(x, a, w, &pick);
		if (rc)
			break;
		size_t m;
		git_oid *elig = kary_eligible(w, &m);
		if ((w->status = bv_bisect_end(m ? 0 : -1, w->nset, w->nsteps, a->max_steps))) {
			free(elig);
			for (size_t i = 0; i < w->nset; i++) {
				w->range = bv_xrealloc(w->range, (w->nrange + 1) * sizeof(char *));
				w->range[w->nrange] = bv_xmalloc(41);
				git_oid_tostr(w->range[w->nrange++], 41, &w->set[i]);
			}
			break;
		}
		size_t *idx = bv_xcalloc(K, sizeof(size_t));
		size_t c = bv_bisect_kary_split(m, (int)K, idx);
		char (*hex)[41] = bv_xcalloc(c, sizeof(*hex));
		git_oid *ids = bv_xcalloc(c, sizeof(git_oid));
		point *pts = bv_xcalloc(c, sizeof(point));
		int *have = bv_xcalloc(c, sizeof(int));
		bv_buf said = BV_BUF_INIT;
		for (size_t j = 0; j < c; j++) {
			ids[j] = elig[idx[j]];
			git_oid_tostr(hex[j], sizeof(hex[j]), &ids[j]);
			bv_buf_printf(&said, " %.12s", hex[j]);
		}
		x->rounds++;
		int rounds_left = (int)ceil(log((double)m + 1) / log((double)K + 1));
		fprintf(stderr, "bisect: round %d: %zu %s left (about %d %s), testing%s\n", x->rounds, w->nset,
			bv_plural((long long)w->nset, "commit", "commits"), rounds_left,
			bv_plural(rounds_left, "round", "rounds"), said.s);
		bv_buf_free(&said);
		/* what the state holds already is never measured again */
		size_t nnew = 0;
		char (*newhex)[41] = bv_xcalloc(c + 1, sizeof(*newhex));
		point *newpts = bv_xcalloc(c + 1, sizeof(point));
		for (size_t j = 0; j < c; j++)
			if (point_load(x, hex[j], &pts[j])) {
				x->reused++;
				have[j] = 1;
			} else
				snprintf(newhex[nnew++], 41, "%s", hex[j]);
		if (a->slurm && nnew) {
			rc = slurm_round(x, a, w, newhex, nnew, newpts);
			for (size_t j = 0, k = 0; rc == 0 && j < c; j++)
				if (!have[j]) {
					pts[j] = newpts[k++];
					have[j] = 1;
				}
		} else
			for (size_t j = 0; rc == 0 && j < c; j++)
				if (!have[j] && (rc = point_of(x, w, hex[j], &pts[j])) == 0)
					have[j] = 1;
		if (rc == 0)
			kary_narrow(w, pts, have, ids, hex, c);
		for (size_t j = 0; j < c; j++)
			if (have[j])
				free(pts[j].reason);
		free(newhex), free(newpts), free(have), free(pts), free(ids), free(hex), free(idx), free(elig);
	}
	return rc;
}

/* A Slurm task of bisect --slurm: its one commit classified against good
 * and bad (built on this node when the submitting side did not), its point
 * written to OUT/point.json for the submitting side to read into the state.
 * It writes no state itself: the tasks of a round run at once. */
static int slurm_task(ctx *x, const args *a, walk *w)
{
	char **list = NULL;
	size_t n = 0;
	int rc = 0;
	char *copy = bv_strdup(a->task_commits);
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (strlen(t) != 40 || strspn(t, "0123456789abcdef") != 40) {
			char *e = bv_escape(t);
			rc = bv_fail(BV_EINPUT, "--slurm-commits: '%s' is not a full commit id", e);
			free(e);
			break;
		}
		list = bv_xrealloc(list, (n + 1) * sizeof(char *));
		list[n++] = t;
	}
	if (rc == 0 && (size_t)a->task > n)
		rc = bv_fail(BV_EINPUT, "--slurm-task %d: --slurm-commits names %zu", a->task, n);
	point p = {0};
	if (rc == 0)
		rc = version_of(x, w->good_hex, &w->good);
	if (rc == 0)
		rc = version_of(x, w->bad_hex, &w->bad);
	if (rc == 0 && (w->good->build_error || w->bad->build_error))
		rc = bv_fail(BV_ERUN, "the %s commit does not build here", w->good->build_error ? "good" : "bad");
	if (rc == 0)
		rc = classify(x, w->good, w->bad, list[a->task - 1], &p);
	if (rc == 0) {
		cJSON *o = point_json(&p);
		char *f = bv_asprintf("%s/point.json", a->task_out);
		rc = bv_json_save(f, o);
		free(f);
		cJSON_Delete(o);
		fprintf(stderr, "bisect: task %d: %.12s -> %s\n", a->task, p.commit,
			bv_bisect_side_name(p.side));
	}
	free(p.reason);
	free(list);
	free(copy);
	return rc;
}

/* The first bad commit against its own parent: the change itself, in one
 * more paired measurement (kept in the state like the others).  A parent
 * or commit that does not build, or a cell that fails, leaves it not valid:
 * the answer stands without it. */
static int measure_parent(ctx *x, walk *w)
{
	int rc = 0;
	snprintf(w->first_hex, sizeof(w->first_hex), "%s", w->range[0]);
	for (size_t i = 0; i < w->nsteps; i++)
		if (!strcmp(w->steps[i].commit, w->first_hex))
			w->first = &w->steps[i];
	commit_info ci;
	commit_info_of(x->git, w->first_hex, &ci);
	snprintf(w->parent_hex, sizeof(w->parent_hex), "%s", ci.parent);
	commit_info_free(&ci);
	const cJSON *pj = cJSON_GetObjectItemCaseSensitive(x->doc, "parent");
	const char *pc = bv_json_str(pj, "commit");
	if (pc && !strcmp(pc, w->first_hex)) {
		ratio_parse(pj, &w->vs_parent);
		x->reused++;
	} else if (*w->parent_hex) {
		bv_version *pv = NULL, *fv = NULL;
		rc = version_of(x, w->parent_hex, &pv);
		if (rc == 0)
			rc = version_of(x, w->first_hex, &fv);
		if (rc == 0 && !pv->build_error && !fv->build_error) {
			outcome out;
			bv_version *two[2] = {pv, fv};
			rc = measure(x, two, 2, 0, &out);
			if (rc == 0 && out.status[0] == BV_ST_OK && out.status[1] == BV_ST_OK)
				w->vs_parent = out.change[1];
			outcome_free(&out);
		}
		if (rc == 0) {
			cJSON *o = ratio_json(&w->vs_parent);
			if (!cJSON_IsObject(o)) {
				cJSON_Delete(o);
				o = cJSON_CreateObject();
			}
			cJSON_AddStringToObject(o, "commit", w->first_hex);
			cJSON_AddStringToObject(o, "parent", w->parent_hex);
			cJSON_DeleteItemFromObjectCaseSensitive(x->doc, "parent");
			cJSON_AddItemToObject(x->doc, "parent", o);
			rc = state_save(x);
		}
	}
	return rc;
}

/* The answer, in the format asked (stdout; the progress went to stderr). */
static void print_answer(const ctx *x, const args *a, const walk *w)
{
	answer ans = {.status = w->status,
		      .good = w->good_hex,
		      .bad = w->bad_hex,
		      .first = w->first_hex,
		      .first_step = w->first,
		      .parent = w->parent_hex,
		      .check = &w->check,
		      .vs_parent = &w->vs_parent,
		      .steps = w->steps,
		      .nsteps = w->nsteps,
		      .range = w->range,
		      .nrange = w->nrange,
		      .first_parent = a->first_parent,
		      .elapsed = difftime(time(NULL), w->t0)};
	if (!strcmp(a->format, "json"))
		print_json(x, &ans);
	else
		print_text(x, &ans);
}

/* The one cleanup path: whatever phase stopped, these free what was made
 * (both are safe on what a phase never reached). */
static void walk_free(walk *w)
{
	for (size_t i = 0; i < w->nsteps; i++)
		free(w->steps[i].reason);
	free(w->steps);
	for (size_t i = 0; i < w->nrange; i++)
		free(w->range[i]);
	free(w->range);
	free(w->goods);
	free(w->skipped);
	free(w->set);
}

static void ctx_free(ctx *x)
{
	for (size_t i = 0; i < x->nvs; i++) {
		bv_version_free(x->vs[i]);
		free(x->vs[i]);
	}
	free(x->vs);
	cJSON_Delete(x->doc);
	free(x->dir);
	free(x->state);
	bv_compat_free(x->compat);
	bv_repo_free(x->repo);
	if (x->suite_tmp)
		bv_rm_rf(x->suite_tmp);
	free(x->suite_tmp);
	bv_strv_free(&x->described);
}

/* The phases in order; each runs only when the one before succeeded. */
int bv_cmd_bisect(int argc, char **argv)
{
	ctx x = {0};
	args a = {0};
	walk w = {0};
	int code = parse_options(argc, argv, &a, &x);
	/* A project suite's cells are known once the ends are built (below);
	 * what bisect cannot do with one yet is refused before anything is. */
	int suite = code < 0 && bv_suite_dir();
	if (suite && (x.by_counts || a.slurm)) {
		fprintf(stderr, "bench-versions bisect: %s with a project suite (the project file's \"suite\"): not "
				"supported yet%s\n",
			x.by_counts ? "--by counts" : "--slurm",
			x.by_counts ? " (counting suite cells under Valgrind is not; bisect by time)" : "");
		code = BV_EXIT_USAGE;
	}
	if (code < 0 && !suite)
		code = settle_cell(&a, &x);
	if (code < 0) {
		w.t0 = time(NULL);
		/* No Slurm commands, or a partition or time limit sbatch refuses:
		 * said before the ends are built. */
		int rc = 0;
		if (a.slurm) {
			bv_slurm_opts so;
			bv_slurm_init(&so);
			so.enabled = 1, so.partition = a.partition, so.time_min = a.time_min, so.cache = a.slurm_cache;
			rc = bv_slurm_preflight(&so, x.mo.threads, a.parallel);
		}
		if (rc == 0)
			rc = open_ends(&x, &a, &w);
		int said = -1; /* settle_cell's exit status, once it said why */
		if (rc == 0 && suite) {
			rc = suite_ends(&x, &w);
			if (rc == 0 && (said = settle_cell(&a, &x)) >= 0)
				rc = BV_EINPUT; /* not said again below */
		}
		if (rc == 0)
			rc = open_state(&x, &a, &w);
		if (rc == 0 && a.task) { /* a Slurm task of a round: its one commit */
			rc = slurm_task(&x, &a, &w);
		} else {
			if (rc == 0)
				rc = confirm_ends(&x, &a, &w);
			if (rc == 0)
				rc = a.parallel ? bisect_walk_kary(&x, &a, &w) : bisect_walk(&x, &a, &w);
			if (rc == 0 && w.status == BV_BISECT_FOUND)
				rc = measure_parent(&x, &w);
			if (rc == 0)
				print_answer(&x, &a, &w);
		}
		if (rc && said < 0)
			fprintf(stderr, "bench-versions bisect: %s\n", bv_error_last());
		code = said >= 0 ? said : rc ? bv_exit_code(rc) : 0;
	}
	walk_free(&w);
	ctx_free(&x);
	return code;
}
