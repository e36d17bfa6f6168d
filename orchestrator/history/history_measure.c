/*
 * history_measure.c - what `bench-versions history` measures and keeps
 * (history_measure.h): the cells the options name, each window of the
 * series measured in one bv_measure call (or found whole in the store),
 * its merged logs read into steps, the steps kept in the store after, and
 * --import, which fills the store from a run's logs.  Apart from history.c
 * because it is the part that talks to the measurement and to the store;
 * history.c decides what they give.
 *
 * Measuring: windows of W consecutive versions (default 4) overlapping by
 * one, each one bv_measure call, so every process of a window runs every
 * version of it.  A step i -> i + 1 lies in exactly one window; from its
 * logs, process by process, step = ratio(i + 1) / ratio(i), both ratios to
 * the window's baseline from the same process.  measure.c writes a
 * version's process_ratios for the trials where that version and the
 * baseline both have a ratio, in trial order, and each entry's
 * process_state is the trial's (the same for every version of the trial);
 * so two versions' lists are aligned when they have the same length and
 * the same states entry by entry, which is checked.  A step whose lists are
 * not aligned (a version dropped from one process) has the quotient of the
 * two medians as its estimate and no interval, and says so; the first step
 * of a window (against the baseline itself) is always paired.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "benches.h"
#include "changepoint.h"
#include "classes.h"
#include "common.h"
#include "fs.h"
#include "history.h"
#include "history_measure.h"
#include "json.h"
#include "machine.h"
#include "measure.h"
#include "merge.h"
#include "plan.h"
#include "status.h"
#include "store.h"
#include "table.h"
#include "verdict.h"

/* What makes two measurements of a step comparable, beyond the builds and
 * the cell: the store's "method" key (store.h). */
char *bv_hist_method_key(const bv_measure_opts *mo)
{
	return bv_asprintf(
	    "threshold %g quick %d processes %d-%d budget %g rounds %d sample %g layouts %d simd %s "
	    "threads %d window-paired",
	    mo->threshold, mo->quick, mo->min_processes, mo->max_processes, mo->budget_s, mo->rounds,
	    mo->sample_us, mo->layouts, mo->simd_isa ? mo->simd_isa : "-", mo->threads);
}

/* The same key read from a results log's method block (results-format.md),
 * so a run imported with --import meets the history that measures the same
 * way; NULL (BV_EINPUT said) when the block lacks a field. */
static char *method_key_of_log(const cJSON *m, const char *path)
{
	static const char *const nums[] = {"threshold", "min_processes", "max_processes", "budget_s",
	                                   "rounds",    "sample_us",     "layouts",       "threads", NULL};
	double v[8];
	for (int i = 0; nums[i]; i++)
		if (bv_json_num(m, nums[i], &v[i]) != 0) {
			bv_fail(BV_EINPUT, "%s: its method has no \"%s\" (a log from before history)", path, nums[i]);
			return NULL;
		}
	const cJSON *isa = cJSON_GetObjectItemCaseSensitive(m, "simd_isa_forced");
	bv_measure_opts mo;
	memset(&mo, 0, sizeof(mo));
	mo.threshold = v[0], mo.min_processes = (int)v[1], mo.max_processes = (int)v[2], mo.budget_s = v[3];
	mo.rounds = (int)v[4], mo.sample_us = v[5], mo.layouts = (int)v[6], mo.threads = (int)v[7];
	mo.quick = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "quick"));
	mo.simd_isa = cJSON_IsString(isa) ? isa->valuestring : NULL;
	return bv_hist_method_key(&mo);
}

/* --import RUN_DIR: every paired ratio of a run (its baseline against each
 * version) becomes a step in the store, under the run's machine class and
 * method; a later history measuring the same way finds them. */
