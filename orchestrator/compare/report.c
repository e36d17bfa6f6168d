/*
 * report.c - the verdict model behind `bench-versions report`: each cell of
 * a baseline/candidate table gets one status (report.h), the statuses that
 * block a release become the reasons for NOT READY, and the logs' version,
 * build and machine blocks become the report's environment section.
 *
 * A cell regresses only when its whole interval lies beyond its budget (and
 * the interval is a real 95 % one, as for every verdict) and its verdict is
 * `slower` after the run-wide false-discovery control (verdict.c): a budget is what
 * the release may cost, and a cell whose interval still reaches inside it has
 * not shown that it costs more.  A cell inside its budget whose verdict is
 * nevertheless `slower` is a warning: listed, not blocking.
 */
#include "compat.h"
#include "merge.h"
#include "report.h"
#include "table.h"
#include "verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "fs.h"
#include "counts.h"
#include "json.h"
#include "results.h"

static const char *const status_names[BV_CELL_NSTATUS] = {
    "build failed", "wrong result", "failed", "vanished", "regression", "warning",
    "improvement",  "ok",           "new",    "not compared", "not run",
};

const char *bv_cell_status_name(bv_cell_status s)
{
	return s < BV_CELL_NSTATUS ? status_names[s] : "?";
}

const char *bv_cell_status_count(bv_cell_status s, size_t n, char *buf, size_t len)
{
	static const char *const plural[BV_CELL_NSTATUS] = {
	    "build failed", "wrong results", "failed",       "vanished", "regressions", "warnings",
	    "improvements", "ok",            "new",          "not compared", "not run",
	};
	snprintf(buf, len, "%zu %s", n, n == 1 ? bv_cell_status_name(s) : s < BV_CELL_NSTATUS ? plural[s] : "?");
	return buf;
}

int bv_cell_status_blocks(bv_cell_status s)
{
	return s == BV_CELL_BUILD_FAILED || s == BV_CELL_WRONG || s == BV_CELL_FAILED || s == BV_CELL_VANISHED ||
	       s == BV_CELL_REGRESSION;
}

void bv_report_cell_name(const bv_report_cell *c, char *buf, size_t len)
{
	char size[32];
	snprintf(buf, len, "%s %s %s %s", c->row->bench, c->row->op, c->row->backend,
		 bv_size_format(c->row->size, size, sizeof(size)));
}

void bv_report_ratio(const bv_report_cell *c, char *buf, size_t len)
{
	const bv_change *ch = &c->row->changes[1];
	if (!ch->valid)
		snprintf(buf, len, "-");
	else if (!bv_change_has_interval(ch))
		snprintf(buf, len, "%.3fx [no 95%% interval: %d process%s]", ch->ratio, ch->processes,
			 ch->processes == 1 ? "" : "es");
	else if (isfinite(ch->ci_high))
		snprintf(buf, len, "%.3fx [%.3f, %.3f]", ch->ratio, ch->ci_low, ch->ci_high);
	else
		snprintf(buf, len, "%.3fx [%.3f, inf]", ch->ratio, ch->ci_low);
}

char *bv_report_cell_summary(const bv_report_cell *c)
{
	if (!c->row->changes[1].valid)
		return bv_strdup(c->why);
	char ratio[96];
	bv_report_ratio(c, ratio, sizeof(ratio));
	return bv_asprintf("%s: %s", ratio, c->why);
}

void bv_report_budget(const bv_report_cell *c, char *buf, size_t len)
{
	snprintf(buf, len, "+%.4g%%", c->budget * 100);
}

static bv_status status_of(const bv_row *row, size_t v) { return row->results[v].status; }

/* The interval is trusted as much as every verdict is (stats.h): a real
 * 95 % interval, wholly beyond 1 + budget. */
static int beyond_budget(const bv_change *ch, double budget)
{
	return ch->valid && ch->coverage >= 0.95 && ch->ci_low > 1 + budget;
}

/* An unstable ratio (it followed the machine's state: verdict.c) that is
 * beyond the budget at both states: slower whatever the state. */
static int unstable_beyond(const bv_change *ch, double budget)
{
	return ch->unstable && ch->n_usual && ch->n_disturbed && ch->level_usual > 1 + budget &&
	       ch->level_disturbed > 1 + budget;
}

