/*
 * report_html.c - the release-readiness report as one self-contained HTML
 * page, for a release manager who gives it ten seconds: the verdict banner
 * (green READY / red NOT READY) with its reasons first, then the geomeans per
 * group, the warnings and improvements, one chart per group (chart_svg.c,
 * shared with the comparison's HTML: each cell's ratio with its 95 %
 * interval, a line at 1.0 and the budget, the region beyond the budget
 * shaded), the full table, the environment of both runs,
 * the compat shims, the budgets and how to reproduce.
 *
 * Like the comparison's HTML (export_html.c) it loads nothing: inline CSS,
 * inline SVG, no scripts, and a Content-Security-Policy that forbids every
 * request.  Every string from a log or the budgets file goes through
 * bv_html_esc().
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "chart_svg.h"
#include "common.h"
#include "export.h"
#include "html.h"
#include "report.h"
#include "table.h"
#include "verdict.h"

static void esc(FILE *out, const char *s) { bv_html_esc(out, s); }

/* Multi-line text (a build log's tail) in a <pre>: each line escaped. */
static void esc_lines(FILE *out, const char *s)
{
	for (const char *p = s ? s : ""; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = bv_asprintf("%.*s", (int)n, p);
		esc(out, line);
		free(line);
		fputc('\n', out);
		p += n + (nl != NULL);
	}
}

/* One class per status; the colours say blocking (red), attention (amber),
 * good (green), neutral (grey), new (blue). */
static const char *status_class(bv_cell_status s)
{
	switch (s) {
	case BV_CELL_BUILD_FAILED:
	case BV_CELL_WRONG:
	case BV_CELL_FAILED:
	case BV_CELL_VANISHED:
	case BV_CELL_REGRESSION: return "bad";
	case BV_CELL_WARNING: return "warn";
	case BV_CELL_IMPROVEMENT: return "good";
	case BV_CELL_NEW: return "new";
	default: return "neutral";
	}
}

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1f2328;background:#f6f8fa}"
    "main{max-width:1000px;margin:0 auto;padding:24px 28px 48px;background:#fff;min-height:100vh}"
    "h1{font-size:15px;font-weight:600;color:#57606a;margin:0 0 12px}"
    "h2{font-size:17px;margin:32px 0 8px;padding-bottom:4px;border-bottom:1px solid #d0d7de}"
    "h3{font-size:14px;margin:18px 0 4px}"
    ".verdict{border-radius:8px;padding:18px 22px;color:#fff}"
    ".verdict.ready{background:#1a7f37}.verdict.notready{background:#cf222e}"
    ".verdict .word{font-size:34px;font-weight:800;letter-spacing:.02em;margin:0;line-height:1.1}"
    ".verdict .what{font-size:15px;margin:6px 0 0;opacity:.95}"
    ".verdict ul{margin:12px 0 0;padding-left:20px;font-size:14px}.verdict li{margin:3px 0}"
    ".chips{margin:14px 0 4px;display:flex;flex-wrap:wrap;gap:6px}"
    ".chip{border-radius:12px;padding:2px 10px;font-size:13px;font-weight:600;border:1px solid}"
    ".chip.bad{color:#cf222e;border-color:#cf222e;background:#ffebe9}"
    ".chip.warn{color:#9a6700;border-color:#d4a72c;background:#fff8c5}"
    ".chip.good{color:#1a7f37;border-color:#1a7f37;background:#dafbe1}"
    ".chip.new{color:#0969da;border-color:#0969da;background:#ddf4ff}"
    ".chip.neutral{color:#57606a;border-color:#d0d7de;background:#f6f8fa}"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:6px 0}"
    "th,td{border-bottom:1px solid #d8dee4;padding:4px 10px;text-align:left;vertical-align:top}"
    "th{background:#f6f8fa;font-weight:600}td.num,th.num{text-align:right;white-space:nowrap}"
    "td.bad{color:#cf222e;font-weight:600}td.warn{color:#9a6700;font-weight:600}"
    "td.good{color:#1a7f37;font-weight:600}td.new{color:#0969da}td.neutral{color:#57606a}"
    "tr.total td{font-weight:700;border-top:2px solid #8c959f}"
    ".muted{color:#57606a}.small{font-size:12px}"
    "pre{background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;padding:10px;overflow-x:auto;"
    "white-space:pre-wrap;word-break:break-all;font-size:12.5px}"
    "code{font-size:12.5px}"
    "td.diff{background:#fff8c5}"
    "svg{display:block;margin:4px 0 2px}"
    "svg text{font:12px system-ui,sans-serif;fill:#1f2328}"
    "svg .bad{stroke:#cf222e;fill:#cf222e}svg .warn{stroke:#bf8700;fill:#bf8700}"
    "svg .good{stroke:#1a7f37;fill:#1a7f37}svg .neutral{stroke:#6e7781;fill:#6e7781}"
    "svg .new{stroke:#0969da;fill:#0969da}svg text.bad{fill:#cf222e;font-weight:600}"
    ".sw.bad{background:#cf222e}.sw.warn{background:#bf8700}.sw.good{background:#1a7f37}"
    ".sw.neutral{background:#6e7781}.sw.new{background:#0969da}"
    ".note{color:#9a6700;background:#fff8c5;border-left:3px solid #d4a72c;padding:4px 10px}";

