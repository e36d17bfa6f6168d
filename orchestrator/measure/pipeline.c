/*
 * pipeline.c - the stages in order for a list of names: resolve, fetch,
 * compat, build, measure (docs/architecture.md).  `run` (cmd_run.c) and
 * `report` (cmd_report.c) drive them through bv_run_versions; `bisect` and
 * `compat --build` take the build step alone (bv_build_versions), so a command
 * depends on this library file, never on another command.
 *
 * Versions fetch and build independently, so they do it in parallel: one
 * child process per version (at most --jobs at once), each reporting its
 * result back through a pipe.  Processes rather than threads because the
 * stages keep per-process state (the compiler version, libgit2's handles)
 * and a crash in one build cannot take the others down.  A single version,
 * or --jobs 1, is built in such a child too: the child is what ends make
 * and its compilers when this process dies without a word (SIGKILL).
 *
 * Ctrl-C or SIGTERM (proc.c) stops the run between steps: builds in flight
 * remove their temporary directories, the measure stage writes the cells
 * that finished, and the run exits 128 + the signal with the command that
 * resumes it (--resume DIR).  The results directory is made and locked
 * before anything is built, so an unwritable one costs nothing, and two
 * runs (or a run and a resume) never write one directory at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "baseline.h"
#include "benches.h"
#include "child.h"
#include "common.h"
#include "fs.h"
#include "plan.h"
#include "planner.h"
#include "proc.h"
#include "project.h"
#include "json.h"
#include "locate.h"
#include "progress.h"
#include "compat.h"
#include "resolve.h"
#include "fetch.h"
#include "build.h"
#include "measure.h"
#include "run_options.h"
#include "pipeline.h"
#include "suite.h"
#include "suite_file.h"
#include "ops_file.h"
#include "user_ops.h"

static char *results_dir(const char *root)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	if (bv_mkdir_p(root) != 0) {
		bv_fail_context(BV_ERUN, "results directory (--results)");
		return NULL;
	}
	/* Two runs in one second must not share a directory: mkdir() is the
	 * test, atomic, so the second one takes the next suffix. */
	for (int i = 0; i <= 100; i++) {
		char *dir = i ? bv_asprintf("%s/%s-%d", root, stamp, i) : bv_asprintf("%s/%s", root, stamp);
		if (mkdir(dir, 0755) == 0)
			return dir;
		int e = errno;
		free(dir);
		if (e != EEXIST) {
			bv_fail(BV_ERUN, "cannot create a results directory in %s: %s", root, strerror(e));
			return NULL;
		}
	}
	bv_fail(BV_ERUN, "cannot create a results directory in %s: too many runs this second", root);
	return NULL;
}

/* The run's hold on its results directory, for as long as it lives (a
 * SIGKILL releases it too): a resume of a directory a run is still writing
 * is refused.  Then a small write, so a read-only or full disk is found now
 * rather than after the measuring. */
static int claim_dir(const char *dir, int *lockfd)
{
	*lockfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*lockfd < 0)
		return bv_fail(BV_ERUN, "cannot open the results directory %s: %s", dir, strerror(errno));
	if (flock(*lockfd, LOCK_EX | LOCK_NB) != 0)
		return bv_fail(errno == EWOULDBLOCK ? BV_EINPUT : BV_ERUN, "%s: %s", dir,
			       errno == EWOULDBLOCK ? "another bench-versions run is writing there now"
						    : strerror(errno));
	char *probe = bv_asprintf("%s/.write-test", dir);
	int rc = bv_write_file_atomic(probe, "ok\n", 3);
	unlink(probe);
	free(probe);
	return rc ? bv_fail_context(rc, "results directory not writable") : 0;
}

/* The command that resumes this run: the command as given, without its
 * --results and --resume (bv_run_cli_given), then --resume DIR. */
static char *resume_command(const bv_run_cli *c, const char *dir)
{
	bv_buf b = BV_BUF_INIT;
	bv_buf_puts(&b, c->again ? c->again : "bench-versions run ...");
	bv_buf_puts(&b, " --resume ");
	bv_shell_word(&b, dir);
	return bv_buf_detach(&b);
}

