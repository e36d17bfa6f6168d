/*
 * cmd_run.c - the comparison: bench-versions [run] V1 V2 ... [options].
 *
 * Drives every version through the stages (pipeline.h), then merges the logs
 * and exports the table.  Progress goes to stderr, the table to stdout.
 *
 * The stages themselves, in order, are pipeline.c's (bv_run_versions):
 * this file is the command's options, its checks before anything is
 * resolved, and the output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "benches.h"
#include "cli.h"
#include "common.h"
#include "export.h"
#include "merge.h"
#include "options.h"
#include "pipeline.h"
#include "proc.h"
#include "run_options.h"
#include "runner.h"
#include "shard.h"
#include "slurm.h"
#include "suite.h"
#include "table.h"

static void usage(FILE *out, const bv_option *opts)
{
	fprintf(out, "usage: bench-versions [run] VERSION... [options]\n\n"
		     "Builds each VERSION of the kernel library against the same harness, measures\n"
		     "them together and prints one table; the first VERSION is the baseline.\n\n"
		     "VERSION: local (the library's working tree: KERNEL_DIR, else kernels/ of the git\n"
		     "repository holding the current directory, or where its bench-versions.json\n"
		     "says), a release number (0.1.0: a tag v0.1.0, else the release index\n"
		     "KERNEL_RELEASES, else the first commit whose VERSION reads it; a project file\n"
		     "says which tags are releases and where the version is read: 1.2 may be tag\n"
		     "release-1.2), or any git revision (main, a commit, HEAD~3, v0.2.0^).\n"
		     "KERNEL_REPO may be a URL: it is cloned (bare) into the cache.  At most %d\n"
		     "versions (one measuring process loads them all; --isolated: any number).\n\n"
		     "options (--opt VALUE or --opt=VALUE):\n",
		BV_RUNNER_MAX_VERSIONS);
	bv_options_help(opts, out);
	fprintf(out, "\nenvironment: KERNEL_DIR, KERNEL_REPO, KERNEL_RELEASES, BENCH_VERSIONS_CACHE,\n"
		     "             BENCH_VERSIONS_COMPAT, BENCH_VERSIONS_PROJECT, BENCH_VERSIONS_OPS,\n"
		     "             XDG_CACHE_HOME, NO_COLOR (no colour on a terminal),\n"
		     "             CC, CFLAGS, CUDA, BLAS, CMAKE_*... (builds get an allow-list of the\n"
		     "             environment; what changes a build is in its cache key),\n"
		     "             BENCH_VERSIONS_BUILD_ENV (names of your own variables a recipe reads),\n"
		     "             BV_SLURM_BIN (--slurm: where sbatch, squeue and scancel are, instead of PATH)\n"
		     "exit codes: 0 success, 1 a change is slower and --fail-on-slower was given, or a\n"
		     "wrong result and --fail-on-wrong or --fail-on-slower was given,\n"
		     "2 usage or input error, 3 a build or run failed, 130/143 interrupted by\n"
		     "SIGINT/SIGTERM (the finished cells are kept: see --resume)\n"
		     "results: --results DIR, else results/ of the source tree, or installed\n"
		     "         .bench-versions/results/ at the top of the library's repository\n");
}

static const char *const units_values[] = {"time", "rate", "peak", "memory", NULL};

/* Everything run's command line sets, and the tables that set it, so
 * that the steps below share one place instead of a dozen locals. */
typedef struct run_cmd {
	bv_run_cli c;
	const char *format, *units, *filter, *save, *shard;
	int gate, gate_wrong;
	bv_view_opts view;
	bv_slurm_opts so;
	bv_option view_opts[BV_VIEW_OPTIONS];
	bv_option pipeline[BV_RUN_CLI_OPTIONS];
	bv_option slurm_opts[BV_SLURM_OPTIONS];
	bv_option opts[12];
} run_cmd;

/* run's option table: the measuring options (run_options.c), its own,
 * the view's and --slurm's.  The defaults are set here too. */
