/*
 * counts_make.c - the counts made: each one found in the cache
 * (<cache>/counts/<build key>/<id>.json, checked against what it names and
 * its digest) or made under Valgrind, `valgrind --tool=callgrind ...
 * bv-runner --count`, o->jobs at once, each with a deadline, each in a
 * process group of its own killed whole when it ends, while we are a
 * subreaper; and what an ended count left read into its status.  Also the
 * probe of Valgrind's version, and bv_counts_make (bisect --by counts).
 *
 * Apart from counts.c, which decides what to count and what the counts
 * say: this file holds the processes, signals, deadlines and the cache,
 * the part of counting that can fail, and the only one that runs Valgrind.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benches.h"
#include "child.h"
#include "common.h"
#include "counts.h"
#include "counts_files.h"
#include "counts_make.h"
#include "env.h"
#include "fs.h"
#include "hash.h"
#include "json.h"
#include "ops_file.h"
#include "proc.h"
#include "progress.h"
#include "suite.h"

extern char **environ;

/* What a count's identity holds besides the build: bump when the counted
 * region or the simulated machine changes. */
#define COUNT_SCHEMA "bv-count/4" /* 3: no warm call past 16 MiB, LD_BIND_NOW; 4: entries carry their digest */
#define MAX_PROFILE (64 << 20) /* bytes of a callgrind file read */

/* ---- making counts ------------------------------------------------------ */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void set_status(bv_count *c, bv_status status, char *reason)
{
	free(c->reason);
	c->status = status;
	c->reason = reason;
}

/* The simd ISA a count asks for: the one the version was timed on, so the
 * counted path is the timed one, except avx512, which Valgrind 3.19 does
 * not run (the count then takes Valgrind's CPU's, and says so). */
static const char *count_isa(const char *timed)
{
	return timed && strcmp(timed, "avx512") && strlen(timed) < 32 ? timed : NULL;
}

static char *cache_path(const bv_count_job *j, const char *ext)
{
	return bv_asprintf("%s/counts/%s/%s.%s", bv_cache_dir(), j->key, j->id, ext);
}

/* bv-runner --count for the job's one cell under callgrind, with the
 * simulated caches of a fixed geometry (BV_COUNT_CACHES). */
static void count_argv(const bv_count_job *j, const char *valgrind, const char *plugin, const char *size,
		       bv_strv *argv)
{
	bv_strv_push(argv, valgrind);
	bv_strv_push(argv, "--tool=callgrind");
	bv_strv_pushf(argv, "--callgrind-out-file=%s/callgrind.out", j->dir);
	bv_strv_pushf(argv, "--log-file=%s/valgrind.log", j->dir);
	/* nothing simulated before bv-runner asks (CALLGRIND_START_INSTRUMENTATION
	 * before its warm call): loading, setup and making the inputs run at
	 * full speed, 2.5x less time for a 1M-element exp */
	bv_strv_push(argv, "--instr-atstart=no");
	bv_strv_push(argv, "--collect-atstart=no");
	bv_strv_push(argv, "--cache-sim=yes");
	bv_strv_push(argv, "--branch-sim=yes");
	const char *caches[] = {BV_COUNT_CACHES};
	for (size_t i = 0; i < sizeof(caches) / sizeof(*caches); i++)
		bv_strv_push(argv, caches[i]);
	bv_strv_pushf(argv, "%s/bv-runner", bv_libexec());
	bv_strv_push(argv, "--count");
	bv_strv_push(argv, "--out");
	bv_strv_pushf(argv, "%s/count.json", j->dir);
	bv_strv_push(argv, "--threads");
	bv_strv_push(argv, "1");
	if (count_isa(j->timed)) {
		bv_strv_push(argv, "--simd-isa");
		bv_strv_push(argv, count_isa(j->timed));
	}
	if (bv_ops_file_hash()) {
		bv_strv_push(argv, "--ops-file");
		bv_strv_push(argv, bv_ops_file_path());
		bv_strv_push(argv, "--ops-hash");
		bv_strv_push(argv, bv_ops_file_hash());
	}
	/* The same for a project suite's description (suite.h): its group
	 * is registered after the catalog's and the ops file's. */
	bv_suite_runner_args(argv);
	const char *lists[][2] = {{"--benches", j->bench}, {"--ops", j->op}, {"--backends", j->backend},
				  {"--sizes", size}};
	for (size_t i = 0; i < 4; i++)
		bv_strv_push(argv, lists[i][0]), bv_strv_push(argv, lists[i][1]);
	bv_strv_push(argv, "--only");
	bv_strv_push(argv, "0");
	bv_strv_pushf(argv, "%s=%s", j->c.label, plugin);

}

