/*
 * slurm.c - `run --slurm`: one comparison's shards as one Slurm job array.
 *
 * A comparison cut into N shards (shard.h: every version in every shard, so
 * every ratio stays paired inside one process) is N independent runs of
 * `bench-versions run ... --shard I/N`; a cluster runs them at once.  This
 * file is the driver: it submits them, follows them, submits a failed one
 * again, and joins their logs into the log an unsharded run writes, which
 * run's table is then made from as usual.  The steps, in order:
 *
 *   1. Slurm's client commands are found (PATH, or $BV_SLURM_BIN) and the
 *      job is checked with `sbatch --test-only`: a missing sbatch, an
 *      unknown partition or a time limit above the partition's is said
 *      before anything is built (exit 2), and the results directory that
 *      was made for it is removed again.
 *   2. With a shared cache (the default: --slurm-cache shared) every version
 *      is resolved and built here, once, so the shards find their builds in
 *      the cache ("cached, nothing rebuilt") instead of N nodes building the
 *      same plugins; with --slurm-cache node each shard builds into its
 *      node's cache (the cache's rename makes concurrent builds of one key
 *      on one node safe: build.c).
 *   3. One `sbatch --array=1-N` with the job script below.  The script is a
 *      file, never a shell string made from our arguments: the shard's
 *      command line reaches it as sbatch's script arguments (argv) and is
 *      passed on as "$@", so no value is ever parsed by a shell.
 *   4. Following: each shard's job writes its exit status into a file
 *      beside its logs, and squeue says which tasks are still queued or
 *      running.  Without accounting storage Slurm keeps no exit status once
 *      a job is gone (sacct has nothing), so the file is the record of a
 *      shard that finished; a task that squeue no longer lists and that
 *      left no file ended without finishing (killed, cancelled, its node
 *      failed, out of time): `scontrol show job` says how while the
 *      controller remembers, for the message, and the shard is submitted
 *      again, at most BV_SLURM_RETRIES times.  A shard that fails on its
 *      input (exit 2) is not: it would fail the same way again.
 *   5. The shards' results directories are joined (bv_shards_join, the
 *      same join `compare SHARD_DIR...` does) into one log per version in
 *      the run's directory, marked results/latest like a run's.
 *
 * Ctrl-C or SIGTERM cancels the jobs still queued (scancel) and returns
 * BV_EINTR; every shard that finished stays in DIR/shards/I/JOB/ with its
 * logs, which `compare` joins once the missing ones are there.  sbatch and
 * scancel run in a process group of their own, untracked (run_apart): a
 * Ctrl-C that reached an sbatch which had already submitted would leave an
 * array whose id we never learn, and proc.c would pass the signal that
 * stopped us on to a scancel started after it.
 *
 * Everything Slurm prints is hostile input: job ids are whole numbers of
 * bounded size, states a short word of capitals, reasons cut and escaped,
 * and a line that is none of these is skipped (the parsers are unit-tested
 * in tests/unit/test_slurm.c).  Slurm's commands get the environment of
 * BV_ENV_SLURM (env.c), and sbatch passes it on to the jobs.
 */
#include "build.h"
#include "pipeline.h"
#include "resolve.h"
#include "run_options.h"
#include "slurm.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "baseline.h"
#include "child.h"
#include "common.h"
#include "env.h"
#include "fs.h"
#include "json.h"
#include "locate.h"
#include "options.h"
#include "plan.h"
#include "proc.h"
#include "progress.h"
#include "shard.h"

extern char **environ;

/* ---- options ------------------------------------------------------------- */

static const char *const cache_values[] = {"shared", "node", NULL};

void bv_slurm_init(bv_slurm_opts *so)
{
	memset(so, 0, sizeof(*so));
	so->cache = "shared";
}

void bv_slurm_table(bv_slurm_opts *so, bv_option *opts)
{
	const bv_option t[] = {
	    BV_FLAG("--slurm", &so->enabled,
	            "measure the shards (--shards) as one Slurm job array and join their logs "
	            "(sbatch, squeue, scancel on PATH or in $BV_SLURM_BIN; docs/scale-out.md, Slurm)"),
	    BV_STRING("--partition", &so->partition, "P",
	              "--slurm: the partition to submit to (default: the cluster's)", .seen = &so->given),
	    BV_INT("--shards", &so->shards, "N", 1, BV_SHARDS_MAX,
	           "--slurm: shards, one array task each (default 4)", .seen = &so->given),
	    BV_INT("--time", &so->time_min, "MIN", 1, 525600,
	           "--slurm: each shard's time limit in minutes (default: the partition's)",
	           .seen = &so->given),
	    BV_ENUM("--slurm-cache", &so->cache, "C", cache_values,
	            "--slurm: shared (default; build here, the nodes find the builds in the cache) or "
	            "node (each shard builds into its node's own cache)",
	            .seen = &so->given),
	    BV_END,
	};
	_Static_assert(sizeof(t) / sizeof(t[0]) <= BV_SLURM_OPTIONS, "BV_SLURM_OPTIONS is too small");
	memcpy(opts, t, sizeof(t));
}

int bv_slurm_check(const bv_slurm_opts *so, const bv_run_cli *c)
{
	if (!so->enabled && so->given)
		return bv_fail(BV_EINPUT, "%s applies to --slurm only", so->given);
	if (!so->enabled)
		return 0;
	if (c->resume)
		return bv_fail(BV_EINPUT,
		               "--resume with --slurm: a Slurm run is not resumed; its finished shards are "
		               "in DIR/shards/ (compare joins them with the missing shards' logs)");
	if (c->dry_run)
		return bv_fail(
		    BV_EINPUT,
		    "--dry-run with --slurm: bench-versions plan VERSION... --shards N [run's options] "
		    "prints the shards, their cells and expected times");
	return 0;
}

/* ---- parsing what Slurm prints -------------------------------------------- */

/* A whole decimal number of 1-18 digits (below 10^18: no overflow), ending
 * at end. */
