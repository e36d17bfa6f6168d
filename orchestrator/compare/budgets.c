/*
 * budgets.c - the budgets file: parsed strictly, because a typo that makes
 * an override match nothing would silently tighten (or loosen) a release
 * gate.  Unknown keys, unknown groups, ops, backends and sizes, overrides
 * that match everything and two overrides for the same cells are errors.
 */
#include "budgets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "fs.h"
#include "json.h"

/* Far beyond any real budget, small enough that 1 + it stays exact. */
#define MAX_PCT 1e6

void bv_budgets_default(bv_budgets *b, double slowdown)
{
	memset(b, 0, sizeof(*b));
	b->default_slowdown = slowdown;
}

void bv_budgets_free(bv_budgets *b)
{
	for (size_t i = 0; i < b->nrules; i++) {
		bv_budget_rule *r = &b->rules[i];
		free(r->bench), free(r->op), free(r->backend), free(r->note);
	}
	free(b->rules);
	free(b->path);
	memset(b, 0, sizeof(*b));
}

static int check_keys(const char *name, const char *where, const cJSON *o, const char *const *known)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, o)
	{
		int ok = 0;
		for (int k = 0; known[k] && !ok; k++)
			ok = !strcmp(it->string, known[k]);
		if (!ok) {
			bv_buf list = BV_BUF_INIT;
			for (int k = 0; known[k]; k++)
				bv_buf_printf(&list, "%s%s", k ? ", " : "", known[k]);
			char *key = bv_escape(it->string); /* the file's text, shown escaped */
			int rc = bv_fail(BV_EINPUT, "%s: %sunknown key '%s' (known: %s)", name, where, key, list.s);
			free(key);
			bv_buf_free(&list);
			return rc;
		}
	}
	return 0;
}

static int parse_pct(const char *name, const char *field, const cJSON *v, double *out)
{
	if (!cJSON_IsNumber(v))
		return bv_fail(BV_EINPUT, "%s: %s: expected a number (percent slower allowed, e.g. 5)", name, field);
	double pct = v->valuedouble;
	if (!isfinite(pct) || pct < 0 || pct > MAX_PCT)
		return bv_fail(BV_EINPUT, "%s: %s: %g is not a percentage between 0 and %g", name, field, pct,
			       MAX_PCT);
	*out = pct / 100.0;
	return 0;
}

static const bv_bench *bench_of_op(const char *op, const char *bench)
{
	size_t n;
	const bv_bench *all = bv_bench_all(&n);
	for (size_t b = 0; b < n; b++) {
		if (bench && strcmp(all[b].name, bench))
			continue;
		for (size_t i = 0; i < all[b].nops; i++)
			if (!strcmp(all[b].ops[i].name, op))
				return &all[b];
	}
	return NULL;
}

static int has_backend(const bv_bench *b, const char *backend)
{
	for (const char *const *be = b->backends; *be; be++)
		if (!strcmp(*be, backend))
			return 1;
	return 0;
}

/* Names of what a field could have been, for the error message. */
static char *known_list(const char *field, const char *bench)
{
	size_t n;
	const bv_bench *all = bv_bench_all(&n);
	bv_buf b = BV_BUF_INIT;
	bv_strv seen = BV_STRV_INIT;
	for (size_t g = 0; g < n; g++) {
		if (bench && strcmp(all[g].name, bench))
			continue;
		size_t count = !strcmp(field, "bench") ? 1 : !strcmp(field, "op") ? all[g].nops : 0;
		if (!strcmp(field, "backend"))
			for (const char *const *be = all[g].backends; *be; be++)
				count++;
		for (size_t i = 0; i < count; i++) {
			const char *s = !strcmp(field, "bench") ? all[g].name
					: !strcmp(field, "op")  ? all[g].ops[i].name
								: all[g].backends[i];
			int dup = 0;
			for (size_t k = 0; k < seen.n && !dup; k++)
				dup = !strcmp(seen.v[k], s);
			if (dup)
				continue;
			bv_strv_push(&seen, s);
			bv_buf_printf(&b, "%s%s", b.len ? ", " : "", s);
		}
	}
	bv_strv_free(&seen);
	return bv_buf_detach(&b);
}