/* The runner's environment: the library under test learns no secret
 * (bv_child_environ), and one thread, as the count says.  The strings
 * are env's (freed by the caller after the array). */
static char **count_environ(char **env)
{
	size_t ne = 0;
	while (env[ne])
		ne++;
	char **env2 = bv_xcalloc(ne + 4, sizeof(char *));
	size_t k = 0;
	for (size_t i = 0; i < ne; i++)
		if (strncmp(env[i], "OPENBLAS_NUM_THREADS=", 21) && strncmp(env[i], "OMP_NUM_THREADS=", 16) &&
		    strncmp(env[i], "LD_BIND_NOW=", 12))
			env2[k++] = env[i];
	env2[k++] = "OPENBLAS_NUM_THREADS=1";
	env2[k++] = "OMP_NUM_THREADS=1";
	/* every symbol bound at load: no lazy binding inside a counted call
	 * (a large cell's counted call is its first: bv-runner --count) */
	env2[k++] = "LD_BIND_NOW=1";
	return env2;
}

/* fork and exec, not posix_spawn: the child dies with us (PDEATHSIG
 * survives the exec), so a count never outlives a killed bench-versions,
 * whose deadline is the only one it has; and it leads a group of its
 * own, killed whole when the count ends, with what the kernel started.
 * Its output goes to log.  The child's pid, or -1 with errno. */
