/* test_report.c - the budgets file (parsing, hostile input, which override
 * wins) and the release verdict (each cell's status, the reasons, geomeans,
 * exit codes), on tables made by hand; and the report formats' escaping. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budgets.h"
#include "common.h"
#include "merge.h"
#include "report.h"
#include "stats.h"
#include "status.h"
#include "table.h"
#include "tests.h"

/* ---- budgets ---------------------------------------------------------- */

static int parse(const char *text, bv_budgets *b)
{
	return bv_budgets_parse("b.json", text, strlen(text), 0.05, b);
}

static void budgets_default_without_file(void **state)
{
	(void)state;
	bv_budgets b;
	bv_budgets_default(&b, 0.07);
	const bv_budget_rule *rule = (const bv_budget_rule *)1;
	assert_true(fabs(bv_budget_for(&b, "unary", "relu", "scalar", 65536, &rule) - 0.07) < 1e-12);
	assert_null(rule);
	bv_budgets_free(&b);
}

static void budgets_parse_and_match(void **state)
{
	(void)state;
	bv_budgets b;
	assert_int_equal(parse("{\"schema_version\": 1, \"default_slowdown_pct\": 3,\n"
			       " \"overrides\": [\n"
			       "  {\"bench\": \"unary\", \"slowdown_pct\": 10, \"note\": \"why\"},\n"
			       "  {\"op\": \"relu\", \"backend\": \"scalar\", \"slowdown_pct\": 50},\n"
			       "  {\"op\": \"relu\", \"backend\": \"scalar\", \"size\": \"64K\", \"slowdown_pct\": 20},\n"
			       "  {\"size\": 1024, \"slowdown_pct\": 2}]}",
			       &b),
			 0);
	assert_int_equal(b.nrules, 4);
	assert_string_equal(b.path, "b.json");
	const bv_budget_rule *rule;
	/* nothing matches: the default */
	assert_true(fabs(bv_budget_for(&b, "reduce", "sum", "simd", 65536, &rule) - 0.03) < 1e-12);
	assert_null(rule);
	/* one field */
	assert_true(fabs(bv_budget_for(&b, "unary", "abs", "simd", 65536, &rule) - 0.10) < 1e-12);
	assert_int_equal(rule->index, 0);
	assert_string_equal(rule->note, "why");
	/* two fields beat one, three beat two */
	assert_true(fabs(bv_budget_for(&b, "unary", "relu", "scalar", 1 << 20, &rule) - 0.50) < 1e-12);
	assert_int_equal(rule->index, 1);
	assert_true(fabs(bv_budget_for(&b, "unary", "relu", "scalar", 65536, &rule) - 0.20) < 1e-12);
	assert_int_equal(rule->index, 2);
	/* equally specific (bench vs size): the smaller budget */
	assert_true(fabs(bv_budget_for(&b, "unary", "abs", "simd", 1024, &rule) - 0.02) < 1e-12);
	assert_int_equal(rule->index, 3);
	bv_budgets_free(&b);
}

static void budgets_file_default_wins_over_the_flag(void **state)
{
	(void)state;
	bv_budgets b;
	assert_int_equal(parse("{\"overrides\": []}", &b), 0);
	assert_true(fabs(b.default_slowdown - 0.05) < 1e-12);
	bv_budgets_free(&b);
	assert_int_equal(parse("{\"default_slowdown_pct\": 0}", &b), 0);
	assert_true(b.default_slowdown == 0);
	bv_budgets_free(&b);
}

