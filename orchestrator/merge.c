/*
 * merge.c - the merge stage: results logs into one comparison table.
 *
 * A row per bench/op/backend/size, a column per log in the order given; the
 * first log is the baseline.  A version measured in the same run as the
 * baseline carries its ratios (measure.c) and those are used; otherwise the
 * ratio of medians is shown, marked unpaired, with a deliberately wide
 * interval (the quotient of the two medians' intervals).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "json.h"
#include "stages.h"
#include "stats.h"

static int row_index(bv_table *t, const char *bench, const char *op, const char *backend, size_t size)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].size == size && !strcmp(t->rows[i].bench, bench) && !strcmp(t->rows[i].op, op) &&
		    !strcmp(t->rows[i].backend, backend))
			return (int)i;
	t->rows = bv_xrealloc(t->rows, (t->nrows + 1) * sizeof(bv_row));
	bv_row *r = &t->rows[t->nrows];
	memset(r, 0, sizeof(*r));
	r->bench = bv_strdup(bench), r->op = bv_strdup(op), r->backend = bv_strdup(backend);
	r->size = size;
	const bv_bench *b = bv_bench_find(bench);
	for (size_t k = 0; b && k < b->nops; k++)
		if (!strcmp(b->ops[k].name, op)) {
			bv_cell c = {b, &b->ops[k], backend, size};
			r->bytes = bv_cell_bytes(&c), r->flops = bv_cell_flops(&c);
		}
	r->results = calloc(t->nversions, sizeof(bv_result));
	r->changes = calloc(t->nversions, sizeof(bv_change));
	for (size_t v = 0; v < t->nversions; v++)
		r->results[v].status = "n/a";
	return (int)t->nrows++;
}

/* Canonical status strings, so exporters can compare pointers or strings. */
static const char *status_of(const char *s)
{
	static const char *const known[] = {"ok", "n/a", "skipped", "wrong result", "failed", "build failed",
					    "crashed", "timeout", NULL};
	for (int i = 0; s && known[i]; i++)
		if (!strcmp(s, known[i]))
			return known[i];
	return "failed";
}

static int load_log(const char *path, cJSON **doc)
{
	int rc = bv_json_load(path, (size_t)1 << 30, doc);
	if (rc)
		return rc;
	const char *schema = bv_json_str(*doc, "schema");
	const char *sv = bv_json_str(*doc, "schema_version");
	if (!schema || strcmp(schema, "bench-versions-results") != 0 || !sv)
		rc = bv_fail(BV_EINPUT, "%s: not a bench-versions results log (no \"schema\")", path);
	else if (atoi(sv) != 1)
		rc = bv_fail(BV_EINPUT, "%s: results schema %s is newer than this bench-versions reads (1.x)", path, sv);
	else if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(*doc, "cells")) ||
		 !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(*doc, "version")))
		rc = bv_fail(BV_EINPUT, "%s: missing \"version\" or \"cells\"", path);
	if (rc) {
		cJSON_Delete(*doc);
		*doc = NULL;
	}
	return rc;
}

