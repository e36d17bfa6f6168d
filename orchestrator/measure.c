/*
 * measure.c - the measure stage: paired samples from many short processes,
 * reduced to estimates with 95 % intervals, written as one log per version.
 *
 * Each bv-runner process loads every version and alternates them on the same
 * buffers (harness/runner.c says why).  Within a process, version V's samples
 * are paired with the baseline's taken in the same round; the process's
 * estimate for V is the median of those pair ratios.  Processes differ in
 * level and code placement, so the reported ratio is the median over
 * processes, and its interval is the order-statistic interval of that median
 * (harness/stats.h): distribution-free, with its real coverage recorded.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "json.h"
#include "machine.h"
#include "stages.h"
#include "stats.h"

#define RESULTS_SCHEMA "bench-versions-results"
#define RESULTS_SCHEMA_VERSION "1.0"

static cJSON *version_block(const bv_version *v)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "label", v->label);
	cJSON_AddStringToObject(o, "name", v->name);
	cJSON_AddStringToObject(o, "kind", v->kind == BV_VERSION_LOCAL ? "local" : "git");
	cJSON_AddStringToObject(o, "rule", v->rule);
	if (v->kind == BV_VERSION_GIT)
		cJSON_AddStringToObject(o, "commit", v->commit);
	else
		cJSON_AddNullToObject(o, "commit");
	cJSON_AddStringToObject(o, "tree", v->tree);
	cJSON_AddStringToObject(o, "summary", v->summary ? v->summary : "");
	cJSON_AddStringToObject(o, "kernel_version", v->kernel_version);
	cJSON *shims = cJSON_AddArrayToObject(o, "compat");
	for (size_t i = 0; i < v->shims.nrules; i++)
		cJSON_AddItemToArray(shims, cJSON_CreateString(v->shims.rules[i]));
	cJSON *b = cJSON_AddObjectToObject(o, "build");
	cJSON_AddStringToObject(b, "status", v->build_error ? "failed" : "ok");
	if (v->build_key)
		cJSON_AddStringToObject(b, "key", v->build_key);
	cJSON_AddBoolToObject(b, "cached", v->cached);
	cJSON_AddStringToObject(b, "cc", getenv("CC") && *getenv("CC") ? getenv("CC") : "cc");
	cJSON *flags = cJSON_AddArrayToObject(b, "cflags");
	for (size_t i = 0; i < v->shims.ncflags; i++)
		cJSON_AddItemToArray(flags, cJSON_CreateString(v->shims.cflags[i]));
	if (v->build_error)
		cJSON_AddStringToObject(b, "error", v->build_error);
	return o;
}

/* Runs one bv-runner process; its JSON lands in out. */
static int run_process(bv_version *vs, size_t n, const bv_measure_opts *o, int index, const char *out,
		       const char *log)
{
	bv_strv argv = BV_STRV_INIT;
	bv_strv_pushf(&argv, "%s/bv-runner", bv_libexec());
	bv_strv_push(&argv, "--out");
	bv_strv_push(&argv, out);
	bv_strv_push(&argv, "--seed");
	bv_strv_pushf(&argv, "%llu", o->seed * 1000003ull + (unsigned long long)index + 1);
	bv_strv_push(&argv, "--rounds");
	bv_strv_pushf(&argv, "%d", o->rounds);
	bv_strv_push(&argv, "--sample-us");
	bv_strv_pushf(&argv, "%g", o->sample_us);
	const char *names[] = {"--benches", "--ops", "--backends", "--sizes"};
	const char *vals[] = {o->benches, o->ops, o->backends, o->sizes};
	for (int i = 0; i < 4; i++)
		if (vals[i]) {
			bv_strv_push(&argv, names[i]);
			bv_strv_push(&argv, vals[i]);
		}
	for (size_t i = 0; i < n; i++)
		if (vs[i].plugin && !vs[i].build_error)
			bv_strv_pushf(&argv, "%s=%s", vs[i].label, vs[i].plugin);
	int status = bv_run(argv.v, NULL, log);
	bv_strv_free(&argv);
	if (status < 0)
		return status;
	if (status != 0) {
		char *tail = bv_file_tail(log, 1500);
		int rc = bv_fail(BV_ERUN, "measuring process %d exited with status %d; end of %s:\n%s", index + 1,
				 status, log, tail);
		free(tail);
		return rc;
	}
	return 0;
}

/* The runner's entry for label in one cell, or NULL. */
static const cJSON *cell_version(const cJSON *cell, const char *label)
{
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(cell, "versions");
	const cJSON *v;
	cJSON_ArrayForEach(v, arr)
	{
		const char *l = bv_json_str(v, "label");
		if (l && strcmp(l, label) == 0)
			return v;
	}
	return NULL;
}

