/*
 * build_plugin.c - the harness side of a build: the harness compiled
 * against one version's headers and shims (a project suite, or the bundled
 * catalog as a suite, whose version-independent objects are compiled once
 * into the cache's objs/), the link contract's flags checked, plugin.so
 * linked and loaded once as a measuring process loads it.  And how a
 * failed step is told on the version (bv_build_failed and
 * bv_build_failed_because), with the compiler's first error.  Apart from
 * build.c because it is the part that runs on every build, the library
 * taken from the cache or not.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "build_key.h"
#include "build_link.h"
#include "build_plugin.h"
#include "cache_entry.h"
#include "common.h"
#include "compat.h"
#include "env.h"
#include "fs.h"
#include "hash.h"
#include "proc.h"
#include "resolve.h"
#include "suite.h"
#include "user_ops.h"

/* Records why the build failed, with the end of the log, on the version.
 * The log is what the version's Makefile and compiler printed: it reaches
 * the terminal and the results log escaped (bv_escape_lines). */
void bv_build_failed(bv_version *v, const char *step, const char *log)
{
	char *tail = bv_file_tail(log, 2000);
	char *shown = bv_escape_lines(tail);
	v->build_error = bv_asprintf("%s failed; end of %s:\n%s", step, log, shown);
	free(shown);
	free(tail);
}

/* A build failure that is no step's exit status (the link contract): why,
 * then the end of the log. */
void bv_build_failed_because(bv_version *v, const char *why, const char *log)
{
	char *tail = bv_file_tail(log, 2000);
	char *shown = bv_escape_lines(tail);
	v->build_error = bv_asprintf("%s; end of %s:\n%s", why, log, shown);
	free(shown);
	free(tail);
}

/* Checks {build}/link-flags against the link contract: flags (-l, -L,
 * -Wl,...) pass; any other word is a file, which must lie under lib (the
 * build's own directory: nothing outside the cached build may change what
 * a layout links later).  *stored gets the flags with lib written
 * "{build}", as plugin-link-flags keeps them: the build is made in a
 * temporary directory and renamed, and link_with expands {build} to where
 * it lies then.  Returns nonzero with the offending word in *bad. */
static int link_flags_check(const char *flags, const char *lib, char **stored, char **bad)
{
	*stored = NULL, *bad = NULL;
	bv_strv words = BV_STRV_INIT;
	bv_strv_split(&words, flags);
	char real_lib[PATH_MAX];
	if (!realpath(lib, real_lib))
		snprintf(real_lib, sizeof(real_lib), "%s", lib);
	for (size_t i = 0; i < words.n && !*bad; i++) {
		const char *w = words.v[i];
		char real[PATH_MAX];
		if (w[0] == '-')
			continue;
		if (w[0] != '/' || !realpath(w, real) || strncmp(real, real_lib, strlen(real_lib)) ||
		    real[strlen(real_lib)] != '/')
			*bad = bv_strdup(w);
	}
	bv_strv_free(&words);
	if (*bad)
		return 1;
	*stored = bv_build_replace_all(flags, lib, "{build}");
	return 0;
}

static off_t log_size(const char *log)
{
	struct stat st;
	return stat(log, &st) == 0 ? st.st_size : 0;
}

/* After a failed link: whether the linker refused an archive's code as not
 * position-independent (what it says in the log from offset on); if so the
 * version's build error says so, naming the archive, and 1 is returned. */
static int not_pic(bv_version *v, const char *log, off_t offset)
{
	char *text = NULL;
	size_t len = 0;
	if (bv_read_file(log, 1 << 24, &text, &len) != 0)
		return 0;
	const char *from = text + ((size_t)offset < len ? (size_t)offset : len);
	const char *hit = strstr(from, "recompile with -fPIC");
	if (!hit)
		hit = strstr(from, "recompile with -fpic");
	if (!hit) {
		free(text);
		return 0;
	}
	/* The line names the object: ".../libfoo.a(foo.c.o): relocation ..." */
	const char *line = hit;
	while (line > from && line[-1] != '\n')
		line--;
	const char *paren = strstr(line, ".a(");
	char *archive = NULL;
	if (paren && paren < hit) {
		const char *start = paren;
		while (start > line && start[-1] != ' ')
			start--;
		const char *base = start;
		for (const char *q = start; q < paren; q++)
			if (*q == '/')
				base = q + 1;
		/* {build}/NAME: the temporary directory's path means nothing */
		archive = bv_asprintf("{build}/%.*s", (int)(paren + 2 - base), base);
	}
	char *why = bv_asprintf(
		"the archive %s holds code that is not position-independent, which a plugin (a shared object) "
		"cannot link: build the library with -fPIC (CMake: -DCMAKE_POSITION_INDEPENDENT_CODE=ON; make: "
		"CFLAGS+=-fPIC) in the compat rule's recipe (docs/compat.md, the link contract)",
		archive ? archive : "in {build}");
	free(archive);
	bv_build_failed_because(v, why, log);
	free(why);
	free(text);
	return 1;
}