int bv_hist_import(bv_hist *h)
{
	DIR *d = opendir(h->import);
	if (!d)
		return bv_fail(BV_EINPUT, "--import %s: %s (a run's results directory)", h->import, strerror(errno));
	char *method = NULL;
	int rc = 0;
	for (struct dirent *e; !method && rc == 0 && (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		if (n < 6 || strcmp(e->d_name + n - 5, ".json") || !strcmp(e->d_name, "history.json"))
			continue;
		char *path = bv_asprintf("%s/%s", h->import, e->d_name);
		cJSON *doc = NULL;
		if (bv_json_load(path, (size_t)1 << 30, &doc) == 0) {
			const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "method");
			if (cJSON_IsObject(m) && !(method = method_key_of_log(m, path)))
				rc = BV_EINPUT;
		}
		cJSON_Delete(doc);
		free(path);
	}
	closedir(d);
	if (rc == 0 && !method)
		rc = bv_fail(BV_EINPUT, "--import %s: no results log in it (a run's results directory)", h->import);
	bv_store *s = NULL;
	size_t n = 0;
	if (rc == 0)
		rc = bv_store_open(h->store_path ? h->store_path : bv_store_default_path(), &s);
	if (rc == 0)
		rc = bv_store_import_log(s, h->import, method, &n);
	if (rc == 0)
		printf("imported %zu step%s from %s into %s\n", n, n == 1 ? "" : "s", h->import, bv_store_path(s));
	bv_store_close(s);
	free(method);
	return rc;
}

/* The store's step a -> b of a cell: by this machine's class, the two
 * build keys, the cell and bv_hist_method_key (store.h). */
static int lookup_stored(const bv_hist *h, const bv_version *a, const bv_version *b, const char *cell,
                         bv_step *out, int *found)
{
	*found = 0;
	if (!h->store || !a->build_key || !b->build_key)
		return 0;
	return bv_store_get_step(h->store, h->cls, a->build_key, b->build_key, cell, h->method, out, found);
}

/* The store, and this machine's class as a results log would name it
 * (classes.c: its cpu, ISA and GPU, or BENCH_VERSIONS_CLASS), so steps
 * imported from logs and steps measured here meet under one key. */
int bv_hist_open_store(bv_hist *h)
{
	if (h->no_store)
		return 0;
	cJSON *doc = cJSON_CreateObject(), *m = bv_machine_info(), *cal = NULL;
	if (bv_machine_calibration(0, "history", &cal) == 0 && cal)
		cJSON_AddItemToObject(m, "calibration", cal);
	cJSON_AddItemToObject(doc, "machine", m);
	bv_class c;
	memset(&c, 0, sizeof(c));
	int rc = bv_class_of(doc, "this machine", &c);
	if (rc == 0)
		h->cls = bv_strdup(c.name);
	bv_class_free(&c);
	cJSON_Delete(doc);
	if (rc == 0)
		rc = bv_store_open(h->store_path ? h->store_path : bv_store_default_path(), &h->store);
	if (rc == 0)
		bv_store_set_source(h->store, h->dir);
	return rc;
}

/* Keeps every step measured paired in this run (not those the store gave,
 * not a quotient of medians), and every absent one (store.h), in the
 * store, in one transaction, so the same series measures nothing next time
 * and a longer one only its new steps. */
int bv_hist_keep_steps(bv_hist *h)
{
	if (!h->store)
		return 0;
	int rc = bv_store_begin(h->store);
	for (size_t c = 0; rc == 0 && c < h->ncells; c++)
		for (size_t i = 0; rc == 0 && i + 1 < h->nv; i++) {
			const bv_hist_step *st = &h->cells[c].steps[i];
			/* an absent step (a version lacks the cell) is kept too: the
			 * window holding it need not be measured again to learn that */
			int absent = st->window && st->s.absent;
			if (!absent && (!st->window || st->why || st->unstable || !st->s.nproc || !isfinite(st->s.ratio) ||
			                !st->s.verdict))
				continue;
			rc = bv_store_put_step(h->store, h->cls, bv_hist_version(h, i)->build_key,
			                       bv_hist_version(h, i + 1)->build_key, h->cells[c].key,
			                       h->method, &st->s);
		}
	if (rc == 0)
		rc = bv_store_commit(h->store);
	else
		bv_store_rollback(h->store);
	return rc;
}

