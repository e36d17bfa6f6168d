/*
 * cmd_report.c - bench-versions report --baseline V --candidate V: is this
 * candidate ready to release, performance-wise?
 *
 * Another driver of the same stages as `run` (bv_run_versions: resolve,
 * fetch, compat, build, measure, with the same options), or, with --from,
 * of `compare`'s log loading and pairing (bv_merge); then report.c judges
 * every cell against its budget, and the three report formats are written
 * next to the logs: report.html (for people), report.md (for a PR comment),
 * report.xml (JUnit, for CI).  The verdict and its reasons go to stdout.
 * The formats' table is report.c's, each format its report_<name>.c;
 * report --from RUN_DIR RUN_DIR... (one run per machine class) is
 * report_classes.c's.  This file is the command: its options and their
 * checks, the logs measured or read, the second measurement of a
 * regression, the files written and the exit code.
 *
 * Exit codes: 0 READY, 1 NOT READY (a regression beyond budget, a wrong
 * result, a crash, a vanished cell, the candidate failed to build), 2 usage
 * or input error (a bad budgets file is found before anything is measured),
 * 3 when no comparison could be made at all (the baseline failed to build,
 * or a stage failed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "benches.h"
#include "cli.h"
#include "common.h"
#include "export.h"
#include "fs.h"
#include "merge.h"
#include "options.h"
#include "pipeline.h"
#include "proc.h"
#include "report.h"
#include "resolve.h"
#include "run_options.h"
#include "shard.h"
#include "slurm.h"
#include "table.h"

static void usage(FILE *out, const bv_option *opts)
{
	fprintf(out,
		"usage: bench-versions report --baseline VERSION --candidate VERSION [options]\n"
		"       bench-versions report --from BASELINE.json CANDIDATE.json [options]\n"
		"       bench-versions report --from RUN_DIR [--baseline LABEL --candidate LABEL] [options]\n"
		"       bench-versions report --from RUN_DIR RUN_DIR... [options]   (one run per machine class;\n"
		"                 READY only when every class is)\n\n"
		"Is the candidate ready to release, performance-wise?  Measures both versions over the\n"
		"matrix (correctness checked in every cell) like `run`, or reads existing logs with\n"
		"--from, judges each cell against its budget, and writes report.html, report.md and\n"
		"report.xml (JUnit) next to the logs.  The verdict and its reasons go to stdout.\n\n"
		"options (--opt VALUE or --opt=VALUE):\n");
	bv_options_help(opts, out);
	fprintf(out, "\nexit codes: 0 READY, 1 NOT READY, 2 usage or input error (a bad budgets file),\n"
		     "3 no comparison possible (the baseline did not build, a stage failed), 130/143\n"
		     "interrupted (the finished cells are kept: see --resume)\n");
}

static int all_dirs(char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!bv_is_dir(paths[i]))
			return 0;
	return n > 0;
}

/* Adds s to a comma list unless it is there already. */
static void list_add(bv_buf *b, const char *s)
{
	size_t n = strlen(s);
	for (const char *p = b->s; p && *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncmp(p, s, n))
			return;
		p += len + (p[len] == ',');
	}
	bv_buf_printf(b, "%s%s", b->len ? "," : "", s);
}

/* Before NOT READY: the cells that would block are measured once more (the
 * builds are cached, so this costs their measuring time only), and only a
 * regression both measurements show blocks (bv_report_recheck). */
