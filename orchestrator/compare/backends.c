/*
 * backends.c - the backend view (run/compare --vs-backend REF): for each
 * version, every backend's time over the reference backend's in the same
 * cell (bench, op, size), paired by process.
 *
 * A run measures every host cell of a version in one runner process per
 * trial (measure.c), and each cell's log says which process each of its
 * per-process medians came from (process_ids, schema 1.7).  So simd's
 * median over scalar's in process 7 is a ratio measured under one machine
 * state, as a version's ratio to the baseline is; the view is the median of
 * those per-process quotients with its order-statistic interval, decided
 * exactly as version changes are (bv_changes_decide: an interval past the
 * threshold band and anytime-valid sign evidence surviving
 * Benjamini-Hochberg), over a family of its own: the question "which backend
 * wins here" is not the question "did this version change", and the two
 * families do not dilute each other.
 *
 * cuda cells run in processes of their own (measure.c), so a cuda cell
 * shares no process with a host reference: it is shown without a ratio and
 * says why, never paired across processes.
 *
 * "Which backend wins here" is then answered per cell: the backend with the
 * smallest ratio to the reference (the reference's own is 1) against the
 * next smallest, their own paired ratio (all host backends of a version
 * share their processes), decided as one more family.  A winner is clear
 * only when that ratio is called faster; otherwise the two are not told
 * apart, and both are named.
 *
 * The backend is one axis of a cell; a suite op's parameter is another
 * (run/compare --vs level=1: pack[level=9] over pack[level=1] of the same
 * bench, backend and size; docs/suites-design.md "Cell identity").  One
 * code path serves both: a cell's place on the axis (bv_vs_place) is its
 * value there and the rest of it (the key), and a cell's reference is the
 * cell with the same key and the reference value.  The backend view is the
 * backend axis; every word the exporters print about it is unchanged.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "benches.h"
#include "common.h"
#include "fs.h"
#include "json.h"
#include "stats.h"
#include "table.h"
#include "verdict.h"

/* The "[param=" segment of op, or NULL. */
static const char *param_at(const char *op, const char *param)
{
	size_t n = strlen(param);
	for (const char *p = strchr(op, '['); p; p = strchr(p + 1, '['))
		if (!strncmp(p + 1, param, n) && p[1 + n] == '=')
			return p;
	return NULL;
}

int bv_vs_place(const bv_vs_axis *ax, const char *bench, const char *op, const char *backend, size_t size,
                char *value, size_t vlen, char *key, size_t klen)
{
	char sz[32];
	bv_size_format(size, sz, sizeof(sz));
	int w;
	if (!ax->param[0]) {
		w = snprintf(value, vlen, "%s", backend);
		if (w < 0 || (size_t)w >= vlen)
			return 0;
		w = snprintf(key, klen, "%s/%s/%s", bench, op, sz);
		return w >= 0 && (size_t)w < klen;
	}
	const char *at = param_at(op, ax->param);
	if (!at)
		return 0;
	const char *v = at + 2 + strlen(ax->param), *end = strchr(v, ']');
	if (!end)
		return 0;
	w = snprintf(value, vlen, "%.*s", (int)(end - v), v);
	if (w < 0 || (size_t)w >= vlen)
		return 0;
	w = snprintf(key, klen, "%s/%.*s%s/%s/%s", bench, (int)(at - op), op, end + 1, backend, sz);
	return w >= 0 && (size_t)w < klen;
}

/* A row's place on the table's axis (bv_vs_place). */
static int place(const bv_table *t, const bv_row *r, char *value, size_t vlen, char *key, size_t klen)
{
	return bv_vs_place(&t->vs, r->bench, r->op, r->backend, r->size, value, vlen, key, klen);
}

static int ok(const bv_result *r) { return r->status && r->status == BV_ST_OK; }

size_t bv_result_pair_by_process(const bv_result *x, const bv_result *ref, double *out)
{
	size_t n = 0;
	for (size_t i = 0; i < x->nproc_ns; i++)
		for (size_t j = 0; j < ref->nproc_ns; j++)
			if (x->proc_id[i] == ref->proc_id[j]) {
				out[n++] = x->proc_ns[i] / ref->proc_ns[j];
				break;
			}
	return n;
}