static int parse_id(const char *s, const char *end, unsigned long long *out)
{
	if (s >= end || end - s > 18)
		return -1;
	unsigned long long v = 0;
	for (const char *p = s; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	*out = v;
	return 0;
}

int bv_slurm_parse_jobid(const char *out, unsigned long long *id)
{
	for (const char *line = out; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		const char *semi = memchr(line, ';', (size_t)(end - line));
		const char *idend = semi ? semi : end;
		int ok = parse_id(line, idend, id) == 0 && *id > 0;
		/* ;CLUSTER: a name of letters, digits, '-', '_' */
		for (const char *p = semi ? semi + 1 : end; ok && p < end; p++)
			ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			     (*p >= '0' && *p <= '9') || *p == '-' || *p == '_';
		if (ok && (!semi || semi + 1 < end))
			return 0;
		line = nl ? nl + 1 : NULL;
	}
	return bv_fail(BV_ERUN, "sbatch printed no job id");
}

/* A state word: 1 to len-1 characters of A-Z, 0-9, '_'. */
static int copy_word(const char *s, const char *end, char *out, size_t len)
{
	size_t n = (size_t)(end - s);
	if (n == 0 || n >= len)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return -1;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

size_t bv_slurm_parse_squeue(const char *out, bv_slurm_task **tasks, size_t max)
{
	size_t n = 0, cap = 0;
	*tasks = NULL;
	for (const char *line = out; line && *line && n < max;) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		const char *f[4] = {line, NULL, NULL, NULL};
		int k = 1;
		for (const char *p = line; p < end && k < 4; p++)
			if (*p == '|')
				f[k++] = p + 1;
		bv_slurm_task t;
		memset(&t, 0, sizeof(t));
		unsigned long long idx;
		/* %F|%K|%T|%r; the reason, last, may hold anything but a newline */
		if (k == 4 && parse_id(f[0], f[1] - 1, &t.job) == 0 && t.job > 0 &&
		    parse_id(f[1], f[2] - 1, &idx) == 0 && idx <= LONG_MAX &&
		    copy_word(f[2], f[3] - 1, t.state, sizeof(t.state)) == 0) {
			t.index = (long)idx;
			size_t r = 0;
			for (const char *p = f[3]; p < end && r + 1 < sizeof(t.reason); p++)
				t.reason[r++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
			t.reason[r] = '\0';
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				*tasks = bv_xrealloc(*tasks, cap * sizeof(**tasks));
			}
			(*tasks)[n++] = t;
		}
		line = nl ? nl + 1 : NULL;
	}
	return n;
}

/* The value of " KEY=" in text (a word start), up to whitespace; NULL. */
static const char *field(const char *text, const char *key, const char **end)
{
	size_t k = strlen(key);
	for (const char *p = strstr(text, key); p; p = strstr(p + 1, key))
		if ((p == text || p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t') && p[k] == '=') {
			const char *v = p + k + 1;
			*end = v + strcspn(v, " \t\n");
			return v;
		}
	return NULL;
}

int bv_slurm_parse_scontrol(const char *out, char *state, size_t len, int *exit_status, int *exit_signal)
{
	const char *end;
	const char *v = field(out, "JobState", &end);
	*exit_status = *exit_signal = -1;
	if (!v || copy_word(v, end, state, len) != 0)
		return bv_fail(BV_ERUN, "scontrol said no JobState");
	v = field(out, "ExitCode", &end);
	const char *colon = v ? memchr(v, ':', (size_t)(end - v)) : NULL;
	unsigned long long a, b;
	if (colon && parse_id(v, colon, &a) == 0 && parse_id(colon + 1, end, &b) == 0 && a < 256 && b < 256) {
		*exit_status = (int)a;
		*exit_signal = (int)b;
	}
	return 0;
}

int bv_slurm_parse_exit(const char *text)
{
	const char *end = text + strlen(text);
	if (end > text && end[-1] == '\n')
		end--;
	unsigned long long v;
	if (end - text > 3 || parse_id(text, end, &v) != 0 || v > 255)
		return -1;
	return (int)v;
}

/* ---- the commands ----------------------------------------------------------- */

/* name in $BV_SLURM_BIN, else on PATH: an absolute path (malloc'd), or NULL
 * with the message set (BV_EINPUT: this machine cannot submit). */
static char *find_tool(const char *name)
{
	const char *bin = getenv("BV_SLURM_BIN");
	if (bin && *bin) {
		char *p = bv_asprintf("%s/%s", bin, name);
		if (access(p, X_OK) == 0 && !bv_is_dir(p))
			return p;
		char *e = bv_escape(bin);
		bv_fail(BV_EINPUT, "--slurm: no %s in BV_SLURM_BIN=%s", name, e);
		free(e);
		free(p);
		return NULL;
	}
	const char *path = getenv("PATH");
	for (const char *d = path; d && *d;) {
		size_t n = strcspn(d, ":");
		if (n > 0) {
			char *p = bv_asprintf("%.*s/%s", (int)n, d, name);
			if (p[0] == '/' && access(p, X_OK) == 0 && !bv_is_dir(p))
				return p;
			free(p);
		}
		d += n + (d[n] == ':');
	}
	bv_fail(BV_EINPUT,
	        "--slurm: %s not found on PATH: it needs Slurm's client commands (sbatch, squeue, scancel; "
	        "Debian: slurm-client), or BV_SLURM_BIN=DIR naming where they are",
	        name);
	return NULL;
}

/* Runs argv with Slurm's environment; *out gets its stdout and stderr
 * together (the last 1 MB; never NULL).  Returns the exit status (or a
 * negative BV_E*). */
static int slurm_cmd(char *const argv[], char **out)
{
	int rc = bv_run_tail(argv, NULL, (size_t)1 << 20, out, BV_ENV_SLURM);
	if (!*out)
		*out = bv_strdup("");
	return rc;
}

/* The last line of a command's output that says something, escaped, for a
 * message: "sbatch: error: invalid partition specified: nope". */
static char *last_words(const char *out)
{
	const char *best = NULL, *best_end = NULL;
	int best_error = 0;
	for (const char *line = out; line && *line;) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		const char *e = strstr(line, "error");
		int is_error = e && e < end;
		if (end > line && (is_error || !best_error))
			best = line, best_end = end, best_error = is_error;
		line = nl ? nl + 1 : NULL;
	}
	bv_buf b = BV_BUF_INIT;
	if (best)
		bv_buf_put_escaped(&b, best, (size_t)(best_end - best), 0);
	else
		bv_buf_puts(&b, "(no output)");
	return bv_buf_detach(&b);
}

/* What run_apart keeps of a command's output: the first 1 MB. */
static void keep(void *ctx, const char *data, size_t n)
{
	bv_buf *b = ctx;
	if (b->len < ((size_t)1 << 20))
		bv_buf_putn(b, data, n);
}

/* Runs argv with Slurm's environment in a process group of its own and
 * untracked, so that neither a Ctrl-C (it reaches the terminal's
 * foreground group) nor proc.c's forwarding of a SIGTERM stops it halfway:
 * an sbatch stopped after it submitted would leave an array nobody knows
 * the id of, and a scancel run after the signal must not die of it.  Both
 * are short.  *out gets stdout and stderr together (never NULL); returns
 * the exit status, 128 + a signal, or BV_ERUN when it cannot start. */
static int run_apart(char *const argv[], char **out)
{
	*out = NULL;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return bv_fail(BV_ERUN, "pipe: %s", strerror(errno));
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
	posix_spawnattr_t at;
	posix_spawnattr_init(&at);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&at, 0);
	char **env = bv_child_environ(environ, BV_ENV_SLURM);
	pid_t pid;
	int rc = posix_spawn(&pid, argv[0], &fa, &at, argv, env);
	free(env);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		return bv_fail(BV_ERUN, "cannot start %s: %s", argv[0], strerror(rc));
	}
	bv_buf b = BV_BUF_INIT;
	bv_buf_puts(&b, "");
	bv_read_child(fds[0], pid, 0, keep, &b);
	close(fds[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			bv_buf_free(&b);
			return bv_fail(BV_ERUN, "waiting for %s: %s", argv[0], strerror(errno));
		}
	*out = bv_buf_detach(&b);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* scancel of the given jobs, apart (run_apart): it runs after the signal. */
static void cancel_jobs(const char *scancel, const unsigned long long *jobs, size_t n)
{
	if (n == 0)
		return;
	bv_strv argv = BV_STRV_INIT;
	bv_strv_push(&argv, scancel);
	bv_strv_push(&argv, "--quiet");
	for (size_t i = 0; i < n; i++)
		bv_strv_pushf(&argv, "%llu", jobs[i]);
	char *out = NULL;
	int rc = run_apart(argv.v, &out);
	if (rc != 0) {
		char *w = rc < 0 ? bv_strdup(bv_error_last()) : last_words(out);
		fprintf(stderr, "slurm: scancel failed (%s); cancel the jobs by hand: scancel", w);
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, " %llu", jobs[i]);
		fprintf(stderr, "\n");
		free(w);
	}
	free(out);
	bv_strv_free(&argv);
}