static size_t samples_of(const cJSON *v, double *out, size_t max)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(v, "samples_ns");
	size_t n = 0;
	const cJSON *x;
	cJSON_ArrayForEach(x, s)
	{
		if (n < max && cJSON_IsNumber(x))
			out[n++] = x->valuedouble;
	}
	return n;
}

static void add_interval(cJSON *o, const char *prefix, const bv_interval *iv)
{
	char key[64];
	snprintf(key, sizeof(key), "%s", prefix);
	cJSON_AddNumberToObject(o, key, iv->est);
	snprintf(key, sizeof(key), "%s_ci_low", prefix);
	cJSON_AddNumberToObject(o, key, iv->lo);
	snprintf(key, sizeof(key), "%s_ci_high", prefix);
	cJSON_AddNumberToObject(o, key, iv->hi);
}

/* One version's entry for one cell, from all processes' documents. */
static cJSON *summarise_cell(cJSON **docs, int nproc, size_t ci, const char *label, const char *base,
			     int rounds)
{
	const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(docs[0], "cells"), (int)ci);
	cJSON *out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "bench", bv_json_str(first, "bench"));
	cJSON_AddStringToObject(out, "op", bv_json_str(first, "op"));
	cJSON_AddStringToObject(out, "backend", bv_json_str(first, "backend"));
	double size = 0, reps = 0;
	bv_json_num(first, "size", &size);
	bv_json_num(first, "reps", &reps);
	cJSON_AddNumberToObject(out, "size", size);
	cJSON_AddNumberToObject(out, "calls_per_sample", reps);

	/* A status other than ok in any process is the cell's status: a result
	 * that is wrong once is wrong. */
	const char *status = "ok", *reason = NULL;
	for (int p = 0; p < nproc; p++) {
		const cJSON *cell = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(docs[p], "cells"), (int)ci);
		const cJSON *v = cell_version(cell, label);
		const char *s = v ? bv_json_str(v, "status") : "failed";
		if (s && strcmp(s, "ok") != 0) {
			status = s;
			reason = v ? bv_json_str(v, "reason") : "missing from the runner's output";
			break;
		}
	}
	cJSON_AddStringToObject(out, "status", status);
	if (reason)
		cJSON_AddStringToObject(out, "reason", reason);
	if (strcmp(status, "ok") != 0)
		return out;

	double *meds = calloc((size_t)nproc, sizeof(double));
	double *ratios = calloc((size_t)nproc, sizeof(double));
	double *s = calloc((size_t)rounds, sizeof(double));
	double *b = calloc((size_t)rounds, sizeof(double));
	double *r = calloc((size_t)rounds, sizeof(double));
	cJSON *raw = cJSON_CreateArray();
	int paired = base != NULL;
	for (int p = 0; p < nproc; p++) {
		const cJSON *cell = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(docs[p], "cells"), (int)ci);
		size_t ns = samples_of(cell_version(cell, label), s, (size_t)rounds);
		meds[p] = ns ? bv_median(s, ns) : NAN;
		cJSON_AddItemToArray(raw, cJSON_CreateDoubleArray(s, (int)ns));
		if (paired) {
			const cJSON *bv = cell_version(cell, base);
			const char *bs = bv ? bv_json_str(bv, "status") : NULL;
			size_t nb = bs && strcmp(bs, "ok") == 0 ? samples_of(bv, b, (size_t)rounds) : 0;
			if (nb != ns || ns == 0) {
				paired = 0;
				continue;
			}
			for (size_t k = 0; k < ns; k++)
				r[k] = s[k] / b[k];
			ratios[p] = bv_median(r, ns);
		}
	}
	bv_interval iv;
	bv_median_interval(meds, (size_t)nproc, 0.95, &iv);
	add_interval(out, "median_ns", &iv);
	cJSON_AddItemToObject(out, "process_medians_ns", cJSON_CreateDoubleArray(meds, nproc));
	cJSON_AddItemToObject(out, "samples_ns", raw);
	if (paired) {
		bv_interval ri;
		bv_median_interval(ratios, (size_t)nproc, 0.95, &ri);
		cJSON *pb = cJSON_AddObjectToObject(out, "paired");
		cJSON_AddStringToObject(pb, "baseline", base);
		add_interval(pb, "ratio", &ri);
		cJSON_AddNumberToObject(pb, "coverage", ri.coverage);
		cJSON_AddItemToObject(pb, "process_ratios", cJSON_CreateDoubleArray(ratios, nproc));
	}
	free(meds), free(ratios), free(s), free(b), free(r);
	return out;
}

