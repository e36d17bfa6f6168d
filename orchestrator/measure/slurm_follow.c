/*
 * slurm_follow.c - submitting a comparison's job array and following it
 * (slurm.c's steps 3 and 4): sbatch, then each shard's exit file and
 * squeue's view of the queue, a shard whose job ended without finishing
 * submitted again (bv_slurm_decide), the progress line, and scancel of
 * what is still queued when the run stops.  Apart from slurm.c, which
 * prepares the run, builds and joins the shards' logs: this is the loop
 * that waits on the cluster.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "fs.h"
#include "proc.h"
#include "progress.h"
#include "slurm.h"
#include "slurm_commands.h"
#include "slurm_follow.h"

double bv_slurm_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* sbatch's options every array of ours has: one task a node, threads CPUs
 * each, so's partition and time limit (bv_slurm_submit, bv_slurm_preflight). */
void bv_slurm_sbatch_head(bv_strv *a, const char *sbatch, int test_only, const char *spec, int threads,
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

/* sbatch for shards spec ("1-4", "2"): 0 with *job, or an error carrying
 * sbatch's own words (BV_EINPUT: a partition, a time limit, an account are
 * the user's to fix).  test_only: sbatch --test-only, which submits nothing. */
int bv_slurm_submit(driver *d, const char *spec, int test_only, unsigned long long *job)
{
	bv_strv a = BV_STRV_INIT;
	bv_slurm_sbatch_head(&a, d->sbatch, test_only, spec, d->threads, d->so);
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
	int rc = bv_slurm_run_apart(a.v, &out);
	bv_strv_free(&a);
	if (rc < 0) {
		free(out);
		return rc;
	}
	if (rc != 0) {
		char *w = bv_slurm_last_words(out);
		rc = bv_fail(BV_EINPUT, "sbatch%s failed (exit %d): %s", test_only ? " --test-only" : "", rc,
		             w);
		free(w);
	} else if (!test_only && bv_slurm_parse_jobid(out, job) != 0) {
		char *w = bv_slurm_last_words(out);
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
	int rc = bv_slurm_cmd(argv, &out);
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
	int rc = bv_slurm_submit(d, spec, 0, &s->job);
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
	int rc = bv_slurm_cmd(argv, &out);
	if (rc != 0) {
		if (bv_interrupted()) {
			free(out);
			return 0;
		}
		/* The controller may be restarting: a few tries, then an error. */
		if (++*squeue_failures >= 10) {
			char *w = bv_slurm_last_words(out);
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
void bv_slurm_cancel_queued(driver *d)
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
		bv_slurm_cancel_jobs(d->scancel, jobs, n);
	}
	free(jobs);
}

/* Submits the array and follows it until every shard is done (0) or one
 * has failed past its retries, or a signal came. */
int bv_slurm_follow(driver *d, double *t_submit)
{
	unsigned long long job;
	char spec[32];
	snprintf(spec, sizeof(spec), "1-%d", d->nshards);
	*t_submit = bv_slurm_now();
	int rc = bv_slurm_submit(d, spec, 0, &job);
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
		double t = bv_slurm_now();
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