static pid_t spawn_count(char **argv, char **env, const char *log)
{
	pid_t parent = getpid();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		int in = open("/dev/null", O_RDONLY), out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
			_exit(127);
		execvpe(argv[0], argv, env);
		dprintf(2, "cannot start %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid > 0)
		setpgid(pid, pid); /* as the child does: whichever runs first */
	return pid;
}

static int start(bv_count_job *j, const char *valgrind, const char *tmp, double timeout_s)
{
	char size[32];
	bv_size_format(j->size, size, sizeof(size));
	j->dir = bv_mkdtemp_in(tmp, "count-");
	if (!j->dir) {
		set_status(&j->c, BV_ST_FAILED, bv_asprintf("cannot make a scratch directory in %s", tmp));
		j->state = 2;
		return 0;
	}
	char plugin[4096];
	snprintf(plugin, sizeof(plugin), "%s/builds/%s/plugin-host.so", bv_cache_dir(), j->key);
	if (!bv_exists(plugin))
		snprintf(plugin, sizeof(plugin), "%s/builds/%s/plugin.so", bv_cache_dir(), j->key);
	if (!bv_exists(plugin)) {
		set_status(&j->c, BV_ST_NOT_RUN, bv_asprintf("the build %s is not in the cache (%s) any more",
							     j->key, bv_cache_dir()));
		j->state = 2;
		return 0;
	}
	bv_strv argv = BV_STRV_INIT;
	count_argv(j, valgrind, plugin, size, &argv);
	char *log = bv_asprintf("%s/output.log", j->dir);
	char **env = bv_child_environ(environ, BV_ENV_RUNNER);
	char **env2 = count_environ(env);
	pid_t pid = spawn_count(argv.v, env2, log);
	int rc = pid < 0 ? errno : 0;
	j->pid = pid;
	free(log);
	free(env2), free(env);
	bv_strv_free(&argv);
	if (rc != 0) {
		set_status(&j->c, BV_ST_NOT_RUN, bv_asprintf("cannot start %s: %s", valgrind, strerror(rc)));
		j->state = 2;
		return 0;
	}
	bv_child_track(j->pid);
	j->started = now_s();
	j->deadline = j->started + timeout_s;
	j->state = 1;
	return 0;
}

/* The last line of a file that says something, for a reason. */
static char *last_words(const char *path)
{
	char *tail = bv_file_tail(path, 600);
	if (!tail)
		return NULL;
	size_t n = strlen(tail);
	while (n && (tail[n - 1] == '\n' || tail[n - 1] == ' '))
		tail[--n] = '\0';
	char *nl = strrchr(tail, '\n');
	char *s = bv_strdup(nl ? nl + 1 : tail);
	free(tail);
	/* valgrind's prefix "==123== " says nothing to a user */
	if (s[0] == '=' && s[1] == '=') {
		char *e = strstr(s + 2, "== ");
		if (e)
			memmove(s, e + 3, strlen(e + 3) + 1);
	}
	return s;
}

/* A count's callgrind file in the results, counts/profiles/LABEL/CELL
 * (CELL's slashes as dashes): j->c.profile gets its relative path.  Best
 * effort: the count stands without it. */
static void keep_profile(bv_count_job *j, const char *results_dir, const char *text, size_t len)
{
	/* a label read from a log is hostile: one path component, or no file */
	const char *l = j->c.label;
	if (!*l || strchr(l, '/') || !strcmp(l, ".") || !strcmp(l, "..") || !bv_path_lexically_inside(l))
		return;
	char *cell = bv_strdup(j->c.cell);
	for (char *p = cell; *p; p++)
		if (*p == '/')
			*p = '-';
	char *rel = bv_asprintf("counts/profiles/%s/%s.callgrind", j->c.label, cell);
	char *full = bv_asprintf("%s/%s", results_dir, rel), *sub = bv_asprintf("counts/profiles/%s", j->c.label);
	free(j->c.profile);
	j->c.profile = NULL;
	/* each directory the run's own, never a link out of it */
	if (bv_mkdir_inside(results_dir, sub) == 0 && bv_write_file_atomic(full, text, len) == 0)
		j->c.profile = rel, rel = NULL;
	free(rel), free(full), free(sub), free(cell);
}

/* What a count that exited 0 left: bv-runner's document d, and the
 * callgrind file out, into j (kept in the cache when cache_ok, and in the
 * results).  Nonzero when what failed is Valgrind's doing, not the
 * build's (such a count is not cached). */
static int read_count(bv_count_job *j, const cJSON *d, const char *out, const char *results_dir, int cache_ok)
{
	int fault = 0;
	/* the runner's status, as a log says it; one it does not say is a failure */
	bv_status st = bv_status_parse(bv_json_str(d, "status"));
	const char *isa = bv_json_str(d, "simd_isa");
	const cJSON *on = cJSON_GetObjectItemCaseSensitive(d, "on_valgrind");
	free(j->c.simd_isa);
	j->c.simd_isa = isa && strlen(isa) < 32 ? bv_strdup(isa) : NULL;
	if (!cJSON_IsTrue(on)) {
		set_status(&j->c, BV_ST_FAILED, bv_strdup("the runner did not run under Valgrind"));
		fault = 1;
	} else if (st != BV_ST_OK) {
		const char *r = bv_json_str(d, "reason");
		set_status(&j->c, st != BV_ST_NONE ? st : BV_ST_FAILED, r ? bv_strdup(r) : NULL);
	} else {
		char *text = NULL, why[200];
		size_t len = 0;
		if (bv_read_file(out, MAX_PROFILE, &text, &len) != 0) {
			set_status(&j->c, BV_ST_FAILED,
				   bv_asprintf("no callgrind file: %s", bv_error_last()));
			fault = 1;
		} else if (bv_callgrind_parse(text, len, BV_COUNT_MAX_FNS, &j->c, why, sizeof(why)) != 0) {
			set_status(&j->c, BV_ST_FAILED, bv_asprintf("callgrind's file: %s", why));
			fault = 1;
		} else {
			set_status(&j->c, BV_ST_OK, NULL);
			/* The file itself, for callgrind_annotate or KCachegrind:
			 * in the cache beside the count, and in the results. */
			char *keep = cache_path(j, "callgrind");
			bv_hash_bytes(text, len, j->cg_digest);
			if (cache_ok)
				(void)bv_write_file_atomic(keep, text, len);
			free(keep);
			keep_profile(j, results_dir, text, len);
		}
		free(text);
	}
	return fault;
}

/* A count's process has ended with wait status ws: read what it left. */
static void finish(bv_count_job *j, int ws, const char *results_dir, double timeout_s, int timed_out)
{
	j->c.seconds = now_s() - j->started;
	char *cdir = bv_asprintf("%s/counts/%s", bv_cache_dir(), j->key);
	int cache_ok = bv_mkdir_p(cdir) == 0; /* a cache that cannot be written costs a count next time only */
	free(cdir);
	char *out = bv_asprintf("%s/callgrind.out", j->dir), *doc = bv_asprintf("%s/count.json", j->dir);
	char *vlog = bv_asprintf("%s/valgrind.log", j->dir), *olog = bv_asprintf("%s/output.log", j->dir);
	cJSON *d = NULL;
	int vg_fault = 0; /* Valgrind's doing, not the build's */
	if (timed_out)
		set_status(&j->c, BV_ST_TIMEOUT,
			   bv_asprintf("no count after %g s under Valgrind (about 50x slower than native; "
				       "--count-timeout gives more)",
				       timeout_s));
	else if (WIFSIGNALED(ws)) {
		/* Valgrind ends itself with the signal that ended the program;
		 * an instruction it cannot run (AVX-512 in 3.19) says so first. */
		char *vl = NULL;
		size_t vlen;
		int unknown = bv_read_file(vlog, 1 << 20, &vl, &vlen) == 0 && strstr(vl, "unhandled instruction");
		free(vl);
		set_status(&j->c, BV_ST_CRASHED,
			   bv_asprintf("signal %d (%s) under Valgrind%s", WTERMSIG(ws), strsignal(WTERMSIG(ws)),
				       unknown ? ", at an instruction Valgrind cannot run (AVX-512 code, or built "
						 "with -march=native?)"
					       : ""));
	}
	else if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
		char *w = last_words(vlog);
		char *o = last_words(olog);
		const char *say = w && *w && strstr(w, "Process terminating") == NULL ? w : o && *o ? o : w;
		set_status(&j->c, BV_ST_CRASHED,
			   bv_asprintf("exited with status %d under Valgrind%s%s", WIFEXITED(ws) ? WEXITSTATUS(ws) : -1,
				       say && *say ? ": " : "", say ? say : ""));
		free(w), free(o);
	} else if (bv_json_load(doc, 1 << 20, &d) != 0) {
		/* A success that left no counts is no crash of the version:
		 * bv-runner writes count.json before it exits 0, so what ran as
		 * Valgrind did not run it (a stub, a wrapper) or lost its file. */
		int none = !bv_exists(doc);
		char *w = bv_exists(vlog) ? last_words(vlog) : NULL, *o = bv_exists(olog) ? last_words(olog) : NULL;
		const char *say = w && *w ? w : o && *o ? o : NULL;
		if (none)
			set_status(&j->c, BV_ST_FAILED,
				   bv_asprintf("Valgrind exited 0 without writing its counts (bv-runner's count.json is "
					       "missing%s%s)",
					       say ? "; its last words: " : "", say ? say : ""));
		else
			set_status(&j->c, BV_ST_FAILED,
				   bv_asprintf("Valgrind exited 0, but its counts cannot be read: %s", bv_error_last()));
		free(w), free(o);
		vg_fault = 1;
	} else
		vg_fault = read_count(j, d, out, results_dir, cache_ok);
	cJSON_Delete(d);
	/* Only what the same build will count again the same way: not a
	 * timeout (a busier machine), not a count that could not start, not
	 * what Valgrind failed to do (a stub that wrote nothing would stand
	 * for the real one's count under its version). */
	if (!timed_out && !vg_fault && cache_ok && j->c.status != BV_ST_NOT_RUN) {
		char *path = cache_path(j, "json");
		cJSON *o = bv_count_json(&j->c);
		/* what it is the count of, checked when it is read (from_cache) */
		cJSON_AddStringToObject(o, "build_key", j->key);
		cJSON_AddStringToObject(o, "id", j->id);
		if (j->cg_digest[0])
			cJSON_AddStringToObject(o, "callgrind_digest", j->cg_digest);
		(void)bv_json_save(path, o);
		cJSON_Delete(o);
		free(path);
	}
	bv_rm_rf(j->dir);
	free(j->dir);
	j->dir = NULL;
	free(out), free(doc), free(vlog), free(olog);
	j->state = 2;
}

