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
#include "hash.h"
#include "json.h"
#include "results.h"
#include "options.h"
#include "stages.h"
#include "stats.h"

#define STATE_SCHEMA "bench-versions-bisect"
#define STATE_SCHEMA_VERSION "1.0"
#define RETRIES 2 /* re-measurements of an inconclusive commit before it is skipped */

static void usage(FILE *out, const bv_option *opts)
{
	fprintf(out,
		"usage: bench-versions bisect --good REV --bad REV --bench B --op O --backend BE --size S\n"
		"                             [--first-parent] [--improvement] [--format text|json]\n"
		"                             [--quick] [--max-steps N] [options]\n\n"
		"Finds the first commit between good and bad where one cell moved from good's\n"
		"level to bad's (a slowdown; with --improvement a speed-up).  Each step builds\n"
		"a commit and measures it together with good and bad; a commit is bad when\n"
		"its 95%% interval lies wholly past the midpoint of the two levels, good when\n"
		"wholly before it, else it is measured again with more processes and then\n"
		"skipped.  Commits that do not build or whose cell fails are skipped too.\n"
		"Measurements are kept in the cache: a second bisect of the same range\n"
		"measures nothing twice, and an interrupted one continues.\n\n"
		"options (--opt VALUE or --opt=VALUE):\n");
	bv_options_help(opts, out);
	fprintf(out, "\nenvironment: KERNEL_DIR, KERNEL_REPO, BENCH_VERSIONS_CACHE, BENCH_VERSIONS_COMPAT, CC\n"
		     "exit codes: 0 done (a commit or, with skips or --max-steps, a range), 2 usage or\n"
		     "input error (unknown cell or revision, good not an ancestor of bad, no change\n"
		     "between good and bad), 3 a build of an end or a measurement failed\n");
}

/* A ratio with its interval, as a log's "change" block gives it. */
typedef struct ratio {
	int valid;
	double est, lo, hi, coverage;
	int processes;
	int evidence;      /* the per-process ratios were there: */
	double ps, pf;     /* their sign evidence, slower and faster (stats.h) */
} ratio;

/* The anytime-valid sign evidence of per-process ratios (verdict.c's test,
 * for a family of one comparison). */
static void evidence_of(ratio *r, const double *v, size_t n, double threshold)
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
	const char *verdict; /* "good", "bad", "skip" */
	char *reason;        /* why skipped */
	ratio vs_good;       /* commit / good */
	ratio bad;           /* bad / good, the same processes */
	ratio vs_bad;        /* commit / bad, from the per-process ratios */
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
	bv_version *v = calloc(1, sizeof(*v));
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
	if (rc == 0)
		rc = bv_build_versions(x->repo, v, 1, 1, -1, NULL, &failed);
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

static void ratio_from(const cJSON *change, ratio *r, double threshold)
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
		double *v = calloc((size_t)cJSON_GetArraySize(pr) + 1, sizeof(double));
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
static void quotient(const cJSON *a, const cJSON *b, ratio *out, double threshold)
{
	memset(out, 0, sizeof(*out));
	const cJSON *ra = cJSON_GetObjectItemCaseSensitive(a, "process_ratios");
	const cJSON *rb = cJSON_GetObjectItemCaseSensitive(b, "process_ratios");
	int n = cJSON_GetArraySize(ra);
	if (n == 0 || n != cJSON_GetArraySize(rb))
		return;
	double *q = calloc((size_t)n, sizeof(double));
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
	char *status[3], *reason[3];
	ratio change[3];
	ratio q;
} outcome;

static void outcome_free(outcome *o)
{
	for (int i = 0; i < 3; i++)
		free(o->status[i]), free(o->reason[i]);
	memset(o, 0, sizeof(*o));
}