static int remeasure(bv_report *report, const bv_run_cli *c, const bv_slurm_opts *so, const char *dir0,
		     const char *baseline, const char *candidate)
{
	bv_buf lists[4] = {BV_BUF_INIT, BV_BUF_INIT, BV_BUF_INIT, BV_BUF_INIT};
	size_t n = 0;
	for (size_t k = 0; k < report->ncells; k++) {
		const bv_report_cell *cell = &report->cells[k];
		if (cell->status != BV_CELL_REGRESSION)
			continue;
		char size[32];
		list_add(&lists[0], cell->row->bench);
		list_add(&lists[1], cell->row->op);
		list_add(&lists[2], cell->row->backend);
		list_add(&lists[3], bv_size_format(cell->row->size, size, sizeof(size)));
		n++;
	}
	fprintf(stderr, "report: %zu cell%s slower beyond %s budget: measuring %s again before the verdict\n", n,
		n == 1 ? " is" : "s are", n == 1 ? "its" : "their", n == 1 ? "it" : "them");
	bv_run_cli again = *c;
	again.mo.benches = lists[0].s, again.mo.ops = lists[1].s, again.mo.backends = lists[2].s,
	again.mo.sizes = lists[3].s;
	again.resume = NULL;
	/* Inside the report's own run directory: one report, one directory. */
	char *root = bv_asprintf("%s/remeasured", dir0);
	again.results_root = root;
	again.not_latest = 1; /* results/latest stays the report's run */
	again.mo.resume = 0;
	again.mo.seed = c->mo.seed * 6364136223846793005ull + 1; /* other random orders and layouts */
	long ncells = 0;
	int rc = bv_run_cli_finish(&again, &ncells);
	char *names[2] = {(char *)baseline, (char *)candidate}, **logs = NULL, *dir = NULL;
	int failures = 0;
	/* With --slurm, on the cluster too: the same machines as the first
	 * measurement, in as many shards as there are cells to measure again,
	 * up to --shards. */
	bv_slurm_opts again_so = *so;
	int shards = so->shards ? so->shards : BV_SLURM_SHARDS_DEFAULT;
	again_so.shards = ncells < shards ? (int)(ncells > 0 ? ncells : 1) : shards;
	if (rc == 0 && so->enabled)
		rc = bv_slurm_run(names, 2, &again, &again_so, &dir, &logs, &failures);
	else if (rc == 0)
		rc = bv_run_versions(names, 2, &again, ncells, &dir, &logs, &failures);
	bv_table t;
	bv_merge_opts mo = {c->mo.threshold, 0};
	if (rc == 0 && (rc = bv_merge(logs, 2, &mo, &t)) == 0) {
		bv_report_recheck(report, &t);
		bv_table_free(&t);
	}
	if (logs)
		free(logs[0]), free(logs[1]);
	free(logs), free(dir), free(root);
	for (int f = 0; f < 4; f++)
		bv_buf_free(&lists[f]);
	return rc;
}

static const char *const print_values[] = {"text", "markdown", "html", "junit", "none", NULL};

/* Everything report's command line sets, and the tables that set it, so
 * that the steps below share one place instead of two dozen locals. */
typedef struct report_cmd {
	bv_run_cli c;
	const char *baseline, *candidate, *budgets_path, *out_dir, *formats_list, *print;
	const char *measuring_opt, *threshold_given; /* the first of each given */
	double default_slowdown;
	int from, across;
	bv_slurm_opts so;
	bv_view_opts counts;
	bv_option pipeline[BV_RUN_CLI_OPTIONS];
	bv_option slurm_opts[BV_SLURM_OPTIONS];
	bv_option counts_opts[BV_COUNTS_OPTIONS];
	bv_option opts[15];
} report_cmd;

/* report's option table: its own options, the measuring options less
 * --results (which has its own line), --slurm's and --counts'. */
