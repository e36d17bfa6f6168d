/*
 * measure_log.c - the session written as one log per version
 * (docs/results-format.md): the run, the version and its build, the
 * machine, the method, the shard's plan, and each cell's estimates with
 * their intervals, processes, layouts and the machine's state.
 *
 * Apart from the measuring because the logs are the stage's one output:
 * what is in them, and in which order, is read by every later command.
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "benches.h"
#include "build.h"
#include "child.h"
#include "common.h"
#include "env.h"
#include "fs.h"
#include "json.h"
#include "machine.h"
#include "measure_log.h"
#include "measure_process.h"
#include "measure_session.h"
#include "measure_stop.h"
#include "ops_file.h"
#include "plan.h"
#include "proc.h"
#include "progress.h"
#include "resolve.h"
#include "results.h"
#include "shard.h"
#include "stats.h"
#include "status.h"
#include "suite.h"
#include "table.h"
#include "trust.h"
#include "verdict.h"

static cJSON *version_block(const bv_version *v, const char *simd_isa)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "label", v->label);
	cJSON_AddStringToObject(o, "name", v->name);
	cJSON_AddStringToObject(o, "kind", v->kind == BV_VERSION_LOCAL	  ? "local"
					   : v->kind == BV_VERSION_RELEASE ? "release"
									   : "git");
	cJSON_AddStringToObject(o, "rule", v->rule);
	if (v->kind == BV_VERSION_GIT)
		cJSON_AddStringToObject(o, "commit", v->commit);
	else
		cJSON_AddNullToObject(o, "commit");
	cJSON_AddStringToObject(o, "tree", v->tree);
	cJSON_AddStringToObject(o, "summary", v->summary ? v->summary : "");
	cJSON_AddStringToObject(o, "kernel_version", v->kernel_version);
	if (simd_isa)
		cJSON_AddStringToObject(o, "simd_isa", simd_isa);
	else
		cJSON_AddNullToObject(o, "simd_isa");
	cJSON *shims = cJSON_AddArrayToObject(o, "compat");
	for (size_t i = 0; i < v->shims.nrules; i++)
		cJSON_AddItemToArray(shims, cJSON_CreateString(v->shims.rules[i]));
	cJSON *b = cJSON_AddObjectToObject(o, "build");
	cJSON_AddStringToObject(b, "status", bv_status_name(v->build_error ? BV_ST_FAILED : BV_ST_OK));
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

/* ---- the logs --------------------------------------------------------- */

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

static const bv_cell *find_cell(const bv_cell *all, long n, long index)
{
	return index >= 0 && index < n ? &all[index] : NULL;
}

/* The layout part of a change block: each process's pair of layouts
 * (baseline, this version), aligned with process_ratios, and the spread of
 * the ratio across layouts: the medians of the processes grouped by this
 * version's layout and by the baseline's (groups of two or more), lowest and
 * highest.  A change inside that spread is what placement alone does. */
static void add_layouts(cJSON *ch, const cstate *c, size_t i, int layouts)
{
	const vstate *v = &c->v[i], *b = &c->v[0];
	cJSON_AddNumberToObject(ch, "layouts", layouts);
	cJSON *pl = cJSON_AddArrayToObject(ch, "process_layouts");
	double *g = bv_xcalloc((size_t)c->ntrials + 1, sizeof(double));
	double lo = INFINITY, hi = -INFINITY;
	for (int t = 0; t < c->ntrials; t++)
		if (isfinite(v->ratio[t])) {
			int pair[2] = {b->layout[t], v->layout[t]};
			cJSON_AddItemToArray(pl, cJSON_CreateIntArray(pair, 2));
		}
	for (int side = 0; side < 2; side++)
		for (int k = 0; k < layouts; k++) {
			size_t n = 0;
			for (int t = 0; t < c->ntrials; t++)
				if (isfinite(v->ratio[t]) && (side ? v : b)->layout[t] == k)
					g[n++] = v->ratio[t];
			if (n < 2)
				continue;
			double m = bv_median(g, n);
			lo = fmin(lo, m), hi = fmax(hi, m);
		}
	if (lo <= hi) {
		double spread[2] = {lo, hi};
		cJSON_AddItemToObject(ch, "layout_spread", cJSON_CreateDoubleArray(spread, 2));
	}
	free(g);
}

