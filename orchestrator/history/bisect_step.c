/*
 * bisect_step.c - one step of `bench-versions bisect`: the commit's build
 * (once per bisect), its measurement with good and bad in the same
 * processes (or, with --by counts, Valgrind's counts), the ratios read back
 * from the logs, the verdict against the midpoint with its retries, and the
 * state file that keeps each point.  Separate from the walk (bisect_search.c),
 * which only decides which commit to step on next.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect.h"
#include "bisect_step.h"
#include "common.h"
#include "counts.h"
#include "fs.h"
#include "hash.h"
#include "json.h"
#include "measure.h"
#include "pipeline.h"
#include "results.h"
#include "stats.h"
#include "status.h"
#include "suite.h"

#define STATE_SCHEMA "bench-versions-bisect"
#define STATE_SCHEMA_VERSION "1.0"

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

/* ---- builds ----------------------------------------------------------- */

/* The commit's version, resolved, fetched and built (once per bisect).  A
 * commit that does not build comes back with build_error set and rc 0. */
int bv_bisect_version(bv_bisect_ctx *x, const char *commit, bv_version **out)
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

void bv_bisect_outcome_free(bv_bisect_outcome *o)
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
static int count_step(bv_bisect_ctx *x, bv_version **vs, size_t n, bv_bisect_outcome *out)
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
static int describe_new(bv_bisect_ctx *x, const bv_version *vs, size_t n, const char *dir, bv_measure_opts *o)
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

int bv_bisect_measure(bv_bisect_ctx *x, bv_version **vs, size_t n, int attempt, bv_bisect_outcome *out)
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

cJSON *bv_bisect_ratio_json(const bv_bisect_ratio *r)
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

void bv_bisect_ratio_parse(const cJSON *o, bv_bisect_ratio *r)
{
	memset(r, 0, sizeof(*r));
	double p = 0;
	if (cJSON_IsObject(o) && !bv_json_num(o, "ratio", &r->est) && !bv_json_num(o, "ci_low", &r->lo) &&
	    !bv_json_num(o, "ci_high", &r->hi) && !bv_json_num(o, "processes", &p)) {
		r->valid = 1, r->processes = (int)p;
		bv_json_num(o, "coverage", &r->coverage);
	}
}

cJSON *bv_bisect_point_json(const bv_bisect_point *p)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "commit", p->commit);
	cJSON_AddStringToObject(o, "verdict", bv_bisect_side_name(p->side));
	if (p->reason)
		cJSON_AddStringToObject(o, "reason", p->reason);
	cJSON_AddItemToObject(o, "vs_good", bv_bisect_ratio_json(&p->vs_good));
	cJSON_AddItemToObject(o, "bad_vs_good", bv_bisect_ratio_json(&p->bad));
	cJSON_AddItemToObject(o, "vs_bad", bv_bisect_ratio_json(&p->vs_bad));
	cJSON_AddNumberToObject(o, "attempts", p->attempts);
	return o;
}

/* A point as bv_bisect_point_json wrote it, when it is commit's (0: it is not). */
int bv_bisect_point_from_json(const cJSON *e, const char *commit, bv_bisect_point *p)
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
	bv_bisect_ratio_parse(cJSON_GetObjectItemCaseSensitive(e, "vs_good"), &p->vs_good);
	bv_bisect_ratio_parse(cJSON_GetObjectItemCaseSensitive(e, "bad_vs_good"), &p->bad);
	bv_bisect_ratio_parse(cJSON_GetObjectItemCaseSensitive(e, "vs_bad"), &p->vs_bad);
	double a = 0;
	bv_json_num(e, "attempts", &a);
	p->attempts = a >= 0 && a <= 100 ? (int)a : 0;
	p->reused = 1;
	return 1;
}

/* The recorded point of a commit, if any. */
int bv_bisect_point_load(const bv_bisect_ctx *x, const char *commit, bv_bisect_point *p)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(x->doc, "points"))
	{
		if (bv_bisect_point_from_json(e, commit, p))
			return 1;
	}
	return 0;
}

