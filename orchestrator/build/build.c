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
 * `make -C SRC BUILD=DIR lib` gives DIR/libkernels.a and DIR/link-flags, or
 * through a compat rule's "build" recipe for releases that differ.  A rule's
 * "patches" are applied to the build's own copy of the sources first (the
 * shared copy in src/ stays as the tree has it); both are part of the key.
 *
 * Two processes may build the same key at once (two runs sharing a cache,
 * two names for one tree in one run).  Each builds in its own temporary
 * directory; the first rename wins and the loser, whose rename fails because
 * the target exists, uses the winner's build.  A cache hit touches the
 * build's directory, so its mtime is its last use (bench-versions cache).  The
 * archive is linked into the plugin with its symbols hidden (--exclude-libs)
 * and bound locally (-Bsymbolic), so several versions' copies of the same
 * function names coexist in one process.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "cache_entry.h"
#include "common.h"
#include "compat.h"
#include "env.h"
#include "fs.h"
#include "hash.h"
#include "json.h"
#include "proc.h"
#include "progress.h"
#include "resolve.h"
#include "suite.h"
#include "user_ops.h"

/* 2: the harness object (lib/plugin.o) and its link flags stay in the build,
 * so layouts (bv_build_layouts) link without the sources.  3: a build whose
 * library links the CUDA libraries also holds plugin-host.so (below).  4:
 * the build environment's values (CC, CFLAGS, CUDA, BLAS, ...) in the key.
 * 5: the library's code starts on a page of its own (link_with's anchor).
 * 6: the catalog's version-independent objects, compiled once
 * (catalog_fixed_object), come before plugin.c's in plugin.o.  7: libs/
 * and objs/ entries are sealed (cache_entry.h), objs/ entries directories. */
#define BUILD_SCHEMA "bv-build/7"

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
/* The bundled catalog is built as a suite (harness/catalog.c;
 * docs/suites-design.md, "Item 3: the plan"): compiled with the suite
 * runtime and the host harness code it calls (the registry, inputs,
 * reference and check: benches.c, expr.c) beside plugin.c's calls, each
 * with -DBV_CATALOG_SUITE.
 *
 * Of the catalog's sources, the files that include the harness's own
 * headers only, never the library's (CATALOG_VERSIONED, plugin.c, alone
 * calls into it), are the same object for every version.  They are compiled once per harness and compiler into the
 * cache's objs/ (catalog_fixed_object), not once per version: 2 of a
 * catalog build's 2.5 s of harness compiling (benches.c alone is 1.3 s). */
static const char *const catalog_fixed[] = {"harness/suite_plugin.c", "harness/catalog.c", "harness/benches.c",
					    "harness/bench_inputs.c", "harness/bench_reference.c", "harness/expr.c", NULL};
#define CATALOG_VERSIONED "harness/plugin.c"
static const char *const catalog_files[] = {"harness/suite_plugin.c", "harness/suite_declarations.c",
					    "harness/suite_api.c", "harness/catalog.c", "harness/benches.c",
					    "harness/bench_inputs.c", "harness/bench_reference.c", "harness/expr.c",
					    "harness/bv_suite.h", "harness/benches.h", "harness/bench_internal.h",
					    "harness/expr.h", "harness/ops_table.h", "harness/ops_file.h", NULL};

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
static const char *const plugin_cflags[] = {"-std=c11", "-O2", "-fPIC", "-shared", NULL};

/* A file's part of a key: its label and its bytes, never where it lies.  Two
 * checkouts of the tool (a CI job's fresh workspace, the tests' clones) with
 * the same harness and compat files then share their cached builds; the
 * absolute path was in the key before, so every new checkout built again. */
static int append_file(bv_buf *b, const char *label, const char *path)
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

/* Directory entries sorted by name (byte order, not the locale's). */
static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
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
			rc = append_file(b, label, path);
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
static int library_key(const bv_version *v, char out[41])
{
	bv_buf b = BV_BUF_INIT;
	int rc = 0;
	bv_buf_printf(&b, "%s library\ntree %s\ncc %s %s\n", BUILD_SCHEMA, v->tree, compiler(), compiler_version());
	for (size_t i = 0; i < v->shims.npatches && rc == 0; i++)
		rc = append_file(&b, "patch", v->shims.patches[i]);
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
	bv_buf_printf(&b, "%s\ntree %s\ncc %s %s\n", BUILD_SCHEMA, v->tree, compiler(), compiler_version());
	for (const char *const *f = plugin_cflags; *f; f++)
		bv_buf_printf(&b, "flag %s\n", *f);
	for (const char *const *f = harness_files; *f && rc == 0; f++) {
		char *path = bv_asprintf("%s/%s", bv_home(), *f);
		rc = append_file(&b, *f, path);
		free(path);
	}
	for (size_t i = 0; i < v->shims.nrules; i++)
		bv_buf_printf(&b, "rule %s\n", v->shims.rules[i]);
	for (size_t i = 0; i < v->shims.nincludes && rc == 0; i++)
		rc = append_file(&b, "include", v->shims.includes[i]);
	for (size_t i = 0; i < v->shims.ncflags; i++)
		bv_buf_printf(&b, "flag %s\n", v->shims.cflags[i]);
	for (size_t i = 0; i < v->shims.npatches && rc == 0; i++)
		rc = append_file(&b, "patch", v->shims.patches[i]);
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
			rc = append_file(&b, *f, path);
			free(path);
		}
	}
	if (rc == 0)
		bv_hash_bytes(b.s, b.len, out);
	bv_buf_free(&b);
	return rc;
}

/* Records why the build failed, with the end of the log, on the version.
 * The log is what the version's Makefile and compiler printed: it reaches
 * the terminal and the results log escaped (bv_escape_lines). */
static void failed(bv_version *v, const char *step, const char *log)
{
	char *tail = bv_file_tail(log, 2000);
	char *shown = bv_escape_lines(tail);
	v->build_error = bv_asprintf("%s failed; end of %s:\n%s", step, log, shown);
	free(shown);
	free(tail);
}

/* A build failure that is no step's exit status (the link contract): why,
 * then the end of the log. */
