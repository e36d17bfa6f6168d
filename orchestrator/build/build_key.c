/*
 * build_key.c - a build's keys: what the build is made of, hashed.  The
 * build's key (builds/KEY) hashes everything that changes the plugin; the
 * library's key (libs/KEY) the library side alone, so a build that differs
 * in the harness only takes its library from the cache.  Apart from
 * build.c because the key is a contract of its own: a cached build stays
 * valid only while the key's text stays the same.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "build_key.h"
#include "common.h"
#include "compat.h"
#include "env.h"
#include "fs.h"
#include "hash.h"
#include "proc.h"
#include "resolve.h"
#include "suite.h"
#include "user_ops.h"

const char *bv_build_cc(void)
{
	const char *cc = getenv("CC");
	return cc && *cc ? cc : "cc";
}

/* `cc -dumpfullversion`, once per run: part of every key. */
const char *bv_build_cc_version(void)
{
	static char *version;
	if (version)
		return version;
	char *argv[] = {(char *)bv_build_cc(), "-dumpfullversion", NULL};
	char *text = NULL;
	if (bv_run_capture(argv, 4096, &text) == 0) {
		text[strcspn(text, "\n")] = '\0';
		version = text;
	} else
		free(text);
	if (!version)
		version = bv_strdup("unknown");
	return version;
}

/* The first line of `tool --version` (stdout and stderr), or "" when it
 * fails or cannot be started (dash's sh has no --version): the key then
 * holds the tool's name only.  Once per tool per run, as the compiler's. */
static const char *tool_version(const char *tool)
{
	static struct {
		char *tool, *version;
	} seen[8];
	static size_t nseen;
	for (size_t i = 0; i < nseen; i++)
		if (!strcmp(seen[i].tool, tool))
			return seen[i].version;
	char *argv[] = {(char *)tool, "--version", NULL};
	char *tail = NULL;
	char *version = NULL;
	if (bv_run_tail(argv, "/dev/null", 4096, &tail, BV_ENV_BUILD) == 0 && tail) {
		tail[strcspn(tail, "\n")] = '\0';
		version = bv_strdup(tail);
	}
	free(tail);
	if (!version)
		version = bv_strdup("");
	if (nseen < sizeof(seen) / sizeof(seen[0])) {
		seen[nseen].tool = bv_strdup(tool);
		seen[nseen].version = version;
		return seen[nseen++].version;
	}
	static char *last;
	free(last);
	return last = version;
}

/* A file's part of a key: its label and its bytes, never where it lies.  Two
 * checkouts of the tool (a CI job's fresh workspace, the tests' clones) with
 * the same harness and compat files then share their cached builds; the
 * absolute path was in the key before, so every new checkout built again. */
int bv_build_key_file(bv_buf *b, const char *label, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	int rc = bv_read_file(path, 1 << 24, &text, &len);
	if (rc == 0) {
		bv_buf_printf(b, "file %s %zu\n", label, len);
		bv_buf_putn(b, text, len);
		free(text);
	}
	return rc;
}

/* The helper files a recipe names as {compat}/PATH (compat.c checked each
 * is a regular file inside compat/), in argument order, labelled with
 * PATH: editing a helper script rebuilds. */
static int append_helpers(bv_buf *b, const bv_shims *s)
{
	int rc = 0;
	for (size_t i = 0; i < s->nrecipe && rc == 0; i++)
		for (const char *p = strstr(s->recipe[i], "{compat}/"); p && rc == 0;
		     p = strstr(p + 1, "{compat}/")) {
			const char *start = p + 9;
			size_t n = strcspn(start, BV_COMPAT_PATH_END);
			char *rel = bv_asprintf("%.*s", (int)n, start);
			char *path = bv_asprintf("%s/%s", s->compat_dir ? s->compat_dir : ".", rel);
			char *label = bv_asprintf("helper %s", rel);
			rc = bv_build_key_file(b, label, path);
			free(rel), free(path), free(label);
		}
	return rc;
}

/* The build tool's version: make's for the default recipe, the recipe's
 * command's otherwise, and cmake's wherever the recipe or one of its
 * helper files mentions cmake (a script that runs it). */
static int append_build_tools(bv_buf *b, const bv_shims *s)
{
	const char *make = getenv("MAKE") && *getenv("MAKE") ? getenv("MAKE") : "make";
	int cmake = 0;
	if (!s->nrecipe) {
		bv_buf_printf(b, "tool %s %s\n", make, tool_version(make));
		return 0;
	}
	/* Only a command found on PATH is asked its version: one named by a
	 * path (./build.sh, {compat}/x.sh) may be a script that would take
	 * --version for a build; its name (and a helper's bytes) only. */
	const char *cmd = s->recipe[0];
	bv_buf_printf(b, "tool %s %s\n", cmd, strpbrk(cmd, "/{") ? "" : tool_version(cmd));
	for (size_t i = 0; i < s->nrecipe; i++)
		cmake |= strstr(s->recipe[i], "cmake") != NULL;
	bv_buf helpers = BV_BUF_INIT;
	int rc = append_helpers(&helpers, s);
	if (rc == 0)
		bv_buf_putn(b, helpers.s ? helpers.s : "", helpers.len);
	cmake |= helpers.len && memmem(helpers.s, helpers.len, "cmake", 5) != NULL;
	bv_buf_free(&helpers);
	if (cmake)
		bv_buf_printf(b, "tool cmake %s\n", tool_version("cmake"));
	return rc;
}

