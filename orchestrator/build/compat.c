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
 *                  "patches": [ "patches/fix.patch" ],
 *                  "build": [ "make", "-C", "{src}", "BUILD={build}", "lib" ],
 *                  "note": "why this rule exists" } ] }
 *
 * "patches" are unified diffs applied (patch -p1) to the build's own copy of
 * the sources, never to the shared source cache; "build" replaces the
 * library's build command (docs/compat.md), its {compat}/PATH arguments
 * naming helper files here.  "adapter" (sources that gave a library without
 * kernels.h the kernels API) is retired: a rule naming one is refused, so
 * that a project moves to a suite (docs/adapters.md) instead of being
 * measured some other way without being told.
 *
 * The file is trusted no more than any other input: unknown keys, wrong
 * types, paths leaving compat/ and malformed ranges are errors naming the
 * file and the rule.  BENCH_VERSIONS_COMPAT names another compat.json (tests,
 * a project's own shims).
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "compat.h"
#include "fs.h"
#include "json.h"
#include "project.h"

const char *bv_compat_path(void)
{
	static char *path;
	const char *env = getenv("BENCH_VERSIONS_COMPAT");
	if (env && *env)
		return env;
	/* A project file's own rules; a foreign project naming none has none:
	 * the tool's rules are about its bundled kernels, not someone else's. */
	const bv_project *p = bv_project_current();
	if (!p->builtin)
		return p->compat;
	if (!path)
		path = bv_asprintf("%s/compat/compat.json", bv_home());
	return path;
}

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

/* A file named by a rule must stay inside compat/ (the directory of
 * compat.json), also through symlinks, and exist as a regular file (not
 * a FIFO or a device: reading one would wait or never end). */
static const char *inside_check(const bv_compat *c, const char *rel)
{
	if (!bv_path_lexically_inside(rel))
		return "must be a path inside compat/";
	char *full = bv_asprintf("%s/%s", c->dir, rel);
	char real[PATH_MAX];
	struct stat st;
	const char *why = NULL;
	if (!bv_exists(full))
		why = "names a file that does not exist";
	else if (!bv_path_inside(c->dir, full, real))
		why = "must be a path inside compat/";
	else if (bv_is_dir(full))
		why = "names a directory, not a file";
	else if (stat(full, &st) != 0)
		why = "names a file that cannot be read";
	else if (S_ISFIFO(st.st_mode))
		/* The build's reads would wait for a writer: its key hashes the
		 * file, then patch or cc read it. */
		why = "is a FIFO, not a regular file";
	else if (!S_ISREG(st.st_mode))
		why = "is a device or a socket, not a regular file";
	free(full);
	return why;
}

/* The helper file a recipe argument names after "{compat}/": up to the end
 * of the argument or a BV_COMPAT_PATH_END character.  Returns its length;
 * *start is where it begins. */
static size_t helper_path(const char *p, const char **start)
{
	*start = p + 9; /* strlen("{compat}/") */
	return strcspn(*start, BV_COMPAT_PATH_END);
}

/* A recipe argument may hold spaces (one argv entry each), but no control
 * characters, and only the placeholders bv_build knows.  {compat} must be
 * followed by the path of a regular file inside compat/ (a helper script,
 * hashed into the build key: editing it rebuilds); msg gets the details. */
static const char *recipe_arg_check(const bv_compat *c, const char *s, char *msg, size_t len)
{
	if (!*s)
		return "each \"build\" argument must be a non-empty string";
	for (const char *p = s; *p; p++) {
		if (iscntrl((unsigned char)*p))
			return "a \"build\" argument contains a control character";
		if (*p == '{' && strncmp(p, "{src}", 5) != 0 && strncmp(p, "{build}", 7) != 0 &&
		    strncmp(p, "{compat}", 8) != 0)
			return "unknown placeholder in \"build\" (known: {src}, {build}, {compat})";
		if (!strncmp(p, "{compat}", 8)) {
			const char *start;
			size_t n = p[8] == '/' ? helper_path(p, &start) : 0;
			if (!n)
				return "{compat} in \"build\" must be followed by /PATH, a file inside compat/ "
				       "(e.g. {compat}/build.sh)";
			char *rel = bv_asprintf("%.*s", (int)n, start);
			const char *why = inside_check(c, rel);
			if (why)
				snprintf(msg, len, "\"build\" names {compat}/%.64s, which %s", rel,
					 strcmp(why, "must be a path inside compat/") ? why : "is not a path inside compat/");
			free(rel);
			if (why)
				return msg;
		}
	}
	return NULL;
}

/* Checks one rule completely, so a bad file fails at load, not mid-run. */
static int check_rule(const bv_compat *c, int i, const cJSON *r)
{
	static const char *const known[] = {"id", "versions", "include", "defines", "cflags", "patches",
					    "build", "note", NULL};
	if (!cJSON_IsObject(r))
		return rule_error(c, i, NULL, "expected an object");
	const char *id = bv_json_str(r, "id");
	if (!id || !printable_word(id))
		return rule_error(c, i, NULL, "\"id\" must be a non-empty word");
	/* Before every other check: a rule written for an adapter is told
	 * what replaced it, whatever else it holds.  Ignoring the key would
	 * measure the bundled catalog against a library it does not fit. */
	if (cJSON_GetObjectItemCaseSensitive(r, "adapter"))
		return rule_error(c, i, id,
				  "\"adapter\" is retired: describe the library's benchmarks as a suite instead "
				  "(a project file's \"suite\"); docs/adapters.md shows how to move an adapter to a suite");
	for (const cJSON *m = r->child; m; m = m->next) {
		int ok = 0;
		for (int k = 0; known[k]; k++)
			ok |= strcmp(m->string, known[k]) == 0;
		if (!ok) {
			char msg[160];
			snprintf(msg, sizeof(msg), "unknown key \"%.64s\" (known: id, versions, include, defines, cflags, patches, build, note)", m->string);
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
	char msg[200];
	const cJSON *inc = cJSON_GetObjectItemCaseSensitive(r, "include");
	if (inc) {
		if (!cJSON_IsString(inc))
			return rule_error(c, i, id, "\"include\" must be a path inside compat/");
		const char *why = inside_check(c, inc->valuestring);
		if (why) {
			snprintf(msg, sizeof(msg), "\"include\" \"%.64s\" %s", inc->valuestring, why);
			return rule_error(c, i, id, msg);
		}
	}
	const cJSON *patches = cJSON_GetObjectItemCaseSensitive(r, "patches");
	if (patches) {
		if (!cJSON_IsArray(patches))
			return rule_error(c, i, id, "\"patches\" must be an array of paths inside compat/");
		for (const cJSON *p = patches->child; p; p = p->next) {
			if (!cJSON_IsString(p))
				return rule_error(c, i, id, "\"patches\" must be an array of paths inside compat/");
			const char *why = inside_check(c, p->valuestring);
			if (why) {
				snprintf(msg, sizeof(msg), "patch \"%.64s\" %s", p->valuestring, why);
				return rule_error(c, i, id, msg);
			}
		}
	}
	const cJSON *recipe = cJSON_GetObjectItemCaseSensitive(r, "build");
	if (recipe) {
		if (!cJSON_IsArray(recipe) || !recipe->child)
			return rule_error(c, i, id, "\"build\" must be a non-empty array of strings (a command's argv)");
		int has_build = 0;
		for (const cJSON *a = recipe->child; a; a = a->next) {
			if (!cJSON_IsString(a))
				return rule_error(c, i, id, "\"build\" must be a non-empty array of strings (a command's argv)");
			const char *why = recipe_arg_check(c, a->valuestring, msg, sizeof(msg));
			if (why)
				return rule_error(c, i, id, why);
			has_build |= strstr(a->valuestring, "{build}") != NULL;
		}
		if (!has_build)
			return rule_error(c, i, id, "\"build\" must pass {build}: the directory that receives libkernels.a");
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
	if (!path) { /* no rules (bv_compat_path) */
		static const char none[] = "{\"schema_version\": 1, \"rules\": []}";
		return bv_compat_parse("(no compat rules)", none, sizeof(none) - 1, out);
	}
	char *text;
	size_t len;
	int rc = bv_read_file(path, BV_COMPAT_MAX, &text, &len);
	if (rc)
		return rc;
	rc = bv_compat_parse(path, text, len, out);
	free(text);
	return rc;
}

int bv_compat_parse(const char *path, const char *text, size_t len, bv_compat **out)
{
	*out = NULL;
	bv_compat *c = bv_xcalloc(1, sizeof(*c));
	c->path = bv_strdup(path);
	c->dir = bv_strdup(path);
	char *slash = strrchr(c->dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(c->dir, ".");
	int rc = bv_json_parse(path, text, len, &c->doc);
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
	out->compat_dir = bv_strdup(c->dir);
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
		const cJSON *patches = cJSON_GetObjectItemCaseSensitive(r, "patches");
		for (const cJSON *p = patches ? patches->child : NULL; p; p = p->next)
			push(&out->patches, &out->npatches, bv_asprintf("%s/%s", c->dir, p->valuestring));
		/* One command builds the library: the last matching rule's wins. */
		const cJSON *recipe = cJSON_GetObjectItemCaseSensitive(r, "build");
		if (recipe) {
			for (size_t k = 0; k < out->nrecipe; k++)
				free(out->recipe[k]);
			free(out->recipe);
			out->recipe = NULL, out->nrecipe = 0;
			for (const cJSON *a = recipe->child; a; a = a->next)
				push(&out->recipe, &out->nrecipe, bv_strdup(a->valuestring));
			free(out->recipe_rule);
			out->recipe_rule = bv_strdup(bv_json_str(r, "id"));
		}
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
	free_list(s->patches, s->npatches);
	free_list(s->recipe, s->nrecipe);
	free(s->recipe_rule);
	free(s->compat_dir);
	memset(s, 0, sizeof(*s));
}
