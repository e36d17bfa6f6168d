/*
 * site_cells.c - cells/<name>.html and data/cells/<name>.json: one page per
 * cell (bench, op, backend, size), every machine class's times per version
 * on one chart (site_chart.c), then per class its provenance and figures,
 * with its change points, then the paired verdicts runs gave for the cell.
 *
 * The whole site's cells are one query ordered as the cells_by_cell index
 * (bench, op, backend, size), read as a stream and cut where the cell
 * changes; the changes are a second stream in the same order, merged in.  So
 * a publish reads each table once however many cells there are.
 *
 * Times from different runs and classes stand side by side as times, each
 * with its run's own interval; a ratio on these pages is a `changes` row
 * (one run's verdict, paired on one machine) or a change point: a step
 * between two versions a class measured, from the runs on that class that
 * measured both in the same processes (site_changes.c), never a quotient of
 * two runs' times.
 *
 * The change points' family is the page: every step of every class on one
 * cell's page is tested together (Benjamini-Hochberg and the spans'
 * Bonferroni, changepoint.c), so on a page where nothing changed the chance
 * of any change point is at most BV_FDR, as on one `history` table.  Not the
 * whole site: it grows with every upload, so a site-wide family would make
 * each page's marks depend on cells nobody looked at and tighten with every
 * publish (a change shown today could vanish when unrelated runs arrive),
 * and a reader reads a page, not the site.  Not a class alone either: one
 * chart shows every class, and its marks are read together.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "site.h"
#include "site_changes.h"
#include "site_page.h"
#include "site_store.h"

typedef struct crow {
	size_t run, version;
	char *status, *reason;
	double med, lo, hi;
	int ok;
} crow;

typedef struct chg {
	size_t run, version;
	char *baseline, *verdict, *mode; /* NULL unless call: only a call is shown */
	int call;   /* the verdict is slower or faster */
	int usable; /* paired, and not unstable: a change point may rest on it */
	double ratio, lo, hi;
	int has_ratio;
	size_t base;  /* the baseline's version, or NONE */
	double *pr;   /* its per-process ratios (NULL: none stored) */
	size_t npr;
} chg;

/* A class's series on the page: its versions, the steps between them and
 * the change points found over them. */
typedef struct series_cp {
	size_t *vers, nv;
	bv_step *steps;
	size_t *runs;
	bv_site_cp *cp;
	size_t ncp;
} series_cp;

typedef struct group {
	size_t cell;
	crow *rows;
	size_t n, cap;
	chg *chg;
	size_t nchg, capchg;
} group;

static double col_num(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static void group_clear(group *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->rows[i].status), free(g->rows[i].reason);
	for (size_t i = 0; i < g->nchg; i++)
		free(g->chg[i].baseline), free(g->chg[i].verdict), free(g->chg[i].mode), free(g->chg[i].pr);
	g->n = g->nchg = 0;
}

/* The newest ok figure of class cls for version v in the group: the point
 * the chart draws (every figure is in the table below it). */
static const crow *newest(const bv_site *s, const group *g, size_t cls, size_t v)
{
	const crow *best = NULL;
	for (size_t i = 0; i < g->n; i++) {
		const crow *r = &g->rows[i];
		if (r->ok && r->version == v && s->runs[r->run].cls == cls &&
		    (!best || strcmp(s->runs[r->run].created, s->runs[best->run].created) > 0))
			best = r;
	}
	return best;
}

static int is_call(const chg *c)
{
	return c->call;
}

/* Every class's series and its change points, one family for the page (the
 * head comment says why). */