/* Why an inconclusive cell is listed. */
static char *inconclusive_why(const bv_change *ch)
{
	if (!bv_change_has_interval(ch))
		return bv_asprintf("inconclusive: %d process%s give no 95%% interval (at least %d needed); measure it "
				   "again",
				   ch->processes, ch->processes == 1 ? "" : "es", BV_INTERVAL_MIN_PROCESSES);
	return bv_strdup("inconclusive: the estimate is past the threshold but the evidence does not call it "
			 "slower; measure it again");
}

/* A cell both versions ran correctly: judged on its ratio, interval and
 * verdict against its budget (c->budget) and the run's threshold; every
 * case that is not a clean change says why it is listed. */
static void judge_ratio(bv_report_cell *c, const bv_change *ch, double threshold)
{
	if (!ch->valid) {
		c->status = BV_CELL_UNCOMPARED;
		c->why = bv_asprintf("no ratio: %s", ch->none ? ch->none : "the logs give none");
	} else if (unstable_beyond(ch, c->budget)) {
		/* The ratio followed the machine's state, but at both of
		 * its states it is beyond the budget: slower whatever the
		 * state, which a release must not pass for want of a
		 * stable ratio (a planted 3x read 3.0x and 2.4x). */
		c->status = BV_CELL_REGRESSION;
		c->why = bv_asprintf("slower at both of the machine's states, beyond the +%.4g%% budget either way "
				     "(%.3fx at its usual state in %zu process%s, %.3fx while disturbed in %zu)",
				     c->budget * 100, ch->level_usual, ch->n_usual, ch->n_usual == 1 ? "" : "es",
				     ch->level_disturbed, ch->n_disturbed);
	} else if (ch->unstable) {
		/* The ratio followed the machine's state: not a property
		 * of the code (verdict.c).  Listed, never blocking. */
		c->status = BV_CELL_WARNING;
		c->why = bv_asprintf("unstable: the machine changed under it (%.3fx at its usual state in %zu "
				     "process%s, %.3fx while disturbed in %zu); measure it again",
				     ch->level_usual, ch->n_usual, ch->n_usual == 1 ? "" : "es",
				     ch->level_disturbed, ch->n_disturbed);
	} else if (beyond_budget(ch, c->budget) && ch->verdict == BV_SLOWER) {
		c->status = BV_CELL_REGRESSION;
		c->why = bv_asprintf("the whole interval is beyond the +%.4g%% budget", c->budget * 100);
	} else if (ch->held && ch->ratio > 1) {
		/* Its own interval says slower, but not with evidence that
		 * survives the run's false-discovery control (verdict.c):
		 * listed, never blocking. */
		c->status = BV_CELL_WARNING;
		c->why = bv_asprintf("its own interval says slower, but over the run's comparisons the evidence is "
				     "not enough to call it (p = %.2g)",
				     ch->p);
	} else if (ch->between_runs) {
		/* Logs from two runs: inconclusive by rule (merge.c), not
		 * because the evidence fell short, so the reason says so.
		 * Past the threshold it warns (a real slowdown may hide
		 * there); within it, no sign of one. */
		int past = ch->ratio > 1 + threshold;
		c->status = past ? BV_CELL_WARNING : BV_CELL_OK;
		c->why = bv_asprintf("unpaired across runs: %.3fx, not called (runs differ by more than one run "
				     "per version can measure)%s",
				     ch->ratio, past ? "; measure both versions in one run" : "");
	} else if (ch->verdict == BV_INCONCLUSIVE && (ch->ratio > 1 || !bv_change_has_interval(ch))) {
		/* Not shown the same, not called slower (verdict.c): like
		 * unstable, neither READY's "no change" nor a blocker; a
		 * warning that asks for another measurement.  One whose
		 * estimate is faster is no risk to a release (below). */
		c->status = BV_CELL_WARNING;
		c->why = inconclusive_why(ch);
	} else if (ch->verdict == BV_SLOWER) {
		c->status = BV_CELL_WARNING;
		c->why = bv_asprintf("slower (by more than the %.4g%% threshold), within the +%.4g%% budget",
				     threshold * 100, c->budget * 100);
	} else if (ch->verdict == BV_FASTER) {
		c->status = BV_CELL_IMPROVEMENT;
		c->why = bv_strdup("faster");
	} else if (ch->verdict == BV_INCONCLUSIVE) {
		c->status = BV_CELL_OK;
		c->why = bv_strdup("inconclusive: the estimate is faster, but not called; no sign of a slowdown");
	} else {
		c->status = BV_CELL_OK;
		c->why = bv_strdup(ch->noisy ? "no significant change (noisy: the interval reaches past the threshold)"
					     : "no significant change");
	}
}