/* The group's chart (chart_svg.c): one row per cell that ran, coloured by
 * status, with its budget and the region beyond it shaded. */
static void chart(FILE *out, const bv_report *r, const char *bench)
{
	const bv_table *t = &r->table;
	bv_chart_row *rows = bv_xcalloc(r->ncells + 1, sizeof(*rows));
	size_t n = 0;
	for (size_t k = 0; k < r->ncells; k++) {
		const bv_report_cell *c = &r->cells[k];
		const bv_row *rw = c->row;
		if (strcmp(rw->bench, bench) || c->status == BV_CELL_NOT_RUN)
			continue;
		const bv_change *ch = &rw->changes[1];
		char name[256];
		bv_report_cell_name(c, name, sizeof(name));
		char *sum = bv_report_cell_summary(c);
		rows[n++] = (bv_chart_row){
		    .op = rw->op,
		    .backend = rw->backend,
		    .size = rw->size,
		    .cls = status_class(c->status),
		    .title = bv_asprintf("%s: %s: %s", name, bv_cell_status_name(c->status), sum),
		    .valid = ch->valid,
		    .ratio = ch->ratio,
		    .lo = ch->ci_low,
		    .hi = ch->ci_high,
		    .interval = ch->valid && bv_change_has_interval(ch),
		    .none = bv_cell_status_name(c->status),
		    .has_budget = 1,
		    .budget = c->budget,
		};
		free(sum);
	}
	char *what = bv_asprintf("%s: %s/%s time ratio per cell, 95%% interval, budget", bench, t->labels[1],
	                         t->labels[0]);
	bv_chart ch = {what, rows, n, "no cell of this group ran"};
	bv_chart_svg(out, &ch);
	for (size_t i = 0; i < n; i++)
		free((char *)rows[i].title);
	free(rows), free(what);
}

static void version_desc(FILE *out, const bv_report *r, int i)
{
	const bv_report_env *e = &r->env[i];
	fputs("<b>", out), esc(out, r->table.labels[i]), fputs("</b>", out);
	if (e->kernel_version)
		fputs(" (kernels ", out), esc(out, e->kernel_version), fputc(')', out);
	if (e->commit) {
		char shortc[13];
		snprintf(shortc, sizeof(shortc), "%.12s", e->commit);
		fputs(", commit <code>", out), esc(out, shortc), fputs("</code>", out);
	} else if (e->kind && !strcmp(e->kind, "local"))
		fputs(", the working tree", out);
}

