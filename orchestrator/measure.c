/*
 * measure.c - the measure stage: paired samples from many short processes,
 * reduced to estimates with 95 % intervals, written as one log per version.
 *
 * A *trial* is one bv-runner process that loads every version and alternates
 * them on the same buffers (harness/runner.c says why).  Within a trial,
 * version V's samples are paired with the baseline's taken in the same round;
 * the trial's ratio for V is the median of those pair ratios.  Trials differ
 * in level and code placement, so the reported ratio is the median over
 * trials, and its interval is the order-statistic interval of that median
 * (harness/stats.h): distribution-free, with its real coverage recorded.
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
#include "measure.h"
#include "verdict.h"
#include "backends.h"
#include "stats.h"
#include "status.h"
#include "trust.h"
#include "suite.h"

/* The machine's state around one process's timing of a cell, as the runner
 * reported it: [0] before, [1] after; NAN where it said nothing. */
typedef struct pstate {
	double loadavg[2], running[2], gbps[2], compute_ns[2];
} pstate;

/* One version in one cell, accumulated over trials. */
typedef struct vstate {
	bv_status status; /* BV_ST_NONE while every trial said ok; else the first failure */
	char *reason;
	double host_bytes, device_bytes;
	double lib_host, lib_device; /* the library's workspace in a call; NAN: not counted */
	double work[3]; /* a suite cell's bvs_work (bytes, flops, items) as the runner said it; 0: not said */
	double **samples; /* [trial] ns per call, one per round */
	size_t *nsamples;
	double *med;   /* [trial] median of the trial's samples, NAN if none */
	double *ratio; /* [trial] vs the baseline, NAN if none */
	int *layout;   /* [trial] the code layout this version had (--layouts) */
	pstate *state; /* [trial] the machine around this version's process */
	int *proc;     /* [trial] the runner process (raw/process-N.json's N) */
	double retaken, kept; /* samples re-taken, and kept though preempted, over trials */
} vstate;

typedef struct cstate {
	long index;
	char *bench, *op, *backend;
	size_t size;
	double reps, elapsed_s;
	double input_sets; /* the sets the runner cycled (--inputs); 0 until a process says */
	int ntrials, active;
	int checked; /* every version's output checked in an earlier trial */
	int again;   /* 1: its ratio followed the machine's state; measured again at the end of the run */
	int again_from; /* the trial at which that began */
	/* Why sampling stopped, for the log: "decided", "budget" (the next
	 * process would have passed stop_budget_s, one --budget or three for a
	 * cell that looked changed) or "max_processes"; NULL while active, or
	 * when no version could be measured. */
	const char *stopped;
	double stop_budget_s;
	int drew; /* sampled past its three budgets on the run's spare time */
	/* The first process's time (it checks every version's output, which a
	 * suite's reference can make seconds) and the latest's (what the next
	 * costs): a long cell's own extension is reckoned without the check. */
	double first_s, last_s;
	/* The vs view's reference cell of this one (o->vs: the same cell but
	 * for the axis's value, which is the reference's), an index into the
	 * session's cells; -1: none, or this is a reference. */
	long ref;
	vstate *v; /* one per version */
	cJSON **prior; /* --resume: the cell as an earlier run logged it, per version */
} cstate;

typedef struct session {
	const bv_version *vs;
	size_t n;
	const bv_measure_opts *o;
	cstate *cells;
	size_t ncells;
	int max_trials;
	char *raw;
	int processes; /* runner processes started (by earlier runs too, when resumed) */
	int *layout;   /* per version: the layout the current process loads */
	char **simd_isa; /* per version: what its simd backend dispatched to (runner) */
	uint64_t layout_rng;
	/* the logs */
	const char *dir;
	const bv_cell *defs;
	long ndefs;
	cJSON *calib, *machine;
	char *created;    /* the run's first start */
	cJSON *resumed;   /* when it was resumed, UTC */
	size_t nwritten;  /* finished cells in the logs last written */
	int probe_fd;     /* the runners' probe buffers, one memory file for the run; -1 if none */
	/* --shard I/N: the plan this shard belongs to (shard.h), recorded in
	 * every log; NULL when the run is not a shard */
	cJSON *plan;
	/* cells of the whole plan: a shard's stopping rule holds its evidence to
	 * the share of the false-discovery rate the joined run will decide it
	 * at, not to its own (smaller) family's */
	size_t plan_cells;
} session;

static cJSON *version_block(const bv_version *v, const char *simd_isa)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "label", v->label);
	cJSON_AddStringToObject(o, "name", v->name);
	cJSON_AddStringToObject(o, "kind", v->kind == BV_VERSION_LOCAL	  ? "local"
					   : v->kind == BV_VERSION_RELEASE ? "release"
									   : "git");
	cJSON_AddStringToObject(o, "rule", v->rule);
	if (v->kind == BV_VERSION_GIT)
		cJSON_AddStringToObject(o, "commit", v->commit);
	else
		cJSON_AddNullToObject(o, "commit");
	cJSON_AddStringToObject(o, "tree", v->tree);
	cJSON_AddStringToObject(o, "summary", v->summary ? v->summary : "");
	cJSON_AddStringToObject(o, "kernel_version", v->kernel_version);
	if (simd_isa)
		cJSON_AddStringToObject(o, "simd_isa", simd_isa);
	else
		cJSON_AddNullToObject(o, "simd_isa");
	cJSON *shims = cJSON_AddArrayToObject(o, "compat");
	for (size_t i = 0; i < v->shims.nrules; i++)
		cJSON_AddItemToArray(shims, cJSON_CreateString(v->shims.rules[i]));
	cJSON *b = cJSON_AddObjectToObject(o, "build");
	cJSON_AddStringToObject(b, "status", bv_status_name(v->build_error ? BV_ST_FAILED : BV_ST_OK));
	if (v->build_key)
		cJSON_AddStringToObject(b, "key", v->build_key);
	cJSON_AddBoolToObject(b, "cached", v->cached);
	cJSON_AddStringToObject(b, "cc", getenv("CC") && *getenv("CC") ? getenv("CC") : "cc");
	cJSON *flags = cJSON_AddArrayToObject(b, "cflags");
	for (size_t i = 0; i < v->shims.ncflags; i++)
		cJSON_AddItemToArray(flags, cJSON_CreateString(v->shims.cflags[i]));
	if (v->build_error)
		cJSON_AddStringToObject(b, "error", v->build_error);
	return o;
}

static int measurable(const bv_version *v) { return v->plugin && !v->build_error; }

/* ---- running one process ---------------------------------------------- */

/* The backends whose cells need the CUDA libraries loaded. */
static int device_backend(const char *backend) { return !strcmp(backend, "cuda"); }

static cstate *cell_by_index(session *s, long index);

/* A runner ended by a signal while a child of it ran a cell's code: its
 * OUT.cell (runner.c, at_say) says "INDEX LABEL" (LABEL's check) or "INDEX"
 * (the timing of the cell's versions together).  Those versions are
 * crashed in that cell, saying so, and the run goes on without them (the
 * next process drops them), instead of stopping where every resume would
 * run the same cell again.  The cell, when the file named a cell and
 * version this process was measuring; NULL otherwise (the runner died
 * outside a cell: its own failure, reported as such). */
static cstate *killed_in_cell(session *s, const size_t *which, size_t nwhich, int device, const char *at, int sig)
{
	FILE *f = fopen(at, "r");
	char line[256] = "";
	int got = f && fgets(line, sizeof(line), f) != NULL;
	if (f)
		fclose(f);
	char *end = NULL;
	long index = got ? strtol(line, &end, 10) : -1;
	if (!got || end == line || index < 0 || (*end != ' ' && *end != '\n'))
		return NULL;
	const char *label = NULL;
	if (*end == ' ') {
		label = end + 1;
		end[1 + strcspn(end + 1, "\n")] = '\0';
	}
	cstate *c = cell_by_index(s, index);
	if (!c || !c->active || device_backend(c->backend) != device)
		return NULL;
	int hit = 0;
	for (size_t k = 0; k < nwhich; k++) {
		vstate *v = &c->v[which[k]];
		if (v->status || (label && strcmp(label, s->vs[which[k]].label)))
			continue;
		v->status = BV_ST_CRASHED;
		free(v->reason);
		v->reason = bv_asprintf("the benchmark killed the measuring process (signal %d, %s) %s; the other cells "
					"were measured on in a new process",
					sig, strsignal(sig),
					label ? "in this version's check"
					      : "while the cell's versions were timed together (which one's code did it is "
						"not told apart)");
		hit = 1;
	}
	return hit ? c : NULL;
}

/* Runs one bv-runner over the active cells of one kind (device: the cuda
 * cells, else the host ones) for the versions in `which` (indices into
 * s->vs), each in its layout s->layout[]; its document lands in *doc.  A
 * host process loads the builds' host-only plugins (bv_plugin_variant):
 * the CUDA libraries alone take 120-230 ms to load, most of such a
 * process's life. */