static void compare_one(const bv_table *t, const bv_row *row, const bv_row *refrow, size_t v, bv_change *ch)
{
	memset(ch, 0, sizeof(*ch));
	ch->p = ch->p_slower = ch->p_faster = NAN;
	const bv_result *x = &row->results[v], *ref = &refrow->results[v];
	if (!ok(x) || !ok(ref)) {
		ch->none = !ok(x) ? "the backend has no result" : "the reference has no result";
		return;
	}
	if (!x->proc_ns || !ref->proc_ns) {
		ch->none = "the log does not say which process measured what (a log before schema 1.7)";
		return;
	}
	double *q = bv_xcalloc(x->nproc_ns + 1, sizeof(double));
	size_t n = bv_result_pair_by_process(x, ref, q);
	if (n == 0) {
		free(q);
		ch->none = "measured in other processes than the reference (cuda cells run in processes of "
		           "their own)";
		return;
	}
	bv_interval iv;
	if (bv_median_interval(q, n, 0.95, &iv) != 0) {
		free(q);
		ch->none = "no ratio";
		return;
	}
	ch->valid = 1;
	ch->paired = 1;
	ch->mode = "paired";
	ch->ratio = iv.est, ch->ci_low = iv.lo, ch->ci_high = iv.hi, ch->coverage = iv.coverage;
	ch->processes = (int)n;
	ch->proc_ratio = q;
	ch->nproc = n;
	bv_change_evidence(ch, q, n, t->threshold);
	ch->verdict = BV_SAME; /* until decided */
}

static void find_wins(bv_table *t);

/* "a, b, c" of the distinct values on the axis among the rows (", none"
 * when there are none); for the refusals. */
static char *values_here(const bv_table *t)
{
	bv_buf names = BV_BUF_INIT;
	for (size_t r = 0; r < t->nrows; r++) {
		char value[128], key[512], want[160];
		if (!place(t, &t->rows[r], value, sizeof(value), key, sizeof(key)))
			continue;
		snprintf(want, sizeof(want), " %s,", value);
		if (!names.s || !strstr(names.s, want))
			bv_buf_printf(&names, " %s,", value);
	}
	if (names.len)
		names.s[--names.len] = '\0';
	char *s = bv_strdup(names.s ? names.s : " none");
	bv_buf_free(&names);
	return s;
}

int bv_table_vs(bv_table *t, const bv_vs_axis *ax)
{
	bv_backend_view_free(t);
	t->vs = *ax;
	size_t nref = 0, nhave = 0;
	char value[128], key[512], rkey[512];
	for (size_t r = 0; r < t->nrows; r++)
		if (place(t, &t->rows[r], value, sizeof(value), key, sizeof(key)))
			nhave++, nref += !strcmp(value, ax->ref);
	int rc = 0;
	if (ax->param[0] && nhave == 0) {
		/* the parameters the ops here do have, by name */
		bv_buf names = BV_BUF_INIT;
		for (size_t r = 0; r < t->nrows; r++)
			for (const char *p = strchr(t->rows[r].op, '['); p; p = strchr(p + 1, '[')) {
				size_t k = strcspn(p + 1, "=]");
				char want[80];
				snprintf(want, sizeof(want), " %.*s,", (int)(k < 64 ? k : 64), p + 1);
				if (!names.s || !strstr(names.s, want))
					bv_buf_printf(&names, "%s", want);
			}
		if (names.len)
			names.s[--names.len] = '\0';
		rc = bv_fail(BV_EINPUT, "%s: no cell here has a parameter %s (the ops' parameters here:%s; the "
		                        "backend, or a suite's variant parameter, is --vs backend=B)",
		             ax->option, ax->param, names.s ? names.s : " none");
		bv_buf_free(&names);
	} else if (nref == 0) {
		char *here = values_here(t);
		if (ax->param[0])
			rc = bv_fail(BV_EINPUT, "%s: no cell of %s=%s was measured (%s here:%s)", ax->option, ax->param,
			             ax->ref, ax->param, here);
		else
			rc = bv_fail(BV_EINPUT, "%s: no cell of backend %s was measured (backends here:%s)", ax->option,
			             ax->ref, here);
		free(here);
	}
	if (rc) {
		memset(&t->vs, 0, sizeof(t->vs));
		return rc;
	}
	/* Each row's reference: the row with the same key and the reference
	 * value (found once per key). */
	for (size_t r = 0; r < t->nrows; r++) {
		const bv_row *row = &t->rows[r];
		if (!place(t, row, value, sizeof(value), key, sizeof(key)) || !strcmp(value, ax->ref))
			continue;
		const bv_row *refrow = NULL;
		for (size_t k = 0; k < t->nrows && !refrow; k++) {
			char v2[128];
			if (k != r && place(t, &t->rows[k], v2, sizeof(v2), rkey, sizeof(rkey)) && !strcmp(v2, ax->ref) &&
			    !strcmp(rkey, key))
				refrow = &t->rows[k];
		}
		if (!refrow)
			continue; /* the reference has no such cell: nothing to say */
		for (size_t v = 0; v < t->nversions; v++) {
			/* A backend the version lacks (n/a) or that cannot run here
			 * (skipped: the table's "not run" line says why) has nothing
			 * to compare; a failure of either cell is shown. */
			bv_status st = row->results[v].status;
			if (st == BV_ST_NA || st == BV_ST_SKIPPED)
				continue;
			t->backends = bv_xrealloc(t->backends, (t->nbackends + 1) * sizeof(*t->backends));
			bv_backend_cmp *b = &t->backends[t->nbackends++];
			b->version = v;
			b->row = r;
			b->ref_row = (size_t)(refrow - t->rows);
			compare_one(t, row, refrow, v, &b->ch);
		}
	}
	bv_change **all = bv_xcalloc(t->nbackends + 1, sizeof(*all));
	for (size_t i = 0; i < t->nbackends; i++)
		all[i] = &t->backends[i].ch;
	t->backends_decided = bv_changes_decide(all, t->nbackends, BV_FDR, t->threshold);
	free(all);
	find_wins(t);
	return 0;
}

