/*
 * export_json.c - the comparison as JSON for machines (docs/results-format.md,
 * "comparison"): rows[].bench/op/backend/size, rows[].results[] per version,
 * rows[].changes[] per non-baseline version.  Every key is always there (null
 * where it does not apply), so a consumer reads, never tests for presence.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "benches.h"
#include "classes.h"
#include "common.h"
#include "counts.h"
#include "export.h"
#include "merge.h"
#include "table.h"
#include "verdict.h"

/* A number, or null where it does not apply (has == 0). */
static void num_or_null(cJSON *o, const char *key, double v, int has)
{
	if (has)
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void str_or_null(cJSON *o, const char *key, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

/* {"ratio": geomean or null, "cells": n}: a plain geometric mean of the
 * ratios over the cells both versions ran (bv_table_geomean), for display. */
static cJSON *geomean_of(double ratio, size_t n)
{
	cJSON *g = cJSON_CreateObject();
	num_or_null(g, "ratio", ratio, n > 0);
	cJSON_AddNumberToObject(g, "cells", (double)n);
	return g;
}

static cJSON *geomeans(const bv_table *t, size_t v)
{
	if (bv_table_is_base(t, v))
		return cJSON_CreateNull(); /* a baseline: its ratios are all 1 */
	cJSON *groups = cJSON_CreateArray();
	for (size_t k = 0; k < t->nrows; k++) {
		const bv_row *r = &t->rows[k];
		int first = 1; /* each bench group once, in the table's order */
		for (size_t j = 0; j < k && first; j++)
			first = strcmp(t->rows[j].bench, r->bench) != 0;
		if (!first)
			continue;
		size_t n = 0;
		double g = bv_table_geomean(t, v, r->bench, &n);
		cJSON *o = geomean_of(g, n);
		cJSON_AddItemToObject(o, "bench", cJSON_CreateString(r->bench));
		cJSON_AddItemToArray(groups, o);
	}
	size_t nall = 0;
	double all = bv_table_geomean(t, v, NULL, &nall);
	cJSON *o = geomean_of(all, nall);
	cJSON_AddItemToObject(o, "groups", groups);
	return o;
}

/* A paired ratio of two backends (the view's cells, the fastest backends):
 * ratio, interval, processes and verdict, null where there is none. */
static void backend_ratio(cJSON *o, const bv_change *ch)
{
	int v = ch->valid;
	num_or_null(o, "ratio", ch->ratio, v);
	num_or_null(o, "ratio_ci_low", ch->ci_low, v && bv_change_has_interval(ch));
	num_or_null(o, "ratio_ci_high", ch->ci_high, v && bv_change_has_interval(ch));
	num_or_null(o, "processes", ch->processes, v);
	str_or_null(o, "verdict", v ? bv_verdict_name(ch->verdict) : NULL);
}

/* A row's value on the view's axis (its backend, or its parameter's value). */
static void value_json(const bv_table *t, cJSON *o, const char *key, const bv_row *r)
{
	char v[200], *eq;
	bv_vs_value(t, r, v, sizeof(v));
	cJSON_AddStringToObject(o, key, t->vs.param[0] && (eq = strchr(v, '=')) ? eq + 1 : v);
}

/* Why the change happened, from Valgrind's counts (counts.h); null when
 * the change was not counted. */
static void counts_json(cJSON *o, const bv_count_cmp *w)
{
	if (!w) {
		cJSON_AddNullToObject(o, "counts");
		return;
	}
	cJSON *c = cJSON_AddObjectToObject(o, "counts");
	cJSON_AddStringToObject(c, "kind", w->kind);
	cJSON_AddStringToObject(c, "text", w->text);
	int have = isfinite(w->instr);
	num_or_null(c, "instructions_base", w->ir_base, have);
	num_or_null(c, "instructions", w->ir_cand, have);
	const char *keys[] = {"instructions_change", "d1_misses_change", "ll_misses_change", "mispredicts_change"};
	const double vals[] = {w->instr, w->d1, w->ll, w->mispred};
	for (int i = 0; i < 4; i++)
		num_or_null(c, keys[i], vals[i], isfinite(vals[i]));
	str_or_null(c, "function", w->fn);
	num_or_null(c, "function_instructions_base", w->fn_base, w->fn != NULL);
	num_or_null(c, "function_instructions", w->fn_cand, w->fn != NULL);
	str_or_null(c, "counted_isa", w->counted_isa);
	str_or_null(c, "timed_isa", w->timed_isa);
}

/* error_control: how the table's verdicts were held to a false-discovery
 * rate, or null when nothing was tested. */
static void json_error_control(cJSON *doc, const bv_table *t)
{
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
	} else
		cJSON_AddNullToObject(doc, "error_control");
}

/* classes: each machine class with its baseline, or null for one class. */
static void json_classes(cJSON *doc, const bv_table *t)
{
	if (t->nclasses) {
		cJSON *cls = cJSON_AddArrayToObject(doc, "classes");
		for (size_t c = 0; c < t->nclasses; c++) {
			const bv_class *k = &t->classes[c];
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", k->name);
			str_or_null(o, "cpu", *k->cpu ? k->cpu : NULL);
			str_or_null(o, "isa", *k->isa ? k->isa : NULL);
			str_or_null(o, "gpu", *k->gpu ? k->gpu : NULL);
			cJSON_AddBoolToObject(o, "named", k->named);
			size_t b = 0;
			while (b < t->nversions && t->class_of[b] != c)
				b++;
			cJSON_AddStringToObject(o, "baseline", b < t->nversions ? t->labels[b] : "");
			cJSON_AddItemToArray(cls, o);
		}
	} else
		cJSON_AddNullToObject(doc, "classes");
}

/* versions: each version's label, class, provenance, machine and
 * geomeans. */
static void json_versions(cJSON *doc, const bv_table *t)
{
	cJSON *vers = cJSON_AddArrayToObject(doc, "versions");
	for (size_t i = 0; i < t->nversions; i++) {
		const bv_version_meta *m = t->meta ? &t->meta[i] : NULL;
		cJSON *v = cJSON_CreateObject();
		cJSON_AddStringToObject(v, "label", t->labels[i]);
		str_or_null(v, "class", t->class_of ? t->classes[t->class_of[i]].name : NULL);
		cJSON_AddStringToObject(v, "description", t->descriptions ? t->descriptions[i] : "");
		str_or_null(v, "commit", m ? m->commit : NULL);
		str_or_null(v, "tree", m ? m->tree : NULL);
		str_or_null(v, "simd_isa", m ? m->simd_isa : NULL);
		cJSON *mc = cJSON_AddObjectToObject(v, "machine");
		str_or_null(mc, "cpu", m ? m->cpu : NULL);
		str_or_null(mc, "isa", m ? m->isa : NULL);
		num_or_null(mc, "cores", m ? m->cores : 0, m && m->cores > 0);
		cJSON_AddItemToObject(v, "geomean", geomeans(t, i));
		cJSON_AddItemToArray(vers, v);
	}
}

/* One version's result in a row: its status and, where it ran, its times
 * and rates (null where they do not apply). */
static cJSON *json_result(const bv_table *t, const bv_row *r, size_t i)
{
	const bv_result *res = &r->results[i];
	cJSON *o = cJSON_CreateObject();
	int ran = res->median_ns > 0;
	cJSON_AddStringToObject(o, "version", t->labels[i]);
	cJSON_AddStringToObject(o, "status", bv_status_name(res->status));
	str_or_null(o, "reason", res->reason);
	num_or_null(o, "median_ns", res->median_ns, ran);
	num_or_null(o, "ci_low_ns", res->ci_low_ns, ran);
	num_or_null(o, "ci_high_ns", res->ci_high_ns, ran);
	num_or_null(o, "gb_per_s", ran ? r->bytes / res->median_ns : 0, ran && r->bytes > 0);
	num_or_null(o, "gflop_per_s", ran ? r->flops / res->median_ns : 0, ran && r->flops > 0);
	num_or_null(o, "pct_copy_bandwidth", res->pct_copy_bw, ran && res->pct_copy_bw > 0);
	num_or_null(o, "pct_peak_flops", res->pct_peak_flops, ran && res->pct_peak_flops > 0);
	num_or_null(o, "processes", res->processes, ran);
	num_or_null(o, "host_bytes", res->host_bytes, ran);
	num_or_null(o, "device_bytes", res->device_bytes, ran);
	num_or_null(o, "library_host_bytes", res->library_host_bytes, ran && isfinite(res->library_host_bytes));
	num_or_null(o, "library_device_bytes", res->library_device_bytes,
		    ran && isfinite(res->library_device_bytes));
	return o;
}

/* One version's change against its class's baseline in a row: ratio,
 * interval, verdict and every qualifier (null where it does not apply). */
static cJSON *json_change(const bv_table *t, const bv_row *r, size_t i)
{
	const bv_change *ch = &r->changes[i];
	cJSON *o = cJSON_CreateObject();
	int v = ch->valid;
	cJSON_AddStringToObject(o, "version", t->labels[i]);
	cJSON_AddStringToObject(o, "baseline", t->labels[bv_table_base(t, i)]);
	num_or_null(o, "ratio", ch->ratio, v);
	/* null bounds: no ratio, or fewer processes than a 95 %
	 * interval needs */
	int iv = v && bv_change_has_interval(ch);
	num_or_null(o, "ci_low", ch->ci_low, iv);
	num_or_null(o, "ci_high", isfinite(ch->ci_high) ? ch->ci_high : 1e308, iv);
	cJSON_AddStringToObject(o, "verdict", v ? bv_verdict_name(ch->verdict) : ch->none ? ch->none : bv_status_name(r->results[i].status));
	if (v) {
		cJSON_AddBoolToObject(o, "paired", ch->paired);
		cJSON_AddStringToObject(o, "mode", ch->mode ? ch->mode : "paired");
		cJSON_AddBoolToObject(o, "noisy", ch->noisy);
		cJSON_AddBoolToObject(o, "between_runs", ch->between_runs);
	} else {
		cJSON_AddNullToObject(o, "paired");
		cJSON_AddNullToObject(o, "mode");
		cJSON_AddNullToObject(o, "noisy");
		cJSON_AddNullToObject(o, "between_runs");
	}
	num_or_null(o, "processes", ch->processes, v);
	int lay = v && ch->layouts > 1;
	num_or_null(o, "layouts", ch->layouts, lay);
	if (lay) {
		double spread[2] = {ch->layout_lo, ch->layout_hi};
		cJSON_AddItemToObject(o, "layout_spread", cJSON_CreateDoubleArray(spread, 2));
		cJSON_AddBoolToObject(o, "layout_bound", bv_change_not_called(ch) &&
							     bv_change_layout_bound(t, ch));
	} else {
		cJSON_AddNullToObject(o, "layout_spread");
		cJSON_AddNullToObject(o, "layout_bound");
	}
	if (v && ch->nproc && (ch->state_dependent || ch->unstable)) {
		cJSON *m = cJSON_AddObjectToObject(o, "machine");
		cJSON_AddBoolToObject(m, "dependent", 1);
		cJSON *u = cJSON_AddObjectToObject(m, "usual");
		cJSON_AddNumberToObject(u, "ratio", ch->level_usual);
		cJSON_AddNumberToObject(u, "processes", (double)ch->n_usual);
		cJSON *d = cJSON_AddObjectToObject(m, "disturbed");
		cJSON_AddNumberToObject(d, "ratio", ch->level_disturbed);
		cJSON_AddNumberToObject(d, "processes", (double)ch->n_disturbed);
	} else
		cJSON_AddNullToObject(o, "machine");
	num_or_null(o, "p_value", ch->p, v && ch->controlled);
	if (v && ch->controlled)
		cJSON_AddBoolToObject(o, "held", ch->held);
	else
		cJSON_AddNullToObject(o, "held");
	counts_json(o, ch->why);
	return o;
}

/* rows: every row not hidden, with its results and changes. */
static void json_rows(cJSON *doc, const bv_table *t)
{
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
		for (size_t i = 0; i < t->nversions; i++)
			cJSON_AddItemToArray(results, json_result(t, r, i));
		cJSON *changes = cJSON_AddArrayToObject(row, "changes");
		for (size_t i = 1; i < t->nversions; i++) {
			if (bv_table_is_base(t, i))
				continue; /* a class's baseline */
			cJSON_AddItemToArray(changes, json_change(t, r, i));
		}
		cJSON_AddItemToArray(rows, row);
	}
}

