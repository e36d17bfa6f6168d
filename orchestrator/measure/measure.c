/*
 * measure.c - the measure stage: paired samples from many short processes,
 * reduced to estimates with 95 % intervals, written as one log per version.
 *
 * A *trial* is one bv-runner process that loads every version and alternates
 * them on the same buffers (harness/runner/runner_check.c says why).  Within a trial,
 * version V's samples are paired with the baseline's taken in the same round;
 * the trial's ratio for V is the median of those pair ratios.  Trials differ
 * in level and code placement, so the reported ratio is the median over
 * trials, and its interval is the order-statistic interval of that median
 * (harness/common/stats.h): distribution-free, with its real coverage recorded.
 *
 * Sampling is adaptive per cell: after --min-processes trials a cell stops as
 * soon as its interval has decided (wholly beyond the threshold, or wholly
 * within it), or when the next trial would pass the cell's time budget or
 * --max-processes.  Later trials run only the cells still undecided.
 *
 * The logs are valid at every moment: they are rewritten (atomically, one
 * file at a time) whenever a cell finishes, with the cells not finished yet
 * as "unfinished", so a run killed even by SIGKILL leaves what it measured.
 * run.status says how the run ended: running (it did not end), complete,
 * interrupted (SIGINT/SIGTERM) or failed.  A later run with --resume DIR and
 * the same plan (versions, builds, cells, method, machine) reuses every cell
 * finished in all versions' logs as it stands (a cell's ratios come from its
 * own paired processes, so a whole cell is reused or none of it) and
 * measures the rest from scratch.
 *
 * Isolated mode (--isolated) is for versions that cannot share a process:
 * a trial is one process per version, in random order, and the trial's ratio
 * is the quotient of the two processes' medians.  It is much noisier (each
 * process has its own level) and the logs say which mode produced a number.
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "benches.h"
#include "child.h"
#include "common.h"
#include "env.h"
#include "fs.h"
#include "json.h"
#include "machine.h"
#include "plan.h"
#include "proc.h"
#include "progress.h"
#include "results.h"
#include "ops_file.h"
#include "shard.h"
#include "resolve.h"
#include "build.h"
#include "table.h"
#include "verdict.h"
#include "backends.h"
#include "stats.h"
#include "status.h"
#include "trust.h"
#include "suite.h"
#include "measure.h"
#include "measure_log.h"
#include "measure_process.h"
#include "measure_resume.h"
#include "measure_session.h"
#include "measure_stop.h"
int bv_gpu_visible(void)
{
	return bv_exists("/dev/nvidia0") || bv_exists("/proc/driver/nvidia/gpus");
}

/* The session of one measure call: its cells (plan's, in the plan's order)
 * with room for every process, the probe buffers' memory file, the random
 * orders' seeds, and a shard's plan block.  On an error it is freed. */