/* The line said when a version's build is done. */
static char *build_line(const bv_version *v)
{
	if (v->build_error)
		return bv_asprintf("build: %-12s %s: %s", v->name, bv_progress_paint("31", "FAILED"), v->build_error);
	bv_buf shims = BV_BUF_INIT;
	for (size_t k = 0; k < v->shims.nrules; k++)
		bv_buf_printf(&shims, "%s%s", k ? ", " : "", v->shims.rules[k]);
	char *line = bv_asprintf("build: %-12s %s (compat: %s)", v->name,
				 v->cached ? "cached, nothing rebuilt" : "built", shims.s ? shims.s : "none");
	bv_buf_free(&shims);
	return line;
}

/* One version's fetch and build, in this process. */
static int fetch_build(bv_repo *repo, bv_version *v)
{
	int rc = bv_fetch(repo, v);
	return rc ? rc : bv_build(v);
}

/* A child's report: the fields fetch and build fill, each as a presence
 * byte and a NUL-terminated string, after the return code and message. */
static void put_field(bv_buf *b, const char *s)
{
	bv_buf_putn(b, s ? "1" : "0", 1);
	bv_buf_putn(b, s ? s : "", (s ? strlen(s) : 0) + 1);
}

static int get_field(const char **p, const char *end, char **out)
{
	if (*p >= end)
		return 0;
	int present = **p == '1';
	const char *s = *p + 1;
	const char *nul = s < end ? memchr(s, '\0', (size_t)(end - s)) : NULL;
	if (!nul)
		return 0;
	/* The child's value replaces the parent's (a release's src_dir is set
	 * while resolving): free the old one (LeakSanitizer, test_releases). */
	free(*out);
	*out = present ? bv_strdup(s) : NULL;
	*p = nul + 1;
	return 1;
}