/* Why the cache's entry d (read into c) is not the count job j looks for,
 * or NULL when it is: the build, the count's identity and the cell it
 * names are j's, its content is what its digest says, and so is its
 * callgrind file's (read into *text, when there is one).  To free. */
static char *cache_entry_fault(const cJSON *d, const bv_count *c, const bv_count_job *j, const char *cg,
			       char **text, size_t *len)
{
	const char *key = bv_json_str(d, "build_key"), *id = bv_json_str(d, "id");
	const char *cgd = bv_json_str(d, "callgrind_digest"), *unsound;
	if (strcmp(c->cell, j->c.cell))
		return bv_asprintf("names the cell %.200s, not %s", c->cell, j->c.cell);
	if (!key || strcmp(key, j->key))
		return bv_asprintf("names the build %.64s, not %s", key ? key : "(none)", j->key);
	if (!id || strcmp(id, j->id))
		return bv_asprintf("is the count %.64s, not %s", id ? id : "(none)", j->id);
	if ((unsound = bv_count_unsound(d, c, 1)))
		return bv_strdup(unsound);
	/* a callgrind file that is not there is no count's fault (it is
	 * written after the count, best effort): the count stands alone */
	if (c->status == BV_ST_OK && bv_read_file(cg, MAX_PROFILE, text, len) == 0) {
		char got[41];
		bv_hash_bytes(*text, *len, got);
		if (!cgd || strcmp(cgd, got))
			return bv_asprintf("has a callgrind file (%s) that does not match its digest", cg);
	}
	return NULL;
}

