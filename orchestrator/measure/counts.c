/*
 * counts.c - why a cell changed: each side's cell run once under Valgrind's
 * callgrind, the counts compared (counts.h says what they can tell).
 *
 * Order of work: the changes to explain are listed (o->which); each needs one
 * count per side, found in the run's counts.json (an earlier explain of the
 * same directory), else in the cache (<cache>/counts/<build key>/<id>.json),
 * else made: `valgrind --tool=callgrind ... bv-runner --count`, at most
 * o->jobs at once, each with a deadline, each in a process group of its own
 * that is killed whole when it ends; we are a subreaper meanwhile, so what
 * left that group (a setsid()'d process of the counted code) comes to us
 * and is killed too.  A count read from a file is checked first: the
 * cache's names its build, identity and cell, and each carries a digest of
 * what it says (count_digest); one that does not match is made again,
 * never shown.  What a count could not do (Valgrind missing or silent, a
 * crash, a deadline) is that count's status, shown beside the verdict;
 * nothing here fails a run but a results file that cannot be written or an
 * interruption.
 *
 * This file holds the stage (bv_counts_explain: what to count, counts.json
 * written, each change's comparison and the table's counts line) and the
 * comparison of two counts (bv_count_compare: code, data, placement, mixed
 * or unknown).  The counts are found or made in counts_make.c; a count is
 * read from callgrind's file and kept as JSON, with its digest, in
 * counts_files.c.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common.h"
#include "counts.h"
#include "counts_files.h"
#include "counts_make.h"
#include "fs.h"
#include "json.h"
#include "status.h"
#include "table.h"

const char *const bv_count_event_names[BV_EV_COUNT] = {"Ir",   "Dr",   "Dw", "I1mr", "D1mr", "D1mw", "ILmr",
						       "DLmr", "DLmw", "Bc", "Bcm",  "Bi",   "Bim"};
const char *const bv_counts_values[] = {"changed", "all", "none", NULL};

bv_counts_which bv_counts_parse(const char *s)
{
	return !strcmp(s, "all") ? BV_COUNTS_ALL : !strcmp(s, "none") ? BV_COUNTS_NONE : BV_COUNTS_CHANGED;
}

void bv_count_free(bv_count *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nfns; i++)
		free(c->fns[i].name);
	free(c->fns), free(c->label), free(c->cell), free(c->reason), free(c->simd_isa);
	free(c->profile);
	memset(c, 0, sizeof(*c));
}

void bv_count_cmp_free(bv_count_cmp *c)
{
	if (!c)
		return;
	free(c->text), free(c->fn), free(c->counted_isa), free(c->timed_isa);
	free(c);
}

/* ---- comparing two counts ---------------------------------------------- */

static double rel(double a, double b) { return a > 0 ? b / a - 1 : b > 0 ? INFINITY : 0; }

/* Instructions equal within 10 ppm: identical code gives identical counts
 * (a 0.1 % change, a few instructions in a 1M-element loop, is 100 times
 * that); misses within 1 % or 16 lines, since the data's addresses may move
 * by whole pages between two loads of different libraries. */
static int same_instr(double a, double b) { return fabs(b - a) <= 1e-5 * (a > b ? a : b); }
static int same_misses(double a, double b) { return fabs(b - a) <= fmax(16.0, 0.01 * fmax(a, b)); }

static void pct(double r, char *buf, size_t len)
{
	if (isinf(r))
		snprintf(buf, len, "new");
	else if (fabs(r) < 1e-3)
		snprintf(buf, len, "%+.3f %%", 100 * r);
	else if (fabs(r) < 0.1)
		snprintf(buf, len, "%+.2f %%", 100 * r);
	else
		snprintf(buf, len, "%+.1f %%", 100 * r);
}

/* The ISA a side's timed code ran on, where the counted code may differ:
 * the simd backend's own dispatch (the log's simd_isa), and OpenBLAS's,
 * which follows the CPU (Valgrind presents AVX2 whatever the machine). */