static void child_report(bv_repo *repo, bv_version *v, int fd)
{
	int rc = fetch_build(repo, v);
	/* Nothing a build started outlives it: a step stopped by a signal or
	 * the parent's death may leave what it ran under a shell, and a recipe
	 * may leave a daemon (setsid, SIGTERM ignored) after exiting 0.  Either
	 * is ours now, this worker being a subreaper: killed (SIGKILL) and
	 * reaped, with whatever those started in turn. */
	bv_kill_children();
	bv_buf b = BV_BUF_INIT;
	char code[16];
	snprintf(code, sizeof(code), "%d", rc);
	put_field(&b, code);
	put_field(&b, rc ? bv_error_last() : NULL);
	put_field(&b, v->src_dir);
	put_field(&b, v->build_key);
	put_field(&b, v->plugin);
	put_field(&b, v->cached ? "1" : "0");
	put_field(&b, v->build_error);
	for (size_t off = 0; off < b.len;) {
		ssize_t w = write(fd, b.s + off, b.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(1);
		off += (size_t)w;
	}
	_exit(0); /* no atexit handlers, no flushing of the parent's buffers */
}

/* Reads a finished child's report into v; returns its rc (message set). */
static int child_collect(int fd, int status, bv_version *v)
{
	bv_buf b = BV_BUF_INIT;
	char chunk[4096];
	ssize_t n;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		bv_buf_putn(&b, chunk, (size_t)n);
	}
	close(fd);
	char *code = NULL, *msg = NULL, *cached = NULL;
	const char *p = b.s, *end = b.s + b.len;
	int rc = 0;
	if (b.len && get_field(&p, end, &code) && get_field(&p, end, &msg) && get_field(&p, end, &v->src_dir) &&
	    get_field(&p, end, &v->build_key) && get_field(&p, end, &v->plugin) && get_field(&p, end, &cached) &&
	    get_field(&p, end, &v->build_error)) {
		rc = code ? atoi(code) : BV_ERUN;
		v->cached = cached && cached[0] == '1';
		if (rc)
			bv_fail(rc, "%s", msg ? msg : "unknown error");
	} else if (!v->build_error) {
		/* A build that crashes its process is that version's failure only. */
		v->build_error = WIFSIGNALED(status)
					 ? bv_asprintf("the build process died of signal %d", WTERMSIG(status))
					 : bv_asprintf("the build process exited %d without a report",
						       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	free(code), free(msg), free(cached);
	bv_buf_free(&b);
	return rc;
}

/* Starts version `next`'s fetch and build in a child process that reports
 * back through a pipe (pids[next], fds[next]); the child keeps nothing of
 * this process it could hold on to after us (the lock, other builds'
 * pipes).  An error here means no build can be started. */
static int build_start(bv_repo *repo, bv_version *vs, size_t next, pid_t *pids, int *fds, pid_t self,
		       int lockfd)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return bv_fail(BV_ERUN, "pipe: %s", strerror(errno));
	fflush(stdout), fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		close(pfd[0]), close(pfd[1]);
		return bv_fail(BV_ERUN, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		bv_child_reset();
		if (bv_child_die_with_parent(self))
			_exit(1);
		/* A copy of this process, without exec: O_CLOEXEC does not
		 * apply.  The lock belongs to the open directory, which fork
		 * shares, so a worker left running would hold it and refuse
		 * --resume; the other builds' pipes are not its business
		 * either. */
		if (lockfd >= 0)
			close(lockfd);
		for (size_t k = 0; k < next; k++)
			if (pids[k])
				close(fds[k]);
		close(pfd[0]);
		child_report(repo, &vs[next], pfd[1]);
	}
	close(pfd[1]);
	bv_child_track(pid); /* a SIGTERM to us reaches it */
	pids[next] = pid, fds[next] = pfd[0];
	return 0;
}

/* fetch + build for every version, at most jobs at once, each in a child
 * process that dies with this one (proc.h).  A version that fails to
 * build is reported and the others go on; an error (nothing can be built)
 * starts no more builds and is returned once the running ones are done. */
int bv_build_versions(bv_repo *repo, bv_version *vs, size_t n, int jobs, int lockfd, struct bv_progress *pg,
		      int *failures)
{
	int rc = 0;
	if (jobs < 1)
		jobs = 1;
	/* Fewer versions than jobs (a bisect step, one local tree): each make
	 * gets the jobs the others leave, so one build is not serial on an
	 * idle machine.  The split is fixed at the start; the last build of a
	 * batch does not grow when the others end. */
	int per = n && n < (size_t)jobs ? jobs / (int)n : 1;
	for (size_t i = 0; i < n; i++)
		vs[i].make_jobs = per;
	pid_t self = getpid();
	pid_t *pids = bv_xcalloc(n, sizeof(pid_t));
	int *fds = bv_xcalloc(n, sizeof(int));
	char *first_error = NULL;
	size_t next = 0, running = 0;
	while ((next < n && rc == 0 && !bv_interrupted()) || running) {
		if (next < n && rc == 0 && !bv_interrupted() && running < (size_t)jobs) {
			rc = build_start(repo, vs, next, pids, fds, self, lockfd);
			if (rc) {
				first_error = bv_strdup(bv_error_last());
				continue;
			}
			if (pg)
				bv_progress_begin(pg, vs[next].name);
			next++, running++;
			continue;
		}
		int status;
		pid_t pid = waitpid(-1, &status, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			if (!rc) {
				rc = bv_fail(BV_ERUN, "waiting for builds: %s", strerror(errno));
				first_error = bv_strdup(bv_error_last());
			}
			break;
		}
		size_t i;
		for (i = 0; i < next && pids[i] != pid; i++)
			;
		if (i == next)
			continue; /* not one of ours */
		bv_child_untrack(pid);
		pids[i] = 0, running--;
		int crc = child_collect(fds[i], status, &vs[i]);
		if (crc) {
			if (!rc) {
				rc = crc;
				first_error = bv_strdup(bv_error_last());
			}
			if (pg) {
				char *line = bv_asprintf("build: %-12s stopped: %s", vs[i].name, bv_error_last());
				bv_progress_done(pg, vs[i].name, line);
				free(line);
			}
			continue;
		}
		*failures += vs[i].build_error != NULL;
		bv_build_hold(&vs[i]); /* trim keeps it while this command uses it */
		if (pg) {
			char *line = build_line(&vs[i]);
			bv_progress_done(pg, vs[i].name, line);
			free(line);
		}
	}
	if (rc)
		bv_fail(rc, "%s", first_error);
	else if (bv_interrupted())
		rc = bv_fail_interrupted();
	free(first_error);
	free(pids);
	free(fds);
	return rc;
}

/* What measuring will cost: the planned cells, those on the cuda backend,
 * and whether they count.  Without a visible GPU the runner marks cuda cells
 * skipped at once (bv_gpu_visible), so the estimate leaves them out: counted,
 * they made the default matrix look 1440 s longer than it ran. */
typedef struct plan {
	long cells, cuda;
	int gpu;
	double seconds; /* measuring budget of the cells that will run */
} plan;

static void plan_of(const bv_plan *run, plan *p)
{
	memset(p, 0, sizeof(*p));
	p->cells = run->ncells;
	for (long k = 0; k < run->ncells; k++)
		p->cuda += !strcmp(run->cells[k].backend, "cuda");
	p->gpu = bv_gpu_visible();
	p->seconds = (double)(p->cells - (p->gpu ? 0 : p->cuda)) * run->o->budget_s;
}

/* "about 1h 17m", "about 12m", "about 40s". */
static void say_duration(double s, char *buf, size_t len)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, len, "%ldh %02ldm", t / 3600, (t % 3600) / 60);
	else if (t >= 60)
		snprintf(buf, len, "%ldm %02lds", t / 60, t % 60);
	else
		snprintf(buf, len, "%lds", t);
}

