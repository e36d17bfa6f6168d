/*
 * report_md.c - the release-readiness report as GitHub-flavoured Markdown,
 * for a pull-request comment: the verdict and its reasons, the geomeans per
 * group, the cells that need a look (blocking, warnings, improvements) in
 * the open; the full table, the environment, compat shims, budgets and the
 * reproduce command folded into <details>, so the comment stays short.
 *
 * Text from logs and the budgets file goes through bv_md_esc(); the one
 * code block (the reproduce command) holds no backtick, so it cannot be
 * closed early.
 */
#include <math.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "export.h"
#include "report.h"
#include "table.h"

static void md(FILE *out, const char *s) { bv_md_esc(out, s); }

/* Inside a fenced code block only a backtick run could end it. */
static void code_text(FILE *out, const char *s)
{
	for (const char *p = s ? s : ""; *p; p++)
		fputc(*p == '`' ? '\'' : *p == '\n' || *p == '\r' ? ' ' : *p, out);
}

static void version_desc(FILE *out, const bv_report *r, int i)
{
	const bv_report_env *e = &r->env[i];
	fputs("**", out), md(out, r->table.labels[i]), fputs("**", out);
	if (e->kernel_version)
		fputs(" (kernels ", out), md(out, e->kernel_version), fputc(')', out);
	if (e->commit) {
		char shortc[13];
		snprintf(shortc, sizeof(shortc), "%.12s", e->commit);
		fputs(", commit ", out), md(out, shortc);
	} else if (e->kind && !strcmp(e->kind, "local"))
		fputs(", the working tree", out);
}

static void cell_list(FILE *out, const bv_report *r, bv_cell_status s, const char *title)
{
	if (!r->counts[s])
		return;
	fprintf(out, "\n**%s (%zu)**\n\n| cell | ratio \\[95%% CI\\] | budget | why |\n|---|--:|--:|---|\n", title,
		r->counts[s]);
	for (size_t k = 0; k < r->ncells; k++) {
		const bv_report_cell *c = &r->cells[k];
		if (c->status != s)
			continue;
		char name[256], ratio[96], budget[32];
		bv_report_cell_name(c, name, sizeof(name));
		bv_report_ratio(c, ratio, sizeof(ratio));
		bv_report_budget(c, budget, sizeof(budget));
		fputs("| ", out), md(out, name), fputs(" | ", out), md(out, ratio), fputs(" | ", out), md(out, budget);
		fputs(" | ", out), md(out, c->why), fputs(" |\n", out);
	}
}

/* mark: flag a difference (the machine's rows; the versions' own rows
 * differ by design). */
static void env_row(FILE *out, const char *what, const char *a, const char *b, int mark)
{
	int differ = mark && !(a && b ? !strcmp(a, b) : a == b);
	fputs("| ", out), md(out, what), fputs(" | ", out);
	md(out, a ? a : "-"), fputs(" | ", out), md(out, b ? b : "-");
	fputs(differ ? " | **differs** |\n" : " | |\n", out);
}

/* The heading with the answer, the two versions, the reasons, and the end
 * of the build log of a version that did not build: what a reader of the
 * pull request sees first. */
static void rmd_verdict(FILE *out, const bv_report *r)
{
	const bv_table *t = &r->table;
	fprintf(out, "## %s ", r->ready ? "\xe2\x9c\x85 READY:" : "\xe2\x9d\x8c NOT READY:");
	md(out, t->labels[1]), fputs(" vs ", out), md(out, t->labels[0]), fputs("\n\n", out);
	fputs("candidate ", out), version_desc(out, r, 1), fputs(" against baseline ", out), version_desc(out, r, 0);
	fputs("\n\n", out);
	for (size_t i = 0; i < r->nreasons; i++)
		fputs("- ", out), md(out, r->reasons[i]), fputc('\n', out);
	if (!r->nreasons)
		fputs("- every cell is correct and within its budget\n", out);
	for (int i = 0; i < 2; i++)
		if (r->env[i].build_failed && r->env[i].build_error) {
			fputs("\n<details><summary>", out), md(out, t->labels[i]);
			fputs(" did not build: the end of its build log</summary>\n\n```\n", out);
			for (const char *p = r->env[i].build_error; *p; p++)
				fputc(*p == '`' ? '\'' : *p, out);
			fputs("\n```\n\n</details>\n", out);
		}
}

/* The count of cells per status and the table of groups (with a total line
 * when there is more than one group). */
