/*
 * results.c - the one loader of results logs (results.h says what it checks
 * and why there is one).
 *
 * The checks are what a reader would otherwise get wrong quietly: a ratio
 * interval of [-1e308, 6] is "same" to the verdict rule, so a candidate five
 * times slower reads READY; a cell listed twice decides by whichever copy a
 * reader meets last; an unknown status falls through every comparison.  Each
 * is refused here, naming the file, the cell and the field.
 */
#include "results.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benches.h"
#include "common.h"
#include "fs.h"
#include "json.h"


/* ---- reading a cell ------------------------------------------------------ */

/* A count or a size: absent (0, *out unchanged), or a whole number in
 * [0, max] (0), else -1.  Casting anything else to an integer type would be
 * undefined (found by fuzz_results_log: a size of 1e300). */
static int whole_number(const cJSON *o, const char *key, double max, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v)
		return 0;
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= max) ||
	    v->valuedouble != floor(v->valuedouble))
		return -1;
	*out = v->valuedouble;
	return 0;
}

/* An optional amount (a rate, a footprint): absent or null (cJSON writes a
 * non-finite number as null) is 0; else a finite number >= 0. */
static int amount(const cJSON *o, const char *key, double *out, bv_buf *why)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	*out = 0;
	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0) {
		if (cJSON_IsNumber(v))
			bv_buf_printf(why, "%s %g: expected a finite number >= 0", key, v->valuedouble);
		else
			bv_buf_printf(why, "\"%s\": expected a number", key);
		return -1;
	}
	*out = v->valuedouble;
	return 0;
}

/* An estimate and its interval, PREFIX, PREFIX_ci_low, PREFIX_ci_high (all
 * present as numbers: the caller said so): each finite and > 0, the estimate
 * inside the interval. */
static int interval(const cJSON *o, const char *in, const char *prefix, double *est, double *lo, double *hi,
		    bv_buf *why)
{
	char keys[3][64];
	snprintf(keys[0], sizeof(keys[0]), "%s", prefix);
	snprintf(keys[1], sizeof(keys[1]), "%s_ci_low", prefix);
	snprintf(keys[2], sizeof(keys[2]), "%s_ci_high", prefix);
	double *dst[3] = {est, lo, hi};
	for (int k = 0; k < 3; k++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, keys[k]);
		*dst[k] = v->valuedouble;
		if (!isfinite(*dst[k]) || *dst[k] <= 0) {
			bv_buf_printf(why, "%s%s %g: expected a finite number > 0", in, keys[k], *dst[k]);
			return -1;
		}
	}
	if (!(*lo <= *est && *est <= *hi)) {
		bv_buf_printf(why, "%s%s %g lies outside its interval [%g, %g]", in, prefix, *est, *lo, *hi);
		return -1;
	}
	return 0;
}

static int has_numbers(const cJSON *o, const char *prefix)
{
	char key[64];
	const char *suffix[] = {"", "_ci_low", "_ci_high"};
	for (int k = 0; k < 3; k++) {
		snprintf(key, sizeof(key), "%s%s", prefix, suffix[k]);
		if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, key)))
			return 0;
	}
	return 1;
}

/* change.process_ratios: finite and positive, with the ratio between the
 * lowest and the highest of them; *count is how many there are (0 where
 * absent).  0, or -1 with why said. */
static int change_process_ratios(const cJSON *pb, bv_log_change *ch, int *count, bv_buf *why)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(pb, "process_ratios");
	if (v && !cJSON_IsArray(v)) {
		bv_buf_puts(why, "change.process_ratios: expected an array");
		return -1;
	}
	const cJSON *x;
	int k = 0;
	double lowest = INFINITY, highest = 0;
	cJSON_ArrayForEach(x, v)
	{
		if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble <= 0) {
			bv_buf_printf(why, "change.process_ratios[%d]: expected a finite number > 0", k);
			return -1;
		}
		lowest = fmin(lowest, x->valuedouble), highest = fmax(highest, x->valuedouble);
		k++;
	}
	/* The ratio is the median of the process ratios (measure.c; any
	 * estimate of their middle would be), so it lies between the lowest and
	 * the highest of them: a log whose ratio does not contradicts its own
	 * processes, and its verdict was trusted.  Exact, no slack:
	 * the mean of the two middle values is within them in floating point,
	 * and cJSON writes doubles so that they read back the same.  The ratio
	 * only, not its interval's ends (order statistics of the same values
	 * here): the ratio is what a verdict takes at face value, and hand-made
	 * logs (test_baselines.sh's copy) widen the interval around identical
	 * processes. */
	if (k > 0 && !(ch->ratio >= lowest && ch->ratio <= highest)) {
		bv_buf_printf(why, "change.ratio %g lies outside its process_ratios [%g, %g] (it is their median)",
			      ch->ratio, lowest, highest);
		return -1;
	}
	ch->process_ratios = v;
	*count = k;
	return 0;
}