static int measure(ctx *x, bv_version **vs, size_t n, int attempt, outcome *out)
{
	memset(out, 0, sizeof(*out));
	bv_measure_opts o = x->mo;
	o.benches = x->bench, o.ops = x->op, o.backends = x->backend, o.sizes = x->shape;
	/* A retry doubles processes and budget: an inconclusive interval is
	 * one too wide, and more processes are what narrows it. */
	o.min_processes <<= attempt, o.max_processes <<= attempt, o.budget_s *= 1 << attempt;
	o.seed = x->mo.seed + (unsigned long long)x->nmeasure * 7919u;
	bv_version *copies = calloc(n, sizeof(bv_version));
	for (size_t i = 0; i < n; i++)
		copies[i] = *vs[i]; /* shallow: bv_measure only reads them */
	char *dir = bv_asprintf("%s/logs/%d-%.12s-%d", x->dir, ++x->nmeasure, vs[n > 2 ? 1 : n - 1]->commit,
				attempt);
	bv_rm_rf(dir);
	char **logs = NULL;
	int rc = bv_mkdir_p(dir);
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
		const char *st = bv_json_str(cells[i], "status"), *why = bv_json_str(cells[i], "reason");
		out->status[i] = bv_strdup(st ? st : "failed");
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

/* Has bad moved away from good, in the direction asked, beyond the
 * threshold, with its whole interval and with sign evidence at 5 % (the
 * same rule as a table's verdicts, for a family of one comparison)? */
static int moved(const ctx *x, const ratio *r)
{
	if (!r->valid)
		return 0;
	bv_interval iv = {r->est, r->lo, r->hi, r->coverage ? r->coverage : 0.95, (size_t)r->processes};
	if (bv_verdict_of(&iv, x->mo.threshold) != (x->improvement ? BV_FASTER : BV_SLOWER))
		return 0;
	return !r->evidence || 2 * (x->improvement ? r->pf : r->ps) <= BV_FDR;
}

/* ---- the state file --------------------------------------------------- */

static cJSON *ratio_json(const ratio *r)
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

static void ratio_parse(const cJSON *o, ratio *r)
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
	cJSON_AddStringToObject(o, "verdict", p->verdict);
	if (p->reason)
		cJSON_AddStringToObject(o, "reason", p->reason);
	cJSON_AddItemToObject(o, "vs_good", ratio_json(&p->vs_good));
	cJSON_AddItemToObject(o, "bad_vs_good", ratio_json(&p->bad));
	cJSON_AddItemToObject(o, "vs_bad", ratio_json(&p->vs_bad));
	cJSON_AddNumberToObject(o, "attempts", p->attempts);
	return o;
}