static const char *timed_isa(const char *backend, const char *timed_simd, const char *machine_isa)
{
	if (!strcmp(backend, "simd"))
		return timed_simd;
	if (!strcmp(backend, "blas"))
		return machine_isa && !strncmp(machine_isa, "avx512", 6) ? "avx512" : "avx2";
	return NULL;
}

/* Whether a reason names AVX-512 ("no AVX-512F", "avx512f", "AVX512"). */
static int names_avx512(const char *reason)
{
	for (const char *p = reason; p && *p; p++)
		if (!strncasecmp(p, "avx512", 6) || !strncasecmp(p, "avx-512", 7))
			return 1;
	return 0;
}

char *bv_count_missing_note(const bv_count *base, const bv_count *cand)
{
	const bv_count *bad = base->status != BV_ST_OK ? base : cand->status != BV_ST_OK ? cand : NULL;
	if (!bad)
		return NULL;
	/* Timed natively (the only cells counted) but skipped or n/a under
	 * Valgrind: Valgrind's CPU, not the version, is what lacks it.  Said
	 * of the variant, not of a version, so every version's row reads the
	 * same. */
	const bv_count *vg = base->status == BV_ST_SKIPPED || base->status == BV_ST_NA ? base
			     : cand->status == BV_ST_SKIPPED || cand->status == BV_ST_NA ? cand
										      : NULL;
	if (vg && (names_avx512(base->reason) || names_avx512(cand->reason)))
		return bv_strdup("not counted: this variant needs AVX-512, which Valgrind cannot run");
	if (vg)
		return bv_asprintf("not counted: this variant cannot run under Valgrind (%s)",
				   vg->reason ? vg->reason : bv_status_name(vg->status));
	return bv_asprintf("not counted: %s %s%s%s", bad->label, bv_status_name(bad->status), bad->reason ? ": " : "",
			   bad->reason ? bad->reason : "");
}

/* A rough cost of a call in cycles from its counts: each instruction 1,
 * each first-level data miss 10, each last-level one 100, each
 * mispredicted branch 15.  Only for bv_count_weigh: whether the counts can
 * explain the time at all, never shown as a time. */
static double modeled_cost(const double *e)
{
	return e[BV_EV_IR] + 10 * (e[BV_EV_D1MR] + e[BV_EV_D1MW]) + 100 * (e[BV_EV_DLMR] + e[BV_EV_DLMW]) +
	       15 * (e[BV_EV_BCM] + e[BV_EV_BIM]);
}

const char *bv_count_time_kind(const char *kind, double time_ratio, double cost)
{
	if ((strcmp(kind, "code") && strcmp(kind, "data")) || !(time_ratio > 0) || !isfinite(time_ratio) ||
	    !isfinite(cost) || cost <= -1)
		return kind;
	double t = log(time_ratio), w = log1p(cost);
	if ((t < 0 && w > 0) || (t > 0 && w < 0)) /* the other way */
		return "mixed";
	if (fabs(t) > BV_COUNT_TIME_FACTOR * fabs(w) + log1p(BV_COUNT_TIME_FLOOR)) /* far more */
		return "mixed";
	return kind;
}

void bv_count_weigh(bv_count_cmp *c, double time_ratio, int layouts)
{
	const char *kind = bv_count_time_kind(c->kind, time_ratio, c->cost);
	if (kind == c->kind)
		return;
	char tp[32], cp[32];
	pct(time_ratio - 1, tp, sizeof(tp));
	pct(c->cost, cp, sizeof(cp));
	int against = (time_ratio < 1) != (c->cost < 0);
	/* The other way: what moved the time is not this code.  Far more:
	 * the counts carry only part of it, and the rest may be the new code's
	 * latency, which counts do not see (a SIMD math library's new scalar
	 * functions: -17 % instructions, -63 % time, verified outside the
	 * tool), as well as placement or the machine: not said to be either. */
	char *text = against ? bv_asprintf("%s, but the time went the other way (%s against the counts' %s): placement "
					   "or machine dominates, not the code%s",
					   c->text, tp, cp,
					   layouts > 1 ? " (across the layouts measured: more likely the machine)"
						       : "; --layouts 4 tells placement from the machine")
			     : bv_asprintf("%s, but the time moved far more (%s against the counts' %s): more than the "
					   "counted work explains (latency the counts do not see, placement or the "
					   "machine)%s",
					   c->text, tp, cp,
					   layouts > 1 ? "" : "; --layouts 4 tells placement apart");
	free(c->text);
	c->text = text;
	c->kind = kind;
}

