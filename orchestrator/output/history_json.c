/*
 * history_json.c - `bench-versions history --format json`, and history.json in
 * the results directory (docs/cli/history.md): the series, every step of
 * every cell with its verdict, the chains and the changes.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "history.h"
#include "history_format.h"
#include "verdict.h"

#define HISTORY_SCHEMA "bench-versions-history"
#define HISTORY_SCHEMA_VERSION 1

static void add_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

/* versions: each version of the series, with what was left out before it
 * (builds that failed, versions --every skipped). */
static void hjson_versions(cJSON *doc, const bv_hist *h)
{
	cJSON *va = cJSON_AddArrayToObject(doc, "versions");
	for (size_t j = 0; j < h->nv; j++) {
		const bv_version *v = bv_hist_version(h, j);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", v->name);
		cJSON_AddStringToObject(o, "label", v->label);
		if (v->kind == BV_VERSION_GIT)
			cJSON_AddStringToObject(o, "commit", v->commit);
		else
			cJSON_AddNullToObject(o, "commit");
		cJSON_AddStringToObject(o, "tree", v->tree);
		cJSON_AddStringToObject(o, "kernel_version", v->kernel_version ? v->kernel_version : "");
		if (v->build_key)
			cJSON_AddStringToObject(o, "build_key", v->build_key);
		bv_strv gap = {0};
		bv_hist_gap_before(h, j, &gap);
		cJSON *g = cJSON_AddArrayToObject(o, "left_out_before");
		for (size_t i = 0; i < gap.n; i++)
			cJSON_AddItemToArray(g, cJSON_CreateString(gap.v[i]));
		bv_strv_free(&gap);
		cJSON_AddItemToArray(va, o);
	}
}

/* One step of a cell (version i to i + 1): its test and, if a listed change
 * holds it, that change's direction. */
static cJSON *hjson_step(const bv_hist *h, const bv_hist_cell *x, size_t i)
{
	const bv_hist_step *st = &x->steps[i];
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "from", bv_hist_version(h, i)->label);
	cJSON_AddStringToObject(s, "to", bv_hist_version(h, i + 1)->label);
	add_num(s, "ratio", st->s.ratio);
	add_num(s, "ci_low", st->s.lo);
	add_num(s, "ci_high", st->s.hi);
	cJSON_AddNumberToObject(s, "processes", (double)st->s.nproc);
	if (st->s.verdict)
		cJSON_AddStringToObject(s, "verdict", bv_verdict_name(st->s.verdict));
	else
		cJSON_AddNullToObject(s, "verdict");
	add_num(s, "p", st->s.p);
	cJSON_AddBoolToObject(s, "paired", st->s.nproc > 0);
	cJSON_AddNumberToObject(s, "window", st->window);
	if (st->why)
		cJSON_AddStringToObject(s, "note", st->why);
	if (st->state)
		cJSON_AddStringToObject(s, "state", st->state);
	/* the listed change that holds this step, if any: its
	 * verdict is the step's own test, this the change's */
	const char *in_change = NULL;
	for (size_t k = 0; k < x->ncps; k++)
		if (x->cps[k].first <= i && i <= x->cps[k].last)
			in_change = bv_verdict_name(x->cps[k].direction);
	if (in_change)
		cJSON_AddStringToObject(s, "change_point", in_change);
	else
		cJSON_AddNullToObject(s, "change_point");
	return s;
}

/* A cell's chain: each version's ratio to the first, with its interval. */
static void hjson_chain(cJSON *o, const bv_hist *h, const bv_hist_cell *x)
{
	cJSON *ch = cJSON_AddArrayToObject(o, "chain");
	for (size_t j = 0; j < h->nv; j++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "version", bv_hist_version(h, j)->label);
		add_num(e, "ratio", x->chain[j]);
		add_num(e, "ci_low", x->clo[j]);
		add_num(e, "ci_high", x->chi[j]);
		cJSON_AddItemToArray(ch, e);
	}
}

/* One listed change of a cell: its ends, its steps, how many of them are
 * called on their own, and the bisect command that finds its commit. */
