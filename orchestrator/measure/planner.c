/*
 * planner.c - the plan of one command (planner.h), built once from its
 * options and versions: the cells, their expected times and cut, the
 * command's part of the cut, and the plan block with its id.
 *
 * Every stage reads the plan it is handed (measure.h's bv_measure_plan, the
 * --resume check, the estimate, --dry-run, `plan`) instead of planning again
 * from the options, so no two of them can disagree on which cells a command
 * measures or which shard is whose.  Two callers that hold no plan keep
 * their old entries here, each one plan then the stage: bv_measure (a
 * bisect's step, its versions of its own) and bv_resume_check (the check a
 * project suite's --resume makes against the description its run wrote).
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "build.h"
#include "common.h"
#include "measure.h"
#include "plan.h"
#include "planner.h"
#include "shard.h"
#include "table.h"

/* The plan block (shard.h): the versions with their build keys, every cell
 * of the matrix, the method, and the id that hashes them with the count. */
static int plan_block(bv_plan *p, const bv_version *vs, size_t n)
{
	cJSON *plan = cJSON_CreateObject();
	cJSON_AddStringToObject(plan, "id", "");
	if (p->shard_index > 0)
		cJSON_AddNumberToObject(plan, "index", p->shard_index);
	cJSON_AddNumberToObject(plan, "count", p->shard_count);
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
	for (long k = 0; k < p->nall; k++) {
		char key[256], size[32];
		const bv_cell *c = &p->all[k];
		snprintf(key, sizeof(key), "%s/%s/%s/%s", c->bench->name, c->op->name, c->backend,
		         bv_size_format(c->size, size, sizeof(size)));
		cJSON_AddItemToArray(ca, cJSON_CreateString(key));
	}
	cJSON_AddItemToObject(plan, "method", bv_method_block(p->o, 0, 0));
	if (rc) {
		cJSON_Delete(plan);
		return rc;
	}
	char id[17];
	bv_plan_id(plan, id);
	cJSON_ReplaceItemInObjectCaseSensitive(plan, "id", cJSON_CreateString(id));
	p->block = plan;
	return 0;
}

int bv_plan_build(const bv_measure_opts *o, const bv_version *vs, size_t n, bv_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->o = o, p->vs = vs, p->nvs = vs ? n : 0;
	p->shard_count = o->shard_count, p->shard_index = o->shard_index;
	/* The cut is made over every planned cell (the filter's, not the
	 * shard's), so every shard of one command line agrees on it. */
	bv_measure_opts whole = *o;
	whole.shard_index = whole.shard_count = 0;
	char err[256];
	long nall = bv_plan_cells(&whole, &p->all, &p->all_pos, err, sizeof(err));
	if (nall < 0)
		return bv_fail(BV_EINPUT, "%s", err);
	p->nall = nall;
	bv_shard_cut(p->all, nall, o, o->shard_count, &p->cost_ms, &p->shard_of, &p->shard_ms);
	p->cells = bv_xcalloc((size_t)nall + 1, sizeof(bv_cell));
	p->pos = bv_xcalloc((size_t)nall + 1, sizeof(long));
	for (long k = 0; k < nall; k++)
		if (o->shard_index <= 0 || p->shard_of[k] == o->shard_index - 1) {
			p->cells[p->ncells] = p->all[k];
			p->pos[p->ncells++] = p->all_pos[k];
		}
	int rc = vs && o->shard_count > 0 ? plan_block(p, vs, n) : 0;
	if (rc)
		bv_plan_free(p);
	return rc;
}

int bv_measure(const bv_version *vs, size_t n, const bv_measure_opts *o, const char *results_dir, char ***logs)
{
	bv_plan p;
	*logs = NULL;
	int rc = bv_plan_build(o, vs, n, &p);
	if (rc == 0)
		rc = bv_measure_plan(&p, vs, n, o, results_dir, logs);
	bv_plan_free(&p);
	return rc;
}

int bv_resume_check(const char *dir, const bv_version *vs, size_t n, bv_measure_opts *o, int after_build)
{
	if (after_build == BV_RESUME_CELLS_UNKNOWN)
		return bv_resume_check_plan(dir, vs, n, o, NULL, 0);
	bv_plan p;
	int rc = bv_plan_build(o, NULL, 0, &p);
	if (rc == 0)
		rc = bv_resume_check_plan(dir, vs, n, o, &p, after_build);
	bv_plan_free(&p);
	return rc;
}
