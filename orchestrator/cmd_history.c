/*
 * cmd_history.c - bench-versions history SERIES [run options] [--window W]
 * [--format table|json|markdown|html]: a library's speed over a series of
 * versions, each step between adjacent versions measured paired, the chain
 * back to the first version a product of those steps, and where it changed
 * (docs/cli/history.md, docs/history.md).
 *
 * The series is every release in reach (--releases, as `compat` lists
 * them), a range of commits A..B (oldest first; --first-parent, --every N)
 * or a list of names.  Every version is resolved, matched against the
 * compat rules and built as for `run`; one that does not build is left out
 * and the chain goes on from the last one that did (that step then spans
 * the gap, which the output says).
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
 *
 * The steps of every cell are decided together, as verdict.c decides a
 * table: each step's evidence is the anytime-valid sign test on its
 * per-process ratios (bv_change_evidence), held with the others to a
 * Benjamini-Hochberg false-discovery rate of BV_FDR, and a step is slower
 * or faster only when its interval says so too.  The change points are
 * then found over the steps (find_changes: the lead fills in
 * changepoint.c's method) and the store is asked before measuring
 * (lookup_stored; store.c) and told after (keep_step).
 */
#include <dirent.h>
#include <errno.h>
#include <git2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benches.h"
#include "changepoint.h"
#include "classes.h"
#include "cli.h"
#include "cmd_history.h"
#include "common.h"
#include "fs.h"
#include "git_util.h"
#include "history_html.h"
#include "json.h"
#include "locate.h"
#include "machine.h"
#include "options.h"
#include "plan.h"
#include "proc.h"
#include "progress.h"
#include "project.h"
#include "compat.h"
#include "resolve.h"
#include "build.h"
#include "store.h"
#include "table.h"
#include "measure.h"
#include "run_options.h"
#include "pipeline.h"
#include "merge.h"
#include "verdict.h"
#include "backends.h"
#include "export.h"
#include "suite.h"
#include "stats.h"

#define HISTORY_SCHEMA "bench-versions-history"
#define HISTORY_SCHEMA_VERSION 1
#define WINDOW_DEFAULT 4
#define WINDOW_MAX 16

/* ---- the pure parts (cmd_history.h) ------------------------------------- */

size_t bv_history_every(size_t n, size_t every, size_t *keep)
{
	size_t k = 0;
	if (every < 1)
		every = 1;
	for (size_t i = 0; i < n; i += every)
		keep[k++] = i;
	if (n && keep[k - 1] != n - 1)
		keep[k++] = n - 1;
	return k;
}

size_t bv_history_windows(size_t n, size_t w, size_t *first, size_t *last)
{
	if (n < 2 || w < 2)
		return 0;
	size_t k = 0;
	for (size_t start = 0; start + 1 < n; start += w - 1, k++) {
		first[k] = start;
		last[k] = start + w - 1 < n - 1 ? start + w - 1 : n - 1;
	}
	return k;
}

int bv_history_step(const double *ra, const double *rb, size_t n, bv_step *out, double *coverage)
{
	out->ratio = out->lo = out->hi = NAN;
	out->proc_ratio = NULL;
	out->nproc = 0;
	*coverage = 0;
	double *q = bv_xcalloc(n + 1, sizeof(double));
	size_t m = 0;
	for (size_t j = 0; j < n; j++) {
		double x = ra ? (ra[j] > 0 ? rb[j] / ra[j] : NAN) : rb[j];
		if (isfinite(x) && x > 0)
			q[m++] = x;
	}
	bv_interval iv;
	if (m == 0 || bv_median_interval(q, m, 0.95, &iv) != 0) {
		free(q);
		return -1;
	}
	out->proc_ratio = q;
	out->nproc = m;
	out->ratio = iv.est;
	*coverage = iv.coverage;
	/* [min, max] of five processes covers 93.8 %: no 95 % interval. */
	if (iv.coverage >= 0.95)
		out->lo = iv.lo, out->hi = iv.hi;
	return 0;
}

int bv_history_step_state(const bv_usual *u, double threshold, const double *ra, const double *rb,
                          const double *gbps, const double *compute_ns, const double *running, size_t n,
                          bv_step *out, double *coverage, char **state)
{
	*state = NULL;
	if (!gbps && !compute_ns && !running)
		return 0; /* logs without the machine's state */
	size_t m = 0;
	double *q = bv_xcalloc(n + 1, sizeof(double)), *g = bv_xcalloc(n + 1, sizeof(double));
	double *c = bv_xcalloc(n + 1, sizeof(double)), *r = bv_xcalloc(n + 1, sizeof(double));
	for (size_t j = 0; j < n; j++) {
		/* the quotients bv_history_step takes, each with its trial's state */
		double x = ra ? (ra[j] > 0 ? rb[j] / ra[j] : NAN) : rb[j];
		if (!(isfinite(x) && x > 0))
			continue;
		q[m] = x;
		g[m] = gbps ? gbps[j] : 0; /* 0: not read (verdict.c) */
		c[m] = compute_ns ? compute_ns[j] : 0;
		r[m] = running ? running[j] : 0;
		m++;
	}
	bv_change ch;
	memset(&ch, 0, sizeof(ch));
	ch.proc_ratio = q, ch.nproc = m;
	ch.proc_gbps = g, ch.proc_compute_ns = c, ch.proc_running = r;
	double *use = bv_xcalloc(m + 1, sizeof(double));
	size_t k = bv_change_split_by_state(&ch, threshold, u, use);
	int rc = 0;
	if (ch.state_dependent) {
		bv_step fresh;
		double cov = 0;
		if (bv_history_step(NULL, use, k, &fresh, &cov) == 0) {
			free(out->proc_ratio);
			out->proc_ratio = fresh.proc_ratio, out->nproc = fresh.nproc;
			out->ratio = fresh.ratio, out->lo = fresh.lo, out->hi = fresh.hi;
			*coverage = cov;
		}
		if (ch.unstable) /* an estimate at the usual state, nothing to judge it by */
			out->lo = out->hi = NAN, *coverage = 0;
		*state = bv_asprintf("the step followed the machine's state: %.3f in %zu process%s at its usual "
		                     "state, %.3f in %zu disturbed ones; %s",
		                     ch.level_usual, ch.n_usual, ch.n_usual == 1 ? "" : "es", ch.level_disturbed,
		                     ch.n_disturbed,
		                     ch.unstable ? "too few usual ones to judge it: unstable (measured again by "
		                                   "the next history)"
		                                 : "judged on the usual ones");
		rc = ch.unstable ? 2 : 1;
	}
	free(use), free(q), free(g), free(c), free(r);
	return rc;
}

void bv_history_chain(const bv_step *s, size_t n, double *ratio, double *lo, double *hi)
{
	/* A cell that is new in the series (an op or backend a later release
	 * added) has no steps before its first version: its chain starts there,
	 * at 1, and is NaN before. */
	size_t a = 0;
	while (a < n && !(isfinite(s[a].ratio) && s[a].ratio > 0))
		a++;
	if (a == n)
		a = 0; /* no step at all: the first version only */
	for (size_t j = 0; j < a; j++)
		ratio[j] = lo[j] = hi[j] = NAN;
	ratio[a] = lo[a] = hi[a] = 1.0;
	double r = 1.0, down = 0, up = 0; /* log half-widths squared, summed */
	for (size_t j = a; j < n; j++) {
		const bv_step *st = &s[j];
		r = isfinite(r) && isfinite(st->ratio) && st->ratio > 0 ? r * st->ratio : NAN;
		int iv = isfinite(st->lo) && isfinite(st->hi) && st->lo > 0 && st->hi >= st->ratio &&
		         st->lo <= st->ratio;
		if (iv && isfinite(down)) {
			double d = log(st->ratio / st->lo), u = log(st->hi / st->ratio);
			down += d * d, up += u * u;
		} else {
			down = up = NAN;
		}
		ratio[j + 1] = r;
		lo[j + 1] = isfinite(r) && isfinite(down) ? r * exp(-sqrt(down)) : NAN;
		hi[j + 1] = isfinite(r) && isfinite(up) ? r * exp(sqrt(up)) : NAN;
	}
}

/* ---- the command's state ------------------------------------------------ */

/* One step of one cell, as measured (or found in the store). */
typedef struct hstep {
	bv_step s;
	double coverage;
	double p_slower, p_faster;
	char *why;  /* no ratio, or no paired interval: why (NULL: measured paired) */
	int window; /* the window that measured it (1-based), 0: from the store */
	/* The step followed the machine's state (split_step): what it was at
	 * either state (NULL: it did not); unstable when too few processes
	 * were at the usual state to judge it (then never stored) */
	char *state;
	int unstable;
} hstep;