/* The recorded point of a commit, if any. */
static int point_load(const ctx *x, const char *commit, point *p)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(x->doc, "points"))
	{
		const char *c = bv_json_str(e, "commit"), *v = bv_json_str(e, "verdict");
		if (!c || !v || strcmp(c, commit))
			continue;
		memset(p, 0, sizeof(*p));
		snprintf(p->commit, sizeof(p->commit), "%s", c);
		p->verdict = !strcmp(v, "bad") ? "bad" : !strcmp(v, "good") ? "good" : "skip";
		const char *why = bv_json_str(e, "reason");
		p->reason = why ? bv_strdup(why) : NULL;
		ratio_parse(cJSON_GetObjectItemCaseSensitive(e, "vs_good"), &p->vs_good);
		ratio_parse(cJSON_GetObjectItemCaseSensitive(e, "bad_vs_good"), &p->bad);
		ratio_parse(cJSON_GetObjectItemCaseSensitive(e, "vs_bad"), &p->vs_bad);
		double a = 0;
		bv_json_num(e, "attempts", &a);
		p->attempts = (int)a;
		p->reused = 1;
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
 * the midpoint, or skips it. */
static int classify(ctx *x, bv_version *good, bv_version *bad, const char *commit, point *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->commit, sizeof(p->commit), "%s", commit);
	bv_version *v;
	int rc = version_of(x, commit, &v);
	if (rc)
		return rc;
	if (v->build_error) {
		p->verdict = "skip";
		p->reason = bv_strdup("build failed");
		return 0;
	}
	for (int attempt = 0; attempt <= RETRIES; attempt++) {
		outcome out;
		bv_version *three[3] = {good, v, bad};
		rc = measure(x, three, 3, attempt, &out);
		if (rc)
			return rc;
		p->attempts = attempt + 1;
		if (strcmp(out.status[0], "ok") || strcmp(out.status[2], "ok")) {
			int which = strcmp(out.status[0], "ok") ? 0 : 2;
			rc = bv_fail(BV_ERUN, "the %s commit %.12s failed in this cell: %s%s%s",
				     which ? "bad" : "good", three[which]->commit, out.status[which],
				     out.reason[which] ? ": " : "", out.reason[which] ? out.reason[which] : "");
			outcome_free(&out);
			return rc;
		}
		if (strcmp(out.status[1], "ok")) {
			p->verdict = "skip";
			p->reason = bv_asprintf("%s%s%s", out.status[1], out.reason[1] ? ": " : "",
						out.reason[1] ? out.reason[1] : "");
			outcome_free(&out);
			return 0;
		}
		p->vs_good = out.change[1], p->bad = out.change[2], p->vs_bad = out.q;
		outcome_free(&out);
		/* The midpoint of the two levels, from bad as measured in these
		 * very processes; and bad must still show the change, or the
		 * midpoint means nothing. */
		if (p->vs_good.valid && moved(x, &p->bad)) {
			double mid = sqrt(p->bad.est);
			int above = p->vs_good.lo > mid, below = p->vs_good.hi < mid;
			if (above || below) {
				p->verdict = above != x->improvement ? "bad" : "good";
				return 0;
			}
		}
		if (attempt < RETRIES)
			fprintf(stderr, "bisect: %.12s: %.3f [%.3f, %.3f] against a midpoint of %.3f: inconclusive, "
					"measuring again with more processes\n",
				commit, p->vs_good.est, p->vs_good.lo, p->vs_good.hi,
				p->bad.valid ? sqrt(p->bad.est) : NAN);
	}
	p->verdict = "skip";
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

static void fmt_ratio(const ratio *r, char *buf, size_t len)
{
	if (r->valid)
		snprintf(buf, len, "%.3f [%.3f, %.3f]", r->est, r->lo, r->hi);
	else
		snprintf(buf, len, "-");
}

/* What a bisect found, for the two output formats. */
typedef struct answer {
	const char *status; /* found, range, stopped */
	const char *good, *bad, *first; /* first: the first bad commit when found */
	const point *first_step;         /* its step (NULL: it is bad itself) */
	const char *parent;              /* its first parent ("" if none) */
	const ratio *check, *vs_parent;
	const point *steps;
	size_t nsteps;
	char *const *range; /* the commits that may be the first bad one */
	size_t nrange;
	int first_parent;
	double elapsed;
} answer;

static const char *parent_verdict(const ctx *x, const ratio *r)
{
	bv_interval iv = {r->est, r->lo, r->hi, r->coverage, (size_t)r->processes};
	if (!r->valid)
		return NULL;
	bv_verdict v = bv_verdict_of(&iv, x->mo.threshold);
	double p = v == BV_SLOWER ? r->ps : r->pf;
	if (v != BV_SAME && r->evidence && 2 * p > BV_FDR)
		v = BV_SAME; /* the interval alone says so; the evidence does not */
	return bv_verdict_name(v);
}

static void print_json(const ctx *x, const answer *a)
{
	const char *pverdict = parent_verdict(x, a->vs_parent);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "status", a->status);
	cJSON *c = cJSON_AddObjectToObject(o, "cell");
	cJSON_AddStringToObject(c, "bench", x->bench);
	cJSON_AddStringToObject(c, "op", x->op);
	cJSON_AddStringToObject(c, "backend", x->backend);
	cJSON_AddNumberToObject(c, "size", (double)x->size);
	cJSON_AddStringToObject(c, "shape", x->shape);
	cJSON_AddStringToObject(o, "direction", x->improvement ? "faster" : "slower");
	cJSON_AddNumberToObject(o, "threshold", x->mo.threshold);
	cJSON_AddBoolToObject(o, "first_parent", a->first_parent);
	cJSON_AddStringToObject(o, "good", a->good);
	cJSON_AddStringToObject(o, "bad", a->bad);
	cJSON_AddItemToObject(o, "bad_vs_good", ratio_json(a->check));
	if (!strcmp(a->status, "found")) {
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
		if (pverdict)
			cJSON_AddStringToObject(vp, "verdict", pverdict);
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
	if (!strcmp(a->status, "found")) {
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
			printf("  vs parent %.12s: %s %s\n", a->parent, r, parent_verdict(x, a->vs_parent));
		}
	} else {
		printf("%s: the first %s commit is one of %zu:\n",
		       !strcmp(a->status, "range") ? "skipped commits leave a range" : "stopped at --max-steps", dir,
		       a->nrange);
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
		printf("  %-2zu %.12s  %-24s %s%s%s%s%s\n", i + 1, p->commit, r, p->verdict, p->reason ? " (" : "",
		       p->reason ? p->reason : "", p->reason ? ")" : "", p->reused ? ", reused" : "");
	}
	printf("builds: %d (%d new, %d cached, %d failed); measured %d, reused %d measurements; %.0f s\n", x->builds,
	       x->builds_new, x->builds - x->builds_new - x->builds_failed, x->builds_failed, x->taken, x->reused,
	       a->elapsed);
	printf("state: %s\n", x->state);
}

