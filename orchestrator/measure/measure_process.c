/*
 * measure_process.c - running bv-runner over the cells still sampling and
 * taking in what it reports: one process (or, isolated, one per version),
 * its document's samples, failures and machine state absorbed into the
 * session, and a process killed by a signal charged to the cell it was in.
 *
 * Apart from measure.c because it is the stage's contact with the runner
 * (its command line, its documents, its deaths); the stopping rule
 * (measure_stop.c) and the logs (measure_log.c) see only the session.
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

#include "backends.h"
#include "benches.h"
#include "build.h"
#include "child.h"
#include "common.h"
#include "env.h"
#include "fs.h"
#include "json.h"
#include "machine.h"
#include "measure_process.h"
#include "measure_session.h"
#include "measure_stop.h"
#include "ops_file.h"
#include "plan.h"
#include "proc.h"
#include "progress.h"
#include "resolve.h"
#include "results.h"
#include "shard.h"
#include "stats.h"
#include "status.h"
#include "suite.h"
#include "table.h"
#include "trust.h"
#include "verdict.h"

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

cJSON *bv_ms_state_json(const pstate *p)
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

/* ---- one trial -------------------------------------------------------- */

uint64_t bv_ms_shuffle_state;

int bv_ms_trial(session *s)
{
	size_t which[64], nw = 0;
	for (size_t i = 0; i < s->n && nw < 64; i++)
		if (bv_ms_measurable(&s->vs[i]))
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
			bv_ms_shuffle_state = bv_ms_shuffle_state * 6364136223846793005ull + 1442695040888963407ull;
			size_t j = (size_t)(bv_ms_shuffle_state >> 33) % (i + 1), t = which[i];
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
			bv_ms_close_trial(s, &s->cells[c]);
	return rc;
}