int bv_bisect_state_save(bv_bisect_ctx *x) { return bv_json_save(x->state, x->doc); }

int bv_bisect_point_save(bv_bisect_ctx *x, const bv_bisect_point *p)
{
	cJSON *points = cJSON_GetObjectItemCaseSensitive(x->doc, "points");
	if (!cJSON_IsArray(points)) {
		cJSON_DeleteItemFromObjectCaseSensitive(x->doc, "points");
		points = cJSON_AddArrayToObject(x->doc, "points");
	}
	cJSON_AddItemToArray(points, bv_bisect_point_json(p));
	return bv_bisect_state_save(x);
}

/* The state: one per range, cell and way of measuring (the key), resumed
 * when it is there, so nothing is measured twice. */
int bv_bisect_open_state(bv_bisect_ctx *x, const char *good_hex, const char *bad_hex)
{
	double threshold = x->mo.threshold;
	const bv_measure_opts *mo = &x->mo;
	char *keytext = bv_asprintf("%s\n%s\n%s/%s/%s/%zu\n%s\n%g\n%d %d %d %g %g\nlayouts %d\n", good_hex,
				    bad_hex, x->bench, x->op, x->backend, x->size,
				    x->improvement ? "faster" : "slower", threshold, mo->quick, mo->min_processes,
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
		cJSON_AddStringToObject(x->doc, "good", good_hex);
		cJSON_AddStringToObject(x->doc, "bad", bad_hex);
		cJSON *c = cJSON_AddObjectToObject(x->doc, "cell");
		cJSON_AddStringToObject(c, "bench", x->bench);
		cJSON_AddStringToObject(c, "op", x->op);
		cJSON_AddStringToObject(c, "backend", x->backend);
		cJSON_AddNumberToObject(c, "size", (double)x->size);
		cJSON_AddStringToObject(x->doc, "direction", x->improvement ? "faster" : "slower");
		cJSON_AddNumberToObject(x->doc, "threshold", threshold);
		cJSON_AddArrayToObject(x->doc, "points");
	}
	return rc;
}

/* ---- one step --------------------------------------------------------- */

/* Measures commit against good and bad until it is clearly on one side of
 * the midpoint, or skips it after BV_BISECT_RETRIES more measurements. */
int bv_bisect_classify(bv_bisect_ctx *x, bv_version *good, bv_version *bad, const char *commit,
                       bv_bisect_point *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->commit, sizeof(p->commit), "%s", commit);
	bv_version *v;
	int rc = bv_bisect_version(x, commit, &v);
	if (rc)
		return rc;
	if (v->build_error) {
		p->side = BV_BISECT_INCONCLUSIVE;
		p->reason = bv_strdup("build failed");
		return 0;
	}
	for (int attempt = 0;; attempt++) {
		bv_bisect_outcome out;
		bv_version *three[3] = {good, v, bad};
		rc = bv_bisect_measure(x, three, 3, attempt, &out);
		if (rc)
			return rc;
		p->attempts = attempt + 1;
		if (out.status[0] != BV_ST_OK || out.status[2] != BV_ST_OK) {
			int which = out.status[0] != BV_ST_OK ? 0 : 2;
			rc = bv_fail(BV_ERUN, "the %s commit %.12s failed in this cell: %s%s%s",
				     which ? "bad" : "good", three[which]->commit,
				     bv_status_name(out.status[which]), out.reason[which] ? ": " : "",
				     out.reason[which] ? out.reason[which] : "");
			bv_bisect_outcome_free(&out);
			return rc;
		}
		if (out.status[1] != BV_ST_OK) {
			p->side = BV_BISECT_INCONCLUSIVE;
			const char *why = out.reason[1];
			p->reason = bv_asprintf("%s%s%s", bv_status_name(out.status[1]), why ? ": " : "",
						why ? why : "");
			bv_bisect_outcome_free(&out);
			return 0;
		}
		p->vs_good = out.change[1], p->bad = out.change[2], p->vs_bad = out.q;
		bv_bisect_outcome_free(&out);
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

void bv_bisect_ctx_free(bv_bisect_ctx *x)
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