static cJSON *hjson_change_point(const bv_hist *h, const bv_hist_cell *x, const bv_change_point *cp)
{
	const bv_version *a = bv_hist_version(h, cp->first), *b = bv_hist_version(h, cp->last + 1);
	cJSON *e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "cell", x->key);
	cJSON_AddStringToObject(e, "from", a->label);
	cJSON_AddStringToObject(e, "to", b->label);
	if (a->kind == BV_VERSION_GIT)
		cJSON_AddStringToObject(e, "from_commit", a->commit);
	if (b->kind == BV_VERSION_GIT)
		cJSON_AddStringToObject(e, "to_commit", b->commit);
	cJSON_AddNumberToObject(e, "first_step", (double)cp->first);
	cJSON_AddNumberToObject(e, "last_step", (double)cp->last);
	add_num(e, "ratio", cp->ratio);
	add_num(e, "ci_low", cp->lo);
	add_num(e, "ci_high", cp->hi);
	cJSON_AddStringToObject(e, "direction", bv_verdict_name(cp->direction));
	/* the steps' own verdicts may not show it: say how many do */
	cJSON_AddNumberToObject(e, "steps", (double)(cp->last - cp->first + 1));
	cJSON_AddNumberToObject(e, "steps_called", (double)bv_hist_steps_agreeing(x, cp));
	char *cmd = bv_hist_bisect_command(h, x, cp);
	if (cmd)
		cJSON_AddStringToObject(e, "bisect", cmd);
	else
		cJSON_AddNullToObject(e, "bisect");
	free(cmd);
	return e;
}

/* cells: each cell's steps and chain; changes: every cell's listed changes,
 * in the cells' order. */
static void hjson_cells(cJSON *doc, const bv_hist *h)
{
	cJSON *ca = cJSON_AddArrayToObject(doc, "cells");
	cJSON *changes = cJSON_CreateArray();
	for (size_t c = 0; c < h->ncells; c++) {
		const bv_hist_cell *x = &h->cells[c];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "cell", x->key);
		cJSON_AddStringToObject(o, "bench", x->bench);
		cJSON_AddStringToObject(o, "op", x->op);
		cJSON_AddStringToObject(o, "backend", x->backend);
		cJSON_AddStringToObject(o, "size", x->size);
		cJSON *sa = cJSON_AddArrayToObject(o, "steps");
		for (size_t i = 0; i + 1 < h->nv; i++)
			cJSON_AddItemToArray(sa, hjson_step(h, x, i));
		hjson_chain(o, h, x);
		cJSON_AddItemToArray(ca, o);
		for (size_t k = 0; k < x->ncps; k++)
			cJSON_AddItemToArray(changes, hjson_change_point(h, x, &x->cps[k]));
	}
	cJSON_AddItemToObject(doc, "changes", changes);
}

cJSON *bv_hist_json(const bv_hist *h)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", HISTORY_SCHEMA);
	cJSON_AddNumberToObject(doc, "schema_version", HISTORY_SCHEMA_VERSION);
	cJSON *series = cJSON_AddObjectToObject(doc, "series");
	cJSON_AddStringToObject(series, "kind", h->range ? "range" : h->releases ? "releases" : "list");
	if (h->range)
		cJSON_AddStringToObject(series, "range", h->range);
	cJSON_AddBoolToObject(series, "first_parent", h->first_parent);
	cJSON_AddNumberToObject(series, "every", h->every);
	cJSON_AddNumberToObject(doc, "window", h->window);
	cJSON_AddNumberToObject(doc, "windows", (double)h->nwindows);
	cJSON_AddNumberToObject(doc, "threshold", h->cli.mo.threshold);
	cJSON_AddNumberToObject(doc, "fdr", BV_FDR);
	cJSON_AddNumberToObject(doc, "tested", (double)h->tested);
	cJSON_AddNumberToObject(doc, "called", (double)h->called);
	cJSON_AddNumberToObject(doc, "inconclusive", (double)h->inconclusive);
	cJSON_AddNumberToObject(doc, "unstable", (double)h->unstable);
	if (h->dir)
		cJSON_AddStringToObject(doc, "results", h->dir);
	hjson_versions(doc, h);
	cJSON *lo = cJSON_AddArrayToObject(doc, "left_out");
	for (size_t i = 0; i < h->nall; i++)
		if (h->all[i].build_error) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", h->all[i].name);
			cJSON_AddStringToObject(o, "reason", "build failed");
			cJSON_AddStringToObject(o, "build_error", h->all[i].build_error);
			cJSON_AddItemToArray(lo, o);
		}
	hjson_cells(doc, h);
	cJSON *na = cJSON_AddArrayToObject(doc, "notes");
	for (size_t i = 0; i < h->notes.n; i++)
		cJSON_AddItemToArray(na, cJSON_CreateString(h->notes.v[i]));
	return doc;
}

int bv_hist_write_json(const bv_hist *h, FILE *out)
{
	cJSON *doc = bv_hist_json(h);
	char *text = cJSON_Print(doc);
	fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(doc);
	return 0;
}