static void judge_cell(bv_report_cell *c, const int built[2], double threshold)
{
	const bv_row *row = c->row;
	bv_status b = status_of(row, 0), k = status_of(row, 1);
	const char *bn = bv_status_name(b), *kn = bv_status_name(k);
	const char *kreason = row->results[1].reason, *breason = row->results[0].reason;
	const bv_change *ch = &row->changes[1];
	/* new and vanished as the comparison table says them (merge.c) */
	bv_gap gap = b && k ? bv_status_gap(b, k) : BV_GAP_NONE;
	if (!built[1] || k == BV_ST_BUILD_FAILED) {
		c->status = BV_CELL_BUILD_FAILED;
		c->why = bv_strdup("the candidate did not build");
	} else if (!built[0] || b == BV_ST_BUILD_FAILED) {
		c->status = BV_CELL_UNCOMPARED;
		c->why = bv_strdup("the baseline did not build");
	} else if (k == BV_ST_WRONG) {
		c->status = BV_CELL_WRONG;
		c->why = bv_asprintf("wrong result: %s", kreason ? kreason : "the output failed the check");
	} else if (k == BV_ST_CRASHED || k == BV_ST_TIMEOUT || k == BV_ST_OOM || k == BV_ST_FAILED) {
		c->status = BV_CELL_FAILED;
		c->why = bv_asprintf("%s%s%s", kn, kreason ? ": " : "", kreason ? kreason : "");
	} else if (gap == BV_GAP_VANISHED) {
		c->status = BV_CELL_VANISHED;
		c->why = bv_asprintf("the baseline ran it (%s); the candidate lacks it%s%s", bn, kreason ? ": " : "",
				     kreason ? kreason : "");
	} else if (gap == BV_GAP_NEW) {
		c->status = BV_CELL_NEW;
		c->why = bv_asprintf("not in the baseline (%s)", bn);
	} else if (k == BV_ST_OK && bv_status_ran(b) && b != BV_ST_OK) {
		c->status = BV_CELL_IMPROVEMENT;
		c->why = bv_asprintf("fixed: the baseline %s%s%s; the candidate passes the check",
				     b == BV_ST_WRONG ? "gave a wrong result" : bn, breason ? ": " : "",
				     breason ? breason : "");
	} else if (k == BV_ST_OK && b == BV_ST_OK) {
		judge_ratio(c, ch, threshold);
	} else if (!bv_status_ran(b) && k != BV_ST_OK) {
		c->status = BV_CELL_NOT_RUN;
		c->why = bv_asprintf("%s%s%s", kn, kreason ? ": " : breason ? ": " : "",
				     kreason ? kreason : breason ? breason : "");
	} else {
		/* The candidate could not run it here (skipped) while the baseline
		 * did: no evidence either way, said as such. */
		c->status = BV_CELL_UNCOMPARED;
		c->why = bv_asprintf("baseline %s, candidate %s%s%s", bn, kn, kreason ? ": " : "", kreason ? kreason : "");
	}
}

static void add_reason(bv_report *r, char *s)
{
	r->reasons = bv_xrealloc(r->reasons, (r->nreasons + 1) * sizeof(char *));
	r->reasons[r->nreasons++] = s;
}

/* "3 cells give wrong results: a (why), b (why) and 1 more" */
static void cells_reason(bv_report *r, bv_cell_status s, const char *one, const char *many, int with_why)
{
	size_t n = r->counts[s], shown = 0;
	if (!n)
		return;
	bv_buf b = BV_BUF_INIT;
	bv_buf_printf(&b, n == 1 ? one : many, n);
	bv_buf_puts(&b, ": ");
	for (size_t i = 0; i < r->ncells && shown < 3; i++) {
		if (r->cells[i].status != s)
			continue;
		char name[256];
		bv_report_cell_name(&r->cells[i], name, sizeof(name));
		bv_buf_printf(&b, "%s%s", shown ? "; " : "", name);
		if (with_why && r->cells[i].row->changes[1].valid) {
			/* a ratio and its budget say it all: "(3.02x [2.95, 3.10], budget +5%)" */
			char ratio[96], budget[32];
			bv_report_ratio(&r->cells[i], ratio, sizeof(ratio));
			bv_report_budget(&r->cells[i], budget, sizeof(budget));
			bv_buf_printf(&b, " (%s, budget %s)", ratio, budget);
		} else if (with_why)
			bv_buf_printf(&b, " (%s)", r->cells[i].why);
		shown++;
	}
	if (n > shown)
		bv_buf_printf(&b, "; and %zu more", n - shown);
	add_reason(r, bv_buf_detach(&b));
}