typedef struct hcell {
	char *key; /* bench/op/backend/size */
	const char *bench, *op, *backend;
	char size[32];
	hstep *steps;              /* nv - 1 */
	double *chain, *clo, *chi; /* nv */
	bv_change_point *cps;
	size_t ncps;
} hcell;

typedef struct hist {
	/* the command line */
	int releases, first_parent, every, window;
	const char *format;
	const char *range; /* A..B as typed */
	char **names;      /* a list, as typed */
	size_t nnames;
	bv_run_cli cli;
	char *method; /* method_key of the settled options: the store's key */
	const char *store_path; /* --store, else bv_store_default_path() */
	int no_store;           /* --no-store: measure every window, keep nothing */
	const char *import;     /* --import RUN_DIR: a run's logs into the store, nothing measured */
	bv_store *store;        /* NULL with --no-store */
	char *cls;              /* this machine's class: the store's key */
	size_t from_store;      /* windows the store gave whole */
	/* the series, resolved: all of it, then the versions that built */
	bv_repo *repo;
	git_repository *git;
	bv_compat *compat;
	bv_version *all;
	size_t nall, nresolved;
	size_t *built; /* indices into all, in series order */
	size_t nv;
	bv_strv notes;
	/* the measurement */
	char *dir;
	int lockfd;
	hcell *cells;
	size_t ncells;
	size_t nwindows;
	size_t measured; /* windows whose measuring began (their logs stay) */
	size_t tested, called;
	/* steps past the band that neither a step nor a change point called
	 * (undecided), and steps that followed the machine (unstable): said,
	 * never left silent */
	size_t inconclusive, unstable;
} hist;

static bv_version *ver(const hist *h, size_t j)
{
	return &h->all[h->built[j]];
}

static void step_clear(bv_step *s)
{
	bv_step_free(s);
}

static void hist_free(hist *h)
{
	for (size_t c = 0; c < h->ncells; c++) {
		hcell *x = &h->cells[c];
		for (size_t i = 0; x->steps && i + 1 < h->nv; i++) {
			step_clear(&x->steps[i].s);
			free(x->steps[i].why);
			free(x->steps[i].state);
		}
		free(x->steps), free(x->chain), free(x->clo), free(x->chi), free(x->cps), free(x->key);
	}
	free(h->cells);
	for (size_t i = 0; i < h->nresolved; i++)
		bv_version_free(&h->all[i]);
	free(h->all);
	free(h->built);
	bv_strv_free(&h->notes);
	free(h->dir);
	free(h->method);
	if (h->lockfd >= 0)
		close(h->lockfd);
	bv_compat_free(h->compat);
	bv_repo_free(h->repo);
	bv_store_close(h->store);
	free(h->cls);
}

/* ---- hook points for the parts built beside this one --------------------- */

/* What makes two measurements of a step comparable, beyond the builds and
 * the cell: the store's "method" key (store.h). */
static char *method_key(const bv_measure_opts *mo)
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
	return method_key(&mo);
}

/* --import RUN_DIR: every paired ratio of a run (its baseline against each
 * version) becomes a step in the store, under the run's machine class and
 * method; a later history measuring the same way finds them. */
static int import_run(hist *h)
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
 * build keys, the cell and method_key (store.h). */
static int lookup_stored(const hist *h, const bv_version *a, const bv_version *b, const char *cell,
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
static int open_store(hist *h)
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
static int keep_steps(hist *h)
{
	if (!h->store)
		return 0;
	int rc = bv_store_begin(h->store);
	for (size_t c = 0; rc == 0 && c < h->ncells; c++)
		for (size_t i = 0; rc == 0 && i + 1 < h->nv; i++) {
			const hstep *st = &h->cells[c].steps[i];
			/* an absent step (a version lacks the cell) is kept too: the
			 * window holding it need not be measured again to learn that */
			int absent = st->window && st->s.absent;
			if (!absent && (!st->window || st->why || st->unstable || !st->s.nproc || !isfinite(st->s.ratio) ||
			                !st->s.verdict))
				continue;
			rc = bv_store_put_step(h->store, h->cls, ver(h, i)->build_key, ver(h, i + 1)->build_key,
			                       h->cells[c].key, h->method, &st->s);
		}
	if (rc == 0)
		rc = bv_store_commit(h->store);
	else
		bv_store_rollback(h->store);
	return rc;
}

/* The change points of every cell, decided over the whole table at once
 * (changepoint.c: single steps and gradual spans, q shared between them). */
static int find_changes(hist *h)
{
	size_t nsteps = h->nv - 1;
	bv_step **cs = bv_xcalloc(h->ncells + 1, sizeof(*cs));
	for (size_t c = 0; c < h->ncells; c++) {
		cs[c] = bv_xcalloc(nsteps + 1, sizeof(bv_step));
		for (size_t i = 0; i < nsteps; i++)
			cs[c][i] = h->cells[c].steps[i].s; /* shallow: only read */
	}
	bv_change_point *cps = NULL;
	size_t n = 0;
	int rc = bv_changepoints_table(cs, h->ncells, nsteps, h->cli.mo.threshold, BV_FDR, &cps, &n);
	for (size_t k = 0; rc == 0 && k < n; k++) {
		hcell *x = &h->cells[cps[k].cell];
		x->cps = bv_xrealloc(x->cps, (x->ncps + 1) * sizeof(*x->cps));
		x->cps[x->ncps++] = cps[k];
	}
	free(cps);
	for (size_t c = 0; c < h->ncells; c++)
		free(cs[c]);
	free(cs);
	return rc;
}

/* ---- options ------------------------------------------------------------ */

static void usage(FILE *out, const bv_option *opts)
{
	fprintf(out, "usage: bench-versions history --releases [options]\n"
	             "       bench-versions history A..B [--first-parent] [--every N] [options]\n"
	             "       bench-versions history V1 V2 [V3...] [options]\n\n"
	             "The library's speed over a series of versions: every release in reach, the\n"
	             "commits from A to B (oldest first) or the versions named.  Every version is\n"
	             "built as for run; windows of W consecutive versions (overlapping by one) are\n"
	             "measured together, so every step between adjacent versions is a paired\n"
	             "ratio, and the chain back to the first version is their product.  Prints one\n"
	             "row per cell and one column per version (the ratio to the first; * marks a\n"
	             "change point), then each change with the bisect command that narrows it when\n"
	             "the series skipped commits.\n\n"
	             "options (--opt VALUE or --opt=VALUE):\n");
	bv_options_help(opts, out);
	fprintf(out,
	        "\nenvironment: KERNEL_DIR, KERNEL_REPO, BENCH_VERSIONS_CACHE, BENCH_VERSIONS_COMPAT, CC\n"
	        "exit codes: 0 done, 2 usage or input error (an empty range, fewer than two\n"
	        "versions), 3 fewer than two versions built, or a measurement failed\n");
}

static const char *const format_values[] = {"table", "json", "markdown", "html", NULL};

/* What history takes of run's options: all that shape a measurement, not
 * --resume (a history is measured window by window; the store makes a
 * second run cheap) and not --isolated (it would unpair every step). */
static const char *const measuring[] = {
    "--benches",       "--ops",       "--backends",    "--sizes",   "--quick",     "--min-processes",
    "--max-processes", "--processes", "--budget",      "--rounds",  "--sample-us", "--timeout",
    "--memory-limit",  "--pin",       "--recalibrate", "--threads", "--simd-isa",  "--threshold",
    "--seed",          "--layouts",   "--results",     "--jobs",    "--build-timeout", NULL};

/* What is wrong with the series the command line names (the positional
 * arguments pos, nrange of them ranges, and --releases, --import,
 * --first-parent, --every), or NULL when it is one history can measure;
 * a message made here is also *owned, for the caller to free. */
static const char *series_why(const hist *h, char **pos, size_t npos, size_t nrange, char **owned)
{
	if (h->releases && npos)
		return *owned =
		    bv_asprintf("--releases is the whole series: '%s' is one too many", pos[0]);
	else if (nrange && npos > 1)
		return "a range A..B is the whole series: give it alone, or list the versions instead";
	else if (nrange && strstr(pos[0], "..."))
		return *owned = bv_asprintf(
		    "'%s': history takes A..B (the commits from A to B), not A...B", pos[0]);
	else if (h->import && (npos || h->releases || h->no_store))
		return "--import takes a run's directory alone (and --store)";
	else if (h->import)
		return NULL; /* an import names no series */
	else if (!h->releases && npos == 0)
		return "no series: give --releases, a range A..B or two versions or more";
	else if (!h->releases && !nrange && npos < 2)
		return *owned =
		    bv_asprintf("one version (%s) is no history: give two or more, a range A..B or "
		                "--releases",
		                pos[0]);
	else if (h->first_parent && !nrange)
		return "--first-parent is for a range A..B";
	else if (h->every && !nrange && !h->releases)
		return "--every N is for a range A..B or --releases (a list keeps every version named)";
	return NULL;
}

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, hist *h)
{
	h->format = "table";
	h->window = WINDOW_DEFAULT;
	bv_run_cli_init(&h->cli);
	bv_option shared[BV_RUN_CLI_OPTIONS];
	bv_run_cli_table(&h->cli, shared, measuring);
	const bv_option opts[] = {
	    BV_FLAG("--releases", &h->releases,
	            "the series is every release in reach, oldest first (as compat lists them)"),
	    BV_FLAG("--first-parent", &h->first_parent,
	            "A..B: follow first parents only (a merge is one step)"),
	    BV_INT("--every", &h->every, "N", 1, 1000000,
	           "A..B or --releases: keep every Nth version (both ends always); the\n"
	           "bisect command of a change then narrows the commits skipped"),
	    BV_INT("--window", &h->window, "W", 2, WINDOW_MAX,
	           "versions measured together, overlapping by one (default 4; 2: each step alone)"),
	    BV_ENUM("--format", &h->format, "F", format_values, "table (default), json, markdown or html (also kept as history.html)"),
	    BV_STRING("--store", &h->store_path, "PATH",
	              "the history store (SQLite; default <cache>/history.sqlite): steps already\n"
	              "measured on this machine class with the same method are taken from it, and\n"
	              "new ones kept"),
	    BV_FLAG("--no-store", &h->no_store, "measure every window and keep nothing"),
	    BV_STRING("--import", &h->import, "RUN_DIR",
	              "no history: put a run's paired ratios (its baseline against each version)\n"
	              "into the store, under the run's machine class and method, and stop"),
	    BV_REFUSED("--isolated", "history measures every step paired (adjacent versions in the same "
	                             "processes); --isolated would unpair every step"),
	    BV_REFUSED("--resume", "history does not resume a run: its windows are measured one by one into "
	                           "a new results directory"),
	    BV_INCLUDE(shared,
	               "the measuring options of run: --benches, --ops, --backends, --sizes, --quick,\n"
	               "--min-processes, --max-processes, --processes, --budget, --rounds, --sample-us,\n"
	               "--timeout, --memory-limit, --pin, --recalibrate, --threads, --simd-isa,\n"
	               "--threshold, --seed, --layouts, --results, --jobs, --build-timeout\n"
	               "(see bench-versions run --help);\n"
	               "--layouts is 4 unless given: code placement is noise over many builds"),
	    BV_END,
	};
	char **pos = bv_xcalloc((size_t)argc + 1, sizeof(char *));
	size_t npos = 0;
	int prc = bv_options_parse(opts, argc, argv, pos, &npos);
	if (prc == 1) {
		free(pos);
		usage(stdout, opts);
		return 0;
	}
	const char *why = NULL;
	char *owned = NULL;
	size_t nrange = 0;
	for (size_t i = 0; i < npos; i++)
		nrange += strstr(pos[i], "..") != NULL;
	if (prc == 0)
		why = series_why(h, pos, npos, nrange, &owned);
	if (prc == 0 && !why) {
		if (nrange)
			h->range = pos[0];
		else if (!h->releases) {
			h->names = bv_xcalloc(npos, sizeof(char *));
			for (size_t i = 0; i < npos && !why; i++) {
				if (bv_version_name_check(pos[i]))
					why = owned = bv_strdup(bv_error_last());
				h->names[h->nnames++] = pos[i];
			}
		}
	}
	free(pos);
	if (prc || why) {
		fprintf(stderr, "bench-versions history: %s (see bench-versions history --help)\n",
		        prc ? bv_error_last() : why);
		free(owned);
		return BV_EXIT_USAGE;
	}
	/* Four code layouts unless asked (as report and bisect): a series
	 * spans many builds, and where the linker put a loop moves unchanged
	 * code by more than most changes (docs/measurement.md, "Code
	 * placement"); with one layout this repository's releases showed
	 * four such steps as change points in code no release touched. */
	if (!h->cli.mo.layouts)
		h->cli.mo.layouts = 4;
	long ncells = 0;
	if (bv_run_cli_finish(&h->cli, &ncells)) {
		fprintf(stderr, "bench-versions history: %s\n", bv_error_last());
		return BV_EXIT_USAGE;
	}
	if (!h->every)
		h->every = 1;
	h->method = method_key(&h->cli.mo);
	bv_signals_install();
	return -1;
}