static int session_open(session *s, const bv_plan *plan, const bv_version *vs, size_t n, const bv_measure_opts *o,
			const char *results_dir)
{
	*s = (session){.vs = vs, .n = n, .o = o, .max_trials = o->max_processes,
		       .raw = bv_asprintf("%s/raw", results_dir), .dir = results_dir, .probe_fd = -1};
	s->created = bv_strdup("");
	s->resumed = cJSON_CreateArray();
	s->layout = bv_xcalloc(n + 1, sizeof(int));
	s->simd_isa = bv_xcalloc(n + 1, sizeof(char *));
	s->layout_rng = o->seed ^ 0xd1b54a32d192ed03ull;
	/* One memory file for every runner's bandwidth probe (trust.h): its
	 * pages are made once, not in each process's start.  Without it each
	 * runner makes its own, as before. */
	s->probe_fd = memfd_create("bench-versions-probe", MFD_CLOEXEC);
	if (s->probe_fd >= 0 && s->probe_fd < 3) {
		/* started with stdin or stdout closed: the runner's 0-2 are its own */
		int high = fcntl(s->probe_fd, F_DUPFD_CLOEXEC, 3);
		close(s->probe_fd);
		s->probe_fd = high;
	}
	if (s->probe_fd >= 0 && ftruncate(s->probe_fd, (off_t)bv_probe_file_bytes()) != 0) {
		close(s->probe_fd);
		s->probe_fd = -1;
	}
	bv_ms_shuffle_state = o->seed ^ 0x9e3779b97f4a7c15ull;
	const bv_cell *defs = plan->cells;
	const long *pos = plan->pos;
	long ndefs = plan->ncells;
	s->defs = defs, s->ndefs = ndefs;
	s->cells = bv_xcalloc((size_t)ndefs + 1, sizeof(cstate));
	s->ncells = (size_t)ndefs;
	for (long k = 0; k < ndefs; k++) {
		cstate *c = &s->cells[k];
		/* The runner's index; the logs list the planned cells in order. */
		c->index = pos[k];
		c->bench = bv_strdup(defs[k].bench->name), c->op = bv_strdup(defs[k].op->name);
		c->backend = bv_strdup(defs[k].backend), c->size = defs[k].size;
		c->active = 1;
		c->v = bv_xcalloc(n, sizeof(vstate));
		for (size_t i = 0; i < n; i++) {
			vstate *v = &c->v[i];
			v->lib_host = v->lib_device = NAN;
			v->samples = bv_xcalloc((size_t)s->max_trials, sizeof(double *));
			v->nsamples = bv_xcalloc((size_t)s->max_trials, sizeof(size_t));
			v->med = bv_xcalloc((size_t)s->max_trials, sizeof(double));
			v->ratio = bv_xcalloc((size_t)s->max_trials, sizeof(double));
			v->layout = bv_xcalloc((size_t)s->max_trials, sizeof(int));
			v->state = bv_xcalloc((size_t)s->max_trials, sizeof(pstate));
			v->proc = bv_xcalloc((size_t)s->max_trials, sizeof(int));
		}
	}
	bv_ms_find_references(s);
	if (o->shard_count > 0) {
		/* A shard's logs record its plan: one planned with these versions. */
		if (!plan->block || plan->nvs != n) {
			bv_ms_session_free(s);
			return bv_fail(BV_ERUN, "shard %d/%d: its plan was made without its %zu versions, so its logs "
				       "could not record it", o->shard_index, o->shard_count, n);
		}
		s->plan = cJSON_Duplicate(plan->block, 1);
		s->plan_cells = (size_t)plan->nall;
	}
	return 0;
}

/* The logs as the measuring ended (rc): complete, or what finished and how
 * it ended; *logs their paths when complete.  Frees the session. */
static int session_close(session *s, int rc, int ours, int started, char ***logs)
{
	size_t n = s->n;
	const char *results_dir = s->dir;
	char **paths = bv_xcalloc(n, sizeof(char *));
	const char *status = rc == 0 ? "complete" : rc == BV_EINTR ? "interrupted" : "failed";
	if (rc == 0) {
		rc = bv_ms_write_logs(s, status, paths);
		if (rc) {
			/* The logs are one run: when one cannot be written (a full
			 * disk), none may say `complete` (a sibling written first
			 * would); they say `failed`, best effort, and the first
			 * error is the one reported. */
			char *first = bv_strdup(bv_error_last());
			bv_ms_write_logs(s, "failed", NULL);
			bv_fail(rc, "%s", first);
			free(first);
		}
	} else {
		/* What finished stays in the logs (for --resume); the first error
		 * is the one reported, even when these writes fail too. */
		char *first = bv_strdup(bv_error_last());
		if (ours)
			bv_ms_write_logs(s, status, NULL);
		if (rc == BV_EINTR)
			fprintf(stderr, "measure: %s: %zu of %zu cells finished (%d processes this time), logs in %s\n",
				status, bv_ms_count_finished(s), s->ncells, s->processes - started, results_dir);
		bv_fail(rc, "%s", first);
		free(first);
	}
	if (rc == 0)
		fprintf(stderr, "measure: %d processes started this time\n", s->processes - started);
	bv_ms_session_free(s);
	if (rc) {
		for (size_t i = 0; i < n; i++)
			free(paths[i]);
		free(paths);
		return rc;
	}
	*logs = paths;
	return 0;
}