/* The estimate line, said before measuring and by --dry-run. */
static void say_estimate(FILE *out, const plan *p, size_t nversions, double budget_s)
{
	char d[32];
	say_duration(p->seconds, d, sizeof(d));
	fprintf(out, "measure: %ld %s x %zu %s, measuring budget about %.0fs (%s; %.1fs per cell)", p->cells,
		bv_plural(p->cells, "cell", "cells"), nversions, bv_plural((long long)nversions, "version", "versions"),
		p->seconds, d, budget_s);
	if (p->cuda && !p->gpu)
		fprintf(out, "; %ld cuda %s not counted: no NVIDIA GPU is visible, %s skipped", p->cuda,
			bv_plural(p->cuda, "cell", "cells"), bv_plural(p->cuda, "it is", "they are"));
	fprintf(out, "\n");
}

/* A run past ten minutes is said where a person waits for it, with the ways
 * to make it shorter: the default matrix takes over an hour. */
#define LONG_RUN_S 600.0
static void say_if_long(const plan *p)
{
	if (p->seconds <= LONG_RUN_S || !isatty(2))
		return;
	char d[32];
	say_duration(p->seconds, d, sizeof(d));
	fprintf(stderr, "%s measuring will take about %s; narrow it with --benches, --ops, --backends, --sizes or "
			"--filter, or use --quick (see --dry-run)\n",
		bv_progress_paint("1;33", "note:"), d);
}

/* --dry-run: the versions as resolved, the builds a run would make or
 * reuse, the cells grouped by bench/op/backend and the estimate. */