/* A build error in one line: its first line ("building the library (make
 * lib) failed; end of ...log:") and, from the log's tail, the first line
 * that names an error, which is what a reader needs. */
static char *build_error_line(const char *s)
{
	if (!s)
		return bv_strdup("no message");
	const char *nl = strchr(s, '\n');
	bv_buf b = BV_BUF_INIT;
	size_t head = nl ? (size_t)(nl - s) : strlen(s);
	/* "...failed; end of /long/cache/path.log:" says where, not what */
	const char *where = strstr(s, "; end of ");
	if (where && where < s + head)
		head = (size_t)(where - s);
	bv_buf_putn(&b, s, head);
	for (const char *p = nl; p && *p;) {
		const char *line = p + 1, *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		char *l = bv_asprintf("%.*s", (int)n, line);
		int hit = strstr(l, "error:") != NULL; /* the compiler's and the linker's form */
		if (hit) {
			const char *t = l;
			while (*t == ' ' || *t == '\t')
				t++;
			bv_buf_printf(&b, ": %s", t);
		}
		free(l);
		if (hit)
			break;
		p = end;
	}
	char *d = bv_escape(b.s); /* one line, whatever the log held */
	bv_buf_free(&b);
	return d;
}

/* The shortest selection options that still name exactly these cells: each
 * of --sizes, --backends, --ops, --benches is dropped when the matrix's
 * defaults give the same cells without it. */
static int selection_matches(const bv_selection *sel, const bv_table *t)
{
	bv_cell *cells;
	char err[256];
	long n = bv_cells_select(sel, &cells, err, sizeof(err));
	if (n < 0)
		return 0;
	int same = (size_t)n == t->nrows;
	for (long i = 0; same && i < n; i++) {
		int found = 0;
		for (size_t k = 0; k < t->nrows && !found; k++)
			found = !strcmp(t->rows[k].bench, cells[i].bench->name) && !strcmp(t->rows[k].op, cells[i].op->name) &&
				!strcmp(t->rows[k].backend, cells[i].backend) && t->rows[k].size == cells[i].size;
		same = found;
	}
	free(cells);
	return same;
}

static char *unique_list(const bv_table *t, int field)
{
	bv_strv seen = BV_STRV_INIT;
	for (size_t k = 0; k < t->nrows; k++) {
		char size[32];
		const bv_row *row = &t->rows[k];
		const char *s = field == 0   ? row->bench
				: field == 1 ? row->op
				: field == 2 ? row->backend
					     : bv_size_format(row->size, size, sizeof(size));
		int dup = 0;
		for (size_t i = 0; i < seen.n && !dup; i++)
			dup = !strcmp(seen.v[i], s);
		if (!dup)
			bv_strv_push(&seen, s);
	}
	bv_buf b = BV_BUF_INIT;
	for (size_t i = 0; i < seen.n; i++)
		bv_buf_printf(&b, "%s%s", i ? "," : "", seen.v[i]);
	bv_strv_free(&seen);
	return bv_buf_detach(&b);
}

static char *reproduce_line(const bv_report *r)
{
	const bv_table *t = &r->table;
	bv_buf b = BV_BUF_INIT;
	bv_buf_puts(&b, "bench-versions report --baseline ");
	bv_shell_word(&b, r->env[0].name ? r->env[0].name : t->labels[0]);
	bv_buf_puts(&b, " --candidate ");
	bv_shell_word(&b, r->env[1].name ? r->env[1].name : t->labels[1]);
	if (t->nrows) {
		char *lists[4];
		for (int f = 0; f < 4; f++)
			lists[f] = unique_list(t, f);
		const char *keep[4] = {lists[0], lists[1], lists[2], lists[3]};
		bv_selection sel = {keep[0], keep[1], keep[2], keep[3]};
		if (selection_matches(&sel, t)) {
			/* drop the narrowest first: sizes and backends default per group */
			const char **slot[4] = {&sel.sizes, &sel.backends, &sel.ops, &sel.benches};
			for (int f = 0; f < 4; f++) {
				const char *was = *slot[f];
				*slot[f] = NULL;
				if (!selection_matches(&sel, t))
					*slot[f] = was;
			}
			static const char *const opt[4] = {"--benches", "--ops", "--backends", "--sizes"};
			const char *vals[4] = {sel.benches, sel.ops, sel.backends, sel.sizes};
			for (int f = 0; f < 4; f++)
				if (vals[f]) {
					bv_buf_printf(&b, " %s ", opt[f]);
					bv_shell_word(&b, vals[f]);
				}
		} else {
			/* Not a selection the matrix can name (logs merged from
			 * different selections): the closest one that covers them. */
			static const char *const opt[4] = {"--benches", "--ops", "--backends", "--sizes"};
			for (int f = 0; f < 4; f++) {
				bv_buf_printf(&b, " %s ", opt[f]);
				bv_shell_word(&b, lists[f]);
			}
		}
		for (int f = 0; f < 4; f++)
			free(lists[f]);
	}
	if (r->env[0].quick)
		bv_buf_puts(&b, " --quick");
	if (fabs(t->threshold - 0.01) > 1e-9)
		bv_buf_printf(&b, " --threshold %g", t->threshold * 100);
	if (r->budgets && r->budgets->path) {
		bv_buf_puts(&b, " --budgets ");
		bv_shell_word(&b, r->budgets->path);
	} else if (r->budgets && fabs(r->budgets->default_slowdown - 0.05) > 1e-12)
		bv_buf_printf(&b, " --default-slowdown %g", r->budgets->default_slowdown * 100);
	return bv_buf_detach(&b);
}

