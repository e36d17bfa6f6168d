/*
 * site_backends.c - backends.html and data/backends.json: per workload
 * (bench, op, size), each machine class's backends side by side and the
 * fastest one per class.
 *
 * Per class, the figures are those of the newest version the class measured
 * the workload in, from the newest run of that version on the class: the
 * backends of one row were measured in one run on one machine, so which is
 * fastest is that run's own answer.  Rows of different classes are set side
 * by side as times; no ratio between them is computed.  One query, ordered
 * by workload, read as a stream.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "site.h"
#include "site_page.h"

typedef struct brow {
	size_t run, version;
	char *backend;
	double med, lo, hi;
} brow;

typedef struct workload {
	char *bench, *op, *shape;
	long long size;
	brow *rows;
	size_t n, cap;
} workload;

static void workload_clear(workload *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->rows[i].backend);
	free(w->bench), free(w->op), free(w->shape);
	w->bench = w->op = w->shape = NULL, w->n = 0;
}

/* Class cls's row of w: the newest version it measured, that version's
 * newest run on the class; BV_SITE_NONE for both when it measured none. */
static void pick(const bv_site *s, const workload *w, size_t cls, size_t *version, size_t *run)
{
	*version = *run = BV_SITE_NONE;
	for (size_t i = 0; i < w->n; i++) {
		const brow *r = &w->rows[i];
		if (s->runs[r->run].cls != cls)
			continue;
		if (*version == BV_SITE_NONE || r->version > *version ||
		    (r->version == *version && strcmp(s->runs[r->run].created, s->runs[*run].created) > 0))
			*version = r->version, *run = r->run;
	}
}

static size_t backends_of(const workload *w, const char **names)
{
	size_t n = 0;
	for (size_t i = 0; i < w->n; i++) {
		size_t j = 0;
		while (j < n && strcmp(names[j], w->rows[i].backend))
			j++;
		if (j == n)
			names[n++] = w->rows[i].backend;
	}
	return n;
}

static const brow *fastest(const workload *w, size_t version, size_t run)
{
	const brow *best = NULL;
	for (size_t i = 0; i < w->n; i++)
		if (w->rows[i].version == version && w->rows[i].run == run &&
		    (!best || w->rows[i].med < best->med))
			best = &w->rows[i];
	return best;
}

static void class_row(const bv_site *s, FILE *out, const workload *w, size_t cls, const char **names,
                      size_t nb, cJSON *jclasses)
{
	size_t version, run;
	pick(s, w, cls, &version, &run);
	if (version == BV_SITE_NONE)
		return;
	const brow *best = fastest(w, version, run);
	const bv_site_run *r = &s->runs[run];
	cJSON *jc = cJSON_CreateObject(), *jb = cJSON_CreateArray();
	cJSON_AddStringToObject(jc, "class", s->classes[cls].name);
	cJSON_AddStringToObject(jc, "version", s->versions[version].label);
	cJSON_AddItemToObject(jc, "commit", bv_site_json_str(s->versions[version].commit));
	cJSON_AddItemToObject(jc, "tree", bv_site_json_str(s->versions[version].tree));
	cJSON_AddStringToObject(jc, "run", r->key), cJSON_AddStringToObject(jc, "fastest", best->backend);
	cJSON_AddItemToObject(jc, "backends", jb), cJSON_AddItemToArray(jclasses, jc);
	fputs("<tr><td>", out), bv_site_esc(out, s->classes[cls].name), fputs("</td>", out);
	for (size_t b = 0; b < nb; b++) {
		const brow *x = NULL;
		for (size_t i = 0; i < w->n && !x; i++)
			if (w->rows[i].version == version && w->rows[i].run == run &&
			    !strcmp(w->rows[i].backend, names[b]))
				x = &w->rows[i];
		fputs("<td class=\"num", out), fputs(x == best ? " best" : "", out), fputs("\">", out);
		if (x) {
			char med[32], lo[32], hi[32];
			bv_site_time(x->med, med, sizeof(med)), bv_site_time(x->lo, lo, sizeof(lo)),
			    bv_site_time(x->hi, hi, sizeof(hi));
			fprintf(out, "%s <span class=\"note\">(%s - %s)</span>", med,
			        isfinite(x->lo) ? lo : "?", isfinite(x->hi) ? hi : "?");
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "backend", x->backend),
			    cJSON_AddNumberToObject(o, "median_ns", x->med);
			cJSON_AddItemToObject(
			    o, "lo_ns", isfinite(x->lo) ? cJSON_CreateNumber(x->lo) : cJSON_CreateNull());
			cJSON_AddItemToObject(
			    o, "hi_ns", isfinite(x->hi) ? cJSON_CreateNumber(x->hi) : cJSON_CreateNull());
			cJSON_AddItemToArray(jb, o);
		}
		fputs("</td>", out);
	}
	fputs("<td class=\"best\">", out), bv_site_esc(out, best->backend);
	fputs("</td><td>", out), bv_site_esc(out, s->versions[version].title);
	fputs("</td><td>", out), bv_site_run_link(out, r, "");
	char load[96];
	bv_site_load_words(r, load, sizeof(load));
	fputs(" <span class=\"note\">", out), bv_site_esc(out, r->tool ? r->tool : "tool not recorded");
	fputs("; ", out), bv_site_esc(out, load), fputs("</span></td></tr>\n", out);
}

