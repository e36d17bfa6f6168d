/*
 * plan.c - the cells a run measures (plan.h): the registry's cells its
 * lists select, narrowed by --filter, then cut to its shard by a model of
 * each cell's measuring time; and the check that the selection names any.
 * And what every plan holds (bv_plan, planner.c builds it): freed here, and
 * its method block, the one writer of "method" for plans and logs alike.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "benches.h"
#include "common.h"
#include "plan.h"
#include "table.h"

long bv_plan_cells(const bv_measure_opts *o, bv_cell **out, long **pos, char *err, size_t errlen)
{
	bv_cell *all = NULL;
	*out = NULL;
	if (pos)
		*pos = NULL;
	long n = bv_cells_select(&(bv_selection){o->benches, o->ops, o->backends, o->sizes}, &all, err, errlen);
	if (n < 0)
		return -1;
	regex_t re;
	if (o->filter && bv_filter_compile(o->filter, &re)) {
		snprintf(err, errlen, "%s", bv_error_last());
		free(all);
		return -1;
	}
	long *where = bv_xcalloc((size_t)n + 1, sizeof(long)), kept = 0;
	for (long k = 0; k < n; k++) {
		char key[256], size[32];
		snprintf(key, sizeof(key), "%s/%s/%s/%s", all[k].bench->name, all[k].op->name, all[k].backend,
			 bv_size_format(all[k].size, size, sizeof(size)));
		/* The same key --filter matches in a table (bv_row_key), so a
		 * filter selects here what it would show there. */
		if (o->filter && regexec(&re, key, 0, NULL, 0) != 0)
			continue;
		all[kept] = all[k];
		where[kept++] = k;
	}
	if (o->filter)
		regfree(&re);
	/* --shard I/N: the cells the cut below gives shard I, in plan order.
	 * The cut is made over every planned cell (the filter's, not the
	 * shard's), so every shard of one command line agrees on it. */
	if (o->shard_count > 0 && kept > 0) {
		long long *cost, *total;
		int *shard;
		bv_shard_cut(all, kept, o, o->shard_count, &cost, &shard, &total);
		long mine = 0;
		for (long k = 0; k < kept; k++)
			if (shard[k] == o->shard_index - 1) {
				all[mine] = all[k];
				where[mine++] = where[k];
			}
		kept = mine;
		free(cost), free(shard), free(total);
	}
	*out = all;
	if (pos)
		*pos = where;
	else
		free(where);
	return kept;
}