static int match_str(const char *name, int idx, const cJSON *o, const char *key, char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v)
		return 0;
	if (!cJSON_IsString(v) || !v->valuestring[0])
		return bv_fail(BV_EINPUT, "%s: overrides[%d].%s: expected a non-empty string", name, idx, key);
	*out = bv_strdup(v->valuestring);
	return 0;
}

static int parse_rule(const char *name, int idx, const cJSON *o, bv_budget_rule *r)
{
	static const char *const keys[] = {"bench", "op", "backend", "size", "slowdown_pct", "note", NULL};
	r->index = idx;
	if (!cJSON_IsObject(o))
		return bv_fail(BV_EINPUT, "%s: overrides[%d]: expected an object", name, idx);
	char where[48];
	snprintf(where, sizeof(where), "overrides[%d]: ", idx);
	int rc = check_keys(name, where, o, keys);
	if (!rc)
		rc = match_str(name, idx, o, "bench", &r->bench);
	if (!rc)
		rc = match_str(name, idx, o, "op", &r->op);
	if (!rc)
		rc = match_str(name, idx, o, "backend", &r->backend);
	if (!rc)
		rc = match_str(name, idx, o, "note", &r->note);
	if (rc)
		return rc;
	const cJSON *size = cJSON_GetObjectItemCaseSensitive(o, "size");
	if (cJSON_IsString(size))
		r->size = bv_size_parse(size->valuestring);
	else if (cJSON_IsNumber(size) && size->valuedouble >= 1 && size->valuedouble < 9007199254740992.0 &&
		 size->valuedouble == floor(size->valuedouble))
		r->size = (size_t)size->valuedouble;
	if (size && !r->size)
		return bv_fail(BV_EINPUT,
			       "%s: overrides[%d].size: expected a size like \"64K\", \"1024x4096\" or a count of "
			       "elements",
			       name, idx);
	char field[48];
	snprintf(field, sizeof(field), "overrides[%d].slowdown_pct", idx);
	const cJSON *pct = cJSON_GetObjectItemCaseSensitive(o, "slowdown_pct");
	if (!pct)
		return bv_fail(BV_EINPUT, "%s: overrides[%d]: missing \"slowdown_pct\" (the slowdown allowed, in percent)",
			       name, idx);
	if ((rc = parse_pct(name, field, pct, &r->slowdown)))
		return rc;
	if (!r->bench && !r->op && !r->backend && !r->size)
		return bv_fail(BV_EINPUT,
			       "%s: overrides[%d]: matches every cell (no bench, op, backend or size); use "
			       "\"default_slowdown_pct\"",
			       name, idx);
	/* A name that exists nowhere would make the override match nothing. */
	if (r->bench && !bv_bench_find(r->bench)) {
		char *known = known_list("bench", NULL), *shown = bv_escape(r->bench);
		rc = bv_fail(BV_EINPUT, "%s: overrides[%d].bench: unknown group '%s' (known: %s)", name, idx, shown,
			     known);
		free(known), free(shown);
		return rc;
	}
	if (r->op && !bench_of_op(r->op, r->bench)) {
		char *known = known_list("op", r->bench), *shown = bv_escape(r->op);
		rc = bv_fail(BV_EINPUT, "%s: overrides[%d].op: unknown op '%s'%s%s (known: %s)", name, idx, shown,
			     r->bench ? " in group " : "", r->bench ? r->bench : "", known);
		free(known), free(shown);
		return rc;
	}
	if (r->backend) {
		size_t n;
		const bv_bench *all = bv_bench_all(&n);
		int found = 0;
		for (size_t g = 0; g < n && !found; g++)
			found = (!r->bench || !strcmp(all[g].name, r->bench)) && has_backend(&all[g], r->backend);
		if (!found) {
			char *known = known_list("backend", r->bench), *shown = bv_escape(r->backend);
			rc = bv_fail(BV_EINPUT, "%s: overrides[%d].backend: unknown backend '%s'%s%s (known: %s)", name,
				     idx, shown, r->bench ? " in group " : "", r->bench ? r->bench : "", known);
			free(known), free(shown);
			return rc;
		}
	}
	return 0;
}