/* change.process_state: one object per process ratio, each of its
 * measures [before, after].  0, or -1 with why said. */
static int change_process_state(const cJSON *pb, bv_log_change *ch, int k, bv_buf *why)
{
	const cJSON *x, *v = cJSON_GetObjectItemCaseSensitive(pb, "process_state");
	if (v && (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != k)) {
		bv_buf_printf(why, "change.process_state: expected an array of %d (one per process ratio)", k);
		return -1;
	}
	/* The state split (verdict.c) decides on these: a value out of range
	 * would move a verdict, so each is checked as the ratios are. */
	k = 0;
	cJSON_ArrayForEach(x, v)
	{
		static const char *const keys[] = {"loadavg", "running", "probe_gbps", "probe_compute_ns"};
		if (!cJSON_IsObject(x)) {
			bv_buf_printf(why, "change.process_state[%d]: expected an object", k);
			return -1;
		}
		for (size_t f = 0; f < sizeof(keys) / sizeof(keys[0]); f++) {
			const cJSON *pair = cJSON_GetObjectItemCaseSensitive(x, keys[f]), *e;
			int ok = !pair || (cJSON_IsArray(pair) && cJSON_GetArraySize(pair) == 2);
			for (e = ok && pair ? pair->child : NULL; e; e = e->next)
				ok = ok && (cJSON_IsNull(e) ||
					    (cJSON_IsNumber(e) && isfinite(e->valuedouble) && e->valuedouble >= 0));
			if (!ok) {
				bv_buf_printf(why,
					      "change.process_state[%d].%s: expected [before, after], each a finite "
					      "number >= 0 or null",
					      k, keys[f]);
				return -1;
			}
		}
		k++;
	}
	ch->process_state = v;
	return 0;
}

/* change.layouts and change.layout_spread (--layouts).  0, or -1 with why
 * said. */
static int change_layouts(const cJSON *pb, bv_log_change *ch, bv_buf *why)
{
	/* bv-runner's layouts (harness/runner/runner_main.c) are 1-8 (--layouts); 64 leaves room. */
	double n = 0;
	if (whole_number(pb, "layouts", 64, &n)) {
		bv_buf_puts(why, "change.layouts: expected a whole number from 0 to 64");
		return -1;
	}
	ch->layouts = (int)n;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(pb, "layout_spread");
	if (v) {
		const cJSON *a = cJSON_GetArrayItem(v, 0), *b = cJSON_GetArrayItem(v, 1);
		if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2 || !cJSON_IsNumber(a) || !cJSON_IsNumber(b) ||
		    !isfinite(a->valuedouble) || !isfinite(b->valuedouble) || a->valuedouble <= 0 ||
		    a->valuedouble > b->valuedouble) {
			bv_buf_puts(why, "change.layout_spread: expected [lowest, highest], finite and > 0");
			return -1;
		}
		ch->has_spread = 1;
		ch->layout_lo = a->valuedouble, ch->layout_hi = b->valuedouble;
	}
	return 0;
}

