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
 * scancel run in a process group of their own, untracked
 * (bv_slurm_run_apart): a Ctrl-C that reached an sbatch which had already
 * submitted would leave an array whose id we never learn, and proc.c would
 * pass the signal that stopped us on to a scancel started after it.
 *
 * Everything Slurm prints is hostile input: job ids are whole numbers of
 * bounded size, states a short word of capitals, reasons cut and escaped,
 * and a line that is none of these is skipped (the parsers are unit-tested
 * in tests/unit/test_slurm.c).  Slurm's commands get the environment of
 * BV_ENV_SLURM (env.c), and sbatch passes it on to the jobs.
 *
 * This file prepares the run, builds (step 2) and joins (step 5);
 * slurm_commands.c runs Slurm's commands and parses what they print;
 * slurm_follow.c submits the array and follows it (steps 3 and 4).
 */
#include "build.h"
#include "pipeline.h"
#include "resolve.h"
#include "run_options.h"
#include "slurm.h"
#include "slurm_commands.h"
#include "slurm_follow.h"

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

/* ---- the driver --------------------------------------------------------------- */

/* The job script: see the top of this file (step 3).  Arguments: SHARDS DIR
 * PROGRAM VERB ARGUMENT...; for VERB run, "run --shard I/N --results
 * DIR/I/JOB" is added in front of the arguments, which end with "--" and
 * the versions; for another verb (bisect's tasks: bv_slurm_tasks),
 * "VERB --slurm-task I --slurm-task-out DIR/I/JOB". */
static const char job_script[] =
    "#!/bin/sh\n"
    "# One shard of a bench-versions run on Slurm, written by bench-versions\n"
    "# (orchestrator/measure/slurm.c).  Arguments: SHARDS DIR PROGRAM VERB ARGUMENT...;\n"
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
 * bv_slurm_find_tool) before anything is made; scontrol is optional. */
static int find_commands(driver *d)
{
	if (!(d->sbatch = bv_slurm_find_tool("sbatch")) || !(d->squeue = bv_slurm_find_tool("squeue")) ||
	    !(d->scancel = bv_slurm_find_tool("scancel")))
		return BV_EINPUT;
	d->scontrol = bv_slurm_find_tool("scontrol"); /* optional: for messages */
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
		        d->nshards, bv_plural(d->nshards, "shard", "shards"), bv_slurm_now() - t_submit, retried);
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
		rc = bv_slurm_submit(&d, spec, 1, NULL);
	}
	/* 2. the builds, here, with a shared cache */
	if (rc == 0 && !strcmp(so->cache, "shared"))
		rc = build_here(names, n, c, lockfd, build_failures);
	/* 3, 4. the array, followed */
	if (rc == 0) {
		d.pg = bv_progress_new("slurm", (size_t)d.nshards);
		rc = bv_slurm_follow(&d, &t_submit);
		submitted = d.sh[0].job != 0; /* an array refused by sbatch leaves nothing to keep */
		if (rc)
			bv_slurm_cancel_queued(&d);
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
	if (!(d.sbatch = bv_slurm_find_tool("sbatch")) || !(d.squeue = bv_slurm_find_tool("squeue")) ||
	    !(d.scancel = bv_slurm_find_tool("scancel")))
		rc = BV_EINPUT;
	if (rc == 0) {
		d.scontrol = bv_slurm_find_tool("scontrol");
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
		rc = bv_slurm_follow(&d, &t_submit);
		if (rc)
			bv_slurm_cancel_queued(&d);
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
		        bv_plural(d.nshards, "task", "tasks"), bv_slurm_now() - t_submit);
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
	if (!(d.sbatch = bv_slurm_find_tool("sbatch")) || !(d.squeue = bv_slurm_find_tool("squeue")) ||
	    !(d.scancel = bv_slurm_find_tool("scancel")))
		rc = BV_EINPUT;
	if (rc == 0) {
		/* sbatch's own check of an array like the one to come (its
		 * partition, time limit and CPUs), submitting nothing: a script
		 * of one line stands in for the job script, which is made later */
		bv_strv a = BV_STRV_INIT;
		char spec[32];
		snprintf(spec, sizeof(spec), "1-%d", ntasks > 0 ? ntasks : 1);
		bv_slurm_sbatch_head(&a, d.sbatch, 1, spec, threads, so);
		bv_strv_push(&a, "--output=/dev/null");
		bv_strv_push(&a, "--wrap=true");
		char *out = NULL;
		rc = bv_slurm_run_apart(a.v, &out);
		bv_strv_free(&a);
		if (rc > 0) {
			char *w = bv_slurm_last_words(out);
			rc = bv_fail(BV_EINPUT, "sbatch --test-only failed (exit %d): %s", rc, w);
			free(w);
		}
		free(out);
	}
	driver_free(&d);
	return rc;
}