static void summary(FILE *out, const bv_report *r)
{
	const bv_table *t = &r->table;
	fputs("<div class=\"chips\">", out);
	size_t ncells = r->ncells - r->counts[BV_CELL_NOT_RUN];
	fprintf(out, "<span class=\"chip neutral\">%zu cell%s</span>", ncells, ncells == 1 ? "" : "s");
	for (int s = 0; s < BV_CELL_NSTATUS; s++) {
		if (!r->counts[s] || s == BV_CELL_NOT_RUN)
			continue;
		char count[64];
		fprintf(out, "<span class=\"chip %s\">", status_class((bv_cell_status)s));
		esc(out, bv_cell_status_count((bv_cell_status)s, r->counts[s], count, sizeof(count)));
		fputs("</span>", out);
	}
	fputs("</div>\n", out);
	fputs("<table class=\"summary\"><thead><tr><th>group</th><th class=\"num\">cells</th>"
	      "<th class=\"num\">geomean ",
	      out);
	esc(out, t->labels[1]), fputc('/', out), esc(out, t->labels[0]);
	fputs("</th><th>change</th><th class=\"num\">blocking</th><th class=\"num\">warnings</th>"
	      "<th class=\"num\">improvements</th></tr></thead>\n<tbody>\n",
	      out);
	for (size_t g = 0; g <= r->ngroups; g++) {
		int total = g == r->ngroups;
		if (total && r->ngroups < 2)
			break;
		const size_t *cnt = total ? r->counts : r->groups[g].counts;
		double gm = total ? r->geomean : r->groups[g].geomean;
		size_t n = total ? r->ngeomean : r->groups[g].n;
		size_t blocking = 0, cells = 0;
		for (int s = 0; s < BV_CELL_NSTATUS; s++) {
			blocking += bv_cell_status_blocks((bv_cell_status)s) ? cnt[s] : 0;
			cells += s == BV_CELL_NOT_RUN ? 0 : cnt[s];
		}
		fputs(total ? "<tr class=\"total\"><td>all groups" : "<tr><td>", out);
		if (!total)
			esc(out, r->groups[g].bench);
		fprintf(out, "</td><td class=\"num\">%zu</td>", cells);
		if (n) {
			const char *cls = gm > 1 + t->threshold ? "warn" : gm < 1 / (1 + t->threshold) ? "good" : "neutral";
			fprintf(out, "<td class=\"num %s\">%.3fx</td><td class=\"%s\">%.1f%% %s</td>", cls, gm, cls,
				fabs(gm - 1) * 100, gm >= 1 ? "slower" : "faster");
		} else
			fputs("<td class=\"num\">-</td><td class=\"muted\">no ratio</td>", out);
		fprintf(out, "<td class=\"num%s\">%zu</td><td class=\"num%s\">%zu</td><td class=\"num%s\">%zu</td></tr>\n",
			blocking ? " bad" : "", blocking, cnt[BV_CELL_WARNING] ? " warn" : "", cnt[BV_CELL_WARNING],
			cnt[BV_CELL_IMPROVEMENT] ? " good" : "", cnt[BV_CELL_IMPROVEMENT]);
	}
	fputs("</tbody></table>\n", out);
	fputs("<p class=\"muted small\">geomean over the cells with a ratio (candidate time / baseline time: "
	      "below 1 is faster).</p>\n",
	      out);
	for (size_t i = 0; i < t->nnotes; i++)
		fputs("<p class=\"note\">note: ", out), esc(out, t->notes[i]), fputs("</p>\n", out);
}

/* A short table of the cells with one status (warnings, improvements). */
/* A short table of the cells with one status; the ratio and budget columns
 * only for statuses that have a ratio. */