static void budgets_hostile_input(void **state)
{
	(void)state;
	static const struct {
		const char *text, *message;
	} cases[] = {
	    {"", "b.json:1:1: malformed JSON (empty file)"},
	    {"[]", "b.json: expected an object"},
	    {"{\"default_slowdown_pct\": 5", "b.json:1:"},
	    {"{\"default_slowdown_pct\": \"5\"}", "b.json: default_slowdown_pct: expected a number"},
	    {"{\"default_slowdown_pct\": -1}", "b.json: default_slowdown_pct: -1 is not a percentage"},
	    {"{\"default_slowdown_pct\": 1e300}", "is not a percentage"},
	    {"{\"schema_version\": 2}", "b.json: schema_version: this bench-versions reads budgets schema 1"},
	    {"{\"defaults\": 1}", "b.json: unknown key 'defaults' (known: schema_version, default_slowdown_pct, overrides)"},
	    {"{\"overrides\": {}}", "b.json: overrides: expected an array"},
	    {"{\"overrides\": [3]}", "b.json: overrides[0]: expected an object"},
	    {"{\"overrides\": [{\"op\": \"relu\"}]}", "b.json: overrides[0]: missing \"slowdown_pct\""},
	    {"{\"overrides\": [{\"op\": \"relu\", \"slowdown_pct\": 5, \"backends\": \"simd\"}]}",
	     "b.json: overrides[0]: unknown key 'backends'"},
	    {"{\"overrides\": [{\"slowdown_pct\": 5}]}", "b.json: overrides[0]: matches every cell"},
	    {"{\"overrides\": [{\"bench\": \"unray\", \"slowdown_pct\": 5}]}",
	     "b.json: overrides[0].bench: unknown group 'unray' (known: unary, "},
	    {"{\"overrides\": [{\"bench\": \"reduce\", \"op\": \"relu\", \"slowdown_pct\": 5}]}",
	     "b.json: overrides[0].op: unknown op 'relu' in group reduce (known: sum, "},
	    {"{\"overrides\": [{\"backend\": \"fpga\", \"slowdown_pct\": 5}]}",
	     "b.json: overrides[0].backend: unknown backend 'fpga'"},
	    {"{\"overrides\": [{\"op\": 7, \"slowdown_pct\": 5}]}", "b.json: overrides[0].op: expected a non-empty string"},
	    {"{\"overrides\": [{\"op\": \"\", \"slowdown_pct\": 5}]}", "expected a non-empty string"},
	    {"{\"overrides\": [{\"size\": \"64Q\", \"slowdown_pct\": 5}]}", "b.json: overrides[0].size: expected a size"},
	    {"{\"overrides\": [{\"size\": 0.5, \"slowdown_pct\": 5}]}", "b.json: overrides[0].size: expected a size"},
	    {"{\"overrides\": [{\"op\": \"relu\", \"slowdown_pct\": 5}, {\"op\": \"relu\", \"slowdown_pct\": 9}]}",
	     "b.json: overrides[1] matches the same cells as overrides[0]"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bv_budgets b;
		int rc = parse(cases[i].text, &b);
		if (rc != BV_EINPUT || !strstr(bv_error_last(), cases[i].message))
			fail_msg("case %zu (%s): rc %d, message '%s', wanted '%s'", i, cases[i].text, rc, bv_error_last(),
				 cases[i].message);
		assert_int_equal(b.nrules, 0); /* nothing half-parsed is left */
	}
	/* a NUL byte inside */
	bv_budgets b;
	assert_int_equal(bv_budgets_parse("b.json", "{}\0{}", 5, 0.05, &b), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "NUL byte"));
}

static void budgets_load_names_a_missing_file(void **state)
{
	(void)state;
	bv_budgets b;
	assert_int_equal(bv_budgets_load("/nonexistent/budgets.json", 0.05, &b), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "budgets file: cannot open /nonexistent/budgets.json"));
}

/* ---- the verdict ------------------------------------------------------ */

/* A two-version table; each row given as bench, op, baseline status,
 * candidate status and (for ok/ok) the ratio and its interval. */
typedef struct cell_spec {
	const char *bench, *op, *bstatus, *kstatus;
	double ratio, lo, hi;
	const char *reason;
} cell_spec;

/* A spec's status: a log's, or merge's own "build failed". */
static bv_status status_of(const char *s)
{
	return s && !strcmp(s, "build failed") ? BV_ST_BUILD_FAILED : bv_status_parse(s);
}