int bv_merge_logs(char *const *paths, size_t n, double threshold, bv_table *t)
{
	memset(t, 0, sizeof(*t));
	t->nversions = n;
	t->threshold = threshold;
	t->labels = calloc(n, sizeof(char *));
	t->descriptions = calloc(n, sizeof(char *));
	cJSON **docs = calloc(n, sizeof(cJSON *));
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = load_log(paths[i], &docs[i]);
	for (size_t i = 0; i < n && rc == 0; i++) {
		const cJSON *ver = cJSON_GetObjectItemCaseSensitive(docs[i], "version");
		const char *label = bv_json_str(ver, "label");
		const char *kv = bv_json_str(ver, "kernel_version");
		const char *rule = bv_json_str(ver, "rule");
		const char *summary = bv_json_str(ver, "summary");
		t->labels[i] = bv_strdup(label ? label : "?");
		t->descriptions[i] = bv_asprintf("%s: %s, kernels %s (%s)", t->labels[i], summary ? summary : "",
						 kv ? kv : "?", rule ? rule : "?");
		const cJSON *cell;
		cJSON_ArrayForEach(cell, cJSON_GetObjectItemCaseSensitive(docs[i], "cells"))
		{
			const char *bench = bv_json_str(cell, "bench"), *op = bv_json_str(cell, "op"),
				   *backend = bv_json_str(cell, "backend");
			double size;
			if (!bench || !op || !backend || bv_json_num(cell, "size", &size) || size < 0) {
				rc = bv_fail(BV_EINPUT, "%s: a cell lacks bench, op, backend or size", paths[i]);
				break;
			}
			int idx = row_index(t, bench, op, backend, (size_t)size); /* may move t->rows */
			bv_row *r = &t->rows[idx];
			bv_result *res = &r->results[i];
			res->status = status_of(bv_json_str(cell, "status"));
			const char *reason = bv_json_str(cell, "reason");
			if (reason)
				res->reason = bv_strdup(reason);
			const cJSON *fp = cJSON_GetObjectItemCaseSensitive(cell, "footprint");
			bv_json_num(fp, "host_bytes", &res->host_bytes);
			bv_json_num(fp, "device_bytes", &res->device_bytes);
			bv_json_num(cell, "gbps", &res->gbps);
			bv_json_num(cell, "gflops", &res->gflops);
			bv_json_num(cell, "pct_copy_bandwidth", &res->pct_copy_bw);
			bv_json_num(cell, "pct_peak_flops", &res->pct_peak_flops);
			double np = 0;
			if (!bv_json_num(cell, "processes", &np))
				res->processes = (int)np;
			if (res->status == status_of("ok") &&
			    (bv_json_num(cell, "median_ns", &res->median_ns) ||
			     bv_json_num(cell, "median_ns_ci_low", &res->ci_low_ns) ||
			     bv_json_num(cell, "median_ns_ci_high", &res->ci_high_ns))) {
				rc = bv_fail(BV_EINPUT, "%s: an ok cell (%s/%s) lacks median_ns", paths[i], bench, op);
				break;
			}
			/* "change" since schema 1.1; 1.0 logs called it "paired". */
			const cJSON *pb = cJSON_GetObjectItemCaseSensitive(cell, "change");
			if (!pb)
				pb = cJSON_GetObjectItemCaseSensitive(cell, "paired");
			const char *pbase = bv_json_str(pb, "baseline");
			const char *mode = bv_json_str(pb, "mode");
			bv_change *ch = &r->changes[i];
			if (i > 0 && pbase && !strcmp(pbase, t->labels[0])) {
				bv_interval iv = {0};
				iv.n = 1;
				if (!bv_json_num(pb, "ratio", &iv.est) && !bv_json_num(pb, "ratio_ci_low", &iv.lo) &&
				    !bv_json_num(pb, "ratio_ci_high", &iv.hi) && !bv_json_num(pb, "coverage", &iv.coverage)) {
					ch->valid = 1;
					ch->mode = mode && !strcmp(mode, "isolated") ? "isolated" : "paired";
					ch->paired = ch->mode[0] == 'p';
					ch->ratio = iv.est, ch->ci_low = iv.lo, ch->ci_high = iv.hi;
					ch->coverage = iv.coverage;
					ch->verdict = bv_verdict_name(bv_verdict_of(&iv, threshold));
					ch->noisy = bv_interval_noisy(&iv, threshold);
					if (!bv_json_num(pb, "processes", &np))
						ch->processes = (int)np;
				}
			}
		}
	}
	/* A build that failed has no cells; mark it in every row, whatever order. */
	for (size_t i = 0; i < n && rc == 0; i++) {
		const cJSON *build = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(docs[i], "version"), "build");
		const char *bstatus = bv_json_str(build, "status");
		if (bstatus && !strcmp(bstatus, "failed"))
			for (size_t k = 0; k < t->nrows; k++)
				t->rows[k].results[i].status = status_of("build failed");
	}
	/* Unpaired fallback: versions from different runs. */
	for (size_t k = 0; k < t->nrows && rc == 0; k++) {
		bv_row *r = &t->rows[k];
		for (size_t i = 1; i < n; i++) {
			bv_result *a = &r->results[0], *b = &r->results[i];
			if (r->changes[i].valid || strcmp(a->status, "ok") || strcmp(b->status, "ok") || a->median_ns <= 0)
				continue;
			bv_change *ch = &r->changes[i];
			ch->valid = 1;
			ch->ratio = b->median_ns / a->median_ns;
			ch->ci_low = a->ci_high_ns > 0 ? b->ci_low_ns / a->ci_high_ns : 0;
			ch->ci_high = a->ci_low_ns > 0 ? b->ci_high_ns / a->ci_low_ns : INFINITY;
			ch->coverage = 0.95;
			bv_interval iv = {ch->ratio, ch->ci_low, ch->ci_high, 0.95, 1};
			ch->verdict = bv_verdict_name(bv_verdict_of(&iv, threshold));
			ch->noisy = bv_interval_noisy(&iv, threshold);
			ch->mode = "unpaired";
		}
	}
	if (rc == 0 && n > 0) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(docs[0], "method");
		double minp = 0, maxp = 0, rounds = 0, sample = 0, budget = 0;
		bv_json_num(m, "min_processes", &minp);
		bv_json_num(m, "max_processes", &maxp);
		if (!bv_json_num(m, "processes", &minp)) /* schema 1.0 */
			maxp = minp;
		bv_json_num(m, "rounds", &rounds);
		bv_json_num(m, "sample_us", &sample);
		bv_json_num(m, "budget_s", &budget);
		const char *mode = bv_json_str(m, "mode");
		int isolated = mode && !strcmp(mode, "isolated");
		bv_buf b = BV_BUF_INIT;
		bv_buf_printf(&b, "%s: ", mode ? mode : "?");
		if (minp == maxp)
			bv_buf_printf(&b, "%g processes", minp);
		else
			bv_buf_printf(&b, "%g-%g processes per cell (stops when the interval decides, or at %g s)", minp,
				      maxp, budget);
		bv_buf_printf(&b, " x %g rounds of %g us samples; ", rounds, sample);
		if (isolated)
			bv_buf_puts(&b, "one process per version, in random order; ratio = median over rounds of the "
					"ratio of the processes' medians; ");
		else
			bv_buf_puts(&b, "versions alternated in random order in each process; ratio = median over "
					"processes of each process's median pair ratio; ");
		bv_buf_printf(&b, "95%% order-statistic interval; threshold %.1f%%", threshold * 100);
		t->method = bv_buf_detach(&b);
	}
	for (size_t i = 0; i < n; i++)
		cJSON_Delete(docs[i]);
	free(docs);
	if (rc)
		bv_table_free(t);
	return rc;
}

void bv_table_free(bv_table *t)
{
	for (size_t k = 0; k < t->nrows; k++) {
		bv_row *r = &t->rows[k];
		for (size_t i = 0; i < t->nversions; i++)
			free(r->results[i].reason);
		free(r->results), free(r->changes);
		free(r->bench), free(r->op), free(r->backend);
	}
	for (size_t i = 0; i < t->nversions; i++) {
		if (t->labels)
			free(t->labels[i]);
		if (t->descriptions)
			free(t->descriptions[i]);
	}
	free(t->labels), free(t->descriptions), free(t->rows), free(t->method);
	memset(t, 0, sizeof(*t));
}