/* vs.cells: each variant against the reference in its cell. */
static void json_vs_cells(cJSON *bv, const bv_table *t)
{
	cJSON *arr = cJSON_AddArrayToObject(bv, "cells");
	for (size_t i = 0; i < t->nbackends; i++) {
		const bv_backend_cmp *b = &t->backends[i];
		const bv_row *r = &t->rows[b->row];
		const bv_change *ch = &b->ch;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "version", t->labels[b->version]);
		cJSON_AddStringToObject(o, "bench", r->bench);
		cJSON_AddStringToObject(o, "op", r->op);
		cJSON_AddStringToObject(o, "backend", r->backend);
		cJSON_AddNumberToObject(o, "size", (double)r->size);
		value_json(t, o, "value", r);
		cJSON_AddStringToObject(o, "reference_op", t->rows[b->ref_row].op);
		cJSON_AddStringToObject(o, "reference_backend", t->rows[b->ref_row].backend);
		int v = ch->valid;
		backend_ratio(o, ch);
		num_or_null(o, "p_value", ch->p, v && ch->controlled);
		str_or_null(o, "none", v ? NULL : ch->none);
		cJSON_AddItemToArray(arr, o);
	}
}

/* 1.6: each cell's fastest backend against the next fastest */
static void json_vs_fastest(cJSON *bv, const bv_table *t)
{
	char *wc = bv_wins_control(t);
	cJSON_AddStringToObject(bv, "fastest_summary", wc);
	free(wc);
	cJSON *fa = cJSON_AddArrayToObject(bv, "fastest");
	for (size_t i = 0; i < t->nwins; i++) {
		const bv_backend_win *w = &t->wins[i];
		const bv_row *r = &t->rows[w->row];
		const bv_change *ch = &w->ch;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "version", t->labels[w->version]);
		cJSON_AddStringToObject(o, "bench", r->bench);
		cJSON_AddStringToObject(o, "op", r->op);
		cJSON_AddNumberToObject(o, "size", (double)r->size);
		cJSON_AddStringToObject(o, "backend", r->backend);
		/* next: the next fastest's value on the axis (a backend on
		 * the backend axis, as in 1.6) */
		char next[200], *eq;
		bv_vs_value(t, &t->rows[w->next_row], next, sizeof(next));
		cJSON_AddStringToObject(o, "next", t->vs.param[0] && (eq = strchr(next, '=')) ? eq + 1 : next);
		value_json(t, o, "value", r);
		cJSON_AddStringToObject(o, "next_op", t->rows[w->next_row].op);
		backend_ratio(o, ch);
		cJSON_AddBoolToObject(o, "clear", ch->valid && ch->verdict == BV_FASTER);
		cJSON_AddItemToArray(fa, o);
	}
}