static void failed_because(bv_version *v, const char *why, const char *log)
{
	char *tail = bv_file_tail(log, 2000);
	char *shown = bv_escape_lines(tail);
	v->build_error = bv_asprintf("%s; end of %s:\n%s", why, log, shown);
	free(shown);
	free(tail);
}

/* The archives (*.a, regular files) directly in lib, sorted by name. */
static void list_archives(const char *lib, bv_strv *out)
{
	struct dirent **names = NULL;
	int n = scandir(lib, &names, NULL, by_name);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		char *path = bv_asprintf("%s/%s", lib, name);
		struct stat st;
		if (len > 2 && !strcmp(name + len - 2, ".a") && stat(path, &st) == 0 && S_ISREG(st.st_mode))
			bv_strv_push(out, path);
		free(path);
		free(names[i]);
	}
	free(names);
}

/* s with every occurrence of from replaced by to. */
static char *replace_all(const char *s, const char *from, const char *to)
{
	bv_buf b = BV_BUF_INIT;
	bv_buf_puts(&b, "");
	size_t n = strlen(from);
	for (const char *hit; n && (hit = strstr(s, from)); s = hit + n) {
		bv_buf_putn(&b, s, (size_t)(hit - s));
		bv_buf_puts(&b, to);
	}
	bv_buf_puts(&b, s);
	return bv_buf_detach(&b);
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
	*stored = replace_all(flags, lib, "{build}");
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
	failed_because(v, why, log);
	free(why);
	free(text);
	return 1;
}

/* One recipe argument with {src}, {build} and {compat} replaced. */
static char *expand(const char *arg, const char *src, const char *lib, const char *compat)
{
	bv_buf b = BV_BUF_INIT;
	bv_buf_puts(&b, "");
	for (const char *p = arg; *p;) {
		if (!strncmp(p, "{src}", 5))
			bv_buf_puts(&b, src), p += 5;
		else if (!strncmp(p, "{build}", 7))
			bv_buf_puts(&b, lib), p += 7;
		else if (!strncmp(p, "{compat}", 8))
			bv_buf_puts(&b, compat), p += 8;
		else
			bv_buf_putn(&b, p++, 1);
	}
	return bv_buf_detach(&b);
}

/* Applies the compat patches to the build's copy of the sources, in order.
 * GNU patch: --forward so an already-applied patch fails instead of being
 * reversed, --batch so it never asks. */
static int apply_patches(bv_version *v, const char *src, const char *log)
{
	for (size_t i = 0; i < v->shims.npatches; i++) {
		char *argv[] = {"patch", "-p1", "--batch", "--forward", "--no-backup-if-mismatch",
				"-d", (char *)src, "-i", v->shims.patches[i], NULL};
		int status = bv_run(argv, NULL, log, BV_ENV_BUILD);
		if (status < 0)
			return status;
		if (status != 0) {
			char *step = bv_asprintf("applying compat patch %s", v->shims.patches[i]);
			failed(v, step, log);
			free(step);
			return 0;
		}
	}
	return 0;
}

/* ---- the host-only variant ----------------------------------------------
 *
 * A library with its cuda backend links -lcublas -lcudart: loading such a
 * plugin maps libcublas and libcublasLt (hundreds of MB) and takes 120-230 ms
 * here, most of a short measuring process's life, though the process runs
 * only host cells unless a cuda cell is still sampling.  So a build whose
 * link flags name CUDA libraries also gets plugin-host.so: the same
 * lib/plugin.o and libkernels.a, linked without those libraries, the CUDA
 * functions the archive calls supplied by generated stubs that fail
 * (lib/cuda-stubs.c).  measure.c loads it in the processes that run host
 * cells only.  A build whose flags name no CUDA library has no variant: its
 * plugin.so is host-only already.
 *
 * Placement: the stubs are linked after everything else and stay
 * preemptible (a --dynamic-list), so the library's calls to them go through
 * the PLT as its calls into libcudart do in plugin.so: the PLT has the same
 * entries and every function of the library and the harness lies at the
 * same address in both (test_layouts.sh checks it), layouts included. */

/* Whether a link flag brings in a CUDA library: -lNAME or a path to
 * libNAME.so/.a, NAME one of the toolkit's (cudart, cublas, cublasLt, cuda,
 * ...).  Exact prefixes, not "cu": -lcurl is no CUDA library. */
static int cuda_lib_flag(const char *f)
{
	static const char *const libs[] = {"cuda",  "cublas", "cufft",	 "curand",     "cusparse",  "cusolver",
					   "cudnn", "cupti",  "nvrtc",	 "nvToolsExt", "nvJitLink", NULL};
	const char *name;
	if (!strncmp(f, "-l", 2)) {
		name = f + 2;
	} else if (f[0] != '-') {
		const char *slash = strrchr(f, '/');
		name = slash ? slash + 1 : f;
		if (strncmp(name, "lib", 3) || (!strstr(name, ".so") && !strstr(name, ".a")))
			return 0;
		name += 3;
	} else
		return 0;
	for (const char *const *l = libs; *l; l++)
		if (!strncmp(name, *l, strlen(*l)))
			return 1;
	return 0;
}

/* Whether an undefined symbol is one the CUDA libraries define: the runtime
 * (cuda*, __cuda* from nvcc's registration code), the driver (cuInit, ...:
 * cu and a capital), the toolkit's libraries. */
static int cuda_symbol(const char *name)
{
	static const char *const prefixes[] = {"cuda",	 "__cuda",    "cublas", "cufft", "curand", "cusparse",
					       "cusolver", "cudnn",    "cupti",  "nvrtc", "nvtx",   "nvJitLink", NULL};
	for (const char *const *p = prefixes; *p; p++)
		if (!strncmp(name, *p, strlen(*p)))
			return 1;
	return name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z';
}

/* A stub's definition: what the real function returns when there is no
 * device, in the type the caller reads. */