static void rmd_summary(FILE *out, const bv_report *r)
{
	const bv_table *t = &r->table;
	fputs("\n", out);
	size_t cells = r->ncells - r->counts[BV_CELL_NOT_RUN];
	fprintf(out, "%zu cell%s:", cells, cells == 1 ? "" : "s");
	int first = 1;
	for (int s = 0; s < BV_CELL_NSTATUS; s++)
		if (r->counts[s] && s != BV_CELL_NOT_RUN) {
			char count[64];
			fputs(first ? " " : ", ", out);
			md(out, bv_cell_status_count((bv_cell_status)s, r->counts[s], count, sizeof(count)));
			first = 0;
		}
	fputs("\n\n| group | cells | geomean ", out);
	md(out, t->labels[1]), fputc('/', out), md(out, t->labels[0]);
	fputs(" | blocking | warnings | improvements |\n|---|--:|--:|--:|--:|--:|\n", out);
	for (size_t g = 0; g <= r->ngroups; g++) {
		int total = g == r->ngroups;
		if (total && r->ngroups < 2)
			break;
		const size_t *cnt = total ? r->counts : r->groups[g].counts;
		double gm = total ? r->geomean : r->groups[g].geomean;
		size_t n = total ? r->ngeomean : r->groups[g].n, blocking = 0, c = 0;
		for (int s = 0; s < BV_CELL_NSTATUS; s++) {
			blocking += bv_cell_status_blocks((bv_cell_status)s) ? cnt[s] : 0;
			c += s == BV_CELL_NOT_RUN ? 0 : cnt[s];
		}
		fputs("| ", out);
		if (total)
			fputs("**all groups**", out);
		else
			md(out, r->groups[g].bench);
		fprintf(out, " | %zu | ", c);
		if (n)
			fprintf(out, "%.3fx (%.1f%% %s)", gm, fabs(gm - 1) * 100, gm >= 1 ? "slower" : "faster");
		else
			fputs("-", out);
		fprintf(out, " | %zu | %zu | %zu |\n", blocking, cnt[BV_CELL_WARNING], cnt[BV_CELL_IMPROVEMENT]);
	}
}

/* Every cell, folded in a details block: both versions' results, the
 * ratio, the budget and the status (blocking ones in bold). */
static void rmd_all_cells(FILE *out, const bv_report *r)
{
	const bv_table *t = &r->table;
	fprintf(out, "\n<details><summary>All cells (%zu)</summary>\n\n", r->ncells);
	fputs("| bench | op | backend | size | ", out);
	md(out, t->labels[0]), fputs(" | ", out), md(out, t->labels[1]);
	fputs(" | ratio \\[95% CI\\] | budget | status |\n|---|---|---|--:|--:|--:|--:|--:|---|\n", out);
	for (size_t k = 0; k < r->ncells; k++) {
		const bv_report_cell *c = &r->cells[k];
		const bv_row *rw = c->row;
		char buf[128];
		fputs("| ", out), md(out, rw->bench), fputs(" | ", out), md(out, rw->op), fputs(" | ", out);
		md(out, rw->backend), fprintf(out, " | %s |", bv_size_format(rw->size, buf, sizeof(buf)));
		for (int v = 0; v < 2; v++) {
			const bv_result *res = &rw->results[v];
			fputc(' ', out);
			if (res->status == BV_ST_OK)
				bv_format_result(t, res, buf, sizeof(buf)), md(out, buf);
			else
				md(out, bv_status_name(res->status));
			fputs(" |", out);
		}
		bv_report_ratio(c, buf, sizeof(buf));
		fputc(' ', out), md(out, buf);
		bv_report_budget(c, buf, sizeof(buf));
		fputs(" | ", out), md(out, buf), fputs(c->rule ? "\\*" : "", out);
		int bold = bv_cell_status_blocks(c->status);
		fputs(bold ? " | **" : " | ", out), md(out, bv_cell_status_name(c->status));
		fputs(bold ? "** |\n" : " |\n", out);
	}
	if (r->budgets->nrules)
		fputs("\n\\* budget from an override in the budgets file\n", out);
	fputs("\n</details>\n", out);
}

/* The environment of both versions side by side, their compat rules, the
 * method and the budgets with every override: what the verdict rests on. */