static int find_cps(const bv_site *s, const group *g, const size_t *cls, size_t ncls, series_cp *sc)
{
	bv_step **steps = bv_xcalloc(ncls + 1, sizeof(*steps));
	size_t *nsteps = bv_xcalloc(ncls + 1, sizeof(size_t));
	bv_site_paired *rows = bv_xcalloc(g->nchg + 1, sizeof(*rows));
	unsigned char *has = bv_xcalloc(s->nversions + 1, 1);
	for (size_t k = 0; k < ncls; k++) {
		series_cp *x = &sc[k];
		memset(has, 0, s->nversions + 1);
		for (size_t i = 0; i < g->n; i++)
			if (g->rows[i].ok && s->runs[g->rows[i].run].cls == cls[k])
				has[g->rows[i].version] = 1;
		x->vers = bv_xcalloc(s->nversions + 1, sizeof(size_t));
		for (size_t v = 0; v < s->nversions; v++)
			if (has[v])
				x->vers[x->nv++] = v;
		/* the class's paired rows with their processes; a ratio that
		 * followed the machine's state (unstable) says nothing, as in
		 * history */
		size_t nrows = 0;
		for (size_t i = 0; i < g->nchg; i++) {
			const chg *c = &g->chg[i];
			if (s->runs[c->run].cls == cls[k] && c->pr && c->base != BV_SITE_NONE && c->usable)
				rows[nrows++] = (bv_site_paired){c->run, c->version, c->base, c->pr, c->npr};
		}
		nsteps[k] = x->nv > 1 ? x->nv - 1 : 0;
		x->steps = steps[k] = bv_xcalloc(nsteps[k] + 1, sizeof(bv_step));
		x->runs = bv_xcalloc(nsteps[k] + 1, sizeof(size_t));
		bv_site_steps(x->vers, x->nv, rows, nrows, x->steps, x->runs);
	}
	bv_change_point *cp = NULL;
	size_t ncp = 0;
	int rc = bv_site_changepoints(steps, nsteps, ncls, &cp, &ncp);
	for (size_t i = 0; !rc && i < ncp; i++) {
		series_cp *x = &sc[cp[i].cell];
		if (!x->cp)
			x->cp = bv_xcalloc(ncp, sizeof(*x->cp));
		bv_site_cp *o = &x->cp[x->ncp++];
		*o = (bv_site_cp){.from = x->vers[cp[i].first],
		                  .to = x->vers[cp[i].last + 1],
		                  .ratio = cp[i].ratio,
		                  .lo = cp[i].lo,
		                  .hi = cp[i].hi,
		                  .dir = cp[i].direction == BV_SLOWER ? 1 : -1,
		                  .gradual = cp[i].last > cp[i].first,
		                  .nproc = (size_t)-1,
		                  .nruns = (size_t)-1};
		for (size_t j = cp[i].first; j <= cp[i].last; j++) {
			if (x->steps[j].nproc < o->nproc)
				o->nproc = x->steps[j].nproc;
			if (x->runs[j] < o->nruns)
				o->nruns = x->runs[j];
		}
	}
	free(cp), free(steps), free(nsteps), free(rows), free(has);
	return rc;
}

static void series_free(series_cp *sc, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		size_t ns = sc[k].nv > 1 ? sc[k].nv - 1 : 0;
		for (size_t i = 0; i < ns; i++)
			bv_step_free(&sc[k].steps[i]);
		free(sc[k].vers), free(sc[k].steps), free(sc[k].runs), free(sc[k].cp);
	}
}

static size_t place(const size_t *vs, size_t nv, size_t v)
{
	for (size_t j = 0; j < nv; j++)
		if (vs[j] == v)
			return j;
	return 0;
}

static void chart(const bv_site *s, FILE *out, const group *g, const char *what, const size_t *cls,
                  size_t ncls, series_cp *sc)
{
	unsigned char *has = bv_xcalloc(s->nversions + 1, 1);
	for (size_t i = 0; i < g->n; i++)
		has[g->rows[i].version] |= (unsigned char)g->rows[i].ok;
	size_t *vs = bv_xcalloc(s->nversions + 1, sizeof(size_t)), nv = 0;
	for (size_t v = 0; v < s->nversions; v++)
		if (has[v])
			vs[nv++] = v;
	bv_site_series *sr = bv_xcalloc(ncls + 1, sizeof(*sr));
	bv_site_point *pts = bv_xcalloc(ncls * nv + 1, sizeof(*pts));
	for (size_t k = 0; k < ncls; k++) {
		sr[k] = (bv_site_series){cls[k], pts + k * nv, sc[k].cp, sc[k].ncp};
		for (size_t j = 0; j < nv; j++) {
			const crow *r = newest(s, g, cls[k], vs[j]);
			if (r)
				pts[k * nv + j] = (bv_site_point){1, r->med, r->lo, r->hi, s->runs[r->run].id};
		}
		for (size_t c = 0; c < sc[k].ncp; c++)
			sc[k].cp[c].jfrom = place(vs, nv, sc[k].cp[c].from),
			sc[k].cp[c].jto = place(vs, nv, sc[k].cp[c].to);
	}
	if (nv)
		bv_site_chart(s, out, what, vs, nv, sr, ncls);
	else
		fputs("<p class=\"note\">No run measured this cell: nothing to draw (the figures below say "
		      "why).</p>\n",
		      out);
	free(has), free(vs), free(sr), free(pts);
}