/* ---- the series ----------------------------------------------------------- */


/* One end of a range, as a commit (bv_resolve's rules: a release number,
 * a tag, any git revision). */
static int range_end(hist *h, const char *name, const char *which, char hex[41])
{
	bv_version v = {0};
	int rc = bv_resolve(h->repo, name, &v);
	if (rc == 0 && v.kind != BV_VERSION_GIT)
		rc = bv_fail(BV_EINPUT,
		             "%s end '%s' of the range is not a commit of %s (a range walks git history)",
		             which, name, bv_repo_describe(h->repo));
	if (rc == 0)
		snprintf(hex, 41, "%s", v.commit);
	bv_version_free(&v);
	return rc;
}

/* A..B: A and the commits B reaches and A does not, oldest first, as full
 * commit ids in *out. */
static int range_series(hist *h, bv_strv *out)
{
	const char *dots = strstr(h->range, "..");
	char *a = bv_strdup(h->range);
	a[dots - h->range] = '\0';
	const char *b = dots + 2;
	int rc = 0;
	if (!*a || !*b)
		rc = bv_fail(BV_EINPUT, "'%s': a range needs both ends, A..B", h->range);
	if (rc == 0 && !h->git)
		rc = bv_fail(BV_EINPUT, "a range A..B needs a git repository: %s", bv_repo_describe(h->repo));
	char ahex[41] = "", bhex[41] = "";
	if (rc == 0)
		rc = range_end(h, a, "the first", ahex);
	if (rc == 0)
		rc = range_end(h, b, "the last", bhex);
	git_oid aid, bid;
	if (rc == 0) {
		git_oid_fromstr(&aid, ahex), git_oid_fromstr(&bid, bhex);
		if (git_oid_equal(&aid, &bid))
			rc = bv_fail(BV_EINPUT, "'%s' is empty: %s and %s are the same commit %.12s",
			             h->range, a, b, ahex);
	}
	if (rc == 0) {
		int desc = git_graph_descendant_of(h->git, &bid, &aid);
		if (desc < 0)
			rc = bv_git_fail(BV_ERUN, "comparing the ends of the range");
		else if (desc == 0)
			rc = bv_fail(
			    BV_EINPUT,
			    "'%s' is empty: %s (%.12s) is not an ancestor of %s (%.12s); a history runs "
			    "from an older commit to a newer one",
			    h->range, a, ahex, b, bhex);
	}
	/* git rev-list b ^a, oldest first: the walk bisect takes (git_util.c) */
	git_oid *ids = NULL;
	size_t n = 0;
	if (rc == 0)
		rc = bv_git_walk(h->git, &bid, &aid, 1, h->first_parent, 1, &ids, &n);
	if (rc == 0) {
		bv_strv_push(out, ahex);
		for (size_t i = 0; i < n; i++) {
			char hex[41];
			git_oid_tostr(hex, sizeof(hex), &ids[i]);
			bv_strv_push(out, hex);
		}
	}
	free(ids);
	free(a);
	return rc;
}

/* The names of the series, before --every. */
static int series_names(hist *h, bv_strv *out, int *commits)
{
	*commits = 0;
	if (h->range) {
		*commits = 1;
		return range_series(h, out);
	}
	if (h->releases) {
		bv_known_release *rel = NULL;
		size_t n = 0;
		int rc = bv_releases_in_reach(h->repo, 0, &rel, &n);
		for (size_t i = 0; rc == 0 && i < n; i++)
			bv_strv_push(out, rel[i].version);
		bv_known_releases_free(rel, n);
		return rc;
	}
	for (size_t i = 0; i < h->nnames; i++)
		bv_strv_push(out, h->names[i]);
	return 0;
}