static void stub_for(bv_buf *b, const char *name)
{
	size_t len = strlen(name);
	int driver = name[2] >= 'A' && name[2] <= 'Z'; /* cuGetErrorString returns a CUresult */
	int text = !driver && len > 6 &&
		   (!strcmp(name + len - 6, "String") || !strcmp(name + len - 4, "Name")) &&
		   (strstr(name, "GetError") || strstr(name, "GetStatus"));
	if (!strcmp(name, "__cudaRegisterFatBinary"))
		/* void **: the module handle; NULL, as no kernel is registered */
		bv_buf_printf(b, "void **%s() { return 0; }\n", name);
	else if (!strncmp(name, "__cudaRegister", 14) || !strncmp(name, "__cudaUnregister", 16))
		bv_buf_printf(b, "void %s() {}\n", name);
	else if (text)
		bv_buf_printf(b, "const char *%s() { return bv_not_loaded; }\n", name);
	else if (!strncmp(name, "cuda", 4) || !strncmp(name, "__cuda", 6) || driver)
		/* cudaErrorStubLibrary / CUDA_ERROR_STUB_LIBRARY (both 34): what
		 * these are.  Not "no device", which a library may reword (kernels
		 * 0.7.2 says "no GPU on this machine"): the reason must say the
		 * stubs answered.  Nonzero also makes __cudaPushCallConfiguration
		 * skip the launch. */
		bv_buf_printf(b, "int %s() { return 34; }\n", name);
	else
		/* CUBLAS_STATUS_NOT_INITIALIZED; nonzero is failure in every
		 * toolkit library's status enum */
		bv_buf_printf(b, "int %s() { return 1; }\n", name);
}

/* The link flags without their CUDA libraries in *out; returns how many
 * were dropped. */
static int host_flags(const char *flags, char **out)
{
	bv_strv words = BV_STRV_INIT;
	bv_strv_split(&words, flags);
	bv_buf b = BV_BUF_INIT;
	bv_buf_puts(&b, "");
	int dropped = 0;
	for (size_t i = 0; i < words.n; i++) {
		if (cuda_lib_flag(words.v[i]))
			dropped++;
		else
			bv_buf_printf(&b, "%s%s", b.len ? " " : "", words.v[i]);
	}
	bv_strv_free(&words);
	*out = bv_buf_detach(&b);
	return dropped;
}

static int link_with(const char *lib, int pad, int host, const char *out, const char *log);

/* lib/cuda-stubs.o and lib/cuda-stubs.list: a stub for each CUDA symbol the
 * harness and library leave undefined once linked without the CUDA
 * libraries (nm -D --undefined-only of a trial link; only unversioned
 * names, a versioned one came from a library that stays).  Returns the
 * exit status of the failing step (> 0), or < 0 with an error. */
static int make_stubs(const char *lib, const char *log)
{
	char *probe = bv_asprintf("%s/host-probe.so", lib);
	int status = link_with(lib, 0, 2, probe, log);
	char *text = NULL;
	if (status == 0) {
		char *nm = getenv("NM") && *getenv("NM") ? getenv("NM") : "nm";
		char *argv[] = {nm, "-D", "--undefined-only", probe, NULL};
		status = bv_run_capture(argv, 1 << 20, &text);
	}
	unlink(probe);
	free(probe);
	if (status) {
		free(text);
		return status;
	}
	bv_buf c = BV_BUF_INIT, list = BV_BUF_INIT;
	bv_buf_puts(&c, "/* Generated by bench-versions (orchestrator/build.c) for plugin-host.so,\n"
			" * which is loaded without the CUDA libraries: no cuda cell runs in its\n"
			" * processes, and these say why if one is asked. */\n"
			"static const char bv_not_loaded[] = \"the cuda backend is not loaded in this measuring process\";\n");
	bv_buf_puts(&list, "{\n");
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		/* "                 U name" (a weak reference, w, may stay NULL) */
		char type = 0, name[256];
		/* Names go into C source: a C identifier or nothing (the library
		 * is untrusted, and an ELF name may be any bytes). */
		if (sscanf(line, " %c %255s", &type, name) != 2 || type != 'U' ||
		    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(name) ||
		    !cuda_symbol(name))
			continue;
		stub_for(&c, name);
		bv_buf_printf(&list, "\t%s;\n", name);
	}
	bv_buf_puts(&list, "};\n");
	free(text);
	char *src = bv_asprintf("%s/cuda-stubs.c", lib), *obj = bv_asprintf("%s/cuda-stubs.o", lib);
	char *lpath = bv_asprintf("%s/cuda-stubs.list", lib);
	status = bv_write_file_atomic(src, c.s, c.len);
	if (status == 0)
		status = bv_write_file_atomic(lpath, list.s, list.len);
	if (status == 0) {
		/* -w: the stubs are declared without prototypes on purpose (any
		 * arguments; none is read). */
		char *argv[] = {(char *)compiler(), "-std=c11", "-O2", "-fPIC", "-w", "-c", src, "-o", obj, NULL};
		status = bv_run(argv, NULL, log, BV_ENV_BUILD);
	}
	bv_buf_free(&c), bv_buf_free(&list);
	free(src), free(obj), free(lpath);
	return status;
}

/* Links lib/plugin.o and the library into out, with `pad` bytes of code
 * that never runs between them (layout 0 has none): everything of the
 * library then sits `pad` bytes further on, and so do the alignments of its
 * loops and branches against cache lines and fetch blocks.
 *
 * The pad starts a page (the anchor), so the library's code begins at the
 * same offset in a page in every version's plugin, whatever the harness in
 * front of it compiles to.  Without it the library moved with it: a
 * version's plugin.c without an op, or a harness side with one more
 * function (#if a compat rule's define), shifted every loop of the library
 * behind it, and an unchanged function came out 6-14 % faster or slower
 * from placement alone (tests/e2e/test_foreign.sh's exp, Intel Xeon
 * AVX-512).  What moves the library's code now is the library's own.
 * host: 1, the
 * host-only variant (without the CUDA libraries, with the stubs); 2, the
 * same without the stubs (make_stubs's trial link).  Returns the compiler's
 * exit status, or < 0 with an error. */