static int read_change(const cJSON *pb, bv_log_change *ch, bv_buf *why)
{
	memset(ch, 0, sizeof(*ch));
	ch->coverage = -1;
	if (!cJSON_IsObject(pb)) {
		bv_buf_puts(why, "change: expected an object");
		return -1;
	}
	if (!has_numbers(pb, "ratio")) {
		bv_buf_puts(why, "change lacks ratio, ratio_ci_low or ratio_ci_high (numbers)");
		return -1;
	}
	if (interval(pb, "change.", "ratio", &ch->ratio, &ch->ci_low, &ch->ci_high, why))
		return -1;
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(pb, "baseline");
	if (v && !cJSON_IsString(v)) {
		bv_buf_puts(why, "change.baseline: expected a string");
		return -1;
	}
	ch->baseline = v ? v->valuestring : NULL;
	v = cJSON_GetObjectItemCaseSensitive(pb, "mode");
	if (v && !(cJSON_IsString(v) && (!strcmp(v->valuestring, "paired") || !strcmp(v->valuestring, "isolated")))) {
		bv_buf_puts(why, "change.mode: expected \"paired\" or \"isolated\"");
		return -1;
	}
	ch->mode = v && !strcmp(v->valuestring, "isolated") ? "isolated" : "paired";
	v = cJSON_GetObjectItemCaseSensitive(pb, "coverage");
	if (v && !(cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 1)) {
		bv_buf_puts(why, "change.coverage: expected a number from 0 to 1");
		return -1;
	}
	if (v)
		ch->coverage = v->valuedouble;
	double n = 0;
	if (whole_number(pb, "processes", INT_MAX, &n)) {
		bv_buf_puts(why, "change.processes: expected a whole number");
		return -1;
	}
	ch->processes = (int)n;
	int k;
	if (change_process_ratios(pb, ch, &k, why) || change_process_state(pb, ch, k, why) ||
	    change_layouts(pb, ch, why))
		return -1;
	return 0;
}

/* A process id and its place in process_ids. */
typedef struct {
	double id;
	int at;
} process_at;

static int process_at_cmp(const void *a, const void *b)
{
	const process_at *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id ? 1 : x->at - y->at;
}

/* A process measures a cell once, so an id twice in one cell is a forged or
 * broken log: the backend view pairs two cells by these ids (backends.c),
 * and paired the wrong processes and still gave a verdict.  Sorted
 * rather than compared pairwise: a hostile log may hold millions.  1 with
 * why naming the first repeat in file order and its first copy. */
static int repeated_process(const cJSON *ids, bv_buf *why)
{
	int n = cJSON_GetArraySize(ids), k = 0, bad = -1;
	process_at *p = bv_xmalloc((size_t)(n ? n : 1) * sizeof(*p));
	const cJSON *e;
	cJSON_ArrayForEach(e, ids)
	{
		p[k] = (process_at){e->valuedouble, k};
		k++;
	}
	qsort(p, (size_t)n, sizeof(*p), process_at_cmp);
	for (int i = 1; i < n; i++)
		if (p[i].id == p[i - 1].id && (bad < 0 || p[i].at < p[bad].at))
			bad = i;
	if (bad >= 0)
		bv_buf_printf(why,
			      "\"process_ids\": process %.0f twice (process_ids[%d] and process_ids[%d]); a process "
			      "measures a cell once",
			      p[bad].id, p[bad - 1].at, p[bad].at);
	free(p);
	return bad >= 0;
}

/* Reads one cell.  0; -1 when the cell is not one (its bench, op, backend or
 * size is wrong: why says which); -2 when it is one but a value is wrong
 * (why says what; the caller names the cell). */
/* The cell's status (one of the known names) and its reason: the status
 * decides which numbers the cell must have.  0, or -2 with why said. */
static int cell_status(const cJSON *cell, bv_log_cell *c, bv_buf *why)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(cell, "status");
	c->status = cJSON_IsString(st) ? bv_status_parse(st->valuestring) : BV_ST_NONE;
	if (!c->status) {
		if (!cJSON_IsString(st))
			bv_buf_puts(why, "\"status\": expected a string");
		else {
			char *shown = bv_escape(st->valuestring); /* the log's text: shown, never obeyed */
			bv_buf_printf(why, "\"status\": unknown status '%.40s' (known:", shown);
			for (bv_status k = BV_ST_OK; k <= BV_ST_LAST_LOGGED; k++)
				bv_buf_printf(why, "%s %s", k > BV_ST_OK ? "," : "", bv_status_name(k));
			bv_buf_puts(why, ")");
			free(shown);
		}
		return -2;
	}
	const cJSON *reason = cJSON_GetObjectItemCaseSensitive(cell, "reason");
	if (reason && !cJSON_IsString(reason) && !cJSON_IsNull(reason)) {
		bv_buf_puts(why, "\"reason\": expected a string");
		return -2;
	}
	c->reason = cJSON_IsString(reason) ? reason->valuestring : NULL;
	return 0;
}

/* The footprint and the rates, where present: non-negative amounts; the
 * library's own allocations unknown (NAN) where absent or null.  0, or -2
 * with why said. */