/* resolve -> compat for the series, labels unique. */
static int resolve_series(hist *h)
{
	int rc = bv_repo_open(&h->repo);
	if (rc)
		return rc;
	h->git = bv_repo_git(h->repo);
	bv_strv names = {0};
	int commits = 0;
	rc = series_names(h, &names, &commits);
	size_t *keep = bv_xcalloc(names.n + 1, sizeof(size_t));
	size_t nkeep = rc == 0 ? bv_history_every(names.n, (size_t)h->every, keep) : 0;
	if (rc == 0 && nkeep < 2)
		rc = bv_fail(BV_EINPUT, "%s %zu %s in reach: a history needs two at least",
		             h->releases ? "only" : "the series has", nkeep,
		             h->releases ? bv_plural((long long)nkeep, "release", "releases")
		                         : bv_plural((long long)nkeep, "version", "versions"));
	h->all = bv_xcalloc(nkeep + 1, sizeof(bv_version));
	for (size_t k = 0; rc == 0 && k < nkeep; k++) {
		bv_version *v = &h->all[k];
		rc = bv_resolve(h->repo, names.v[keep[k]], v);
		if (rc)
			break;
		h->nresolved++;
		if (commits) { /* short ids: the names of a range's commits */
			free(v->name), free(v->label);
			v->name = bv_asprintf("%.12s", v->commit);
			v->label = bv_strdup(v->name);
		}
		for (size_t j = 0; j < k; j++)
			if (!strcmp(h->all[j].label, v->label)) {
				char *l = bv_asprintf("%s-%zu", v->label, k + 1);
				free(v->label);
				v->label = l;
			}
		fprintf(stderr, "resolve: %-12s -> %s %.12s, %s %s [%s]\n", v->name,
		        v->kind == BV_VERSION_LOCAL     ? "tree"
		        : v->kind == BV_VERSION_RELEASE ? "tarball"
		                                        : "commit",
		        v->kind == BV_VERSION_LOCAL     ? v->tree
		        : v->kind == BV_VERSION_RELEASE ? v->tree + strlen("release-")
		                                        : v->commit,
		        bv_project_current()->name, v->kernel_version, v->rule);
	}
	h->nall = h->nresolved;
	if (rc == 0 && names.n != nkeep)
		bv_strv_pushf(&h->notes,
		              "--every %d: %zu of the %zu versions of the series kept (both ends always)",
		              h->every, nkeep, names.n);
	free(keep);
	bv_strv_free(&names);
	if (rc == 0)
		rc = bv_compat_load(bv_compat_path(), &h->compat);
	for (size_t i = 0; rc == 0 && i < h->nall; i++) {
		bv_semver sv;
		if (bv_semver_parse(h->all[i].kernel_version, &sv) == 0)
			rc = bv_compat_match(h->compat, &sv, &h->all[i].shims);
	}
	if (rc == 0 && bv_interrupted())
		rc = bv_fail_interrupted();
	return rc;
}

/* The results directory, made and held before anything is built (as run's). */
static int open_results(hist *h)
{
	char *root = NULL;
	int rc = 0;
	if (h->cli.results_root)
		root = bv_strdup(h->cli.results_root);
	else
		rc = bv_results_default(&root);
	if (rc == 0) {
		h->dir = bv_results_dir_new(root);
		rc = h->dir ? 0 : BV_ERUN;
	}
	free(root);
	if (rc == 0)
		rc = bv_results_dir_claim(h->dir, &h->lockfd);
	return rc;
}

/* Builds every version of the series; those that do not build are left out
 * (said in the notes), the chain goes on from the last that did.  Versions
 * with one build key (commits that leave the library's tree alone: most of
 * a range) are built once: built side by side they would each make the same
 * build, neither finding the other's in the cache yet. */
static int build_series(hist *h)
{
	size_t *same = bv_xcalloc(h->nall + 1, sizeof(size_t)); /* the first version with i's key */
	char(*keys)[41] = bv_xcalloc(h->nall + 1, sizeof(*keys));
	bv_version *uniq = bv_xcalloc(h->nall + 1, sizeof(bv_version));
	size_t *of = bv_xcalloc(h->nall + 1, sizeof(size_t)), nuniq = 0;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < h->nall; i++) {
		rc = bv_build_key(&h->all[i], keys[i]);
		same[i] = i;
		for (size_t j = 0; rc == 0 && j < i; j++)
			if (!strcmp(keys[i], keys[j])) {
				same[i] = same[j];
				break;
			}
		if (rc == 0 && same[i] == i) {
			uniq[nuniq] = h->all[i]; /* moved back after the build */
			of[nuniq++] = i;
		}
	}
	int failures = 0;
	if (rc == 0) {
		bv_progress *pg = bv_progress_new("build", nuniq);
		rc = bv_build_versions(h->repo, uniq, nuniq, h->cli.jobs, h->lockfd, pg, &failures);
		bv_progress_end(pg);
		/* The builds replaced fields the copies shared with the originals. */
		for (size_t k = 0; k < nuniq; k++)
			h->all[of[k]] = uniq[k];
	}
	for (size_t i = 0; rc == 0 && i < h->nall; i++) {
		const bv_version *u = &h->all[same[i]];
		bv_version *v = &h->all[i];
		if (same[i] == i)
			continue;
		free(v->src_dir), free(v->build_key), free(v->plugin), free(v->build_error);
		v->src_dir = u->src_dir ? bv_strdup(u->src_dir) : NULL;
		v->build_key = u->build_key ? bv_strdup(u->build_key) : NULL;
		v->plugin = u->plugin ? bv_strdup(u->plugin) : NULL;
		v->build_error = u->build_error ? bv_strdup(u->build_error) : NULL;
		v->cached = 1;
		fprintf(stderr, "build: %-12s the same library as %s, nothing rebuilt\n", v->name, u->name);
	}
	free(same), free(keys), free(uniq), free(of);
	if (rc)
		return rc;
	h->built = bv_xcalloc(h->nall + 1, sizeof(size_t));
	for (size_t i = 0; i < h->nall; i++) {
		if (!h->all[i].build_error) {
			h->built[h->nv++] = i;
			continue;
		}
		/* the first line of the error: the log tail follows it */
		char *first = bv_strdup(h->all[i].build_error);
		first[strcspn(first, "\n")] = '\0';
		bv_strv_pushf(&h->notes, "%s did not build (%s): left out of the chain", h->all[i].name,
		              first);
		free(first);
	}
	if (h->nv < 2)
		return bv_fail(BV_ERUN, "%s of the %zu versions of the series built: a history needs two",
		               h->nv ? "only one" : "none", h->nall);
	return 0;
}

/* ---- measuring ------------------------------------------------------------ */

static int cells_plan(hist *h)
{
	bv_cell *cells = NULL;
	char err[256];
	long n = bv_plan_cells(&h->cli.mo, &cells, NULL, err, sizeof(err));
	if (n < 0)
		return bv_fail(BV_EINPUT, "%s", err);
	h->cells = bv_xcalloc((size_t)n + 1, sizeof(hcell));
	for (long k = 0; k < n; k++) {
		hcell *x = &h->cells[h->ncells++];
		x->bench = cells[k].bench->name, x->op = cells[k].op->name, x->backend = cells[k].backend;
		bv_size_format(cells[k].size, x->size, sizeof(x->size));
		x->key = bv_asprintf("%s/%s/%s/%s", x->bench, x->op, x->backend, x->size);
		x->steps = bv_xcalloc(h->nv, sizeof(hstep));
		x->chain = bv_xcalloc(h->nv, sizeof(double));
		x->clo = bv_xcalloc(h->nv, sizeof(double));
		x->chi = bv_xcalloc(h->nv, sizeof(double));
		for (size_t i = 0; i + 1 < h->nv; i++) {
			hstep *st = &x->steps[i];
			st->s.ratio = st->s.lo = st->s.hi = st->s.p = NAN;
			st->p_slower = st->p_faster = NAN;
			st->s.cell = bv_strdup(x->key);
		}
	}
	free(cells);
	return 0;
}

static hcell *cell_of(hist *h, const char *key)
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
static int by_process(const bv_result *a, const bv_result *b, hstep *st)
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
static char *absent_note(const hist *h, size_t step, const bv_step *s)
{
	const char *r = s->absent_reason;
	return bv_asprintf("%s: %s%s%s", ver(h, step + (size_t)s->absent_side)->label, s->absent,
	                   r ? ": " : "", r ? r : "");
}

/* A paired step under the machine's state (cmd_history.h), the trials'
 * states taken from b's change (the same for both versions: measure.c).
 * Only with one layout: with several, each process's step pairs two code
 * placements drawn at random, so its ratios fall into modes up to ~12 %
 * apart on identical code, and a handful of processes whose probes read
 * disturbed can line up with a mode by chance: the usual processes' mode
 * would then be judged a change.  (One CI run of test_history, four
 * layouts, 12 processes, a suite's load beside it, called 0.890 between
 * two identical builds with the split on; whether the split or the
 * placement modes alone did it, its log did not say.) */
static void split_step(const bv_usual *u, double thr, const bv_change *ca, const bv_change *cb, hstep *st)
{
	int rc = bv_history_step_state(u, thr, ca ? ca->proc_ratio : NULL, cb->proc_ratio, cb->proc_gbps,
	                               cb->proc_compute_ns, cb->proc_running, cb->nproc, &st->s, &st->coverage,
	                               &st->state);
	st->unstable = rc == 2;
}