/* vs (and backends, its older name on the backend axis), or both null
 * without --vs. */
static void json_vs(cJSON *doc, const bv_table *t)
{
	if (t->vs.on) {
		/* 1.5: the backend view (--vs-backend); 1.8: any axis (--vs) */
		cJSON *bv = cJSON_AddObjectToObject(doc, "vs");
		cJSON_AddStringToObject(bv, "axis", t->vs.param[0] ? "parameter" : "backend");
		cJSON_AddStringToObject(bv, "name", bv_vs_noun(t));
		cJSON_AddStringToObject(bv, "reference", t->vs.ref);
		char *bc = bv_backends_control(t);
		cJSON_AddStringToObject(bv, "summary", bc);
		free(bc);
		cJSON_AddNumberToObject(bv, "comparisons", (double)t->backends_decided.tested);
		cJSON_AddNumberToObject(bv, "called", (double)t->backends_decided.called);
		json_vs_cells(bv, t);
		json_vs_fastest(bv, t);
		/* The backend axis: the same object as backends, as 1.5-1.7 wrote it
		 * (with 1.8's keys beside), for their readers. */
		if (t->vs.param[0])
			cJSON_AddNullToObject(doc, "backends");
		else
			cJSON_AddItemToObject(doc, "backends", cJSON_Duplicate(bv, 1));
	} else {
		cJSON_AddNullToObject(doc, "backends");
		cJSON_AddNullToObject(doc, "vs");
	}
}