/* Distinct values of a run field over the class's runs in the group. */
static void distinct(const bv_site *s, FILE *out, const group *g, size_t cls, int field)
{
	size_t shown = 0;
	for (size_t i = 0; i < g->n; i++) {
		const bv_site_run *r = &s->runs[g->rows[i].run];
		if (r->cls != cls)
			continue;
		const char *v = field ? r->method : r->tool ? r->tool : "not recorded";
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++) {
			const bv_site_run *q = &s->runs[g->rows[j].run];
			seen = q->cls == cls && !strcmp(v, field     ? q->method
			                                   : q->tool ? q->tool
			                                             : "not recorded");
		}
		if (!seen)
			fputs(shown++ ? "; " : "", out), bv_site_esc(out, v);
	}
}

static void provenance(const bv_site *s, FILE *out, const group *g, size_t cls)
{
	const bv_site_class *c = &s->classes[cls];
	fputs("<div class=\"prov\"><p><b>machine</b> CPU ", out), bv_site_esc(out, *c->cpu ? c->cpu : "none");
	fputs(", ISA ", out), bv_site_esc(out, *c->isa ? c->isa : "none");
	fputs(", GPU ", out), bv_site_esc(out, *c->gpu ? c->gpu : "none");
	fputs("</p><p><b>runs</b> ", out);
	size_t quiet = 0, loaded = 0, unknown = 0, nr = 0;
	double maxload = NAN;
	for (size_t i = 0; i < g->n; i++) {
		const bv_site_run *r = &s->runs[g->rows[i].run];
		int seen = r->cls != cls;
		for (size_t j = 0; j < i && !seen; j++)
			seen = g->rows[j].run == g->rows[i].run;
		if (seen)
			continue;
		fputs(nr++ ? ", " : "", out), bv_site_run_link(out, r, "../");
		quiet += r->loaded == 0, loaded += r->loaded == 1, unknown += r->loaded == -1;
		if (r->has_load && !(maxload >= r->load_max))
			maxload = r->load_max;
	}
	fputs("</p><p><b>tool</b> ", out), distinct(s, out, g, cls, 0);
	fputs("</p><p><b>method</b> ", out), distinct(s, out, g, cls, 1);
	fprintf(out, "</p><p><b>load</b> %zu quiet, %zu loaded, %zu not recorded", quiet, loaded, unknown);
	if (isfinite(maxload))
		fprintf(out, "; highest 1-minute load seen %.2f", maxload);
	fputs("</p></div>\n", out);
}

static void figures(const bv_site *s, FILE *out, const group *g, size_t cls)
{
	fputs("<table><thead><tr><th>version</th><th>median</th><th>95 % interval</th><th>run</th>"
	      "<th>status</th></tr></thead><tbody>\n",
	      out);
	for (size_t v = 0; v < s->nversions; v++)
		for (size_t i = 0; i < g->n; i++) {
			const crow *r = &g->rows[i];
			if (r->version != v || s->runs[r->run].cls != cls)
				continue;
			char med[32] = "", lo[32] = "", hi[32] = "";
			if (r->ok)
				bv_site_time(r->med, med, sizeof(med)), bv_site_time(r->lo, lo, sizeof(lo)),
				    bv_site_time(r->hi, hi, sizeof(hi));
			fputs("<tr><td>", out), bv_site_esc(out, s->versions[v].title);
			fprintf(out, "</td><td class=\"num\">%s</td><td class=\"num\">", med);
			if (r->ok && isfinite(r->lo) && isfinite(r->hi))
				fprintf(out, "%s - %s", lo, hi);
			fputs("</td><td>", out), bv_site_run_link(out, &s->runs[r->run], "../");
			fputs("</td><td>", out), bv_site_esc(out, r->status);
			if (r->reason)
				fputs(": ", out), bv_site_esc(out, r->reason);
			fputs("</td></tr>\n", out);
		}
	fputs("</tbody></table>\n", out);
}

