/*
 * build.c - the build stage: one version's sources, its compat shims and the
 * fixed harness into a bench plugin, <cache>/builds/<key>/plugin.so.
 *
 * The key hashes everything that changes the binary: the library's tree id,
 * the shims (rule ids, included headers' contents, flags), the harness's
 * plugin sources, the compiler's version and the flags.  A key already in the
 * cache is reused without building.  A build happens in a temporary directory
 * renamed into place when complete, so the cache never holds half a build.
 *
 * The library is built through its own Makefile's contract (kernels/Makefile):
 * `make -C SRC BUILD=DIR lib` gives DIR/libkernels.a and DIR/link-flags.  The
 * archive is linked into the plugin with its symbols hidden (--exclude-libs)
 * and bound locally (-Bsymbolic), so several versions' copies of the same
 * function names coexist in one process.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "hash.h"
#include "stages.h"

#define BUILD_SCHEMA "bv-build/1"

static const char *compiler(void)
{
	const char *cc = getenv("CC");
	return cc && *cc ? cc : "cc";
}

/* `cc -dumpfullversion`, once per run: part of every key. */
static const char *compiler_version(void)
{
	static char *version;
	if (version)
		return version;
	char *argv[] = {(char *)compiler(), "-dumpfullversion", NULL};
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

static const char *const harness_files[] = {"harness/plugin.c", "harness/plugin.h", "harness/ops.def", NULL};
static const char *const plugin_cflags[] = {"-std=c11", "-O2", "-fPIC", "-shared", NULL};

static int append_file(bv_buf *b, const char *path)
{
	char *text = NULL;
	size_t len = 0;
	int rc = bv_read_file(path, 1 << 24, &text, &len);
	if (rc == 0) {
		bv_buf_printf(b, "file %s %zu\n", path, len);
		bv_buf_putn(b, text, len);
		free(text);
	}
	return rc;
}

static int build_key(const bv_version *v, char out[41])
{
	bv_buf b = BV_BUF_INIT;
	int rc = 0;
	bv_buf_printf(&b, "%s\ntree %s\ncc %s %s\n", BUILD_SCHEMA, v->tree, compiler(), compiler_version());
	for (const char *const *f = plugin_cflags; *f; f++)
		bv_buf_printf(&b, "flag %s\n", *f);
	for (const char *const *f = harness_files; *f && rc == 0; f++) {
		char *path = bv_asprintf("%s/%s", bv_home(), *f);
		rc = append_file(&b, path);
		free(path);
	}
	for (size_t i = 0; i < v->shims.nrules; i++)
		bv_buf_printf(&b, "rule %s\n", v->shims.rules[i]);
	for (size_t i = 0; i < v->shims.nincludes && rc == 0; i++)
		rc = append_file(&b, v->shims.includes[i]);
	for (size_t i = 0; i < v->shims.ncflags; i++)
		bv_buf_printf(&b, "flag %s\n", v->shims.cflags[i]);
	if (rc == 0)
		bv_hash_bytes(b.s, b.len, out);
	bv_buf_free(&b);
	return rc;
}

/* Records why the build failed, with the end of the log, on the version. */
static void failed(bv_version *v, const char *step, const char *log)
{
	char *tail = bv_file_tail(log, 2000);
	v->build_error = bv_asprintf("%s failed; end of %s:\n%s", step, log, tail);
	free(tail);
}

static int run_build(bv_version *v, const char *dir, const char *log)
{
	char *src = bv_asprintf("%s/src", dir);
	char *lib = bv_asprintf("%s/lib", dir);
	char *plugin = bv_asprintf("%s/plugin.so", dir);
	int rc = bv_copy_tree(v->src_dir, src, NULL);
	if (rc)
		goto out;

	bv_strv make = BV_STRV_INIT;
	bv_strv_push(&make, getenv("MAKE") && *getenv("MAKE") ? getenv("MAKE") : "make");
	bv_strv_pushf(&make, "-C%s", src);
	bv_strv_pushf(&make, "BUILD=%s", lib);
	bv_strv_push(&make, "lib");
	int status = bv_run(make.v, NULL, log);
	bv_strv_free(&make);
	if (status < 0) {
		rc = status;
		goto out;
	}
	if (status != 0) {
		failed(v, "building the library (make lib)", log);
		goto out;
	}

	/* The harness side, against this version's headers and shims. */
	bv_semver sv;
	bv_semver_parse(v->kernel_version, &sv);
	bv_strv cc = BV_STRV_INIT;
	bv_strv_push(&cc, compiler());
	for (const char *const *f = plugin_cflags; *f; f++)
		bv_strv_push(&cc, *f);
	bv_strv_pushf(&cc, "-I%s/include", src);
	bv_strv_pushf(&cc, "-I%s/harness", bv_home());
	bv_strv_pushf(&cc, "-DBV_KERNELS_VERSION_MAJOR=%lu", sv.major);
	bv_strv_pushf(&cc, "-DBV_KERNELS_VERSION_MINOR=%lu", sv.minor);
	bv_strv_pushf(&cc, "-DBV_KERNELS_VERSION_PATCH=%lu", sv.patch);
	for (size_t i = 0; i < v->shims.nincludes; i++) {
		bv_strv_push(&cc, "-include");
		bv_strv_push(&cc, v->shims.includes[i]);
	}
	for (size_t i = 0; i < v->shims.ncflags; i++)
		bv_strv_push(&cc, v->shims.cflags[i]);
	char *flags_path = bv_asprintf("%s/link-flags", lib);
	char *flags = NULL;
	if (bv_read_file(flags_path, 4096, &flags, NULL) != 0)
		flags = bv_strdup("-lm"); /* a release that predates link-flags */
	/* A library linked with the CUDA runtime lets the harness time cuda
	 * cells with CUDA events (plugin.c); its headers sit beside lib64. */
	const char *cudart = strstr(flags, "-L");
	if (strstr(flags, "-lcudart") && cudart) {
		size_t len = strcspn(cudart + 2, " \t\n");
		char *dir = bv_asprintf("%.*s", (int)len, cudart + 2);
		char *slash = strrchr(dir, '/');
		if (slash) {
			*slash = '\0';
			bv_strv_pushf(&cc, "-I%s/include", dir);
			bv_strv_push(&cc, "-DBV_WITH_CUDART=1");
		}
		free(dir);
	}
	bv_strv_pushf(&cc, "%s/harness/plugin.c", bv_home());
	bv_strv_pushf(&cc, "%s/libkernels.a", lib);
	bv_strv_split(&cc, flags);
	free(flags);
	free(flags_path);
	bv_strv_push(&cc, "-Wl,--exclude-libs,ALL");
	bv_strv_push(&cc, "-Wl,-Bsymbolic");
	bv_strv_push(&cc, "-o");
	bv_strv_push(&cc, plugin);
	status = bv_run(cc.v, NULL, log);
	bv_strv_free(&cc);
	if (status < 0)
		rc = status;
	else if (status != 0)
		failed(v, "compiling the harness against this version", log);
out:
	free(src);
	free(lib);
	free(plugin);
	return rc;
}

int bv_build(bv_version *v)
{
	char key[41];
	int rc = build_key(v, key);
	if (rc)
		return bv_fail_context(rc, "building %s", v->name);
	char *root = bv_asprintf("%s/builds", bv_cache_dir());
	char *final = bv_asprintf("%s/%s", root, key);
	char *plugin = bv_asprintf("%s/plugin.so", final);
	v->build_key = bv_strdup(key);
	if (bv_exists(plugin)) {
		v->cached = 1;
		v->plugin = plugin;
		free(root);
		free(final);
		return 0;
	}
	char *tmp = bv_mkdtemp_in(root, ".tmp-");
	if (!tmp) {
		free(root), free(final), free(plugin);
		return bv_fail_context(BV_ERUN, "building %s", v->name);
	}
	/* The log lives beside the build, not in it, so it survives a failure. */
	char *log = bv_asprintf("%s/%s.log", root, key);
	unlink(log);
	rc = run_build(v, tmp, log);
	free(log);
	if (rc == 0 && !v->build_error) {
		char *srcdir = bv_asprintf("%s/src", tmp);
		bv_rm_rf(srcdir); /* the sources stay in src/; the build needs only its outputs */
		free(srcdir);
		if (rename(tmp, final) != 0 && !bv_exists(plugin))
			rc = bv_fail(BV_ERUN, "cannot move build %s into place: %s", final, strerror(errno));
		v->plugin = bv_strdup(plugin);
	}
	bv_rm_rf(tmp);
	free(tmp);
	free(root);
	free(final);
	free(plugin);
	return rc ? bv_fail_context(rc, "building %s", v->name) : 0;
}