/* The steps of window k (versions first..last of the built series) from its
 * merged logs. */
static void steps_of_window(hist *h, const bv_table *t, size_t first, int window)
{
	bv_usual u = bv_table_usual(t);
	for (size_t r = 0; r < t->nrows; r++) {
		const bv_row *row = &t->rows[r];
		char key[256];
		bv_row_key(row, key, sizeof(key));
		hcell *x = cell_of(h, key);
		if (!x)
			continue;
		for (size_t i = 0; i + 1 < t->nversions; i++) {
			hstep *st = &x->steps[first + i];
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
static int measure_windows(hist *h)
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
				rc = lookup_stored(h, ver(h, first[k] + i), ver(h, first[k] + i + 1),
				                   h->cells[c].key, t, &found);
				all_found = found;
				nfound += found;
			}
		for (size_t c = 0; rc == 0 && all_found && c < h->ncells; c++)
			for (size_t i = 0; i < nsteps; i++) {
				hstep *st = &h->cells[c].steps[first[k] + i];
				bv_step *t = &stored[c * nsteps + i];
				free(t->cell); /* the cell's own key stays */
				t->cell = st->s.cell;
				st->s = *t;
				memset(t, 0, sizeof(*t));
				if (st->s.absent)
					st->why = absent_note(h, first[k] + i, &st->s);
			}
		for (size_t j = 0; j < nfound; j++)
			step_clear(&stored[j]);
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
			copies[i] = *ver(h, first[k] + i); /* shallow: bv_measure only reads them */
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
			rc = bv_measure(copies, m, &o, sub, &logs);
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

/* An inconclusive step whose estimate lies past the band: a change of the
 * threshold's size or more that the processes could not decide (not a
 * step without an interval inside the band, which is a same too short of
 * processes). */
static int past_band(const hstep *st, double thr)
{
	return st->s.verdict == BV_INCONCLUSIVE && isfinite(st->s.ratio) &&
	       (st->s.ratio > 1 + thr || st->s.ratio < 1 / (1 + thr));
}

/* Step i of cell x is such a step and no change point holds it (the span
 * test can call a step the single-step test left inconclusive). */
static int undecided(const hcell *x, size_t i, double thr)
{
	if (!past_band(&x->steps[i], thr))
		return 0;
	for (size_t k = 0; k < x->ncps; k++)
		if (x->cps[k].first <= i && i <= x->cps[k].last)
			return 0;
	return 1;
}

/* After find_changes: the undecided steps. */
static void count_undecided(hist *h)
{
	h->inconclusive = 0;
	for (size_t c = 0; c < h->ncells; c++)
		for (size_t i = 0; i + 1 < h->nv; i++)
			h->inconclusive += undecided(&h->cells[c], i, h->cli.mo.threshold);
}

/* Every step of every cell decided together, by verdict.c's rule
 * (bv_changes_decide, the one run and compare use): slower or faster only
 * when the step's interval says so and its evidence survives
 * Benjamini-Hochberg at BV_FDR over every step tested; `same` only when the
 * estimate lies inside the band with an interval; else inconclusive.  An
 * unstable step is judged on nothing (out of the family); a step with no
 * per-process ratios (none stored) is shown, never called. */
static void decide_steps(hist *h)
{
	double thr = h->cli.mo.threshold;
	size_t cap = h->ncells * h->nv + 1, n = 0;
	bv_change *chs = bv_xcalloc(cap, sizeof(bv_change));
	bv_change **all = bv_xcalloc(cap, sizeof(bv_change *));
	hstep **of = bv_xcalloc(cap, sizeof(hstep *));
	for (size_t c = 0; c < h->ncells; c++)
		for (size_t i = 0; i + 1 < h->nv; i++) {
			hstep *st = &h->cells[c].steps[i];
			st->s.verdict = BV_NO_VERDICT;
			if (!isfinite(st->s.ratio))
				continue;
			bv_change *ch = &chs[n];
			/* A stored step keeps lo and hi only as a 95 % interval
			 * (store.h), not the coverage itself. */
			double cov = st->coverage > 0 ? st->coverage : isfinite(st->s.lo) ? 0.95 : 0;
			ch->valid = 1, ch->verdict = BV_SAME, ch->ratio = st->s.ratio;
			ch->ci_low = st->s.lo, ch->ci_high = st->s.hi, ch->coverage = cov;
			ch->processes = (int)st->s.nproc, ch->unstable = st->unstable;
			ch->controlled = st->s.nproc && !st->unstable;
			ch->p = ch->p_slower = ch->p_faster = NAN;
			if (ch->controlled)
				bv_change_evidence(ch, st->s.proc_ratio, st->s.nproc, thr);
			all[n] = ch, of[n] = st, n++;
		}
	bv_decided d = bv_changes_decide(all, n, BV_FDR, thr);
	for (size_t k = 0; k < n; k++) {
		hstep *st = of[k];
		st->s.verdict = chs[k].verdict;
		st->s.p = chs[k].p, st->p_slower = chs[k].p_slower, st->p_faster = chs[k].p_faster;
		h->unstable += chs[k].unstable;
	}
	size_t m = d.tested, called = d.called;
	free(chs), free(all), free(of);
	h->tested = m, h->called = called;
	for (size_t c = 0; c < h->ncells; c++) {
		hcell *x = &h->cells[c];
		bv_step *s = bv_xcalloc(h->nv, sizeof(bv_step));
		for (size_t i = 0; i + 1 < h->nv; i++)
			s[i] = x->steps[i].s;
		bv_history_chain(s, h->nv - 1, x->chain, x->clo, x->chi);
		free(s);
	}
}

/* ---- output ----------------------------------------------------------------- */

/* The versions left out just before built version j (a step spans them). */
static void gap_before(const hist *h, size_t j, bv_strv *out)
{
	if (j == 0)
		return;
	for (size_t i = h->built[j - 1] + 1; i < h->built[j]; i++)
		bv_strv_push(out, h->all[i].name);
}

/* Whether b is a commit after a with commits between them: the series
 * skipped some, and bisect can narrow a change between the two. */
static int narrowable(const hist *h, const bv_version *a, const bv_version *b)
{
	if (!h->git || a->kind != BV_VERSION_GIT || b->kind != BV_VERSION_GIT)
		return 0;
	git_oid aid, bid;
	if (git_oid_fromstr(&aid, a->commit) || git_oid_fromstr(&bid, b->commit) || git_oid_equal(&aid, &bid))
		return 0;
	if (git_graph_descendant_of(h->git, &bid, &aid) != 1)
		return 0;
	git_commit *c = NULL;
	if (git_commit_lookup(&c, h->git, &bid) < 0)
		return 0;
	int child = git_commit_parentcount(c) >= 1 && git_oid_equal(git_commit_parent_id(c, 0), &aid);
	git_commit_free(c);
	return !child;
}

/* The bisect command that narrows change point cp of cell x, or NULL. */
static char *bisect_command(const hist *h, const hcell *x, const bv_change_point *cp)
{
	const bv_version *a = ver(h, cp->first), *b = ver(h, cp->last + 1);
	if (!narrowable(h, a, b))
		return NULL;
	/* The cell's names quoted as a shell reads them back: a suite's op
	 * carries brackets (pack[level=9]), a glob to an unquoted shell. */
	bv_buf c = BV_BUF_INIT;
	bv_buf_printf(&c, "bench-versions bisect --good %.12s --bad %.12s", a->commit, b->commit);
	const char *opt[] = {" --bench ", " --op ", " --backend ", " --size "};
	const char *val[] = {x->bench, x->op, x->backend, x->size};
	for (int i = 0; i < 4; i++) {
		bv_buf_puts(&c, opt[i]);
		bv_shell_word(&c, val[i]);
	}
	bv_buf_printf(&c, "%s%s", h->first_parent ? " --first-parent" : "",
	              cp->direction == BV_FASTER ? " --improvement" : "");
	return bv_buf_detach(&c);
}

/* "0.1.1 (1a2b3c4d5e6f)", or the name alone when it is the short commit. */
static void version_words(const bv_version *v, char *buf, size_t len)
{
	if (v->kind == BV_VERSION_GIT && strncmp(v->name, v->commit, strlen(v->name)))
		snprintf(buf, len, "%s (%.12s)", v->name, v->commit);
	else
		snprintf(buf, len, "%s", v->name);
}

static int change_at(const hcell *x, size_t j) /* a change point ends at version j */
{
	for (size_t k = 0; k < x->ncps; k++)
		if (x->cps[k].last + 1 == j)
			return 1;
	return 0;
}

static void fmt_num(double v, char *buf, size_t len)
{
	if (isfinite(v))
		snprintf(buf, len, "%.3f", v);
	else
		snprintf(buf, len, "-");
}

static void fmt_interval(double r, double lo, double hi, char *buf, size_t len)
{
	if (!isfinite(r))
		snprintf(buf, len, "no ratio");
	else if (isfinite(lo) && isfinite(hi))
		snprintf(buf, len, "%.3f [%.3f, %.3f]", r, lo, hi);
	else
		snprintf(buf, len, "%.3f [no 95%% interval]", r);
}

/* One change point in words, as the table, markdown and HTML print it:
 * where it begins and ends, its size with interval, and what it spans. */
typedef struct {
	char from[96], to[96], size[96];
	char gap[96]; /* "" or " (the change spans 2 versions that did not build)" */
	/* "" when each of its steps was called in its direction alone; else why
	 * the steps' own verdicts (the table's, the JSON's) do not show it */
	char why[160];
} change_line;

/* How many of a change point's steps the single-step test called in its
 * direction.  The two tests differ: a change point is found over spans of
 * steps too (changepoint.c), so a gradual change is listed while each of
 * its steps stays inconclusive, and a listing that does not say so reads
 * as the history disagreeing with itself. */
static size_t steps_agreeing(const hcell *x, const bv_change_point *cp)
{
	size_t n = 0;
	for (size_t i = cp->first; i <= cp->last; i++)
		n += x->steps[i].s.verdict == cp->direction;
	return n;
}

static size_t changes_beyond_steps(const hist *h)
{
	size_t n = 0;
	for (size_t c = 0; c < h->ncells; c++)
		for (size_t k = 0; k < h->cells[c].ncps; k++) {
			const bv_change_point *cp = &h->cells[c].cps[k];
			n += steps_agreeing(&h->cells[c], cp) < cp->last - cp->first + 1;
		}
	return n;
}

static void change_line_of(const hist *h, const hcell *x, const bv_change_point *cp, change_line *l)
{
	size_t span = cp->last - cp->first + 1, agree = steps_agreeing(x, cp);
	l->why[0] = '\0';
	if (span == 1 && agree == 0)
		snprintf(l->why, sizeof(l->why), " (its step alone: %s; the change-point test called it)",
		         x->steps[cp->first].s.verdict ? bv_verdict_name(x->steps[cp->first].s.verdict) : "no verdict");
	else if (span > 1 && agree == 0)
		snprintf(l->why, sizeof(l->why), " (gradual, over %zu steps: no step called alone)", span);
	else if (span > 1 && agree < span)
		snprintf(l->why, sizeof(l->why), " (gradual, over %zu steps: %zu called alone)", span, agree);
	version_words(ver(h, cp->first), l->from, sizeof(l->from));
	version_words(ver(h, cp->last + 1), l->to, sizeof(l->to));
	fmt_interval(cp->ratio, cp->lo, cp->hi, l->size, sizeof(l->size));
	bv_strv gap = {0};
	for (size_t j = cp->first + 1; j <= cp->last + 1; j++)
		gap_before(h, j, &gap);
	l->gap[0] = '\0';
	if (gap.n)
		snprintf(l->gap, sizeof(l->gap), " (the change spans %zu %s that did not build)", gap.n,
		         bv_plural((long long)gap.n, "version", "versions"));
	bv_strv_free(&gap);
}

static size_t count_changes(const hist *h)
{
	size_t n = 0;
	for (size_t c = 0; c < h->ncells; c++)
		n += h->cells[c].ncps;
	return n;
}

static void control_line(const hist *h, FILE *out)
{
	fprintf(out,
	        "%zu %s of %zu %s decided together at a %g%% false-discovery rate (Benjamini-Hochberg over "
	        "anytime-valid sign tests against the %.1f%% band); %zu %s alone; %zu %s listed",
	        h->tested, bv_plural((long long)h->tested, "step", "steps"), h->ncells,
	        bv_plural((long long)h->ncells, "cell", "cells"), BV_FDR * 100, h->cli.mo.threshold * 100,
	        h->called, h->called == 1 ? "step called" : "steps called", count_changes(h),
	        bv_plural((long long)count_changes(h), "change", "changes"));
	size_t beyond = changes_beyond_steps(h);
	if (beyond)
		fprintf(out, " (%zu where the steps alone were not all called: the change-point test over spans)",
		        beyond);
	if (h->inconclusive)
		fprintf(out,
		        "; %zu inconclusive past the band outside the listed changes (not decided in %d processes "
		        "at most: measure again "
		        "with more%s)",
		        h->inconclusive, h->cli.mo.max_processes,
		        h->cli.mo.quick ? ", without --quick or with a larger --max-processes" : ", --max-processes");
	if (h->unstable)
		fprintf(out, "; %zu unstable (the machine changed under %s)", h->unstable,
		        h->unstable == 1 ? "it" : "them");
	fputc('\n', out);
}

/* The undecided steps, a line each (at most 10), so that a change the
 * history could not decide is named, not left to the chain. */
static void inconclusive_lines(const hist *h, FILE *out)
{
	size_t shown = 0;
	double thr = h->cli.mo.threshold;
	for (size_t c = 0; c < h->ncells; c++)
		for (size_t i = 0; i + 1 < h->nv; i++) {
			const hstep *st = &h->cells[c].steps[i];
			if (!undecided(&h->cells[c], i, thr) || shown++ >= 10)
				continue;
			char lo[32], hi[32];
			fmt_num(st->s.lo, lo, sizeof(lo)), fmt_num(st->s.hi, hi, sizeof(hi));
			fprintf(out, "inconclusive: %s, %s -> %s: %.3f [%s, %s] in %zu processes\n", h->cells[c].key,
			        ver(h, i)->label, ver(h, i + 1)->label, st->s.ratio, lo, hi, st->s.nproc);
		}
	if (shown > 10)
		fprintf(out, "inconclusive: %zu more (history.json has every step)\n", shown - 10);
}

static void print_table(const hist *h, FILE *out)
{
	size_t kw = 4;
	for (size_t c = 0; c < h->ncells; c++)
		kw = strlen(h->cells[c].key) > kw ? strlen(h->cells[c].key) : kw;
	size_t *w = bv_xcalloc(h->nv, sizeof(size_t));
	fprintf(out, "%-*s", (int)kw, "cell");
	for (size_t j = 0; j < h->nv; j++) {
		w[j] = strlen(ver(h, j)->label) > 7 ? strlen(ver(h, j)->label) : 7;
		fprintf(out, "  %*s", (int)w[j], ver(h, j)->label);
	}
	fprintf(out, "\n");
	for (size_t c = 0; c < h->ncells; c++) {
		const hcell *x = &h->cells[c];
		fprintf(out, "%-*s", (int)kw, x->key);
		for (size_t j = 0; j < h->nv; j++) {
			char num[32], cellbuf[40];
			fmt_num(x->chain[j], num, sizeof(num));
			snprintf(cellbuf, sizeof(cellbuf), "%s%s", num, change_at(x, j) ? "*" : "");
			fprintf(out, "  %*s", (int)w[j], cellbuf);
		}
		fprintf(out, "\n");
	}
	free(w);
	fprintf(out,
	        "(each version's time over %s's, the product of the paired steps; a cell new later starts at 1 "
	        "at its first version; * a change point)\n",
	        ver(h, 0)->label);
	fprintf(out, "\nchanges:%s\n", count_changes(h) ? "" : " none");
	for (size_t c = 0; c < h->ncells; c++) {
		const hcell *x = &h->cells[c];
		for (size_t k = 0; k < x->ncps; k++) {
			const bv_change_point *cp = &x->cps[k];
			change_line l;
			change_line_of(h, x, cp, &l);
			fprintf(out, "  %s: %s -> %s: %s %s%s%s\n", x->key, l.from, l.to, l.size,
			        bv_verdict_name(cp->direction), l.gap, l.why);
			char *cmd = bisect_command(h, x, cp);
			if (cmd)
				fprintf(out, "    narrow it: %s\n", cmd);
			free(cmd);
		}
	}
	fprintf(out, "\n");
	inconclusive_lines(h, out);
	control_line(h, out);
	fprintf(out, "windows: %zu of up to %d versions, overlapping by one\n", h->nwindows, h->window);
	for (size_t i = 0; i < h->notes.n; i++)
		fprintf(out, "note: %s\n", h->notes.v[i]);
	for (size_t c = 0; c < h->ncells; c++)
		for (size_t i = 0; i + 1 < h->nv; i++)
			for (int k = 0; k < 2; k++) {
				const char *why = k ? h->cells[c].steps[i].state : h->cells[c].steps[i].why;
				if (why)
					fprintf(out, "note: %s, %s -> %s: %s\n", h->cells[c].key, ver(h, i)->label,
					        ver(h, i + 1)->label, why);
			}
}

static void print_markdown(const hist *h, FILE *out)
{
	fprintf(out, "### Performance history\n\n| cell |");
	for (size_t j = 0; j < h->nv; j++) {
		fprintf(out, " ");
		bv_md_esc(out, ver(h, j)->label);
		fprintf(out, " |");
	}
	fprintf(out, "\n|---|");
	for (size_t j = 0; j < h->nv; j++)
		fprintf(out, "---:|");
	fprintf(out, "\n");
	for (size_t c = 0; c < h->ncells; c++) {
		const hcell *x = &h->cells[c];
		fprintf(out, "| `%s` |", x->key);
		for (size_t j = 0; j < h->nv; j++) {
			char num[32];
			fmt_num(x->chain[j], num, sizeof(num));
			fprintf(out, change_at(x, j) ? " **%s** |" : " %s |", num);
		}
		fprintf(out, "\n");
	}
	fprintf(
	    out,
	    "\nEach version's time over %s's (the product of paired steps); **bold**: a change point.\n\n",
	    ver(h, 0)->label);
	size_t nchanges = count_changes(h);
	fprintf(out, "**Changes:**%s\n\n", nchanges ? "" : " none");
	for (size_t c = 0; c < h->ncells; c++) {
		const hcell *x = &h->cells[c];
		for (size_t k = 0; k < x->ncps; k++) {
			const bv_change_point *cp = &x->cps[k];
			change_line l;
			change_line_of(h, x, cp, &l);
			fprintf(out, "- `%s`: ", x->key);
			bv_md_esc(out, l.from);
			fprintf(out, " -> ");
			bv_md_esc(out, l.to);
			fprintf(out, ": %s **%s**%s%s\n", l.size, bv_verdict_name(cp->direction), l.gap,
			        l.why);
			char *cmd = bisect_command(h, x, cp);
			if (cmd)
				fprintf(out, "  - narrow it: `%s`\n", cmd);
			free(cmd);
		}
	}
	if (nchanges)
		fprintf(out, "\n");
	fprintf(out, "<sub>");
	control_line(h, out);
	fprintf(out, "</sub>\n");
	for (size_t i = 0; i < h->notes.n; i++) {
		fprintf(out, "\n> ");
		bv_md_esc(out, h->notes.v[i]);
		fprintf(out, "\n");
	}
}

static void add_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

/* versions: each version of the series, with what was left out before it
 * (builds that failed, versions --every skipped). */
static void hjson_versions(cJSON *doc, const hist *h)
{
	cJSON *va = cJSON_AddArrayToObject(doc, "versions");
	for (size_t j = 0; j < h->nv; j++) {
		const bv_version *v = ver(h, j);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", v->name);
		cJSON_AddStringToObject(o, "label", v->label);
		if (v->kind == BV_VERSION_GIT)
			cJSON_AddStringToObject(o, "commit", v->commit);
		else
			cJSON_AddNullToObject(o, "commit");
		cJSON_AddStringToObject(o, "tree", v->tree);
		cJSON_AddStringToObject(o, "kernel_version", v->kernel_version ? v->kernel_version : "");
		if (v->build_key)
			cJSON_AddStringToObject(o, "build_key", v->build_key);
		bv_strv gap = {0};
		gap_before(h, j, &gap);
		cJSON *g = cJSON_AddArrayToObject(o, "left_out_before");
		for (size_t i = 0; i < gap.n; i++)
			cJSON_AddItemToArray(g, cJSON_CreateString(gap.v[i]));
		bv_strv_free(&gap);
		cJSON_AddItemToArray(va, o);
	}
}

/* One step of a cell (version i to i + 1): its test and, if a listed change
 * holds it, that change's direction. */
static cJSON *hjson_step(const hist *h, const hcell *x, size_t i)
{
	const hstep *st = &x->steps[i];
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "from", ver(h, i)->label);
	cJSON_AddStringToObject(s, "to", ver(h, i + 1)->label);
	add_num(s, "ratio", st->s.ratio);
	add_num(s, "ci_low", st->s.lo);
	add_num(s, "ci_high", st->s.hi);
	cJSON_AddNumberToObject(s, "processes", (double)st->s.nproc);
	if (st->s.verdict)
		cJSON_AddStringToObject(s, "verdict", bv_verdict_name(st->s.verdict));
	else
		cJSON_AddNullToObject(s, "verdict");
	add_num(s, "p", st->s.p);
	cJSON_AddBoolToObject(s, "paired", st->s.nproc > 0);
	cJSON_AddNumberToObject(s, "window", st->window);
	if (st->why)
		cJSON_AddStringToObject(s, "note", st->why);
	if (st->state)
		cJSON_AddStringToObject(s, "state", st->state);
	/* the listed change that holds this step, if any: its
	 * verdict is the step's own test, this the change's */
	const char *in_change = NULL;
	for (size_t k = 0; k < x->ncps; k++)
		if (x->cps[k].first <= i && i <= x->cps[k].last)
			in_change = bv_verdict_name(x->cps[k].direction);
	if (in_change)
		cJSON_AddStringToObject(s, "change_point", in_change);
	else
		cJSON_AddNullToObject(s, "change_point");
	return s;
}

/* A cell's chain: each version's ratio to the first, with its interval. */
static void hjson_chain(cJSON *o, const hist *h, const hcell *x)
{
	cJSON *ch = cJSON_AddArrayToObject(o, "chain");
	for (size_t j = 0; j < h->nv; j++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "version", ver(h, j)->label);
		add_num(e, "ratio", x->chain[j]);
		add_num(e, "ci_low", x->clo[j]);
		add_num(e, "ci_high", x->chi[j]);
		cJSON_AddItemToArray(ch, e);
	}
}