/* The plan's cells (h->plan, which the command built once, after
 * bv_suite_describe registered a suite's cells), each with its steps
 * unmeasured and its chain to fill. */
int bv_hist_plan_cells(bv_hist *h)
{
	const bv_cell *cells = h->plan.cells;
	long n = (long)h->plan.ncells;
	h->cells = bv_xcalloc((size_t)n + 1, sizeof(bv_hist_cell));
	for (long k = 0; k < n; k++) {
		bv_hist_cell *x = &h->cells[h->ncells++];
		x->bench = cells[k].bench->name, x->op = cells[k].op->name, x->backend = cells[k].backend;
		bv_size_format(cells[k].size, x->size, sizeof(x->size));
		x->key = bv_asprintf("%s/%s/%s/%s", x->bench, x->op, x->backend, x->size);
		x->steps = bv_xcalloc(h->nv, sizeof(bv_hist_step));
		x->chain = bv_xcalloc(h->nv, sizeof(double));
		x->clo = bv_xcalloc(h->nv, sizeof(double));
		x->chi = bv_xcalloc(h->nv, sizeof(double));
		for (size_t i = 0; i + 1 < h->nv; i++) {
			bv_hist_step *st = &x->steps[i];
			st->s.ratio = st->s.lo = st->s.hi = st->s.p = NAN;
			st->p_slower = st->p_faster = NAN;
			st->s.cell = bv_strdup(x->key);
		}
	}
	return 0;
}

static bv_hist_cell *cell_of(bv_hist *h, const char *key)
{
	for (size_t c = 0; c < h->ncells; c++)
		if (!strcmp(h->cells[c].key, key))
			return &h->cells[c];
	return NULL;
}

/* Same trials: measure.c's process_state is the trial's, the same for every
 * version of it; the merged fields come from it deterministically. */
