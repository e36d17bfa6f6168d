/*
 * shard.c - the matrix cut into shards, and each shard's plan (shard.h).
 *
 * Why shards are cut this way:
 *
 * - Every version is in every shard.  A ratio is only as good as its
 *   pairing (docs/measurement.md: two byte-identical builds timed in
 *   different processes differ by up to 2x here), so a shard is a slice of
 *   the cells, never of the versions.
 * - The cut depends on the cells and the method alone: every node computes
 *   it for itself from the same command line, so no scheduler has to hand
 *   out cell lists, and a node with a GPU cuts the matrix as one without.
 *   Costs are whole milliseconds so that the sums, and the ties, are the same
 *   on every machine.
 * - Balanced by expected time, not by count: a 16M-element cell writes its
 *   inputs in every process and may not fit its processes into its budget,
 *   where a 1K one always does.
 */
#include "shard.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "hash.h"
#include "json.h"

int bv_shard_parse(const char *text, int *index, int *count)
{
	const char *want = "expected I/N, two whole numbers with 1 <= I <= N (e.g. 2/5)";
	char *shown = bv_escape(text ? text : "");
	int rc = 0;
	long v[2] = {0, 0};
	const char *p = text ? text : "";
	for (int k = 0; k < 2 && rc == 0; k++) {
		/* digits only: strtol would take a sign, spaces and 0x */
		if (*p < '0' || *p > '9') {
			rc = BV_EINPUT;
			break;
		}
		long x = 0;
		while (*p >= '0' && *p <= '9' && x <= BV_SHARDS_MAX)
			x = x * 10 + (*p++ - '0');
		if (*p >= '0' && *p <= '9') /* too many digits for any plan */
			x = BV_SHARDS_MAX + 1;
		while (*p >= '0' && *p <= '9')
			p++;
		v[k] = x;
		if (k == 0 && *p++ != '/')
			rc = BV_EINPUT;
	}
	if (rc == 0 && *p)
		rc = BV_EINPUT;
	if (rc)
		rc = bv_fail(BV_EINPUT, "--shard '%s': %s", shown, want);
	else if (v[1] < 1 || v[1] > BV_SHARDS_MAX)
		rc = bv_fail(BV_EINPUT, "--shard '%s': N must be 1 to %d", shown, BV_SHARDS_MAX);
	else if (v[0] < 1 || v[0] > v[1])
		rc = bv_fail(BV_EINPUT, "--shard '%s': I must be 1 to %ld (shards are numbered from 1)", shown, v[1]);
	free(shown);
	if (rc == 0)
		*index = (int)v[0], *count = (int)v[1];
	return rc;
}

/* Single-core rates low enough for every backend's worst case here: the
 * model is for sharing out time, and an overestimate of a long cell only
 * moves it to an emptier shard. */
#define MODEL_BYTES_PER_S 4e9
#define MODEL_FLOPS_PER_S 4e9
/* Writing a cell's inputs in each process (bv_cell_inputs), per byte. */
#define MODEL_FILL_BYTES_PER_S 2e9

double bv_cell_expected_s(const bv_cell *c, const bv_measure_opts *o)
{
	double bytes = bv_cell_bytes(c), flops = bv_cell_flops(c);
	double call_s = bytes / MODEL_BYTES_PER_S + flops / MODEL_FLOPS_PER_S;
	int minp = o->min_processes > 0 ? o->min_processes : 10;
	double budget = o->budget_s > 0 ? o->budget_s : 10;
	int rounds = o->rounds > 0 ? o->rounds : 21;
	/* measure.c gives a cell budget/(2 min) of each process (--cell-ms),
	 * or what `rounds` alternations of a pair of versions take when that
	 * is longer; the inputs are written on top. */
	double per_proc = fmax(0.5 * budget / minp, rounds * 2 * call_s) + bytes / MODEL_FILL_BYTES_PER_S;
	/* Stopping: at least min processes; at most the budget, but never
	 * fewer than 6 processes (measure.c's update_active).  Where a cell
	 * ends between the two is what the interval decides; the middle is
	 * the expectation the model takes. */
	double lo = minp * per_proc, hi = fmax(budget, 6 * per_proc);
	return lo >= hi ? lo : 0.5 * (lo + hi);
}

void bv_shard_partition(const long long *cost_ms, size_t n, int count, int *shard_of)
{
	if (count < 1)
		count = 1;
	size_t *order = bv_xcalloc(n + 1, sizeof(size_t));
	for (size_t k = 0; k < n; k++)
		order[k] = k;
	/* Longest first, the earlier cell first among equals: an insertion
	 * sort, stable and without qsort's unspecified order of ties (a full
	 * matrix is a few hundred cells). */
	for (size_t k = 1; k < n; k++) {
		size_t x = order[k], j = k;
		while (j > 0 && cost_ms[order[j - 1]] < cost_ms[x])
			order[j] = order[j - 1], j--;
		order[j] = x;
	}
	long long *load = bv_xcalloc((size_t)count, sizeof(long long));
	for (size_t k = 0; k < n; k++) {
		int best = 0;
		for (int s = 1; s < count; s++)
			if (load[s] < load[best])
				best = s;
		shard_of[order[k]] = best;
		load[best] += cost_ms[order[k]] > 0 ? cost_ms[order[k]] : 0;
	}
	free(load);
	free(order);
}