/* ---- the driver --------------------------------------------------------------- */

/* The job script: see the top of this file (step 3).  Arguments: SHARDS DIR
 * PROGRAM VERB ARGUMENT...; for VERB run, "run --shard I/N --results
 * DIR/I/JOB" is added in front of the arguments, which end with "--" and
 * the versions; for another verb (bisect's tasks: bv_slurm_tasks),
 * "VERB --slurm-task I --slurm-task-out DIR/I/JOB". */
static const char job_script[] =
    "#!/bin/sh\n"
    "# One shard of a bench-versions run on Slurm, written by bench-versions\n"
    "# (orchestrator/slurm.c).  Arguments: SHARDS DIR PROGRAM VERB ARGUMENT...;\n"
    "# the shard is this array task's index.  Its results go to DIR/I/JOB (JOB:\n"
    "# the array's job id; a shard submitted again is a new array), its exit\n"
    "# status to DIR/I/JOB/exit: without accounting storage Slurm keeps none.\n"
    "n=$1 dir=$2 prog=$3 verb=$4\n"
    "shift 4\n"
    "out=\"$dir/$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_JOB_ID\"\n"
    "mkdir -p \"$out\" || exit 1\n"
    "if [ \"$verb\" = run ]; then\n"
    "  \"$prog\" run --shard \"$SLURM_ARRAY_TASK_ID/$n\" --results \"$out\" \"$@\"\n"
    "else\n"
    "  \"$prog\" \"$verb\" --slurm-task \"$SLURM_ARRAY_TASK_ID\" --slurm-task-out \"$out\" \"$@\"\n"
    "fi\n"
    "status=$?\n"
    "echo \"$status\" > \"$out/exit.tmp\" && mv \"$out/exit.tmp\" \"$out/exit\"\n"
    "exit \"$status\"\n";

typedef enum { SHARD_QUEUED, SHARD_DONE, SHARD_FAILED } shard_state;

typedef struct shard {
	int index; /* 1-based, as --shard I/N */
	int jobs;  /* jobs submitted for it */
	unsigned long long job;
	shard_state st;
	int unseen;      /* squeue polls since it was last listed, with no exit file */
	char state[24];  /* as squeue last said */
	char reason[64]; /* why it is pending, as squeue last said (printable ASCII) */
	char *run_dir;   /* done: its results directory */
	int exit_status;
} shard;

typedef struct driver {
	const bv_slurm_opts *so;
	const bv_run_cli *c;                        /* run's: NULL for bv_slurm_tasks */
	int threads;                                /* CPUs per task */
	const char *verb;                           /* "run", or bv_slurm_tasks' verb */
	const char *done_file;                      /* bv_slurm_tasks: the file a finished task leaves */
	char *sbatch, *squeue, *scancel, *scontrol; /* scontrol: NULL when missing (only messages need it) */
	char *dir, *shards_dir, *script, *prog, *cwd;
	bv_strv args; /* run's arguments for a shard: options, "--", the versions */
	int nshards;
	shard *sh;
	bv_progress *pg;
} driver;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A shard's command line from run's (or report's): the measuring options
 * as given (c->given: bv_run_cli_given), what the driver settled (below),
 * "--", the versions.  Not the table's options (a shard's table is not
 * shown), not --results or --resume (the script says where), not
 * --fail-on-slower or --save-baseline (a shard is not the run), not
 * --slurm's own. */