int bv_table_backends(bv_table *t, const char *ref)
{
	bv_vs_axis ax;
	int rc = bv_vs_backend(ref, &ax);
	return rc ? rc : bv_table_vs(t, &ax);
}

/* A candidate for a cell's fastest: a row and its ratio to the reference. */
typedef struct cand {
	size_t row;
	double ratio;
} cand;

static int by_ratio(const void *a, const void *b)
{
	const cand *x = a, *y = b;
	return x->ratio < y->ratio ? -1 : x->ratio > y->ratio ? 1 : (x->row > y->row) - (x->row < y->row);
}

/* Each (version, reference cell) with two or more backends that have a
 * paired ratio, the reference counted at 1: its fastest against the next. */
static void find_wins(bv_table *t)
{
	cand *c = bv_xcalloc(t->nbackends + 2, sizeof(cand));
	for (size_t i = 0; i < t->nbackends; i++) {
		const bv_backend_cmp *first = &t->backends[i];
		int seen = 0; /* the group was done at its first member */
		for (size_t k = 0; k < i && !seen; k++)
			seen = t->backends[k].version == first->version && t->backends[k].ref_row == first->ref_row;
		if (seen)
			continue;
		size_t n = 0;
		c[n++] = (cand){first->ref_row, 1.0};
		for (size_t k = i; k < t->nbackends; k++) {
			const bv_backend_cmp *b = &t->backends[k];
			if (b->version == first->version && b->ref_row == first->ref_row && b->ch.valid)
				c[n++] = (cand){b->row, b->ch.ratio};
		}
		if (n < 2)
			continue;
		qsort(c, n, sizeof(cand), by_ratio);
		t->wins = bv_xrealloc(t->wins, (t->nwins + 1) * sizeof(*t->wins));
		bv_backend_win *w = &t->wins[t->nwins++];
		w->version = first->version, w->row = c[0].row, w->next_row = c[1].row;
		compare_one(t, &t->rows[c[0].row], &t->rows[c[1].row], first->version, &w->ch);
	}
	free(c);
	bv_change **all = bv_xcalloc(t->nwins + 1, sizeof(*all));
	for (size_t i = 0; i < t->nwins; i++)
		all[i] = &t->wins[i].ch;
	t->wins_decided = bv_changes_decide(all, t->nwins, BV_FDR, t->threshold);
	free(all);
}

void bv_backend_view_free(bv_table *t)
{
	for (size_t i = 0; i < t->nbackends; i++)
		free(t->backends[i].ch.proc_ratio);
	for (size_t i = 0; i < t->nwins; i++)
		free(t->wins[i].ch.proc_ratio);
	free(t->backends);
	free(t->wins);
	memset(&t->vs, 0, sizeof(t->vs));
	t->backends = NULL, t->nbackends = 0;
	t->wins = NULL, t->nwins = 0;
	memset(&t->backends_decided, 0, sizeof(t->backends_decided));
	memset(&t->wins_decided, 0, sizeof(t->wins_decided));
}