static int link_with(const char *lib, int pad, int host, const char *out, const char *log)
{
	char *flags_path = bv_asprintf("%s/plugin-link-flags", lib), *flags = NULL;
	int rc = bv_read_file(flags_path, 4096, &flags, NULL);
	free(flags_path);
	if (rc)
		return rc;
	if (strstr(flags, "{build}")) { /* files under {build}: link_flags_check */
		char *stored = flags;
		flags = replace_all(stored, "{build}", lib);
		free(stored);
	}
	if (host) {
		char *all = flags;
		host_flags(all, &flags);
		free(all);
	}
	bv_strv cc = BV_STRV_INIT;
	bv_strv_push(&cc, compiler());
	for (const char *const *f = plugin_cflags; *f; f++)
		bv_strv_push(&cc, *f);
	bv_strv_pushf(&cc, "%s/plugin.o", lib);
	char *user_ops = bv_asprintf("%s/user-ops.o", lib); /* user_ops.c: an ops file's table */
	if (bv_exists(user_ops))
		bv_strv_push(&cc, user_ops);
	free(user_ops);
	/* An assembler file: the anchor (its .text starts a page) and the
	 * pad, exactly these bytes (int3).  The library's objects are 16-byte
	 * aligned and pads multiples of 16, so the library starts exactly
	 * `pad` bytes into a page. */
	char *asm_path = bv_asprintf("%s.s", out); /* beside out: lib/ is sealed (bv_build) */
	char *skip = pad ? bv_asprintf("\t.skip %d, 0xcc\n", pad) : bv_strdup(""); /* as warns of .skip 0 */
	char *text = bv_asprintf("\t.text\n\t.p2align 12\n%s\t.section .note.GNU-stack,\"\",@progbits\n", skip);
	free(skip);
	if (!rc)
		rc = bv_write_file_atomic(asm_path, text, strlen(text));
	free(text);
	bv_strv_push(&cc, asm_path);
	/* The library: every archive in lib.  libkernels.a alone links as it
	 * always did (the same command, so the same addresses); several are
	 * a group, so their order does not matter. */
	bv_strv archives = BV_STRV_INIT;
	list_archives(lib, &archives);
	if (archives.n == 1)
		bv_strv_push(&cc, archives.v[0]);
	else if (archives.n > 1) {
		bv_strv_push(&cc, "-Wl,--start-group");
		for (size_t i = 0; i < archives.n; i++)
			bv_strv_push(&cc, archives.v[i]);
		bv_strv_push(&cc, "-Wl,--end-group");
	}
	bv_strv_free(&archives);
	bv_strv_split(&cc, flags);
	free(flags);
	if (host == 1) {
		/* Last, so nothing of the library moves; preemptible, so the
		 * calls stay PLT calls (the placement note above); and every
		 * symbol must resolve now, not at dlopen in a measuring
		 * process. */
		char *list = bv_asprintf("%s/cuda-stubs.list", lib);
		bv_strv_pushf(&cc, "%s/cuda-stubs.o", lib);
		bv_strv_pushf(&cc, "-Wl,--dynamic-list=%s", list);
		bv_strv_push(&cc, "-Wl,-z,defs");
		free(list);
	}
	bv_strv_push(&cc, "-Wl,--exclude-libs,ALL");
	bv_strv_push(&cc, "-Wl,-Bsymbolic");
	bv_strv_push(&cc, "-o");
	bv_strv_push(&cc, out);
	int status = rc ? rc : bv_run(cc.v, NULL, log, BV_ENV_BUILD);
	bv_strv_free(&cc);
	unlink(asm_path);
	free(asm_path);
	return status;
}

static int link_plugin(const char *lib, int pad, const char *out, const char *log)
{
	return link_with(lib, pad, 0, out, log);
}

/* Whether this build's link flags name a CUDA library (it needs a host
 * variant); -1 if they cannot be read. */
static int links_cuda(const char *lib)
{
	char *path = bv_asprintf("%s/plugin-link-flags", lib), *flags = NULL, *rest = NULL;
	int rc = bv_read_file(path, 4096, &flags, NULL);
	free(path);
	if (rc)
		return -1;
	int n = host_flags(flags, &rest);
	free(flags), free(rest);
	return n > 0;
}

/* plugin-host.so in dir (the build's directory), when its library links
 * CUDA.  A variant that cannot be made is no build failure: it is said in
 * the log, and host cells then load plugin.so as before. */
static void make_host_variant(const char *dir, const char *log)
{
	char *lib = bv_asprintf("%s/lib", dir), *out = bv_asprintf("%s/plugin-host.so", dir);
	if (links_cuda(lib) == 1) {
		int status = make_stubs(lib, log);
		if (status == 0)
			status = link_with(lib, 0, 1, out, log);
		if (status != 0) {
			unlink(out);
			FILE *f = fopen(log, "a");
			if (f) {
				fprintf(f, "bench-versions: no host-only plugin (step exited %d); host cells load plugin.so\n",
					status);
				fclose(f);
			}
		}
	}
	free(lib), free(out);
}

/* The pad of layout k: 208 bytes apart, i.e. 16 bytes apart modulo a
 * 64-byte cache line (208 = 3 * 64 + 16), so four layouts put the library at
 * each 16-byte offset within a line (functions are 16-byte aligned), and at
 * different offsets within a page too. */
static int layout_pad(int k) { return 208 * k; }

const char *bv_layout_plugin(const bv_version *v, int k, char *buf, size_t len)
{
	if (k == 0 || !v->plugin) {
		snprintf(buf, len, "%s", v->plugin ? v->plugin : "");
		return buf;
	}
	const char *slash = strrchr(v->plugin, '/');
	int dir = slash ? (int)(slash - v->plugin) : 0;
	snprintf(buf, len, "%.*s/plugin-L%d.so", dir, v->plugin, k);
	return buf;
}

const char *bv_plugin_variant(const bv_version *v, int k, int host, char *buf, size_t len)
{
	const char *slash = v->plugin ? strrchr(v->plugin, '/') : NULL;
	int dir = slash ? (int)(slash - v->plugin) : 0;
	snprintf(buf, len, "%.*s/plugin-host.so", dir, v->plugin ? v->plugin : "");
	if (!host || !v->plugin || !bv_exists(buf))
		return bv_layout_plugin(v, k, buf, len);
	if (k > 0)
		snprintf(buf, len, "%.*s/plugin-host-L%d.so", dir, v->plugin, k);
	return buf;
}