void bv_slurm_shard_args(const bv_run_cli *c, char *const *names, size_t n, bv_strv *out)
{
	const bv_measure_opts *mo = &c->mo;
	for (size_t i = 0; i < c->ngiven; i++)
		bv_strv_push(out, c->given[i]);
	/* What the driver settled, said explicitly (a later value wins): the
	 * seed (one plan), the layouts (report's default is 4, run's 1), and
	 * the lists, which report narrows for its second measurement. */
	bv_strv_pushf(out, "--seed=%llu", mo->seed);
	bv_strv_pushf(out, "--layouts=%d", mo->layouts > 0 ? mo->layouts : 1);
	const char *lists[][2] = {{"--benches", mo->benches},
	                          {"--ops", mo->ops},
	                          {"--backends", mo->backends},
	                          {"--sizes", mo->sizes}};
	for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]); k++)
		if (lists[k][1])
			bv_strv_pushf(out, "%s=%s", lists[k][0], lists[k][1]);
	bv_strv_push(out, "--");
	for (size_t k = 0; k < n; k++)
		bv_strv_push(out, names[k]);
}

/* sbatch for shards spec ("1-4", "2"): 0 with *job, or an error carrying
 * sbatch's own words (BV_EINPUT: a partition, a time limit, an account are
 * the user's to fix).  test_only: sbatch --test-only, which submits nothing. */
/* sbatch's options every array of ours has: one task a node, threads CPUs
 * each, so's partition and time limit (submit, bv_slurm_preflight). */
static void sbatch_head(bv_strv *a, const char *sbatch, int test_only, const char *spec, int threads,
                        const bv_slurm_opts *so)
{
	bv_strv_push(a, sbatch);
	bv_strv_push(a, "--parsable");
	if (test_only)
		bv_strv_push(a, "--test-only");
	bv_strv_push(a, "--job-name=bench-versions");
	bv_strv_pushf(a, "--array=%s", spec);
	bv_strv_push(a, "--nodes=1");
	bv_strv_push(a, "--ntasks=1");
	bv_strv_pushf(a, "--cpus-per-task=%d", threads > 0 ? threads : 1);
	if (so->partition)
		bv_strv_pushf(a, "--partition=%s", so->partition);
	if (so->time_min)
		bv_strv_pushf(a, "--time=%d", so->time_min);
}

static int submit(driver *d, const char *spec, int test_only, unsigned long long *job)
{
	bv_strv a = BV_STRV_INIT;
	sbatch_head(&a, d->sbatch, test_only, spec, d->threads, d->so);
	/* Slurm requeues a task whose node failed on its own by default: then
	 * its retries would be Slurm's, unbounded and unsaid.  They are ours. */
	bv_strv_push(&a, "--no-requeue");
	bv_strv_pushf(&a, "--output=%s/slurm-%%A_%%a.out", d->shards_dir);
	bv_strv_pushf(&a, "--chdir=%s", d->cwd);
	bv_strv_push(&a, "--export=ALL"); /* BV_ENV_SLURM's list: what sbatch itself gets */
	bv_strv_push(&a, d->script);
	bv_strv_pushf(&a, "%d", d->nshards);
	bv_strv_push(&a, d->shards_dir);
	bv_strv_push(&a, d->prog);
	bv_strv_push(&a, d->verb);
	for (size_t i = 0; i < d->args.n; i++)
		bv_strv_push(&a, d->args.v[i]);
	char *out = NULL;
	int rc = run_apart(a.v, &out);
	bv_strv_free(&a);
	if (rc < 0) {
		free(out);
		return rc;
	}
	if (rc != 0) {
		char *w = last_words(out);
		rc = bv_fail(BV_EINPUT, "sbatch%s failed (exit %d): %s", test_only ? " --test-only" : "", rc,
		             w);
		free(w);
	} else if (!test_only && bv_slurm_parse_jobid(out, job) != 0) {
		char *w = last_words(out);
		rc = bv_fail(BV_ERUN, "sbatch printed no job id: %s", w);
		free(w);
	}
	free(out);
	return rc;
}

/* What a finished task left: its exit status (-1: no exit file yet). */
static int exit_of(const driver *d, const shard *s)
{
	char *p = bv_asprintf("%s/%d/%llu/exit", d->shards_dir, s->index, s->job);
	char *text = NULL;
	size_t len;
	int st = -1;
	if (bv_exists(p) && bv_read_file(p, 64, &text, &len) == 0)
		st = bv_slurm_parse_exit(text);
	free(text);
	free(p);
	return st;
}

/* The results directory a shard's run made (its `latest`, a name in the
 * same directory), or NULL: its run did not finish measuring. */
static char *run_dir_of(const driver *d, const shard *s)
{
	char *base = bv_asprintf("%s/%d/%llu", d->shards_dir, s->index, s->job);
	if (d->done_file) { /* a task of bv_slurm_tasks: its file, in its own directory */
		char *f = bv_asprintf("%s/%s", base, d->done_file);
		int there = bv_exists(f);
		free(f);
		if (there)
			return base;
		free(base);
		return NULL;
	}
	char *link = bv_asprintf("%s/latest", base);
	char target[256];
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	char *dir = NULL;
	if (n > 0) {
		target[n] = '\0';
		if (!strchr(target, '/') && strcmp(target, ".") && strcmp(target, "..")) {
			dir = bv_asprintf("%s/%s", base, target);
			if (!bv_is_dir(dir)) {
				free(dir);
				dir = NULL;
			}
		}
	}
	free(link);
	free(base);
	return dir;
}

/* How the controller last saw a task, for a message: "CANCELLED", "NODE_FAIL",
 * "FAILED, exit 1", or that it has no record (what a pending task that was
 * cancelled leaves). */