static void make_table(bv_table *t, const cell_spec *cells, size_t n)
{
	memset(t, 0, sizeof(*t));
	t->nversions = 2;
	t->labels = calloc(2, sizeof(char *));
	t->descriptions = calloc(2, sizeof(char *));
	t->labels[0] = bv_strdup("base"), t->labels[1] = bv_strdup("cand");
	t->descriptions[0] = bv_strdup("base"), t->descriptions[1] = bv_strdup("cand");
	t->threshold = 0.01;
	t->nrows = n;
	t->rows = calloc(n, sizeof(bv_row));
	for (size_t k = 0; k < n; k++) {
		bv_row *r = &t->rows[k];
		r->bench = bv_strdup(cells[k].bench), r->op = bv_strdup(cells[k].op), r->backend = bv_strdup("scalar");
		r->size = 65536;
		r->results = calloc(2, sizeof(bv_result));
		r->changes = calloc(2, sizeof(bv_change));
		r->results[0].status = status_of(cells[k].bstatus), r->results[1].status = status_of(cells[k].kstatus);
		if (cells[k].reason)
			r->results[1].reason = bv_strdup(cells[k].reason);
		for (int v = 0; v < 2; v++)
			if (r->results[v].status == BV_ST_OK)
				r->results[v].median_ns = 1000 * (v ? cells[k].ratio : 1);
		if (cells[k].ratio > 0) {
			bv_change *ch = &r->changes[1];
			ch->valid = 1, ch->ratio = cells[k].ratio, ch->ci_low = cells[k].lo, ch->ci_high = cells[k].hi;
			ch->coverage = 0.96, ch->paired = 1, ch->mode = "paired";
			ch->verdict = cells[k].lo > 1 && cells[k].ratio > 1.01   ? BV_SLOWER
				      : cells[k].hi < 1 && cells[k].ratio < 1 / 1.01 ? BV_FASTER
										     : BV_SAME;
		}
	}
}

static bv_cell_status status_at(const bv_report *r, size_t k) { return r->cells[k].status; }

/* Two regressions; the second measurement confirms relu only: neg becomes
 * a warning giving both ratios, the reasons are made again, a note says so. */
static void recheck_confirms_or_downgrades(void **state)
{
	(void)state;
	const cell_spec first[] = {
	    {"unary", "relu", "ok", "ok", 3.0, 2.9, 3.1, NULL},
	    {"unary", "neg", "ok", "ok", 1.39, 1.36, 1.41, NULL},
	    {"unary", "abs", "ok", "ok", 1.0, 0.99, 1.01, NULL},
	};
	const cell_spec again[] = {
	    {"unary", "neg", "ok", "ok", 0.68, 0.66, 0.69, NULL},
	    {"unary", "relu", "ok", "ok", 2.95, 2.9, 3.0, NULL},
	};
	bv_table t, a;
	make_table(&t, first, 3);
	make_table(&a, again, 2);
	bv_budgets b;
	bv_budgets_default(&b, 0.05);
	bv_report r;
	memset(&r, 0, sizeof(r));
	assert_int_equal(bv_report_judge(&r, &t, &b), 0);
	assert_int_equal(r.counts[BV_CELL_REGRESSION], 2);
	assert_non_null(strstr(r.reasons[0], "2 cells are slower beyond their budgets"));
	bv_report_recheck(&r, &a);
	assert_int_equal(status_at(&r, 0), BV_CELL_REGRESSION);
	assert_int_equal(status_at(&r, 1), BV_CELL_WARNING);
	assert_int_equal(status_at(&r, 2), BV_CELL_OK);
	assert_int_equal(r.counts[BV_CELL_REGRESSION], 1);
	assert_int_equal(r.counts[BV_CELL_WARNING], 1);
	assert_non_null(strstr(r.cells[0].why, "re-measured: 2.950x [2.900, 3.000], confirmed"));
	assert_non_null(strstr(r.cells[1].why, "when first measured (1.390x [1.360, 1.410]) but not when measured again "
					       "(0.680x [0.660, 0.690])"));
	assert_int_equal(r.nreasons, 1);
	assert_non_null(strstr(r.reasons[0], "1 cell is slower beyond its budget: unary relu"));
	assert_false(r.ready);
	assert_int_equal(r.table.nnotes, 1);
	assert_non_null(strstr(r.table.notes[0], "2 cells were slower beyond their budgets and measured again before the "
						 "verdict: 1 confirmed, 1 not"));
	/* nothing confirmed: READY */
	bv_table a2;
	const cell_spec calm[] = {{"unary", "relu", "ok", "ok", 1.0, 0.99, 1.01, NULL}};
	make_table(&a2, calm, 1);
	bv_report_recheck(&r, &a2);
	assert_int_equal(r.counts[BV_CELL_REGRESSION], 0);
	assert_true(r.ready);
	bv_table_free(&a), bv_table_free(&a2);
	bv_report_free(&r);
	bv_budgets_free(&b);
}