/* The cache's copy of a count, with its callgrind file copied into the
 * results; 0 when found.  An entry that is not the count asked for, or
 * not what it was when written, is said, removed and made again: the
 * "why" is never taken from a file that changed. */
static int from_cache(bv_count_job *j, const char *results_dir)
{
	char *path = cache_path(j, "json"), *cg = cache_path(j, "callgrind"), *text = NULL, *fault = NULL;
	size_t len = 0;
	cJSON *d = NULL;
	bv_count c;
	memset(&c, 0, sizeof(c));
	int rc = -1;
	if (!bv_exists(path))
		;
	else if (bv_json_load(path, 1 << 20, &d) != 0)
		fault = bv_asprintf("cannot be read (%s)", bv_error_last());
	else if (bv_count_read(d, &c) != 0)
		fault = bv_strdup("is not a count");
	else if (!(fault = cache_entry_fault(d, &c, j, cg, &text, &len)))
		rc = 0;
	cJSON_Delete(d);
	if (fault) {
		fprintf(stderr, "counts: the cache's count of %s %s (%s) %s: it is made again\n", j->c.label, j->c.cell,
			path, fault);
		unlink(path), unlink(cg);
		bv_count_free(&c);
	}
	if (rc == 0) {
		free(c.label), free(c.cell);
		c.label = j->c.label, c.cell = j->c.cell;
		j->c.label = j->c.cell = NULL;
		bv_count_free(&j->c);
		j->c = c;
		j->c.cached = 1;
		free(j->c.profile);
		j->c.profile = NULL;
		if (text)
			keep_profile(j, results_dir, text, len);
		j->state = 2;
	}
	free(text), free(cg), free(path), free(fault);
	return rc;
}