/* ---- the command ------------------------------------------------------ */

static const char *const format_values[] = {"text", "json", NULL};

/* What bisect takes of the measuring options (run_options.c), as run takes
 * them; --quick, --threshold and --layouts are bisect's own lines below,
 * with its own help and defaults. */
static const char *const measuring[] = {"--min-processes", "--max-processes", "--budget", "--seed",
					"--memory-limit", NULL};

int bv_cmd_bisect(int argc, char **argv)
{
	const char *good_name = NULL, *bad_name = NULL, *bench = NULL, *op = NULL, *backend = NULL, *size = NULL;
	const char *format = "text";
	int first_parent = 0, improvement = 0, max_steps = 0;
	ctx x = {0};
	bv_run_cli cli;
	bv_run_cli_init(&cli);
	bv_option shared[BV_RUN_CLI_OPTIONS];
	bv_run_cli_table(&cli, shared, measuring);
	const bv_option opts[] = {
	    BV_STRING("--good", &good_name, "REV", "a commit at the old level (any git revision)"),
	    BV_STRING("--bad", &bad_name, "REV",
		      "a later commit at the new level; good must be its ancestor"),
	    BV_STRING("--bench", &bench, "B", "the one cell's group (see: bench-versions list benches)"),
	    BV_STRING("--op", &op, "O", "its op"),
	    BV_STRING("--backend", &backend, "BE", "its backend"),
	    BV_STRING("--size", &size, "S", "its size (64K, 1M, 1024x4096); one cell, no lists"),
	    BV_FLAG("--first-parent", &first_parent, "follow first parents only (a merge is one step)"),
	    BV_FLAG("--improvement", &improvement, "look for the first commit that got faster"),
	    BV_ENUM("--format", &format, "F", format_values, "text (default) or json"),
	    BV_FLAG("--quick", &cli.mo.quick, "fewer processes per measurement (6-12 instead of 10-60)"),
	    BV_INT("--max-steps", &max_steps, "N", 1, 10000,
		   "stop after N steps and name the commits still in the range"),
	    BV_PERCENT("--threshold", &cli.mo.threshold, "P", 0, 1000,
		       "the smallest change good..bad must show, percent (default 1)"),
	    BV_INT("--layouts", &cli.mo.layouts, "N", 1, 8,
		   "code layouts per version, one at random per process (default 4; "
		   "see bench-versions run --help)"),
	    BV_INCLUDE(shared, "--min-processes N, --max-processes N, --budget S, --seed N and\n"
			       "--memory-limit SIZE as for run (see bench-versions run --help)"),
	    BV_END,
	};
	char **pos = calloc((size_t)argc + 1, sizeof(char *));
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
	if (!good_name || !bad_name || !bench || !op || !backend || !size) {
		fprintf(stderr, "bench-versions bisect: --good, --bad, --bench, --op, --backend and --size are all needed\n");
		usage(stderr, opts);
		return BV_EXIT_USAGE;
	}
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
	x.mo = cli.mo;
	/* Ctrl-C and SIGTERM reach the builds and measuring processes and stop
	 * the bisect between steps; what was measured is in the state file, so
	 * the same command goes on from there. */
	bv_signals_install();
	double threshold = x.mo.threshold;
	/* Exactly one cell: a list would bisect several questions at once. */
	bv_cell *cells = NULL;
	char err[256];
	long ncells = strpbrk(bench, ",") || strpbrk(op, ",") || strpbrk(backend, ",") || strpbrk(size, ",")
			      ? -2
			      : bv_cells_select(&(bv_selection){bench, op, backend, size}, &cells, err, sizeof(err));
	if (ncells != 1) {
		fprintf(stderr, "bench-versions bisect: %s\n",
			ncells == -1 ? err
			: ncells == 0 ? "that bench, op, backend and size name no cell (see: bench-versions list benches)"
				      : "name exactly one cell: one bench, op, backend and size");
		free(cells);
		return BV_EXIT_USAGE;
	}
	x.bench = bench, x.op = op, x.backend = backend, x.size = cells[0].size, x.improvement = improvement;
	bv_size_format(x.size, x.shape, sizeof(x.shape));
	free(cells);
	char threads[16];
	snprintf(threads, sizeof(threads), "%d", x.mo.threads);
	setenv("OPENBLAS_NUM_THREADS", threads, 1);
	setenv("OMP_NUM_THREADS", threads, 1);

	time_t t0 = time(NULL);
	bv_version *good = NULL, *bad = NULL;
	point *steps = NULL;
	size_t nsteps = 0;
	git_oid *goods = NULL, *set = NULL;
	size_t ngoods = 0, nset = 0;
	char **range = NULL;
	size_t nrange = 0;
	const char *status = NULL;
	ratio check = {0}, vs_parent = {0};
	char parent_hex[41] = "";
	char good_hex[41], bad_hex[41];
	int rc = bv_repo_open(&x.repo);
	if (rc == 0 && !(x.git = bv_repo_git(x.repo)))
		rc = bv_fail(BV_EINPUT, "bisect needs a git repository: %s", bv_repo_describe(x.repo));
	/* The ends, as exact commits. */
	bv_version ends[2] = {{0}};
	const char *names[2] = {good_name, bad_name};
	for (int i = 0; rc == 0 && i < 2; i++) {
		rc = bv_resolve(x.repo, names[i], &ends[i]);
		if (rc == 0 && ends[i].kind != BV_VERSION_GIT)
			rc = bv_fail(BV_EINPUT, "%s is not a commit of %s (bisect walks git history)", names[i],
				     bv_repo_describe(x.repo));
		if (rc == 0)
			fprintf(stderr, "resolve: %-12s -> commit %.12s, kernels %s [%s]\n", names[i], ends[i].commit,
				ends[i].kernel_version, ends[i].rule);
	}
	snprintf(good_hex, sizeof(good_hex), "%s", ends[0].commit);
	snprintf(bad_hex, sizeof(bad_hex), "%s", ends[1].commit);
	git_oid good_id, bad_id;
	if (rc == 0) {
		git_oid_fromstr(&good_id, good_hex);
		git_oid_fromstr(&bad_id, bad_hex);
		int desc = git_graph_descendant_of(x.git, &bad_id, &good_id);
		if (git_oid_equal(&good_id, &bad_id))
			rc = bv_fail(BV_EINPUT, "good and bad are the same commit %.12s: nothing to bisect", good_hex);
		else if (desc < 0)
			rc = bv_fail(BV_ERUN, "comparing %s and %s: %s", good_name, bad_name,
				     git_error_last() ? git_error_last()->message : "libgit2 error");
		else if (desc == 0)
			rc = bv_fail(BV_EINPUT, "good %s (%.12s) is not an ancestor of bad %s (%.12s)", good_name,
				     good_hex, bad_name, bad_hex);
	}
	for (int i = 0; i < 2; i++)
		bv_version_free(&ends[i]);

	/* The state: one per range, cell and way of measuring. */
	if (rc == 0) {
		char *keytext = bv_asprintf("%s\n%s\n%s/%s/%s/%zu\n%s\n%g\n%d %d %d %g %g\nlayouts %d\n", good_hex,
					    bad_hex, bench, op, backend, x.size, improvement ? "faster" : "slower",
					    threshold, x.mo.quick, x.mo.min_processes, x.mo.max_processes,
					    x.mo.budget_s, x.mo.sample_us, x.mo.layouts);
		char key[41];
		bv_hash_bytes(keytext, strlen(keytext), key);
		free(keytext);
		x.dir = bv_asprintf("%s/bisect/%.16s", bv_cache_dir(), key);
		x.state = bv_asprintf("%s/state.json", x.dir);
		rc = bv_mkdir_p(x.dir);
	}
	if (rc == 0 && bv_exists(x.state)) {
		rc = bv_json_load(x.state, (size_t)1 << 28, &x.doc);
		const char *schema = rc == 0 ? bv_json_str(x.doc, "schema") : NULL;
		if (rc == 0 && (!schema || strcmp(schema, STATE_SCHEMA))) {
			rc = bv_fail(BV_EINPUT, "%s is not a bisect state file (remove it to start afresh)", x.state);
		} else if (rc == 0) {
			fprintf(stderr, "bisect: resuming from %s (%d measurements)\n", x.state,
				cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(x.doc, "points")));
		}
	} else if (rc == 0) {
		x.doc = cJSON_CreateObject();
		cJSON_AddStringToObject(x.doc, "schema", STATE_SCHEMA);
		cJSON_AddStringToObject(x.doc, "schema_version", STATE_SCHEMA_VERSION);
		cJSON_AddStringToObject(x.doc, "good", good_hex);
		cJSON_AddStringToObject(x.doc, "bad", bad_hex);
		cJSON *c = cJSON_AddObjectToObject(x.doc, "cell");
		cJSON_AddStringToObject(c, "bench", bench);
		cJSON_AddStringToObject(c, "op", op);
		cJSON_AddStringToObject(c, "backend", backend);
		cJSON_AddNumberToObject(c, "size", (double)x.size);
		cJSON_AddStringToObject(x.doc, "direction", improvement ? "faster" : "slower");
		cJSON_AddNumberToObject(x.doc, "threshold", threshold);
		cJSON_AddArrayToObject(x.doc, "points");
	}
	if (rc == 0)
		rc = bv_compat_load(bv_compat_path(), &x.compat);

	/* Good against bad first: without a clear change between them there is
	 * nothing to find, and every step would be a coin toss. */
	ratio_parse(cJSON_GetObjectItemCaseSensitive(x.doc, "check"), &check);
	if (rc == 0 && check.valid) {
		x.reused++;
		fprintf(stderr, "bisect: good -> bad %.3f [%.3f, %.3f] (reused)\n", check.est, check.lo, check.hi);
	}
	if (rc == 0 && (!check.valid || !moved(&x, &check))) {
		rc = version_of(&x, good_hex, &good);
		if (rc == 0)
			rc = version_of(&x, bad_hex, &bad);
		for (int i = 0; rc == 0 && i < 2; i++) {
			bv_version *v = i ? bad : good;
			if (v->build_error)
				rc = bv_fail(BV_ERUN, "the %s commit %.12s does not build: %s", i ? "bad" : "good",
					     v->commit, v->build_error);
		}
		for (int attempt = 0; rc == 0 && attempt <= RETRIES; attempt++) {
			outcome out;
			bv_version *two[2] = {good, bad};
			rc = measure(&x, two, 2, attempt, &out);
			if (rc)
				break;
			for (int i = 0; rc == 0 && i < 2; i++)
				if (strcmp(out.status[i], "ok"))
					rc = bv_fail(BV_ERUN, "the %s commit %.12s failed in %s/%s/%s/%s: %s%s%s",
						     i ? "bad" : "good", two[i]->commit, bench, op, backend, x.shape,
						     out.status[i], out.reason[i] ? ": " : "",
						     out.reason[i] ? out.reason[i] : "");
			check = out.change[1];
			outcome_free(&out);
			if (rc)
				break;
			bv_interval iv = {check.est, check.lo, check.hi, check.coverage, (size_t)check.processes};
			fprintf(stderr, "bisect: good -> bad %.3f [%.3f, %.3f]\n", check.est, check.lo, check.hi);
			/* Measure again only when the estimate shows the change and
			 * the interval is merely too wide to confirm it: an A/A range
			 * is refused at once, a real but noisy change gets more
			 * processes before it is refused. */
			int promising = check.valid && (improvement ? check.est < 1.0 / (1.0 + threshold)
								      : check.est > 1.0 + threshold);
			if (moved(&x, &check) || !promising || !bv_interval_noisy(&iv, threshold))
				break;
		}
		if (rc == 0 && !moved(&x, &check)) {
			char r[64];
			fmt_ratio(&check, r, sizeof(r));
			rc = bv_fail(BV_EINPUT,
				     "bad %.12s is not significantly %s than good %.12s in %s/%s/%s/%s: ratio %s, "
				     "threshold %g%%; nothing to bisect",
				     bad_hex, improvement ? "faster" : "slower", good_hex, bench, op, backend, x.shape,
				     r, threshold * 100);
		}
		if (rc == 0) {
			cJSON_DeleteItemFromObjectCaseSensitive(x.doc, "check");
			cJSON_AddItemToObject(x.doc, "check", ratio_json(&check));
			rc = state_save(&x);
		}
	}

	/* The walk: git bisect's, one measured step at a time. */
	git_oid cur_bad = bad_id;
	goods = bv_xmalloc(sizeof(git_oid));
	goods[ngoods++] = good_id;
	git_oid *skipped = NULL;
	size_t nskipped = 0;
	while (rc == 0) {
		free(set);
		rc = bv_bisect_remaining(x.git, &cur_bad, goods, ngoods, first_parent, &set, &nset);
		if (rc)
			break;
		unsigned char *skip = calloc(nset + 1, 1);
		for (size_t i = 0; i < nset; i++)
			for (size_t k = 0; k < nskipped; k++)
				skip[i] |= git_oid_equal(&set[i], &skipped[k]);
		long pick = bv_bisect_pick(x.git, set, nset, &cur_bad, skip, first_parent);
		free(skip);
		if (pick < -1) {
			rc = (int)pick;
			break;
		}
		if (pick == -1 || (max_steps && (int)nsteps >= max_steps)) {
			/* Done: bad alone, or bad and commits that could not be told. */
			status = nset == 1 ? "found" : pick == -1 ? "range" : "stopped";
			for (size_t i = 0; i < nset; i++) {
				range = bv_xrealloc(range, (nrange + 1) * sizeof(char *));
				range[nrange] = bv_xmalloc(41);
				git_oid_tostr(range[nrange++], 41, &set[i]);
			}
			break;
		}
		char hex[41];
		git_oid_tostr(hex, sizeof(hex), &set[pick]);
		fprintf(stderr, "bisect: %zu commits left (about %d steps), testing %.12s\n", nset,
			(int)ceil(log2((double)nset)), hex);
		point p;
		if (point_load(&x, hex, &p)) {
			x.reused++;
		} else {
			if (!good)
				rc = version_of(&x, good_hex, &good);
			if (rc == 0 && !bad)
				rc = version_of(&x, bad_hex, &bad);
			if (rc == 0 && (good->build_error || bad->build_error))
				rc = bv_fail(BV_ERUN, "the %s commit %.12s no longer builds: %s",
					     good->build_error ? "good" : "bad", (good->build_error ? good : bad)->commit,
					     good->build_error ? good->build_error : bad->build_error);
			if (rc == 0)
				rc = classify(&x, good, bad, hex, &p);
			if (rc == 0)
				rc = point_save(&x, &p);
			if (rc)
				break;
		}
		char r[64];
		fmt_ratio(&p.vs_good, r, sizeof(r));
		fprintf(stderr, "bisect: step %zu: %.12s %s -> %s%s%s%s%s\n", nsteps + 1, hex, r, p.verdict,
			p.reason ? " (" : "", p.reason ? p.reason : "", p.reason ? ")" : "", p.reused ? " [reused]" : "");
		if (!strcmp(p.verdict, "bad"))
			cur_bad = set[pick];
		else if (!strcmp(p.verdict, "good")) {
			goods = bv_xrealloc(goods, (ngoods + 1) * sizeof(git_oid));
			goods[ngoods++] = set[pick];
		} else {
			skipped = bv_xrealloc(skipped, (nskipped + 1) * sizeof(git_oid));
			skipped[nskipped++] = set[pick];
		}
		steps = bv_xrealloc(steps, (nsteps + 1) * sizeof(point));
		steps[nsteps++] = p;
	}
	free(skipped);

	/* The first bad commit against its own parent: the change itself, in one
	 * more paired measurement (kept in the state like the others). */
	point *first = NULL;
	char first_hex[41] = "";
	if (rc == 0 && !strcmp(status, "found")) {
		snprintf(first_hex, sizeof(first_hex), "%s", range[0]);
		for (size_t i = 0; i < nsteps; i++)
			if (!strcmp(steps[i].commit, first_hex))
				first = &steps[i];
		commit_info ci;
		commit_info_of(x.git, first_hex, &ci);
		snprintf(parent_hex, sizeof(parent_hex), "%s", ci.parent);
		commit_info_free(&ci);
		const cJSON *pj = cJSON_GetObjectItemCaseSensitive(x.doc, "parent");
		const char *pc = bv_json_str(pj, "commit");
		if (pc && !strcmp(pc, first_hex)) {
			ratio_parse(pj, &vs_parent);
			x.reused++;
		} else if (*parent_hex) {
			bv_version *pv = NULL, *fv = NULL;
			rc = version_of(&x, parent_hex, &pv);
			if (rc == 0)
				rc = version_of(&x, first_hex, &fv);
			if (rc == 0 && !pv->build_error && !fv->build_error) {
				outcome out;
				bv_version *two[2] = {pv, fv};
				rc = measure(&x, two, 2, 0, &out);
				if (rc == 0 && !strcmp(out.status[0], "ok") && !strcmp(out.status[1], "ok"))
					vs_parent = out.change[1];
				outcome_free(&out);
			}
			if (rc == 0) {
				cJSON *o = ratio_json(&vs_parent);
				if (!cJSON_IsObject(o)) {
					cJSON_Delete(o);
					o = cJSON_CreateObject();
				}
				cJSON_AddStringToObject(o, "commit", first_hex);
				cJSON_AddStringToObject(o, "parent", parent_hex);
				cJSON_DeleteItemFromObjectCaseSensitive(x.doc, "parent");
				cJSON_AddItemToObject(x.doc, "parent", o);
				rc = state_save(&x);
			}
		}
	}
	double elapsed = difftime(time(NULL), t0);
	if (rc == 0) {
		answer a = {status, good_hex, bad_hex, first_hex, first, parent_hex, &check, &vs_parent,
			    steps, nsteps, range, nrange, first_parent, elapsed};
		if (!strcmp(format, "json"))
			print_json(&x, &a);
		else
			print_text(&x, &a);
	}
	if (rc)
		fprintf(stderr, "bench-versions bisect: %s\n", bv_error_last());
	for (size_t i = 0; i < nsteps; i++)
		free(steps[i].reason);
	free(steps);
	for (size_t i = 0; i < nrange; i++)
		free(range[i]);
	free(range);
	free(goods);
	free(set);
	for (size_t i = 0; i < x.nvs; i++) {
		bv_version_free(x.vs[i]);
		free(x.vs[i]);
	}
	free(x.vs);
	cJSON_Delete(x.doc);
	free(x.dir);
	free(x.state);
	bv_compat_free(x.compat);
	bv_repo_free(x.repo);
	return rc ? bv_exit_code(rc) : 0;
}