static void verdict_per_cell(void **state)
{
	(void)state;
	const cell_spec cells[] = {
	    {"unary", "relu", "ok", "ok", 3.0, 2.9, 3.1, NULL},     /* far beyond 5 % */
	    {"unary", "abs", "ok", "ok", 1.06, 1.04, 1.08, NULL},   /* interval reaches inside: a warning */
	    {"unary", "neg", "ok", "ok", 1.07, 1.051, 1.09, NULL},  /* whole interval beyond 1.05 */
	    {"unary", "exp", "ok", "ok", 0.5, 0.48, 0.52, NULL},    /* faster */
	    {"unary", "sqrt", "ok", "ok", 1.0, 0.99, 1.01, NULL},   /* same */
	    {"unary", "log", "ok", "wrong result", 0, 0, 0, "log: element 3 wrong"},
	    {"unary", "tanh", "ok", "crashed", 0, 0, 0, "signal 11"},
	    {"unary", "gelu", "ok", "n/a", 0, 0, 0, NULL},          /* vanished */
	    {"unary", "silu", "n/a", "ok", 0, 0, 0, NULL},          /* new */
	    {"unary", "clamp", "wrong result", "ok", 0, 0, 0, NULL}, /* fixed */
	    {"unary", "scale", "skipped", "skipped", 0, 0, 0, "no GPU"},
	    {"reduce", "sum", "ok", "skipped", 0, 0, 0, "no GPU"},
	};
	size_t n = sizeof(cells) / sizeof(cells[0]);
	bv_table t;
	make_table(&t, cells, n);
	bv_budgets b;
	bv_budgets_default(&b, 0.05);
	bv_report r;
	memset(&r, 0, sizeof(r));
	assert_int_equal(bv_report_judge(&r, &t, &b), 0);
	assert_int_equal(t.nrows, 0); /* moved into the report */
	static const bv_cell_status want[] = {BV_CELL_REGRESSION, BV_CELL_WARNING,     BV_CELL_REGRESSION,
					      BV_CELL_IMPROVEMENT, BV_CELL_OK,          BV_CELL_WRONG,
					      BV_CELL_FAILED,      BV_CELL_VANISHED,    BV_CELL_NEW,
					      BV_CELL_IMPROVEMENT, BV_CELL_NOT_RUN,     BV_CELL_UNCOMPARED};
	for (size_t k = 0; k < n; k++)
		if (status_at(&r, k) != want[k])
			fail_msg("cell %zu (%s): %s, wanted %s", k, cells[k].op, bv_cell_status_name(status_at(&r, k)),
				 bv_cell_status_name(want[k]));
	assert_false(r.ready);
	assert_int_equal(bv_report_exit_code(&r), BV_EXIT_REGRESSION);
	/* reasons: worst first, one per kind */
	assert_int_equal(r.nreasons, 4);
	assert_non_null(strstr(r.reasons[0], "1 cell gives a wrong result: unary log scalar 64K (wrong result: log: element 3 wrong)"));
	assert_non_null(strstr(r.reasons[1], "1 cell crashed, hung or failed: unary tanh scalar 64K (crashed: signal 11)"));
	assert_non_null(strstr(r.reasons[2], "1 cell ran on the baseline and is gone from the candidate: unary gelu"));
	assert_non_null(strstr(r.reasons[3], "2 cells are slower beyond their budgets: unary relu scalar 64K"));
	assert_non_null(strstr(r.reasons[3], "; unary neg scalar 64K"));
	assert_non_null(strstr(r.cells[9].why, "fixed"));
	/* geomean over the five ratios; two groups */
	assert_int_equal(r.ngeomean, 5);
	double g = exp((log(3.0) + log(1.06) + log(1.07) + log(0.5) + log(1.0)) / 5);
	assert_true(fabs(r.geomean - g) < 1e-9);
	assert_int_equal(r.ngroups, 2);
	assert_string_equal(r.groups[1].bench, "reduce");
	assert_int_equal(r.groups[1].n, 0);
	assert_int_equal(r.groups[0].counts[BV_CELL_REGRESSION], 2);
	assert_int_equal(r.counts[BV_CELL_WARNING], 1);
	bv_report_free(&r);
	bv_budgets_free(&b);
}