static void timestamp(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int bv_measure(bv_version *vs, size_t n, const bv_measure_opts *o, const char *results_dir, char ***logs)
{
	*logs = NULL;
	char *raw = bv_asprintf("%s/raw", results_dir);
	int rc = bv_mkdir_p(raw);
	size_t built = 0;
	for (size_t i = 0; i < n; i++)
		built += vs[i].plugin && !vs[i].build_error;
	cJSON **docs = calloc((size_t)o->processes, sizeof(cJSON *));
	int nproc = 0;
	for (int p = 0; rc == 0 && built > 0 && p < o->processes; p++) {
		fprintf(stderr, "measure: process %d/%d\n", p + 1, o->processes);
		char *out = bv_asprintf("%s/process-%d.json", raw, p + 1);
		char *log = bv_asprintf("%s/runner.log", raw);
		rc = run_process(vs, n, o, p, out, log);
		if (rc == 0)
			rc = bv_json_load(out, (size_t)1 << 30, &docs[nproc]);
		if (rc == 0) {
			const cJSON *cells = cJSON_GetObjectItemCaseSensitive(docs[nproc], "cells");
			const cJSON *c0 = nproc ? cJSON_GetObjectItemCaseSensitive(docs[0], "cells") : cells;
			if (!cJSON_IsArray(cells) || cJSON_GetArraySize(cells) != cJSON_GetArraySize(c0))
				rc = bv_fail(BV_ERUN, "%s: the runner's cells differ from process 1's", out);
			nproc++;
		}
		free(out);
		free(log);
	}

	/* Pairs are formed against the first version when it was measured. */
	const char *base = vs[0].plugin && !vs[0].build_error ? vs[0].label : NULL;
	char created[32];
	timestamp(created, sizeof(created));
	const char *slash = strrchr(results_dir, '/');
	const char *run_id = slash ? slash + 1 : results_dir;
	char **paths = calloc(n, sizeof(char *));
	for (size_t i = 0; rc == 0 && i < n; i++) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "schema", RESULTS_SCHEMA);
		cJSON_AddStringToObject(doc, "schema_version", RESULTS_SCHEMA_VERSION);
		cJSON *run = cJSON_AddObjectToObject(doc, "run");
		cJSON_AddStringToObject(run, "id", run_id);
		cJSON_AddStringToObject(run, "created", created);
		cJSON_AddStringToObject(run, "baseline", vs[0].label);
		cJSON *labels = cJSON_AddArrayToObject(run, "versions");
		for (size_t k = 0; k < n; k++)
			cJSON_AddItemToArray(labels, cJSON_CreateString(vs[k].label));
		cJSON_AddItemToObject(doc, "version", version_block(&vs[i]));
		cJSON_AddItemToObject(doc, "machine", bv_machine_info());
		cJSON *m = cJSON_AddObjectToObject(doc, "method");
		cJSON_AddStringToObject(m, "mode", "paired");
		cJSON_AddNumberToObject(m, "processes", nproc);
		cJSON_AddNumberToObject(m, "rounds", o->rounds);
		cJSON_AddNumberToObject(m, "sample_us", o->sample_us);
		cJSON_AddNumberToObject(m, "seed", (double)o->seed);
		cJSON_AddNumberToObject(m, "confidence", 0.95);
		cJSON_AddStringToObject(m, "interval", "order-statistic interval of the median over processes");
		cJSON_AddBoolToObject(m, "quick", o->quick);
		cJSON *cells = cJSON_AddArrayToObject(doc, "cells");
		int measured = vs[i].plugin && !vs[i].build_error && nproc > 0;
		int ncells = nproc ? cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(docs[0], "cells")) : 0;
		for (int c = 0; measured && c < ncells; c++)
			cJSON_AddItemToArray(cells, summarise_cell(docs, nproc, (size_t)c, vs[i].label,
								   i > 0 ? base : NULL, o->rounds));
		paths[i] = bv_asprintf("%s/%s.json", results_dir, vs[i].label);
		rc = bv_json_save(paths[i], doc);
		cJSON_Delete(doc);
	}
	for (int p = 0; p < nproc; p++)
		cJSON_Delete(docs[p]);
	free(docs);
	free(raw);
	if (rc) {
		for (size_t i = 0; i < n; i++)
			free(paths[i]);
		free(paths);
		return rc;
	}
	*logs = paths;
	return 0;
}