static void dry_run_report(const bv_version *vs, size_t n, const int *cached, const bv_plan *run, int json)
{
	const bv_measure_opts *mo = run ? run->o : NULL;
	if (bv_suite_dir()) {
		/* The suite's cells are what the versions' builds describe
		 * (suite.h): a dry run builds nothing, so it says the versions. */
		cJSON *doc = json ? cJSON_CreateObject() : NULL;
		cJSON *va = doc ? cJSON_AddArrayToObject(doc, "versions") : NULL;
		if (!json)
			fprintf(stdout, "versions: %zu\n", n);
		for (size_t i = 0; i < n; i++) {
			if (!json) {
				fprintf(stdout, "  %-12s %.12s %s %s, %s\n", vs[i].name, vs[i].tree,
					bv_project_current()->name, vs[i].kernel_version, cached[i] ? "build cached" : "to build");
				continue;
			}
			cJSON *v = cJSON_CreateObject();
			cJSON_AddStringToObject(v, "name", vs[i].name);
			cJSON_AddStringToObject(v, "label", vs[i].label);
			cJSON_AddStringToObject(v, "tree", vs[i].tree);
			cJSON_AddStringToObject(v, "kernels", vs[i].kernel_version);
			cJSON_AddStringToObject(v, "build", cached[i] ? "cached" : "to build");
			cJSON_AddItemToArray(va, v);
		}
		if (json) {
			cJSON_AddStringToObject(doc, "suite", bv_suite_dir());
			cJSON_AddNullToObject(doc, "cells"); /* known after the builds */
			char *text = cJSON_Print(doc);
			fprintf(stdout, "%s\n", text);
			free(text);
			cJSON_Delete(doc);
			return;
		}
		fprintf(stdout, "cells: the suite's (%s), known once the versions are built\n", bv_suite_dir());
		fprintf(stdout, "dry run: nothing was built or measured\n");
		return;
	}
	plan p;
	plan_of(run, &p);
	const bv_cell *cells = run->cells;
	long nc = run->ncells;
	if (json) {
		cJSON *doc = cJSON_CreateObject();
		cJSON *va = cJSON_AddArrayToObject(doc, "versions");
		for (size_t i = 0; i < n; i++) {
			cJSON *v = cJSON_CreateObject();
			cJSON_AddStringToObject(v, "name", vs[i].name);
			cJSON_AddStringToObject(v, "label", vs[i].label);
			cJSON_AddStringToObject(v, "tree", vs[i].tree);
			cJSON_AddStringToObject(v, "kernels", vs[i].kernel_version);
			cJSON_AddStringToObject(v, "build", cached[i] ? "cached" : "to build");
			cJSON_AddItemToArray(va, v);
		}
		cJSON *ca = cJSON_AddArrayToObject(doc, "cells");
		for (long k = 0; k < nc; k++) {
			char key[256], size[32];
			snprintf(key, sizeof(key), "%s/%s/%s/%s", cells[k].bench->name, cells[k].op->name,
				 cells[k].backend, bv_size_format(cells[k].size, size, sizeof(size)));
			cJSON_AddItemToArray(ca, cJSON_CreateString(key));
		}
		cJSON *e = cJSON_AddObjectToObject(doc, "estimate");
		cJSON_AddNumberToObject(e, "cells", (double)p.cells);
		cJSON_AddNumberToObject(e, "cuda_cells", (double)p.cuda);
		cJSON_AddBoolToObject(e, "gpu_visible", p.gpu);
		cJSON_AddNumberToObject(e, "budget_per_cell_s", mo->budget_s);
		cJSON_AddNumberToObject(e, "measuring_s", p.seconds);
		char *text = cJSON_Print(doc);
		fprintf(stdout, "%s\n", text);
		free(text);
		cJSON_Delete(doc);
		return;
	}
	fprintf(stdout, "versions: %zu\n", n);
	for (size_t i = 0; i < n; i++)
		fprintf(stdout, "  %-12s %.12s %s %s, %s\n", vs[i].name, vs[i].tree, bv_project_current()->name,
			vs[i].kernel_version,
			cached[i] ? "build cached" : "to build");
	fprintf(stdout, "cells: %ld\n", nc);
	/* One line per bench/op/backend with its sizes: the default matrix has
	 * hundreds of cells, a line each would bury the count. */
	for (long k = 0; k < nc;) {
		long j = k;
		fprintf(stdout, "  %s/%s/%s:", cells[k].bench->name, cells[k].op->name, cells[k].backend);
		for (; j < nc && cells[j].bench == cells[k].bench && cells[j].op == cells[k].op &&
		       !strcmp(cells[j].backend, cells[k].backend);
		     j++) {
			char size[32];
			fprintf(stdout, " %s", bv_size_format(cells[j].size, size, sizeof(size)));
		}
		fprintf(stdout, "\n");
		k = j;
	}
	say_estimate(stdout, &p, n, mo->budget_s);
	fprintf(stdout, "dry run: nothing was built or measured\n");
}

/* resolve: every name to an exact tree, printed before anything builds;
 * labels made unique in the run.  *nresolved: how many vs hold a version
 * to free. */
static int resolve_names(bv_repo *repo, char *const *names, size_t nnames, bv_version *vs, size_t *nresolved)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < nnames; i++) {
		rc = bv_resolve(repo, names[i], &vs[i]);
		if (rc)
			break;
		(*nresolved)++;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(vs[k].label, vs[i].label)) {
				char *l = bv_asprintf("%s-%zu", vs[i].label, i + 1);
				free(vs[i].label);
				vs[i].label = l;
			}
		fprintf(stderr, "resolve: %-12s -> %s %.12s, %s %s [%s]\n", vs[i].name,
			vs[i].kind == BV_VERSION_LOCAL ? "tree" : vs[i].kind == BV_VERSION_RELEASE ? "tarball" : "commit",
			vs[i].kind == BV_VERSION_LOCAL     ? vs[i].tree
			: vs[i].kind == BV_VERSION_RELEASE ? vs[i].tree + strlen("release-")
							   : vs[i].commit,
			bv_project_current()->name, vs[i].kernel_version, vs[i].rule);
	}
	if (rc == 0 && bv_interrupted())
		rc = bv_fail_interrupted();
	return rc;
}