/* One version's entry for one cell. */
static cJSON *summarise_cell(session *s, const cstate *c, const bv_cell *def, size_t i, const cJSON *calib)
{
	if (c->prior && c->prior[i])
		return cJSON_Duplicate(c->prior[i], 1);
	const vstate *v = &c->v[i];
	cJSON *out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "bench", c->bench);
	cJSON_AddStringToObject(out, "op", c->op);
	cJSON_AddStringToObject(out, "backend", c->backend);
	cJSON_AddNumberToObject(out, "size", (double)c->size);
	char shape[32];
	cJSON_AddStringToObject(out, "shape", bv_size_format(c->size, shape, sizeof(shape)));
	double bytes = def ? bv_cell_bytes(def) : 0, flops = def ? bv_cell_flops(def) : 0;
	/* a cell the op's definition gives no work (a suite's) has its setup's */
	if (!(bytes > 0) && !(flops > 0))
		bytes = v->work[0], flops = v->work[1];
	cJSON *work = cJSON_AddObjectToObject(out, "work");
	cJSON_AddNumberToObject(work, "bytes", bytes);
	cJSON_AddNumberToObject(work, "flops", flops);
	if (v->work[2] > 0)
		cJSON_AddNumberToObject(work, "items", v->work[2]);
	cJSON *mem = cJSON_AddObjectToObject(out, "footprint");
	cJSON_AddNumberToObject(mem, "host_bytes", v->host_bytes);
	cJSON_AddNumberToObject(mem, "device_bytes", v->device_bytes);
	if (isnan(v->lib_host))
		cJSON_AddNullToObject(mem, "library_host_bytes");
	else
		cJSON_AddNumberToObject(mem, "library_host_bytes", v->lib_host);
	if (isnan(v->lib_device))
		cJSON_AddNullToObject(mem, "library_device_bytes");
	else
		cJSON_AddNumberToObject(mem, "library_device_bytes", v->lib_device);

	if (c->active) {
		cJSON_AddStringToObject(out, "status", bv_status_name(BV_ST_UNFINISHED));
		cJSON_AddStringToObject(out, "reason", "the run stopped before this cell was finished");
		return out;
	}
	size_t nt = (size_t)c->ntrials;
	double *meds = bv_xcalloc(nt + 1, sizeof(double));
	size_t nm = bv_ms_finite_of(v->med, c->ntrials, meds);
	bv_status status = v->status ? v->status : nm ? BV_ST_OK : BV_ST_FAILED;
	cJSON_AddStringToObject(out, "status", bv_status_name(status));
	if (v->reason)
		cJSON_AddStringToObject(out, "reason", v->reason);
	else if (!v->status && !nm)
		cJSON_AddStringToObject(out, "reason", "no samples");
	if (status != BV_ST_OK) {
		free(meds);
		return out;
	}
	size_t total = 0;
	cJSON *raw = cJSON_CreateArray();
	for (size_t t = 0; t < nt; t++) {
		total += v->nsamples[t];
		if (v->nsamples[t])
			cJSON_AddItemToArray(raw, cJSON_CreateDoubleArray(v->samples[t], (int)v->nsamples[t]));
	}
	cJSON_AddNumberToObject(out, "calls_per_sample", c->reps);
	if (c->input_sets > 1) /* --inputs: the sets this cell's calls cycled through */
		cJSON_AddNumberToObject(out, "input_sets", c->input_sets);
	cJSON_AddNumberToObject(out, "processes", (double)nm);
	cJSON_AddNumberToObject(out, "samples", (double)total);
	cJSON_AddNumberToObject(out, "measure_s", c->elapsed_s);
	if (c->stopped) {
		cJSON *st = cJSON_AddObjectToObject(out, "stopped");
		cJSON_AddStringToObject(st, "by", c->stopped);
		if (!strcmp(c->stopped, "budget"))
			cJSON_AddNumberToObject(st, "budget_s", c->stop_budget_s);
	}
	bv_interval iv;
	bv_median_interval(meds, nm, 0.95, &iv);
	add_interval(out, "median_ns", &iv);
	if (iv.est > 0) {
		double gbps = bytes / iv.est, gflops = flops / iv.est, peak;
		cJSON_AddNumberToObject(out, "gbps", gbps);
		cJSON_AddNumberToObject(out, "gflops", gflops);
		if (!bv_json_num(calib, "copy_gbps", &peak) && peak > 0)
			cJSON_AddNumberToObject(out, "pct_copy_bandwidth", 100 * gbps / peak);
		if (!bv_json_num(calib, "peak_gflops", &peak) && peak > 0)
			cJSON_AddNumberToObject(out, "pct_peak_flops", 100 * gflops / peak);
	}
	cJSON_AddItemToObject(out, "process_medians_ns", cJSON_CreateDoubleArray(meds, (int)nm));
	/* Which process each of those medians came from, so that two cells of
	 * one version are paired by process (the backend view, backends.c). */
	cJSON *ids = cJSON_CreateArray();
	for (size_t t = 0; t < nt; t++)
		if (isfinite(v->med[t]))
			cJSON_AddItemToArray(ids, cJSON_CreateNumber(v->proc[t]));
	cJSON_AddItemToObject(out, "process_ids", ids);
	cJSON_AddItemToObject(out, "samples_ns", raw);
	cJSON *pre = cJSON_AddObjectToObject(out, "preempted");
	cJSON_AddNumberToObject(pre, "retaken", v->retaken);
	cJSON_AddNumberToObject(pre, "kept", v->kept);
	free(meds);

	const vstate *b = &c->v[0];
	double *r = bv_xcalloc(nt + 1, sizeof(double));
	size_t nr = i > 0 && !b->status ? bv_ms_finite_of(v->ratio, c->ntrials, r) : 0;
	if (nr > 0) {
		bv_interval ri;
		bv_median_interval(r, nr, 0.95, &ri);
		cJSON *ch = cJSON_AddObjectToObject(out, "change");
		cJSON_AddStringToObject(ch, "baseline", s->vs[0].label);
		cJSON_AddStringToObject(ch, "mode", s->o->isolated ? "isolated" : "paired");
		add_interval(ch, "ratio", &ri);
		cJSON_AddNumberToObject(ch, "coverage", ri.coverage);
		cJSON_AddNumberToObject(ch, "processes", (double)nr);
		cJSON_AddItemToObject(ch, "process_ratios", cJSON_CreateDoubleArray(r, (int)nr));
		if (s->o->layouts > 1)
			add_layouts(ch, c, i, s->o->layouts);
		/* One-to-one with process_ratios: the same trials, in order. */
		cJSON *states = cJSON_AddArrayToObject(ch, "process_state");
		for (size_t t = 0; t < nt; t++)
			if (isfinite(v->ratio[t]))
				cJSON_AddItemToArray(states, bv_ms_state_json(&v->state[t]));
	}
	free(r);
	return out;
}