static int run_process(session *s, const size_t *which, size_t nwhich, int device, cJSON **doc)
{
	const bv_measure_opts *o = s->o;
	int index = s->processes++;
	char *out = bv_asprintf("%s/process-%d.json", s->raw, index + 1);
	char *at = bv_asprintf("%s.cell", out); /* the cell it is in (killed_in_cell) */
	char *log = bv_asprintf("%s/runner.log", s->raw);
	bv_strv argv = BV_STRV_INIT;
	bv_strv_pushf(&argv, "%s/bv-runner", bv_libexec());
	bv_strv_push(&argv, "--out");
	bv_strv_push(&argv, out);
	bv_strv_push(&argv, "--seed");
	bv_strv_pushf(&argv, "%llu", o->seed * 1000003ull + (unsigned long long)index + 1);
	bv_strv_push(&argv, "--rounds");
	bv_strv_pushf(&argv, "%d", o->rounds);
	if (s->probe_fd >= 0) {
		bv_strv_push(&argv, "--probe-fd");
		bv_strv_pushf(&argv, "%d", s->probe_fd);
	}
	bv_strv_push(&argv, "--sample-us");
	bv_strv_pushf(&argv, "%g", o->sample_us);
	bv_strv_push(&argv, "--timeout");
	bv_strv_pushf(&argv, "%g", o->timeout_s);
	if (o->pin >= 0) {
		bv_strv_push(&argv, "--pin");
		bv_strv_pushf(&argv, "%d", o->pin);
	}
	/* The runner's preemption rule reads this thread's CPU time only when
	 * the backend runs on this thread alone. */
	bv_strv_push(&argv, "--threads");
	bv_strv_pushf(&argv, "%d", o->threads > 0 ? o->threads : 1);
	if (o->inputs > 1) {
		bv_strv_push(&argv, "--inputs");
		bv_strv_pushf(&argv, "%d", o->inputs);
	}
	if (o->simd_isa) {
		bv_strv_push(&argv, "--simd-isa");
		bv_strv_push(&argv, o->simd_isa);
	}
	/* What a cell's check or timing may allocate: past it the cell is
	 * "out of memory", not the machine's OOM killer's to settle. */
	if (o->memory_limit) {
		bv_strv_push(&argv, "--memory-limit");
		bv_strv_pushf(&argv, "%llu", o->memory_limit);
	}
	/* The same user-defined ops as here, or the cells' indices differ:
	 * the runner refuses a file whose content changed since (its hash). */
	if (bv_ops_file_hash()) {
		bv_strv_push(&argv, "--ops-file");
		bv_strv_push(&argv, bv_ops_file_path());
		bv_strv_push(&argv, "--ops-hash");
		bv_strv_push(&argv, bv_ops_file_hash());
	}
	/* The same for a project suite's description (suite.h): its group
	 * is registered after the catalog's and the ops file's. */
	bv_suite_runner_args(&argv);
	const char *names[] = {"--benches", "--ops", "--backends", "--sizes"};
	const char *vals[] = {o->benches, o->ops, o->backends, o->sizes};
	for (int i = 0; i < 4; i++)
		if (vals[i]) {
			bv_strv_push(&argv, names[i]);
			bv_strv_push(&argv, vals[i]);
		}
	bv_buf only = BV_BUF_INIT;
	for (size_t c = 0; c < s->ncells; c++) {
		if (!s->cells[c].active || device_backend(s->cells[c].backend) != device)
			continue;
		bv_buf_printf(&only, "%s%ld", only.len ? "," : "", s->cells[c].index);
		/* A version whose status is settled in this cell is not run again:
		 * a hang would cost its timeout in every process. */
		for (size_t k = 0; k < nwhich; k++)
			if (s->cells[c].v[which[k]].status) {
				bv_strv_push(&argv, "--drop");
				bv_strv_pushf(&argv, "%ld:%s", s->cells[c].index, s->vs[which[k]].label);
			}
	}
	bv_strv_push(&argv, "--only");
	bv_strv_push(&argv, only.s);
	bv_buf_free(&only);
	bv_buf checked = BV_BUF_INIT;
	for (size_t c = 0; c < s->ncells; c++)
		if (s->cells[c].active && s->cells[c].checked && device_backend(s->cells[c].backend) == device)
			bv_buf_printf(&checked, "%s%ld", checked.len ? "," : "", s->cells[c].index);
	if (checked.len) {
		bv_strv_push(&argv, "--checked");
		bv_strv_push(&argv, checked.s);
	}
	bv_buf_free(&checked);
	/* Each process spends about budget / min-processes on a cell, so a
	 * cell whose calls are long still fits min-processes in its budget. */
	bv_strv_push(&argv, "--cell-ms");
	bv_strv_pushf(&argv, "%g", 0.5e3 * o->budget_s / o->min_processes);
	for (size_t k = 0; k < nwhich; k++) {
		char path[4096];
		bv_strv_pushf(&argv, "%s=%s", s->vs[which[k]].label,
			      bv_plugin_variant(&s->vs[which[k]], s->layout[which[k]], !device, path, sizeof(path)));
	}

	char *tail = NULL;
	/* A subreaper while the runner lives: what it leaves behind when it
	 * dies (a kernel's setsid()'d process, the runner ended by Ctrl-C
	 * before its cell's end) comes to us and is ended here, not by init. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* The probe file crosses this exec only: close-on-exec again at once,
	 * so no build, git or recipe child inherits it. */
	if (s->probe_fd >= 0)
		fcntl(s->probe_fd, F_SETFD, 0);
	int status = bv_run_tail(argv.v, log, 1500, &tail, BV_ENV_RUNNER);
	if (s->probe_fd >= 0)
		fcntl(s->probe_fd, F_SETFD, FD_CLOEXEC);
	bv_kill_children();
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	bv_strv_free(&argv);
	int rc = status < 0 ? status : 0;
	cstate *killer = NULL;
	if (bv_interrupted()) {
		/* Its cells are measured again on resume; no half document stays. */
		char *tmp = bv_asprintf("%s.tmp", out);
		unlink(out), unlink(tmp);
		free(tmp);
		rc = bv_fail_interrupted();
	} else if (status > 128 && (killer = killed_in_cell(s, which, nwhich, device, at, status - 128))) {
		/* No document (*doc stays NULL): the cell's versions are
		 * settled, the other cells measured by the next process. */
		fprintf(stderr, "measure: measuring process %d was killed by signal %d (%s) in cell %s/%s/%s/%zu, "
				"by the benchmark's code: that cell is crashed, the others go on in a new process\n",
			index + 1, status - 128, strsignal(status - 128), killer->bench, killer->op, killer->backend,
			killer->size);
	} else if (status > 0) {
		/* A plugin that vanished is the likeliest cause: say so. */
		bv_buf hint = BV_BUF_INIT;
		for (size_t k = 0; k < nwhich; k++)
			if (!bv_exists(s->vs[which[k]].plugin))
				bv_buf_printf(&hint, "\n%s's build %s is gone: was the cache (%s) removed while measuring?",
					      s->vs[which[k]].label, s->vs[which[k]].plugin, bv_cache_dir());
		rc = bv_fail(BV_ERUN, "measuring process %d exited with status %d; its last output (also in %s):\n%s%s",
			     index + 1, status, log, tail && *tail ? tail : "(none)\n", hint.s ? hint.s : "");
		bv_buf_free(&hint);
	}
	free(tail);
	unlink(at);
	if (rc == 0 && !killer)
		rc = bv_json_load(out, (size_t)1 << 30, doc);
	if (rc == 0 && !killer && !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(*doc, "cells"))) {
		rc = bv_fail(BV_ERUN, "%s: the runner wrote no cells", out);
		cJSON_Delete(*doc);
		*doc = NULL;
	}
	free(out);
	free(at);
	free(log);
	return rc;
}

static cstate *cell_by_index(session *s, long index)
{
	for (size_t c = 0; c < s->ncells; c++)
		if (s->cells[c].index == index)
			return &s->cells[c];
	return NULL;
}

static int version_by_label(session *s, const char *label)
{
	for (size_t i = 0; label && i < s->n; i++)
		if (!strcmp(s->vs[i].label, label))
			return (int)i;
	return -1;
}

/* A cell's "state" from the runner: each field is [before, after]. */
static pstate read_state(const cJSON *cell)
{
	pstate p;
	const char *keys[] = {"loadavg", "running", "probe_gbps", "probe_compute_ns"};
	double *dst[] = {p.loadavg, p.running, p.gbps, p.compute_ns};
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(cell, "state");
	for (int k = 0; k < 4; k++) {
		const cJSON *arr = cJSON_GetObjectItemCaseSensitive(st, keys[k]);
		for (int w = 0; w < 2; w++) {
			const cJSON *x = cJSON_GetArrayItem(arr, w);
			dst[k][w] = cJSON_IsNumber(x) ? x->valuedouble : NAN;
		}
	}
	return p;
}

static cJSON *state_json(const pstate *p)
{
	cJSON *o = cJSON_CreateObject();
	const char *keys[] = {"loadavg", "running", "probe_gbps", "probe_compute_ns"};
	const double *src[] = {p->loadavg, p->running, p->gbps, p->compute_ns};
	for (int k = 0; k < 4; k++) {
		cJSON *arr = cJSON_AddArrayToObject(o, keys[k]);
		/* NAN (nothing reported) is null, as cJSON prints it anyway. */
		for (int w = 0; w < 2; w++)
			cJSON_AddItemToArray(arr, isfinite(src[k][w]) ? cJSON_CreateNumber(src[k][w]) : cJSON_CreateNull());
	}
	return o;
}

/* Folds one runner document into trial t of every cell it holds. */
static int absorb(session *s, const cJSON *doc, const char *what)
{
	const cJSON *cell;
	/* The ISA each version's simd backend dispatched to (the same in every
	 * process on one machine), for the log's version.simd_isa. */
	cJSON_ArrayForEach(cell, cJSON_GetObjectItemCaseSensitive(doc, "versions"))
	{
		int i = version_by_label(s, bv_json_str(cell, "label"));
		const char *isa = bv_json_str(cell, "simd_isa");
		if (i >= 0 && isa && !s->simd_isa[i])
			s->simd_isa[i] = bv_strdup(isa);
	}
	cJSON_ArrayForEach(cell, cJSON_GetObjectItemCaseSensitive(doc, "cells"))
	{
		double index = -1, reps = 0, elapsed = 0;
		bv_json_num(cell, "index", &index);
		cstate *c = cell_by_index(s, (long)index);
		if (!c || !c->active)
			return bv_fail(BV_ERUN, "%s: a cell the runner was not asked for (%g)", what, index);
		if (!bv_json_num(cell, "reps", &reps) && reps > 0)
			c->reps = reps;
		double sets = 0;
		if (!bv_json_num(cell, "input_sets", &sets) && sets >= 1 && sets <= 64)
			c->input_sets = sets;
		int t = c->ntrials;
		if (!bv_json_num(cell, "elapsed_s", &elapsed)) {
			c->elapsed_s += elapsed;
			c->last_s = elapsed;
			if (t == 0)
				c->first_s = elapsed;
		}
		pstate state = read_state(cell);
		const cJSON *e;
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(cell, "versions"))
		{
			int i = version_by_label(s, bv_json_str(e, "label"));
			/* "dropped": a version this process was told not to run (--drop). */
			const char *st = bv_json_str(e, "status");
			int dropped = st && !strcmp(st, "dropped");
			bv_status status = bv_status_parse(st);
			if (i < 0 || (!dropped && status == BV_ST_NONE))
				return bv_fail(BV_ERUN, "%s: a cell entry without a known label or status", what);
			vstate *v = &c->v[i];
			bv_json_num(e, "host_bytes", &v->host_bytes);
			bv_json_num(e, "device_bytes", &v->device_bytes);
			/* A suite's work model is its setup's (bvs_work), per version:
			 * the catalog's comes from the op's definition instead. */
			const cJSON *wk = cJSON_GetObjectItemCaseSensitive(e, "work");
			static const char *const wkeys[3] = {"bytes", "flops", "items"};
			for (int k = 0; k < 3 && cJSON_IsObject(wk); k++) {
				double x;
				if (!bv_json_num(wk, wkeys[k], &x) && isfinite(x) && x > 0)
					v->work[k] = x;
			}
			/* Said by the check of each process that checks (one per run
			 * unless a cell is checked again): the largest is kept. */
			double lh, ld;
			if (!bv_json_num(e, "library_host_bytes", &lh) && isfinite(lh) && lh >= 0)
				v->lib_host = isnan(v->lib_host) ? lh : fmax(v->lib_host, lh);
			if (!bv_json_num(e, "library_device_bytes", &ld) && isfinite(ld) && ld >= 0)
				v->lib_device = isnan(v->lib_device) ? ld : fmax(v->lib_device, ld);
			if (dropped)
				continue;
			if (status != BV_ST_OK) {
				if (!v->status) { /* the first failure is the cell's status */
					const char *why = bv_json_str(e, "reason");
					v->status = status;
					v->reason = why ? bv_strdup(why) : NULL;
				}
				continue;
			}
			const cJSON *arr = cJSON_GetObjectItemCaseSensitive(e, "samples_ns");
			size_t ns = 0, cap = (size_t)cJSON_GetArraySize(arr);
			double *x = bv_xcalloc(cap ? cap : 1, sizeof(double));
			const cJSON *num;
			cJSON_ArrayForEach(num, arr)
			{
				if (cJSON_IsNumber(num) && num->valuedouble > 0)
					x[ns++] = num->valuedouble;
			}
			free(v->samples[t]);
			v->samples[t] = x, v->nsamples[t] = ns;
			v->med[t] = ns ? bv_median(x, ns) : NAN;
			v->state[t] = state;
			v->proc[t] = s->processes; /* the process just run: run_process numbered it */
			double n;
			if (!bv_json_num(e, "retaken", &n) && n > 0)
				v->retaken += n;
			if (!bv_json_num(e, "contaminated", &n) && n > 0)
				v->kept += n;
		}
	}
	return 0;
}