/* One listed change of a cell: its ends, its steps, how many of them are
 * called on their own, and the bisect command that finds its commit. */
static cJSON *hjson_change_point(const hist *h, const hcell *x, const bv_change_point *cp)
{
	const bv_version *a = ver(h, cp->first), *b = ver(h, cp->last + 1);
	cJSON *e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "cell", x->key);
	cJSON_AddStringToObject(e, "from", a->label);
	cJSON_AddStringToObject(e, "to", b->label);
	if (a->kind == BV_VERSION_GIT)
		cJSON_AddStringToObject(e, "from_commit", a->commit);
	if (b->kind == BV_VERSION_GIT)
		cJSON_AddStringToObject(e, "to_commit", b->commit);
	cJSON_AddNumberToObject(e, "first_step", (double)cp->first);
	cJSON_AddNumberToObject(e, "last_step", (double)cp->last);
	add_num(e, "ratio", cp->ratio);
	add_num(e, "ci_low", cp->lo);
	add_num(e, "ci_high", cp->hi);
	cJSON_AddStringToObject(e, "direction", bv_verdict_name(cp->direction));
	/* the steps' own verdicts may not show it: say how many do */
	cJSON_AddNumberToObject(e, "steps", (double)(cp->last - cp->first + 1));
	cJSON_AddNumberToObject(e, "steps_called", (double)steps_agreeing(x, cp));
	char *cmd = bisect_command(h, x, cp);
	if (cmd)
		cJSON_AddStringToObject(e, "bisect", cmd);
	else
		cJSON_AddNullToObject(e, "bisect");
	free(cmd);
	return e;
}