/* Under a class's figures: its change points, or why there are none. */
static void cp_table(const bv_site *s, FILE *out, const series_cp *x)
{
	fputs("<h3>Change points</h3>\n", out);
	size_t paired = 0, nsteps = x->nv > 1 ? x->nv - 1 : 0;
	for (size_t i = 0; i < nsteps; i++)
		paired += x->runs[i] > 0;
	if (!x->ncp) {
		fprintf(out,
		        "<p class=\"note\">None: of the %zu %s between this class's versions, %zu %s measured "
		        "in the same processes by a run on this class, and none changed beyond the threshold "
		        "with the evidence the page's control asks.</p>\n",
		        nsteps, nsteps == 1 ? "step" : "steps", paired, paired == 1 ? "was" : "were");
		return;
	}
	fputs("<table><thead><tr><th>from</th><th>to</th><th>ratio</th><th>95 % interval</th>"
	      "<th>direction</th><th>processes</th><th>runs</th></tr></thead><tbody>\n",
	      out);
	for (size_t c = 0; c < x->ncp; c++) {
		const bv_site_cp *p = &x->cp[c];
		const char *dir = p->dir > 0 ? "slower" : "faster";
		fputs("<tr><td>", out), bv_site_esc(out, s->versions[p->from].title);
		fputs("</td><td>", out), bv_site_esc(out, s->versions[p->to].title);
		fprintf(out,
		        "</td><td class=\"num\">%.3fx</td><td class=\"num\">%.3fx - %.3fx</td><td "
		        "class=\"%s\">%s%s</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td></tr>\n",
		        p->ratio, p->lo, p->hi, dir, dir, p->gradual ? " (gradual)" : "", p->nproc, p->nruns);
	}
	fputs("</tbody></table>\n", out);
}