static int same_value(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static int aligned(const bv_change *a, const bv_change *b)
{
	if (a->nproc != b->nproc || !a->proc_ratio || !b->proc_ratio)
		return 0;
	for (size_t j = 0; j < a->nproc; j++) {
		if (a->proc_gbps && b->proc_gbps && !same_value(a->proc_gbps[j], b->proc_gbps[j]))
			return 0;
		if (a->proc_compute_ns && b->proc_compute_ns &&
		    !same_value(a->proc_compute_ns[j], b->proc_compute_ns[j]))
			return 0;
		if (a->proc_running && b->proc_running && !same_value(a->proc_running[j], b->proc_running[j]))
			return 0;
	}
	return 1;
}

/* Why a version has no result in a row ("0.2.0: n/a: reason"), or NULL. */
static char *no_result(const bv_table *t, const bv_row *r, size_t i)
{
	const bv_result *res = &r->results[i];
	if (res->status == BV_ST_OK)
		return NULL;
	return bv_asprintf("%s: %s%s%s", t->labels[i], res->status ? bv_status_name(res->status) : "no result",
	                   res->reason ? ": " : "", res->reason ? res->reason : "");
}

/* The step b / a from the per-process medians of two results, paired by
 * process id; -1 when they share no process. */
static int by_process(const bv_result *a, const bv_result *b, bv_hist_step *st)
{
	if (!a->proc_ns || !b->proc_ns)
		return -1;
	double *q = bv_xcalloc(b->nproc_ns + 1, sizeof(double));
	size_t m = bv_result_pair_by_process(b, a, q);
	int rc = m ? bv_history_step(NULL, q, m, &st->s, &st->coverage) : -1;
	free(q);
	return rc;
}

/* A cell status that makes a step absent (store.h): what the build or
 * this machine's class decides, so measuring again gives no ratio either.
 * NULL for the others (a crash or a wrong result is measured again). */
static const char *absent_status(bv_status status)
{
	return status == BV_ST_NA || status == BV_ST_SKIPPED ? bv_status_name(status) : NULL;
}

/* The note of an absent step from the store, in the words no_result gives
 * a measured one (the label is this history's, not the storing run's). */
static char *absent_note(const bv_hist *h, size_t step, const bv_step *s)
{
	const char *r = s->absent_reason;
	return bv_asprintf("%s: %s%s%s", bv_hist_version(h, step + (size_t)s->absent_side)->label, s->absent,
	                   r ? ": " : "", r ? r : "");
}

/* A paired step under the machine's state (history.h), the trials'
 * states taken from b's change (the same for both versions: measure.c).
 * Only with one layout: with several, each process's step pairs two code
 * placements drawn at random, so its ratios fall into modes up to ~12 %
 * apart on identical code, and a handful of processes whose probes read
 * disturbed can line up with a mode by chance: the usual processes' mode
 * would then be judged a change.  (One CI run of test_history, four
 * layouts, 12 processes, a suite's load beside it, called 0.890 between
 * two identical builds with the split on; whether the split or the
 * placement modes alone did it, its log did not say.) */
static void split_step(const bv_usual *u, double thr, const bv_change *ca, const bv_change *cb,
                       bv_hist_step *st)
{
	int rc = bv_history_step_state(u, thr, ca ? ca->proc_ratio : NULL, cb->proc_ratio, cb->proc_gbps,
	                               cb->proc_compute_ns, cb->proc_running, cb->nproc, &st->s, &st->coverage,
	                               &st->state);
	st->unstable = rc == 2;
}

/* The steps of window k (versions first..last of the built series) from its
 * merged logs. */
static void steps_of_window(bv_hist *h, const bv_table *t, size_t first, int window)
{
	bv_usual u = bv_table_usual(t);
	for (size_t r = 0; r < t->nrows; r++) {
		const bv_row *row = &t->rows[r];
		char key[256];
		bv_row_key(row, key, sizeof(key));
		bv_hist_cell *x = cell_of(h, key);
		if (!x)
			continue;
		for (size_t i = 0; i + 1 < t->nversions; i++) {
			bv_hist_step *st = &x->steps[first + i];
			st->window = window;
			char *why = no_result(t, row, i);
			int side = 0;
			if (!why)
				why = no_result(t, row, i + 1), side = 1;
			const bv_result *res = &row->results[i + (size_t)side];
			const char *absent = why ? absent_status(res->status) : NULL;
			if (absent) {
				st->s.absent = absent, st->s.absent_side = side;
				st->s.absent_reason = res->reason ? bv_strdup(res->reason) : NULL;
			}
			const bv_change *ca = i ? &row->changes[i] : NULL, *cb = &row->changes[i + 1];
			int ratios = cb->valid && cb->nproc && !(ca && (!ca->valid || !ca->nproc));
			/* Without both ratios to the window's first version (a cell
			 * that version lacks: an op a later release added), the two
			 * versions' own per-process medians, paired by the process
			 * that timed both (process_ids, logs of schema 1.7). */
			if (!why && !ratios) {
				if (by_process(&row->results[i], &row->results[i + 1], st) == 0)
					continue;
				why = bv_strdup("no paired ratio in the logs");
			}
			if (why) {
				st->why = why;
				continue;
			}
			if (!ca || aligned(ca, cb)) {
				if (bv_history_step(ca ? ca->proc_ratio : NULL, cb->proc_ratio, cb->nproc,
				                    &st->s, &st->coverage) != 0)
					st->why = bv_strdup("no finite per-process ratio");
				else if (h->cli.mo.layouts == 1)
					split_step(&u, h->cli.mo.threshold, ca, cb, st);
				continue;
			}
			/* Not the same processes: an estimate without an interval. */
			st->s.ratio = ca->ratio > 0 ? cb->ratio / ca->ratio : NAN;
			st->why =
			    bv_asprintf("%s and %s ran in different processes of window %d: an estimate "
			                "(quotient of their medians), no paired interval",
			                t->labels[i], t->labels[i + 1], window);
		}
	}
}

/* Measures every window not found in the store. */
int bv_hist_measure(bv_hist *h)
{
	size_t *first = bv_xcalloc(h->nv, sizeof(size_t)), *last = bv_xcalloc(h->nv, sizeof(size_t));
	size_t nw = bv_history_windows(h->nv, (size_t)h->window, first, last);
	h->nwindows = nw;
	char threads[16];
	snprintf(threads, sizeof(threads), "%d", h->cli.mo.threads);
	setenv("OPENBLAS_NUM_THREADS", threads, 1);
	setenv("OMP_NUM_THREADS", threads, 1);
	int rc = 0;
	for (size_t k = 0; rc == 0 && k < nw; k++) {
		size_t m = last[k] - first[k] + 1;
		/* The store first: a window all of whose steps it has is not
		 * measured.  Found steps are taken only when all are (else the
		 * window's measurement gives every one of them). */
		size_t nsteps = last[k] - first[k], nfound = 0;
		bv_step *stored = bv_xcalloc(h->ncells * nsteps + 1, sizeof(bv_step));
		int all_found = 1;
		for (size_t c = 0; rc == 0 && c < h->ncells && all_found; c++)
			for (size_t i = 0; rc == 0 && i < nsteps && all_found; i++) {
				int found = 0;
				bv_step *t = &stored[c * nsteps + i];
				t->ratio = t->lo = t->hi = t->p = NAN;
				rc = lookup_stored(h, bv_hist_version(h, first[k] + i),
				                   bv_hist_version(h, first[k] + i + 1), h->cells[c].key, t,
				                   &found);
				all_found = found;
				nfound += found;
			}
		for (size_t c = 0; rc == 0 && all_found && c < h->ncells; c++)
			for (size_t i = 0; i < nsteps; i++) {
				bv_hist_step *st = &h->cells[c].steps[first[k] + i];
				bv_step *t = &stored[c * nsteps + i];
				free(t->cell); /* the cell's own key stays */
				t->cell = st->s.cell;
				st->s = *t;
				memset(t, 0, sizeof(*t));
				if (st->s.absent)
					st->why = absent_note(h, first[k] + i, &st->s);
			}
		for (size_t j = 0; j < nfound; j++)
			bv_step_free(&stored[j]);
		free(stored);
		if (rc == 0 && all_found) {
			h->from_store++;
			fprintf(stderr, "history: window %zu of %zu: every step from the store (%s)\n", k + 1, nw,
			        bv_store_path(h->store));
		}
		if (rc || all_found)
			continue;
		bv_version *copies = bv_xcalloc(m, sizeof(bv_version));
		bv_buf line = BV_BUF_INIT;
		for (size_t i = 0; i < m; i++) {
			copies[i] =
			    *bv_hist_version(h, first[k] + i); /* shallow: bv_measure only reads them */
			bv_buf_printf(&line, "%s%s", i ? " " : "", copies[i].name);
		}
		fprintf(stderr, "history: window %zu of %zu: %s\n", k + 1, nw, line.s);
		bv_buf_free(&line);
		char *sub = bv_asprintf("%s/window-%02zu", h->dir, k + 1);
		bv_measure_opts o = h->cli.mo;
		o.seed = h->cli.mo.seed + (unsigned long long)k * 7919u;
		/* A window stops sampling once its steps' evidence would survive
		 * the history's control, not its own: every step of every cell is
		 * one family, and a single step gets the step share of q
		 * (changepoint.c).  BV_FDR / family is that share. */
		o.family = (size_t)ceil(BV_FDR / bv_changepoint_step_share(h->ncells, h->nv - 1, BV_FDR));
		o.series = 1;
		char **logs = NULL;
		rc = bv_mkdir_p(sub);
		h->measured++;
		if (rc == 0)
			rc = bv_measure_plan(&h->plan, copies, m, &o, sub, &logs);
		bv_table t;
		memset(&t, 0, sizeof(t));
		int merged = 0;
		if (rc == 0)
			merged = (rc = bv_merge_logs(logs, m, h->cli.mo.threshold, &t)) == 0;
		if (rc == 0)
			steps_of_window(h, &t, first[k], (int)(k + 1));
		if (merged) /* a failed merge frees its own */
			bv_table_free(&t);
		for (size_t i = 0; logs && i < m; i++)
			free(logs[i]);
		free(logs);
		free(sub);
		free(copies);
	}
	free(first), free(last);
	return rc;
}