/* What a compile that could not find a header is told: where the harness
 * side looks, and when it runs. */
static const char header_hint[] =
	" (a header was not found: the harness side is compiled after the recipe ran, with -I {src} "
	"-I {src}/include -I {build} -I {build}/include and the rule's cflags; a header the library's "
	"build generates must be left in {build} or {build}/include: docs/compat.md, generated "
	"headers)";

/* The compiler said a header was not found, in the log's last lines. */
static int missing_header(const char *log)
{
	char *tail = bv_file_tail(log, 4000);
	int found = tail && strstr(tail, "No such file or directory") && strstr(tail, "#include");
	free(tail);
	return found;
}

/* The first "FILE:LINE:COL: error: ..." the compiler wrote to the log from
 * offset on, as "FILE:LINE: error: ..." (at most 300 bytes, escaped: the
 * text is the compiler's, about untrusted code), or NULL.  A file of the
 * build's copy of the sources (a library header) is named {src}/PATH: the
 * copy is gone once the build failed. */
static char *first_error(const char *log, off_t offset, const char *src)
{
	char *text = NULL;
	size_t len = 0;
	if (bv_read_file(log, 1 << 24, &text, &len) != 0)
		return NULL;
	regex_t re;
	if (regcomp(&re, "^([^:]+):([0-9]+):[0-9]+: (fatal )?error: (.*)$", REG_EXTENDED | REG_NEWLINE)) {
		free(text);
		return NULL;
	}
	char *found = NULL;
	regmatch_t m[5];
	const char *from = text + ((size_t)offset < len ? (size_t)offset : len);
	if (regexec(&re, from, 5, m, 0) == 0) {
		size_t n = strlen(src);
		int in_src = (size_t)(m[1].rm_eo - m[1].rm_so) > n && !strncmp(from + m[1].rm_so, src, n) &&
			     from[m[1].rm_so + (regoff_t)n] == '/';
		if (in_src)
			m[1].rm_so += (regoff_t)n;
		char *raw = bv_asprintf("%s%.*s:%.*s: error: %.*s", in_src ? "{src}" : "", (int)(m[1].rm_eo - m[1].rm_so),
					from + m[1].rm_so,
					(int)(m[2].rm_eo - m[2].rm_so), from + m[2].rm_so,
					(int)(m[4].rm_eo - m[4].rm_so > 300 ? 300 : m[4].rm_eo - m[4].rm_so),
					from + m[4].rm_so);
		found = bv_escape(raw);
		free(raw);
	}
	regfree(&re);
	free(text);
	return found;
}

/* Merges objects into out by a relocatable link (cc -r): one object, so
 * link_with and the layouts link it as any other. */
static int merge_objects(const bv_strv *objects, const char *out, const char *log)
{
	bv_strv ld = BV_STRV_INIT;
	bv_strv_push(&ld, bv_build_cc());
	bv_strv_push(&ld, "-r");
	bv_strv_push(&ld, "-nostdlib");
	bv_strv_push(&ld, "-o");
	bv_strv_push(&ld, out);
	for (size_t i = 0; i < objects->n; i++)
		bv_strv_push(&ld, objects->v[i]);
	int status = bv_run(ld.v, NULL, log, BV_ENV_BUILD);
	bv_strv_free(&ld);
	return status;
}

/* A suite build's harness side (suite.h; docs/suites-design.md): the
 * runtime harness/plugin/suite_plugin.c and the suite's .c files, each compiled
 * with the flags the catalog's plugin.c gets (cc->v[0..base): the plugin's
 * flags, this version's headers and compat shims) and this version's
 * number as BVS_VERSION_MAJOR/MINOR/PATCH (bv_suite.h: BVS_VERSION_LT),
 * merged into lib/plugin.o by a relocatable link, so link_with and the
 * layouts link it as any other.  A file that does not compile fails this
 * version's build, named with the first error's file and line (a suite
 * often compiles against some versions' API only).  Sets v->build_error
 * and returns 0 on a build failure; > 0 a step's status, < 0 an error. */