static void verdict_boundaries_and_budgets(void **state)
{
	(void)state;
	/* An interval that touches the budget is not beyond it; a budget of
	 * 0 makes any significant slowdown a regression; an override lifts one. */
	const cell_spec cells[] = {
	    {"unary", "relu", "ok", "ok", 1.06, 1.05, 1.07, NULL},
	    {"unary", "abs", "ok", "ok", 3.0, 2.9, 3.1, NULL},
	};
	bv_table t;
	make_table(&t, cells, 2);
	bv_budgets b;
	assert_int_equal(bv_budgets_parse("b.json", "{\"default_slowdown_pct\": 5, \"overrides\": [{\"op\": \"abs\", "
						    "\"slowdown_pct\": 250}]}",
					  strlen("{\"default_slowdown_pct\": 5, \"overrides\": [{\"op\": \"abs\", "
						 "\"slowdown_pct\": 250}]}"),
					  0.05, &b),
			 0);
	bv_report r;
	memset(&r, 0, sizeof(r));
	assert_int_equal(bv_report_judge(&r, &t, &b), 0);
	assert_int_equal(status_at(&r, 0), BV_CELL_WARNING);
	assert_int_equal(status_at(&r, 1), BV_CELL_WARNING);
	assert_non_null(r.cells[1].rule);
	assert_true(r.ready);
	assert_int_equal(r.nreasons, 0);
	assert_int_equal(bv_report_exit_code(&r), 0);
	assert_non_null(strstr(r.reproduce, "--budgets b.json"));
	bv_report_free(&r);
	bv_budgets_free(&b);

	make_table(&t, cells, 2);
	bv_budgets_default(&b, 0);
	memset(&r, 0, sizeof(r));
	bv_report_judge(&r, &t, &b);
	assert_int_equal(status_at(&r, 0), BV_CELL_REGRESSION);
	assert_int_equal(status_at(&r, 1), BV_CELL_REGRESSION);
	assert_non_null(strstr(r.reproduce, "--default-slowdown 0"));
	bv_report_free(&r);

	/* An interval that covers less than 95 % decides nothing. */
	make_table(&t, cells, 2);
	t.rows[1].changes[1].coverage = 0.5;
	t.rows[1].changes[1].verdict = BV_SAME;
	bv_budgets_default(&b, 0.05);
	memset(&r, 0, sizeof(r));
	bv_report_judge(&r, &t, &b);
	assert_int_equal(status_at(&r, 1), BV_CELL_OK);
	bv_report_free(&r);
}