/* The library's part of a build: what `make lib` or a
 * compat recipe leaves in {build} depends on the tree, its patches, the
 * recipe, the compiler, the build's environment and tools, and nothing of
 * the harness side (harness/, a suite, the ops file, a rule's cflags and
 * includes, which only the harness is compiled with).  A build whose
 * library key was built before takes that library from the cache
 * (libs/KEY: the patched tree and {build}) and builds the harness side
 * alone: editing a suite relinks each version's plugin instead of
 * building every library again. */
int bv_build_library_key(const bv_version *v, char out[41])
{
	bv_buf b = BV_BUF_INIT;
	int rc = 0;
	bv_buf_printf(&b, "%s library\ntree %s\ncc %s %s\n", BUILD_SCHEMA, v->tree, bv_build_cc(), bv_build_cc_version());
	for (size_t i = 0; i < v->shims.npatches && rc == 0; i++)
		rc = bv_build_key_file(&b, "patch", v->shims.patches[i]);
	for (size_t i = 0; i < v->shims.nrecipe; i++)
		bv_buf_printf(&b, "recipe %zu %s\n", strlen(v->shims.recipe[i]), v->shims.recipe[i]);
	char *env = bv_build_env_key();
	bv_buf_printf(&b, "%s", env);
	free(env);
	if (rc == 0)
		rc = append_build_tools(&b, &v->shims);
	if (rc == 0)
		bv_hash_bytes(b.s, b.len, out);
	bv_buf_free(&b);
	return rc;
}

static int build_key(const bv_version *v, char out[41])
{
	bv_buf b = BV_BUF_INIT;
	int rc = 0;
	bv_buf_printf(&b, "%s\ntree %s\ncc %s %s\n", BUILD_SCHEMA, v->tree, bv_build_cc(), bv_build_cc_version());
	for (const char *const *f = plugin_cflags; *f; f++)
		bv_buf_printf(&b, "flag %s\n", *f);
	for (const char *const *f = harness_files; *f && rc == 0; f++) {
		char *path = bv_asprintf("%s/%s", bv_home(), *f);
		rc = bv_build_key_file(&b, *f, path);
		free(path);
	}
	for (size_t i = 0; i < v->shims.nrules; i++)
		bv_buf_printf(&b, "rule %s\n", v->shims.rules[i]);
	for (size_t i = 0; i < v->shims.nincludes && rc == 0; i++)
		rc = bv_build_key_file(&b, "include", v->shims.includes[i]);
	for (size_t i = 0; i < v->shims.ncflags; i++)
		bv_buf_printf(&b, "flag %s\n", v->shims.cflags[i]);
	for (size_t i = 0; i < v->shims.npatches && rc == 0; i++)
		rc = bv_build_key_file(&b, "patch", v->shims.patches[i]);
	for (size_t i = 0; i < v->shims.nrecipe; i++)
		bv_buf_printf(&b, "recipe %zu %s\n", strlen(v->shims.recipe[i]), v->shims.recipe[i]);
	/* The variables a build gets that change what it makes (env.c) */
	char *env = bv_build_env_key();
	bv_buf_printf(&b, "%s", env);
	free(env);
	if (bv_user_ops_key()) /* the user ops' table is linked in */
		bv_buf_printf(&b, "ops %s\n", bv_user_ops_key());
	if (rc == 0)
		rc = append_build_tools(&b, &v->shims);
	/* A project suite is the harness side (suite.h): its files, the API
	 * and the runtime that calls it. */
	if (rc == 0 && bv_suite_dir()) {
		bv_buf_puts(&b, "suite\n");
		rc = bv_suite_key(&b);
	}
	/* Without a project suite, the bundled catalog, built as a suite: its
	 * sources are the harness side. */
	if (rc == 0 && !bv_suite_dir()) {
		bv_buf_puts(&b, "catalog suite\n");
		for (const char *const *f = catalog_files; *f && rc == 0; f++) {
			char *path = bv_asprintf("%s/%s", bv_home(), *f);
			rc = bv_build_key_file(&b, *f, path);
			free(path);
		}
	}
	if (rc == 0)
		bv_hash_bytes(b.s, b.len, out);
	bv_buf_free(&b);
	return rc;
}

int bv_build_key(const bv_version *v, char out[41]) { return build_key(v, out); }