int bv_build_layouts(const bv_version *v, int n)
{
	if (!v->plugin || v->build_error)
		return 0;
	const char *slash = strrchr(v->plugin, '/');
	char *dir = bv_asprintf("%.*s", slash ? (int)(slash - v->plugin) : 1, slash ? v->plugin : ".");
	char *lib = bv_asprintf("%s/lib", dir);
	char *log = bv_asprintf("%s/layouts.log", dir);
	int rc = 0;
	/* The layouts link lib/ again: only as it was built (a recipe of
	 * another version may have written through a hard link since). */
	char *why = NULL;
	if (!bv_entry_check(lib, &why)) {
		rc = bv_fail(BV_ERUN,
			     "%s's build %s was changed after it was built (lib/: %s): it is removed from the cache; "
			     "run again to build it afresh",
			     v->name, dir, why);
		bv_entry_discard(dir);
	}
	free(why);
	/* The host-only variant, where the build has one, gets the same
	 * layouts: a host cell's layout k is the full plugin's layout k. */
	char probe[4096];
	int variants = 1 + !!strcmp(bv_plugin_variant(v, 0, 1, probe, sizeof(probe)), v->plugin);
	for (int k = 1; k < n && rc == 0; k++)
		for (int host = 0; host < variants && rc == 0; host++) {
			char path[4096];
			bv_plugin_variant(v, k, host, path, sizeof(path));
			if (bv_exists(path))
				continue;
			/* Linked under a temporary name and renamed: two runs sharing
			 * the cache may link the same layout at once, and the loser's
			 * rename just replaces an identical file. */
			char *tmp = bv_asprintf("%s.tmp-%ld", path, (long)getpid());
			int status = link_with(lib, layout_pad(k), host, tmp, log);
			if (status == 0 && rename(tmp, path) != 0)
				rc = bv_fail(BV_ERUN, "cannot move %s into place: %s", path, strerror(errno));
			else if (status > 0)
				rc = bv_fail(BV_ERUN, "linking layout %d%s of %s failed; see %s", k,
					     host ? " (host-only)" : "", v->name, log);
			else if (status < 0)
				rc = status;
			unlink(tmp);
			free(tmp);
		}
	free(dir), free(lib), free(log);
	return rc;
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
	bv_strv_push(&ld, compiler());
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
 * runtime harness/suite_plugin.c and the suite's .c files, each compiled
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
	bv_strv_pushf(&files, "%s/harness/suite_plugin.c", bv_home());
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
			failed_because(v, why, log);
			free(first), free(why);
			status = 0;
		}
	}
	if (status == 0 && !v->build_error) {
		char *merged = bv_asprintf("%s/plugin.o", lib);
		status = merge_objects(&objects, merged, log);
		free(merged);
		if (status > 0)
			failed(v, "merging the suite with its runtime (cc -r)", log), status = 0;
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
	bv_buf_printf(&b, "%s catalog objects\ncc %s %s\n", BUILD_SCHEMA, compiler(), compiler_version());
	for (const char *const *f = plugin_cflags; *f; f++)
		bv_buf_printf(&b, "flag %s\n", *f);
	char *env = bv_build_env_key();
	bv_buf_puts(&b, env);
	free(env);
	int rc = 0;
	for (int list = 0; list < 2 && rc == 0; list++)
		for (const char *const *f = list ? harness_files : catalog_files; *f && rc == 0; f++) {
			char *file = bv_asprintf("%s/%s", bv_home(), *f);
			rc = append_file(&b, *f, file);
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
		bv_strv_push(&cc, compiler());
		for (const char *const *flag = plugin_cflags; *flag; flag++)
			bv_strv_push(&cc, *flag);
		bv_strv_pushf(&cc, "-I%s/harness", bv_home());
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

/* The library cache's entry for key (libs/KEY), and the {build} path its
 * files were made in (ORIGIN: a recipe may write it into link-flags). */
static char *library_entry(const char *key)
{
	return bv_asprintf("%s/libs/%s", bv_cache_dir(), key);
}

/* Takes the library of libkey from the cache into dir (src/ and lib/),
 * when it is there: 1 taken, 0 not there, < 0 an error. */
static int library_take(const char *libkey, const char *src, const char *lib, const char *log)
{
	char *entry = library_entry(libkey), *why = NULL;
	int rc = 0;
	struct stat st;
	/* Held while its files are linked: trim does not take it meanwhile. */
	int hold = bv_entry_hold(entry);
	int intact = lstat(entry, &st) == 0 && bv_entry_check(entry, &why);
	if (!intact && why) {
		/* Changed since it was made (a recipe that wrote through a hard
		 * link, a file replaced): never taken, built again and replaced. */
		FILE *f = fopen(log, "a");
		if (f) {
			fprintf(f, "library: the cache's entry %s was damaged (%s): set aside, the library is built again\n",
				entry, why);
			fclose(f);
		}
		if (hold >= 0)
			close(hold), hold = -1;
		bv_entry_discard(entry);
	}
	if (intact) {
		char *esrc = bv_asprintf("%s/src", entry), *origin_path = bv_asprintf("%s/origin", entry);
		char *elib = bv_asprintf("%s/lib", entry);
		rc = bv_link_tree(esrc, src);
		if (rc == 0)
			rc = bv_link_tree(elib, lib);
		free(elib);
		/* link-flags may name files by the {build} the library was
		 * made in: they are in this {build} now. */
		char *origin = NULL, *flags_path = bv_asprintf("%s/link-flags", lib), *flags = NULL;
		if (rc == 0 && bv_read_file(origin_path, 4096, &origin, NULL) == 0 &&
		    bv_read_file(flags_path, 4096, &flags, NULL) == 0 && *origin && strstr(flags, origin)) {
			char *moved = replace_all(flags, origin, lib);
			unlink(flags_path); /* a link to the cache's copy: replaced, not written through */
			rc = bv_write_file_atomic(flags_path, moved, strlen(moved));
			free(moved);
		}
		free(origin), free(flags), free(flags_path);
		utimensat(AT_FDCWD, entry, NULL, 0); /* last use, for cache trim */
		if (rc == 0) {
			FILE *f = fopen(log, "a");
			if (f) {
				fprintf(f, "library: taken from the cache (%s): its tree, patches, recipe and tools "
					   "are a build's before; the harness side alone is built\n",
					entry);
				fclose(f);
			}
		}
		free(esrc), free(origin_path);
		rc = rc ? rc : 1;
	}
	if (hold >= 0)
		close(hold);
	free(entry), free(why);
	return rc;
}

/* Keeps the library just built (src/ and lib/ before the harness side
 * writes anything there) for the next build of the same library key.  A
 * failure to keep it is no build failure: the next build makes it again. */
static void library_keep(const char *libkey, const char *src, const char *lib)
{
	char *root = bv_asprintf("%s/libs", bv_cache_dir()), *entry = library_entry(libkey), *why = NULL;
	struct stat st;
	int there = lstat(entry, &st) == 0;
	if (there && !bv_entry_check(entry, &why)) /* damaged (library_take said how): replaced */
		bv_entry_discard(entry), there = 0;
	free(why);
	char *tmp = there ? NULL : bv_mkdtemp_in(root, ".tmp-");
	if (tmp) {
		char *tsrc = bv_asprintf("%s/src", tmp), *tlib = bv_asprintf("%s/lib", tmp);
		char *origin = bv_asprintf("%s/origin", tmp);
		int rc = bv_link_tree(src, tsrc);
		if (rc == 0)
			rc = bv_link_tree(lib, tlib);
		if (rc == 0)
			rc = bv_write_file_atomic(origin, lib, strlen(lib));
		/* Read-only from here: the build's own src/ and lib/ are the
		 * same files (hard links), so a later recipe that appends to one
		 * fails instead of changing every build that takes it. */
		if (rc == 0)
			rc = bv_entry_seal(tmp);
		if (rc != 0 || rename(tmp, entry) != 0)
			bv_rm_rf(tmp); /* kept by a concurrent build, or not at all */
		free(tsrc), free(tlib), free(origin), free(tmp);
	}
	free(root), free(entry);
}

/* The command that builds the library into lib: the compat rule's recipe
 * ({src}, {build}, {compat} expanded), else make's contract (make -C SRC
 * BUILD=LIB lib). */
static int library_command(const bv_version *v, const char *src, const char *lib, bv_strv *make)
{
	if (!v->shims.nrecipe) {
		bv_strv_push(make, getenv("MAKE") && *getenv("MAKE") ? getenv("MAKE") : "make");
		bv_strv_pushf(make, "-C%s", src);
		if (v->make_jobs > 1) /* the same objects either way: not in the key */
			bv_strv_pushf(make, "-j%d", v->make_jobs);
		bv_strv_pushf(make, "BUILD=%s", lib);
		bv_strv_push(make, "lib");
		return 0;
	}
	/* The recipe may expect the directory to exist, as make's does not. */
	int rc = bv_mkdir_p(lib);
	if (rc)
		return rc;
	/* Absolute: the recipe may change directory before it runs a
	 * helper (compat.json's directory may be given relative). */
	char compat[PATH_MAX];
	const char *cdir = v->shims.compat_dir ? v->shims.compat_dir : ".";
	if (!realpath(cdir, compat))
		snprintf(compat, sizeof(compat), "%s", cdir);
	for (size_t i = 0; i < v->shims.nrecipe; i++) {
		char *arg = expand(v->shims.recipe[i], src, lib, compat);
		bv_strv_push(make, arg);
		free(arg);
	}
	return 0;
}

/* The library side of a build: the version's sources copied to src and
 * patched, the library built into lib, and kept under libkey for the
 * builds that differ from this one in the harness alone.  0 with
 * v->build_error set when the version does not build; < 0 on an error. */
static int build_library(bv_version *v, const char *src, const char *lib, const char *log, const char *libkey)
{
	int rc = bv_copy_tree(v->src_dir, src, NULL);
	if (rc == 0)
		rc = apply_patches(v, src, log);
	if (rc || v->build_error)
		return rc ? rc : 1;
	bv_strv make = BV_STRV_INIT;
	rc = library_command(v, src, lib, &make);
	int status = rc ? 0 : bv_run(make.v, NULL, log, BV_ENV_BUILD);
	bv_strv_free(&make);
	if (rc)
		return rc;
	if (status < 0)
		return status;
	if (status != 0) {
		char *step = v->shims.nrecipe ? bv_asprintf("building the library (compat recipe of rule %s)",
							    v->shims.recipe_rule)
					      : bv_strdup("building the library (make lib)");
		failed(v, step, log);
		free(step);
		return 1;
	}
	/* The link contract (docs/compat.md): the library is the archives
	 * the recipe left in {build}. */
	bv_strv archives = BV_STRV_INIT;
	list_archives(lib, &archives);
	size_t narchives = archives.n;
	bv_strv_free(&archives);
	if (!narchives) {
		failed_because(v,
			       "the recipe left no archive (*.a) in {build}: a library is linked into the plugin "
			       "from the archives its build leaves there (docs/compat.md, the link contract)",
			       log);
		return 1;
	}
	library_keep(libkey, src, lib);
	return 0;
}

/* The compiler and its flags for the harness side: against this
 * version's headers and shims (a suite calls the library's own API, the
 * catalog kernels.h's). */
static void harness_flags(const bv_version *v, const char *src, bv_strv *cc)
{
	bv_semver sv;
	bv_semver_parse(v->kernel_version, &sv);
	bv_strv_push(cc, compiler());
	for (const char *const *f = plugin_cflags; *f; f++)
		bv_strv_push(cc, *f);
	bv_strv_pushf(cc, "-I%s/include", src);
	bv_strv_pushf(cc, "-I%s/harness", bv_home());
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
		failed_because(v, why, log);
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
		failed_because(v, "the plugin it built does not load (bv-runner --load, as a measuring process "
				  "loads it); nothing was cached",
			       log);
}

/* The harness side of a build, over the library in lib: plugin.o, the
 * link flags it was linked with, the user ops' table, plugin.so and (for
 * a CUDA library) its host-only variant.  0 with v->build_error set when
 * the version does not build; < 0 on an error. */
static int build_harness(bv_version *v, const char *dir, const char *src, const char *lib, const char *log)
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
	int pic = status == 0 && (status = link_plugin(lib, 0, plugin, log)) > 0 && not_pic(v, log, before);
	free(plugin);
	if (pic)
		return 0;
	if (status < 0)
		return status;
	if (status != 0)
		failed(v, "compiling the harness against this version", log);
	else {
		make_host_variant(dir, log);
		plugin_loads(v, dir, log);
	}
	return 0;
}

static int run_build(bv_version *v, const char *dir, const char *log)
{
	char *src = bv_asprintf("%s/src", dir);
	char *lib = bv_asprintf("%s/lib", dir);
	char libkey[41];
	int rc = library_key(v, libkey);
	/* A library built before with the same key (the harness alone
	 * differs): taken, not built again. */
	int taken = rc == 0 ? library_take(libkey, src, lib, log) : 0;
	if (taken < 0)
		rc = taken;
	int failed_library = 0;
	if (rc == 0 && !taken && (rc = build_library(v, src, lib, log, libkey)) > 0)
		failed_library = 1, rc = 0;
	if (rc == 0 && !failed_library)
		rc = build_harness(v, dir, src, lib, log);
	free(src);
	free(lib);
	return rc;
}

/* dir/name is a regular file with something in it. */
static int regular_nonempty(const char *dir, const char *name)
{
	char *path = bv_asprintf("%s/%s", dir, name);
	struct stat st;
	int ok = lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
	free(path);
	return ok;
}

/* dir/version.json: what the entry is, for `cache show` (cmd_cache.c): a
 * key is a hash and says nothing to a person.  The name is the first one
 * built under this key (another name resolving to the same tree reuses the
 * entry). */
static int write_version(const bv_version *v, const char *dir)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "kernel_version", v->kernel_version ? v->kernel_version : "");
	cJSON_AddStringToObject(doc, "name", v->name ? v->name : "");
	char *path = bv_asprintf("%s/" BV_BUILD_VERSION_FILE, dir);
	int rc = bv_json_save(path, doc);
	free(path);
	cJSON_Delete(doc);
	return rc;
}