/* After every version's part of trial t: the trial's ratios, then the count. */
static void close_trial(session *s, cstate *c)
{
	int t = c->ntrials;
	vstate *b = &c->v[0];
	for (size_t i = 0; i < s->n; i++) {
		if (!c->v[i].nsamples[t])
			c->v[i].med[t] = NAN;
		c->v[i].layout[t] = s->layout[i];
	}
	for (size_t i = 1; i < s->n; i++) {
		vstate *v = &c->v[i];
		v->ratio[t] = NAN;
		if (!v->nsamples[t] || !b->nsamples[t] || v->status || b->status)
			continue;
		if (s->o->isolated) {
			v->ratio[t] = v->med[t] / b->med[t];
		} else if (v->nsamples[t] == b->nsamples[t]) {
			size_t ns = v->nsamples[t];
			double *r = bv_xcalloc(ns, sizeof(double));
			for (size_t k = 0; k < ns; k++)
				r[k] = v->samples[t][k] / b->samples[t][k];
			v->ratio[t] = bv_median(r, ns);
			free(r);
		}
	}
	c->ntrials++;
	c->checked = 1;
}

/* The finite values of x[0..n). */
static size_t finite_of(const double *x, int n, double *out)
{
	size_t k = 0;
	for (int i = 0; i < n; i++)
		if (isfinite(x[i]))
			out[k++] = x[i];
	return k;
}

/* The comparisons the run's verdicts are decided over (verdict.c): every
 * cell against the baseline, for every other version that built. */
static size_t family(const session *s)
{
	size_t built = 0;
	for (size_t i = 1; i < s->n; i++)
		built += measurable(&s->vs[i]);
	size_t cells = s->plan_cells > s->ncells ? s->plan_cells : s->ncells;
	size_t m = cells * (built ? built : 1);
	if (s->o->family > m)
		m = s->o->family;
	return m ? m : 1;
}

/* Has the cell's every comparison decided, so more trials cannot change it? */
/* Version i's per-process ratios to version ref: the baseline's own
 * (v[i].ratio) when ref is 0, else the quotient of the two medians each
 * process timed (every host version of a cell runs in the same process). */
static size_t ratios_to(const cstate *c, size_t i, size_t ref, double *r)
{
	if (ref == 0)
		return finite_of(c->v[i].ratio, c->ntrials, r);
	size_t k = 0;
	for (int t = 0; t < c->ntrials; t++) {
		double a = c->v[ref].med[t], b = c->v[i].med[t];
		if (isfinite(a) && isfinite(b) && a > 0 && b > 0)
			r[k++] = b / a;
	}
	return k;
}

/* One comparison's per-process ratios r[0..k): 1 when decided (its interval
 * past the band with evidence that survives the run's control, or inside
 * it); *pending when it looks changed without that evidence yet, and
 * *need (the largest over the comparisons) the processes its evidence
 * needs when, besides, every one of its processes is beyond the same edge
 * of the band (only more processes can decide it); 0 otherwise. */
static int judged(const session *s, double *r, size_t k, int *pending, int *need)
{
	double lo_band = 1.0 / (1.0 + s->o->threshold), hi_band = 1.0 + s->o->threshold;
	bv_interval iv;
	if (k == 0 || bv_median_interval(r, k, 0.95, &iv) != 0 || iv.coverage < 0.95)
		return 0;
	/* Beyond the band only with evidence that survives the run's
	 * false-discovery control whatever the other cells say (a
	 * Bonferroni share of it, verdict.c); the evidence is valid at
	 * any stopping time (stats.h), so looking after every process
	 * costs nothing. */
	double share = BV_FDR / (double)family(s);
	int beyond = (iv.lo > hi_band && 2 * bv_sign_evidence(r, k, hi_band, +1) <= share) ||
		     (iv.hi < lo_band && 2 * bv_sign_evidence(r, k, lo_band, -1) <= share);
	int within = iv.lo >= lo_band && iv.hi <= hi_band;
	/* It looks changed (estimate or interval past the band), its
	 * evidence is not there yet. */
	int looks = bv_budget_scale(iv.est, iv.lo, iv.hi, s->o->threshold, beyond) > 1;
	*pending |= looks;
	size_t up = 0, down = 0;
	for (size_t i = 0; i < k; i++)
		up += r[i] > hi_band, down += r[i] < lo_band;
	if (looks && (up == k || down == k) && !beyond) {
		/* How many processes, all beyond the edge, its evidence needs
		 * to pass the share: the mixture of a unanimous run only grows */
		size_t n = k;
		while (n < 100000 && 2 * exp(-bv_sign_log_mixture(n, n)) > share)
			n++;
		if ((int)n > *need)
			*need = (int)n;
	}
	return beyond || within;
}

/* The vs view's reference cell of c (o->vs: the same bench, op and size on
 * the reference backend, or the same but for the parameter's value), or
 * NULL: c is the reference, or it has none (find_references). */
static cstate *reference_of(session *s, const cstate *c)
{
	return c->ref >= 0 ? &s->cells[c->ref] : NULL;
}

/* Each cell's reference on the axis, once: its key (the cell without its
 * value on the axis) and the reference value.  */
static void find_references(session *s)
{
	const bv_vs_axis *ax = s->o->vs;
	char (*keys)[512] = bv_xcalloc(s->ncells + 1, sizeof(*keys));
	int *isref = bv_xcalloc(s->ncells + 1, sizeof(int)), *has = bv_xcalloc(s->ncells + 1, sizeof(int));
	for (size_t i = 0; i < s->ncells; i++) {
		cstate *c = &s->cells[i];
		char value[128];
		c->ref = -1;
		if (ax && ax->on &&
		    bv_vs_place(ax, c->bench, c->op, c->backend, c->size, value, sizeof(value), keys[i], sizeof(keys[i])))
			has[i] = 1, isref[i] = !strcmp(value, ax->ref);
	}
	for (size_t i = 0; i < s->ncells; i++)
		for (size_t k = 0; has[i] && !isref[i] && k < s->ncells && s->cells[i].ref < 0; k++)
			if (isref[k] && !strcmp(keys[k], keys[i]))
				s->cells[i].ref = (long)k;
	free(keys), free(isref), free(has);
}

/* Version i's per-process ratios of cell c over cell ref, paired by the
 * runner process that timed both (every host cell of a version runs in
 * each process; bv_result_pair_by_process does the same from the logs). */
static size_t ratios_by_process(const cstate *c, const cstate *ref, size_t i, double *r)
{
	size_t k = 0;
	for (int t = 0; t < c->ntrials; t++) {
		double b = c->v[i].med[t];
		if (!isfinite(b) || b <= 0)
			continue;
		for (int u = 0; u < ref->ntrials; u++)
			if (ref->v[i].proc[u] == c->v[i].proc[t]) {
				double a = ref->v[i].med[u];
				if (isfinite(a) && a > 0)
					r[k++] = b / a;
				break;
			}
	}
	return k;
}

static int decided(session *s, cstate *c, int *pending, int *need)
{
	double *r = bv_xcalloc((size_t)c->ntrials + 1, sizeof(double));
	int all = 1;
	*pending = 0, *need = 0;
	/* The reference: the baseline; in a history's window whose first
	 * version lacks the cell, the first version that has it (bv_measure_opts
	 * .series), so its steps sample until decided like any other. */
	size_t ref = 0;
	while (s->o->series && ref + 1 < s->n && c->v[ref].status == BV_ST_NA)
		ref++;
	for (size_t i = ref + 1; i < s->n; i++) {
		if (c->v[i].status || c->v[ref].status)
			continue;
		all = judged(s, r, ratios_to(c, i, ref, r), pending, need) && all;
	}
	/* The vs view (--vs, --vs-backend): each version's ratio to the
	 * reference cell decides too, so a clear win is sampled until the
	 * view can call it (a run of one version has no other ratio). */
	cstate *rc = reference_of(s, c);
	for (size_t i = 0; rc && i < s->n; i++) {
		if (c->v[i].status || rc->v[i].status)
			continue;
		all = judged(s, r, ratios_by_process(c, rc, i, r), pending, need) && all;
	}
	free(r);
	return all;
}