static void verdicts(const bv_site *s, FILE *out, const group *g)
{
	fputs("<h2>Paired verdicts</h2>\n", out);
	size_t calls = 0;
	for (size_t i = 0; i < g->nchg; i++)
		calls += (size_t)is_call(&g->chg[i]);
	if (!calls) {
		fputs(
		    "<p class=\"note\">No run called this cell slower or faster against its baseline.</p>\n",
		    out);
		return;
	}
	fputs("<p class=\"note\">Each row is one run's verdict, its version against its own baseline, "
	      "measured in alternation on one machine.</p>\n<table><thead><tr><th>class</th><th>run</th>"
	      "<th>version</th><th>baseline</th><th>ratio</th><th>95 % interval</th><th>verdict</th></tr>"
	      "</thead><tbody>\n",
	      out);
	for (size_t i = 0; i < g->nchg; i++) {
		const chg *c = &g->chg[i];
		const bv_site_run *r = &s->runs[c->run];
		if (!is_call(c))
			continue;
		fputs("<tr><td>", out), bv_site_esc(out, s->classes[r->cls].name);
		fputs("</td><td>", out), bv_site_run_link(out, r, "../");
		fputs("</td><td>", out), bv_site_esc(out, s->versions[c->version].title);
		fputs("</td><td>", out), bv_site_esc(out, c->baseline);
		fputs("</td><td class=\"num\">", out);
		if (c->has_ratio)
			fprintf(out, "%.3fx", c->ratio);
		fputs("</td><td class=\"num\">", out);
		if (isfinite(c->lo) && isfinite(c->hi))
			fprintf(out, "%.3fx - %.3fx", c->lo, c->hi);
		fputs("</td><td class=\"", out), bv_site_esc(out, c->verdict), fputs("\">", out);
		bv_site_esc(out, c->verdict), fputs(" (", out), bv_site_esc(out, c->mode),
		    fputs(")</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

static cJSON *num_or_null(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static cJSON *cp_json(const bv_site *s, const series_cp *x)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t c = 0; c < x->ncp; c++) {
		const bv_site_cp *p = &x->cp[c];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "from", s->versions[p->from].label);
		cJSON_AddStringToObject(o, "to", s->versions[p->to].label);
		cJSON_AddItemToObject(o, "ratio", num_or_null(p->ratio));
		cJSON_AddItemToObject(o, "lo", num_or_null(p->lo));
		cJSON_AddItemToObject(o, "hi", num_or_null(p->hi));
		cJSON_AddStringToObject(o, "direction", p->dir > 0 ? "slower" : "faster");
		cJSON_AddBoolToObject(o, "gradual", p->gradual);
		cJSON_AddNumberToObject(o, "processes", (double)p->nproc);
		cJSON_AddNumberToObject(o, "runs", (double)p->nruns);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static int cell_json(bv_site *s, const group *g, const size_t *cls, size_t ncls, const series_cp *sc)
{
	const bv_site_cell *c = &s->cells[g->cell];
	cJSON *doc = cJSON_CreateObject(), *series = cJSON_CreateArray();
	cJSON_AddStringToObject(doc, "bench", c->bench), cJSON_AddStringToObject(doc, "op", c->op);
	cJSON_AddStringToObject(doc, "backend", c->backend),
	    cJSON_AddNumberToObject(doc, "size", (double)c->size);
	cJSON_AddStringToObject(doc, "shape", c->shape), cJSON_AddItemToObject(doc, "series", series);
	for (size_t k = 0; k < ncls; k++) {
		const bv_site_class *cl = &s->classes[cls[k]];
		cJSON *o = cJSON_CreateObject(), *figs = cJSON_CreateArray();
		cJSON_AddStringToObject(o, "class", cl->name), cJSON_AddStringToObject(o, "cpu", cl->cpu);
		cJSON_AddStringToObject(o, "isa", cl->isa), cJSON_AddStringToObject(o, "gpu", cl->gpu);
		cJSON_AddItemToObject(o, "figures", figs);
		for (size_t v = 0; v < s->nversions; v++)
			for (size_t i = 0; i < g->n; i++) {
				const crow *r = &g->rows[i];
				if (r->version != v || s->runs[r->run].cls != cls[k])
					continue;
				cJSON *f = cJSON_CreateObject();
				cJSON_AddStringToObject(f, "version", s->versions[v].label);
				cJSON_AddItemToObject(f, "commit", bv_site_json_str(s->versions[v].commit));
				cJSON_AddItemToObject(f, "tree", bv_site_json_str(s->versions[v].tree));
				cJSON_AddItemToObject(f, "kernel_version",
				                      bv_site_json_str(s->versions[v].kernel_version));
				cJSON_AddStringToObject(f, "run", s->runs[r->run].key);
				cJSON_AddStringToObject(f, "status", r->status);
				cJSON_AddItemToObject(f, "reason", bv_site_json_str(r->reason));
				cJSON_AddItemToObject(f, "median_ns", num_or_null(r->ok ? r->med : NAN));
				cJSON_AddItemToObject(f, "lo_ns", num_or_null(r->ok ? r->lo : NAN));
				cJSON_AddItemToObject(f, "hi_ns", num_or_null(r->ok ? r->hi : NAN));
				cJSON_AddItemToArray(figs, f);
			}
		cJSON_AddItemToObject(o, "change_points", cp_json(s, &sc[k]));
		cJSON_AddItemToArray(series, o);
	}
	cJSON *ch = cJSON_AddArrayToObject(doc, "verdicts");
	for (size_t i = 0; i < g->nchg; i++) {
		const chg *x = &g->chg[i];
		if (!is_call(x))
			continue;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "run", s->runs[x->run].key);
		cJSON_AddStringToObject(o, "class", s->classes[s->runs[x->run].cls].name);
		cJSON_AddStringToObject(o, "version", s->versions[x->version].label);
		cJSON_AddStringToObject(o, "baseline", x->baseline);
		cJSON_AddItemToObject(o, "ratio", num_or_null(x->has_ratio ? x->ratio : NAN));
		cJSON_AddItemToObject(o, "lo", num_or_null(x->lo)),
		    cJSON_AddItemToObject(o, "hi", num_or_null(x->hi));
		cJSON_AddStringToObject(o, "verdict", x->verdict),
		    cJSON_AddStringToObject(o, "mode", x->mode);
		cJSON_AddItemToArray(ch, o);
	}
	char *rel = bv_asprintf("data/cells/%s.json", c->name);
	int rc = bv_site_json_put(s, rel, doc);
	free(rel);
	return rc;
}

static int write_cell(bv_site *s, const group *g)
{
	const bv_site_cell *c = &s->cells[g->cell];
	size_t *cls = bv_xcalloc(s->nclasses + 1, sizeof(size_t)), ncls = 0;
	unsigned char *on = bv_xcalloc(s->nclasses + 1, 1);
	for (size_t i = 0; i < g->n; i++)
		on[s->runs[g->rows[i].run].cls] = 1;
	for (size_t k = 0; k < s->nclasses; k++)
		if (on[k])
			cls[ncls++] = k;
	char *what = bv_asprintf("%s %s %s %s", c->bench, c->op, c->backend, c->shape);
	bv_site_page p;
	bv_site_page_open(&p);
	bv_site_head(s, p.out, what, "../");
	fprintf(p.out, "<p class=\"meta\">%zu %s on %zu machine %s. <a href=\"../data/cells/", g->n,
	        bv_plural((long long)g->n, "figure", "figures"), ncls,
	        bv_plural((long long)ncls, "class", "classes"));
	bv_site_esc(p.out, c->name), fputs(".json\">data</a></p>\n", p.out);
	series_cp *sc = bv_xcalloc(ncls + 1, sizeof(*sc));
	int rc = find_cps(s, g, cls, ncls, sc);
	chart(s, p.out, g, what, cls, ncls, sc);
	for (size_t k = 0; k < ncls; k++) {
		char colour[16];
		bv_site_class_colour(cls[k], colour, sizeof(colour));
		fprintf(p.out, "<h2><span class=\"sw\" style=\"background:%s\"></span>", colour);
		bv_site_esc(p.out, s->classes[cls[k]].name), fputs("</h2>\n", p.out);
		provenance(s, p.out, g, cls[k]);
		figures(s, p.out, g, cls[k]);
		cp_table(s, p.out, &sc[k]);
	}
	verdicts(s, p.out, g);
	bv_site_foot(s, p.out);
	char *rel = bv_asprintf("cells/%s.html", c->name);
	if (!rc)
		rc = bv_site_page_put(s, &p, rel);
	else
		fclose(p.out), free(p.buf);
	if (!rc)
		rc = cell_json(s, g, cls, ncls, sc);
	series_free(sc, ncls);
	free(rel), free(what), free(cls), free(on), free(sc);
	return rc;
}

/* The changes of cells up to and including g->cell from the changes stream
 * (ordered as the cells): those of g->cell into g, those of earlier cells
 * (a change of no cell) passed over.  *pending: st holds an unread row. */
static int merge_changes(bv_site *s, sqlite3_stmt *st, int *pending, group *g)
{
	for (;;) {
		if (!*pending) {
			int rc = sqlite3_step(st);
			if (rc == SQLITE_DONE)
				return 0;
			if (rc != SQLITE_ROW)
				return bv_site_step_error(s, "the changes");
			*pending = 1;
		}
		size_t cell = bv_site_cell_find(s, bv_site_col(st, 3), bv_site_col(st, 4), bv_site_col(st, 5),
		                                sqlite3_column_int64(st, 6));
		if (cell != BV_SITE_NONE && cell > g->cell)
			return 0;
		*pending = 0;
		bv_site_run *r = bv_site_run_find(s, bv_site_col(st, 0));
		size_t v = r ? bv_site_version_of(s, r->key, bv_site_col(st, 1)) : BV_SITE_NONE;
		if (cell != g->cell || v == BV_SITE_NONE)
			continue;
		if (g->nchg == g->capchg)
			g->capchg = g->capchg ? 2 * g->capchg : 8,
			g->chg = bv_xrealloc(g->chg, g->capchg * sizeof(*g->chg));
		/* Most rows are verdicts of same: read for their processes'
		 * ratios alone, their words not kept (a publish reads every
		 * change of the site). */
		const char *verdict = bv_site_col(st, 10), *mode = bv_site_col(st, 11);
		int call = !strcmp(verdict, "slower") || !strcmp(verdict, "faster");
		int usable = !strcmp(mode, "paired") && strcmp(verdict, "unstable");
		size_t npr = 0;
		double *pr = usable && sqlite3_column_type(st, 12) == SQLITE_BLOB
		                 ? bv_site_ratios_read(sqlite3_column_blob(st, 12),
		                                       (size_t)sqlite3_column_bytes(st, 12), &npr)
		                 : NULL;
		g->chg[g->nchg++] = (chg){(size_t)(r - s->runs),
		                          v,
		                          call ? bv_strdup(bv_site_col(st, 2)) : NULL,
		                          call ? bv_strdup(verdict) : NULL,
		                          call ? bv_strdup(mode) : NULL,
		                          call,
		                          usable,
		                          sqlite3_column_double(st, 7),
		                          col_num(st, 8),
		                          col_num(st, 9),
		                          sqlite3_column_type(st, 7) != SQLITE_NULL,
		                          bv_site_version_of(s, r->key, bv_site_col(st, 2)),
		                          pr,
		                          npr};
	}
}

static int flush(bv_site *s, group *g, sqlite3_stmt *ch, int *pending)
{
	int rc = g->cell == BV_SITE_NONE ? 0 : merge_changes(s, ch, pending, g);
	if (!rc && g->cell != BV_SITE_NONE)
		rc = write_cell(s, g);
	group_clear(g);
	return rc;
}

int bv_site_cells_write(bv_site *s)
{
	int rc = bv_site_mkdir(s, "cells");
	if (!rc)
		rc = bv_site_mkdir(s, "data/cells");
	sqlite3_stmt *st = NULL, *ch = NULL;
	if (!rc)
		rc = bv_site_prepare(
		    s,
		    "SELECT run, version, bench, op, backend, size, status, reason, median_ns, lo_ns, "
		    "hi_ns FROM cells ORDER BY bench, op, backend, size",
		    &st);
	if (!rc)
		rc = bv_site_prepare(
		    s,
		    "SELECT run, version, baseline, bench, op, backend, size, ratio, lo, hi, verdict, "
		    "mode, proc_ratio FROM changes ORDER BY bench, op, backend, size, run, version",
		    &ch);
	group g = {BV_SITE_NONE, NULL, 0, 0, NULL, 0, 0};
	int pending = 0, step = SQLITE_DONE;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		size_t cell = g.cell;
		if (cell == BV_SITE_NONE || strcmp(s->cells[cell].bench, bv_site_col(st, 2)) ||
		    strcmp(s->cells[cell].op, bv_site_col(st, 3)) ||
		    strcmp(s->cells[cell].backend, bv_site_col(st, 4)) ||
		    s->cells[cell].size != sqlite3_column_int64(st, 5)) {
			rc = flush(s, &g, ch, &pending);
			g.cell = bv_site_cell_find(s, bv_site_col(st, 2), bv_site_col(st, 3),
			                           bv_site_col(st, 4), sqlite3_column_int64(st, 5));
		}
		bv_site_run *r = bv_site_run_find(s, bv_site_col(st, 0));
		size_t v = r ? bv_site_version_of(s, r->key, bv_site_col(st, 1)) : BV_SITE_NONE;
		if (rc || g.cell == BV_SITE_NONE || v == BV_SITE_NONE)
			continue; /* a figure of no run or version: the import is the place to refuse it */
		if (g.n == g.cap)
			g.cap = g.cap ? 2 * g.cap : 16, g.rows = bv_xrealloc(g.rows, g.cap * sizeof(*g.rows));
		const char *status = bv_site_col(st, 6);
		g.rows[g.n++] =
		    (crow){(size_t)(r - s->runs), v,
		           bv_strdup(status),     bv_site_coldup(st, 7),
		           col_num(st, 8),        col_num(st, 9),
		           col_num(st, 10),       !strcmp(status, "ok") && isfinite(col_num(st, 8))};
	}
	if (!rc && step != SQLITE_DONE)
		rc = bv_site_step_error(s, "the cells");
	if (!rc)
		rc = flush(s, &g, ch, &pending);
	group_clear(&g);
	free(g.rows), free(g.chg);
	sqlite3_finalize(st), sqlite3_finalize(ch);
	return rc;
}