int bv_build_key(const bv_version *v, char out[41]) { return build_key(v, out); }

void bv_build_hold(const bv_version *v)
{
	if (!v->plugin || v->build_error)
		return;
	/* Each entry once; left open on purpose: the lock goes when the
	 * process does.  A command holding more (a history over hundreds of
	 * releases) leaves the rest unheld rather than run out of files. */
	static char *held[256];
	static size_t nheld;
	char *dir = bv_strdup(v->plugin), *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	for (size_t i = 0; i < nheld; i++)
		if (!strcmp(held[i], dir)) {
			free(dir);
			return;
		}
	if (nheld < sizeof(held) / sizeof(held[0]) && bv_entry_hold(dir) >= 0)
		held[nheld++] = dir;
	else
		free(dir);
}

/* Whether the build entry dir's lib/ is as it was sealed; 0 with *why when
 * not (a missing plugin is bv_build's own check). */
static int build_lib_intact(const char *dir, char **why)
{
	char *lib = bv_asprintf("%s/lib", dir);
	int ok = bv_entry_check(lib, why);
	free(lib);
	return ok;
}

int bv_build_is_cached(const bv_version *v, int *cached)
{
	char key[41];
	int rc = build_key(v, key);
	if (rc)
		return rc;
	char *plugin = bv_asprintf("%s/builds/%s/plugin.so", bv_cache_dir(), key);
	*cached = bv_exists(plugin);
	free(plugin);
	return 0;
}