/* The run's spare time: what the cells leave unused of their own --budget
 * (a cell that stopped: its budget less what it took; one still sampling:
 * less what it takes at most, at its cost per process, up to
 * --max-processes), less what cells already took past their three budgets
 * from it.  A cell every one of whose processes so far is beyond the same
 * edge of the band, whose evidence still falls short of the run's control,
 * samples on from it (update_active): at 1M elements and more a process can
 * take a second, three budgets of --quick buy six or seven, and six processes
 * can never call a change (stats.h).  So the run's time stays within what
 * its cells' budgets allowed. */
static double spare_budget(const session *s)
{
	const bv_measure_opts *o = s->o;
	double spare = 0;
	for (size_t ci = 0; ci < s->ncells; ci++) {
		const cstate *c = &s->cells[ci];
		int n = c->ntrials;
		double use = c->elapsed_s;
		if (c->active && n > 0 && n < o->max_processes)
			use += c->elapsed_s / n * (o->max_processes - n);
		if (c->active && n == 0)
			use = o->budget_s;
		spare += fmax(0, o->budget_s - use) - fmax(0, c->elapsed_s - 3 * o->budget_s);
	}
	return spare;
}

static void update_active(session *s)
{
	const bv_measure_opts *o = s->o;
	double spare = spare_budget(s);
	for (size_t ci = 0; ci < s->ncells; ci++) {
		cstate *c = &s->cells[ci];
		if (!c->active)
			continue;
		size_t ok = 0;
		for (size_t i = 0; i < s->n; i++)
			ok += measurable(&s->vs[i]) && !c->v[i].status;
		int n = c->ntrials;
		int fixed = o->min_processes == o->max_processes;
		/* A cell that looks changed (its estimate or its interval past
		 * the band) but whose evidence does not yet survive the run's
		 * control may take up to three budgets (bv_budget_scale): six
		 * processes can never call a change alone (stats.h), a clear 6x
		 * improvement must not end `same` for want of the few more
		 * processes that prove it, and a 3 % change at 16M elements on a
		 * loaded machine gets only 6-8 processes from one budget. */
		int pending = 0, need = 0, done = decided(s, c, &pending, &need) && n >= o->min_processes;
		int unanimous = need > 0; /* every process of a comparison beyond the same edge */
		double budget = pending ? 3 * o->budget_s : o->budget_s;
		double next = n > 0 ? c->elapsed_s / n : 0;
		int over = next * (n + 1) > budget; /* after one more trial */
		/* Past its three budgets, a cell whose every process is beyond
		 * the band the same way samples on from the run's spare time
		 * (spare_budget); the evidence is valid at any stopping time, so
		 * this costs no false alarms. */
		if (over && pending && unanimous && !done && n >= 6) {
			if (next <= spare)
				over = 0, spare -= next, c->drew = 1;
			/* No spare (every other cell used its budget): the
			 * processes its evidence still needs (need, all beyond
			 * the edge as so far), when they fit in three budgets
			 * more of its own (its first process's checks not
			 * counted), so a long cell's clear change is called
			 * whatever the rest of the run did; only a cell so
			 * clearly changed gets them, and none that cannot get
			 * there in that time. */
			else if (need > n && c->elapsed_s - c->first_s + (need - n) * c->last_s <= 2 * budget)
				over = 0, c->drew = 1;
		}
		if (c->drew && c->elapsed_s > budget)
			budget = c->elapsed_s; /* what it took, spare time included */
		c->stopped = NULL;
		if (ok == 0 || n >= o->max_processes)
			c->active = 0, c->stopped = !ok ? NULL : done ? "decided" : "max_processes";
		else if (!fixed && over && n >= 6 && n >= o->floor_processes)
			/* 6: the fewest whose interval covers 95 %.  Said in the
			 * log: a cell the budget stopped undecided is shown as
			 * such, with what to give (merge.c's note). */
			c->active = 0, c->stopped = done ? "decided" : "budget", c->stop_budget_s = budget;
		else if (n < o->min_processes || (c->again && n < c->again_from + 6))
			c->active = 1; /* measured again: six more processes at least */
		else
			c->active = !done, c->stopped = done ? "decided" : NULL;
	}
	/* A reference cell is measured while a cell paired with it is: its
	 * processes are the other half of every pair. */
	for (size_t ci = 0; o->vs && ci < s->ncells; ci++) {
		cstate *c = &s->cells[ci], *ref = reference_of(s, c);
		if (c->active && ref && !ref->active && ref->ntrials < o->max_processes)
			for (size_t i = 0; i < s->n; i++)
				if (measurable(&s->vs[i]) && !ref->v[i].status && !c->v[i].status)
					ref->active = 1;
	}
}

/* The machine's usual state over every process and cell so far: the 90th
 * percentile of the bandwidth probes, the 10th of the compute probes and of
 * the runnable tasks (of each before/after pair the better: the higher
 * bandwidth, the shorter step, the fewer tasks), as verdict.c takes it from
 * the logs. */
static double better(const double pair[2], int dir)
{
	double x = dir < 0 ? fmax(pair[0], pair[1]) : fmin(pair[0], pair[1]);
	return x > 0 ? x : NAN;
}

static void usual_state(const session *s, bv_usual *u)
{
	size_t cap = 0, n = 0;
	for (size_t c = 0; c < s->ncells; c++)
		cap += (size_t)s->cells[c].ntrials * s->n;
	double *g = bv_xcalloc(cap + 1, sizeof(double)), *k = bv_xcalloc(cap + 1, sizeof(double)), *r = bv_xcalloc(cap + 1, sizeof(double));
	for (size_t c = 0; c < s->ncells; c++)
		for (size_t i = 0; i < s->n; i++)
			for (int t = 0; t < s->cells[c].ntrials; t++, n++) {
				const pstate *p = &s->cells[c].v[i].state[t];
				g[n] = better(p->gbps, -1), k[n] = better(p->compute_ns, +1), r[n] = better(p->running, +1);
			}
	u->gbps = bv_quantile(g, n, 0.9);
	u->compute_ns = bv_quantile(k, n, 0.1);
	u->running = bv_quantile(r, n, 0.1);
	free(g), free(k), free(r);
}

/* Would the cell's verdict rest on too few processes at the machine's usual
 * state, its ratio having followed the state (verdict.c)?  Such a cell is
 * measured again once every other cell is done: later in the run the
 * machine is often back to its usual state. */
static int follows_state(const session *s, const cstate *c, const bv_usual *u)
{
	int any = 0;
	size_t cap = (size_t)c->ntrials + 1;
	for (size_t i = 1; i < s->n && !any; i++) {
		const vstate *v = &c->v[i];
		bv_change ch;
		memset(&ch, 0, sizeof(ch));
		double *r = bv_xcalloc(cap, sizeof(double)), *g = bv_xcalloc(cap, sizeof(double)), *k = bv_xcalloc(cap, sizeof(double)),
		       *n = bv_xcalloc(cap, sizeof(double));
		for (int t = 0; t < c->ntrials; t++)
			if (isfinite(v->ratio[t])) {
				const pstate *p = &v->state[t];
				r[ch.nproc] = v->ratio[t];
				g[ch.nproc] = better(p->gbps, -1);
				k[ch.nproc] = better(p->compute_ns, +1);
				n[ch.nproc] = better(p->running, +1);
				ch.nproc++;
			}
		ch.proc_ratio = r, ch.proc_gbps = g, ch.proc_compute_ns = k, ch.proc_running = n;
		any = ch.nproc && bv_change_state_split(&ch, s->o->threshold, u) && ch.unstable;
		free(r), free(g), free(k), free(n);
	}
	return any;
}

/* At the end of the run: the cells whose ratio followed the machine's state
 * get a second budget, and the processes left up to --max-processes (at
 * least 6), once.  Returns how many. */
static size_t measure_again(session *s)
{
	bv_usual u;
	usual_state(s, &u);
	size_t n = 0;
	for (size_t ci = 0; ci < s->ncells; ci++) {
		cstate *c = &s->cells[ci];
		if (c->again || c->prior || c->ntrials + 6 > s->o->max_processes)
			continue;
		if (follows_state(s, c, &u)) {
			c->again = 1, c->again_from = c->ntrials, c->active = 1, c->elapsed_s = 0;
			n++;
		}
	}
	return n;
}

/* A calibration below what this run's own bandwidth probes reached (their
 * usual level, far more than one copy's noise above it) was taken when the
 * machine was slower: measured again now, so that this run's --units
 * rate|peak and later runs' rest on figures the machine can reach. */
static int check_calibration(session *s)
{
	bv_usual u;
	double copy;
	usual_state(s, &u);
	if (bv_json_num(s->calib, "copy_gbps", &copy) || !(u.gbps > BV_CALIBRATION_PROBE_FACTOR * copy))
		return 0;
	char why[160];
	snprintf(why, sizeof(why), "this run's bandwidth probes reached %.1f GB/s, above the stored copy bandwidth %.1f",
		 u.gbps, copy);
	cJSON *fresh = NULL;
	int rc = bv_machine_calibration(1, why, &fresh);
	if (rc == BV_EINTR)
		return rc;
	if (rc) {
		/* Every cell is measured by now: a calibration that cannot be
		 * re-taken (a full cache disk, a crashed child) must not turn the
		 * run into a failed one.  Only --units rate|peak read it. */
		fprintf(stderr, "bench-versions: warning: %s; could not re-measure the machine's calibration (%s): "
				"the logs keep the stored one\n", why, bv_error_last());
		return 0;
	}
	cJSON_Delete(s->calib);
	s->calib = fresh;
	if (s->machine)
		cJSON_ReplaceItemInObject(s->machine, "calibration", cJSON_Duplicate(fresh, 1));
	return 0;
}

static size_t count_active(const session *s)
{
	size_t k = 0;
	for (size_t c = 0; c < s->ncells; c++)
		k += s->cells[c].active;
	return k;
}

/* ---- one trial -------------------------------------------------------- */

static uint64_t shuffle_state;