static int same_match(const bv_budget_rule *a, const bv_budget_rule *b)
{
	int eq_bench = a->bench && b->bench ? !strcmp(a->bench, b->bench) : a->bench == b->bench;
	int eq_op = a->op && b->op ? !strcmp(a->op, b->op) : a->op == b->op;
	int eq_be = a->backend && b->backend ? !strcmp(a->backend, b->backend) : a->backend == b->backend;
	return eq_bench && eq_op && eq_be && a->size == b->size;
}

int bv_budgets_parse(const char *name, const char *text, size_t len, double default_slowdown, bv_budgets *out)
{
	static const char *const keys[] = {"schema_version", "default_slowdown_pct", "overrides", NULL};
	bv_budgets_default(out, default_slowdown);
	cJSON *doc;
	int rc = bv_json_parse(name, text, len, &doc);
	if (rc)
		return rc;
	if (!cJSON_IsObject(doc))
		rc = bv_fail(BV_EINPUT, "%s: expected an object with \"default_slowdown_pct\" and \"overrides\"", name);
	if (!rc)
		rc = check_keys(name, "", doc, keys);
	const cJSON *sv = cJSON_GetObjectItemCaseSensitive(doc, "schema_version");
	if (!rc && sv && !(cJSON_IsNumber(sv) && sv->valuedouble == 1))
		rc = bv_fail(BV_EINPUT, "%s: schema_version: this bench-versions reads budgets schema 1", name);
	const cJSON *def = cJSON_GetObjectItemCaseSensitive(doc, "default_slowdown_pct");
	if (!rc && def)
		rc = parse_pct(name, "default_slowdown_pct", def, &out->default_slowdown);
	const cJSON *ovr = cJSON_GetObjectItemCaseSensitive(doc, "overrides");
	if (!rc && ovr && !cJSON_IsArray(ovr))
		rc = bv_fail(BV_EINPUT, "%s: overrides: expected an array of objects", name);
	if (!rc && ovr) {
		int n = cJSON_GetArraySize(ovr);
		out->rules = bv_xcalloc((size_t)n + 1, sizeof(bv_budget_rule));
		const cJSON *o;
		cJSON_ArrayForEach(o, ovr)
		{
			bv_budget_rule *r = &out->rules[out->nrules++];
			if ((rc = parse_rule(name, (int)out->nrules - 1, o, r)))
				break;
			for (size_t k = 0; k + 1 < out->nrules; k++)
				if (same_match(&out->rules[k], r)) {
					rc = bv_fail(BV_EINPUT,
						     "%s: overrides[%d] matches the same cells as overrides[%d]; keep one",
						     name, r->index, out->rules[k].index);
					break;
				}
			if (rc)
				break;
		}
	}
	cJSON_Delete(doc);
	if (rc)
		bv_budgets_free(out);
	else
		out->path = bv_strdup(name);
	return rc;
}

int bv_budgets_load(const char *path, double default_slowdown, bv_budgets *out)
{
	char *text;
	size_t len;
	bv_budgets_default(out, default_slowdown);
	int rc = bv_read_file(path, 1 << 20, &text, &len);
	if (rc)
		return bv_fail_context(BV_EINPUT, "budgets file");
	rc = bv_budgets_parse(path, text, len, default_slowdown, out);
	free(text);
	return rc;
}

static int specificity(const bv_budget_rule *r)
{
	return !!r->bench + !!r->op + !!r->backend + !!r->size;
}

double bv_budget_for(const bv_budgets *b, const char *bench, const char *op, const char *backend, size_t size,
		     const bv_budget_rule **rule)
{
	const bv_budget_rule *best = NULL;
	for (size_t i = 0; i < b->nrules; i++) {
		const bv_budget_rule *r = &b->rules[i];
		if ((r->bench && strcmp(r->bench, bench)) || (r->op && strcmp(r->op, op)) ||
		    (r->backend && strcmp(r->backend, backend)) || (r->size && r->size != size))
			continue;
		if (!best || specificity(r) > specificity(best) ||
		    (specificity(r) == specificity(best) && r->slowdown < best->slowdown))
			best = r;
	}
	if (rule)
		*rule = best;
	return best ? best->slowdown : b->default_slowdown;
}