static void make_reasons(bv_report *r, const int built[2]);

int bv_report_judge(bv_report *r, bv_table *t, const bv_budgets *b)
{
	if (t->nversions != 2)
		return bv_fail(BV_EINPUT, "a report compares two versions, not %zu", t->nversions);
	r->table = *t;
	memset(t, 0, sizeof(*t));
	t = &r->table;
	r->budgets = b;
	int built[2] = {!r->env[0].build_failed, !r->env[1].build_failed};
	for (size_t k = 0; k < t->nrows; k++)
		for (int v = 0; v < 2; v++)
			if (t->rows[k].results[v].status == BV_ST_BUILD_FAILED)
				built[v] = 0;
	r->baseline_failed = !built[0];
	r->ncells = t->nrows;
	r->cells = bv_xcalloc(t->nrows + 1, sizeof(bv_report_cell));
	double logsum = 0;
	for (size_t k = 0; k < t->nrows; k++) {
		bv_report_cell *c = &r->cells[k];
		const bv_row *row = &t->rows[k];
		c->row = row;
		c->budget = bv_budget_for(b, row->bench, row->op, row->backend, row->size, &c->rule);
		judge_cell(c, built, t->threshold);
		r->counts[c->status]++;
		size_t g;
		for (g = 0; g < r->ngroups && strcmp(r->groups[g].bench, row->bench); g++)
			;
		if (g == r->ngroups) {
			r->groups = bv_xrealloc(r->groups, (r->ngroups + 1) * sizeof(bv_report_group));
			memset(&r->groups[g], 0, sizeof(bv_report_group));
			r->groups[g].bench = bv_strdup(row->bench);
			r->ngroups++;
		}
		bv_report_group *grp = &r->groups[g];
		grp->counts[c->status]++;
		const bv_change *ch = &row->changes[1];
		if (ch->valid && ch->ratio > 0) {
			grp->geomean += log(ch->ratio), grp->n++;
			logsum += log(ch->ratio), r->ngeomean++;
		}
	}
	for (size_t g = 0; g < r->ngroups; g++)
		r->groups[g].geomean = r->groups[g].n ? exp(r->groups[g].geomean / (double)r->groups[g].n) : 0;
	r->geomean = r->ngeomean ? exp(logsum / (double)r->ngeomean) : 0;
	make_reasons(r, built);
	r->reproduce = reproduce_line(r);
	return 0;
}