static int compile_suite(bv_version *v, bv_strv *cc, size_t base, const char *src, const char *lib,
			 const char *log)
{
	bv_strv files = BV_STRV_INIT, objects = BV_STRV_INIT;
	bv_strv_pushf(&files, "%s/harness/plugin/suite_plugin.c", bv_home());
	int status = bv_suite_sources(&files);
	bv_semver sv = {0};
	bv_semver_parse(v->kernel_version, &sv);
	for (size_t i = 0; status == 0 && !v->build_error && i < files.n; i++) {
		while (cc->n > base)
			free(cc->v[--cc->n]);
		cc->v[cc->n] = NULL;
		bv_strv_pushf(cc, "-DBVS_VERSION_MAJOR=%lu", sv.major);
		bv_strv_pushf(cc, "-DBVS_VERSION_MINOR=%lu", sv.minor);
		bv_strv_pushf(cc, "-DBVS_VERSION_PATCH=%lu", sv.patch);
		/* The tree's root, and a header the library's build generated
		 * where the recipe left it, so that a suite's sources find both. */
		bv_strv_pushf(cc, "-I%s", src);
		bv_strv_pushf(cc, "-I%s", lib);
		bv_strv_pushf(cc, "-I%s/include", lib);
		bv_strv_push(cc, "-c");
		bv_strv_push(cc, files.v[i]);
		bv_strv_push(cc, "-o");
		const char *name = strrchr(files.v[i], '/') + 1;
		bv_strv_pushf(cc, "%s/suite-%zu-%.*s.o", lib, i, (int)strlen(name) - 2, name);
		bv_strv_push(&objects, cc->v[cc->n - 1]);
		off_t before = log_size(log);
		status = bv_run(cc->v, NULL, log, BV_ENV_BUILD);
		if (status > 0) {
			char *first = first_error(log, before, src);
			const char *hint = missing_header(log) ? header_hint : "";
			char *why = first ? bv_asprintf("the suite does not compile against this version: %s%s", first, hint)
					  : bv_asprintf("the suite's %s does not compile against this version (%s exited %d)%s",
							files.v[i], cc->v[0], status, hint);
			bv_build_failed_because(v, why, log);
			free(first), free(why);
			status = 0;
		}
	}
	if (status == 0 && !v->build_error) {
		char *merged = bv_asprintf("%s/plugin.o", lib);
		status = merge_objects(&objects, merged, log);
		free(merged);
		if (status > 0)
			bv_build_failed(v, "merging the suite with its runtime (cc -r)", log), status = 0;
	}
	bv_strv_free(&files), bv_strv_free(&objects);
	return status;
}

/* The flags every catalog file is compiled with beside cc->v[0..base) (a
 * version's) or the fixed ones (catalog_fixed_object): -DBV_CATALOG_SUITE
 * (plugin.c then gives catalog.c its calls instead of defining the plugin;
 * suite_plugin.c's bv_plugin delegates the version, backends and memory to
 * them), and _GNU_SOURCE, as benches.c and expr.c are the host's code,
 * which the tool compiles with it too (strnlen). */
static void catalog_compile_args(bv_strv *cc, const char *source, const char *object)
{
	bv_strv_push(cc, "-DBV_CATALOG_SUITE=1");
	bv_strv_push(cc, "-D_GNU_SOURCE");
	bv_strv_push(cc, "-c");
	bv_strv_pushf(cc, "%s/%s", bv_home(), source);
	bv_strv_push(cc, "-o");
	bv_strv_push(cc, object);
}

/* The catalog's fixed part (catalog_fixed, merged into one object) from
 * the cache's objs/KEY/fixed.o, compiled there first when it is not.  Its key is
 * what can change the object: the compiler, the flags, the build
 * environment and the bytes of every harness file the catalog is made of.
 * Compiled in a ".tmp-" directory and renamed into place, so two builds at
 * once (--jobs, two runs sharing a cache) each see a whole object or none.
 * *path gets the object; returns 0, a step's status (> 0) or < 0. */