/* How long `valgrind --version` is waited for: it answers at once, but a
 * broken or wrapped one that never does must not hang the run. */
#define PROBE_S 10

static void keep_probe(void *ctx, const char *data, size_t n)
{
	bv_buf *b = ctx;
	if (b->len < 200)
		bv_buf_putn(b, data, n < 200 - b->len ? n : 200 - b->len);
}

/* "valgrind-3.19.0", or NULL with *why (to free) when there is none to
 * count with: not found, no answer within PROBE_S (killed), or an answer
 * that is not a version.  Forked and exec'd as a count is (spawn_count):
 * the probe dies with us, even by SIGKILL, and leads a group of its own,
 * killed whole when it does not answer. */
static char *valgrind_version(const char *valgrind, char **why)
{
	*why = NULL;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		*why = bv_asprintf("cannot ask %s its version: pipe: %s", valgrind, strerror(errno));
		return NULL;
	}
	char *argv[] = {(char *)valgrind, "--version", NULL};
	char **env = bv_child_environ(environ, BV_ENV_BUILD);
	pid_t parent = getpid();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(126);
		int in = open("/dev/null", O_RDWR);
		if (in < 0 || dup2(in, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(in, 2) < 0)
			_exit(126);
		execvpe(argv[0], argv, env);
		_exit(errno == ENOENT ? 127 : 126);
	}
	int err = errno;
	free(env);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		*why = bv_asprintf("cannot ask %s its version: fork: %s", valgrind, strerror(err));
		return NULL;
	}
	setpgid(pid, pid); /* as the child does: whichever runs first */
	bv_child_track(pid);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double deadline = ((double)ts.tv_sec + PROBE_S) * 1e9 + (double)ts.tv_nsec;
	bv_buf b = BV_BUF_INIT;
	bv_buf_puts(&b, "");
	int late = bv_read_child(fds[0], pid, deadline, keep_probe, &b) == 1;
	close(fds[0]);
	if (late) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	int ws = 0;
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	bv_child_untrack(pid);
	char *out = bv_buf_detach(&b);
	out[strcspn(out, "\r\n")] = '\0';
	if (late)
		*why = bv_asprintf("%s did not answer --version within %d s (killed; BV_VALGRIND names another "
				   "valgrind)",
				   valgrind, PROBE_S);
	else if (WIFEXITED(ws) && WEXITSTATUS(ws) == 127 && !*out)
		*why = bv_asprintf("%s not found (apt-get install valgrind, or scripts/deps.sh): its counts say why "
				   "a cell changed",
				   valgrind);
	else if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0 || strncmp(out, "valgrind-", 9))
		*why = bv_asprintf("%s --version did not say a version (%s %d%s%.60s)", valgrind,
				   WIFEXITED(ws) ? "exit status" : "signal",
				   WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws), *out ? ", said: " : "", out);
	if (*why) {
		free(out);
		return NULL;
	}
	return out;
}