/* An inconclusive cell (a 3x estimate whose interval holds 1; one
 * process, no interval) is neither a blocker nor "no change": a warning, as
 * unstable is; one whose estimate is faster is ok. */
static void inconclusive_cells_warn_and_never_block(void **state)
{
	(void)state;
	const cell_spec cells[] = {
	    {"unary", "sqrt", "ok", "ok", 3.241, 0.3, 5.4, NULL},
	    {"unary", "abs", "ok", "ok", 0.992, 0.992, 0.992, NULL},
	    {"unary", "neg", "ok", "ok", 0.5, 0.2, 1.3, NULL},
	};
	bv_table t;
	make_table(&t, cells, 3);
	for (size_t k = 0; k < 3; k++)
		t.rows[k].changes[1].verdict = BV_INCONCLUSIVE;
	t.rows[1].changes[1].coverage = 0, t.rows[1].changes[1].processes = 1;
	bv_budgets b;
	bv_budgets_default(&b, 0.05);
	bv_report r;
	memset(&r, 0, sizeof(r));
	assert_int_equal(bv_report_judge(&r, &t, &b), 0);
	assert_true(r.ready);
	assert_int_equal(status_at(&r, 0), BV_CELL_WARNING);
	assert_non_null(strstr(r.cells[0].why, "inconclusive"));
	assert_int_equal(status_at(&r, 1), BV_CELL_WARNING);
	assert_non_null(strstr(r.cells[1].why, "no 95% interval (at least 6 needed)"));
	char *sum = bv_report_cell_summary(&r.cells[1]);
	assert_non_null(strstr(sum, "0.992x [no 95% interval: 1 process]"));
	free(sum);
	assert_int_equal(status_at(&r, 2), BV_CELL_OK);
	bv_report_free(&r);
	bv_budgets_free(&b);
	bv_table_free(&t);
}

/* An unstable cell (its ratio followed the machine's state) is a
 * warning, unless it is beyond the budget at both states: then slower
 * whatever the state, a regression (a planted 3x once read unstable and
 * passed a release). */
static void unstable_cells_block_only_beyond_budget_at_both_states(void **state)
{
	(void)state;
	const cell_spec cells[] = {
	    {"unary", "relu", "ok", "ok", 2.7, 2.3, 3.1, NULL},
	    {"unary", "abs", "ok", "ok", 1.2, 1.0, 1.4, NULL},
	};
	bv_table t;
	make_table(&t, cells, 2);
	double usual[2] = {3.0, 1.01}, disturbed[2] = {2.4, 1.4};
	for (size_t k = 0; k < 2; k++) {
		bv_change *ch = &t.rows[k].changes[1];
		ch->verdict = BV_UNSTABLE, ch->unstable = 1;
		ch->level_usual = usual[k], ch->level_disturbed = disturbed[k];
		ch->n_usual = 5, ch->n_disturbed = 3;
	}
	bv_budgets b;
	bv_budgets_default(&b, 0.05);
	bv_report r;
	memset(&r, 0, sizeof(r));
	assert_int_equal(bv_report_judge(&r, &t, &b), 0);
	assert_int_equal(status_at(&r, 0), BV_CELL_REGRESSION);
	assert_non_null(strstr(r.cells[0].why, "slower at both of the machine's states"));
	assert_int_equal(status_at(&r, 1), BV_CELL_WARNING);
	assert_non_null(strstr(r.cells[1].why, "unstable: the machine changed under it"));
	assert_false(r.ready);
	bv_report_free(&r);
	bv_budgets_free(&b);
	bv_table_free(&t);
}

/* Logs from two runs (merge.c: inconclusive by rule): a 30 % ratio warns
 * and never blocks, a 0.4 % one is no sign of a slowdown; each says why. */
