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
 *
 * The stage is four files: build_key.c makes the keys (what a build is made
 * of, hashed), build_plugin.c builds the harness side over the library,
 * build_link.c links the plugin, its host-only variant and its layouts, and
 * this file runs one build: the library side, the log, the time limit and
 * the cache's entry.
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
#include "build_key.h"
#include "build_link.h"
#include "build_plugin.h"
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
			bv_build_failed(v, step, log);
			free(step);
			return 0;
		}
	}
	return 0;
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
			char *moved = bv_build_replace_all(flags, origin, lib);
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
		bv_build_failed(v, step, log);
		free(step);
		return 1;
	}
	/* The link contract (docs/compat.md): the library is the archives
	 * the recipe left in {build}. */
	bv_strv archives = BV_STRV_INIT;
	bv_build_archives(lib, &archives);
	size_t narchives = archives.n;
	bv_strv_free(&archives);
	if (!narchives) {
		bv_build_failed_because(v,
			                "the recipe left no archive (*.a) in {build}: a library is linked into the plugin "
			                "from the archives its build leaves there (docs/compat.md, the link contract)",
			                log);
		return 1;
	}
	library_keep(libkey, src, lib);
	return 0;
}

static int run_build(bv_version *v, const char *dir, const char *log)
{
	char *src = bv_asprintf("%s/src", dir);
	char *lib = bv_asprintf("%s/lib", dir);
	char libkey[41];
	int rc = bv_build_library_key(v, libkey);
	/* A library built before with the same key (the harness alone
	 * differs): taken, not built again. */
	int taken = rc == 0 ? library_take(libkey, src, lib, log) : 0;
	if (taken < 0)
		rc = taken;
	int failed_library = 0;
	if (rc == 0 && !taken && (rc = build_library(v, src, lib, log, libkey)) > 0)
		failed_library = 1, rc = 0;
	if (rc == 0 && !failed_library)
		rc = bv_build_harness(v, dir, src, lib, log);
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
	int rc = bv_build_key(v, key);
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
	bv_build_failed_because(v, why, tmplog);
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
	int rc = bv_build_key(v, key);
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