static int catalog_fixed_object(const char *log, char **path)
{
	bv_buf b = BV_BUF_INIT;
	bv_buf_printf(&b, "%s catalog objects\ncc %s %s\n", BUILD_SCHEMA, bv_build_cc(), bv_build_cc_version());
	for (const char *const *f = plugin_cflags; *f; f++)
		bv_buf_printf(&b, "flag %s\n", *f);
	char *env = bv_build_env_key();
	bv_buf_puts(&b, env);
	free(env);
	int rc = 0;
	for (int list = 0; list < 2 && rc == 0; list++)
		for (const char *const *f = list ? harness_files : catalog_files; *f && rc == 0; f++) {
			char *file = bv_asprintf("%s/%s", bv_home(), *f);
			rc = bv_build_key_file(&b, *f, file);
			free(file);
		}
	char key[41];
	if (rc == 0)
		bv_hash_bytes(b.s, b.len, key);
	bv_buf_free(&b);
	if (rc)
		return rc;
	char *root = bv_asprintf("%s/objs", bv_cache_dir());
	char *entry = bv_asprintf("%s/%s", root, key), *why = NULL;
	*path = bv_asprintf("%s/fixed.o", entry);
	/* Builds running at once (--jobs) wait for the first to compile it:
	 * a lock on objs/ itself, so that no lock file shows as an entry. */
	rc = bv_mkdir_p(root);
	int lock = rc == 0 ? open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	while (lock >= 0 && flock(lock, LOCK_EX) != 0 && errno == EINTR && !bv_interrupted())
		;
	/* Taken only as it was sealed (cache_entry.h): an empty, garbage or
	 * replaced object, or anything else under the key (a FIFO would block
	 * the link), is compiled again and replaces the entry. */
	struct stat st;
	FILE *f;
	if (rc == 0 && lstat(entry, &st) == 0) {
		if (bv_entry_check(entry, &why)) {
			if (lock >= 0)
				close(lock);
			utimensat(AT_FDCWD, entry, NULL, 0); /* last use, for cache trim */
			if ((f = fopen(log, "a"))) {
				fprintf(f, "harness: the catalog's version-independent objects taken from the cache (%s)\n",
					*path);
				fclose(f);
			}
			free(root), free(entry);
			return 0;
		}
		if ((f = fopen(log, "a"))) {
			fprintf(f, "harness: the cache's entry %s was damaged (%s): set aside, compiled again\n", entry,
				why);
			fclose(f);
		}
		free(why);
		bv_entry_discard(entry);
	}
	char *tmp = rc == 0 ? bv_mkdtemp_in(root, ".tmp-") : NULL;
	if (!tmp) {
		if (lock >= 0)
			close(lock);
		free(root), free(entry), free(*path), *path = NULL;
		return rc ? rc : -1;
	}
	bv_strv objects = BV_STRV_INIT;
	int status = 0;
	for (size_t i = 0; status == 0 && catalog_fixed[i]; i++) {
		bv_strv cc = BV_STRV_INIT;
		bv_strv_push(&cc, bv_build_cc());
		for (const char *const *flag = plugin_cflags; *flag; flag++)
			bv_strv_push(&cc, *flag);
		bv_strv_pushf(&cc, "-I%s/harness/plugin", bv_home());
		bv_strv_pushf(&cc, "-I%s/harness/common", bv_home());
		bv_strv_pushf(&objects, "%s/%zu.o", tmp, i);
		catalog_compile_args(&cc, catalog_fixed[i], objects.v[i]);
		status = bv_run(cc.v, NULL, log, BV_ENV_BUILD);
		bv_strv_free(&cc);
	}
	char *merged = bv_asprintf("%s/fixed.o", tmp);
	if (status == 0)
		status = merge_objects(&objects, merged, log);
	for (size_t i = 0; i < objects.n; i++)
		unlink(objects.v[i]); /* the entry holds the merged object alone */
	if (status == 0)
		status = bv_entry_seal(tmp);
	if (status == 0 && rename(tmp, entry) != 0)
		status = bv_fail(BV_ERUN, "cannot keep the catalog's objects as %s: %s", entry, strerror(errno));
	if (status == 0 && (f = fopen(log, "a"))) {
		fprintf(f, "harness: the catalog's version-independent objects compiled once, into %s\n", *path);
		fclose(f);
	}
	bv_rm_rf(tmp);
	if (lock >= 0)
		close(lock); /* after the rename: a waiting build finds the object */
	bv_strv_free(&objects);
	free(merged), free(tmp), free(root), free(entry);
	if (status != 0)
		free(*path), *path = NULL;
	return status;
}