static int cell_amounts(const cJSON *cell, bv_log_cell *c, bv_buf *why)
{
	const cJSON *fp = cJSON_GetObjectItemCaseSensitive(cell, "footprint");
	if (fp && !cJSON_IsObject(fp) && !cJSON_IsNull(fp)) {
		bv_buf_puts(why, "\"footprint\": expected an object");
		return -2;
	}
	if (amount(fp, "host_bytes", &c->host_bytes, why) || amount(fp, "device_bytes", &c->device_bytes, why) ||
	    amount(cell, "gbps", &c->gbps, why) || amount(cell, "gflops", &c->gflops, why) ||
	    amount(cell, "pct_copy_bandwidth", &c->pct_copy_bw, why) ||
	    amount(cell, "pct_peak_flops", &c->pct_peak_flops, why))
		return -2;
	/* The library's own allocations (kernels 0.10.0 count them): unknown,
	 * NAN, where absent or null, as for a version that does not count. */
	const char *lib_keys[] = {"library_host_bytes", "library_device_bytes"};
	double *lib_out[] = {&c->library_host_bytes, &c->library_device_bytes};
	for (int k = 0; k < 2; k++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(fp, lib_keys[k]);
		if (amount(fp, lib_keys[k], lib_out[k], why))
			return -2;
		if (!v || cJSON_IsNull(v))
			*lib_out[k] = NAN;
	}
	return 0;
}

/* Why sampling stopped (1.8): what a note under the table says of a
 * cell the budget stopped undecided (merge.c).  0, or -2 with why said. */
static int cell_stopped(const cJSON *cell, bv_log_cell *c, bv_buf *why)
{
	const cJSON *stop = cJSON_GetObjectItemCaseSensitive(cell, "stopped");
	if (stop && !cJSON_IsNull(stop)) {
		const char *by = bv_json_str(stop, "by");
		static const char *const known[] = {"decided", "budget", "max_processes"};
		for (size_t k = 0; by && k < sizeof(known) / sizeof(known[0]); k++)
			if (!strcmp(by, known[k]))
				c->stopped = known[k];
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(stop, "budget_s");
		if (!c->stopped) {
			bv_buf_puts(why,
				    "\"stopped\": expected an object whose \"by\" is decided, budget or max_processes");
			return -2;
		}
		if (c->stopped == known[1] &&
		    !(cJSON_IsNumber(b) && isfinite(b->valuedouble) && b->valuedouble > 0 && b->valuedouble <= 1e9)) {
			bv_buf_puts(why, "\"stopped\".\"budget_s\": expected a number of seconds above 0");
			return -2;
		}
		c->stop_budget_s = c->stopped == known[1] ? b->valuedouble : 0;
	}
	return 0;
}

/* The per-process medians and the process each came from (1.7): the
 * backend view pairs two cells of a version by these.  0, or -2 with why
 * said. */
static int cell_processes(const cJSON *cell, bv_log_cell *c, bv_buf *why)
{
	c->process_medians = c->process_ids = NULL;
	const cJSON *ids = cJSON_GetObjectItemCaseSensitive(cell, "process_ids");
	if (ids && c->status == BV_ST_OK) {
		const cJSON *meds = cJSON_GetObjectItemCaseSensitive(cell, "process_medians_ns"), *e;
		if (!cJSON_IsArray(ids) || !cJSON_IsArray(meds) ||
		    cJSON_GetArraySize(ids) != cJSON_GetArraySize(meds)) {
			bv_buf_puts(why, "\"process_ids\": expected an array as long as \"process_medians_ns\"");
			return -2;
		}
		cJSON_ArrayForEach(e, ids)
		{
			if (!cJSON_IsNumber(e) || !(e->valuedouble >= 1 && e->valuedouble <= INT_MAX) ||
			    e->valuedouble != floor(e->valuedouble)) {
				bv_buf_puts(why, "\"process_ids\": expected whole numbers from 1");
				return -2;
			}
		}
		cJSON_ArrayForEach(e, meds)
		{
			if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble <= 0) {
				bv_buf_puts(why, "\"process_medians_ns\": expected positive numbers");
				return -2;
			}
		}
		if (repeated_process(ids, why))
			return -2;
		c->process_medians = meds, c->process_ids = ids;
	}
	return 0;
}

