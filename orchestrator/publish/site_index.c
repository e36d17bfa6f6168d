/*
 * site_index.c - index.html: the machine classes, the versions, one row per
 * run, and the list of cells with a filter by op, backend and size.
 *
 * The filter is the site's one script (bv_site_script): every page's
 * Content-Security-Policy allows exactly its sha256 (site_page.c), so an
 * injected script or handler could not run even if escaping failed.  It
 * reads the selects and hides rows; it writes no markup, so nothing from an
 * upload passes through it.  Without it (script off) every row shows.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "site.h"
#include "site_page.h"

const char bv_site_script[] =
    "(function(){var k=['op','backend','shape'];"
    "var f=k.map(function(n){return document.getElementById('f-'+n)});"
    "function go(){var rows=document.querySelectorAll('#cells tbody tr'),n=0;"
    "for(var i=0;i<rows.length;i++){var ok=true;"
    "for(var j=0;j<k.length;j++)if(f[j].value&&rows[i].getAttribute('data-'+k[j])!==f[j].value)ok=false;"
    "rows[i].hidden=!ok;if(ok)n++}"
    "document.getElementById('shown').textContent=n+' of '+rows.length+' cells shown'}"
    "f.forEach(function(s){s.addEventListener('change',go)});go()})();";

static void classes_table(const bv_site *s, FILE *out)
{
	fputs("<h2>Machine classes</h2>\n<table><thead><tr><th>class</th><th>CPU</th><th>ISA</th><th>GPU</th>"
	      "<th>runs</th><th>versions</th><th>loaded runs</th></tr></thead><tbody>\n",
	      out);
	for (size_t i = 0; i < s->nclasses; i++) {
		const bv_site_class *c = &s->classes[i];
		char colour[16];
		bv_site_class_colour(i, colour, sizeof(colour));
		fprintf(out, "<tr><td><span class=\"sw\" style=\"background:%s\"></span>", colour);
		bv_site_esc(out, c->name), fputs("</td><td>", out),
		    bv_site_esc(out, *c->cpu ? c->cpu : "none");
		fputs("</td><td>", out), bv_site_esc(out, *c->isa ? c->isa : "none");
		fputs("</td><td>", out), bv_site_esc(out, *c->gpu ? c->gpu : "none");
		fprintf(out,
		        "</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td><td "
		        "class=\"num\">%zu</td></tr>\n",
		        c->nruns, c->nversions, c->nloaded);
	}
	fputs("</tbody></table>\n", out);
}

static void versions_table(const bv_site *s, FILE *out)
{
	fputs("<h2>Versions</h2>\n<p class=\"note\">In order: by the kernel library's version (semver), then "
	      "label, then when first seen.</p>\n<table><thead><tr><th>version</th><th>kernel version</th>"
	      "<th>kind</th><th>commit or tree</th><th>runs</th><th>first seen</th></tr></thead><tbody>\n",
	      out);
	for (size_t i = 0; i < s->nversions; i++) {
		const bv_site_version *v = &s->versions[i];
		fputs("<tr><td>", out), bv_site_esc(out, v->title), fputs("</td><td>", out);
		bv_site_esc(out, v->kernel_version ? v->kernel_version : "not recorded"),
		    fputs("</td><td>", out);
		bv_site_esc(out, v->kind), fputs("</td><td><code>", out);
		char commit[24];
		if (v->commit)
			snprintf(commit, sizeof(commit), "%.12s", v->commit);
		else
			snprintf(commit, sizeof(commit), "%s%.12s", v->tree ? "tree " : "", v->tree ? v->tree : "");
		bv_site_esc(out, commit);
		fprintf(out, "</code></td><td class=\"num\">%zu</td><td>", v->nruns);
		bv_site_esc(out, v->first_seen), fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

static void runs_table(const bv_site *s, FILE *out)
{
	fputs("<h2>Runs</h2>\n<table><thead><tr><th>run</th><th>class</th><th>versions</th><th>tool</th>"
	      "<th>created</th><th>load</th></tr></thead><tbody>\n",
	      out);
	for (size_t k = s->nruns; k-- > 0;) {
		const bv_site_run *r = &s->runs[s->by_created[k]];
		fputs("<tr><td>", out), bv_site_run_link(out, r, ""), fputs("</td><td>", out);
		bv_site_esc(out, s->classes[r->cls].name), fputs("</td><td>", out);
		/* The vrefs are sorted by run: this run's labels lie together. */
		bv_site_vref key = {r->key, "", 0};
		size_t lo = 0, hi = s->nvrefs;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (strcmp(s->vrefs[mid].run, key.run) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t i = lo; i < s->nvrefs && !strcmp(s->vrefs[i].run, r->key); i++)
			fputs(i > lo ? ", " : "", out),
			    bv_site_esc(out, s->versions[s->vrefs[i].version].title);
		fputs("</td><td>", out), bv_site_esc(out, r->tool ? r->tool : "not recorded");
		fputs("</td><td>", out), bv_site_esc(out, r->created);
		char load[96];
		bv_site_load_words(r, load, sizeof(load));
		fputs("</td><td>", out), bv_site_esc(out, load), fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const bv_site *size_site;