bv_count_cmp *bv_count_compare(const bv_count *base, const bv_count *cand, const char *backend,
			       const char *timed_base, const char *timed_cand, const char *machine_isa)
{
	bv_count_cmp *c = bv_xcalloc(1, sizeof(*c));
	c->kind = "unknown";
	c->instr = c->d1 = c->ll = c->mispred = c->cost = NAN;
	if (!strcmp(backend, "cuda")) {
		c->text = bv_strdup("not counted: a GPU cell");
		return c;
	}
	char *missing = bv_count_missing_note(base, cand);
	if (missing) {
		c->text = missing;
		return c;
	}
	const double *a = base->ev, *b = cand->ev;
	c->ir_base = a[BV_EV_IR], c->ir_cand = b[BV_EV_IR];
	c->instr = rel(a[BV_EV_IR], b[BV_EV_IR]);
	c->d1 = rel(a[BV_EV_D1MR] + a[BV_EV_D1MW], b[BV_EV_D1MR] + b[BV_EV_D1MW]);
	c->ll = rel(a[BV_EV_DLMR] + a[BV_EV_DLMW], b[BV_EV_DLMR] + b[BV_EV_DLMW]);
	c->mispred = rel(a[BV_EV_BCM] + a[BV_EV_BIM], b[BV_EV_BCM] + b[BV_EV_BIM]);
	c->cost = rel(modeled_cost(a), modeled_cost(b));
	/* The function whose instructions moved most, by name across versions. */
	double best = 0;
	for (int side = 0; side < 2; side++) {
		const bv_count *x = side ? cand : base, *y = side ? base : cand;
		for (size_t i = 0; i < x->nfns; i++) {
			double other = 0;
			for (size_t j = 0; j < y->nfns; j++)
				if (!strcmp(x->fns[i].name, y->fns[j].name))
					other = y->fns[j].ir;
			double fa = side ? other : x->fns[i].ir, fb = side ? x->fns[i].ir : other;
			if (fabs(fb - fa) > best) {
				best = fabs(fb - fa);
				free(c->fn);
				c->fn = bv_strdup(x->fns[i].name);
				c->fn_base = fa, c->fn_cand = fb;
			}
		}
	}
	int code = !same_instr(a[BV_EV_IR], b[BV_EV_IR]);
	int data = !same_misses(a[BV_EV_D1MR] + a[BV_EV_D1MW], b[BV_EV_D1MR] + b[BV_EV_D1MW]) ||
		   !same_misses(a[BV_EV_DLMR] + a[BV_EV_DLMW], b[BV_EV_DLMR] + b[BV_EV_DLMW]);
	char ins[32], fnp[32], d1[32], ll[32];
	pct(c->instr, ins, sizeof(ins));
	pct(rel(c->fn_base, c->fn_cand), fnp, sizeof(fnp));
	pct(c->d1, d1, sizeof(d1));
	pct(c->ll, ll, sizeof(ll));
	char what[256];
	if (code && c->fn && c->fn_base == 0) /* a function the baseline lacks: new, or renamed */
		snprintf(what, sizeof(what), "instr %s (%s, a function the baseline has not)", ins, c->fn);
	else if (code && c->fn && c->fn_cand == 0)
		snprintf(what, sizeof(what), "instr %s (%s, gone from this version)", ins, c->fn);
	else if (code && c->fn)
		snprintf(what, sizeof(what), "instr %s (%s %s)", ins, c->fn, fnp);
	else if (code)
		snprintf(what, sizeof(what), "instr %s", ins);
	else if (data)
		snprintf(what, sizeof(what), "same instructions, data misses D1 %s, LL %s: the data's layout", d1, ll);
	else
		snprintf(what, sizeof(what), "same instructions and misses");
	/* Did the counts follow the timed code?  Each side's counted ISA
	 * against the one it was timed on. */
	const char *tb = timed_isa(backend, timed_base, machine_isa), *tc = timed_isa(backend, timed_cand, machine_isa);
	const char *cb = !strcmp(backend, "blas") ? "avx2" : base->simd_isa;
	const char *cc = !strcmp(backend, "blas") ? "avx2" : cand->simd_isa;
	if (tb || tc || !strcmp(backend, "simd") || !strcmp(backend, "blas")) {
		c->counted_isa = bv_strdup(cc ? cc : "-");
		c->timed_isa = bv_strdup(tc ? tc : "-");
		int followed = tb && tc && cb && cc && !strcmp(tb, cb) && !strcmp(tc, cc);
		if (!followed) {
			/* Never "not the code" from counts of another path: an
			 * AVX-512-only change is invisible to the AVX2 counts. */
			c->text = bv_asprintf("%s on the %s path counted; %s timed: cannot tell code from placement", what,
					      c->counted_isa, c->timed_isa);
			return c;
		}
	}
	c->kind = code ? "code" : data ? "data" : "placement";
	if (!code && !data)
		c->text = bv_strdup("same instructions and misses: placement or machine, not the code");
	else
		c->text = bv_strdup(what);
	return c;
}