/* The catalog as a suite: plugin.c, the version's calls into its library, compiled with the
 * catalog's flags (cc->v[0..base): the plugin's flags, this version's
 * headers, shims and version macros), merged into object (lib/plugin.o)
 * after the fixed part
 * (catalog_fixed_object).  Returns the failing step's status (the caller
 * says the harness did not compile), or < 0 with an error. */
static int compile_catalog(bv_strv *cc, size_t base, const char *lib, const char *object, const char *log)
{
	char *fixed = NULL;
	int status = catalog_fixed_object(log, &fixed);
	if (status != 0)
		return status;
	/* Its entry held until merged: trim does not take it meanwhile. */
	char *entry = bv_strdup(fixed);
	*strrchr(entry, '/') = '\0';
	int hold = bv_entry_hold(entry);
	free(entry);
	while (cc->n > base)
		free(cc->v[--cc->n]);
	cc->v[cc->n] = NULL;
	char *own = bv_asprintf("%s/catalog-plugin.o", lib);
	catalog_compile_args(cc, CATALOG_VERSIONED, own);
	status = bv_run(cc->v, NULL, log, BV_ENV_BUILD);
	if (status == 0) {
		bv_strv objects = BV_STRV_INIT;
		bv_strv_push(&objects, fixed);
		bv_strv_push(&objects, own);
		status = merge_objects(&objects, object, log);
		bv_strv_free(&objects);
	}
	if (hold >= 0)
		close(hold);
	free(own), free(fixed);
	return status;
}

/* The compiler and its flags for the harness side: against this
 * version's headers and shims (a suite calls the library's own API, the
 * catalog kernels.h's). */
static void harness_flags(const bv_version *v, const char *src, bv_strv *cc)
{
	bv_semver sv;
	bv_semver_parse(v->kernel_version, &sv);
	bv_strv_push(cc, bv_build_cc());
	for (const char *const *f = plugin_cflags; *f; f++)
		bv_strv_push(cc, *f);
	bv_strv_pushf(cc, "-I%s/include", src);
	/* the plugin's own files, then what it shares with the host programs
	 * (docs/architecture.md, "The harness's three products") */
	bv_strv_pushf(cc, "-I%s/harness/plugin", bv_home());
	bv_strv_pushf(cc, "-I%s/harness/common", bv_home());
	bv_strv_pushf(cc, "-DBV_KERNELS_VERSION_MAJOR=%lu", sv.major);
	bv_strv_pushf(cc, "-DBV_KERNELS_VERSION_MINOR=%lu", sv.minor);
	bv_strv_pushf(cc, "-DBV_KERNELS_VERSION_PATCH=%lu", sv.patch);
	for (size_t i = 0; i < v->shims.nincludes; i++) {
		bv_strv_push(cc, "-include");
		bv_strv_push(cc, v->shims.includes[i]);
	}
	for (size_t i = 0; i < v->shims.ncflags; i++)
		bv_strv_push(cc, v->shims.cflags[i]);
}

/* {build}/link-flags read (-lm for a release that predates it) and held
 * to the link contract: *stored gets them as the plugin links them.  A
 * name that is not a file under {build} fails the version (-1, with
 * v->build_error set).  A library linked with the CUDA runtime lets the
 * harness time cuda cells with CUDA events (plugin.c): its headers, beside
 * lib64, go to cc. */
static int read_link_flags(bv_version *v, const char *lib, const char *log, bv_strv *cc, char **stored)
{
	char *flags_path = bv_asprintf("%s/link-flags", lib);
	char *flags = NULL, *bad = NULL;
	if (bv_read_file(flags_path, 4096, &flags, NULL) != 0)
		flags = bv_strdup("-lm");
	free(flags_path);
	if (link_flags_check(flags, lib, stored, &bad) != 0) {
		char *why = bv_asprintf("{build}/link-flags names %s, which is not a file under {build}: copy what the "
					"plugin must link into {build} (archives there are linked anyway) or name a "
					"system library with -l (docs/compat.md, the link contract)",
					bad);
		bv_build_failed_because(v, why, log);
		free(why), free(bad), free(flags);
		return -1;
	}
	const char *cudart = strstr(flags, "-L");
	if (strstr(flags, "-lcudart") && cudart) {
		size_t len = strcspn(cudart + 2, " \t\n");
		char *libdir = bv_asprintf("%.*s", (int)len, cudart + 2);
		char *slash = strrchr(libdir, '/');
		if (slash) {
			*slash = '\0';
			bv_strv_pushf(cc, "-I%s/include", libdir);
			bv_strv_push(cc, "-DBV_WITH_CUDART=1");
		}
		free(libdir);
	}
	free(flags);
	return 0;
}