char *bv_backends_control(const bv_table *t)
{
	const bv_decided *d = &t->backends_decided;
	return bv_asprintf("%zu %s comparison%s decided together at a %g%% false-discovery rate "
	                   "(Benjamini-Hochberg over anytime-valid sign tests against the %.1f%% band; a "
	                   "family of its own, apart from the versions' changes); %zu called faster or slower%s",
	                   d->tested, bv_vs_noun(t), d->tested == 1 ? "" : "s", BV_FDR * 100, t->threshold * 100,
	                   d->called, d->inconclusive ? ", some inconclusive (measure again)" : "");
}

char *bv_wins_control(const bv_table *t)
{
	const bv_decided *d = &t->wins_decided;
	char plural[80];
	bv_vs_plural(t, plural, sizeof(plural));
	return bv_asprintf("%zu cell%s with two or more %s; %zu with a clear fastest (its paired ratio to the "
	                   "next fastest decided as the %s comparisons are, a family of its own)%s",
	                   t->nwins, t->nwins == 1 ? "" : "s", plural, d->called, bv_vs_noun(t),
	                   d->inconclusive ? ", some not yet told apart (measure again)" : "");
}

/* The axis's words. */
const char *bv_vs_noun(const bv_table *t)
{
	return t->vs.param[0] ? t->vs.param : "backend";
}

void bv_vs_plural(const bv_table *t, char *buf, size_t len)
{
	const char *n = bv_vs_noun(t);
	size_t k = strlen(n);
	snprintf(buf, len, "%s%s", n, k && (n[k - 1] == 's' || n[k - 1] == 'x') ? "es" : "s");
}

void bv_vs_value(const bv_table *t, const bv_row *r, char *buf, size_t len)
{
	char value[128], key[512];
	if (!place(t, r, value, sizeof(value), key, sizeof(key)))
		snprintf(value, sizeof(value), "?");
	if (t->vs.param[0])
		snprintf(buf, len, "%s=%s", t->vs.param, value);
	else
		snprintf(buf, len, "%s", value);
}

void bv_vs_ref(const bv_table *t, char *buf, size_t len)
{
	if (t->vs.param[0])
		snprintf(buf, len, "%s=%s", t->vs.param, t->vs.ref);
	else
		snprintf(buf, len, "%s", t->vs.ref);
}

void bv_vs_group(const bv_table *t, const bv_row *r, char *buf, size_t len)
{
	char value[128];
	if (!place(t, r, value, sizeof(value), buf, len))
		snprintf(buf, len, "%s/%s", r->bench, r->op);
}

/* The options. */
static int vs_option(bv_vs_axis *ax, const char *param, size_t plen, const char *ref, const char *option)
{
	memset(ax, 0, sizeof(*ax));
	snprintf(ax->option, sizeof(ax->option), "%s", option);
	if (plen >= sizeof(ax->param) || strlen(ref) >= sizeof(ax->ref))
		return bv_fail(BV_EINPUT, "%s: too long (a name or a value is at most %zu characters)", option,
		               sizeof(ax->param) - 1);
	memcpy(ax->param, param, plen);
	ax->param[plen] = '\0';
	snprintf(ax->ref, sizeof(ax->ref), "%s", ref);
	ax->on = 1;
	return 0;
}

int bv_vs_backend(const char *ref, bv_vs_axis *ax)
{
	char option[224];
	snprintf(option, sizeof(option), "--vs-backend %s", ref);
	return vs_option(ax, "", 0, ref, option);
}

/* [a-z0-9_]+ (a suite's parameter names) and [A-Za-z0-9_.+-]+ (values and
 * backends), as harness/common/suite_file.c takes them. */
static int name_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return n > 0;
}

static int value_ok(const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      strchr("_.+-", s[i])))
			return 0;
	return n > 0;
}