/* ---- the stage ----------------------------------------------------------- */

/* Whether change ch of a row is one o asks to explain. */
static int wanted(const bv_counts_opts *o, const bv_row *r, const bv_change *ch)
{
	if (!strcmp(r->backend, "cuda"))
		return 0;
	if (o->which == BV_COUNTS_ALL)
		return 1;
	return o->which == BV_COUNTS_CHANGED && ch->valid && ch->verdict != BV_SAME;
}

static bv_count_job *find(bv_count_job *js, size_t n, const char *label, const char *cell)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(js[i].c.label, label) && !strcmp(js[i].c.cell, cell))
			return &js[i];
	return NULL;
}

/* How long the counts took, for the counts line (counts_make.c keeps its own
 * clock for the deadlines, as proc.c and slurm.c do). */
static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What the run's counts.json already holds (an earlier explain of these
 * logs: compare, or run's own before a resume); NULL, said, when it
 * cannot be read. */
static cJSON *counts_had(const char *path, const bv_counts_opts *o)
{
	cJSON *have = NULL;
	if (bv_exists(path) && bv_json_load(path, (size_t)64 << 20, &have) != 0) {
		fprintf(stderr, "bench-versions: %s; %s\n", bv_error_last(),
			o->measure ? "its counts are made again" : "its counts are not shown (--counts makes them again)");
		have = NULL;
	}
	return have;
}

/* One side's job (version x of row r): its count from counts.json when
 * there is one (state 2), none to show when not measuring (state 3), or
 * one to make (state 0). */
static void job_init(bv_count_job *j, const bv_table *t, const bv_row *r, size_t x, const char *cell,
		     const cJSON *have_counts, const bv_counts_opts *o)
{
	memset(j, 0, sizeof(*j));
	j->c.label = bv_strdup(t->labels[x]);
	j->c.cell = bv_strdup(cell);
	j->c.status = BV_ST_NOT_RUN;
	j->bench = r->bench, j->op = r->op, j->backend = r->backend, j->size = r->size;
	j->key = t->meta ? t->meta[x].build_key : NULL;
	j->timed = t->meta ? t->meta[x].simd_isa : NULL;
	const cJSON *e;
	cJSON_ArrayForEach(e, have_counts)
	{
		const char *l = bv_json_str(e, "label"), *c = bv_json_str(e, "cell");
		bv_count got;
		if (l && c && !strcmp(l, j->c.label) && !strcmp(c, cell) && bv_count_read(e, &got) == 0) {
			const char *unsound = bv_count_unsound(e, &got, 0);
			if (unsound) {
				fprintf(stderr, "counts: counts.json's count of %s %s %s: %s\n", l, c, unsound,
					o->measure ? "it is made again" : "it is not shown (--counts makes it again)");
				bv_count_free(&got);
				break;
			}
			bv_count_free(&j->c);
			j->c = got;
			j->state = 2;
			break;
		}
	}
	if (j->state == 0 && !o->measure) {
		/* nothing to show: an older run, or one that counted
		 * none (compare --counts counts it) */
		j->state = 3;
	} else if (j->state == 0 && !j->key) {
		free(j->c.reason);
		j->c.reason = bv_strdup("the log names no build key");
		j->state = 2;
	}
}