static int read_cell(const cJSON *cell, bv_log_cell *c, bv_buf *why)
{
	memset(c, 0, sizeof(*c));
	double size = -1;
	c->bench = bv_json_str(cell, "bench"), c->op = bv_json_str(cell, "op"), c->backend = bv_json_str(cell, "backend");
	/* Sizes are exact as doubles up to 2^53 (benches.h packs shapes below that). */
	const char *bad = !cJSON_IsObject(cell) ? "expected an object"
			  : !c->bench		? "\"bench\": expected a string"
			  : !c->op		? "\"op\": expected a string"
			  : !c->backend		? "\"backend\": expected a string"
			  : whole_number(cell, "size", 9007199254740992.0, &size) || size < 0
				  ? "\"size\": expected a whole number from 0 to 2^53"
				  : NULL;
	if (bad) {
		bv_buf_puts(why, bad);
		return -1;
	}
	c->size = (size_t)size;
	double np = 0;
	if (whole_number(cell, "processes", INT_MAX, &np)) {
		bv_buf_puts(why, "\"processes\": expected a whole number");
		return -2;
	}
	c->processes = (int)np;
	if (cell_status(cell, c, why))
		return -2;
	if (c->status == BV_ST_OK) {
		if (!has_numbers(cell, "median_ns")) {
			bv_buf_puts(why, "an ok cell lacks median_ns, median_ns_ci_low or median_ns_ci_high (numbers)");
			return -2;
		}
		if (interval(cell, "", "median_ns", &c->median_ns, &c->ci_low_ns, &c->ci_high_ns, why))
			return -2;
	}
	if (cell_amounts(cell, c, why) || cell_stopped(cell, c, why) || cell_processes(cell, c, why))
		return -2;
	/* "change" since schema 1.1; 1.0 logs called it "paired". */
	const cJSON *pb = cJSON_GetObjectItemCaseSensitive(cell, "change");
	if (!pb)
		pb = cJSON_GetObjectItemCaseSensitive(cell, "paired");
	if (pb && !cJSON_IsNull(pb)) {
		if (read_change(pb, &c->change, why))
			return -2;
		c->has_change = 1;
	}
	return 0;
}

int bv_log_cell_read(const cJSON *cell, bv_log_cell *out)
{
	bv_buf why = BV_BUF_INIT;
	int rc = read_cell(cell, out, &why);
	bv_buf_free(&why);
	return rc ? BV_EINPUT : 0;
}

const cJSON *bv_log_cells(const cJSON *doc) { return cJSON_GetObjectItemCaseSensitive(doc, "cells"); }

/* ---- the whole log --------------------------------------------------------- */

/* What tells cells apart: bench, op, backend, size (pointers into the
 * document), and the cell's place in the file. */
typedef struct cell_key {
	const char *bench, *op, *backend;
	size_t size, index;
} cell_key;

/* "unary abs scalar 64K", escaped: how messages name a cell. */
static char *cell_name(const char *bench, const char *op, const char *backend, size_t n)
{
	char size[32];
	char *b = bv_escape(bench), *o = bv_escape(op), *k = bv_escape(backend);
	char *s = bv_asprintf("%.40s %.40s %.40s %s", b, o, k, bv_size_format(n, size, sizeof(size)));
	free(b), free(o), free(k);
	return s;
}

static int same_cell(const cell_key *x, const cell_key *y)
{
	return x->size == y->size && !strcmp(x->bench, y->bench) && !strcmp(x->op, y->op) &&
	       !strcmp(x->backend, y->backend);
}

/* By cell, then by place in the file. */
static int key_cmp(const void *a, const void *b)
{
	const cell_key *x = a, *y = b;
	int r = strcmp(x->bench, y->bench);
	if (!r)
		r = strcmp(x->op, y->op);
	if (!r)
		r = strcmp(x->backend, y->backend);
	if (!r)
		r = x->size < y->size ? -1 : x->size > y->size;
	if (!r)
		r = x->index < y->index ? -1 : x->index > y->index;
	return r;
}

/* A cell twice makes the table depend on which copy a reader meets last
 * (report's READY or NOT READY did): the first repeat, in file order, is
 * refused with the place of its first copy.  Sorts keys. */
static int no_duplicates(const char *path, cell_key *keys, size_t n)
{
	qsort(keys, n, sizeof(*keys), key_cmp);
	const cell_key *first = NULL, *again = NULL;
	/* Copies of one cell are neighbours, the first copy leading. */
	for (size_t i = 1; i < n; i++)
		if (same_cell(&keys[i - 1], &keys[i]) && (i == 1 || !same_cell(&keys[i - 2], &keys[i])) &&
		    (!again || keys[i].index < again->index))
			first = &keys[i - 1], again = &keys[i];
	if (!again)
		return 0;
	char *name = cell_name(again->bench, again->op, again->backend, again->size);
	int rc = bv_fail(BV_EINPUT, "%s: cells[%zu] (%s): the same cell as cells[%zu]; a log holds each cell once",
			 path, again->index, name, first->index);
	free(name);
	return rc;
}