static char *ended_how(const driver *d, const shard *s)
{
	if (!d->scontrol)
		return bv_strdup("ended (no scontrol to say how)");
	char id[64];
	snprintf(id, sizeof(id), "%llu_%d", s->job, s->index);
	char *argv[] = {d->scontrol, "show", "job", id, NULL};
	char *out = NULL, state[24];
	int es, sig;
	int rc = slurm_cmd(argv, &out);
	char *how;
	if (rc == 0 && bv_slurm_parse_scontrol(out, state, sizeof(state), &es, &sig) == 0)
		how = sig > 0  ? bv_asprintf("%s, signal %d", state, sig)
		      : es > 0 ? bv_asprintf("%s, exit %d", state, es)
		               : bv_strdup(state);
	else
		/* A pending task cancelled leaves no record at all. */
		how = bv_strdup(
		    "left the queue with no record of how (cancelled while pending, or forgotten by the "
		    "controller)");
	free(out);
	return how;
}

bv_slurm_step bv_slurm_decide(int exit_status, int finished_run, int unseen, int jobs)
{
	int again = jobs > BV_SLURM_RETRIES ? BV_SLURM_GIVE_UP : BV_SLURM_RETRY;
	if (exit_status >= 0) {
		/* Exit 3 with a finished run: a version failed to build, which
		 * the joined logs say as an unsharded run's would. */
		if (finished_run && (exit_status == BV_EXIT_OK || exit_status == BV_EXIT_FAILED))
			return BV_SLURM_DONE;
		/* Its input was refused on the node: the same again would be. */
		if (exit_status == BV_EXIT_USAGE)
			return BV_SLURM_REFUSED;
		return again;
	}
	/* Not listed twice in a row and no exit file: the task ended without
	 * finishing (once only could be a shared filesystem showing the file
	 * late). */
	return unseen >= 2 ? again : BV_SLURM_WAIT;
}

/* A shard's job ended without a finished run: submit it again. */
static int resubmit(driver *d, shard *s, const char *how)
{
	unsigned long long old = s->job;
	char spec[32];
	snprintf(spec, sizeof(spec), "%d", s->index);
	int rc = submit(d, spec, 0, &s->job);
	if (rc)
		return rc;
	s->jobs++;
	s->unseen = 0;
	snprintf(s->state, sizeof(s->state), "PENDING");
	char *line =
	    bv_asprintf("slurm: shard %d/%d (job %llu_%d) %s before it finished; submitted again as job "
	                "%llu (retry %d of %d)",
	                s->index, d->nshards, old, s->index, how, s->job, s->jobs - 1, BV_SLURM_RETRIES);
	bv_progress_note(d->pg, line);
	free(line);
	return 0;
}

/* Where a queued shard stands now (its exit file, its run, how long squeue
 * has not listed it), and what bv_slurm_decide makes of it, done.  0, or
 * the error that ends the run. */
static int step(driver *d, shard *s, int *done)
{
	int status = exit_of(d, s);
	if (status < 0 && s->unseen < 2)
		return 0; /* the common case, without a readlink */
	char *rd = status >= 0 ? run_dir_of(d, s) : NULL;
	bv_slurm_step what = bv_slurm_decide(status, rd != NULL, s->unseen, s->jobs);
	if (what == BV_SLURM_WAIT) {
		free(rd);
		return 0;
	}
	if (what == BV_SLURM_DONE) {
		/* Its `latest` link, read, goes: a run's directory holds no
		 * link (share packs regular files only and refuses links). */
		char *link = bv_asprintf("%s/%d/%llu/latest", d->shards_dir, s->index, s->job);
		unlink(link);
		free(link);
		s->st = SHARD_DONE;
		s->run_dir = rd;
		s->exit_status = status;
		(*done)++;
		char *line = bv_asprintf("slurm: shard %d/%d done (job %llu_%d)", s->index, d->nshards,
		                         s->job, s->index);
		bv_progress_done(d->pg, "", line);
		free(line);
		return 0;
	}
	free(rd);
	if (what == BV_SLURM_REFUSED) {
		s->st = SHARD_FAILED;
		return bv_fail(BV_EINPUT, "shard %d/%d refused its input (exit 2): see %s/slurm-%llu_%d.out",
		               s->index, d->nshards, d->shards_dir, s->job, s->index);
	}
	char *how = status >= 0 ? bv_asprintf("exited %d", status) : ended_how(d, s);
	int rc;
	if (what == BV_SLURM_RETRY)
		rc = resubmit(d, s, how);
	else {
		s->st = SHARD_FAILED;
		rc = bv_fail(
		    BV_ERUN, "shard %d/%d failed %d times (last: job %llu_%d %s); see %s/slurm-%llu_%d.out",
		    s->index, d->nshards, s->jobs, s->job, s->index, how, d->shards_dir, s->job, s->index);
	}
	free(how);
	return rc;
}

/* One look at squeue: which of our tasks are still queued or running. */
static int poll_queue(driver *d, int *done, int *squeue_failures)
{
	/* Our jobs only, by uid (squeue --me is Slurm 20.11 on; a uid works
	 * on every version); --array: one line per array task. */
	char user[32];
	snprintf(user, sizeof(user), "--user=%u", (unsigned)getuid());
	char *argv[] = {
	    d->squeue, "--noheader", "--array", user, "--name=bench-versions", "--format=%F|%K|%T|%r", NULL};
	char *out = NULL;
	int rc = slurm_cmd(argv, &out);
	if (rc != 0) {
		if (bv_interrupted()) {
			free(out);
			return 0;
		}
		/* The controller may be restarting: a few tries, then an error. */
		if (++*squeue_failures >= 10) {
			char *w = last_words(out);
			rc = bv_fail(BV_ERUN, "squeue failed %d times in a row: %s", *squeue_failures, w);
			free(w);
			free(out);
			return rc;
		}
		free(out);
		return 0;
	}
	*squeue_failures = 0;
	bv_slurm_task *t;
	size_t nt = bv_slurm_parse_squeue(out, &t, 1000000);
	free(out);
	rc = 0;
	for (int i = 0; i < d->nshards && rc == 0; i++) {
		shard *s = &d->sh[i];
		if (s->st != SHARD_QUEUED)
			continue;
		size_t k;
		for (k = 0; k < nt && !(t[k].job == s->job && t[k].index == s->index); k++)
			;
		if (k < nt) {
			s->unseen = 0;
			memcpy(s->state, t[k].state, sizeof(s->state));
			memcpy(s->reason, t[k].reason, sizeof(s->reason));
			continue;
		}
		s->unseen++;
		rc = step(d, s, done);
	}
	free(t);
	return rc;
}