/* The jobs: both sides of every change to explain, each (label, cell)
 * once, only where the cell ran; *n of them. */
static bv_count_job *collect_jobs(const bv_table *t, const bv_counts_opts *o, const cJSON *have_counts,
				  size_t *n)
{
	bv_count_job *js = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t k = 0; k < t->nrows; k++) {
		const bv_row *r = &t->rows[k];
		char cell[512];
		bv_row_key(r, cell, sizeof(cell));
		for (size_t v = 0; v < t->nversions; v++) {
			if (bv_table_is_base(t, v) || !wanted(o, r, &r->changes[v]))
				continue;
			size_t sides[2] = {bv_table_base(t, v), v};
			for (int s = 0; s < 2; s++) {
				size_t x = sides[s];
				if (find(js, *n, t->labels[x], cell) || r->results[x].status != BV_ST_OK)
					continue;
				if (*n == cap)
					js = bv_xrealloc(js, (cap = cap ? 2 * cap : 16) * sizeof(bv_count_job));
				job_init(&js[(*n)++], t, r, x, cell, have_counts, o);
			}
		}
	}
	return js;
}

/* The run's file (path): every count, made or found. */
static int write_counts(const bv_count_job *js, size_t n, const char *vg_version, const char *results_dir,
			const char *path, const bv_counts_opts *o)
{
	int rc = 0;
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", "bv-counts/1");
	if (vg_version)
		cJSON_AddStringToObject(doc, "valgrind", vg_version);
	cJSON_AddStringToObject(doc, "caches", BV_COUNT_CACHES_TEXT);
	cJSON *arr = cJSON_AddArrayToObject(doc, "counts");
	for (size_t i = 0; i < n; i++)
		if (js[i].state != 3)
			cJSON_AddItemToArray(arr, bv_count_json(&js[i].c));
	if (o->measure)
		rc = bv_mkdir_inside(results_dir, "counts");
	if (rc == 0 && o->measure)
		rc = bv_json_save(path, doc);
	cJSON_Delete(doc);
	return rc;
}

/* What the comparisons found, for the table's counts line. */
typedef struct counts_tally {
	size_t kinds[5]; /* of the changes not same: code, data, placement, unknown, mixed */
	size_t counted, changes;
	const char *counted_isa; /* the simd ISA the counts ran on */
} counts_tally;

/* Each explained change's comparison (bv_change.why), from both sides'
 * counts. */
static void compare_changes(bv_table *t, const bv_counts_opts *o, bv_count_job *js, size_t n, counts_tally *ty)
{
	const char *kind_names[] = {"code", "data", "placement", "unknown", "mixed"};
	for (size_t k = 0; k < t->nrows; k++) {
		bv_row *r = &t->rows[k];
		char cell[512];
		bv_row_key(r, cell, sizeof(cell));
		for (size_t v = 0; v < t->nversions; v++) {
			bv_change *ch = &r->changes[v];
			size_t b = bv_table_base(t, v);
			if (bv_table_is_base(t, v) || !wanted(o, r, ch))
				continue;
			bv_count_job *jb = find(js, n, t->labels[b], cell), *jc = find(js, n, t->labels[v], cell);
			if (!jb || !jc || jb->state == 3 || jc->state == 3)
				continue;
			bv_count_cmp_free(ch->why);
			ch->why = bv_count_compare(&jb->c, &jc->c, r->backend, t->meta ? t->meta[b].simd_isa : NULL,
						   t->meta ? t->meta[v].simd_isa : NULL, t->meta ? t->meta[v].isa : NULL);
			ty->counted++;
			/* "not the code" explains a change; beside `same` the counts
			 * only say what they found */
			int same = ch->valid && ch->verdict == BV_SAME;
			/* a called change whose time the counts cannot carry (the
			 * other way, or far more) is not the code's */
			if (ch->valid && (ch->verdict == BV_SLOWER || ch->verdict == BV_FASTER))
				bv_count_weigh(ch->why, ch->ratio, ch->layouts);
			if (same && !strcmp(ch->why->kind, "placement")) {
				free(ch->why->text);
				ch->why->text = bv_strdup("same instructions and misses");
			}
			for (int i = 0; i < 5 && !same; i++)
				ty->kinds[i] += !strcmp(ch->why->kind, kind_names[i]);
			ty->changes += !same;
			if (!strcmp(r->backend, "simd") && jc->c.simd_isa)
				ty->counted_isa = jc->c.simd_isa;
		}
	}
}