int bv_export_json(const bv_table *t, FILE *out)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", "bench-versions-comparison");
	/* 1.1: verdict "inconclusive", ci_low/ci_high null without an interval;
	 * 1.2: every key always present (null where it does not apply),
	 * versions[].commit/tree/simd_isa/machine/geomean, verdicts "new"/"vanished";
	 * 1.4: classes[], versions[].class, changes[].baseline (machine classes
	 * side by side: each class has its own baseline, classes.c);
	 * 1.5: backends (the backend view, null unless --vs-backend);
	 * 1.6: backends.fastest and .fastest_summary (each cell's fastest backend);
	 * 1.7: changes[].counts and counts_summary (why a cell changed: counts.h);
	 * 1.8: vs (the view along any axis, --vs NAME=VALUE: axis, name, and
	 * each cell's value and reference op); backends stays, the same object,
	 * when the axis is the backend, so a reader of 1.5-1.7 reads it still */
	cJSON_AddStringToObject(doc, "schema_version", "1.8");
	cJSON_AddStringToObject(doc, "baseline", t->nversions ? t->labels[0] : "");
	cJSON_AddNumberToObject(doc, "threshold", t->threshold);
	str_or_null(doc, "method", t->method);
	json_error_control(doc, t);
	str_or_null(doc, "counts_summary", t->counts);
	cJSON *notes = cJSON_AddArrayToObject(doc, "notes");
	for (size_t i = 0; i < t->nnotes; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(t->notes[i]));
	json_classes(doc, t);
	json_versions(doc, t);
	json_rows(doc, t);
	json_vs(doc, t);
	char *text = cJSON_Print(doc);
	cJSON_Delete(doc);
	int ok = text && fputs(text, out) >= 0 && fputc('\n', out) != EOF;
	free(text);
	return ok ? 0 : bv_fail(BV_ERUN, "cannot write JSON");
}