/* compat: each version's shims, which its build key hashes. */
static int match_shims(bv_version *vs, size_t n, bv_compat **compat)
{
	int rc = bv_compat_load(bv_compat_path(), compat);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		bv_semver sv;
		if (bv_semver_parse(vs[i].kernel_version, &sv) == 0)
			rc = bv_compat_match(*compat, &sv, &vs[i].shims);
	}
	return rc;
}

int bv_plan_versions(char *const *names, size_t n, bv_version **out)
{
	*out = NULL;
	bv_repo *repo = NULL;
	bv_compat *compat = NULL;
	bv_version *vs = bv_xcalloc(n + 1, sizeof(bv_version));
	size_t nresolved = 0;
	bv_signals_install();
	int rc = bv_repo_open(&repo);
	if (rc == 0)
		rc = resolve_names(repo, names, n, vs, &nresolved);
	if (rc == 0)
		rc = match_shims(vs, n, &compat);
	bv_compat_free(compat);
	bv_repo_free(repo);
	if (rc) {
		for (size_t i = 0; i < nresolved; i++)
			bv_version_free(&vs[i]);
		free(vs);
		return rc;
	}
	*out = vs;
	return 0;
}

/* Where the logs go, settled before anything is built: --resume's
 * directory, else a new one under the results root.  A dry run writes
 * nothing, so it makes no directory (with --resume it reads one: whether
 * the plan still matches is part of what it says). */
static int results_where(const bv_run_cli *c, char **dir)
{
	const char *resume = c->resume;
	int rc = 0;
	if (resume) {
		if (!bv_is_dir(resume))
			rc = bv_fail(BV_EINPUT, "--resume %s: not a results directory", resume);
		else {
			/* The run id is the directory's name: no trailing slash. */
			char *d = bv_strdup(resume);
			for (size_t k = strlen(d); k > 1 && d[k - 1] == '/'; k--)
				d[k - 1] = '\0';
			*dir = d;
		}
	} else if (!c->dry_run) {
		char *root = NULL;
		if (c->results_root)
			root = bv_strdup(c->results_root);
		else
			rc = bv_results_default(&root); /* the project's, or the source tree's (locate.c) */
		if (rc == 0) {
			*dir = results_dir(root);
			rc = *dir ? 0 : BV_ERUN;
		}
		free(root);
	}
	return rc;
}

/* --dry-run: the plan, with which builds the cache already holds; nothing
 * is built or measured. */
static int dry_run_plan(const bv_version *vs, size_t n, const bv_run_cli *c, const bv_plan *run)
{
	int rc = 0;
	int *cached = bv_xcalloc(n, sizeof(int));
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = bv_build_is_cached(&vs[i], &cached[i]);
	if (rc == 0)
		dry_run_report(vs, n, cached, run, c->dry_format && !strcmp(c->dry_format, "json"));
	free(cached);
	return rc;
}

/* The build stage, the estimate said before it too: the builds can take
 * minutes of their own.  (run NULL: a suite's cells are not known yet.) */
static int build_stage(bv_repo *repo, bv_version *vs, size_t n, const bv_run_cli *c, const bv_plan *run,
		       int lockfd, int *build_failures)
{
	plan p;
	if (run) {
		plan_of(run, &p);
		say_if_long(&p);
	}
	bv_progress *pg = bv_progress_new("build", n);
	int rc = bv_build_versions(repo, vs, n, c->jobs, lockfd, pg, build_failures);
	bv_progress_end(pg);
	return rc;
}

/* The measure stage, under fixed thread counts and with the most it can
 * take said up front.  *measuring: set once it starts, from when on the
 * logs hold what finished. */