/* The table's counts line: how many cells, what the changes were, what
 * was made and what came from the cache. */
static void counts_line(bv_table *t, const counts_tally *ty, const char *vg_version, size_t made,
			size_t cached, double took)
{
	bv_buf b = BV_BUF_INIT;
	bv_buf_printf(&b, "%zu %s counted by Valgrind, one call per side (%s%s%s)", ty->counted,
		      bv_plural((long long)ty->counted, "cell", "cells"), vg_version ? vg_version : "from counts.json",
		      ty->counted_isa ? "; simd counted on " : "", ty->counted_isa ? ty->counted_isa : "");
	if (ty->changes)
		bv_buf_printf(&b, "; of %zu not same: %zu the code, %zu the data's layout, %zu placement or "
				  "machine, %zu not told",
			      ty->changes, ty->kinds[0], ty->kinds[1], ty->kinds[2], ty->kinds[3]);
	if (ty->kinds[4])
		bv_buf_printf(&b, ", %zu not the code's alone (the time past what the counts carry)", ty->kinds[4]);
	if (made)
		bv_buf_printf(&b, "; %zu %s made in %.0f s, %zu from the cache", made,
			      bv_plural((long long)made, "count", "counts"), took, cached);
	bv_buf_printf(&b, "; simulated caches %s; callgrind files in the run's counts/profiles/",
		      BV_COUNT_CACHES_TEXT);
	free(t->counts);
	t->counts = bv_buf_detach(&b);
}

int bv_counts_explain(bv_table *t, const char *results_dir, const bv_counts_opts *o)
{
	if (o->which == BV_COUNTS_NONE || !results_dir)
		return 0;
	/* Counts are written into the run's counts/: a link there would carry
	 * them out of the run (a run's raw/ did once), so it is refused
	 * before anything is counted. */
	char *cdir = bv_asprintf("%s/counts", results_dir);
	int linked = o->measure && bv_exists(cdir) ? bv_mkdir_inside(results_dir, "counts") : 0;
	free(cdir);
	if (linked)
		return linked;
	char *path = bv_asprintf("%s/counts/counts.json", results_dir);
	cJSON *have = counts_had(path, o);
	size_t n = 0;
	bv_count_job *js = collect_jobs(t, o, cJSON_GetObjectItemCaseSensitive(have, "counts"), &n);
	cJSON_Delete(have);
	char *vg_version = NULL;
	size_t cached = 0, made = 0;
	double t0 = now_s();
	int rc = bv_count_jobs_make(js, n, results_dir, o, &vg_version, &cached, &made);
	double took = now_s() - t0;
	if (rc == 0 && n)
		rc = write_counts(js, n, vg_version, results_dir, path, o);
	counts_tally ty;
	memset(&ty, 0, sizeof(ty));
	if (rc == 0)
		compare_changes(t, o, js, n, &ty);
	if (rc == 0 && ty.counted)
		counts_line(t, &ty, vg_version, made, cached, took);
	for (size_t i = 0; i < n; i++)
		bv_count_free(&js[i].c);
	free(js);
	free(vg_version);
	free(path);
	return rc;
}