static void run_table(run_cmd *r)
{
	bv_run_cli_init(&r->c);
	r->format = "table", r->units = "time";
	r->filter = r->save = r->shard = NULL;
	r->gate = r->gate_wrong = 0;
	bv_view_init(&r->view);
	bv_view_table(&r->view, r->view_opts);
	static char format_help[160];
	snprintf(format_help, sizeof(format_help), "output format: %s (default table)", bv_exporter_names());
	bv_run_cli_table(&r->c, r->pipeline, NULL);
	bv_slurm_init(&r->so);
	bv_slurm_table(&r->so, r->slurm_opts);
	const bv_option opts[] = {
	    BV_INCLUDE(r->pipeline, NULL),
	    BV_ENUM("--format", &r->format, "F", bv_exporter_list(), format_help),
	    BV_STRING("--filter", &r->filter, "REGEX",
		      "measure only the cells whose bench/op/backend/size matches (POSIX "
		      "extended regex, size as 64K), e.g. 'unary/(exp|relu)/scalar'"),
	    BV_FLAG("--dry-run", &r->c.dry_run,
		    "resolve the versions and say the plan: cells, builds cached or to "
		    "make, and the measuring time; builds and measures nothing (--format json: as JSON)"),
	    BV_FLAG("--fail-on-slower", &r->gate, "exit 1 when any change's verdict is slower (a CI gate; inconclusive is not, nor a slower whose counts are the same on both sides: placement, not the code), or when a version gives a wrong result (as --fail-on-wrong)"),
	    BV_FLAG("--fail-on-wrong", &r->gate_wrong, "exit 1 when a version other than the baseline gives a wrong result (its output failed the check; each is a note under the table)"),
	    BV_ENUM("--units", &r->units, "U", units_values,
		    "results as time, rate (GB/s or GFLOP/s), peak (% of this "
		    "machine's calibrated bandwidth or FLOPs) or memory (what the library "
		    "allocated during one call: its workspace); default time"),
	    BV_STRING("--save-baseline", &r->save, "NAME",
		      "keep this run's logs as baseline NAME (results/baselines/NAME/, replacing an "
		      "earlier one) for compare --baseline NAME"),
	    BV_STRING("--shard", &r->shard, "I/N",
		      "measure only the I-th of N slices of the cells (every version in each), balanced by "
		      "expected time; join the N shards' results with compare (see bench-versions plan)"),
	    BV_INCLUDE(r->view_opts, NULL),
	    BV_INCLUDE(r->slurm_opts, NULL),
	    BV_END,
	};
	_Static_assert(sizeof(opts) == sizeof(r->opts), "run_cmd.opts holds run's table");
	memcpy(r->opts, opts, sizeof(opts));
}

/* The backend axis (--vs-backend): a reference the selection leaves out
 * would only be found missing after every build and measurement.  (A
 * parameter axis is checked against the selected cells:
 * bv_selection_check.) */
static int check_axis_backend(const run_cmd *r)
{
	const bv_view_opts *view = &r->view;
	if (!view->axis.on || view->axis.param[0] || !r->c.mo.backends)
		return 0;
	int rc = 0;
	char *list = bv_asprintf(",%s,", r->c.mo.backends), *want = bv_asprintf(",%s,", view->axis.ref);
	if (!strstr(list, want))
		rc = bv_fail(BV_EINPUT, "%s: not among --backends %s (the view needs the reference's "
		                        "cells measured)",
		             view->axis.option, r->c.mo.backends);
	free(list), free(want);
	return rc;
}

/* Everything about the command line that can be refused is refused here,
 * before anything is resolved or built: a bad I/N, a regex that matches
 * no cell or a baseline name that cannot be saved would otherwise cost
 * every build first.  *ncells gets the cells of the plan (of this shard). */
