/*
 * site_regressions.c - regressions.html and data/regressions.json: per
 * machine class, the cells its newest version was called slower in by a run
 * on that class (the run's paired verdict against its own baseline, with
 * its ratio and interval as that run computed them).
 *
 * The ratio shown is the `changes` row's: one run, one machine, versions in
 * alternation.  An older version's slower verdicts are history, on the
 * cells' pages, not here.  One query (slower verdicts, with the cell's shape
 * from its figure), filtered by the class's newest version in memory.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "site.h"
#include "site_page.h"

typedef struct reg {
	size_t run, version, cell;
	char *baseline, *mode, *shape;
	double ratio, lo, hi;
} reg;

static double num(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int read_regs(bv_site *s, reg **out, size_t *n)
{
	sqlite3_stmt *st;
	int rc = bv_site_prepare(
	    s,
	    "SELECT ch.run, ch.version, ch.baseline, ch.bench, ch.op, ch.backend, ch.size, ch.ratio, ch.lo, "
	    "ch.hi, "
	    "ch.mode, c.shape FROM changes ch LEFT JOIN cells c ON c.run = ch.run AND c.version = ch.version "
	    "AND c.bench = ch.bench AND c.op = ch.op AND c.backend = ch.backend AND c.size = ch.size "
	    "WHERE ch.verdict = 'slower' ORDER BY ch.bench, ch.op, ch.backend, ch.size, ch.run",
	    &st);
	if (rc)
		return rc;
	size_t cap = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		bv_site_run *r = bv_site_run_find(s, bv_site_col(st, 0));
		size_t v = r ? bv_site_version_of(s, r->key, bv_site_col(st, 1)) : BV_SITE_NONE;
		if (v == BV_SITE_NONE || v != s->classes[r->cls].newest)
			continue;
		if (*n == cap)
			cap = cap ? 2 * cap : 16, *out = bv_xrealloc(*out, cap * sizeof(**out));
		(*out)[(*n)++] = (reg){(size_t)(r - s->runs),
		                       v,
		                       bv_site_cell_find(s, bv_site_col(st, 3), bv_site_col(st, 4),
		                                         bv_site_col(st, 5), sqlite3_column_int64(st, 6)),
		                       bv_strdup(bv_site_col(st, 2)),
		                       bv_strdup(bv_site_col(st, 10)),
		                       bv_strdup(bv_site_col(st, 11)),
		                       num(st, 7),
		                       num(st, 8),
		                       num(st, 9)};
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : bv_site_step_error(s, "the changes");
}

static void reg_row(const bv_site *s, FILE *out, const reg *g, cJSON *arr)
{
	const bv_site_run *r = &s->runs[g->run];
	const bv_site_cell *c = g->cell == BV_SITE_NONE ? NULL : &s->cells[g->cell];
	fputs("<tr><td>", out);
	if (c) {
		fputs("<a href=\"cells/", out), bv_site_esc(out, c->name), fputs(".html\">", out);
		bv_site_esc(out, c->bench), fputs(" ", out), bv_site_esc(out, c->op), fputs(" ", out);
		bv_site_esc(out, c->backend), fputs(" ", out), bv_site_esc(out, c->shape), fputs("</a>", out);
	}
	fputs("</td><td class=\"num slower\">", out);
	if (isfinite(g->ratio))
		fprintf(out, "%.3fx", g->ratio);
	fputs("</td><td class=\"num\">", out);
	if (isfinite(g->lo) && isfinite(g->hi))
		fprintf(out, "%.3fx - %.3fx", g->lo, g->hi);
	fputs("</td><td>", out), bv_site_esc(out, g->baseline);
	fputs("</td><td>", out), bv_site_esc(out, g->mode);
	fputs("</td><td>", out), bv_site_run_link(out, r, ""), fputs("</td></tr>\n", out);
	cJSON *o = cJSON_CreateObject();
	if (c) {
		cJSON_AddStringToObject(o, "bench", c->bench), cJSON_AddStringToObject(o, "op", c->op);
		cJSON_AddStringToObject(o, "backend", c->backend),
		    cJSON_AddNumberToObject(o, "size", (double)c->size);
		cJSON_AddStringToObject(o, "shape", c->shape), cJSON_AddStringToObject(o, "page", c->name);
	}
	cJSON_AddItemToObject(o, "ratio",
	                      isfinite(g->ratio) ? cJSON_CreateNumber(g->ratio) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "lo", isfinite(g->lo) ? cJSON_CreateNumber(g->lo) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "hi", isfinite(g->hi) ? cJSON_CreateNumber(g->hi) : cJSON_CreateNull());
	cJSON_AddStringToObject(o, "baseline", g->baseline), cJSON_AddStringToObject(o, "mode", g->mode);
	cJSON_AddStringToObject(o, "run", r->key);
	cJSON_AddItemToArray(arr, o);
}

static void class_section(const bv_site *s, FILE *out, size_t k, const reg *regs, size_t n, cJSON *jall)
{
	const bv_site_class *c = &s->classes[k];
	char colour[16];
	bv_site_class_colour(k, colour, sizeof(colour));
	fprintf(out, "<h2><span class=\"sw\" style=\"background:%s\"></span>", colour);
	bv_site_esc(out, c->name), fputs("</h2>\n<p class=\"meta\">CPU ", out);
	bv_site_esc(out, *c->cpu ? c->cpu : "none"), fputs(", ISA ", out),
	    bv_site_esc(out, *c->isa ? c->isa : "none");
	fputs(", GPU ", out), bv_site_esc(out, *c->gpu ? c->gpu : "none");
	fputs("; newest version ", out);
	bv_site_esc(out, c->newest == BV_SITE_NONE ? "none" : s->versions[c->newest].title);
	fputs("</p>\n", out);
	cJSON *jc = cJSON_CreateObject(), *arr = cJSON_CreateArray();
	cJSON_AddStringToObject(jc, "class", c->name), cJSON_AddStringToObject(jc, "cpu", c->cpu);
	cJSON_AddStringToObject(jc, "isa", c->isa), cJSON_AddStringToObject(jc, "gpu", c->gpu);
	cJSON_AddItemToObject(
	    jc, "version", bv_site_json_str(c->newest == BV_SITE_NONE ? NULL : s->versions[c->newest].label));
	cJSON_AddItemToObject(jc, "slower", arr), cJSON_AddItemToArray(jall, jc);
	size_t shown = 0;
	for (size_t i = 0; i < n; i++) {
		if (s->runs[regs[i].run].cls != k)
			continue;
		if (!shown++)
			fputs("<table><thead><tr><th>cell</th><th>ratio</th><th>95 % "
			      "interval</th><th>baseline</th>"
			      "<th>mode</th><th>run</th></tr></thead><tbody>\n",
			      out);
		reg_row(s, out, &regs[i], arr);
	}
	fputs(shown ? "</tbody></table>\n" : "<p>No cell called slower.</p>\n", out);
}

int bv_site_regressions(bv_site *s)
{
	reg *regs = NULL;
	size_t n = 0;
	int rc = bv_site_mkdir(s, "data");
	if (!rc)
		rc = read_regs(s, &regs, &n);
	if (!rc) {
		bv_site_page p;
		bv_site_page_open(&p);
		bv_site_head(s, p.out, "Regressions", "");
		fputs("<p class=\"note\">Per machine class, the cells its newest version was called slower "
		      "in by a "
		      "run on that class: the ratio is that run's, its version against its own baseline, "
		      "measured "
		      "in alternation on one machine.</p>\n",
		      p.out);
		cJSON *jall = cJSON_CreateArray();
		for (size_t k = 0; k < s->nclasses; k++)
			class_section(s, p.out, k, regs, n, jall);
		if (!s->nclasses)
			fputs("<p>No run yet.</p>\n", p.out);
		bv_site_foot(s, p.out);
		rc = bv_site_page_put(s, &p, "regressions.html");
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddItemToObject(doc, "classes", jall);
		if (!rc)
			rc = bv_site_json_put(s, "data/regressions.json", doc);
		else
			cJSON_Delete(doc);
	}
	for (size_t i = 0; i < n; i++)
		free(regs[i].baseline), free(regs[i].mode), free(regs[i].shape);
	free(regs);
	return rc;
}