static void between_runs_cells_warn_and_never_block(void **state)
{
	(void)state;
	const cell_spec cells[] = {
	    {"unary", "sqrt", "ok", "ok", 1.3, 1.25, 1.35, NULL},
	    {"unary", "abs", "ok", "ok", 1.004, 0.99, 1.02, NULL},
	};
	bv_table t;
	make_table(&t, cells, 2);
	for (size_t k = 0; k < 2; k++) {
		bv_change *ch = &t.rows[k].changes[1];
		ch->verdict = BV_INCONCLUSIVE, ch->between_runs = 1, ch->paired = 0, ch->mode = "unpaired";
	}
	bv_budgets b;
	bv_budgets_default(&b, 0.05);
	bv_report r;
	memset(&r, 0, sizeof(r));
	assert_int_equal(bv_report_judge(&r, &t, &b), 0);
	assert_true(r.ready);
	assert_int_equal(status_at(&r, 0), BV_CELL_WARNING);
	assert_non_null(strstr(r.cells[0].why, "unpaired across runs: 1.300x, not called"));
	assert_int_equal(status_at(&r, 1), BV_CELL_OK);
	assert_non_null(strstr(r.cells[1].why, "unpaired across runs"));
	bv_report_free(&r);
	bv_budgets_free(&b);
	bv_table_free(&t);
}

static void verdict_build_failures(void **state)
{
	(void)state;
	const cell_spec cand_failed[] = {{"unary", "relu", "ok", "build failed", 0, 0, 0, NULL}};
	bv_table t;
	make_table(&t, cand_failed, 1);
	bv_budgets b;
	bv_budgets_default(&b, 0.05);
	bv_report r;
	memset(&r, 0, sizeof(r));
	r.env[1].build_failed = 1;
	r.env[1].build_error = bv_strdup("building the library (make lib) failed; end of /c/x.log:\ncc -c a.c\n"
					 "a.c:1:1: error: unknown type name 'this'\nmake: *** Error 1");
	bv_report_judge(&r, &t, &b);
	assert_int_equal(status_at(&r, 0), BV_CELL_BUILD_FAILED);
	assert_false(r.ready);
	assert_int_equal(bv_report_exit_code(&r), BV_EXIT_REGRESSION);
	assert_string_equal(r.reasons[0], "the candidate cand did not build: building the library (make lib) failed: "
					  "a.c:1:1: error: unknown type name 'this'");
	bv_report_free(&r);

	/* Both failed: no rows at all, the logs say so; nothing compared: exit 3. */
	make_table(&t, NULL, 0);
	memset(&r, 0, sizeof(r));
	r.env[0].build_failed = r.env[1].build_failed = 1;
	bv_report_judge(&r, &t, &b);
	assert_true(r.baseline_failed);
	assert_int_equal(bv_report_exit_code(&r), BV_EXIT_FAILED);
	assert_int_equal(r.nreasons, 2);
	assert_non_null(strstr(r.reasons[0], "the baseline base did not build, so nothing could be compared: no message"));
	bv_report_free(&r);

	/* Nothing comparable at all is not READY either. */
	const cell_spec other[] = {{"unary", "relu", "ok", "ok", 0, 0, 0, NULL}};
	make_table(&t, other, 1);
	t.rows[0].changes[1].none = "other machine";
	memset(&r, 0, sizeof(r));
	bv_report_judge(&r, &t, &b);
	assert_int_equal(status_at(&r, 0), BV_CELL_UNCOMPARED);
	assert_false(r.ready);
	assert_non_null(strstr(r.reasons[0], "no cell could be compared"));
	assert_non_null(strstr(r.cells[0].why, "other machine"));
	bv_report_free(&r);
	bv_budgets_free(&b);
}

static char *render(int (*fn)(const bv_report *, FILE *), const bv_report *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(fn(r, f), 0);
	fclose(f);
	return text;
}