static int trial(session *s)
{
	size_t which[64], nw = 0;
	for (size_t i = 0; i < s->n && nw < 64; i++)
		if (measurable(&s->vs[i]))
			which[nw++] = i;
	/* --layouts: one of each version's code layouts, at random, so
	 * placement varies between trials like the machine's level does and
	 * the median over processes is over layouts too.  Drawn once per
	 * trial: a trial's host and cuda processes load the same layout, the
	 * one close_trial records. */
	for (size_t k = 0; k < nw; k++) {
		int layout = 0;
		if (s->o->layouts > 1) {
			s->layout_rng = s->layout_rng * 6364136223846793005ull + 1442695040888963407ull;
			layout = (int)((s->layout_rng >> 33) % (uint64_t)s->o->layouts);
		}
		s->layout[which[k]] = layout;
	}
	/* The cuda cells run in processes of their own, which load the full
	 * plugins; the host cells in processes that load the host-only ones.
	 * Once the cuda cells have settled (on a machine without a GPU: the
	 * first trial says skipped), a trial starts the host process only. */
	int kinds[2] = {0, 0};
	for (size_t c = 0; c < s->ncells; c++)
		if (s->cells[c].active)
			kinds[device_backend(s->cells[c].backend)] = 1;
	/* A process of a kind that a cell's code killed (run_process gave no
	 * document) leaves this trial open for every cell of that kind: what
	 * it measured before is lost, what it did not reach was not checked,
	 * and the next trial measures both again. */
	int rc = 0, killed[2] = {0, 0};
	for (int device = 1; device >= 0 && rc == 0; device--) {
		if (!kinds[device])
			continue;
		if (!s->o->isolated) {
			cJSON *doc = NULL;
			rc = run_process(s, which, nw, device, &doc);
			if (rc == 0 && doc)
				rc = absorb(s, doc, "runner");
			killed[device] |= rc == 0 && !doc;
			cJSON_Delete(doc);
			continue;
		}
		/* One process per version, in a fresh random order each time. */
		for (size_t i = nw - 1; i > 0; i--) {
			shuffle_state = shuffle_state * 6364136223846793005ull + 1442695040888963407ull;
			size_t j = (size_t)(shuffle_state >> 33) % (i + 1), t = which[i];
			which[i] = which[j], which[j] = t;
		}
		for (size_t k = 0; k < nw && rc == 0; k++) {
			cJSON *doc = NULL;
			rc = run_process(s, &which[k], 1, device, &doc);
			if (rc == 0 && doc)
				rc = absorb(s, doc, "runner");
			killed[device] |= rc == 0 && !doc;
			cJSON_Delete(doc);
		}
	}
	for (size_t c = 0; c < s->ncells && rc == 0; c++)
		if (s->cells[c].active && !killed[device_backend(s->cells[c].backend)])
			close_trial(s, &s->cells[c]);
	return rc;
}

/* ---- the logs --------------------------------------------------------- */

static void add_interval(cJSON *o, const char *prefix, const bv_interval *iv)
{
	char key[64];
	snprintf(key, sizeof(key), "%s", prefix);
	cJSON_AddNumberToObject(o, key, iv->est);
	snprintf(key, sizeof(key), "%s_ci_low", prefix);
	cJSON_AddNumberToObject(o, key, iv->lo);
	snprintf(key, sizeof(key), "%s_ci_high", prefix);
	cJSON_AddNumberToObject(o, key, iv->hi);
}

static const bv_cell *find_cell(const bv_cell *all, long n, long index)
{
	return index >= 0 && index < n ? &all[index] : NULL;
}

/* The layout part of a change block: each process's pair of layouts
 * (baseline, this version), aligned with process_ratios, and the spread of
 * the ratio across layouts: the medians of the processes grouped by this
 * version's layout and by the baseline's (groups of two or more), lowest and
 * highest.  A change inside that spread is what placement alone does. */
static void add_layouts(cJSON *ch, const cstate *c, size_t i, int layouts)
{
	const vstate *v = &c->v[i], *b = &c->v[0];
	cJSON_AddNumberToObject(ch, "layouts", layouts);
	cJSON *pl = cJSON_AddArrayToObject(ch, "process_layouts");
	double *g = bv_xcalloc((size_t)c->ntrials + 1, sizeof(double));
	double lo = INFINITY, hi = -INFINITY;
	for (int t = 0; t < c->ntrials; t++)
		if (isfinite(v->ratio[t])) {
			int pair[2] = {b->layout[t], v->layout[t]};
			cJSON_AddItemToArray(pl, cJSON_CreateIntArray(pair, 2));
		}
	for (int side = 0; side < 2; side++)
		for (int k = 0; k < layouts; k++) {
			size_t n = 0;
			for (int t = 0; t < c->ntrials; t++)
				if (isfinite(v->ratio[t]) && (side ? v : b)->layout[t] == k)
					g[n++] = v->ratio[t];
			if (n < 2)
				continue;
			double m = bv_median(g, n);
			lo = fmin(lo, m), hi = fmax(hi, m);
		}
	if (lo <= hi) {
		double spread[2] = {lo, hi};
		cJSON_AddItemToObject(ch, "layout_spread", cJSON_CreateDoubleArray(spread, 2));
	}
	free(g);
}

/* One version's entry for one cell. */
static cJSON *summarise_cell(session *s, const cstate *c, const bv_cell *def, size_t i, const cJSON *calib)
{
	if (c->prior && c->prior[i])
		return cJSON_Duplicate(c->prior[i], 1);
	const vstate *v = &c->v[i];
	cJSON *out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "bench", c->bench);
	cJSON_AddStringToObject(out, "op", c->op);
	cJSON_AddStringToObject(out, "backend", c->backend);
	cJSON_AddNumberToObject(out, "size", (double)c->size);
	char shape[32];
	cJSON_AddStringToObject(out, "shape", bv_size_format(c->size, shape, sizeof(shape)));
	double bytes = def ? bv_cell_bytes(def) : 0, flops = def ? bv_cell_flops(def) : 0;
	/* a cell the op's definition gives no work (a suite's) has its setup's */
	if (!(bytes > 0) && !(flops > 0))
		bytes = v->work[0], flops = v->work[1];
	cJSON *work = cJSON_AddObjectToObject(out, "work");
	cJSON_AddNumberToObject(work, "bytes", bytes);
	cJSON_AddNumberToObject(work, "flops", flops);
	if (v->work[2] > 0)
		cJSON_AddNumberToObject(work, "items", v->work[2]);
	cJSON *mem = cJSON_AddObjectToObject(out, "footprint");
	cJSON_AddNumberToObject(mem, "host_bytes", v->host_bytes);
	cJSON_AddNumberToObject(mem, "device_bytes", v->device_bytes);
	if (isnan(v->lib_host))
		cJSON_AddNullToObject(mem, "library_host_bytes");
	else
		cJSON_AddNumberToObject(mem, "library_host_bytes", v->lib_host);
	if (isnan(v->lib_device))
		cJSON_AddNullToObject(mem, "library_device_bytes");
	else
		cJSON_AddNumberToObject(mem, "library_device_bytes", v->lib_device);

	if (c->active) {
		cJSON_AddStringToObject(out, "status", bv_status_name(BV_ST_UNFINISHED));
		cJSON_AddStringToObject(out, "reason", "the run stopped before this cell was finished");
		return out;
	}
	size_t nt = (size_t)c->ntrials;
	double *meds = bv_xcalloc(nt + 1, sizeof(double));
	size_t nm = finite_of(v->med, c->ntrials, meds);
	bv_status status = v->status ? v->status : nm ? BV_ST_OK : BV_ST_FAILED;
	cJSON_AddStringToObject(out, "status", bv_status_name(status));
	if (v->reason)
		cJSON_AddStringToObject(out, "reason", v->reason);
	else if (!v->status && !nm)
		cJSON_AddStringToObject(out, "reason", "no samples");
	if (status != BV_ST_OK) {
		free(meds);
		return out;
	}
	size_t total = 0;
	cJSON *raw = cJSON_CreateArray();
	for (size_t t = 0; t < nt; t++) {
		total += v->nsamples[t];
		if (v->nsamples[t])
			cJSON_AddItemToArray(raw, cJSON_CreateDoubleArray(v->samples[t], (int)v->nsamples[t]));
	}
	cJSON_AddNumberToObject(out, "calls_per_sample", c->reps);
	if (c->input_sets > 1) /* --inputs: the sets this cell's calls cycled through */
		cJSON_AddNumberToObject(out, "input_sets", c->input_sets);
	cJSON_AddNumberToObject(out, "processes", (double)nm);
	cJSON_AddNumberToObject(out, "samples", (double)total);
	cJSON_AddNumberToObject(out, "measure_s", c->elapsed_s);
	if (c->stopped) {
		cJSON *st = cJSON_AddObjectToObject(out, "stopped");
		cJSON_AddStringToObject(st, "by", c->stopped);
		if (!strcmp(c->stopped, "budget"))
			cJSON_AddNumberToObject(st, "budget_s", c->stop_budget_s);
	}
	bv_interval iv;
	bv_median_interval(meds, nm, 0.95, &iv);
	add_interval(out, "median_ns", &iv);
	if (iv.est > 0) {
		double gbps = bytes / iv.est, gflops = flops / iv.est, peak;
		cJSON_AddNumberToObject(out, "gbps", gbps);
		cJSON_AddNumberToObject(out, "gflops", gflops);
		if (!bv_json_num(calib, "copy_gbps", &peak) && peak > 0)
			cJSON_AddNumberToObject(out, "pct_copy_bandwidth", 100 * gbps / peak);
		if (!bv_json_num(calib, "peak_gflops", &peak) && peak > 0)
			cJSON_AddNumberToObject(out, "pct_peak_flops", 100 * gflops / peak);
	}
	cJSON_AddItemToObject(out, "process_medians_ns", cJSON_CreateDoubleArray(meds, (int)nm));
	/* Which process each of those medians came from, so that two cells of
	 * one version are paired by process (the backend view, backends.c). */
	cJSON *ids = cJSON_CreateArray();
	for (size_t t = 0; t < nt; t++)
		if (isfinite(v->med[t]))
			cJSON_AddItemToArray(ids, cJSON_CreateNumber(v->proc[t]));
	cJSON_AddItemToObject(out, "process_ids", ids);
	cJSON_AddItemToObject(out, "samples_ns", raw);
	cJSON *pre = cJSON_AddObjectToObject(out, "preempted");
	cJSON_AddNumberToObject(pre, "retaken", v->retaken);
	cJSON_AddNumberToObject(pre, "kept", v->kept);
	free(meds);

	const vstate *b = &c->v[0];
	double *r = bv_xcalloc(nt + 1, sizeof(double));
	size_t nr = i > 0 && !b->status ? finite_of(v->ratio, c->ntrials, r) : 0;
	if (nr > 0) {
		bv_interval ri;
		bv_median_interval(r, nr, 0.95, &ri);
		cJSON *ch = cJSON_AddObjectToObject(out, "change");
		cJSON_AddStringToObject(ch, "baseline", s->vs[0].label);
		cJSON_AddStringToObject(ch, "mode", s->o->isolated ? "isolated" : "paired");
		add_interval(ch, "ratio", &ri);
		cJSON_AddNumberToObject(ch, "coverage", ri.coverage);
		cJSON_AddNumberToObject(ch, "processes", (double)nr);
		cJSON_AddItemToObject(ch, "process_ratios", cJSON_CreateDoubleArray(r, (int)nr));
		if (s->o->layouts > 1)
			add_layouts(ch, c, i, s->o->layouts);
		/* One-to-one with process_ratios: the same trials, in order. */
		cJSON *states = cJSON_AddArrayToObject(ch, "process_state");
		for (size_t t = 0; t < nt; t++)
			if (isfinite(v->ratio[t]))
				cJSON_AddItemToArray(states, state_json(&v->state[t]));
	}
	free(r);
	return out;
}