/* "1.1": the major number, digits only on both sides of one dot. */
static int schema_major(const char *sv, unsigned long *major)
{
	size_t a = strspn(sv, "0123456789");
	if (a == 0 || a > 6 || sv[a] != '.' || sv[a + 1] == '\0' || strspn(sv + a + 1, "0123456789") != strlen(sv + a + 1))
		return 0;
	*major = strtoul(sv, NULL, 10);
	return 1;
}

int bv_log_claims(const cJSON *doc)
{
	const char *schema = bv_json_str(doc, "schema");
	return schema && !strcmp(schema, BV_RESULTS_SCHEMA);
}

int bv_log_check(const char *path, const cJSON *doc)
{
	unsigned long major = 0;
	const char *sv = bv_json_str(doc, "schema_version");
	if (!bv_log_claims(doc) || !sv)
		return bv_fail(BV_EINPUT, "%s: not a bench-versions results log (no \"schema\")", path);
	if (!schema_major(sv, &major)) {
		char *shown = bv_escape(sv); /* the log's text: shown, never obeyed */
		int rc = bv_fail(BV_EINPUT, "%s: schema_version: expected \"MAJOR.MINOR\", got '%.32s'", path, shown);
		free(shown);
		return rc;
	}
	if (major != BV_RESULTS_MAJOR)
		return bv_fail(BV_EINPUT, "%s: results schema %s is %s than this bench-versions reads (%d.x)", path, sv,
			       major > BV_RESULTS_MAJOR ? "newer" : "older", BV_RESULTS_MAJOR);
	const cJSON *cells = bv_log_cells(doc);
	if (!cJSON_IsArray(cells) || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "version")))
		return bv_fail(BV_EINPUT, "%s: missing \"version\" or \"cells\"", path);
	size_t n = (size_t)cJSON_GetArraySize(cells), i = 0;
	cell_key *keys = bv_xmalloc((n ? n : 1) * sizeof(*keys));
	bv_buf why = BV_BUF_INIT;
	int rc = 0;
	const cJSON *cell;
	cJSON_ArrayForEach(cell, cells)
	{
		bv_log_cell c;
		int bad = read_cell(cell, &c, &why);
		if (bad == -1)
			rc = bv_fail(BV_EINPUT, "%s: cells[%zu]: %s", path, i, why.s);
		else if (bad) {
			char *name = cell_name(c.bench, c.op, c.backend, c.size);
			rc = bv_fail(BV_EINPUT, "%s: cells[%zu] (%s): %s", path, i, name, why.s);
			free(name);
		}
		if (rc)
			break;
		keys[i] = (cell_key){c.bench, c.op, c.backend, c.size, i};
		i++;
	}
	if (rc == 0)
		rc = no_duplicates(path, keys, n);
	bv_buf_free(&why);
	free(keys);
	return rc;
}

int bv_log_load(const char *path, cJSON **doc)
{
	int rc = bv_json_load(path, BV_RESULTS_MAX, doc);
	if (rc == 0 && (rc = bv_log_check(path, *doc)) != 0) {
		cJSON_Delete(*doc);
		*doc = NULL;
	}
	return rc;
}