static void formats_escape_hostile_text(void **state)
{
	(void)state;
	const cell_spec cells[] = {{"unary", "relu", "ok", "wrong result", 0, 0, 0,
				    "<script>x</script> & \"q\" | **b** `c` \x01 \xff\xfe"}};
	bv_table t;
	make_table(&t, cells, 1);
	free(t.labels[1]);
	t.labels[1] = bv_strdup("<img src=http://e/x>|`");
	bv_budgets b;
	bv_budgets_default(&b, 0.05);
	bv_report r;
	memset(&r, 0, sizeof(r));
	r.env[1].build_error = NULL;
	r.env[1].name = bv_strdup("it's");
	bv_report_judge(&r, &t, &b);
	char *html = render(bv_report_html, &r);
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "<img"));
	assert_null(strstr(html, "http://"));
	assert_non_null(strstr(html, "Content-Security-Policy\" content=\"default-src 'none'"));
	assert_non_null(strstr(html, "NOT READY"));
	char *md = render(bv_report_markdown, &r);
	/* Outside code blocks (where nothing is markup) only as escaped text. */
	int in_code = 0;
	for (const char *p = md; *p; p++) {
		if (!strncmp(p, "```", 3))
			in_code = !in_code, p += 2;
		else if (!in_code && !strncmp(p, "<img", 4))
			assert_true(p > md && p[-1] == '\\');
	}
	assert_int_equal(in_code, 0);
	assert_non_null(strstr(md, "\\<img src=http://e/x\\>\\|\\`"));
	assert_non_null(strstr(md, "\\*\\*b\\*\\*"));
	/* the reproduce line quotes a name a shell would split */
	assert_non_null(strstr(r.reproduce, "--candidate 'it'\\''s'"));
	char *xml = render(bv_report_junit, &r);
	assert_null(strstr(xml, "<script"));
	assert_non_null(strstr(xml, "&lt;script&gt;x&lt;/script&gt; &amp; &quot;q&quot;"));
	assert_null(strchr(xml, '\x01'));
	assert_null(strstr(xml, "\xff"));
	free(html), free(md), free(xml);
	bv_report_free(&r);
	bv_budgets_free(&b);
}

/* A cell past --memory-limit (harness/runner/runner_limits.c) blocks a release as a
 * crash does, and a baseline that ran out of memory ran the cell. */
static void out_of_memory_is_a_failure(void **state)
{
	(void)state;
	const cell_spec cells[] = {
	    {"unary", "relu", "ok", "out of memory", 0, 0, 0, "an allocation past --memory-limit was refused"},
	    {"unary", "abs", "out of memory", "n/a", 0, 0, 0, NULL},
	};
	bv_table t;
	make_table(&t, cells, 2);
	bv_budgets b;
	bv_budgets_default(&b, 0.05);
	bv_report r;
	memset(&r, 0, sizeof(r));
	assert_int_equal(bv_report_judge(&r, &t, &b), 0);
	assert_int_equal(status_at(&r, 0), BV_CELL_FAILED);
	assert_int_equal(status_at(&r, 1), BV_CELL_VANISHED);
	assert_false(r.ready);
	assert_non_null(strstr(r.cells[0].why, "out of memory: an allocation past --memory-limit"));
	bv_report_free(&r);
	bv_budgets_free(&b);
}

int test_report(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(budgets_default_without_file),
	    cmocka_unit_test(budgets_parse_and_match),
	    cmocka_unit_test(budgets_file_default_wins_over_the_flag),
	    cmocka_unit_test(budgets_hostile_input),
	    cmocka_unit_test(budgets_load_names_a_missing_file),
	    cmocka_unit_test(verdict_per_cell),
	    cmocka_unit_test(recheck_confirms_or_downgrades),
	    cmocka_unit_test(verdict_boundaries_and_budgets),
	    cmocka_unit_test(verdict_build_failures),
	    cmocka_unit_test(formats_escape_hostile_text),
	    cmocka_unit_test(out_of_memory_is_a_failure),
	    cmocka_unit_test(inconclusive_cells_warn_and_never_block),
	    cmocka_unit_test(between_runs_cells_warn_and_never_block),
	    cmocka_unit_test(unstable_cells_block_only_beyond_budget_at_both_states),
	};
	return test_run_group("report", tests, NULL, NULL);
}