static void timestamp(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static cJSON *method_block(const session *s)
{
	const bv_measure_opts *o = s->o;
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "mode", o->isolated ? "isolated" : "paired");
	cJSON_AddNumberToObject(m, "min_processes", o->min_processes);
	cJSON_AddNumberToObject(m, "max_processes", o->max_processes);
	cJSON_AddNumberToObject(m, "processes_started", s->processes);
	cJSON_AddNumberToObject(m, "budget_s", o->budget_s);
	cJSON_AddNumberToObject(m, "rounds", o->rounds);
	cJSON_AddNumberToObject(m, "sample_us", o->sample_us);
	cJSON_AddNumberToObject(m, "timeout_s", o->timeout_s);
	cJSON_AddNumberToObject(m, "threshold", o->threshold);
	cJSON_AddNumberToObject(m, "seed", (double)o->seed);
	cJSON_AddNumberToObject(m, "threads", o->threads);
	cJSON_AddNumberToObject(m, "inputs", o->inputs > 1 ? o->inputs : 1);
	if (o->simd_isa)
		cJSON_AddStringToObject(m, "simd_isa_forced", o->simd_isa);
	else
		cJSON_AddNullToObject(m, "simd_isa_forced");
	if (o->pin >= 0)
		cJSON_AddNumberToObject(m, "pinned_cpu", o->pin);
	else
		cJSON_AddNullToObject(m, "pinned_cpu");
	cJSON_AddNumberToObject(m, "confidence", 0.95);
	cJSON_AddStringToObject(m, "interval", "order-statistic interval of the median over processes");
	cJSON_AddBoolToObject(m, "quick", o->quick);
	cJSON_AddNumberToObject(m, "layouts", o->layouts > 1 ? o->layouts : 1);
	if (o->memory_limit)
		cJSON_AddNumberToObject(m, "memory_limit_bytes", (double)o->memory_limit);
	else
		cJSON_AddNullToObject(m, "memory_limit_bytes");
	return m;
}

static void session_free(session *s)
{
	if (s->probe_fd >= 0)
		close(s->probe_fd);
	s->probe_fd = -1;
	for (size_t c = 0; c < s->ncells; c++) {
		cstate *cs = &s->cells[c];
		for (size_t i = 0; i < s->n; i++) {
			vstate *v = &cs->v[i];
			for (int t = 0; t < s->max_trials; t++)
				free(v->samples[t]);
			free(v->samples), free(v->nsamples), free(v->med), free(v->ratio), free(v->layout), free(v->state), free(v->proc);
			free(v->reason);
		}
		for (size_t i = 0; cs->prior && i < s->n; i++)
			cJSON_Delete(cs->prior[i]);
		free(cs->prior);
		free(cs->v), free(cs->bench), free(cs->op), free(cs->backend);
	}
	free(s->cells);
	free(s->layout);
	for (size_t i = 0; s->simd_isa && i < s->n; i++)
		free(s->simd_isa[i]);
	free(s->simd_isa);
	free(s->raw);
	free(s->created);
	cJSON_Delete(s->resumed);
	cJSON_Delete(s->machine);
	cJSON_Delete(s->calib);
	cJSON_Delete(s->plan);
}

static size_t count_finished(const session *s)
{
	size_t k = 0;
	for (size_t c = 0; c < s->ncells; c++)
		k += !s->cells[c].active;
	return k;
}

static char *log_path(const char *dir, const bv_version *v) { return bv_asprintf("%s/%s.json", dir, v->label); }

/* Every version's log as the run stands; status: running, complete,
 * interrupted or failed. */
static int write_logs(session *s, const char *status, char **paths)
{
	const char *slash = strrchr(s->dir, '/');
	const char *run_id = slash ? slash + 1 : s->dir;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < s->n; i++) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "schema", BV_RESULTS_SCHEMA);
		cJSON_AddStringToObject(doc, "schema_version", BV_RESULTS_VERSION);
		cJSON *run = cJSON_AddObjectToObject(doc, "run");
		cJSON_AddStringToObject(run, "id", run_id);
		cJSON_AddStringToObject(run, "created", s->created);
		cJSON_AddStringToObject(run, "status", status);
		cJSON_AddItemToObject(run, "resumed", cJSON_Duplicate(s->resumed, 1));
		cJSON_AddStringToObject(run, "baseline", s->vs[0].label);
		cJSON *labels = cJSON_AddArrayToObject(run, "versions");
		for (size_t k = 0; k < s->n; k++)
			cJSON_AddItemToArray(labels, cJSON_CreateString(s->vs[k].label));
		cJSON_AddItemToObject(doc, "version", version_block(&s->vs[i], s->simd_isa[i]));
		cJSON_AddItemToObject(doc, "machine", cJSON_Duplicate(s->machine, 1));
		cJSON_AddItemToObject(doc, "method", method_block(s));
		if (s->plan)
			cJSON_AddItemToObject(doc, "shard", cJSON_Duplicate(s->plan, 1));
		cJSON *cells = cJSON_AddArrayToObject(doc, "cells");
		for (size_t c = 0; measurable(&s->vs[i]) && c < s->ncells; c++)
			cJSON_AddItemToArray(cells, summarise_cell(s, &s->cells[c],
								   find_cell(s->defs, s->ndefs, (long)c), i,
								   s->calib));
		char *path = log_path(s->dir, &s->vs[i]);
		rc = bv_json_save(path, doc);
		cJSON_Delete(doc);
		if (paths) {
			free(paths[i]);
			paths[i] = path;
		} else
			free(path);
	}
	return rc;
}

/* ---- resuming ---------------------------------------------------------- */

/* dir/<label>.json if it exists (*doc NULL if not), checked as every log
 * is (results.c): its cells are reused as they stand. */
static int prior_log(const char *dir, const bv_version *v, cJSON **doc)
{
	*doc = NULL;
	char *path = log_path(dir, v);
	int rc = 0;
	if (bv_exists(path) && (rc = bv_log_load(path, doc)) != 0)
		rc = bv_fail_context(BV_EINPUT, "--resume");
	free(path);
	return rc;
}

static int same_num(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)); }

/* The method fields that shape the numbers, and the options that set them. */
static const struct {
	const char *key, *option;
} method_keys[] = {
	{"min_processes", "--min-processes"}, {"max_processes", "--max-processes"}, {"budget_s", "--budget"},
	{"rounds", "--rounds"}, {"sample_us", "--sample-us"}, {"timeout_s", "--timeout"},
	{"threshold", "--threshold (as a fraction)"}, {"threads", "--threads"},
};

static int plan_differs(const char *dir, const char *what)
{
	return bv_fail(BV_EINPUT,
		       "--resume %s: %s; a run resumes only with the same versions, options and machine "
		       "(run without --resume to start afresh)",
		       dir, what);
}

/* --resume: the log compared the same versions, in the same order, and
 * this version's name resolves to the tree it measured. */
static int same_versions(const char *dir, const cJSON *doc, const bv_version *vs, size_t n, size_t i)
{
	const bv_version *v = &vs[i];
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(run, "versions");
	int same = cJSON_IsArray(labels) && (size_t)cJSON_GetArraySize(labels) == n;
	for (size_t k = 0; same && k < n; k++) {
		const cJSON *l = cJSON_GetArrayItem(labels, (int)k);
		same = cJSON_IsString(l) && !strcmp(l->valuestring, vs[k].label);
	}
	if (!same) {
		bv_buf was = BV_BUF_INIT, now = BV_BUF_INIT;
		const cJSON *l;
		cJSON_ArrayForEach(l, labels) bv_buf_printf(&was, "%s%s", was.len ? " " : "",
							    cJSON_IsString(l) ? l->valuestring : "?");
		for (size_t k = 0; k < n; k++)
			bv_buf_printf(&now, "%s%s", k ? " " : "", vs[k].label);
		char *msg = bv_asprintf("it compared %s, this command names %s", was.s ? was.s : "nothing", now.s);
		int rc = plan_differs(dir, msg);
		free(msg);
		bv_buf_free(&was), bv_buf_free(&now);
		return rc;
	}
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(doc, "version");
	const char *tree = bv_json_str(ver, "tree");
	if (!tree || strcmp(tree, v->tree)) {
		char *msg = bv_asprintf("%s resolves to %.24s now, to %.24s there (the code changed)", v->name, v->tree,
					tree ? tree : "nothing");
		int rc = plan_differs(dir, msg);
		free(msg);
		return rc;
	}
	return 0;
}

/* --resume: the log was measured with this command's method (mode,
 * processes, budget, rounds, sample, threads, inputs, ISA, layouts, shard,
 * pin, --quick). */