int bv_logs_check_sizes(char *const *paths, size_t n)
{
	unsigned long long total = 0;
	for (size_t i = 0; i < n; i++) {
		int fd;
		struct stat st;
		int rc = bv_open_regular(paths[i], &fd, &st);
		if (rc)
			return rc;
		close(fd);
		if ((unsigned long long)st.st_size > BV_RESULTS_MAX)
			return bv_fail(BV_EINPUT, "%s is larger than %zu bytes", paths[i], BV_RESULTS_MAX);
		total += (unsigned long long)st.st_size;
		if (total > BV_RESULTS_TOTAL_MAX)
			return bv_fail(BV_EINPUT,
				       "the %zu logs up to %s hold more than %llu bytes together; compare fewer at a time",
				       i + 1, paths[i], BV_RESULTS_TOTAL_MAX);
	}
	return 0;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The index in names[] of LABEL.json, or -1.  Only names read from the
 * directory are ever opened: a label is a log's text, and "../x" in one
 * must not reach outside the run's directory. */
static int name_index(char **names, size_t n, const char *label)
{
	for (size_t i = 0; label && i < n; i++) {
		size_t len = strlen(label);
		if (!strncmp(names[i], label, len) && !strcmp(names[i] + len, ".json"))
			return (int)i;
	}
	return -1;
}

int bv_run_dir_logs(const char *dir, char ***paths, size_t *n, size_t *nversions)
{
	return bv_run_dir_logs_keep(dir, paths, n, nversions, NULL, NULL);
}

int bv_run_dir_logs_keep(const char *dir, char ***paths, size_t *n, size_t *nversions, cJSON **kept, size_t *kept_at)
{
	*paths = NULL, *n = 0;
	if (kept)
		*kept = NULL;
	if (nversions)
		*nversions = 0;
	DIR *d = opendir(dir);
	if (!d)
		return bv_fail(BV_EINPUT, "cannot open %s", dir);
	char **names = NULL;
	size_t nn = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len < 6 || strcmp(de->d_name + len - 5, ".json") || de->d_name[0] == '.')
			continue;
		names = bv_xrealloc(names, (nn + 1) * sizeof(char *));
		names[nn++] = bv_strdup(de->d_name);
	}
	closedir(d);
	/* readdir's order is the filesystem's; the run block decides below,
	 * and names decide only among logs it does not list. */
	if (nn)
		qsort(names, nn, sizeof(char *), name_cmp);
	cJSON *doc = NULL;
	/* The first refusal's words: when every file is refused they are the
	 * answer (compare DIR said only "holds no results log" where report
	 * --from named the log, the cell and the element). */
	char *first = NULL;
	size_t refused = 0, loaded = 0;
	for (size_t i = 0; i < nn && !doc; i++) {
		char *p = bv_asprintf("%s/%s", dir, names[i]);
		if (bv_log_load(p, &doc)) {
			doc = NULL;
			if (!refused++)
				first = bv_strdup(bv_error_last());
		} else
			loaded = i;
		free(p);
	}
	int rc = 0;
	if (!doc && refused)
		rc = bv_fail(BV_EINPUT, "%s holds no results log that loads: %zu .json %s refused, the first: %s", dir,
			     refused, bv_plural((long long)refused, "file", "files"), first);
	else if (!doc)
		rc = bv_fail(BV_EINPUT, "%s holds no results log (a run's directory holds LABEL.json for each version)",
			     dir);
	free(first);
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
	const cJSON *versions = cJSON_GetObjectItemCaseSensitive(run, "versions"), *v;
	/* The run's baseline first (a table's first column is its baseline),
	 * then its versions in the order they were named; a log without a run
	 * block (schema 1.0) has only its names to go by. */
	int *taken = bv_xcalloc(nn + 1, sizeof(int));
	int *order = bv_xcalloc(nn + 1, sizeof(int));
	size_t k = 0;
	int b = rc ? -1 : name_index(names, nn, bv_json_str(run, "baseline"));
	if (b >= 0)
		taken[b] = 1, order[k++] = b;
	if (!rc && cJSON_IsArray(versions)) {
		cJSON_ArrayForEach(v, versions)
		{
			int j = cJSON_IsString(v) ? name_index(names, nn, v->valuestring) : -1;
			if (j >= 0 && !taken[j])
				taken[j] = 1, order[k++] = j;
		}
		if (nversions)
			*nversions = (size_t)cJSON_GetArraySize(versions);
	} else if (!rc) {
		for (size_t j = 0; j < nn; j++)
			if (!taken[j])
				taken[j] = 1, order[k++] = (int)j;
		if (nversions)
			*nversions = k;
	}
	if (!rc && k == 0)
		rc = bv_fail(BV_EINPUT, "%s: none of the run's versions has a log there", dir);
	if (!rc) {
		*paths = bv_xcalloc(k + 1, sizeof(char *));
		for (size_t j = 0; j < k; j++) {
			(*paths)[j] = bv_asprintf("%s/%s", dir, names[order[j]]);
			if (kept && !*kept && (size_t)order[j] == loaded)
				*kept = doc, doc = NULL, *kept_at = j;
		}
		*n = k;
	}
	cJSON_Delete(doc);
	for (size_t j = 0; j < nn; j++)
		free(names[j]);
	free(names), free(taken), free(order);
	return rc;
}