int bv_selection_check(bv_measure_opts *mo, long *ncells)
{
	bv_cell *cells;
	char err[256];
	/* The checks below are about the matrix the options select; a shard of
	 * it may be empty (more shards than cells), which is not an error: its
	 * run says so and its logs complete the plan for the join. */
	bv_measure_opts whole = *mo;
	whole.shard_index = whole.shard_count = 0;
	long n = bv_plan_cells(&whole, &cells, NULL, err, sizeof(err));
	if (n < 0)
		return bv_fail(BV_EINPUT, "%s", err);
	/* Sizes that fit none of the selected ops (1K for matmul, which takes
	 * M x N x K and M x N shapes): the sizes they do take. */
	if (n == 0 && mo->sizes) {
		bv_selection sel = {mo->benches, mo->ops, mo->backends, mo->sizes};
		bv_cell *unfiltered = NULL;
		char hint[1024];
		long m = bv_cells_select(&sel, &unfiltered, err, sizeof(err));
		free(unfiltered);
		bv_sizes_hint(&sel, hint, sizeof(hint));
		if (m == 0 && *hint) {
			free(cells);
			return bv_fail(BV_EINPUT,
				       "--sizes '%s' fits none of the selected ops; their sizes: %s (others of the "
				       "same dimensions work too; see: bench-versions list benches)",
				       mo->sizes, hint);
		}
	}
	/* Said now, not after the builds: a filter that selects nothing would
	 * otherwise build every version to measure no cell. */
	if (n == 0 && mo->filter) {
		free(cells);
		return bv_fail(BV_EINPUT,
			       "--filter '%s' matches no cell of the selected matrix (keys are bench/op/backend/size, "
			       "size as 64K; see: bench-versions list benches)",
			       mo->filter);
	}
	if (n == 0) {
		free(cells);
		return bv_fail(BV_EINPUT, "the filters select no benchmark");
	}
	/* --vs NAME=VALUE: a parameter no selected op has, or a reference
	 * value none has, would only be found after every build and
	 * measurement. */
	int vrc = bv_vs_check_cells(mo->vs, cells, n);
	free(cells);
	if (vrc)
		return vrc;
	if (mo->shard_count > 0) {
		n = bv_plan_cells(mo, &cells, NULL, err, sizeof(err));
		free(cells);
		if (n < 0)
			return bv_fail(BV_EINPUT, "%s", err);
	}
	if (ncells)
		*ncells = n;
	return 0;
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
	/* One process's share of the cell (measure.c's --cell-ms): its rounds
	 * of a pair of versions, cut to fit that share but never below 5
	 * (trust.c's bv_rounds_fit); before them the inputs are written and
	 * a pair of calls times the calls per sample. */
	double share = 0.5 * budget / minp, round_s = 2 * call_s;
	double timing = rounds * round_s <= share ? fmax(share, rounds * round_s) : fmax(share, 5 * round_s);
	double per_proc = timing + bytes / MODEL_FILL_BYTES_PER_S + round_s;
	/* Stopping (measure.c's update_active): past its budget a cell stops
	 * once it has 6 processes, --min-processes or not; within it, it
	 * stops when its interval decides, at min processes at the soonest.
	 * The expectation is the middle of the soonest and the latest. */
	double n_lo = minp * per_proc <= budget ? minp : fmax(6, ceil(budget / per_proc));
	double lo = n_lo * per_proc, hi = fmax(budget, 6 * per_proc);
	/* The check against the double reference, once per cell: each
	 * version's call and the reference, about as long again. */
	double check = 4 * call_s;
	return (lo >= hi ? lo : 0.5 * (lo + hi)) + check;
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

void bv_shard_cut(const bv_cell *cells, long n, const bv_measure_opts *o, int count, long long **cost_ms,
		  int **shard_of, long long **shard_ms)
{
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
	*cost_ms = cost, *shard_of = shard, *shard_ms = total;
}

void bv_plan_free(bv_plan *p)
{
	free(p->all), free(p->all_pos), free(p->cost_ms), free(p->shard_ms), free(p->shard_of);
	free(p->cells), free(p->pos);
	cJSON_Delete(p->block);
	memset(p, 0, sizeof(*p));
}

cJSON *bv_method_block(const bv_measure_opts *o, int log, int processes_started)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "mode", o->isolated ? "isolated" : "paired");
	if (!log)
		cJSON_AddBoolToObject(m, "quick", o->quick);
	cJSON_AddNumberToObject(m, "min_processes", o->min_processes);
	cJSON_AddNumberToObject(m, "max_processes", o->max_processes);
	if (log)
		cJSON_AddNumberToObject(m, "processes_started", processes_started);
	cJSON_AddNumberToObject(m, "budget_s", o->budget_s);
	cJSON_AddNumberToObject(m, "rounds", o->rounds);
	cJSON_AddNumberToObject(m, "sample_us", o->sample_us);
	cJSON_AddNumberToObject(m, "timeout_s", o->timeout_s);
	cJSON_AddNumberToObject(m, "threshold", o->threshold);
	if (log)
		cJSON_AddNumberToObject(m, "seed", (double)o->seed);
	cJSON_AddNumberToObject(m, "threads", o->threads);
	cJSON_AddNumberToObject(m, "inputs", o->inputs > 1 ? o->inputs : 1);
	if (!log)
		cJSON_AddNumberToObject(m, "layouts", o->layouts > 1 ? o->layouts : 1);
	if (o->simd_isa)
		cJSON_AddStringToObject(m, "simd_isa_forced", o->simd_isa);
	else
		cJSON_AddNullToObject(m, "simd_isa_forced");
	if (o->pin >= 0)
		cJSON_AddNumberToObject(m, "pinned_cpu", o->pin);
	else
		cJSON_AddNullToObject(m, "pinned_cpu");
	if (!log)
		return m;
	cJSON_AddNumberToObject(m, "confidence", 0.95);
	cJSON_AddStringToObject(m, "interval", "order-statistic interval of the median over processes");
	cJSON_AddBoolToObject(m, "quick", o->quick);
	cJSON_AddNumberToObject(m, "layouts", o->layouts > 1 ? o->layouts : 1);
	if (o->memory_limit)
		cJSON_AddNumberToObject(m, "memory_limit_bytes", (double)o->memory_limit);
	else
		cJSON_AddNullToObject(m, "memory_limit_bytes");
	return m;
}