static int same_method(const char *dir, const cJSON *doc, const bv_measure_opts *o)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "method");
	const char *mode = bv_json_str(m, "mode");
	if (!mode || strcmp(mode, o->isolated ? "isolated" : "paired"))
		return plan_differs(dir, o->isolated ? "it was measured without --isolated" : "it was measured with --isolated");
	double now[] = {o->min_processes, o->max_processes, o->budget_s,  o->rounds,
			o->sample_us,	  o->timeout_s,	    o->threshold, o->threads};
	for (size_t k = 0; k < sizeof(method_keys) / sizeof(method_keys[0]); k++) {
		double was = NAN;
		int found = bv_json_num(m, method_keys[k].key, &was) == 0;
		if (!found || !same_num(was, now[k])) {
			/* A log from before the field existed (schema 1.0 has no
			 * threads) has no value to print. */
			char *msg = found ? bv_asprintf("%s differs: %g there, %g now", method_keys[k].option, was, now[k])
					  : bv_asprintf("%s: not recorded there, %g now", method_keys[k].option, now[k]);
			int rc = plan_differs(dir, msg);
			free(msg);
			return rc;
		}
	}
	/* --inputs (schema 1.9; an older log had one set) */
	double was_inputs = 1;
	bv_json_num(m, "inputs", &was_inputs);
	if (!same_num(was_inputs, o->inputs > 1 ? o->inputs : 1)) {
		char *msg = bv_asprintf("--inputs differs: %g there, %d now", was_inputs, o->inputs > 1 ? o->inputs : 1);
		int rc = plan_differs(dir, msg);
		free(msg);
		return rc;
	}
	const char *forced = bv_json_str(m, "simd_isa_forced"); /* NULL: not forced, or an older log */
	if ((forced != NULL) != (o->simd_isa != NULL) || (forced && strcmp(forced, o->simd_isa))) {
		char *msg = bv_asprintf("--simd-isa differs: %s there, %s now", forced ? forced : "not given",
					o->simd_isa ? o->simd_isa : "not given");
		int rc = plan_differs(dir, msg);
		free(msg);
		return rc;
	}
	double layouts = 1;
	bv_json_num(m, "layouts", &layouts);
	if ((int)layouts != (o->layouts > 1 ? o->layouts : 1)) {
		char *msg = bv_asprintf("--layouts differs: %g there, %d now", layouts, o->layouts > 1 ? o->layouts : 1);
		int rc = plan_differs(dir, msg);
		free(msg);
		return rc;
	}
	/* A shard resumes as the same shard of the same cut: another I/N
	 * would reuse cells of a slice it does not own. */
	const cJSON *shard = cJSON_GetObjectItemCaseSensitive(doc, "shard");
	double si = 0, sn = 0;
	bv_json_num(shard, "index", &si);
	bv_json_num(shard, "count", &sn);
	if ((int)si != o->shard_index || (int)sn != o->shard_count) {
		char *msg = si > 0 ? bv_asprintf("--shard differs: %g/%g there, ", si, sn) : bv_strdup("--shard differs: none there, ");
		char *full = o->shard_count ? bv_asprintf("%s%d/%d now", msg, o->shard_index, o->shard_count)
					    : bv_asprintf("%snone now", msg);
		int rc = plan_differs(dir, full);
		free(msg), free(full);
		return rc;
	}
	double pin = -1;
	bv_json_num(m, "pinned_cpu", &pin);
	if ((int)pin != o->pin)
		return plan_differs(dir, "--pin differs");
	const cJSON *quick = cJSON_GetObjectItemCaseSensitive(m, "quick");
	if (!cJSON_IsBool(quick) || cJSON_IsTrue(quick) != !!o->quick)
		return plan_differs(dir, o->quick ? "it was measured without --quick" : "it was measured with --quick");
	return 0;
}

static int check_one(const char *dir, const cJSON *doc, const bv_version *vs, size_t n, size_t i,
		     const bv_measure_opts *o, const bv_cell *defs, long ndefs, int after_build)
{
	const bv_version *v = &vs[i];
	int rc = same_versions(dir, doc, vs, n, i);
	if (rc == 0)
		rc = same_method(dir, doc, o);
	if (rc != 0)
		return rc;
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(doc, "version");
	const cJSON *cells = bv_log_cells(doc), *cell;
	long nc = cJSON_GetArraySize(cells), k = 0;
	int cells_same = ndefs < 0 || nc == 0 || nc == ndefs; /* ndefs < 0: not known yet */
	cJSON_ArrayForEach(cell, cells)
	{
		bv_log_cell c;
		if (!cells_same || ndefs < 0 || nc == 0 || k >= ndefs || bv_log_cell_read(cell, &c))
			break;
		cells_same = !strcmp(c.bench, defs[k].bench->name) && !strcmp(c.op, defs[k].op->name) &&
			     !strcmp(c.backend, defs[k].backend) && c.size == defs[k].size;
		k++;
	}
	if (!cells_same) {
		char *msg = bv_asprintf("its cells differ from this command's (--benches, --ops, --backends, --sizes, --filter): "
					"%ld there, %ld now",
					nc, ndefs);
		rc = plan_differs(dir, msg);
		free(msg);
		return rc;
	}
	if (!after_build)
		return 0;
	const cJSON *build = cJSON_GetObjectItemCaseSensitive(ver, "build");
	const char *key = bv_json_str(build, "key");
	if (key && v->build_key && strcmp(key, v->build_key)) {
		char *msg = bv_asprintf("%s's build differs (the harness, its compat rules or the compiler changed)",
					v->name);
		rc = plan_differs(dir, msg);
		free(msg);
		return rc;
	}
	const char *bstatus = bv_json_str(build, "status");
	int built = bv_status_parse(bstatus) == BV_ST_OK;
	if (bstatus && built != !!measurable(v)) {
		char *msg = bv_asprintf("%s %s there but %s now", v->name,
					built ? "built" : "failed to build",
					measurable(v) ? "builds" : "does not build");
		rc = plan_differs(dir, msg);
		free(msg);
		return rc;
	}
	cJSON *here = bv_machine_info();
	const cJSON *there = cJSON_GetObjectItemCaseSensitive(doc, "machine");
	const char *h1 = bv_json_str(here, "hostname"), *h2 = bv_json_str(there, "hostname");
	const char *c1 = bv_json_str(here, "cpu"), *c2 = bv_json_str(there, "cpu");
	if (!h1 || !h2 || strcmp(h1, h2) || !c1 || !c2 || strcmp(c1, c2)) {
		char *msg = bv_asprintf("it was measured on another machine (%s, %s)", h2 ? h2 : "?", c2 ? c2 : "?");
		rc = plan_differs(dir, msg);
		free(msg);
	}
	cJSON_Delete(here);
	return rc;
}

int bv_gpu_visible(void)
{
	return bv_exists("/dev/nvidia0") || bv_exists("/proc/driver/nvidia/gpus");
}

/* Runner processes one run may number (raw/process-N.json, processes_started):
 * far more than a run starts (--max-processes is at most 1000 per cell), far
 * below INT_MAX, so that numbering on from a resumed directory cannot
 * overflow.  A planted process-2147483647.json did: the resume wrote
 * process--2147483648.json and logs it then refused itself. */
#define BV_PROCESSES_MAX 100000000

/* N of raw/process-N.json as run_process names it (digits without a leading
 * zero): 1 and *k (past BV_PROCESSES_MAX when too long to parse); 0 for any
 * other name, which is not a runner's document. */
static int process_number(const char *name, long *k)
{
	const char *d = name + strlen("process-");
	size_t len = strspn(d, "0123456789");
	if (strncmp(name, "process-", strlen("process-")) || len == 0 || d[0] == '0' || strcmp(d + len, ".json"))
		return 0;
	*k = len > 9 ? BV_PROCESSES_MAX + 1L : strtol(d, NULL, 10);
	return 1;
}

/* The highest N of raw/process-N.json into *last: a run killed between two
 * log writes started more processes than its logs say, and their files stay.
 * An N past BV_PROCESSES_MAX no runner wrote: refused, naming the file. */
static int last_process(const char *raw, int *last)
{
	*last = 0;
	int rc = 0;
	DIR *d = opendir(raw);
	struct dirent *e;
	while (rc == 0 && d && (e = readdir(d))) {
		long k = 0;
		if (!process_number(e->d_name, &k))
			continue;
		if (k > BV_PROCESSES_MAX)
			rc = bv_fail(BV_EINPUT,
				     "--resume: %s/%s: process number past %d, more than a run starts: not a runner's "
				     "document (move it out of the run's directory to resume)",
				     raw, e->d_name, BV_PROCESSES_MAX);
		else if (k > *last)
			*last = (int)k;
	}
	if (d)
		closedir(d);
	return rc;
}

/* What a resume writes into and numbers on from: raw/ a directory of the
 * run's own (a link there carried 25 documents out of the run), the process
 * numbers of its files in range. */
static int check_raw(const char *dir)
{
	char *raw = bv_asprintf("%s/raw", dir);
	int last = 0, rc = bv_exists(raw) ? bv_mkdir_inside(dir, "raw") : 0;
	if (rc == 0)
		rc = last_process(raw, &last);
	free(raw);
	return rc;
}

/* A log's processes_started, numbered on from: in range, or the log refused
 * (a cast of 1e300 to int is undefined). */
static int check_started(const char *dir, const bv_version *v, const cJSON *doc)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "method"),
							  "processes_started");
	if (!p || (cJSON_IsNumber(p) && p->valuedouble >= 0 && p->valuedouble <= BV_PROCESSES_MAX &&
		   p->valuedouble == floor(p->valuedouble)))
		return 0;
	char *path = log_path(dir, v);
	int rc = bv_fail(BV_EINPUT, "--resume: %s: method.processes_started: expected a whole number from 0 to %d", path,
			 BV_PROCESSES_MAX);
	free(path);
	return rc;
}

int bv_resume_check(const char *dir, const bv_version *vs, size_t n, bv_measure_opts *o, int after_build)
{
	bv_cell *defs = NULL;
	char err[256];
	long ndefs = -1;
	if (after_build == BV_RESUME_CELLS_UNKNOWN)
		after_build = 0;
	else if ((ndefs = bv_plan_cells(o, &defs, NULL, err, sizeof(err))) < 0)
		return bv_fail(BV_EINPUT, "%s", err);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		cJSON *doc = NULL;
		rc = prior_log(dir, &vs[i], &doc);
		if (rc == 0 && doc) {
			rc = check_one(dir, doc, vs, n, i, o, defs, ndefs, after_build);
			if (rc == 0)
				rc = check_started(dir, &vs[i], doc);
			double seed;
			/* The random orders go on from the same seed: a whole number
			 * a seed can be (a negative, huge or fractional one would be
			 * cast with undefined behaviour), else the log is refused. */
			if (rc == 0 && !bv_json_num(cJSON_GetObjectItemCaseSensitive(doc, "method"), "seed", &seed)) {
				if (!(seed >= 0 && seed < 18446744073709551616.0 && seed == floor(seed))) {
					char *path = log_path(dir, &vs[i]);
					rc = bv_fail(BV_EINPUT, "--resume: %s: method.seed: expected a whole number from 0 to "
								"18446744073709551615", path);
					free(path);
				} else
					o->seed = (unsigned long long)seed;
			}
		}
		cJSON_Delete(doc);
	}
	if (rc == 0)
		rc = check_raw(dir);
	free(defs);
	return rc;
}

