/*
 * site_data.c - data/index.json, data/classes.json and data/runs.json: the
 * figures of the index for other tools (the cells', backends', regressions'
 * and quarantine's JSON are written beside their pages).  Strings go through
 * cJSON, which escapes them; nothing here counts refused uploads, so a
 * refused upload changes none of these files.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "site.h"
#include "site_page.h"

static cJSON *classes(const bv_site *s)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < s->nclasses; i++) {
		const bv_site_class *c = &s->classes[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "class", c->name), cJSON_AddStringToObject(o, "cpu", c->cpu);
		cJSON_AddStringToObject(o, "isa", c->isa), cJSON_AddStringToObject(o, "gpu", c->gpu);
		cJSON_AddNumberToObject(o, "runs", (double)c->nruns);
		cJSON_AddNumberToObject(o, "versions", (double)c->nversions);
		cJSON_AddNumberToObject(o, "loaded_runs", (double)c->nloaded);
		cJSON_AddItemToObject(
		    o, "newest_version",
		    bv_site_json_str(c->newest == BV_SITE_NONE ? NULL : s->versions[c->newest].label));
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static cJSON *runs(const bv_site *s)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t k = 0; k < s->nruns; k++) {
		const bv_site_run *r = &s->runs[s->by_created[k]];
		cJSON *o = cJSON_CreateObject(), *vs = cJSON_CreateArray();
		cJSON_AddStringToObject(o, "key", r->key), cJSON_AddStringToObject(o, "id", r->id);
		cJSON_AddStringToObject(o, "created", r->created);
		cJSON_AddStringToObject(o, "class", s->classes[r->cls].name);
		cJSON_AddItemToObject(o, "tool", bv_site_json_str(r->tool));
		cJSON_AddStringToObject(o, "baseline", r->baseline),
		    cJSON_AddStringToObject(o, "method", r->method);
		cJSON_AddItemToObject(o, "load_max",
		                      r->has_load ? cJSON_CreateNumber(r->load_max) : cJSON_CreateNull());
		cJSON_AddItemToObject(o, "loaded",
		                      r->loaded < 0 ? cJSON_CreateNull() : cJSON_CreateBool(r->loaded));
		cJSON_AddStringToObject(o, "page", r->page);
		for (size_t i = 0; i < s->nvrefs; i++)
			if (!strcmp(s->vrefs[i].run, r->key))
				cJSON_AddItemToArray(vs, cJSON_CreateString(s->vrefs[i].label));
		cJSON_AddItemToObject(o, "versions", vs);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static cJSON *index_doc(const bv_site *s)
{
	cJSON *doc = cJSON_CreateObject(), *vs = cJSON_CreateArray(), *cells = cJSON_CreateArray();
	cJSON_AddNumberToObject(doc, "runs", (double)s->nruns);
	cJSON_AddNumberToObject(doc, "classes", (double)s->nclasses);
	for (size_t i = 0; i < s->nversions; i++) {
		const bv_site_version *v = &s->versions[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "label", v->label);
		cJSON_AddItemToObject(o, "kernel_version", bv_site_json_str(v->kernel_version));
		cJSON_AddItemToObject(o, "commit", bv_site_json_str(v->commit));
		cJSON_AddItemToObject(o, "tree", bv_site_json_str(v->tree));
		cJSON_AddItemToObject(o, "kind", bv_site_json_str(v->kind));
		cJSON_AddNumberToObject(o, "runs", (double)v->nruns);
		cJSON_AddStringToObject(o, "first_seen", v->first_seen);
		cJSON_AddItemToArray(vs, o);
	}
	cJSON_AddItemToObject(doc, "versions", vs);
	for (size_t i = 0; i < s->ncells; i++) {
		const bv_site_cell *c = &s->cells[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "bench", c->bench), cJSON_AddStringToObject(o, "op", c->op);
		cJSON_AddStringToObject(o, "backend", c->backend),
		    cJSON_AddNumberToObject(o, "size", (double)c->size);
		cJSON_AddStringToObject(o, "shape", c->shape);
		char *page = bv_asprintf("cells/%s.html", c->name),
		     *data = bv_asprintf("data/cells/%s.json", c->name);
		cJSON_AddStringToObject(o, "page", page), cJSON_AddStringToObject(o, "data", data);
		free(page), free(data);
		cJSON_AddItemToArray(cells, o);
	}
	cJSON_AddItemToObject(doc, "cells", cells);
	return doc;
}

int bv_site_data(bv_site *s)
{
	int rc = bv_site_mkdir(s, "data");
	if (!rc)
		rc = bv_site_json_put(s, "data/classes.json", classes(s));
	if (!rc)
		rc = bv_site_json_put(s, "data/runs.json", runs(s));
	if (!rc)
		rc = bv_site_json_put(s, "data/index.json", index_doc(s));
	return rc;
}
