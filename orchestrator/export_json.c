/*
 * export_json.c - the comparison as JSON for machines (docs/results-format.md,
 * "comparison"): rows[].bench/op/backend/size, rows[].results[] per version,
 * rows[].changes[] per non-baseline version.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "stages.h"

int bv_export_json(const bv_table *t, FILE *out)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", "bench-versions-comparison");
	/* 1.1: verdict "inconclusive", ci_low/ci_high null without an interval */
	cJSON_AddStringToObject(doc, "schema_version", "1.1");
	cJSON_AddStringToObject(doc, "baseline", t->nversions ? t->labels[0] : "");
	cJSON_AddNumberToObject(doc, "threshold", t->threshold);
	if (t->method)
		cJSON_AddStringToObject(doc, "method", t->method);
	if (t->control) {
		cJSON *ec = cJSON_AddObjectToObject(doc, "error_control");
		cJSON_AddStringToObject(ec, "method", "benjamini-hochberg");
		cJSON_AddStringToObject(ec, "test", "anytime-valid sign test of the per-process ratios against the threshold band");
		cJSON_AddNumberToObject(ec, "false_discovery_rate", t->fdr);
		cJSON_AddNumberToObject(ec, "comparisons", (double)t->tested);
		cJSON_AddNumberToObject(ec, "changes_called", (double)t->called);
		cJSON_AddNumberToObject(ec, "inconclusive", (double)t->inconclusive);
		cJSON_AddNumberToObject(ec, "between_runs", (double)t->between_runs);
		cJSON_AddNumberToObject(ec, "expected_false_at_most", t->fdr * (double)t->called);
		cJSON_AddStringToObject(ec, "summary", t->control);
	}
	cJSON *notes = cJSON_AddArrayToObject(doc, "notes");
	for (size_t i = 0; i < t->nnotes; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(t->notes[i]));
	cJSON *vers = cJSON_AddArrayToObject(doc, "versions");
	for (size_t i = 0; i < t->nversions; i++) {
		cJSON *v = cJSON_CreateObject();
		cJSON_AddStringToObject(v, "label", t->labels[i]);
		cJSON_AddStringToObject(v, "description", t->descriptions[i]);
		cJSON_AddItemToArray(vers, v);
	}
	cJSON *rows = cJSON_AddArrayToObject(doc, "rows");
	for (size_t k = 0; k < t->nrows; k++) {
		const bv_row *r = &t->rows[k];
		if (r->hidden)
			continue;
		cJSON *row = cJSON_CreateObject();
		cJSON_AddStringToObject(row, "bench", r->bench);
		cJSON_AddStringToObject(row, "op", r->op);
		cJSON_AddStringToObject(row, "backend", r->backend);
		cJSON_AddNumberToObject(row, "size", (double)r->size);
		char shape[32];
		cJSON_AddStringToObject(row, "shape", bv_size_format(r->size, shape, sizeof(shape)));
		cJSON *results = cJSON_AddArrayToObject(row, "results");
		for (size_t i = 0; i < t->nversions; i++) {
			const bv_result *res = &r->results[i];
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "version", t->labels[i]);
			cJSON_AddStringToObject(o, "status", res->status);
			if (res->reason)
				cJSON_AddStringToObject(o, "reason", res->reason);
			if (res->median_ns > 0) {
				cJSON_AddNumberToObject(o, "median_ns", res->median_ns);
				cJSON_AddNumberToObject(o, "ci_low_ns", res->ci_low_ns);
				cJSON_AddNumberToObject(o, "ci_high_ns", res->ci_high_ns);
				if (r->bytes > 0)
					cJSON_AddNumberToObject(o, "gb_per_s", r->bytes / res->median_ns);
				if (r->flops > 0)
					cJSON_AddNumberToObject(o, "gflop_per_s", r->flops / res->median_ns);
				if (res->pct_copy_bw > 0)
					cJSON_AddNumberToObject(o, "pct_copy_bandwidth", res->pct_copy_bw);
				if (res->pct_peak_flops > 0)
					cJSON_AddNumberToObject(o, "pct_peak_flops", res->pct_peak_flops);
				cJSON_AddNumberToObject(o, "processes", res->processes);
				cJSON_AddNumberToObject(o, "host_bytes", res->host_bytes);
				cJSON_AddNumberToObject(o, "device_bytes", res->device_bytes);
			} else
				cJSON_AddNullToObject(o, "median_ns");
			cJSON_AddItemToArray(results, o);
		}
		cJSON *changes = cJSON_AddArrayToObject(row, "changes");
		for (size_t i = 1; i < t->nversions; i++) {
			const bv_change *ch = &r->changes[i];
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "version", t->labels[i]);
			if (ch->valid) {
				cJSON_AddNumberToObject(o, "ratio", ch->ratio);
				if (bv_change_has_interval(ch)) {
					cJSON_AddNumberToObject(o, "ci_low", ch->ci_low);
					cJSON_AddNumberToObject(o, "ci_high", isfinite(ch->ci_high) ? ch->ci_high : 1e308);
				} else {
					/* fewer processes than a 95 % interval needs */
					cJSON_AddNullToObject(o, "ci_low");
					cJSON_AddNullToObject(o, "ci_high");
				}
				cJSON_AddStringToObject(o, "verdict", ch->verdict);
				cJSON_AddBoolToObject(o, "paired", ch->paired);
				cJSON_AddStringToObject(o, "mode", ch->mode ? ch->mode : "paired");
				cJSON_AddBoolToObject(o, "noisy", ch->noisy);
				cJSON_AddBoolToObject(o, "between_runs", ch->between_runs);
				cJSON_AddNumberToObject(o, "processes", ch->processes);
				if (ch->layouts > 1) {
					cJSON_AddNumberToObject(o, "layouts", ch->layouts);
					double spread[2] = {ch->layout_lo, ch->layout_hi};
					cJSON_AddItemToObject(o, "layout_spread", cJSON_CreateDoubleArray(spread, 2));
					cJSON_AddBoolToObject(o, "layout_bound", bv_change_not_called(ch) &&
										     bv_change_layout_bound(t, ch));
				}
				if (ch->nproc && (ch->state_dependent || ch->unstable)) {
					cJSON *m = cJSON_AddObjectToObject(o, "machine");
					cJSON_AddBoolToObject(m, "dependent", 1);
					cJSON *u = cJSON_AddObjectToObject(m, "usual");
					cJSON_AddNumberToObject(u, "ratio", ch->level_usual);
					cJSON_AddNumberToObject(u, "processes", (double)ch->n_usual);
					cJSON *d = cJSON_AddObjectToObject(m, "disturbed");
					cJSON_AddNumberToObject(d, "ratio", ch->level_disturbed);
					cJSON_AddNumberToObject(d, "processes", (double)ch->n_disturbed);
				}
				if (ch->controlled) {
					cJSON_AddNumberToObject(o, "p_value", ch->p);
					cJSON_AddBoolToObject(o, "held", ch->held);
				} else
					cJSON_AddNullToObject(o, "p_value");
			} else {
				cJSON_AddNullToObject(o, "ratio");
				cJSON_AddNullToObject(o, "ci_low");
				cJSON_AddNullToObject(o, "ci_high");
				cJSON_AddStringToObject(o, "verdict", ch->none ? ch->none : r->results[i].status);
			}
			cJSON_AddItemToArray(changes, o);
		}
		cJSON_AddItemToArray(rows, row);
	}
	char *text = cJSON_Print(doc);
	cJSON_Delete(doc);
	int ok = text && fputs(text, out) >= 0 && fputc('\n', out) != EOF;
	free(text);
	return ok ? 0 : bv_fail(BV_ERUN, "cannot write JSON");
}