/* cells: each cell's steps and chain; changes: every cell's listed changes,
 * in the cells' order. */
static void hjson_cells(cJSON *doc, const hist *h)
{
	cJSON *ca = cJSON_AddArrayToObject(doc, "cells");
	cJSON *changes = cJSON_CreateArray();
	for (size_t c = 0; c < h->ncells; c++) {
		const hcell *x = &h->cells[c];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "cell", x->key);
		cJSON_AddStringToObject(o, "bench", x->bench);
		cJSON_AddStringToObject(o, "op", x->op);
		cJSON_AddStringToObject(o, "backend", x->backend);
		cJSON_AddStringToObject(o, "size", x->size);
		cJSON *sa = cJSON_AddArrayToObject(o, "steps");
		for (size_t i = 0; i + 1 < h->nv; i++)
			cJSON_AddItemToArray(sa, hjson_step(h, x, i));
		hjson_chain(o, h, x);
		cJSON_AddItemToArray(ca, o);
		for (size_t k = 0; k < x->ncps; k++)
			cJSON_AddItemToArray(changes, hjson_change_point(h, x, &x->cps[k]));
	}
	cJSON_AddItemToObject(doc, "changes", changes);
}

static cJSON *history_json(const hist *h)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", HISTORY_SCHEMA);
	cJSON_AddNumberToObject(doc, "schema_version", HISTORY_SCHEMA_VERSION);
	cJSON *series = cJSON_AddObjectToObject(doc, "series");
	cJSON_AddStringToObject(series, "kind", h->range ? "range" : h->releases ? "releases" : "list");
	if (h->range)
		cJSON_AddStringToObject(series, "range", h->range);
	cJSON_AddBoolToObject(series, "first_parent", h->first_parent);
	cJSON_AddNumberToObject(series, "every", h->every);
	cJSON_AddNumberToObject(doc, "window", h->window);
	cJSON_AddNumberToObject(doc, "windows", (double)h->nwindows);
	cJSON_AddNumberToObject(doc, "threshold", h->cli.mo.threshold);
	cJSON_AddNumberToObject(doc, "fdr", BV_FDR);
	cJSON_AddNumberToObject(doc, "tested", (double)h->tested);
	cJSON_AddNumberToObject(doc, "called", (double)h->called);
	cJSON_AddNumberToObject(doc, "inconclusive", (double)h->inconclusive);
	cJSON_AddNumberToObject(doc, "unstable", (double)h->unstable);
	if (h->dir)
		cJSON_AddStringToObject(doc, "results", h->dir);
	hjson_versions(doc, h);
	cJSON *lo = cJSON_AddArrayToObject(doc, "left_out");
	for (size_t i = 0; i < h->nall; i++)
		if (h->all[i].build_error) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", h->all[i].name);
			cJSON_AddStringToObject(o, "reason", "build failed");
			cJSON_AddStringToObject(o, "build_error", h->all[i].build_error);
			cJSON_AddItemToArray(lo, o);
		}
	hjson_cells(doc, h);
	cJSON *na = cJSON_AddArrayToObject(doc, "notes");
	for (size_t i = 0; i < h->notes.n; i++)
		cJSON_AddItemToArray(na, cJSON_CreateString(h->notes.v[i]));
	return doc;
}

