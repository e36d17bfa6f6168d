/*
 * compat.c - the compat stage: which shims apply to a version.
 *
 * compat/compat.json lists rules; each names a semver range over the kernel
 * library's own version (read from VERSION in the resolved tree, never from
 * the ref name) and what to apply to builds in that range:
 *
 *   { "schema_version": 1,
 *     "rules": [ { "id": "kernels-0.1", "versions": "0.1.x",
 *                  "include": "shims/kernels-0.1.h",
 *                  "defines": { "NAME": "VALUE" }, "cflags": [ "-O2" ],
 *                  "note": "why this rule exists" } ] }
 *
 * The file is trusted no more than any other input: unknown keys, wrong
 * types, paths leaving compat/ and malformed ranges are errors naming the
 * file and the rule.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "json.h"
#include "stages.h"

struct bv_compat {
	char *path; /* compat.json */
	char *dir;  /* its directory: includes are relative to it */
	cJSON *doc;
};

static int rule_error(const bv_compat *c, int i, const char *id, const char *what)
{
	return bv_fail(BV_EINPUT, "%s: rule %d%s%s%s: %s", c->path, i, id ? " ('" : "", id ? id : "",
		       id ? "')" : "", what);
}

static int valid_define_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

static int printable_word(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isgraph((unsigned char)*s))
			return 0;
	return 1;
}

/* Checks one rule completely, so a bad file fails at load, not mid-run. */
static int check_rule(const bv_compat *c, int i, const cJSON *r)
{
	static const char *const known[] = {"id", "versions", "include", "defines", "cflags", "note", NULL};
	if (!cJSON_IsObject(r))
		return rule_error(c, i, NULL, "expected an object");
	const char *id = bv_json_str(r, "id");
	if (!id || !printable_word(id))
		return rule_error(c, i, NULL, "\"id\" must be a non-empty word");
	for (const cJSON *m = r->child; m; m = m->next) {
		int ok = 0;
		for (int k = 0; known[k]; k++)
			ok |= strcmp(m->string, known[k]) == 0;
		if (!ok) {
			char msg[160];
			snprintf(msg, sizeof(msg), "unknown key \"%.64s\" (known: id, versions, include, defines, cflags, note)", m->string);
			return rule_error(c, i, id, msg);
		}
	}
	const char *range = bv_json_str(r, "versions");
	if (!range)
		return rule_error(c, i, id, "\"versions\" (a semver range) is required");
	bv_semver probe = {0};
	char err[200];
	if (bv_semver_satisfies(&probe, range, err, sizeof(err)) < 0)
		return rule_error(c, i, id, err);
	const cJSON *inc = cJSON_GetObjectItemCaseSensitive(r, "include");
	if (inc) {
		if (!cJSON_IsString(inc) || !printable_word(inc->valuestring) ||
		    inc->valuestring[0] == '/' || strstr(inc->valuestring, ".."))
			return rule_error(c, i, id, "\"include\" must be a path inside compat/");
		char *full = bv_asprintf("%s/%s", c->dir, inc->valuestring);
		int exists = bv_exists(full);
		free(full);
		if (!exists)
			return rule_error(c, i, id, "\"include\" names a file that does not exist");
	}
	const cJSON *defs = cJSON_GetObjectItemCaseSensitive(r, "defines");
	if (defs) {
		if (!cJSON_IsObject(defs))
			return rule_error(c, i, id, "\"defines\" must be an object of NAME: \"VALUE\"");
		for (const cJSON *d = defs->child; d; d = d->next)
			if (!valid_define_name(d->string) || !cJSON_IsString(d) ||
			    (d->valuestring[0] && !printable_word(d->valuestring)))
				return rule_error(c, i, id, "a define needs a C identifier and a string value without spaces");
	}
	const cJSON *flags = cJSON_GetObjectItemCaseSensitive(r, "cflags");
	if (flags) {
		if (!cJSON_IsArray(flags))
			return rule_error(c, i, id, "\"cflags\" must be an array of strings");
		for (const cJSON *f = flags->child; f; f = f->next)
			if (!cJSON_IsString(f) || f->valuestring[0] != '-' || !printable_word(f->valuestring))
				return rule_error(c, i, id, "each cflag must be one word starting with '-'");
	}
	return 0;
}

int bv_compat_load(const char *path, bv_compat **out)
{
	*out = NULL;
	bv_compat *c = calloc(1, sizeof(*c));
	if (!c)
		return bv_fail(BV_ERUN, "out of memory");
	c->path = bv_strdup(path);
	c->dir = bv_strdup(path);
	char *slash = strrchr(c->dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(c->dir, ".");
	int rc = bv_json_load(path, 1 << 20, &c->doc);
	if (rc == 0) {
		double sv;
		const cJSON *rules = cJSON_GetObjectItemCaseSensitive(c->doc, "rules");
		if (!cJSON_IsObject(c->doc) || bv_json_num(c->doc, "schema_version", &sv) != 0)
			rc = bv_fail(BV_EINPUT, "%s: expected an object with \"schema_version\" and \"rules\"", path);
		else if (sv != 1)
			rc = bv_fail(BV_EINPUT, "%s: schema_version %g is not supported (this bench-versions reads 1)", path, sv);
		else if (!cJSON_IsArray(rules))
			rc = bv_fail(BV_EINPUT, "%s: \"rules\" must be an array", path);
		else {
			int i = 0;
			for (const cJSON *r = rules->child; r && rc == 0; r = r->next)
				rc = check_rule(c, i++, r);
		}
	}
	if (rc) {
		bv_compat_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

static void push(char ***v, size_t *n, char *s)
{
	*v = bv_xrealloc(*v, (*n + 1) * sizeof(char *));
	(*v)[(*n)++] = s;
}

int bv_compat_match(const bv_compat *c, const bv_semver *kv, bv_shims *out)
{
	memset(out, 0, sizeof(*out));
	const cJSON *rules = cJSON_GetObjectItemCaseSensitive(c->doc, "rules");
	char err[200];
	for (const cJSON *r = rules->child; r; r = r->next) {
		if (bv_semver_satisfies(kv, bv_json_str(r, "versions"), err, sizeof(err)) != 1)
			continue;
		push(&out->rules, &out->nrules, bv_strdup(bv_json_str(r, "id")));
		const char *inc = bv_json_str(r, "include");
		if (inc)
			push(&out->includes, &out->nincludes, bv_asprintf("%s/%s", c->dir, inc));
		const cJSON *defs = cJSON_GetObjectItemCaseSensitive(r, "defines");
		for (const cJSON *d = defs ? defs->child : NULL; d; d = d->next)
			push(&out->cflags, &out->ncflags,
			     d->valuestring[0] ? bv_asprintf("-D%s=%s", d->string, d->valuestring)
					       : bv_asprintf("-D%s", d->string));
		const cJSON *flags = cJSON_GetObjectItemCaseSensitive(r, "cflags");
		for (const cJSON *f = flags ? flags->child : NULL; f; f = f->next)
			push(&out->cflags, &out->ncflags, bv_strdup(f->valuestring));
	}
	return 0;
}

void bv_compat_free(bv_compat *c)
{
	if (!c)
		return;
	cJSON_Delete(c->doc);
	free(c->path);
	free(c->dir);
	free(c);
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void bv_shims_free(bv_shims *s)
{
	free_list(s->rules, s->nrules);
	free_list(s->includes, s->nincludes);
	free_list(s->cflags, s->ncflags);
	memset(s, 0, sizeof(*s));
}