/* The reasons for NOT READY, worst first, and the verdict they make. */
static void make_reasons(bv_report *r, const int built[2])
{
	const bv_table *t = &r->table;
	for (size_t i = 0; i < r->nreasons; i++)
		free(r->reasons[i]);
	free(r->reasons);
	r->reasons = NULL, r->nreasons = 0;
	if (!built[0]) {
		char *e = build_error_line(r->env[0].build_error);
		add_reason(r, bv_asprintf("the baseline %s did not build, so nothing could be compared: %s",
					  t->labels[0], e));
		free(e);
	}
	if (!built[1]) {
		char *e = build_error_line(r->env[1].build_error);
		add_reason(r, bv_asprintf("the candidate %s did not build: %s", t->labels[1], e));
		free(e);
	}
	cells_reason(r, BV_CELL_WRONG, "%zu cell gives a wrong result", "%zu cells give wrong results", 1);
	cells_reason(r, BV_CELL_FAILED, "%zu cell crashed, hung or failed", "%zu cells crashed, hung or failed", 1);
	cells_reason(r, BV_CELL_VANISHED, "%zu cell ran on the baseline and is gone from the candidate",
		     "%zu cells ran on the baseline and are gone from the candidate", 0);
	cells_reason(r, BV_CELL_REGRESSION, "%zu cell is slower beyond its budget",
		     "%zu cells are slower beyond their budgets", 1);
	if (r->nreasons == 0 && r->ngeomean == 0)
		add_reason(r, bv_strdup(t->nrows ? "no cell could be compared: there is no ratio to judge"
						 : "no cell was measured"));
	r->ready = r->nreasons == 0;
}


static void set_status(bv_report *r, bv_report_cell *c, bv_cell_status s)
{
	r->counts[c->status]--, r->counts[s]++;
	for (size_t g = 0; g < r->ngroups; g++)
		if (!strcmp(r->groups[g].bench, c->row->bench))
			r->groups[g].counts[c->status]--, r->groups[g].counts[s]++;
	c->status = s;
}

/* The reasons again, after statuses changed (recheck, explain). */
static void remake_reasons(bv_report *r)
{
	int built[2] = {!r->env[0].build_failed, !r->env[1].build_failed};
	for (size_t k = 0; k < r->table.nrows; k++)
		for (int v = 0; v < 2; v++)
			if (r->table.rows[k].results[v].status == BV_ST_BUILD_FAILED)
				built[v] = 0;
	make_reasons(r, built);
}

void bv_report_explain(bv_report *r)
{
	size_t moved = 0;
	for (size_t k = 0; k < r->ncells; k++) {
		bv_report_cell *c = &r->cells[k];
		const bv_count_cmp *w = r->table.nversions == 2 ? c->row->changes[1].why : NULL;
		if (!w || (c->status != BV_CELL_REGRESSION && c->status != BV_CELL_WARNING &&
			   c->status != BV_CELL_IMPROVEMENT))
			continue;
		char *why = c->why;
		if (c->status == BV_CELL_REGRESSION && !strcmp(w->kind, "placement")) {
			/* The candidate's code runs the same instructions with the same
			 * misses: its slowdown is where the linker put it (or the
			 * machine), which the next build of either may undo. */
			set_status(r, c, BV_CELL_WARNING);
			c->why = bv_asprintf("%s; but %s: not blocking (the two calls' counts are identical; "
					     "--layouts measures across placements)",
					     why ? why : "slower", w->text);
			moved++;
		} else
			c->why = bv_asprintf("%s; %s", why ? why : "", w->text);
		free(why);
	}
	if (!moved)
		return;
	remake_reasons(r);
	bv_table *t = &r->table;
	t->notes = bv_xrealloc(t->notes, (t->nnotes + 1) * sizeof(char *));
	t->notes[t->nnotes++] = bv_asprintf("%zu cell%s slower beyond %s budget with the same instructions and "
					    "misses as the baseline (Valgrind's counts): placement or machine, "
					    "not the code; warned, not blocking",
					    moved, moved == 1 ? " was" : "s were", moved == 1 ? "its" : "their");
}

void bv_report_recheck(bv_report *r, const bv_table *again)
{
	size_t n = 0, confirmed = 0;
	for (size_t k = 0; k < r->ncells; k++) {
		bv_report_cell *c = &r->cells[k];
		if (c->status != BV_CELL_REGRESSION)
			continue;
		n++;
		const bv_change *now = NULL;
		for (size_t j = 0; j < again->nrows && !now; j++) {
			const bv_row *a = &again->rows[j];
			if (a->size == c->row->size && !strcmp(a->bench, c->row->bench) && !strcmp(a->op, c->row->op) &&
			    !strcmp(a->backend, c->row->backend) && again->nversions == 2)
				now = &a->changes[1];
		}
		char first[96], second[96] = "no ratio";
		const bv_change *was = &c->row->changes[1];
		snprintf(first, sizeof(first), "%.3fx [%.3f, %.3f]", was->ratio, was->ci_low, was->ci_high);
		if (now && now->valid)
			snprintf(second, sizeof(second), "%.3fx [%.3f, %.3f]", now->ratio, now->ci_low, now->ci_high);
		char *why = c->why;
		if (now && ((beyond_budget(now, c->budget) && now->verdict == BV_SLOWER) ||
			    unstable_beyond(now, c->budget))) {
			confirmed++;
			c->why = bv_asprintf("%s; re-measured: %s, confirmed", why, second);
		} else {
			set_status(r, c, BV_CELL_WARNING);
			c->why = bv_asprintf("slower beyond the +%.4g%% budget when first measured (%s) but not when "
					     "measured again (%s): the machine may have changed under the first; not "
					     "blocking",
					     c->budget * 100, first, second);
		}
		free(why);
	}
	if (n == 0)
		return;
	remake_reasons(r);
	bv_table *t = &r->table;
	t->notes = bv_xrealloc(t->notes, (t->nnotes + 1) * sizeof(char *));
	t->notes[t->nnotes++] = bv_asprintf("%zu cell%s slower beyond %s budget%s and measured again before the "
					    "verdict: %zu confirmed, %zu not (a cell blocks only when both "
					    "measurements say so)",
					    n, n == 1 ? " was" : "s were", n == 1 ? "its" : "their", n == 1 ? "" : "s",
					    confirmed, n - confirmed);
}