static int measure_stage(const bv_version *vs, size_t n, bv_run_cli *c, const bv_plan *run, const char *dir,
			 char ***logs, int *measuring)
{
	bv_measure_opts *mo = &c->mo;
	/* Fixed thread counts, recorded in the logs: a library that picks its
	 * own count measures the machine's load, not the code. */
	char threads[16];
	snprintf(threads, sizeof(threads), "%d", mo->threads);
	setenv("OPENBLAS_NUM_THREADS", threads, 1);
	setenv("OMP_NUM_THREADS", threads, 1);
	/* Say up front how long measuring can take at most: the budget
	 * bounds every cell (measure.c reports progress as it goes). */
	double t0 = (double)time(NULL);
	plan p;
	plan_of(run, &p);
	say_estimate(stderr, &p, n, mo->budget_s);
	mo->resume = c->resume != NULL;
	*measuring = 1;
	int rc = bv_measure_plan(run, vs, n, mo, dir, logs);
	if (rc == 0)
		fprintf(stderr, "measure: done in %.0fs\n", (double)time(NULL) - t0);
	return rc;
}

/* A failed run's last words: its error, then how to go on from there (the
 * cells that finished, or nothing measured and no empty directory left
 * behind).  Returns rc, or BV_EINTR where the signal caused it. */
static int say_failed(const bv_run_cli *c, int rc, int measuring, const char *dir)
{
	const char *resume = c->resume;
	/* A stage that failed because of the signal (a clone or download cut
	 * short) is an interruption, not an error of its own. */
	if (rc != BV_EINTR && bv_interrupted())
		rc = bv_fail_interrupted();
	fprintf(stderr, "bench-versions: %s\n", bv_error_last());
	if (measuring && !(rc == BV_EINPUT && resume)) {
		/* The logs hold what finished: say how to go on from there. */
		char *cmd = resume_command(c, dir);
		fprintf(stderr, "bench-versions: the finished cells are in %s; %s with:\n  %s\n", dir,
			rc == BV_EINTR ? "resume" : "once the cause is fixed, resume", cmd);
		free(cmd);
	} else if (dir && !resume) {
		/* Nothing was measured: no empty directory stays behind. */
		bv_rm_rf(dir);
		if (rc == BV_EINTR)
			fprintf(stderr, "bench-versions: nothing was measured yet; builds that finished are cached, "
					"so the same command goes on from there\n");
	}
	return rc;
}

/* --resume DIR of a project suite, before anything is built: what the
 * catalog's resume checks then (bv_resume_check: the versions, the method,
 * the process numbers of DIR/raw, the seed, taken over into mo), and the
 * cells, as this command's selection picks them from the description the
 * run wrote (DIR/suite.json, registered for the check and forgotten after
 * it; bv_suite_describe registers the builds' own).  A run whose builds
 * changed the suite is refused after the builds, as before (bv_measure).
 * BV_EINPUT naming the difference, else 0. */
static int suite_resume_check(const char *dir, const bv_version *vs, size_t n, bv_measure_opts *mo)
{
	char *path = bv_suite_description_path(vs, n, dir), err[1024];
	int rc = 0, loaded = 0;
	/* The registry holds the catalog (and a project's ops file) now: the
	 * run's description joins it for this check only. */
	if (bv_exists(path) && !bv_suite_file_hash()) {
		if (bv_suite_file_load(path, err, sizeof(err)) != 0)
			rc = bv_fail(BV_EINPUT, "--resume: %s", err);
		else
			loaded = 1;
	}
	bv_measure_opts o = *mo;
	if (rc == 0 && loaded)
		rc = bv_suite_benches_check(&o, bv_suite_file_suite());
	if (rc == 0 && loaded && !o.benches)
		o.benches = bv_suite_file_suite();
	if (rc == 0)
		rc = bv_resume_check(dir, vs, n, &o, loaded ? 0 : BV_RESUME_CELLS_UNKNOWN);
	mo->seed = o.seed;
	if (loaded) {
		/* Forgotten again, and the registry as it was: the builds'
		 * description is the one measured (bv_suite_describe). */
		bv_bench_reset();
		bv_suite_file_reset();
		bv_ops_file_reset();
		int orc = bv_user_ops_load();
		if (rc == 0)
			rc = orc;
	}
	free(path);
	return rc;
}