static void write_workload(const bv_site *s, FILE *out, const workload *w, cJSON *jall)
{
	const char **names = bv_xcalloc(w->n + 1, sizeof(*names));
	size_t nb = backends_of(w, names);
	cJSON *jw = cJSON_CreateObject(), *jclasses = cJSON_CreateArray();
	cJSON_AddStringToObject(jw, "bench", w->bench), cJSON_AddStringToObject(jw, "op", w->op);
	cJSON_AddNumberToObject(jw, "size", (double)w->size), cJSON_AddStringToObject(jw, "shape", w->shape);
	cJSON_AddItemToObject(jw, "classes", jclasses), cJSON_AddItemToArray(jall, jw);
	fputs("<h3>", out), bv_site_esc(out, w->bench), fputs(" ", out), bv_site_esc(out, w->op);
	fputs(" ", out), bv_site_esc(out, w->shape), fputs("</h3>\n<table><thead><tr><th>class</th>", out);
	for (size_t b = 0; b < nb; b++)
		fputs("<th>", out), bv_site_esc(out, names[b]), fputs("</th>", out);
	fputs("<th>fastest</th><th>version</th><th>run</th></tr></thead><tbody>\n", out);
	for (size_t k = 0; k < s->nclasses; k++)
		class_row(s, out, w, k, names, nb, jclasses);
	fputs("</tbody></table>\n", out);
	free(names);
}

static int same_workload(const workload *w, sqlite3_stmt *st)
{
	return w->bench && !strcmp(w->bench, bv_site_col(st, 2)) && !strcmp(w->op, bv_site_col(st, 3)) &&
	       w->size == sqlite3_column_int64(st, 5);
}

int bv_site_backends(bv_site *s)
{
	sqlite3_stmt *st;
	int rc = bv_site_mkdir(s, "data");
	if (!rc)
		rc = bv_site_prepare(
		    s,
		    "SELECT run, version, bench, op, backend, size, shape, median_ns, lo_ns, hi_ns "
		    "FROM cells WHERE status = 'ok' AND median_ns IS NOT NULL "
		    "ORDER BY bench, op, size, backend, run, version",
		    &st);
	if (rc)
		return rc;
	bv_site_page p;
	bv_site_page_open(&p);
	bv_site_head(s, p.out, "Backends", "");
	fputs("<p class=\"note\">Per workload, each machine class's backends side by side: the times of the "
	      "newest version the class measured, from that version's newest run on the class (so one row "
	      "is one run on one machine), the fastest in bold.  Rows of different classes are times "
	      "side by side, not a comparison of the machines.</p>\n",
	      p.out);
	cJSON *jall = cJSON_CreateArray();
	workload w = {NULL, NULL, NULL, 0, NULL, 0, 0};
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (!same_workload(&w, st)) {
			if (w.bench)
				write_workload(s, p.out, &w, jall);
			workload_clear(&w);
			w.bench = bv_strdup(bv_site_col(st, 2)), w.op = bv_strdup(bv_site_col(st, 3));
			w.shape = bv_strdup(bv_site_col(st, 6)), w.size = sqlite3_column_int64(st, 5);
		}
		bv_site_run *r = bv_site_run_find(s, bv_site_col(st, 0));
		size_t v = r ? bv_site_version_of(s, r->key, bv_site_col(st, 1)) : BV_SITE_NONE;
		if (v == BV_SITE_NONE)
			continue;
		if (w.n == w.cap)
			w.cap = w.cap ? 2 * w.cap : 16, w.rows = bv_xrealloc(w.rows, w.cap * sizeof(*w.rows));
		w.rows[w.n++] =
		    (brow){(size_t)(r - s->runs),
		           v,
		           bv_strdup(bv_site_col(st, 4)),
		           sqlite3_column_double(st, 7),
		           sqlite3_column_type(st, 8) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 8),
		           sqlite3_column_type(st, 9) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 9)};
	}
	if (w.bench)
		write_workload(s, p.out, &w, jall);
	workload_clear(&w);
	free(w.rows);
	sqlite3_finalize(st);
	if (!jall->child)
		fputs("<p>No run has measured a cell yet.</p>\n", p.out);
	bv_site_foot(s, p.out);
	rc = bv_site_page_put(s, &p, "backends.html");
	if (step != SQLITE_DONE && !rc)
		rc = bv_site_step_error(s, "the cells");
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddItemToObject(doc, "workloads", jall);
	return rc ? (cJSON_Delete(doc), rc) : bv_site_json_put(s, "data/backends.json", doc);
}