static void report_table(report_cmd *r)
{
	bv_run_cli_init(&r->c);
	r->formats_list = "html,markdown,junit", r->print = "text";
	r->default_slowdown = 0.05;
	bv_run_cli_table(&r->c, r->pipeline, NULL);
	bv_slurm_init(&r->so);
	bv_slurm_table(&r->so, r->slurm_opts);
	/* --results is where runs are, read by --from latest as well as written
	 * by a measuring report: taken out of the measuring options, which
	 * --from refuses, and given its own line below. */
	for (size_t i = 0, k = 0;; i++) {
		if (r->pipeline[i].kind == BV_OPT_END || strcmp(r->pipeline[i].name, "--results"))
			r->pipeline[k++] = r->pipeline[i];
		if (r->pipeline[i].kind == BV_OPT_END)
			break;
	}
	bv_view_init(&r->counts);
	bv_counts_table(&r->counts, r->counts_opts);
	const bv_option opts[] = {
	    BV_STRING("--baseline", &r->baseline, "V",
		      "the released version to compare against (with --from: a label)"),
	    BV_STRING("--candidate", &r->candidate, "V", "the version to release (with --from: a label)"),
	    BV_FLAG("--from", &r->from,
		    "build the report from existing logs, measuring nothing: two "
		    "logs (the first is the baseline) or one run's directory"),
	    BV_STRING("--budgets", &r->budgets_path, "FILE",
		      "allowed slowdowns: a default and overrides per group, op, "
		      "backend or size (docs/cli/report.md#budgets)"),
	    BV_PERCENT("--default-slowdown", &r->default_slowdown, "P", 0, 1e6,
		       "the budget of cells no override names, percent (default 5; "
		       "a budgets file's default_slowdown_pct wins)"),
	    BV_STRING("--out", &r->out_dir, "DIR",
		      "where the reports go (default: the run's results directory; "
		      "with --from, the candidate log's directory)"),
	    BV_STRING("--formats", &r->formats_list, "L",
		      "which files to write: html,markdown,junit (default all), or none"),
	    BV_ENUM("--print", &r->print, "F", print_values,
		    "what goes to stdout: text (default), markdown, html, junit, none"),
	    BV_FLAG("--across-machines", &r->across, "with --from: compare logs from different machines anyway"),
	    BV_PERCENT("--threshold", &r->c.mo.threshold, "P", 0, 1000,
		       "smallest change called faster/slower (a warning), percent "
		       "(default 1; with --from the baseline log's)",
		       .seen = &r->threshold_given),
	    BV_STRING("--results", &r->c.results_root, "DIR",
		      "where runs are: logs go there, and --from latest is DIR/latest "
		      "(default results/ of this checkout)"),
	    BV_INCLUDE(r->pipeline,
		       "\nmeasuring options, as for run (see bench-versions run --help): --benches, --ops,\n"
		       "  --backends, --sizes, --quick, --processes, --min-processes, --max-processes,\n"
		       "  --budget, --rounds, --sample-us, --timeout, --memory-limit, --isolated, --recalibrate, --pin,\n"
		       "  --threads, --seed, --layouts N (default 4 here), --jobs, --build-timeout S,\n"
		       "  --resume DIR (go on with an interrupted report's measuring)\n",
		       .seen = &r->measuring_opt),
	    BV_INCLUDE(r->slurm_opts, NULL),
	    BV_INCLUDE(r->counts_opts, NULL),
	    BV_END,
	};
	_Static_assert(sizeof(opts) == sizeof(r->opts), "report_cmd.opts holds report's table");
	memcpy(r->opts, opts, sizeof(opts));
}

/* The two ways of asking (measure --baseline and --candidate, or read
 * logs --from) and the options that belong to one of them: 0, or
 * BV_EINPUT with what is wrong. */
static int check_args(const report_cmd *r, char *const *positional, size_t npos)
{
	const int from = r->from;
	if (from && npos == 0)
		return bv_fail(BV_EINPUT, "--from needs two logs (baseline first) or a run's directory");
	if (from && npos > 2 && !all_dirs(positional, npos))
		return bv_fail(BV_EINPUT, "--from takes two logs (baseline first), one run's directory, or one "
					  "run's directory per machine class");
	if (from && r->measuring_opt)
		return bv_fail(BV_EINPUT, "measuring options do nothing with --from (the logs are already measured)");
	if (!from && npos)
		return bv_fail(BV_EINPUT, "versions are named with --baseline and --candidate (or give logs with --from)");
	if (!from && (!r->baseline || !r->candidate))
		return bv_fail(BV_EINPUT, "name both --baseline VERSION and --candidate VERSION (or give logs with --from)");
	int rc = bv_options_requires("--across-machines", r->across, "--from", from, "a measured run is on one machine");
	if (rc == 0 && from && (r->so.enabled || r->so.given))
		rc = bv_fail(BV_EINPUT, "--slurm and its options measure; --from reads logs already measured");
	return rc;
}

/* Every input is checked before anything is measured: a typo in the
 * budgets file must not cost a full run.  want gets the formats to
 * write, *ncells the cells to measure. */
static int check_inputs(report_cmd *r, bv_budgets *budgets, int want[BV_REPORT_NFORMATS], long *ncells)
{
	int rc = bv_report_formats_parse(r->formats_list, want);
	if (!rc && r->budgets_path)
		rc = bv_budgets_load(r->budgets_path, r->default_slowdown, budgets);
	/* A release decision should not rest on where the linker put a loop:
	 * four layouts per version unless asked otherwise (docs/measurement.md). */
	if (!r->c.mo.layouts)
		r->c.mo.layouts = 4;
	if (!rc && !r->from)
		rc = bv_run_cli_finish(&r->c, ncells);
	if (!rc && !r->from)
		rc = bv_slurm_check(&r->so, &r->c);
	if (!rc && !r->from)
		for (const char *const *n = (const char *const[]){r->baseline, r->candidate, NULL}; *n && !rc; n++)
			rc = bv_version_name_check(*n);
	return rc;
}