long bv_shard_plan(const bv_measure_opts *o, int count, bv_cell **cells_out, long long **cost_out, int **shard_out,
		   long long **total_out, char *err, size_t errlen)
{
	bv_measure_opts whole = *o;
	whole.shard_index = whole.shard_count = 0;
	bv_cell *cells = NULL;
	long n = bv_plan_cells(&whole, &cells, NULL, err, errlen);
	if (n < 0)
		return -1;
	if (count < 1)
		count = 1;
	long long *cost = bv_xcalloc((size_t)n + 1, sizeof(long long));
	int *shard = bv_xcalloc((size_t)n + 1, sizeof(int));
	long long *total = bv_xcalloc((size_t)count, sizeof(long long));
	for (long k = 0; k < n; k++)
		cost[k] = llround(1000.0 * bv_cell_expected_s(&cells[k], o));
	bv_shard_partition(cost, (size_t)n, count, shard);
	for (long k = 0; k < n; k++)
		total[shard[k]] += cost[k];
	if (cells_out)
		*cells_out = cells;
	else
		free(cells);
	if (cost_out)
		*cost_out = cost;
	else
		free(cost);
	if (shard_out)
		*shard_out = shard;
	else
		free(shard);
	if (total_out)
		*total_out = total;
	else
		free(total);
	return n;
}

/* ---- the plan ------------------------------------------------------------ */

/* The options that shape a number, as the plan records them; the seed, the
 * memory limit (80 % of each node's own memory by default) and --jobs do
 * not, and would make every node's plan differ. */
static cJSON *plan_method(const bv_measure_opts *o)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "mode", o->isolated ? "isolated" : "paired");
	cJSON_AddBoolToObject(m, "quick", o->quick);
	cJSON_AddNumberToObject(m, "min_processes", o->min_processes);
	cJSON_AddNumberToObject(m, "max_processes", o->max_processes);
	cJSON_AddNumberToObject(m, "budget_s", o->budget_s);
	cJSON_AddNumberToObject(m, "rounds", o->rounds);
	cJSON_AddNumberToObject(m, "sample_us", o->sample_us);
	cJSON_AddNumberToObject(m, "timeout_s", o->timeout_s);
	cJSON_AddNumberToObject(m, "threshold", o->threshold);
	cJSON_AddNumberToObject(m, "threads", o->threads);
	cJSON_AddNumberToObject(m, "layouts", o->layouts > 1 ? o->layouts : 1);
	if (o->simd_isa)
		cJSON_AddStringToObject(m, "simd_isa_forced", o->simd_isa);
	else
		cJSON_AddNullToObject(m, "simd_isa_forced");
	if (o->pin >= 0)
		cJSON_AddNumberToObject(m, "pinned_cpu", o->pin);
	else
		cJSON_AddNullToObject(m, "pinned_cpu");
	return m;
}

void bv_plan_id(const cJSON *plan, char out[17])
{
	/* The fields that define the plan, printed unformatted: cJSON prints
	 * numbers and escapes strings the same way every time. */
	static const char *const keys[] = {"count", "versions", "cells", "method", NULL};
	bv_buf b = BV_BUF_INIT;
	bv_buf_puts(&b, "bench-versions plan 1\n");
	for (int k = 0; keys[k]; k++) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(plan, keys[k]);
		char *text = f ? cJSON_PrintUnformatted(f) : NULL;
		bv_buf_printf(&b, "%s %s\n", keys[k], text ? text : "null");
		free(text);
	}
	char full[41];
	bv_hash_bytes(b.s, b.len, full);
	bv_buf_free(&b);
	memcpy(out, full, 16);
	out[16] = '\0';
}

int bv_plan_block(const bv_version *vs, size_t n, const bv_measure_opts *o, int index, int count, cJSON **out)
{
	*out = NULL;
	bv_measure_opts whole = *o;
	whole.shard_index = whole.shard_count = 0;
	bv_cell *cells = NULL;
	char err[256];
	long nc = bv_plan_cells(&whole, &cells, NULL, err, sizeof(err));
	if (nc < 0)
		return bv_fail(BV_EINPUT, "%s", err);
	cJSON *plan = cJSON_CreateObject();
	cJSON_AddStringToObject(plan, "id", "");
	if (index > 0)
		cJSON_AddNumberToObject(plan, "index", index);
	cJSON_AddNumberToObject(plan, "count", count);
	cJSON *va = cJSON_AddArrayToObject(plan, "versions");
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char key[41];
		rc = bv_build_key(&vs[i], key);
		cJSON *v = cJSON_CreateObject();
		cJSON_AddStringToObject(v, "label", vs[i].label);
		cJSON_AddStringToObject(v, "name", vs[i].name);
		cJSON_AddStringToObject(v, "build_key", rc == 0 ? key : "");
		cJSON_AddItemToArray(va, v);
	}
	cJSON *ca = cJSON_AddArrayToObject(plan, "cells");
	for (long k = 0; k < nc; k++) {
		char key[256], size[32];
		snprintf(key, sizeof(key), "%s/%s/%s/%s", cells[k].bench->name, cells[k].op->name, cells[k].backend,
			 bv_size_format(cells[k].size, size, sizeof(size)));
		cJSON_AddItemToArray(ca, cJSON_CreateString(key));
	}
	free(cells);
	cJSON_AddItemToObject(plan, "method", plan_method(o));
	if (rc) {
		cJSON_Delete(plan);
		return rc;
	}
	char id[17];
	bv_plan_id(plan, id);
	cJSON_ReplaceItemInObjectCaseSensitive(plan, "id", cJSON_CreateString(id));
	*out = plan;
	return 0;
}