/* "1/3 done, 1 running, 1 pending (Resources), 12s": the progress line, on
 * a terminal; elsewhere (a batch log, CI) a plain line whenever the counts
 * or the reason change, so a wait that does not end says why (a partition
 * that is down, a node limit: squeue's reason). */
static void say_progress(driver *d, int done, char *last, size_t lastlen)
{
	int running = 0, pending = 0;
	const char *reason = NULL;
	for (int i = 0; i < d->nshards; i++) {
		if (d->sh[i].st != SHARD_QUEUED)
			continue;
		if (!strcmp(d->sh[i].state, "RUNNING") || !strcmp(d->sh[i].state, "COMPLETING"))
			running++;
		else {
			pending++;
			if (!reason && d->sh[i].reason[0] && strcmp(d->sh[i].reason, "None"))
				reason = d->sh[i].reason;
		}
	}
	char counts[160];
	snprintf(counts, sizeof(counts), "%d running, %d pending%s%s%s", running, pending, reason ? " (" : "",
	         reason ? reason : "", reason ? ")" : "");
	/* progress.c adds the time so far, or an ETA once a shard is done */
	bv_progress_set(d->pg, (size_t)done, (size_t)d->nshards, counts);
	if (!isatty(2) && running + pending > 0 && strcmp(counts, last)) {
		fprintf(stderr, "slurm: %d/%d done, %s\n", done, d->nshards, counts);
		snprintf(last, lastlen, "%s", counts);
	}
}

/* The jobs still queued, cancelled. */
static void cancel_queued(driver *d)
{
	unsigned long long *jobs = bv_xcalloc((size_t)d->nshards, sizeof(*jobs));
	size_t n = 0;
	for (int i = 0; i < d->nshards; i++) {
		if (d->sh[i].st != SHARD_QUEUED || !d->sh[i].job)
			continue;
		size_t k;
		for (k = 0; k < n && jobs[k] != d->sh[i].job; k++)
			;
		if (k == n)
			jobs[n++] = d->sh[i].job;
	}
	if (n) {
		fprintf(stderr, "slurm: cancelling %zu %s (scancel)\n", n,
		        bv_plural((long long)n, "job", "jobs"));
		cancel_jobs(d->scancel, jobs, n);
	}
	free(jobs);
}

/* Submits the array and follows it until every shard is done (0) or one
 * has failed past its retries, or a signal came. */
static int follow(driver *d, double *t_submit)
{
	unsigned long long job;
	char spec[32];
	snprintf(spec, sizeof(spec), "1-%d", d->nshards);
	*t_submit = now_s();
	int rc = submit(d, spec, 0, &job);
	if (rc)
		return rc;
	for (int i = 0; i < d->nshards; i++) {
		d->sh[i].index = i + 1;
		d->sh[i].job = job;
		d->sh[i].jobs = 1;
		snprintf(d->sh[i].state, sizeof(d->sh[i].state), "PENDING");
	}
	char *part = d->so->partition ? bv_escape(d->so->partition)
	                              : NULL; /* the user's text: no control reaches the terminal */
	fprintf(stderr, "slurm: submitted job %llu: %d %s (array 1-%d)%s%s\n", job, d->nshards,
	        bv_plural(d->nshards, "shard", "shards"), d->nshards, part ? ", partition " : "",
	        part ? part : "");
	free(part);
	int done = 0, squeue_failures = 0;
	double last_queue = 0;
	char said[160] = "";
	/* Exit files are cheap to look at (4 a second); squeue asks the
	 * controller, so once a second for the first minute, then every 5 s. */
	while (rc == 0 && done < d->nshards && !bv_interrupted()) {
		struct timespec ts = {0, 250 * 1000 * 1000};
		nanosleep(&ts, NULL); /* a signal cuts it short */
		if (bv_interrupted())
			break;
		for (int i = 0; i < d->nshards && rc == 0; i++)
			if (d->sh[i].st == SHARD_QUEUED)
				rc = step(d, &d->sh[i], &done);
		double t = now_s();
		if (rc == 0 && done < d->nshards && t - last_queue >= (t - *t_submit < 60 ? 1.0 : 5.0)) {
			last_queue = t;
			rc = poll_queue(d, &done, &squeue_failures);
		}
		say_progress(d, done, said, sizeof(said));
	}
	if (rc == 0 && bv_interrupted())
		rc = bv_fail_interrupted();
	return rc;
}

/* resolve, compat, build for every version, here (step 2), with the
 * pipeline's own pieces (the resolve and compat steps of a plan, then the
 * build step); the shards then find every build cached. */
static int build_here(char *const *names, size_t n, const bv_run_cli *c, int lockfd, int *build_failures)
{
	bv_version *vs = NULL;
	bv_repo *repo = NULL;
	int rc = bv_plan_versions(names, n, &vs);
	if (rc == 0)
		rc = bv_repo_open(&repo);
	if (rc == 0) {
		bv_progress *pg = bv_progress_new("build", n);
		rc = bv_build_versions(repo, vs, n, c->jobs, lockfd, pg, build_failures);
		bv_progress_end(pg);
	}
	/* The layouts too: N shards linking them at once would each do it. */
	for (size_t i = 0; rc == 0 && c->mo.layouts > 1 && i < n; i++)
		if (!vs[i].build_error)
			rc = bv_build_layouts(&vs[i], c->mo.layouts);
	for (size_t i = 0; vs && i < n; i++)
		bv_version_free(&vs[i]);
	free(vs);
	bv_repo_free(repo);
	return rc;
}

static void driver_free(driver *d)
{
	free(d->sbatch), free(d->squeue), free(d->scancel), free(d->scontrol);
	free(d->shards_dir), free(d->script), free(d->prog), free(d->cwd);
	for (int i = 0; d->sh && i < d->nshards; i++)
		free(d->sh[i].run_dir);
	free(d->sh);
	bv_strv_free(&d->args);
}