void bv_ms_timestamp(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}


/* Every version's log as the run stands; status: running, complete,
 * interrupted or failed. */
int bv_ms_write_logs(session *s, const char *status, char **paths)
{
	const char *slash = strrchr(s->dir, '/');
	const char *run_id = slash ? slash + 1 : s->dir;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < s->n; i++) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "schema", BV_RESULTS_SCHEMA);
		cJSON_AddStringToObject(doc, "schema_version", BV_RESULTS_VERSION);
		cJSON *run = cJSON_AddObjectToObject(doc, "run");
		cJSON_AddStringToObject(run, "id", run_id);
		cJSON_AddStringToObject(run, "created", s->created);
		cJSON_AddStringToObject(run, "status", status);
		cJSON_AddItemToObject(run, "resumed", cJSON_Duplicate(s->resumed, 1));
		cJSON_AddStringToObject(run, "baseline", s->vs[0].label);
		cJSON_AddStringToObject(run, "tool", bv_tool_version());
		cJSON *labels = cJSON_AddArrayToObject(run, "versions");
		for (size_t k = 0; k < s->n; k++)
			cJSON_AddItemToArray(labels, cJSON_CreateString(s->vs[k].label));
		cJSON_AddItemToObject(doc, "version", version_block(&s->vs[i], s->simd_isa[i]));
		cJSON_AddItemToObject(doc, "machine", cJSON_Duplicate(s->machine, 1));
		cJSON_AddItemToObject(doc, "method", bv_method_block(s->o, 1, s->processes));
		if (s->plan)
			cJSON_AddItemToObject(doc, "shard", cJSON_Duplicate(s->plan, 1));
		cJSON *cells = cJSON_AddArrayToObject(doc, "cells");
		for (size_t c = 0; bv_ms_measurable(&s->vs[i]) && c < s->ncells; c++)
			cJSON_AddItemToArray(cells, summarise_cell(s, &s->cells[c],
								   find_cell(s->defs, s->ndefs, (long)c), i,
								   s->calib));
		char *path = bv_ms_log_path(s->dir, &s->vs[i]);
		rc = bv_json_save(path, doc);
		cJSON_Delete(doc);
		if (paths) {
			free(paths[i]);
			paths[i] = path;
		} else
			free(path);
	}
	return rc;
}