static int run_check(run_cmd *r, size_t nnames, long *ncells)
{
	bv_run_cli *c = &r->c;
	int rc = 0;
	/* More versions than a measuring process holds would otherwise fail
	 * after every build. */
	if (nnames > BV_RUNNER_MAX_VERSIONS && !c->mo.isolated)
		rc = bv_fail(BV_EINPUT,
			     "%zu versions given; at most %d can be compared in one run (one measuring process "
			     "loads them all); --isolated measures one version per process and takes more",
			     nnames, BV_RUNNER_MAX_VERSIONS);
	/* --filter selects what is measured (bv_plan_cells), as a benchmark
	 * filter does elsewhere; measuring every cell to show a few cost the
	 * whole matrix's time.  A bad regex, or one that matches no cell, is
	 * refused by finish. */
	c->mo.filter = r->filter;
	c->dry_format = r->format;
	if (rc == 0 && r->shard)
		rc = bv_shard_parse(r->shard, &c->mo.shard_index, &c->mo.shard_count);
	if (rc == 0)
		rc = bv_slurm_check(&r->so, c);
	if (rc == 0)
		rc = bv_options_exclusive("--shard", r->shard != NULL, "--slurm", r->so.enabled,
		                          "--slurm cuts the run into --shards N itself");
	/* --slurm cuts the plan into shards before anything is built; a
	 * project suite's cells are known after the builds (suite.h). */
	if (rc == 0 && r->so.enabled && bv_suite_dir())
		rc = bv_fail(BV_EINPUT, "--slurm with a project suite (the project file's \"suite\"): not supported yet");
	/* A baseline of one shard would compare as a run missing the other
	 * shards' cells. */
	if (rc == 0)
		rc = bv_options_exclusive("--save-baseline", r->save != NULL, "--shard", r->shard != NULL,
		                          "one shard is not a run; join the shards "
		                          "(compare SHARD_DIR... --join-to DIR) and compare against that directory");
	/* --vs / --vs-backend: a malformed axis, size, or both given. */
	if (rc == 0)
		rc = bv_view_vs(&r->view);
	if (rc == 0)
		rc = check_axis_backend(r);
	if (rc == 0 && r->view.axis.on)
		c->mo.vs = &r->view.axis;
	if (rc == 0)
		rc = bv_run_cli_finish(c, ncells);
	/* The view's verdicts need the evidence of about 10 processes
	 * (7 all-one-way signs are the fewest that reach 5 %, a few mixed ones
	 * ask for more); sampling stops on the versions' ratios only, which a
	 * run of one version does not have.  An asked-for fixed count stays. */
	if (rc == 0 && r->view.axis.on && c->mo.min_processes < c->mo.max_processes && c->mo.min_processes < 10)
		c->mo.min_processes = c->mo.max_processes < 10 ? c->mo.max_processes : 10;
	/* ... and the time budget must not stop a cell before them (it did,
	 * at 6, on a loaded machine: scalar exp 19x simd's, inconclusive). */
	if (rc == 0 && r->view.axis.on)
		c->mo.floor_processes = c->mo.min_processes;
	/* A bad name is refused before anything is built or measured. */
	if (rc == 0 && r->save)
		rc = bv_baseline_name_check(r->save);
	return rc;
}

/* The table of the measured logs on stdout, and what the gates make of
 * it: *gated when a change is slower under --fail-on-slower, *nwrong (and
 * wrong, the versions named) the wrong results either gate counts. */
static int run_output(run_cmd *r, char **logs, size_t nnames, const char *dir, int *gated, size_t *nwrong,
		      char *wrong, size_t wrong_size)
{
	bv_table table;
	int rc = bv_merge_logs(logs, nnames, r->c.mo.threshold, &table);
	if (rc == 0)
		rc = bv_view_counts(&r->view, &table, dir, 1);
	if (rc == 0) {
		table.units = r->units;
		rc = bv_view_apply(&r->view, r->format, &table);
		if (rc == 0)
			rc = bv_exporter_find(r->format)->write(&table, stdout);
		if (rc == 0 && r->gate && bv_table_has_slower(&table))
			*gated = 1;
		/* A gate that passed a version computing the wrong thing
		 * would be no gate: --fail-on-slower checks this too. */
		if (rc == 0 && (r->gate || r->gate_wrong))
			*nwrong = bv_table_wrong(&table, wrong, wrong_size);
		bv_table_free(&table);
	}
	if (rc)
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
	return rc;
}