int bv_measure_plan(const bv_plan *plan, const bv_version *vs, size_t n, const bv_measure_opts *o,
		    const char *results_dir, char ***logs)
{
	*logs = NULL;
	session s;
	int rc = session_open(&s, plan, vs, n, o, results_dir);
	if (rc)
		return rc;

	char now[32];
	bv_ms_timestamp(now, sizeof(now));
	/* raw/ is the run's own: a link would carry the runners' documents
	 * elsewhere (a resumed directory's raw/ is checked before building). */
	rc = bv_mkdir_p(results_dir);
	if (rc == 0)
		rc = bv_mkdir_inside(results_dir, "raw");
	/* Logs another plan wrote are never overwritten. */
	int ours = !o->resume;
	if (rc == 0 && o->resume) {
		bv_measure_opts check = *o;
		rc = bv_resume_check_plan(results_dir, vs, n, &check, plan, 1);
		if (rc == 0)
			rc = bv_ms_resume_from(&s);
		if (rc == 0)
			cJSON_AddItemToArray(s.resumed, cJSON_CreateString(now));
		ours = rc == 0;
	}
	if (!s.created[0]) {
		free(s.created);
		s.created = bv_strdup(now);
	}
	size_t built = 0;
	for (size_t i = 0; i < n; i++)
		built += bv_ms_measurable(&vs[i]);
	for (size_t i = 0; rc == 0 && o->layouts > 1 && i < n; i++)
		rc = bv_build_layouts(&vs[i], o->layouts);
	if (rc == 0 && built > 0 && bv_ms_count_active(&s) > 0)
		rc = bv_machine_calibration(o->recalibrate, "--recalibrate", &s.calib);
	if (rc && bv_interrupted())
		rc = bv_fail_interrupted();
	s.machine = bv_machine_info();
	if (s.machine && s.calib)
		cJSON_AddItemToObject(s.machine, "calibration", cJSON_Duplicate(s.calib, 1));
	int started = s.processes;
	time_t start = time(NULL);
	/* On a terminal one redrawn status line (cells decided so far and an
	 * ETA); in logs and CI a plain line per process. */
	bv_progress *pg = isatty(2) ? bv_progress_new("measure", s.ncells) : NULL;
	for (int t = 0; rc == 0 && built > 0 && bv_ms_count_active(&s) > 0; t++) {
		if (bv_interrupted()) {
			rc = bv_fail_interrupted();
			break;
		}
		char cur[128];
		snprintf(cur, sizeof(cur), "process %d%s, %zu of %zu cells still sampling", s.processes + 1,
			 o->isolated ? " (one per version)" : "", bv_ms_count_active(&s), s.ncells);
		if (pg)
			bv_progress_set(pg, s.ncells - bv_ms_count_active(&s), s.ncells, cur);
		else
			fprintf(stderr, "measure: %s (%lds)\n", cur, (long)(time(NULL) - start));
		rc = bv_ms_trial(&s);
		if (rc == 0)
			bv_ms_update_active(&s);
		size_t again = rc == 0 && bv_ms_count_active(&s) == 0 && !o->isolated ? bv_ms_measure_again(&s) : 0;
		if (again)
			fprintf(stderr, "measure: %zu cell%s followed the machine's state (another job took its memory "
					"bandwidth or cores for a while): measuring %s again now\n",
				again, again == 1 ? "'s ratio" : "s' ratios", again == 1 ? "it" : "them");
		/* Whenever a cell finishes, the logs say so: a run killed now
		 * keeps it. */
		if (rc == 0 && bv_ms_count_finished(&s) > s.nwritten && bv_ms_count_active(&s) > 0) {
			rc = bv_ms_write_logs(&s, "running", NULL);
			s.nwritten = bv_ms_count_finished(&s);
		}
	}
	if (pg)
		bv_progress_end(pg);
	if (rc == 0 && s.calib)
		rc = bv_ms_check_calibration(&s);

	return session_close(&s, rc, ours, started, logs);
}
