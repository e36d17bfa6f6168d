/*
 * bisect_answer_json.c - bisect's answer as JSON (--format json): the
 * status, the cell, the ends, the first bad commit or the range, every
 * step, and the builds and measurements it took.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bisect.h"
#include "bisect_answer.h"
#include "bisect_step.h"
#include "json.h"
#include "stats.h"

void bv_bisect_answer_json(const bv_bisect_ctx *x, const bv_bisect_answer *a, FILE *out)
{
	bv_verdict pverdict = bv_bisect_parent_verdict(a->vs_parent, x->mo.threshold);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "status", bv_bisect_ending_name(a->status));
	cJSON *c = cJSON_AddObjectToObject(o, "cell");
	cJSON_AddStringToObject(c, "bench", x->bench);
	cJSON_AddStringToObject(c, "op", x->op);
	cJSON_AddStringToObject(c, "backend", x->backend);
	cJSON_AddNumberToObject(c, "size", (double)x->size);
	cJSON_AddStringToObject(c, "shape", x->shape);
	cJSON_AddStringToObject(o, "direction", x->improvement ? "faster" : "slower");
	cJSON_AddNumberToObject(o, "threshold", x->mo.threshold);
	/* what a step's ratio is of: paired timings, or instructions per call */
	cJSON_AddStringToObject(o, "by", x->by_counts ? "counts" : "time");
	if (x->mo.simd_isa)
		cJSON_AddStringToObject(o, "simd_isa_forced", x->mo.simd_isa);
	else
		cJSON_AddNullToObject(o, "simd_isa_forced");
	cJSON_AddBoolToObject(o, "first_parent", a->first_parent);
	cJSON_AddStringToObject(o, "good", a->good);
	cJSON_AddStringToObject(o, "bad", a->bad);
	cJSON_AddItemToObject(o, "bad_vs_good", bv_bisect_ratio_json(a->check));
	if (a->status == BV_BISECT_FOUND) {
		bv_bisect_commit fi;
		bv_bisect_commit_read(x->git, a->first, &fi);
		cJSON *f = cJSON_AddObjectToObject(o, "first_bad");
		cJSON_AddStringToObject(f, "commit", a->first);
		cJSON_AddStringToObject(f, "subject", fi.subject);
		cJSON_AddStringToObject(f, "author", fi.author);
		cJSON_AddStringToObject(f, "email", fi.email);
		cJSON_AddStringToObject(f, "date", fi.date);
		bv_bisect_commit_free(&fi);
		cJSON_AddItemToObject(
		    f, "vs_good", bv_bisect_ratio_json(a->first_step ? &a->first_step->vs_good : a->check));
		cJSON_AddItemToObject(f, "vs_bad",
				      a->first_step ? bv_bisect_ratio_json(&a->first_step->vs_bad) : cJSON_CreateNull());
		if (*a->parent)
			cJSON_AddStringToObject(f, "parent", a->parent);
		else
			cJSON_AddNullToObject(f, "parent");
		cJSON *vp = bv_bisect_ratio_json(a->vs_parent);
		if (pverdict != BV_NO_VERDICT)
			cJSON_AddStringToObject(vp, "verdict", bv_verdict_name(pverdict));
		cJSON_AddItemToObject(f, "vs_parent", vp);
	} else
		cJSON_AddNullToObject(o, "first_bad");
	cJSON *cand = cJSON_AddArrayToObject(o, "candidates");
	for (size_t i = 0; i < a->nrange; i++)
		cJSON_AddItemToArray(cand, cJSON_CreateString(a->range[i]));
	cJSON *sj = cJSON_AddArrayToObject(o, "steps");
	for (size_t i = 0; i < a->nsteps; i++) {
		cJSON *e = bv_bisect_point_json(&a->steps[i]);
		bv_bisect_commit si;
		bv_bisect_commit_read(x->git, a->steps[i].commit, &si);
		cJSON_AddStringToObject(e, "subject", si.subject);
		bv_bisect_commit_free(&si);
		cJSON_AddBoolToObject(e, "reused", a->steps[i].reused);
		cJSON_AddItemToArray(sj, e);
	}
	cJSON *b = cJSON_AddObjectToObject(o, "builds");
	cJSON_AddNumberToObject(b, "total", x->builds);
	cJSON_AddNumberToObject(b, "new", x->builds_new);
	cJSON_AddNumberToObject(b, "cached", x->builds - x->builds_new - x->builds_failed);
	cJSON_AddNumberToObject(b, "failed", x->builds_failed);
	cJSON *m = cJSON_AddObjectToObject(o, "measurements");
	cJSON_AddNumberToObject(m, "taken", x->taken);
	cJSON_AddNumberToObject(m, "reused", x->reused);
	cJSON_AddNumberToObject(o, "rounds", x->rounds);
	cJSON_AddNumberToObject(o, "elapsed_s", a->elapsed);
	cJSON_AddStringToObject(o, "state", x->state);
	char *text = cJSON_Print(o);
	fprintf(out, "%s\n", text);
	free(text);
	cJSON_Delete(o);
}