int bv_report_exit_code(const bv_report *r)
{
	return r->baseline_failed ? BV_EXIT_FAILED : r->ready ? BV_EXIT_OK : BV_EXIT_REGRESSION;
}

/* ---- the logs' environment -------------------------------------------- */

/* Text from a log is hostile: control characters are escaped (bv_escape;
 * newlines are kept, a build log's tail has lines); exporters still escape. */
static char *clean(const char *s) { return s ? bv_escape_lines(s) : NULL; }

/* One line: control characters, newlines included, are escaped. */
static char *clean1(const char *s) { return s ? bv_escape(s) : NULL; }

/* Notes of the compat rules, from this installation's compat.json; best
 * effort: a rule the file no longer has just shows its id. */
static char *compat_note(const cJSON *compat, const char *id)
{
	const cJSON *rule;
	cJSON_ArrayForEach(rule, cJSON_GetObjectItemCaseSensitive(compat, "rules"))
	{
		const char *rid = bv_json_str(rule, "id");
		if (rid && !strcmp(rid, id)) {
			const char *note = bv_json_str(rule, "note"), *range = bv_json_str(rule, "versions");
			if (!note && !range)
				return NULL;
			char *s = bv_asprintf("%s%s%s%s", range ? "kernels " : "", range ? range : "",
					      range && note ? ": " : "", note ? note : "");
			char *c = clean1(s);
			free(s);
			return c;
		}
	}
	return NULL;
}

static int read_env(bv_report_env *e, const char *path, const cJSON *compat)
{
	cJSON *doc;
	int rc = bv_log_load(path, &doc);
	if (rc)
		return rc;
	e->log = bv_strdup(path);
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(doc, "version");
	const cJSON *build = cJSON_GetObjectItemCaseSensitive(ver, "build");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "machine");
	const cJSON *cal = cJSON_GetObjectItemCaseSensitive(m, "calibration");
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(doc, "method");
	e->label = clean1(bv_json_str(ver, "label"));
	e->name = clean1(bv_json_str(ver, "name"));
	e->kind = clean1(bv_json_str(ver, "kind"));
	e->commit = clean1(bv_json_str(ver, "commit"));
	e->tree = clean1(bv_json_str(ver, "tree"));
	e->kernel_version = clean1(bv_json_str(ver, "kernel_version"));
	e->rule = clean1(bv_json_str(ver, "rule"));
	e->summary = clean1(bv_json_str(ver, "summary"));
	e->run_id = clean1(bv_json_str(run, "id"));
	e->created = clean1(bv_json_str(run, "created"));
	const cJSON *ids = cJSON_GetObjectItemCaseSensitive(ver, "compat"), *id;
	size_t n = (size_t)cJSON_GetArraySize(ids);
	e->compat = bv_xcalloc(n + 1, sizeof(char *));
	e->compat_notes = bv_xcalloc(n + 1, sizeof(char *));
	cJSON_ArrayForEach(id, ids) if (cJSON_IsString(id))
	{
		e->compat_notes[e->ncompat] = compat_note(compat, id->valuestring);
		e->compat[e->ncompat++] = clean1(id->valuestring);
	}
	bv_buf flags = BV_BUF_INIT;
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(build, "cflags")) if (cJSON_IsString(f))
		bv_buf_printf(&flags, "%s%s", flags.len ? " " : "", f->valuestring);
	e->cflags = flags.len ? clean1(flags.s) : NULL;
	bv_buf_free(&flags);
	e->build_failed = bv_status_parse(bv_json_str(build, "status")) == BV_ST_FAILED;
	e->build_error = clean(bv_json_str(build, "error"));
	e->hostname = clean1(bv_json_str(m, "hostname"));
	e->cpu = clean1(bv_json_str(m, "cpu"));
	e->os = clean1(bv_json_str(m, "os"));
	e->compiler = clean1(bv_json_str(m, "compiler"));
	e->governor = clean1(bv_json_str(m, "governor"));
	e->openblas = clean1(bv_json_str(m, "openblas"));
	e->gpu = clean1(bv_json_str(m, "gpu"));
	double v;
	if (!bv_json_num(m, "cores", &v) && v >= 0 && v < 1e6)
		e->cores = (int)v;
	bv_json_num(cal, "copy_gbps", &e->copy_gbps);
	bv_json_num(cal, "peak_gflops", &e->peak_gflops);
	e->quick = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(method, "quick"));
	e->method_mode = clean1(bv_json_str(method, "mode"));
	cJSON_Delete(doc);
	return 0;
}

