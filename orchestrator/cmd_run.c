/*
 * cmd_run.c - the comparison: bench-versions [run] V1 V2 ... [options].
 *
 * Drives every version through the stages (stages.h), then merges the logs
 * and exports the table.  Progress goes to stderr, the table to stdout.
 *
 * The stages themselves, in order, are pipeline.c's (bv_run_versions):
 * this file is the command's options, its checks before anything is
 * resolved, and the output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "cli.h"
#include "common.h"
#include "options.h"
#include "results.h"
#include "runner.h"
#include "shard.h"
#include "slurm.h"
#include "stages.h"
#include "suite.h"

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

int bv_cmd_run(int argc, char **argv)
{
	bv_run_cli c;
	bv_run_cli_init(&c);
	const char *format = "table", *units = "time", *filter = NULL, *save = NULL, *shard = NULL;
	int gate = 0, gate_wrong = 0;
	bv_view_opts view;
	bv_view_init(&view);
	bv_option view_opts[BV_VIEW_OPTIONS];
	bv_view_table(&view, view_opts);
	static char format_help[160];
	snprintf(format_help, sizeof(format_help), "output format: %s (default table)", bv_exporter_names());
	bv_option pipeline[BV_RUN_CLI_OPTIONS];
	bv_run_cli_table(&c, pipeline, NULL);
	bv_slurm_opts so;
	bv_slurm_init(&so);
	bv_option slurm_opts[BV_SLURM_OPTIONS];
	bv_slurm_table(&so, slurm_opts);
	const bv_option opts[] = {
	    BV_INCLUDE(pipeline, NULL),
	    BV_ENUM("--format", &format, "F", bv_exporter_list(), format_help),
	    BV_STRING("--filter", &filter, "REGEX",
		      "measure only the cells whose bench/op/backend/size matches (POSIX "
		      "extended regex, size as 64K), e.g. 'unary/(exp|relu)/scalar'"),
	    BV_FLAG("--dry-run", &c.dry_run,
		    "resolve the versions and say the plan: cells, builds cached or to "
		    "make, and the measuring time; builds and measures nothing (--format json: as JSON)"),
	    BV_FLAG("--fail-on-slower", &gate, "exit 1 when any change's verdict is slower (a CI gate; inconclusive is not, nor a slower whose counts are the same on both sides: placement, not the code), or when a version gives a wrong result (as --fail-on-wrong)"),
	    BV_FLAG("--fail-on-wrong", &gate_wrong, "exit 1 when a version other than the baseline gives a wrong result (its output failed the check; each is a note under the table)"),
	    BV_ENUM("--units", &units, "U", units_values,
		    "results as time, rate (GB/s or GFLOP/s), peak (% of this "
		    "machine's calibrated bandwidth or FLOPs) or memory (what the library "
		    "allocated during one call: its workspace); default time"),
	    BV_STRING("--save-baseline", &save, "NAME",
		      "keep this run's logs as baseline NAME (results/baselines/NAME/, replacing an "
		      "earlier one) for compare --baseline NAME"),
	    BV_STRING("--shard", &shard, "I/N",
		      "measure only the I-th of N slices of the cells (every version in each), balanced by "
		      "expected time; join the N shards' results with compare (see bench-versions plan)"),
	    BV_INCLUDE(view_opts, NULL),
	    BV_INCLUDE(slurm_opts, NULL),
	    BV_END,
	};
	char **names = bv_xcalloc((size_t)argc, sizeof(char *));
	size_t nnames = 0;
	int rc = bv_options_parse(opts, argc, argv, names, &nnames);
	if (rc == 1 || (rc == 0 && nnames == 0)) {
		usage(rc ? stdout : stderr, opts);
		free(names);
		return rc ? 0 : BV_EXIT_USAGE;
	}
	if (rc) {
		fprintf(stderr, "bench-versions: %s (see bench-versions run --help)\n", bv_error_last());
		free(names);
		return BV_EXIT_USAGE;
	}
	/* Before anything is resolved or built: more versions than a measuring
	 * process holds would otherwise fail after every build. */
	if (nnames > BV_RUNNER_MAX_VERSIONS && !c.mo.isolated)
		rc = bv_fail(BV_EINPUT,
			     "%zu versions given; at most %d can be compared in one run (one measuring process "
			     "loads them all); --isolated measures one version per process and takes more",
			     nnames, BV_RUNNER_MAX_VERSIONS);
	long ncells;
	/* --filter selects what is measured (bv_plan_cells), as a benchmark
	 * filter does elsewhere; measuring every cell to show a few cost the
	 * whole matrix's time.  A bad regex, or one that matches no cell, is
	 * refused by finish, before anything is resolved or built. */
	c.mo.filter = filter;
	c.dry_format = format;
	/* Before anything is resolved: a bad I/N would otherwise build every
	 * version first. */
	if (rc == 0 && shard)
		rc = bv_shard_parse(shard, &c.mo.shard_index, &c.mo.shard_count);
	if (rc == 0)
		rc = bv_slurm_check(&so, &c);
	if (rc == 0 && so.enabled && shard)
		rc = bv_fail(BV_EINPUT, "--shard with --slurm: --slurm cuts the run into --shards N itself");
	/* --slurm cuts the plan into shards before anything is built; a
	 * project suite's cells are known after the builds (suite.h). */
	if (rc == 0 && so.enabled && bv_suite_dir())
		rc = bv_fail(BV_EINPUT, "--slurm with a project suite (the project file's \"suite\"): not supported yet");
	/* A baseline of one shard would compare as a run missing the other
	 * shards' cells. */
	if (rc == 0 && shard && save)
		rc = bv_fail(BV_EINPUT, "--save-baseline with --shard: one shard is not a run; join the shards "
					"(compare SHARD_DIR... --join-to DIR) and compare against that directory");

	/* --vs / --vs-backend: a malformed axis, size, or both given. */
	if (rc == 0)
		rc = bv_view_vs(&view);
	/* The backend axis: a reference the selection leaves out would only be
	 * found missing after every build and measurement.  (A parameter axis
	 * is checked against the selected cells: bv_selection_check.) */
	if (rc == 0 && view.axis.on && !view.axis.param[0] && c.mo.backends) {
		char *list = bv_asprintf(",%s,", c.mo.backends), *want = bv_asprintf(",%s,", view.axis.ref);
		if (!strstr(list, want))
			rc = bv_fail(BV_EINPUT, "%s: not among --backends %s (the view needs the reference's "
			                        "cells measured)",
			             view.axis.option, c.mo.backends);
		free(list), free(want);
	}
	if (rc == 0 && view.axis.on)
		c.mo.vs = &view.axis;
	if (rc == 0)
		rc = bv_run_cli_finish(&c, &ncells);
	/* The view's verdicts need the evidence of about 10 processes
	 * (7 all-one-way signs are the fewest that reach 5 %, a few mixed ones
	 * ask for more); sampling stops on the versions' ratios only, which a
	 * run of one version does not have.  An asked-for fixed count stays. */
	if (rc == 0 && view.axis.on && c.mo.min_processes < c.mo.max_processes && c.mo.min_processes < 10)
		c.mo.min_processes = c.mo.max_processes < 10 ? c.mo.max_processes : 10;
	/* ... and the time budget must not stop a cell before them (it did,
	 * at 6, on a loaded machine: scalar exp 19x simd's, inconclusive). */
	if (rc == 0 && view.axis.on)
		c.mo.floor_processes = c.mo.min_processes;
	/* A bad name is refused before anything is built or measured. */
	if (rc == 0 && save)
		rc = bv_baseline_name_check(save);
	if (rc) {
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
		free(names);
		return BV_EXIT_USAGE;
	}
	const bv_exporter *exporter = bv_exporter_find(format);
	/* More shards than cells leave some empty: such a shard still writes
	 * its (empty) logs, so the join finds every shard of the plan. */
	if (c.mo.shard_count > 0)
		fprintf(stderr, "shard: %d/%d: %ld %s of the plan%s\n", c.mo.shard_index, c.mo.shard_count, ncells,
			bv_plural(ncells, "cell", "cells"),
			ncells ? "" : " (more shards than cells: this one only completes the plan)");

	char **logs = NULL, *dir = NULL;
	int build_failures = 0, gated = 0;
	size_t nwrong = 0;
	char wrong[600] = "";
	/* The stages say their own failure (and how to resume); with --slurm
	 * the shards go through them on the cluster's nodes (slurm.c). */
	/* the command line, taken here: no stage below reads argv */
	bv_run_cli_given(&c, opts, "run", argc, argv);
	if (so.enabled)
		rc = bv_slurm_run(names, nnames, &c, &so, &dir, &logs, &build_failures);
	else
		rc = bv_run_versions(names, nnames, &c, ncells, &dir, &logs, &build_failures);
	if (rc == 0 && c.dry_run) {
		free(names);
		return 0; /* the plan is said; there is no table */
	}
	if (rc == 0) {
		bv_table table;
		rc = bv_merge_logs(logs, nnames, c.mo.threshold, &table);
		if (rc == 0)
			rc = bv_view_counts(&view, &table, dir, 1);
		if (rc == 0) {
			table.units = units;
			rc = bv_view_apply(&view, format, &table);
			if (rc == 0)
				rc = exporter->write(&table, stdout);
			if (rc == 0 && gate && bv_table_has_slower(&table))
				gated = 1;
			/* A gate that passed a version computing the wrong thing
			 * would be no gate: --fail-on-slower checks this too. */
			if (rc == 0 && (gate || gate_wrong))
				nwrong = bv_table_wrong(&table, wrong, sizeof(wrong));
			bv_table_free(&table);
		}
		if (rc)
			fprintf(stderr, "bench-versions: %s\n", bv_error_last());
	}
	/* A baseline that lacks a version would compare as if it never ran:
	 * a run with a build failure is not saved over a good one. */
	if (rc == 0 && save && build_failures)
		fprintf(stderr, "bench-versions: not saved as baseline %s: a version failed to build\n", save);
	else if (rc == 0 && save) {
		char *saved = NULL;
		rc = bv_baseline_save(dir, save, &saved);
		if (rc == 0)
			fprintf(stderr, "baseline: %s saved in %s (compare with: bench-versions compare --baseline %s)\n",
				save, saved, save);
		else
			fprintf(stderr, "bench-versions: %s\n", bv_error_last());
		free(saved);
	}
	for (size_t i = 0; logs && i < nnames; i++)
		free(logs[i]);
	free(logs);
	free(dir);
	free(names);
	if (rc)
		return bv_exit_code(rc);
	if (gated)
		fprintf(stderr, "bench-versions: a change is slower (--fail-on-slower)\n");
	if (nwrong)
		bv_say_wrong(nwrong, wrong, gate_wrong ? "--fail-on-wrong" : "--fail-on-slower");
	return build_failures ? BV_EXIT_FAILED : gated || nwrong ? BV_EXIT_REGRESSION : 0;
}