static int size_cmp(const void *a, const void *b)
{
	const bv_site_cell *x = &size_site->cells[*(const size_t *)a],
	                   *y = &size_site->cells[*(const size_t *)b];
	return x->size < y->size ? -1 : x->size > y->size ? 1 : strcmp(x->shape, y->shape);
}

/* One select: the distinct values, sorted (sizes by size, not by text). */
static void select_of(const bv_site *s, FILE *out, const char *what, int field)
{
	const char **v = bv_xcalloc(s->ncells + 1, sizeof(*v));
	size_t *ord = bv_xcalloc(s->ncells + 1, sizeof(size_t));
	for (size_t i = 0; i < s->ncells; i++)
		ord[i] = i;
	size_site = s;
	if (field == 2)
		qsort(ord, s->ncells, sizeof(size_t), size_cmp);
	for (size_t i = 0; i < s->ncells; i++) {
		const bv_site_cell *c = &s->cells[ord[i]];
		v[i] = field == 0 ? c->op : field == 1 ? c->backend : c->shape;
	}
	if (field != 2)
		qsort(v, s->ncells, sizeof(*v), str_cmp);
	fprintf(out, "<label>%s <select id=\"f-%s\"><option value=\"\">all</option>", what,
	        field == 0   ? "op"
	        : field == 1 ? "backend"
	                     : "shape");
	for (size_t i = 0; i < s->ncells; i++) {
		if (i && !strcmp(v[i - 1], v[i]))
			continue; /* sorted: a value's copies lie together */
		fputs("<option value=\"", out), bv_site_esc(out, v[i]), fputs("\">", out);
		bv_site_esc(out, v[i]), fputs("</option>", out);
	}
	fputs("</select></label>\n", out);
	free(v), free(ord);
}

static void cells_table(const bv_site *s, FILE *out)
{
	fputs("<h2>Cells</h2>\n<p>", out);
	select_of(s, out, "op", 0), select_of(s, out, "backend", 1), select_of(s, out, "size", 2);
	fprintf(out, "<span class=\"note\" id=\"shown\">%zu cells</span></p>\n", s->ncells);
	fputs("<table id=\"cells\"><thead><tr><th>bench</th><th>op</th><th>backend</th><th>size</th>"
	      "<th>figures</th></tr></thead><tbody>\n",
	      out);
	for (size_t i = 0; i < s->ncells; i++) {
		const bv_site_cell *c = &s->cells[i];
		fputs("<tr data-op=\"", out), bv_site_esc(out, c->op);
		fputs("\" data-backend=\"", out), bv_site_esc(out, c->backend);
		fputs("\" data-shape=\"", out), bv_site_esc(out, c->shape);
		fputs("\"><td><a href=\"cells/", out), bv_site_esc(out, c->name), fputs(".html\">", out);
		bv_site_esc(out, c->bench), fputs("</a></td><td>", out), bv_site_esc(out, c->op);
		fputs("</td><td>", out), bv_site_esc(out, c->backend), fputs("</td><td>", out);
		bv_site_esc(out, c->shape);
		fprintf(out, "</td><td class=\"num\">%zu</td></tr>\n", c->nrows);
	}
	fputs("</tbody></table>\n", out);
}

int bv_site_index(bv_site *s)
{
	bv_site_page p;
	bv_site_page_open(&p);
	FILE *out = p.out;
	bv_site_head(s, out, "Shared results", "");
	fprintf(out, "<p class=\"meta\">%zu %s from %zu machine %s, %zu %s, %zu %s. ", s->nruns,
	        bv_plural((long long)s->nruns, "run", "runs"), s->nclasses,
	        bv_plural((long long)s->nclasses, "class", "classes"), s->nversions,
	        bv_plural((long long)s->nversions, "version", "versions"), s->ncells,
	        bv_plural((long long)s->ncells, "cell", "cells"));
	/* Not their count: a refused upload changes quarantine.html alone. */
	fputs("<a href=\"quarantine.html\">Refused uploads</a>.</p>\n", out);
	fputs("<p class=\"note\">Each cell's page shows every class's time per version (each run's own "
	      "time and interval); <a href=\"backends.html\">backends</a> the fastest backend per class; "
	      "<a href=\"regressions.html\">regressions</a> what each class's newest version was called "
	      "slower in.</p>\n",
	      out);
	classes_table(s, out);
	versions_table(s, out);
	runs_table(s, out);
	cells_table(s, out);
	fprintf(out, "<script>%s</script>\n", bv_site_script);
	bv_site_foot(s, out);
	return bv_site_page_put(s, &p, "index.html");
}