/* --from: the two logs (logs[0], logs[1], owned) the positional arguments
 * name: two logs, or one run's directory (latest: the newest run of the
 * results directory, baseline.c; *from_dir owns it). */
static int logs_from_args(report_cmd *r, char **positional, size_t npos, char **from_dir, char *logs[2])
{
	int rc = 0;
	if (npos == 1) {
		rc = bv_results_resolve(r->c.results_root, positional[0], from_dir);
		if (rc == 0)
			positional[0] = *from_dir;
	}
	/* One shard is a slice of a run: judged alone, its missing cells
	 * would read as cells that vanished.  The joined run is a run. */
	for (size_t i = 0; rc == 0 && i < npos; i++)
		if (bv_path_is_shard(positional[i]))
			rc = bv_fail(BV_EINPUT,
				     "--from %s: a shard of a run (run --shard I/N); join the shards first "
				     "(bench-versions compare SHARD_DIR... --join-to DIR) and report --from DIR",
				     positional[i]);
	if (rc)
		return rc;
	if (npos == 1 && bv_is_dir(positional[0]))
		return bv_report_run_logs(positional[0], r->baseline, r->candidate, logs);
	if (npos == 2) {
		logs[0] = bv_strdup(positional[0]), logs[1] = bv_strdup(positional[1]);
		return 0;
	}
	return bv_fail(BV_EINPUT, "--from %s: give two logs (baseline first) or a run's directory", positional[0]);
}

/* Without --from: both versions measured (on this machine, or as a Slurm
 * job array), their logs in logs[0], logs[1], the run's directory in *dir.
 * A failure is said by the stages, with how to resume. */
static int logs_measured(report_cmd *r, long ncells, char **dir, char *logs[2], int *build_failures)
{
	char *names[2] = {(char *)r->baseline, (char *)r->candidate}, **measured = NULL;
	int rc;
	if (r->so.enabled)
		rc = bv_slurm_run(names, 2, &r->c, &r->so, dir, &measured, build_failures);
	else
		rc = bv_run_versions(names, 2, &r->c, ncells, dir, &measured, build_failures);
	if (rc == 0) {
		logs[0] = measured[0], logs[1] = measured[1];
		free(measured);
	}
	return rc;
}

/* The directory the candidate's log is in, where --from's reports and
 * counts go by default. */
static char *candidate_dir(const char *log)
{
	const char *slash = strrchr(log, '/');
	return slash ? bv_asprintf("%.*s", (int)(slash - log), log) : bv_strdup(".");
}

/* The two logs judged into report: merged, each cell against its budget,
 * a regression measured a second time before it blocks (not with --from:
 * the logs are what they are), and why the changed cells changed
 * (counts.c) in the run's directory (with --from: what it counted, unless
 * --counts asks for more). */
static int judge(report_cmd *r, char *logs[2], const char *dir, const bv_budgets *budgets, bv_report *report)
{
	bv_table table;
	bv_merge_opts mo = {r->from && !r->threshold_given ? -1 : r->c.mo.threshold, r->across};
	int rc = bv_merge(logs, 2, &mo, &table);
	int have_table = rc == 0;
	if (rc == 0)
		rc = bv_report_read_env(report, logs);
	if (rc == 0 && (rc = bv_report_judge(report, &table, budgets)) == 0)
		have_table = 0; /* the report owns it now */
	if (rc == 0 && !r->from && report->counts[BV_CELL_REGRESSION] > 0)
		rc = remeasure(report, &r->c, &r->so, dir, r->baseline, r->candidate);
	if (rc == 0) {
		char *cdir = dir ? bv_strdup(dir) : candidate_dir(logs[1]);
		rc = bv_view_counts(&r->counts, &report->table, cdir, !r->from);
		free(cdir);
		if (rc == 0)
			bv_report_explain(report);
	}
	if (have_table)
		bv_table_free(&table);
	return rc;
}

/* The report's files (want) into --out, else the run's directory, else
 * the candidate log's; the one asked for on stdout; then the files'
 * names, once everything is written. */