int bv_report_read_env(bv_report *r, char *const *logs)
{
	cJSON *compat = NULL;
	if (!bv_compat_path() || bv_json_load(bv_compat_path(), 1 << 20, &compat))
		compat = NULL; /* only for notes; the logs have the ids */
	int rc = 0;
	for (int i = 0; i < 2 && rc == 0; i++)
		rc = read_env(&r->env[i], logs[i], compat);
	cJSON_Delete(compat);
	return rc;
}

static void env_free(bv_report_env *e)
{
	char **s[] = {&e->label,   &e->name,     &e->kind,     &e->commit,  &e->tree,     &e->kernel_version,
		      &e->rule,    &e->summary,  &e->run_id,   &e->created, &e->cflags,   &e->build_error,
		      &e->hostname, &e->cpu,     &e->os,       &e->compiler, &e->governor, &e->openblas,
		      &e->gpu,     &e->method_mode, &e->log};
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		free(*s[i]);
	for (size_t i = 0; i < e->ncompat; i++)
		free(e->compat[i]), free(e->compat_notes[i]);
	free(e->compat), free(e->compat_notes);
	memset(e, 0, sizeof(*e));
}

void bv_report_free(bv_report *r)
{
	for (size_t i = 0; i < r->ncells; i++)
		free(r->cells[i].why);
	free(r->cells);
	for (size_t g = 0; g < r->ngroups; g++)
		free(r->groups[g].bench);
	free(r->groups);
	for (size_t i = 0; i < r->nreasons; i++)
		free(r->reasons[i]);
	free(r->reasons);
	env_free(&r->env[0]);
	env_free(&r->env[1]);
	free(r->reproduce);
	bv_table_free(&r->table);
	memset(r, 0, sizeof(*r));
}

/* ---- the formats ------------------------------------------------------ */

int bv_report_write_file(const char *path, int (*fn)(const bv_report *, FILE *), const bv_report *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return bv_fail(BV_ERUN, "cannot write %s: out of memory", path);
	int rc = fn(r, f);
	fclose(f);
	if (rc == 0)
		rc = bv_write_file_atomic(path, text, len);
	free(text);
	return rc;
}

const bv_report_format bv_report_formats[BV_REPORT_NFORMATS] = {
    {"html", "report.html", bv_report_html},
    {"markdown", "report.md", bv_report_markdown},
    {"junit", "report.xml", bv_report_junit},
    {"text", NULL, bv_report_text},
};
int bv_report_format_index(const char *name)
{
	for (int i = 0; i < BV_REPORT_NFORMATS; i++)
		if (!strcmp(bv_report_formats[i].name, name))
			return i;
	return -1;
}

/* "html,junit" -> which of the three files to write. */
int bv_report_formats_parse(const char *list, int want[BV_REPORT_NFORMATS])
{
	memset(want, 0, BV_REPORT_NFORMATS * sizeof(int));
	if (!strcmp(list, "none"))
		return 0;
	char *copy = bv_strdup(list), *save = NULL;
	int rc = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
		int i = bv_report_format_index(tok);
		if (i < 0 || !bv_report_formats[i].file)
			rc = bv_fail(BV_EINPUT, "--formats: unknown report format '%s' (known: html, markdown, junit, none)",
				     tok);
		else
			want[i] = 1;
	}
	free(copy);
	return rc;
}