/* ---- progress while a version builds ------------------------------------
 *
 * On a terminal the status line shows what is building (progress.c).  In a
 * log or CI a CMake build of minutes printed nothing until it ended, so
 * there a thread of the build's process says every interval how long it has
 * been and the log's last line:
 *   building NAME: 60 s so far (log: PATH; last line: ...)
 * BENCH_VERSIONS_PROGRESS_SECONDS sets the interval (default 30; 0: never). */
typedef struct watch {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop, started;
	const char *name, *log;
	long interval;
} watch;

/* The log's last non-empty line, control characters as '?', at most 160
 * bytes. */
static void last_line(const char *log, char *out, size_t len)
{
	out[0] = '\0';
	int fd = open(log, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[1024];
	struct stat st;
	off_t off = 0;
	if (fstat(fd, &st) == 0 && st.st_size > (off_t)sizeof(buf) - 1)
		off = st.st_size - (off_t)sizeof(buf) + 1;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, off);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	char *start = strrchr(buf, '\n');
	start = start ? start + 1 : buf;
	size_t k = 0;
	for (; start[k] && k + 1 < len && k < 160; k++)
		out[k] = (unsigned char)start[k] < 0x20 || start[k] == 0x7f ? '?' : start[k];
	out[k] = '\0';
}