static int write_reports(const report_cmd *r, const bv_report *report, const char *dir, const char *cand_log,
			 const int want[BV_REPORT_NFORMATS], int print_index)
{
	char *where = r->out_dir ? bv_strdup(r->out_dir) : dir ? bv_strdup(dir) : candidate_dir(cand_log);
	int rc = bv_mkdir_p(where);
	bv_strv written = BV_STRV_INIT;
	for (int i = 0; rc == 0 && i < BV_REPORT_NFORMATS; i++) {
		if (!want[i])
			continue;
		char *path = bv_asprintf("%s/%s", where, bv_report_formats[i].file);
		rc = bv_report_write_file(path, bv_report_formats[i].fn, report);
		if (rc == 0)
			bv_strv_push(&written, path);
		free(path);
	}
	if (rc == 0 && print_index >= 0) {
		rc = bv_report_formats[print_index].fn(report, stdout);
		if (rc == 0 && fflush(stdout) != 0)
			rc = bv_fail(BV_ERUN, "cannot write the output");
	}
	for (size_t i = 0; rc == 0 && i < written.n; i++)
		fprintf(stderr, "report: %s\n", written.v[i]);
	bv_strv_free(&written);
	free(where);
	return rc;
}

int bv_cmd_report(int argc, char **argv)
{
	report_cmd *r = bv_xcalloc(1, sizeof(*r));
	report_table(r);
	char **positional = bv_xcalloc((size_t)argc + 1, sizeof(char *));
	size_t npos = 0;
	char *logs[2] = {NULL, NULL}, *dir = NULL, *from_dir = NULL;
	int build_failures = 0, said = 0; /* the report says which version did not build */
	int want[BV_REPORT_NFORMATS], code;
	long ncells = 0;
	bv_budgets budgets;
	int have_budgets = 0;
	bv_report report;
	memset(&report, 0, sizeof(report));
	int rc = bv_options_parse(r->opts, argc, argv, positional, &npos);
	if ((code = bv_options_done(rc, 0, "bench-versions report", "report", usage, r->opts)) >= 0)
		goto cleanup;
	if (!strcmp(r->print, "none"))
		r->print = NULL;
	if (check_args(r, positional, npos)) {
		const int named = r->measuring_opt && r->from;
		fprintf(stderr, "bench-versions report: %s%s%s\n", bv_error_last(), named ? ": " : "",
			named ? r->measuring_opt : "");
		if (!r->baseline && !r->candidate && !npos)
			usage(stderr, r->opts);
		code = BV_EXIT_USAGE;
		goto cleanup;
	}
	int print_index = r->print ? bv_report_format_index(r->print) : -1;
	bv_budgets_default(&budgets, r->default_slowdown);
	have_budgets = 1;
	if ((rc = check_inputs(r, &budgets, want, &ncells)) != 0) {
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
		code = bv_exit_code(rc);
		goto cleanup;
	}
	/* Several runs' directories: one per machine class, judged side by side. */
	if (r->from && npos >= 2 && all_dirs(positional, npos)) {
		code = bv_report_classes(positional, npos, r->baseline, r->candidate,
		                         r->threshold_given ? r->c.mo.threshold : -1, r->across, &budgets,
		                         r->out_dir, want, print_index);
		goto cleanup;
	}
	if (r->from)
		rc = logs_from_args(r, positional, npos, &from_dir, logs);
	else {
		/* the command line, taken here: no stage below reads argv */
		bv_run_cli_given(&r->c, r->opts, "report", argc, argv);
		said = (rc = logs_measured(r, ncells, &dir, logs, &build_failures)) != 0;
	}
	if (rc == 0)
		rc = judge(r, logs, dir, &budgets, &report);
	if (rc == 0)
		rc = write_reports(r, &report, dir, logs[1], want, print_index);
	code = rc ? bv_exit_code(rc) : bv_report_exit_code(&report);
	if (rc && !said)
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
	else if (!rc && report.baseline_failed)
		fprintf(stderr, "bench-versions: the baseline did not build; no comparison was possible\n");
cleanup:
	bv_report_free(&report);
	if (have_budgets)
		bv_budgets_free(&budgets);
	free(dir), free(logs[0]), free(logs[1]);
	free(positional);
	free(from_dir);
	bv_run_cli_free(&r->c);
	free(r);
	return code;
}