int bv_run_versions(char *const *names, size_t nnames, bv_run_cli *c, long ncells, char **dir_out, char ***logs_out,
		    int *build_failures)
{
	bv_measure_opts *mo = &c->mo;
	const char *resume = c->resume;
	bv_signals_install();

	bv_repo *repo = NULL;
	bv_compat *compat = NULL;
	bv_version *vs = bv_xcalloc(nnames, sizeof(bv_version));
	bv_plan run = {0};
	char **logs = NULL, *dir = NULL;
	size_t nresolved = 0;
	int lockfd = -1, measuring = 0, rc = 0;
	*build_failures = 0;
	rc = results_where(c, &dir);
	if (rc == 0 && dir && !c->dry_run)
		rc = claim_dir(dir, &lockfd);
	if (rc == 0)
		rc = bv_repo_open(&repo);
	if (rc == 0)
		rc = resolve_names(repo, names, nnames, vs, &nresolved);
	if (rc == 0)
		rc = match_shims(vs, nnames, &compat);
	/* The plan, built once, when the cells are known: a project suite's
	 * are what its builds describe (bv_suite_describe registers them;
	 * bisect and history call the same after their builds), every other
	 * run's are known now, before the resume check, the dry run and the
	 * estimate said before the builds.  A resume that cannot reuse anything
	 * is refused before building: a project suite's against the cells its
	 * run described (suite.json in the run's directory); bv_measure_plan
	 * checks the builds' own against the logs again after the builds. */
	int suite = bv_suite_dir() != NULL, dry = 0;
	if (rc == 0 && suite && resume)
		rc = suite_resume_check(dir, vs, nnames, mo);
	if (rc == 0 && suite && c->dry_run) {
		rc = dry_run_plan(vs, nnames, c, NULL);
		dry = 1;
	}
	if (rc == 0 && suite && !dry)
		rc = build_stage(repo, vs, nnames, c, NULL, lockfd, build_failures);
	if (rc == 0 && !dry)
		rc = bv_suite_describe(vs, nnames, dir, mo);
	if (rc == 0 && !dry)
		rc = bv_plan_build(mo, vs, nnames, &run);
	if (rc == 0 && !suite && resume)
		rc = bv_resume_check_plan(dir, vs, nnames, mo, &run, 0);
	if (rc == 0 && !suite && c->dry_run) {
		rc = dry_run_plan(vs, nnames, c, &run);
		dry = 1;
	}
	if (rc == 0 && dry) {
		for (size_t i = 0; i < nresolved; i++)
			bv_version_free(&vs[i]);
		free(vs);
		bv_plan_free(&run);
		bv_compat_free(compat);
		bv_repo_free(repo);
		free(dir);
		*dir_out = NULL;
		*logs_out = NULL;
		return 0;
	}
	if (rc == 0 && !suite)
		rc = build_stage(repo, vs, nnames, c, &run, lockfd, build_failures);
	(void)ncells; /* the same count as the plan's cells (measure_stage) */
	if (rc == 0)
		rc = measure_stage(vs, nnames, c, &run, dir, &logs, &measuring);
	if (rc == 0) {
		fprintf(stderr, "results: %s\n", dir);
		/* results/latest: the newest run by name, for compare latest and
		 * compare --baseline NAME without a run named. */
		if (!c->not_latest)
			bv_results_mark_latest(dir);
	}
	if (rc)
		rc = say_failed(c, rc, measuring, dir);
	if (lockfd >= 0)
		close(lockfd);
	bv_plan_free(&run);
	for (size_t i = 0; i < nresolved; i++)
		bv_version_free(&vs[i]);
	free(vs);
	bv_compat_free(compat);
	bv_repo_free(repo);
	if (rc) {
		for (size_t i = 0; logs && i < nnames; i++)
			free(logs[i]);
		free(logs);
		free(dir);
		return rc;
	}
	*dir_out = dir;
	*logs_out = logs;
	return 0;
}


/* For another driver of the stages (slurm.c), which makes and holds its
 * results directory the way a run does. */
char *bv_results_dir_new(const char *root) { return results_dir(root); }
int bv_results_dir_claim(const char *dir, int *lockfd) { return claim_dir(dir, lockfd); }