static int run_jobs(bv_count_job *js, size_t n, const bv_counts_opts *o, const char *results_dir,
		    const char *valgrind)
{
	char *tmp = bv_asprintf("%s/counts", bv_cache_dir());
	if (bv_mkdir_p(tmp) != 0) {
		free(tmp);
		return bv_fail(BV_ERUN, "cannot make %s/counts: %s", bv_cache_dir(), bv_error_last());
	}
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int jobs = o->jobs > 0 ? o->jobs : cpus > 0 ? (int)cpus : 1;
	size_t next = 0, running = 0, done = 0, total = 0;
	for (size_t i = 0; i < n; i++)
		total += js[i].state == 0;
	int rc = 0;
	double t0 = now_s(), last = t0;
	int tty = isatty(2), drawn = 0, estimated = 0;
	/* bv_count_jobs_make made us a subreaper: what a count leaves is killed
	 * whenever no count runs (every child then is such a leftover). */
	while (rc == 0 && (next < n || running)) {
		while (next < n && (int)running < jobs) {
			bv_count_job *j = &js[next++];
			if (j->state != 0)
				continue;
			start(j, valgrind, tmp, o->timeout_s);
			if (j->state == 1)
				running++;
			else
				done++;
		}
		int ws;
		pid_t pid = waitpid(-1, &ws, WNOHANG);
		for (size_t i = 0; pid > 0 && i < n; i++)
			if (js[i].state == 1 && js[i].pid == pid) {
				bv_child_untrack(pid);
				kill(-pid, SIGKILL); /* what it left in its group */
				finish(&js[i], ws, results_dir, o->timeout_s, 0);
				running--, done++;
				if (!running)
					bv_kill_children();
			}
		double t = now_s();
		for (size_t i = 0; i < n; i++)
			if (js[i].state == 1 && t > js[i].deadline) {
				kill(-js[i].pid, SIGKILL);
				kill(js[i].pid, SIGKILL);
				while (waitpid(js[i].pid, &ws, 0) < 0 && errno == EINTR)
					;
				bv_child_untrack(js[i].pid);
				finish(&js[i], ws, results_dir, o->timeout_s, 1);
				running--, done++;
				if (!running)
					bv_kill_children();
			}
		if (bv_interrupted())
			rc = bv_fail(BV_EINTR, "interrupted (%s) while counting under Valgrind; the run's logs are "
					       "complete: bench-versions compare %s --counts changed counts the rest",
				     bv_interrupted() == SIGTERM ? "SIGTERM" : "SIGINT", results_dir);
		/* What it is doing, and how long it has left (from the calls
		 * done so far): redrawn on a terminal every 2 s, a line every
		 * progress interval elsewhere (a CI log showed nothing for
		 * 404 s of counting). */
		long every = tty ? 2 : bv_progress_interval();
		/* the first estimate as soon as one call is done, then every interval */
		int first = done && !estimated && done < total;
		if (every > 0 && (first || t - last > (double)every) && total) {
			estimated |= done > 0;
			char eta[48] = "";
			if (done && done < total)
				snprintf(eta, sizeof(eta), ", about %.0fs left", (t - t0) / (double)done * (double)(total - done));
			fprintf(stderr, "%scounts: %zu of %zu calls under Valgrind, %zu running (%.0fs%s)%s", tty ? "\r\033[K" : "",
				done, total, running, t - t0, eta, tty ? "" : "\n");
			last = t, drawn = tty;
		}
		if (pid <= 0)
			usleep(20000);
	}
	for (size_t i = 0; i < n; i++)
		if (js[i].state == 1) { /* interrupted */
			int ws;
			kill(-js[i].pid, SIGKILL);
			kill(js[i].pid, SIGKILL);
			waitpid(js[i].pid, &ws, 0);
			bv_child_untrack(js[i].pid);
			bv_rm_rf(js[i].dir);
			free(js[i].dir);
			js[i].dir = NULL;
		}
	bv_kill_children();
	if (drawn)
		fprintf(stderr, "\r\033[K");
	free(tmp);
	return rc;
}

/* Finds or makes every job's count (state 0: to make): the cache first,
 * then Valgrind, o->jobs at once.  *vg_version gets Valgrind's version
 * (NULL: none ran); *cached and *made how many came from where. */