static void cell_list(FILE *out, const bv_report *r, bv_cell_status s, const char *title)
{
	if (!r->counts[s])
		return;
	int ratios = s == BV_CELL_REGRESSION || s == BV_CELL_WARNING || s == BV_CELL_IMPROVEMENT;
	int budgets = s == BV_CELL_REGRESSION || s == BV_CELL_WARNING;
	fprintf(out,
		"<h3>%s (%zu)</h3>\n<table class=\"cells\"><thead><tr><th>cell</th>%s%s<th>why</th></tr></thead>"
		"<tbody>\n",
		title, r->counts[s], ratios ? "<th class=\"num\">ratio [95% CI]</th>" : "",
		budgets ? "<th class=\"num\">budget</th>" : "");
	for (size_t k = 0; k < r->ncells; k++) {
		const bv_report_cell *c = &r->cells[k];
		if (c->status != s)
			continue;
		char name[256], ratio[96], budget[32];
		bv_report_cell_name(c, name, sizeof(name));
		bv_report_ratio(c, ratio, sizeof(ratio));
		bv_report_budget(c, budget, sizeof(budget));
		fputs("<tr><td>", out), esc(out, name), fputs("</td>", out);
		if (ratios)
			fprintf(out, "<td class=\"num %s\">", status_class(s)), esc(out, ratio), fputs("</td>", out);
		if (budgets)
			fputs("<td class=\"num\">", out), esc(out, budget), fputs("</td>", out);
		fputs("<td>", out), esc(out, c->why), fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

static void full_table(FILE *out, const bv_report *r)
{
	const bv_table *t = &r->table;
	fputs("<table class=\"full\"><thead><tr><th>bench</th><th>op</th><th>backend</th><th class=\"num\">size</th>"
	      "<th class=\"num\">",
	      out);
	esc(out, t->labels[0]), fputs("</th><th class=\"num\">", out), esc(out, t->labels[1]);
	fputs("</th><th class=\"num\">ratio [95% CI]</th><th class=\"num\">budget</th><th>status</th></tr></thead>\n"
	      "<tbody>\n",
	      out);
	for (size_t k = 0; k < r->ncells; k++) {
		const bv_report_cell *c = &r->cells[k];
		const bv_row *rw = c->row;
		char buf[128];
		fputs("<tr><td>", out), esc(out, rw->bench), fputs("</td><td>", out), esc(out, rw->op);
		fputs("</td><td>", out), esc(out, rw->backend);
		fprintf(out, "</td><td class=\"num\">%s</td>", bv_size_format(rw->size, buf, sizeof(buf)));
		for (int v = 0; v < 2; v++) {
			const bv_result *res = &rw->results[v];
			fputs("<td class=\"num\"", out);
			if (res->reason)
				fputs(" title=\"", out), esc(out, res->reason), fputc('"', out);
			fputc('>', out);
			if (res->status == BV_ST_OK)
				bv_format_result(t, res, buf, sizeof(buf)), esc(out, buf);
			else
				esc(out, bv_status_name(res->status));
			fputs("</td>", out);
		}
		bv_report_ratio(c, buf, sizeof(buf));
		fputs("<td class=\"num\">", out), esc(out, buf), fputs("</td>", out);
		bv_report_budget(c, buf, sizeof(buf));
		fputs("<td class=\"num\"", out);
		if (c->rule)
			fprintf(out, " title=\"overrides[%d]\"", c->rule->index);
		fputc('>', out), esc(out, buf), fputs(c->rule ? "*" : "", out), fputs("</td>", out);
		fprintf(out, "<td class=\"%s\" title=\"", status_class(c->status));
		esc(out, c->why), fputs("\">", out), esc(out, bv_cell_status_name(c->status));
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n<p class=\"muted small\">ratio: candidate time / baseline time; budget: the "
	      "slowdown allowed (* an override from the budgets file); hover a cell for its reason.</p>\n",
	      out);
}

/* mark: highlight a difference (the machine's rows; two versions differ in
 * their names and commits by design). */
static void env_row(FILE *out, const char *what, const char *a, const char *b, int mark)
{
	int differ = mark && !(a && b ? !strcmp(a, b) : a == b);
	fputs("<tr><th>", out), esc(out, what), fputs("</th>", out);
	const char *v[2] = {a, b};
	for (int i = 0; i < 2; i++) {
		fputs(differ ? "<td class=\"diff\">" : "<td>", out);
		if (v[i])
			esc(out, v[i]);
		else
			fputs("<span class=\"muted\">-</span>", out);
		fputs("</td>", out);
	}
	fputs("</tr>\n", out);
}

static void environment(FILE *out, const bv_report *r)
{
	const bv_report_env *a = &r->env[0], *b = &r->env[1];
	fputs("<table class=\"env\"><thead><tr><th></th><th>baseline: ", out);
	esc(out, r->table.labels[0]), fputs("</th><th>candidate: ", out), esc(out, r->table.labels[1]);
	fputs("</th></tr></thead><tbody>\n", out);
	env_row(out, "name as given", a->name, b->name, 0);
	env_row(out, "resolved by", a->rule, b->rule, 0);
	env_row(out, "commit", a->commit, b->commit, 0);
	env_row(out, "tree", a->tree, b->tree, 0);
	env_row(out, "summary", a->summary, b->summary, 0);
	env_row(out, "kernels version", a->kernel_version, b->kernel_version, 0);
	env_row(out, "build", a->build_failed ? "failed" : "ok", b->build_failed ? "failed" : "ok", 1);
	env_row(out, "run", a->run_id, b->run_id, 1);
	env_row(out, "measured (UTC)", a->created, b->created, 0);
	env_row(out, "host", a->hostname, b->hostname, 1);
	env_row(out, "cpu", a->cpu, b->cpu, 1);
	char ca[32], cb[32];
	snprintf(ca, sizeof(ca), "%d", a->cores), snprintf(cb, sizeof(cb), "%d", b->cores);
	env_row(out, "cores", ca, cb, 1);
	env_row(out, "governor", a->governor, b->governor, 1);
	env_row(out, "os", a->os, b->os, 1);
	env_row(out, "compiler", a->compiler, b->compiler, 1);
	env_row(out, "openblas", a->openblas, b->openblas, 1);
	env_row(out, "gpu", a->gpu, b->gpu, 1);
	char pa[96], pb[96];
	snprintf(pa, sizeof(pa), "%.1f GB/s copy, %.1f GFLOP/s", a->copy_gbps, a->peak_gflops);
	snprintf(pb, sizeof(pb), "%.1f GB/s copy, %.1f GFLOP/s", b->copy_gbps, b->peak_gflops);
	env_row(out, "calibrated peak (one core)", pa, pb, 1);
	env_row(out, "mode", a->method_mode, b->method_mode, 1);
	env_row(out, "log", a->log, b->log, 0);
	fputs("</tbody></table>\n", out);
	if (r->table.method)
		fputs("<p class=\"muted small\">method: ", out), esc(out, r->table.method), fputs("</p>\n", out);
}

static void build_logs(FILE *out, const bv_report *r)
{
	for (int i = 0; i < 2; i++)
		if (r->env[i].build_failed) {
			fputs("<h3>", out), esc(out, r->table.labels[i]);
			fputs(" did not build: the end of its build log</h3>\n<pre>", out);
			esc_lines(out, r->env[i].build_error ? r->env[i].build_error : "no message recorded");
			fputs("</pre>\n", out);
		}
}

static void shims(FILE *out, const bv_report *r)
{
	fputs("<table><thead><tr><th>version</th><th>compat rules applied</th><th>extra build flags</th></tr>"
	      "</thead><tbody>\n",
	      out);
	for (int i = 0; i < 2; i++) {
		const bv_report_env *e = &r->env[i];
		fputs("<tr><td>", out), esc(out, r->table.labels[i]), fputs("</td><td>", out);
		if (!e->ncompat)
			fputs("<span class=\"muted\">none: builds against the harness as it is</span>", out);
		for (size_t k = 0; k < e->ncompat; k++) {
			fputs(k ? "<br><code>" : "<code>", out), esc(out, e->compat[k]), fputs("</code>", out);
			if (e->compat_notes[k])
				fputs(" <span class=\"muted\">", out), esc(out, e->compat_notes[k]), fputs("</span>", out);
		}
		fputs("</td><td>", out);
		if (e->cflags)
			fputs("<code>", out), esc(out, e->cflags), fputs("</code>", out);
		else
			fputs("<span class=\"muted\">-</span>", out);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

static void budgets(FILE *out, const bv_report *r)
{
	const bv_budgets *b = r->budgets;
	fputs("<p>", out);
	if (b->path)
		fputs("from <code>", out), esc(out, b->path), fputs("</code>; ", out);
	else
		fputs("no budgets file; ", out);
	fprintf(out, "default: a cell may be up to %.4g%% slower. A cell regresses when its whole 95%% interval "
		     "lies beyond its budget; the override naming the most fields wins, and between equally "
		     "specific ones the smaller budget.</p>\n",
		b->default_slowdown * 100);
	if (!b->nrules)
		return;
	fputs("<table><thead><tr><th>#</th><th>bench</th><th>op</th><th>backend</th><th>size</th>"
	      "<th class=\"num\">budget</th><th class=\"num\">cells</th><th>note</th></tr></thead><tbody>\n",
	      out);
	for (size_t i = 0; i < b->nrules; i++) {
		const bv_budget_rule *br = &b->rules[i];
		size_t used = 0;
		for (size_t k = 0; k < r->ncells; k++)
			used += r->cells[k].rule == br;
		char size[32] = "";
		if (br->size)
			bv_size_format(br->size, size, sizeof(size));
		const char *f[4] = {br->bench, br->op, br->backend, br->size ? size : NULL};
		fprintf(out, "<tr><td>%d</td>", br->index);
		for (int j = 0; j < 4; j++) {
			fputs("<td>", out);
			if (f[j])
				esc(out, f[j]);
			else
				fputs("<span class=\"muted\">any</span>", out);
			fputs("</td>", out);
		}
		fprintf(out, "<td class=\"num\">+%.4g%%</td><td class=\"num\">%zu</td><td>", br->slowdown * 100, used);
		esc(out, br->note);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

int bv_report_html(const bv_report *r, FILE *out)
{
	const bv_table *t = &r->table;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
	      "'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      out);
	fputs(r->ready ? "READY: " : "NOT READY: ", out);
	esc(out, t->labels[1]), fputs(" vs ", out), esc(out, t->labels[0]);
	fprintf(out, "</title>\n<style>%s%s</style>\n</head>\n<body>\n<main>\n", css, bv_chart_css);
	fputs("<h1>bench-versions release report</h1>\n", out);
	fprintf(out, "<section class=\"verdict %s\" id=\"verdict\">\n<p class=\"word\">%s</p>\n<p class=\"what\">",
		r->ready ? "ready" : "notready", r->ready ? "READY" : "NOT READY");
	fputs("candidate ", out), version_desc(out, r, 1), fputs(" against baseline ", out), version_desc(out, r, 0);
	fputs("</p>\n", out);
	if (r->nreasons) {
		fputs("<ul class=\"reasons\">\n", out);
		for (size_t i = 0; i < r->nreasons; i++)
			fputs("<li>", out), esc(out, r->reasons[i]), fputs("</li>\n", out);
		fputs("</ul>\n", out);
	} else {
		fprintf(out, "<ul class=\"reasons\"><li>every cell is correct and within its budget");
		if (r->counts[BV_CELL_WARNING])
			fprintf(out, "; %zu warning%s below", r->counts[BV_CELL_WARNING],
				r->counts[BV_CELL_WARNING] == 1 ? "" : "s");
		fputs("</li></ul>\n", out);
	}
	if (r->ngeomean)
		fprintf(out, "<p class=\"what\">overall %.3fx the baseline's time (%.1f%% %s), geomean over %zu cell%s</p>\n",
			r->geomean, fabs(r->geomean - 1) * 100, r->geomean >= 1 ? "slower" : "faster", r->ngeomean,
			r->ngeomean == 1 ? "" : "s");
	fputs("</section>\n", out);

	fputs("<h2>Summary</h2>\n", out);
	summary(out, r);
	build_logs(out, r);
	cell_list(out, r, BV_CELL_REGRESSION, "Regressions beyond budget");
	cell_list(out, r, BV_CELL_WRONG, "Wrong results");
	cell_list(out, r, BV_CELL_FAILED, "Crashed, hung or failed");
	cell_list(out, r, BV_CELL_VANISHED, "Vanished");
	cell_list(out, r, BV_CELL_WARNING, "Warnings: slower, not blocking");
	cell_list(out, r, BV_CELL_IMPROVEMENT, "Improvements");
	cell_list(out, r, BV_CELL_NEW, "New cells");

	fputs("<h2>Charts</h2>\n", out);
	static const bv_chart_key keys[] = {{"bad", "blocking (regression, failure)"},
	                                    {"warn", "warning"},
	                                    {"good", "improvement"},
	                                    {"neutral", "no change, or no ratio"},
	                                    {"new", "new"}};
	bv_chart_legend(out, "candidate time / baseline time per cell", keys, sizeof(keys) / sizeof(keys[0]),
	                "red dashed line: the cell's budget, shaded beyond it");
	for (size_t g = 0; g < r->ngroups; g++) {
		size_t shown = 0;
		for (int s = 0; s < BV_CELL_NSTATUS; s++)
			shown += s == BV_CELL_NOT_RUN ? 0 : r->groups[g].counts[s];
		fputs("<h3>", out), esc(out, r->groups[g].bench), fputs("</h3>\n", out);
		if (!shown) {
			fputs("<p class=\"muted\">no cell of this group ran on either version here.</p>\n", out);
			continue;
		}
		chart(out, r, r->groups[g].bench);
	}

	fputs("<h2>All cells</h2>\n", out);
	full_table(out, r);
	fputs("<h2>Environment</h2>\n", out);
	environment(out, r);
	fputs("<h2>Compat shims</h2>\n", out);
	shims(out, r);
	fputs("<h2>Budgets</h2>\n", out);
	budgets(out, r);
	fputs("<h2>Reproduce</h2>\n<pre>", out);
	for (int i = 0; i < 2; i++) {
		const bv_report_env *e = &r->env[i];
		fputs("# ", out), esc(out, i ? "candidate " : "baseline "), esc(out, t->labels[i]);
		if (e->commit)
			fputs(" = commit ", out), esc(out, e->commit);
		else if (e->tree)
			fputs(" = tree ", out), esc(out, e->tree);
		fputc('\n', out);
	}
	esc(out, r->reproduce);
	fputs("</pre>\n</main>\n</body>\n</html>\n", out);
	return ferror(out) ? bv_fail(BV_ERUN, "cannot write the HTML report") : 0;
}