static void rmd_environment(FILE *out, const bv_report *r)
{
	const bv_table *t = &r->table;
	fputs("\n<details><summary>Environment, compat shims, budgets</summary>\n\n", out);
	const bv_report_env *a = &r->env[0], *b = &r->env[1];
	fputs("| | baseline ", out), md(out, t->labels[0]), fputs(" | candidate ", out), md(out, t->labels[1]);
	fputs(" | |\n|---|---|---|---|\n", out);
	env_row(out, "resolved by", a->rule, b->rule, 0);
	env_row(out, "commit", a->commit, b->commit, 0);
	env_row(out, "kernels version", a->kernel_version, b->kernel_version, 0);
	env_row(out, "build", a->build_failed ? "failed" : "ok", b->build_failed ? "failed" : "ok", 1);
	env_row(out, "run", a->run_id, b->run_id, 1);
	env_row(out, "host", a->hostname, b->hostname, 1);
	env_row(out, "cpu", a->cpu, b->cpu, 1);
	env_row(out, "os", a->os, b->os, 1);
	env_row(out, "compiler", a->compiler, b->compiler, 1);
	env_row(out, "openblas", a->openblas, b->openblas, 1);
	env_row(out, "gpu", a->gpu, b->gpu, 1);
	for (int i = 0; i < 2; i++) {
		bv_buf shims = BV_BUF_INIT;
		for (size_t k = 0; k < r->env[i].ncompat; k++)
			bv_buf_printf(&shims, "%s%s", k ? ", " : "", r->env[i].compat[k]);
		fputs("\n- compat rules for ", out), md(out, t->labels[i]), fputs(": ", out);
		md(out, shims.len ? shims.s : "none");
		bv_buf_free(&shims);
	}
	fputs("\n", out);
	if (t->method)
		fputs("- method: ", out), md(out, t->method), fputc('\n', out);
	const bv_budgets *bg = r->budgets;
	fprintf(out, "- budgets: default %.4g%% slower", bg->default_slowdown * 100);
	if (bg->path)
		fputs(", from ", out), md(out, bg->path);
	fprintf(out, "; %zu override%s\n", bg->nrules, bg->nrules == 1 ? "" : "s");
	for (size_t i = 0; i < bg->nrules; i++) {
		const bv_budget_rule *br = &bg->rules[i];
		char size[32] = "any";
		if (br->size)
			bv_size_format(br->size, size, sizeof(size));
		fputs("  - ", out), md(out, br->bench ? br->bench : "any"), fputc('/', out);
		md(out, br->op ? br->op : "any"), fputc('/', out), md(out, br->backend ? br->backend : "any");
		fputc('/', out), md(out, size), fprintf(out, ": +%.4g%%", br->slowdown * 100);
		if (br->note)
			fputs(" (", out), md(out, br->note), fputc(')', out);
		fputc('\n', out);
	}
}

/* The commands that reproduce the report, each version's commit first. */
static void rmd_reproduce(FILE *out, const bv_report *r)
{
	const bv_table *t = &r->table;
	fputs("\n</details>\n\n<details><summary>Reproduce</summary>\n\n```sh\n", out);
	for (int i = 0; i < 2; i++) {
		const bv_report_env *e = &r->env[i];
		fprintf(out, "# %s ", i ? "candidate" : "baseline"), code_text(out, t->labels[i]);
		if (e->commit)
			fputs(" = commit ", out), code_text(out, e->commit);
		fputc('\n', out);
	}
	code_text(out, r->reproduce);
	fputs("\n```\n\n</details>\n", out);
}

int bv_report_markdown(const bv_report *r, FILE *out)
{
	const bv_table *t = &r->table;
	rmd_verdict(out, r);
	rmd_summary(out, r);
	/* one quote block per note: a note is one paragraph */
	for (size_t i = 0; i < t->nnotes; i++)
		fputs("\n> **note:** ", out), md(out, t->notes[i]), fputc('\n', out);
	cell_list(out, r, BV_CELL_REGRESSION, "Regressions beyond budget");
	cell_list(out, r, BV_CELL_WRONG, "Wrong results");
	cell_list(out, r, BV_CELL_FAILED, "Crashed, hung or failed");
	cell_list(out, r, BV_CELL_VANISHED, "Vanished");
	cell_list(out, r, BV_CELL_WARNING, "Warnings: slower, not blocking");
	cell_list(out, r, BV_CELL_IMPROVEMENT, "Improvements");
	cell_list(out, r, BV_CELL_NEW, "New cells");
	rmd_all_cells(out, r);
	rmd_environment(out, r);
	rmd_reproduce(out, r);
	return ferror(out) ? bv_fail(BV_ERUN, "cannot write the Markdown report") : 0;
}