/* ---- the HTML timeline (history_html.c draws it from this view) ---------- */

/* "relu: a -> b: 3.040 [2.862, 3.183] slower", without the cell: the
 * table's change line. */
static char *change_text(const hist *h, const hcell *x, const bv_change_point *cp)
{
	change_line l;
	change_line_of(h, x, cp, &l);
	return bv_asprintf("%s -> %s: %s %s%s%s", l.from, l.to, l.size, bv_verdict_name(cp->direction), l.gap,
	                   l.why);
}

static int print_html(const hist *h, FILE *out)
{
	bv_history_html_view v;
	memset(&v, 0, sizeof(v));
	bv_strv labels = {0}, titles = {0};
	char *series_text = NULL;
	size_t slen = 0;
	FILE *sm = open_memstream(&series_text, &slen);
	if (sm) {
		if (h->range)
			fputs(h->range, sm);
		else if (h->releases)
			fputs("every release", sm);
		else
			for (size_t i = 0; i < h->nnames; i++)
				fprintf(sm, "%s%s", i ? " " : "", h->names[i]);
		fclose(sm);
	}
	for (size_t j = 0; j < h->nv; j++) {
		char words[96];
		version_words(ver(h, j), words, sizeof(words));
		bv_strv_push(&labels, ver(h, j)->label);
		bv_strv_push(&titles, words);
	}
	char *control = NULL,
	     *windows = bv_asprintf("%zu %s of up to %d versions, overlapping by one", h->nwindows,
	                            bv_plural((long long)h->nwindows, "window", "windows"), h->window);
	size_t clen = 0;
	FILE *m = open_memstream(&control, &clen);
	if (m) {
		control_line(h, m);
		fclose(m);
		if (clen && control[clen - 1] == '\n')
			control[clen - 1] = 0;
	}
	bv_history_html_cell *cells = bv_xcalloc(h->ncells + 1, sizeof(*cells));
	for (size_t c = 0; c < h->ncells; c++) {
		const hcell *x = &h->cells[c];
		bv_history_html_cell *o = &cells[c];
		o->key = x->key, o->chain = x->chain, o->clo = x->clo, o->chi = x->chi;
		o->cps = x->cps, o->ncps = x->ncps;
		char **lines = bv_xcalloc(x->ncps + 1, sizeof(char *));
		char **bisect = bv_xcalloc(x->ncps + 1, sizeof(char *));
		const char **why = bv_xcalloc(h->nv, sizeof(char *));
		for (size_t k = 0; k < x->ncps; k++) {
			lines[k] = change_text(h, x, &x->cps[k]);
			bisect[k] = bisect_command(h, x, &x->cps[k]);
		}
		for (size_t i = 0; i + 1 < h->nv; i++)
			why[i] = x->steps[i].why ? x->steps[i].why : x->steps[i].state;
		o->lines = (const char *const *)lines, o->bisect = (const char *const *)bisect;
		o->step_notes = why;
	}
	v.series = series_text ? series_text : "";
	v.machine_class = h->cls;
	v.method = h->method;
	v.control = control ? control : "";
	v.windows = windows;
	v.labels = (const char *const *)labels.v, v.titles = (const char *const *)titles.v, v.nv = h->nv;
	v.cells = cells, v.ncells = h->ncells;
	v.notes = (const char *const *)h->notes.v, v.nnotes = h->notes.n;
	int rc = bv_history_html(&v, out);
	for (size_t c = 0; c < h->ncells; c++) {
		for (size_t k = 0; k < cells[c].ncps; k++) {
			free((char *)cells[c].lines[k]);
			free((char *)cells[c].bisect[k]);
		}
		free((void *)cells[c].lines), free((void *)cells[c].bisect),
		    free((void *)cells[c].step_notes);
	}
	free(cells);
	free(control), free(windows), free(series_text);
	bv_strv_free(&labels), bv_strv_free(&titles);
	return rc;
}

/* --format html: the page on stdout and kept beside history.json as
 * history.html, so the results directory holds it to open later. */
static int write_html(const hist *h)
{
	char *path = bv_asprintf("%s/history.html", h->dir);
	FILE *f = fopen(path, "w");
	int rc = 0;
	if (!f)
		rc = bv_fail(BV_ERUN, "cannot write %s: %s", path, strerror(errno));
	else if (print_html(h, f) != 0 || fclose(f) != 0)
		rc = bv_fail(BV_ERUN, "cannot write %s: %s", path, strerror(errno));
	if (rc == 0 && print_html(h, stdout) != 0)
		rc = bv_fail(BV_ERUN, "cannot write the page to stdout");
	free(path);
	return rc;
}

/* ---- the command ------------------------------------------------------------ */

int bv_cmd_history(int argc, char **argv)
{
	hist h;
	memset(&h, 0, sizeof(h));
	h.lockfd = -1;
	int code = parse_options(argc, argv, &h);
	if (code >= 0) {
		free(h.names);
		return code;
	}
	if (h.import) {
		int irc = import_run(&h);
		if (irc)
			fprintf(stderr, "bench-versions history: %s\n", bv_error_last());
		free(h.names);
		hist_free(&h);
		return irc ? bv_exit_code(irc) : 0;
	}
	int rc = resolve_series(&h);
	if (rc == 0)
		rc = open_results(&h);
	if (rc == 0)
		rc = build_series(&h);
	/* A project suite: the versions' builds describe its cells, merged
	 * over the series (a benchmark later commits add is n/a before them)
	 * and registered before any cell is planned, as run does (suite.h). */
	if (rc == 0)
		rc = bv_suite_describe(h.all, h.nall, h.dir, &h.cli.mo);
	if (rc == 0)
		rc = cells_plan(&h);
	if (rc == 0)
		rc = open_store(&h);
	if (rc == 0)
		rc = measure_windows(&h);
	if (rc == 0) {
		decide_steps(&h);
		rc = keep_steps(&h);
	}
	if (rc == 0)
		rc = find_changes(&h);
	if (rc == 0)
		count_undecided(&h);
	if (rc == 0) {
		cJSON *doc = history_json(&h);
		char *path = bv_asprintf("%s/history.json", h.dir);
		rc = bv_json_save(path, doc);
		free(path);
		if (rc == 0 && !strcmp(h.format, "json")) {
			char *text = cJSON_Print(doc);
			printf("%s\n", text);
			free(text);
		} else if (rc == 0 && !strcmp(h.format, "markdown")) {
			print_markdown(&h, stdout);
		} else if (rc == 0 && !strcmp(h.format, "html")) {
			rc = write_html(&h);
		} else if (rc == 0) {
			print_table(&h, stdout);
		}
		cJSON_Delete(doc);
		if (rc == 0)
			fprintf(stderr, "results: %s\n", h.dir);
	}
	if (rc && rc != BV_EINTR && bv_interrupted())
		rc = bv_fail_interrupted();
	if (rc) {
		fprintf(stderr, "bench-versions history: %s\n", bv_error_last());
		/* Nothing measured (a bad range, nothing built): no empty directory
		 * stays behind.  Measured windows stay, with their logs. */
		if (h.dir && !h.measured)
			bv_rm_rf(h.dir);
	}
	free(h.names);
	hist_free(&h);
	return rc ? bv_exit_code(rc) : 0;
}