int bv_vs_parse(const char *text, bv_vs_axis *ax)
{
	char option[224];
	snprintf(option, sizeof(option), "--vs %s", text);
	memset(ax, 0, sizeof(*ax));
	const char *eq = strchr(text, '=');
	if (!eq || !name_ok(text, (size_t)(eq - text)) || !value_ok(eq + 1))
		return bv_fail(BV_EINPUT, "%s: expected NAME=VALUE, a parameter and its reference value "
		                          "(level=1; backend=scalar for the backend view), NAME of [a-z0-9_] and "
		                          "VALUE of [A-Za-z0-9_.+-]",
		               option);
	size_t plen = (size_t)(eq - text);
	if (plen == 4 && !strncmp(text, "size", 4))
		return bv_fail(BV_EINPUT, "%s: a ratio across sizes compares different work, not faster and "
		                          "slower code; to compare sizes, show the results as a rate "
		                          "(--units rate: GB/s or GFLOP/s)",
		               option);
	if (plen == 7 && !strncmp(text, "backend", 7))
		return vs_option(ax, "", 0, eq + 1, option);
	return vs_option(ax, text, plen, eq + 1, option);
}

void bv_vs_settle_variant(bv_vs_axis *ax, const cJSON *desc)
{
	if (!ax || !ax->on || !ax->param[0] || !desc)
		return;
	const cJSON *b, *all = cJSON_GetObjectItemCaseSensitive(desc, "benchmarks");
	cJSON_ArrayForEach(b, all) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(b, "variant");
		if (cJSON_IsString(v) && !strcmp(v->valuestring, ax->param)) {
			ax->param[0] = '\0'; /* the backend axis */
			return;
		}
	}
}

void bv_vs_settle_variant_dir(bv_vs_axis *ax, const char *dir)
{
	if (!ax || !ax->on || !ax->param[0] || !dir)
		return;
	static const char *const where[] = {"suite.json", "raw/suite.json", NULL};
	for (const char *const *w = where; *w; w++) {
		char *path = bv_asprintf("%s/%s", dir, *w), *text = NULL;
		size_t len = 0;
		cJSON *doc = NULL;
		int found = bv_read_file(path, 4u << 20, &text, &len) == 0 && bv_json_parse(path, text, len, &doc) == 0;
		if (found)
			bv_vs_settle_variant(ax, doc);
		cJSON_Delete(doc);
		free(text), free(path);
		if (found)
			return;
	}
}

int bv_vs_check_cells(const bv_vs_axis *ax, const bv_cell *cells, long n)
{
	if (!ax || !ax->on)
		return 0;
	bv_buf params = BV_BUF_INIT, values = BV_BUF_INIT;
	long have = 0, ref = 0;
	for (long k = 0; k < n; k++) {
		char value[128], key[512], want[160];
		const char *op = cells[k].op->name;
		if (bv_vs_place(ax, cells[k].bench->name, op, cells[k].backend, cells[k].size, value, sizeof(value), key,
		                sizeof(key))) {
			have++, ref += !strcmp(value, ax->ref);
			snprintf(want, sizeof(want), " %s,", value);
			if (!values.s || !strstr(values.s, want))
				bv_buf_printf(&values, "%s", want);
		}
		for (const char *p = strchr(op, '['); p; p = strchr(p + 1, '[')) {
			size_t k2 = strcspn(p + 1, "=]");
			snprintf(want, sizeof(want), " %.*s,", (int)(k2 < 64 ? k2 : 64), p + 1);
			if (!params.s || !strstr(params.s, want))
				bv_buf_printf(&params, "%s", want);
		}
	}
	if (params.len)
		params.s[--params.len] = '\0';
	if (values.len)
		values.s[--values.len] = '\0';
	int rc = 0;
	if (!ax->param[0] && !ref)
		rc = bv_fail(BV_EINPUT, "%s: no selected cell has backend %s (backends in the selection:%s; the view "
		                        "needs the reference's cells measured)",
		             ax->option, ax->ref, values.s ? values.s : " none");
	else if (!ax->param[0])
		;
	else if (!have)
		rc = bv_fail(BV_EINPUT, "%s: no selected op has a parameter %s (the selected ops' parameters:%s; the "
		                        "backend, or a suite's variant parameter, is --vs backend=B)",
		             ax->option, ax->param, params.s ? params.s : " none");
	else if (!ref)
		rc = bv_fail(BV_EINPUT, "%s: no selected op has %s=%s (%s's values in the selection:%s; the view "
		                        "needs the reference's cells measured)",
		             ax->option, ax->param, ax->ref, ax->param, values.s);
	bv_buf_free(&params), bv_buf_free(&values);
	return rc;
}