/* Takes over the cells every measurable version's log has finished. */
static int resume_from(session *s)
{
	cJSON **docs = bv_xcalloc(s->n, sizeof(cJSON *));
	int rc = 0, any = 0;
	double started = 0;
	for (size_t i = 0; rc == 0 && i < s->n; i++) {
		rc = prior_log(s->dir, &s->vs[i], &docs[i]);
		if (rc == 0 && docs[i]) {
			any = 1;
			const cJSON *run = cJSON_GetObjectItemCaseSensitive(docs[i], "run");
			const char *created = bv_json_str(run, "created");
			if (created && !s->created[0]) {
				free(s->created);
				s->created = bv_strdup(created);
			}
			const cJSON *resumed = cJSON_GetObjectItemCaseSensitive(run, "resumed");
			if (cJSON_IsArray(resumed) && cJSON_GetArraySize(s->resumed) < cJSON_GetArraySize(resumed)) {
				cJSON_Delete(s->resumed);
				s->resumed = cJSON_Duplicate(resumed, 1);
			}
			double p;
			if (!bv_json_num(cJSON_GetObjectItemCaseSensitive(docs[i], "method"), "processes_started", &p) &&
			    p > started)
				started = p;
		}
	}
	size_t reused = 0;
	for (size_t c = 0; rc == 0 && any && c < s->ncells; c++) {
		cstate *cs = &s->cells[c];
		int all = 1, none = 1;
		for (size_t i = 0; all && i < s->n; i++) {
			if (!measurable(&s->vs[i]))
				continue;
			none = 0;
			const cJSON *cell = docs[i] ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(docs[i], "cells"),
									 (int)c)
						    : NULL;
			const char *st = bv_json_str(cell, "status");
			all = st && bv_status_parse(st) != BV_ST_UNFINISHED;
		}
		if (!all || none)
			continue;
		cs->prior = bv_xcalloc(s->n, sizeof(cJSON *));
		for (size_t i = 0; i < s->n; i++)
			if (measurable(&s->vs[i]))
				cs->prior[i] = cJSON_Duplicate(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(docs[i], "cells"),
										  (int)c),
							       1);
		cs->active = 0;
		reused++;
	}
	/* Both checked by bv_resume_check: in range, no sum can overflow. */
	int last = 0;
	if (rc == 0)
		rc = last_process(s->raw, &last);
	s->processes = last > (int)started ? last : (int)started;
	if (rc == 0)
		fprintf(stderr, "resume: %s: %zu of %zu %s reused (finished in %d earlier %s), %zu to measure\n", s->dir,
			reused, s->ncells, bv_plural((long long)s->ncells, "cell", "cells"), s->processes,
			bv_plural(s->processes, "process", "processes"), s->ncells - reused);
	for (size_t i = 0; i < s->n; i++)
		cJSON_Delete(docs[i]);
	free(docs);
	s->nwritten = reused;
	return rc;
}

int bv_measure(const bv_version *vs, size_t n, const bv_measure_opts *o, const char *results_dir, char ***logs)
{
	*logs = NULL;
	session s = {.vs = vs, .n = n, .o = o, .max_trials = o->max_processes,
		     .raw = bv_asprintf("%s/raw", results_dir), .dir = results_dir, .probe_fd = -1};
	s.created = bv_strdup("");
	s.resumed = cJSON_CreateArray();
	s.layout = bv_xcalloc(n + 1, sizeof(int));
	s.simd_isa = bv_xcalloc(n + 1, sizeof(char *));
	s.layout_rng = o->seed ^ 0xd1b54a32d192ed03ull;
	/* One memory file for every runner's bandwidth probe (trust.h): its
	 * pages are made once, not in each process's start.  Without it each
	 * runner makes its own, as before. */
	s.probe_fd = memfd_create("bench-versions-probe", MFD_CLOEXEC);
	if (s.probe_fd >= 0 && s.probe_fd < 3) {
		/* started with stdin or stdout closed: the runner's 0-2 are its own */
		int high = fcntl(s.probe_fd, F_DUPFD_CLOEXEC, 3);
		close(s.probe_fd);
		s.probe_fd = high;
	}
	if (s.probe_fd >= 0 && ftruncate(s.probe_fd, (off_t)bv_probe_file_bytes()) != 0) {
		close(s.probe_fd);
		s.probe_fd = -1;
	}
	shuffle_state = o->seed ^ 0x9e3779b97f4a7c15ull;
	bv_cell *defs = NULL;
	char err[256];
	long *pos = NULL;
	long ndefs = bv_plan_cells(o, &defs, &pos, err, sizeof(err));
	if (ndefs < 0) {
		session_free(&s);
		return bv_fail(BV_EINPUT, "%s", err);
	}
	s.defs = defs, s.ndefs = ndefs;
	s.cells = bv_xcalloc((size_t)ndefs + 1, sizeof(cstate));
	s.ncells = (size_t)ndefs;
	for (long k = 0; k < ndefs; k++) {
		cstate *c = &s.cells[k];
		/* The runner's index; the logs list the planned cells in order. */
		c->index = pos[k];
		c->bench = bv_strdup(defs[k].bench->name), c->op = bv_strdup(defs[k].op->name);
		c->backend = bv_strdup(defs[k].backend), c->size = defs[k].size;
		c->active = 1;
		c->v = bv_xcalloc(n, sizeof(vstate));
		for (size_t i = 0; i < n; i++) {
			vstate *v = &c->v[i];
			v->lib_host = v->lib_device = NAN;
			v->samples = bv_xcalloc((size_t)s.max_trials, sizeof(double *));
			v->nsamples = bv_xcalloc((size_t)s.max_trials, sizeof(size_t));
			v->med = bv_xcalloc((size_t)s.max_trials, sizeof(double));
			v->ratio = bv_xcalloc((size_t)s.max_trials, sizeof(double));
			v->layout = bv_xcalloc((size_t)s.max_trials, sizeof(int));
			v->state = bv_xcalloc((size_t)s.max_trials, sizeof(pstate));
			v->proc = bv_xcalloc((size_t)s.max_trials, sizeof(int));
		}
	}
	free(pos);
	find_references(&s);
	if (o->shard_count > 0) {
		int prc = bv_plan_block(vs, n, o, o->shard_index, o->shard_count, &s.plan);
		if (prc) {
			session_free(&s);
			free(defs);
			return prc;
		}
		s.plan_cells = (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s.plan, "cells"));
	}

	char now[32];
	timestamp(now, sizeof(now));
	/* raw/ is the run's own: a link would carry the runners' documents
	 * elsewhere (a resumed directory's raw/ is checked before building). */
	int rc = bv_mkdir_p(results_dir);
	if (rc == 0)
		rc = bv_mkdir_inside(results_dir, "raw");
	/* Logs another plan wrote are never overwritten. */
	int ours = !o->resume;
	if (rc == 0 && o->resume) {
		bv_measure_opts check = *o;
		rc = bv_resume_check(results_dir, vs, n, &check, 1);
		if (rc == 0)
			rc = resume_from(&s);
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
		built += measurable(&vs[i]);
	for (size_t i = 0; rc == 0 && o->layouts > 1 && i < n; i++)
		rc = bv_build_layouts(&vs[i], o->layouts);
	if (rc == 0 && built > 0 && count_active(&s) > 0)
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
	for (int t = 0; rc == 0 && built > 0 && count_active(&s) > 0; t++) {
		if (bv_interrupted()) {
			rc = bv_fail_interrupted();
			break;
		}
		char cur[128];
		snprintf(cur, sizeof(cur), "process %d%s, %zu of %zu cells still sampling", s.processes + 1,
			 o->isolated ? " (one per version)" : "", count_active(&s), s.ncells);
		if (pg)
			bv_progress_set(pg, s.ncells - count_active(&s), s.ncells, cur);
		else
			fprintf(stderr, "measure: %s (%lds)\n", cur, (long)(time(NULL) - start));
		rc = trial(&s);
		if (rc == 0)
			update_active(&s);
		size_t again = rc == 0 && count_active(&s) == 0 && !o->isolated ? measure_again(&s) : 0;
		if (again)
			fprintf(stderr, "measure: %zu cell%s followed the machine's state (another job took its memory "
					"bandwidth or cores for a while): measuring %s again now\n",
				again, again == 1 ? "'s ratio" : "s' ratios", again == 1 ? "it" : "them");
		/* Whenever a cell finishes, the logs say so: a run killed now
		 * keeps it. */
		if (rc == 0 && count_finished(&s) > s.nwritten && count_active(&s) > 0) {
			rc = write_logs(&s, "running", NULL);
			s.nwritten = count_finished(&s);
		}
	}
	if (pg)
		bv_progress_end(pg);
	if (rc == 0 && s.calib)
		rc = check_calibration(&s);

	char **paths = bv_xcalloc(n, sizeof(char *));
	const char *status = rc == 0 ? "complete" : rc == BV_EINTR ? "interrupted" : "failed";
	if (rc == 0) {
		rc = write_logs(&s, status, paths);
		if (rc) {
			/* The logs are one run: when one cannot be written (a full
			 * disk), none may say `complete` (a sibling written first
			 * would); they say `failed`, best effort, and the first
			 * error is the one reported. */
			char *first = bv_strdup(bv_error_last());
			write_logs(&s, "failed", NULL);
			bv_fail(rc, "%s", first);
			free(first);
		}
	} else {
		/* What finished stays in the logs (for --resume); the first error
		 * is the one reported, even when these writes fail too. */
		char *first = bv_strdup(bv_error_last());
		if (ours)
			write_logs(&s, status, NULL);
		if (rc == BV_EINTR)
			fprintf(stderr, "measure: %s: %zu of %zu cells finished (%d processes this time), logs in %s\n",
				status, count_finished(&s), s.ncells, s.processes - started, results_dir);
		bv_fail(rc, "%s", first);
		free(first);
	}
	if (rc == 0)
		fprintf(stderr, "measure: %d processes started this time\n", s.processes - started);
	free(defs);
	session_free(&s);
	if (rc) {
		for (size_t i = 0; i < n; i++)
			free(paths[i]);
		free(paths);
		return rc;
	}
	*logs = paths;
	return 0;
}