/* The harness compiled once into lib/plugin.o, then linked: the layouts
 * link the same object again with a pad before the library
 * (bv_build_layouts).  A suite's harness, or the catalog as a suite, is
 * compiled by its own step.  Returns a command's status (0, > 0 failed,
 * < 0 an error); 0 with v->build_error set when the version failed. */
static int compile_harness(bv_version *v, bv_strv *cc, size_t flags_end, const char *suite, const char *src,
			   const char *lib, const char *log)
{
	char *object = bv_asprintf("%s/plugin.o", lib);
	int status;
	if (suite)
		status = compile_suite(v, cc, flags_end, src, lib, log);
	else
		status = compile_catalog(cc, flags_end, lib, object, log);
	free(object);
	return status;
}

/* Whether dir/plugin.so loads as a measuring process loads it (bv-runner
 * --load: dlopen with every symbol bound now, the entry point, the ABI).
 * A link leaves undefined symbols for the loader to find, so a library
 * missing a function (an archive damaged, a recipe's mistake) links; it
 * must fail here, as this version's build, and never be cached: cached, it
 * stopped every later run at its first measuring process. */
static void plugin_loads(bv_version *v, const char *dir, const char *log)
{
	bv_strv argv = BV_STRV_INIT;
	bv_strv_pushf(&argv, "%s/bv-runner", bv_libexec());
	bv_strv_push(&argv, "--load");
	bv_strv_pushf(&argv, "build=%s/plugin.so", dir); /* a label of ours: a name may hold '=' */
	int status = bv_run(argv.v, NULL, log, BV_ENV_RUNNER);
	bv_strv_free(&argv);
	if (status != 0)
		bv_build_failed_because(v, "the plugin it built does not load (bv-runner --load, as a measuring process "
				           "loads it); nothing was cached",
			                log);
}

/* The harness side of a build, over the library in lib: plugin.o, the
 * link flags it was linked with, the user ops' table, plugin.so and (for
 * a CUDA library) its host-only variant.  0 with v->build_error set when
 * the version does not build; < 0 on an error. */
int bv_build_harness(bv_version *v, const char *dir, const char *src, const char *lib, const char *log)
{
	const char *suite = bv_suite_dir();
	bv_strv cc = BV_STRV_INIT;
	char *stored = NULL;
	harness_flags(v, src, &cc);
	if (read_link_flags(v, lib, log, &cc, &stored) != 0) {
		bv_strv_free(&cc);
		return 0;
	}
	size_t flags_end = cc.n; /* the user ops' table is compiled with the same flags */
	int status = compile_harness(v, &cc, flags_end, suite, src, lib, log);
	if (status == 0 && v->build_error) {
		free(stored);
		bv_strv_free(&cc);
		return 0;
	}
	char *used = bv_asprintf("%s/plugin-link-flags", lib);
	if (status == 0 && bv_write_file_atomic(used, stored, strlen(stored)) != 0)
		status = -1;
	free(used);
	free(stored);
	/* The user ops' table is for the catalog's harness (plugin.c), which
	 * a suite build does not hold. */
	if (status == 0 && !suite)
		status = bv_user_ops_build(&cc, flags_end, lib, log);
	bv_strv_free(&cc);
	char *plugin = bv_asprintf("%s/plugin.so", dir);
	off_t before = log_size(log);
	int pic = status == 0 && (status = bv_build_link_plugin(lib, 0, plugin, log)) > 0 && not_pic(v, log, before);
	free(plugin);
	if (pic)
		return 0;
	if (status < 0)
		return status;
	if (status != 0)
		bv_build_failed(v, "compiling the harness against this version", log);
	else {
		bv_build_host_variant(dir, log);
		plugin_loads(v, dir, log);
	}
	return 0;
}