/* Makes the results directory, DIR/shards/ and the job script in it. */
static int prepare_dir(driver *d, int *lockfd)
{
	char *root = NULL;
	int rc = 0;
	if (d->c->results_root)
		root = bv_strdup(d->c->results_root);
	else
		rc = bv_results_default(&root);
	if (rc == 0) {
		d->dir = bv_results_dir_new(root);
		rc = d->dir ? 0 : BV_ERUN;
	}
	free(root);
	if (rc == 0)
		rc = bv_results_dir_claim(d->dir, lockfd);
	if (rc == 0) {
		/* The nodes write here: an absolute path, the same for them. */
		char *abs = realpath(d->dir, NULL);
		if (!abs)
			return bv_fail(BV_ERUN, "%s: %s", d->dir, strerror(errno));
		d->shards_dir = bv_asprintf("%s/shards", abs);
		d->script = bv_asprintf("%s/shards/job.sh", abs);
		free(abs);
		if (bv_mkdir_p(d->shards_dir) != 0)
			return bv_fail_context(BV_ERUN, "%s", d->shards_dir);
		rc = bv_write_file_atomic(d->script, job_script, sizeof(job_script) - 1);
		if (rc == 0 && chmod(d->script, 0755) != 0)
			rc = bv_fail(BV_ERUN, "%s: %s", d->script, strerror(errno));
	}
	return rc;
}

/* The shards joined (bv_shards_join: the join compare does) and written
 * into the run's directory, <label>.json each, as a run writes them.  Not
 * bv_shards_write, which takes an empty directory only (so a log left from
 * before is never read as one more version): the run's directory holds
 * shards/, no log, and was made by this run. */
static int write_joined(char *const *dirs, size_t ndirs, const char *dir, char ***paths_out, size_t *n_out)
{
	cJSON **docs = NULL;
	size_t n = 0;
	*paths_out = NULL, *n_out = 0;
	int rc = bv_shards_join(dirs, ndirs, &docs, &n);
	if (rc)
		return rc;
	char **paths = bv_xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		/* A label is a log's text (a node's, hostile until checked) and
		 * becomes a file name here: one plain name, never "../x". */
		const char *l = bv_json_str(cJSON_GetObjectItemCaseSensitive(docs[i], "version"), "label");
		if (rc == 0 && !bv_label_is_file_name(l)) {
			char *e = bv_escape(l ? l : "(none)");
			rc = bv_fail(BV_EINPUT, "a shard's log names its version '%s': not a plain file name",
			             e);
			free(e);
		}
		paths[i] = bv_asprintf("%s/%s.json", dir, rc == 0 ? l : "invalid");
		if (rc == 0)
			rc = bv_json_save(paths[i], docs[i]);
		cJSON_Delete(docs[i]);
	}
	free(docs);
	if (rc) {
		for (size_t i = 0; i < n; i++)
			free(paths[i]);
		free(paths);
		return rc;
	}
	*paths_out = paths, *n_out = n;
	return 0;
}

/* Slurm's commands (step 1), this program and the working directory, which
 * the job script needs: a missing sbatch, squeue or scancel is said (by
 * find_tool) before anything is made; scontrol is optional. */
static int find_commands(driver *d)
{
	if (!(d->sbatch = find_tool("sbatch")) || !(d->squeue = find_tool("squeue")) ||
	    !(d->scancel = find_tool("scancel")))
		return BV_EINPUT;
	d->scontrol = find_tool("scontrol"); /* optional: for messages */
	d->prog = realpath("/proc/self/exe", NULL);
	d->cwd = getcwd(NULL, 0);
	if (!d->prog || !d->cwd)
		return bv_fail(BV_ERUN, "cannot find this program or the working directory: %s",
		               strerror(errno));
	return 0;
}

/* Step 5: the finished shards' logs joined into the run's directory, one
 * per version as a run writes them, and the run marked results/latest.
 * *build_failures: whether any shard had a build that failed. */
static int join_shards(const driver *d, size_t n, double t_submit, char ***paths, size_t *np,
                       int *build_failures)
{
	char **dirs = bv_xcalloc((size_t)d->nshards, sizeof(char *));
	for (int i = 0; i < d->nshards; i++) {
		dirs[i] = d->sh[i].run_dir;
		*build_failures += d->sh[i].exit_status == BV_EXIT_FAILED && *build_failures == 0;
	}
	int rc = write_joined(dirs, (size_t)d->nshards, d->dir, paths, np);
	free(dirs);
	if (rc == 0 && *np != n)
		rc = bv_fail(BV_ERUN, "the shards' logs hold %zu versions, not %zu", *np, n);
	if (rc == 0) {
		int retried = 0;
		for (int i = 0; i < d->nshards; i++)
			retried += d->sh[i].jobs > 1;
		fprintf(stderr,
		        "slurm: %d %s joined in %.1fs from submitting to the joined logs (%d "
		        "submitted again)\n",
		        d->nshards, bv_plural(d->nshards, "shard", "shards"), now_s() - t_submit, retried);
		fprintf(stderr, "results: %s\n", d->dir);
		if (!d->c->not_latest)
			bv_results_mark_latest(d->dir);
	}
	return rc;
}