/* --save-baseline: the run's logs kept under their name.  A baseline that
 * lacks a version would compare as if it never ran: a run with a build
 * failure is not saved over a good one. */
static int run_save_baseline(const char *save, const char *dir, int build_failures)
{
	if (build_failures) {
		fprintf(stderr, "bench-versions: not saved as baseline %s: a version failed to build\n", save);
		return 0;
	}
	char *saved = NULL;
	int rc = bv_baseline_save(dir, save, &saved);
	if (rc == 0)
		fprintf(stderr, "baseline: %s saved in %s (compare with: bench-versions compare --baseline %s)\n",
			save, saved, save);
	else
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
	free(saved);
	return rc;
}

int bv_cmd_run(int argc, char **argv)
{
	run_cmd *r = bv_xcalloc(1, sizeof(*r));
	run_table(r);
	char **names = bv_xcalloc((size_t)argc, sizeof(char *));
	size_t nnames = 0;
	char **logs = NULL, *dir = NULL;
	int build_failures = 0, gated = 0, code;
	size_t nwrong = 0;
	char wrong[600] = "";
	long ncells = 0;
	int rc = bv_options_parse(r->opts, argc, argv, names, &nnames);
	if ((code = bv_options_done(rc, nnames == 0, "bench-versions", "run", usage, r->opts)) >= 0)
		goto cleanup;
	if ((rc = run_check(r, nnames, &ncells)) != 0) {
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
		code = BV_EXIT_USAGE;
		goto cleanup;
	}
	/* More shards than cells leave some empty: such a shard still writes
	 * its (empty) logs, so the join finds every shard of the plan. */
	if (r->c.mo.shard_count > 0)
		fprintf(stderr, "shard: %d/%d: %ld %s of the plan%s\n", r->c.mo.shard_index, r->c.mo.shard_count,
			ncells, bv_plural(ncells, "cell", "cells"),
			ncells ? "" : " (more shards than cells: this one only completes the plan)");

	/* The stages say their own failure (and how to resume); with --slurm
	 * the shards go through them on the cluster's nodes (slurm.c). */
	/* the command line, taken here: no stage below reads argv */
	bv_run_cli_given(&r->c, r->opts, "run", argc, argv);
	if (r->so.enabled)
		rc = bv_slurm_run(names, nnames, &r->c, &r->so, &dir, &logs, &build_failures);
	else
		rc = bv_run_versions(names, nnames, &r->c, ncells, &dir, &logs, &build_failures);
	if (rc == 0 && r->c.dry_run) {
		code = 0; /* the plan is said; there is no table */
		goto cleanup;
	}
	if (rc == 0)
		rc = run_output(r, logs, nnames, dir, &gated, &nwrong, wrong, sizeof(wrong));
	if (rc == 0 && r->save)
		rc = run_save_baseline(r->save, dir, build_failures);
	if (rc) {
		code = bv_exit_code(rc);
		goto cleanup;
	}
	if (gated)
		fprintf(stderr, "bench-versions: a change is slower (--fail-on-slower)\n");
	if (nwrong)
		bv_say_wrong(nwrong, wrong, r->gate_wrong ? "--fail-on-wrong" : "--fail-on-slower");
	code = build_failures ? BV_EXIT_FAILED : gated || nwrong ? BV_EXIT_REGRESSION : 0;
cleanup:
	for (size_t i = 0; logs && i < nnames; i++)
		free(logs[i]);
	free(logs);
	free(dir);
	free(names);
	bv_run_cli_free(&r->c);
	free(r);
	return code;
}