static void *watch_main(void *arg)
{
	watch *w = arg;
	struct timespec t0, deadline;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	deadline = t0;
	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		deadline.tv_sec += w->interval;
		while (!w->stop && pthread_cond_timedwait(&w->cv, &w->mu, &deadline) != ETIMEDOUT)
			;
		if (w->stop)
			break;
		char line[200], *msg;
		last_line(w->log, line, sizeof(line));
		msg = bv_asprintf("building %s: %ld s so far (log: %s; last line: %s)\n", w->name,
				  (long)(deadline.tv_sec - t0.tv_sec), w->log, line[0] ? line : "(none yet)");
		/* One write: lines of builds running at once never interleave. */
		ssize_t ignored = write(2, msg, strlen(msg));
		(void)ignored;
		free(msg);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static void watch_start(watch *w, const char *name, const char *log)
{
	memset(w, 0, sizeof(*w));
	w->interval = bv_progress_interval();
	if (w->interval <= 0 || isatty(2))
		return;
	w->name = name, w->log = log;
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	/* The thread takes no signal: SIGINT and SIGTERM stay the main
	 * thread's, whose waits they interrupt (proc.c). */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	w->started = pthread_create(&w->thread, NULL, watch_main, w) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void watch_stop(watch *w)
{
	if (!w->started)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
}

double bv_build_timeout_s = BV_BUILD_TIMEOUT_DEFAULT;

/* "30 min", "90 s": a limit as the message about it says it. */
static void limit_text(double s, char *buf, size_t len)
{
	if (s >= 60 && fmod(s, 60) == 0)
		snprintf(buf, len, "%g min", s / 60);
	else
		snprintf(buf, len, "%g s", s);
}

/* A build stopped at its time limit fails with the limit as its reason,
 * and the way to raise it. */
static void failed_by_limit(bv_version *v, const char *tmplog)
{
	char limit[32];
	limit_text(bv_build_limit(), limit, sizeof(limit));
	char *why = bv_asprintf("the build took longer than its limit of %s and was stopped, its processes "
				"killed; a build that needs longer: --build-timeout S (e.g. 2h; 0: no limit)",
				limit);
	free(v->build_error);
	failed_because(v, why, tmplog);
	free(why);
}

/* The log moved from tmplog to log: the message names the log where it
 * now lies. */
static void rename_log_in_error(bv_version *v, const char *tmplog, const char *log)
{
	char *msg = v->build_error;
	bv_buf b = BV_BUF_INIT;
	for (const char *p = msg, *hit; *p; p = hit + strlen(tmplog)) {
		if (!(hit = strstr(p, tmplog))) {
			bv_buf_puts(&b, p);
			break;
		}
		bv_buf_putn(&b, p, (size_t)(hit - p));
		bv_buf_puts(&b, log);
	}
	v->build_error = bv_buf_detach(&b);
	free(msg);
}

/* The finished build (tmp) becomes the cache entry final, less its
 * sources (they stay in src/; the build needs only its outputs).
 * rename() of a directory onto a non-empty one fails with EEXIST or
 * ENOTEMPTY: another process finished the same key first.  Its build is
 * the same build; use it. */
static int move_into_place(const char *tmp, const char *final, const char *plugin)
{
	char *srcdir = bv_asprintf("%s/src", tmp);
	bv_rm_rf(srcdir);
	free(srcdir);
	int moved = rename(tmp, final) == 0, e = moved ? 0 : errno;
	if (!moved && (e == EEXIST || e == ENOTEMPTY) && !bv_exists(plugin)) {
		/* An entry without its plugin (left by a tool before this
		 * check): set it aside and take its place. */
		char *aside = bv_asprintf("%s.broken-%ld", final, (long)getpid());
		if (rename(final, aside) == 0) {
			bv_rm_rf(aside);
			moved = rename(tmp, final) == 0, e = moved ? 0 : errno;
		}
		free(aside);
	}
	if (moved)
		return 0;
	if ((e == EEXIST || e == ENOTEMPTY) && bv_exists(plugin)) {
		utimensat(AT_FDCWD, final, NULL, 0);
		return 0;
	}
	return bv_fail(BV_ERUN, "cannot move build %s into place: %s", final, strerror(e));
}

int bv_build(bv_version *v)
{
	if (bv_interrupted())
		return bv_fail_interrupted();
	char key[41];
	int rc = build_key(v, key);
	if (rc)
		return bv_fail_context(rc, "building %s", v->name);
	char *root = bv_asprintf("%s/builds", bv_cache_dir());
	char *final = bv_asprintf("%s/%s", root, key);
	char *plugin = bv_asprintf("%s/plugin.so", final);
	v->build_key = bv_strdup(key);
	if (v->src_dir)
		utimensat(AT_FDCWD, v->src_dir, NULL, 0); /* last use, for cache trim */
	char *why = NULL;
	if (bv_exists(plugin) && build_lib_intact(final, &why)) {
		utimensat(AT_FDCWD, final, NULL, 0);
		v->cached = 1;
		v->plugin = plugin;
		free(root);
		free(final);
		return 0;
	}
	if (why)
		/* Its library or harness object changed since it was built: the
		 * plugin may be the only copy of the build as it was, but
		 * the layouts link lib/ again, so the whole entry goes (the
		 * new build's log says so, below). */
		bv_entry_discard(final);
	char *tmp = bv_mkdtemp_in(root, ".tmp-");
	if (!tmp) {
		free(root), free(final), free(plugin), free(why);
		return bv_fail_context(BV_ERUN, "building %s", v->name);
	}
	/* The log is written inside the temporary directory (a concurrent build
	 * of the same key has its own) and moved beside the build when done, so
	 * it survives a failure. */
	char *tmplog = bv_asprintf("%s.log", tmp);
	char *log = bv_asprintf("%s/%s.log", root, key);
	FILE *f = why ? fopen(tmplog, "a") : NULL;
	if (f) {
		fprintf(f, "build: the cache's entry %s was damaged (lib/: %s): set aside, built again\n", final, why);
		fclose(f);
	}
	free(why);
	watch w;
	watch_start(&w, v->name, tmplog);
	bv_build_deadline_start(bv_build_timeout_s);
	rc = run_build(v, tmp, tmplog);
	bv_build_deadline_end();
	watch_stop(&w);
	if (bv_build_expired() && !bv_interrupted()) {
		/* Whatever step was stopped, the limit is why, and nothing of
		 * the build is kept (tmp goes below). */
		failed_by_limit(v, tmplog);
		rc = 0; /* that version's failure, not the run's */
	}
	if (bv_interrupted()) {
		/* make and cc died of the signal too: not a build failure, and
		 * nothing of it stays (the key is built again next time). */
		free(v->build_error);
		v->build_error = NULL;
		unlink(tmplog);
		bv_rm_rf(tmp);
		free(tmplog), free(log), free(tmp), free(root), free(final), free(plugin);
		return bv_fail_interrupted();
	}
	if (bv_exists(tmplog) && rename(tmplog, log) == 0 && v->build_error)
		rename_log_in_error(v, tmplog, log);
	unlink(tmplog);
	free(tmplog);
	free(log);
	if (rc == 0 && !v->build_error && !regular_nonempty(tmp, "plugin.so"))
		/* A recipe or compat flag can make every step exit 0 and write
		 * nothing (-fsyntax-only): never cache that, or every later run
		 * trips over an entry without its plugin. */
		v->build_error = bv_strdup("the build exited 0 but left no plugin.so (a compat flag such as "
					   "-fsyntax-only?); nothing was cached");
	if (rc == 0 && !v->build_error)
		rc = write_version(v, tmp);
	if (rc == 0 && !v->build_error) {
		/* What layouts link again, sealed as it was built. */
		char *lib = bv_asprintf("%s/lib", tmp);
		rc = bv_entry_seal(lib);
		free(lib);
	}
	if (rc == 0 && !v->build_error) {
		rc = move_into_place(tmp, final, plugin);
		if (rc == 0)
			v->plugin = bv_strdup(plugin);
	}
	bv_rm_rf(tmp);
	free(tmp);
	free(root);
	free(final);
	free(plugin);
	return rc ? bv_fail_context(rc, "building %s", v->name) : 0;
}