int bv_slurm_run(char *const *names, size_t n, bv_run_cli *c, const bv_slurm_opts *so, char **dir_out,
                 char ***logs_out, int *build_failures)
{
	driver d;
	memset(&d, 0, sizeof(d));
	d.so = so;
	d.c = c;
	d.threads = c->mo.threads;
	d.verb = "run";
	d.nshards = so->shards ? so->shards : BV_SLURM_SHARDS_DEFAULT;
	*build_failures = 0;
	*dir_out = NULL;
	*logs_out = NULL;
	bv_signals_install();
	int rc = 0, lockfd = -1, submitted = 0;
	double t_submit = 0;
	/* 1. the commands, then the directory, then sbatch's own check */
	rc = find_commands(&d);
	if (rc == 0)
		rc = prepare_dir(&d, &lockfd);
	if (rc == 0) {
		bv_slurm_shard_args(c, names, n, &d.args);
		d.sh = bv_xcalloc((size_t)d.nshards, sizeof(shard));
		char spec[32];
		snprintf(spec, sizeof(spec), "1-%d", d.nshards);
		rc = submit(&d, spec, 1, NULL);
	}
	/* 2. the builds, here, with a shared cache */
	if (rc == 0 && !strcmp(so->cache, "shared"))
		rc = build_here(names, n, c, lockfd, build_failures);
	/* 3, 4. the array, followed */
	if (rc == 0) {
		d.pg = bv_progress_new("slurm", (size_t)d.nshards);
		rc = follow(&d, &t_submit);
		submitted = d.sh[0].job != 0; /* an array refused by sbatch leaves nothing to keep */
		if (rc)
			cancel_queued(&d);
		bv_progress_end(d.pg);
	}
	/* 5. the join */
	char **paths = NULL;
	size_t np = 0;
	if (rc == 0)
		rc = join_shards(&d, n, t_submit, &paths, &np, build_failures);
	if (rc && rc != BV_EINTR && bv_interrupted())
		rc = bv_fail_interrupted();
	if (rc) {
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
		int kept = 0;
		for (int i = 0; d.sh && i < d.nshards; i++)
			kept += d.sh[i].st == SHARD_DONE;
		if (submitted)
			fprintf(
			    stderr,
			    "bench-versions: %d of %d shards finished; their logs are in %s (the job output "
			    "of each in slurm-JOB_I.out there)\n",
			    kept, d.nshards, d.shards_dir);
		else if (d.dir)
			bv_rm_rf(d.dir); /* nothing was submitted: nothing to keep */
		for (size_t i = 0; paths && i < np; i++)
			free(paths[i]);
		free(paths);
		free(d.dir);
		d.dir = NULL;
	}
	if (lockfd >= 0)
		close(lockfd);
	driver_free(&d);
	if (rc)
		return rc;
	*dir_out = d.dir;
	*logs_out = paths;
	return 0;
}

int bv_slurm_tasks(const bv_slurm_tasks_spec *t, char ***dirs_out)
{
	driver d;
	memset(&d, 0, sizeof(d));
	d.so = t->so;
	d.threads = t->threads;
	d.verb = t->verb;
	d.done_file = t->done_file;
	d.nshards = t->ntasks;
	*dirs_out = NULL;
	bv_signals_install();
	int rc = 0;
	double t_submit = 0;
	/* The same steps as run's, from a directory the caller names. */
	if (t->ntasks < 1)
		return bv_fail(BV_ERUN, "no Slurm task to submit");
	if (!(d.sbatch = find_tool("sbatch")) || !(d.squeue = find_tool("squeue")) ||
	    !(d.scancel = find_tool("scancel")))
		rc = BV_EINPUT;
	if (rc == 0) {
		d.scontrol = find_tool("scontrol");
		d.prog = realpath("/proc/self/exe", NULL);
		d.cwd = getcwd(NULL, 0);
		if (!d.prog || !d.cwd)
			rc = bv_fail(BV_ERUN, "cannot find this program or the working directory: %s",
			             strerror(errno));
	}
	if (rc == 0 && bv_mkdir_p(t->dir) != 0)
		rc = bv_fail_context(BV_ERUN, "%s", t->dir);
	if (rc == 0) {
		char *abs = realpath(t->dir, NULL); /* the nodes write here */
		if (!abs)
			rc = bv_fail(BV_ERUN, "%s: %s", t->dir, strerror(errno));
		else {
			d.shards_dir = abs;
			d.script = bv_asprintf("%s/job.sh", abs);
			rc = bv_write_file_atomic(d.script, job_script, sizeof(job_script) - 1);
			if (rc == 0 && chmod(d.script, 0755) != 0)
				rc = bv_fail(BV_ERUN, "%s: %s", d.script, strerror(errno));
		}
	}
	if (rc == 0) {
		for (size_t i = 0; i < t->nargs; i++)
			bv_strv_push(&d.args, t->args[i]);
		d.sh = bv_xcalloc((size_t)d.nshards, sizeof(shard));
		d.pg = bv_progress_new("slurm", (size_t)d.nshards);
		rc = follow(&d, &t_submit);
		if (rc)
			cancel_queued(&d);
		bv_progress_end(d.pg);
	}
	if (rc == 0) {
		char **dirs = bv_xcalloc((size_t)d.nshards + 1, sizeof(char *));
		for (int i = 0; i < d.nshards; i++) {
			dirs[i] = d.sh[i].run_dir;
			d.sh[i].run_dir = NULL;
		}
		*dirs_out = dirs;
		fprintf(stderr, "slurm: %d %s done in %.1fs from submitting\n", d.nshards,
		        bv_plural(d.nshards, "task", "tasks"), now_s() - t_submit);
	}
	if (rc && rc != BV_EINTR && bv_interrupted())
		rc = bv_fail_interrupted();
	driver_free(&d);
	return rc;
}

int bv_slurm_preflight(const bv_slurm_opts *so, int threads, int ntasks)
{
	driver d;
	memset(&d, 0, sizeof(d));
	int rc = 0;
	if (!(d.sbatch = find_tool("sbatch")) || !(d.squeue = find_tool("squeue")) ||
	    !(d.scancel = find_tool("scancel")))
		rc = BV_EINPUT;
	if (rc == 0) {
		/* sbatch's own check of an array like the one to come (its
		 * partition, time limit and CPUs), submitting nothing: a script
		 * of one line stands in for the job script, which is made later */
		bv_strv a = BV_STRV_INIT;
		char spec[32];
		snprintf(spec, sizeof(spec), "1-%d", ntasks > 0 ? ntasks : 1);
		sbatch_head(&a, d.sbatch, 1, spec, threads, so);
		bv_strv_push(&a, "--output=/dev/null");
		bv_strv_push(&a, "--wrap=true");
		char *out = NULL;
		rc = run_apart(a.v, &out);
		bv_strv_free(&a);
		if (rc > 0) {
			char *w = last_words(out);
			rc = bv_fail(BV_EINPUT, "sbatch --test-only failed (exit %d): %s", rc, w);
			free(w);
		}
		free(out);
	}
	driver_free(&d);
	return rc;
}