int bv_count_jobs_make(bv_count_job *js, size_t n, const char *results_dir, const bv_counts_opts *o,
		       char **vg_version, size_t *cached, size_t *made)
{
	int rc = 0;
	size_t todo = 0;
	*vg_version = NULL, *cached = 0, *made = 0;
	for (size_t i = 0; i < n; i++)
		todo += js[i].state == 0;
	if (todo) {
		const char *valgrind = getenv("BV_VALGRIND") && *getenv("BV_VALGRIND") ? getenv("BV_VALGRIND") : "valgrind";
		/* The sanitizers' runtime and Valgrind cannot share a process:
		 * a sanitizer build's runner is not counted (make test's ASan
		 * subset runs such a bench-versions). */
#if defined(__SANITIZE_ADDRESS__)
		int sanitized = 1;
#else
		int sanitized = 0;
#endif
		/* A subreaper while counting, as while timing (measure.c): a
		 * process the counted code (or the probe) started and that left
		 * its group (setsid) is not reached by the group's kill, and would
		 * outlive the run with init for a parent.  Here it becomes ours
		 * when its parent ends, and is killed with what it started. */
		int was_subreaper = 0;
		prctl(PR_GET_CHILD_SUBREAPER, &was_subreaper);
		prctl(PR_SET_CHILD_SUBREAPER, 1);
		char *vg_why = NULL;
		*vg_version = sanitized ? NULL : valgrind_version(valgrind, &vg_why);
		bv_kill_children();
		for (size_t i = 0; i < n; i++) {
			bv_count_job *j = &js[i];
			if (j->state != 0)
				continue;
			if (sanitized) {
				free(j->c.reason);
				j->c.reason = bv_strdup("this bench-versions is a sanitizer build (bin-asan/): its "
							"runner cannot run under Valgrind");
				j->state = 2;
				continue;
			}
			if (!*vg_version) {
				free(j->c.reason);
				j->c.reason = bv_strdup(vg_why);
				j->state = 2;
				continue;
			}
			const char *isa = count_isa(j->timed);
			const char *caches[] = {BV_COUNT_CACHES};
			char *idtext = bv_asprintf("%s\n%s\n%s %s %s\n%s\nisa %s\nops %s\n", COUNT_SCHEMA, *vg_version,
						   caches[0], caches[1], caches[2], j->c.cell, isa ? isa : "-",
						   bv_ops_file_hash() ? bv_ops_file_hash() : "-");
			bv_hash_bytes(idtext, strlen(idtext), j->id);
			free(idtext);
			if (from_cache(j, results_dir) == 0)
				(*cached)++;
		}
		size_t left = 0;
		for (size_t i = 0; i < n; i++)
			left += js[i].state == 0;
		if (left) {
			fprintf(stderr, "counts: %zu %s under Valgrind (%s), %zu at once\n", left,
				bv_plural((long long)left, "call", "calls"), *vg_version,
				o->jobs > 0 ? (size_t)o->jobs : (size_t)sysconf(_SC_NPROCESSORS_ONLN));
			/* Ctrl-C and SIGTERM end the counts (and their processes)
			 * cleanly: compare has no handler of its own */
			bv_signals_install();
			rc = run_jobs(js, n, o, results_dir, valgrind);
			*made = left;
		}
		free(vg_why);
		prctl(PR_SET_CHILD_SUBREAPER, was_subreaper);
	}
	return rc;
}

int bv_counts_make(const bv_count_req *reqs, size_t n, const char *results_dir, const bv_counts_opts *o,
		   bv_count *out)
{
	bv_count_job *js = bv_xcalloc(n ? n : 1, sizeof(bv_count_job));
	for (size_t i = 0; i < n; i++) {
		const bv_count_req *q = &reqs[i];
		bv_count_job *j = &js[i];
		char size[32];
		j->c.label = bv_strdup(q->label);
		j->c.cell = bv_asprintf("%s/%s/%s/%s", q->bench, q->op, q->backend, bv_size_format(q->size, size, sizeof(size)));
		j->c.status = BV_ST_NOT_RUN;
		j->bench = q->bench, j->op = q->op, j->backend = q->backend, j->size = q->size;
		j->key = q->build_key, j->timed = q->simd_isa;
		if (!j->key) {
			j->c.reason = bv_strdup("no build to count");
			j->state = 2;
		}
	}
	char *vg = NULL;
	size_t cached, made;
	int rc = bv_count_jobs_make(js, n, results_dir, o, &vg, &cached, &made);
	for (size_t i = 0; i < n; i++)
		out[i] = js[i].c;
	free(js), free(vg);
	return rc;
}
