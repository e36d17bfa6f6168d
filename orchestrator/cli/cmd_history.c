/*
 * cmd_history.c - bench-versions history SERIES [run options] [--window W]
 * [--format table|json|markdown|html]: a library's speed over a series of
 * versions, each step between adjacent versions measured paired, the chain
 * back to the first version a product of those steps, and where it changed
 * (docs/cli/history.md, docs/history.md).
 *
 * The command alone: its options, the checks of the series it names, the
 * stages called in order and the exit code.  The history it builds and how
 * it is measured are history.c's and history_measure.c's (history.h); the
 * formats print it (history_format.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common.h"
#include "fs.h"
#include "history.h"
#include "history_format.h"
#include "history_measure.h"
#include "json.h"
#include "options.h"
#include "planner.h"
#include "proc.h"
#include "resolve.h"
#include "run_options.h"
#include "suite.h"

#define WINDOW_DEFAULT 4
#define WINDOW_MAX 16

/* ---- options ------------------------------------------------------------ */

static void usage(FILE *out, const bv_option *opts)
{
	fprintf(out, "usage: bench-versions history --releases [options]\n"
	             "       bench-versions history A..B [--first-parent] [--every N] [options]\n"
	             "       bench-versions history V1 V2 [V3...] [options]\n\n"
	             "The library's speed over a series of versions: every release in reach, the\n"
	             "commits from A to B (oldest first) or the versions named.  Every version is\n"
	             "built as for run; windows of W consecutive versions (overlapping by one) are\n"
	             "measured together, so every step between adjacent versions is a paired\n"
	             "ratio, and the chain back to the first version is their product.  Prints one\n"
	             "row per cell and one column per version (the ratio to the first; * marks a\n"
	             "change point), then each change with the bisect command that narrows it when\n"
	             "the series skipped commits.\n\n"
	             "options (--opt VALUE or --opt=VALUE):\n");
	bv_options_help(opts, out);
	fprintf(out,
	        "\nenvironment: KERNEL_DIR, KERNEL_REPO, BENCH_VERSIONS_CACHE, BENCH_VERSIONS_COMPAT, CC\n"
	        "exit codes: 0 done, 2 usage or input error (an empty range, fewer than two\n"
	        "versions), 3 fewer than two versions built, or a measurement failed\n");
}

/* What history takes of run's options: all that shape a measurement, not
 * --resume (a history is measured window by window; the store makes a
 * second run cheap) and not --isolated (it would unpair every step). */
static const char *const measuring[] = {
    "--benches",       "--ops",       "--backends",    "--sizes",   "--quick",     "--min-processes",
    "--max-processes", "--processes", "--budget",      "--rounds",  "--sample-us", "--timeout",
    "--memory-limit",  "--pin",       "--recalibrate", "--threads", "--simd-isa",  "--threshold",
    "--seed",          "--layouts",   "--results",     "--jobs",    "--build-timeout", NULL};

/* What is wrong with the series the command line names (the positional
 * arguments pos, nrange of them ranges, and --releases, --import,
 * --first-parent, --every), or NULL when it is one history can measure;
 * a message made here is also *owned, for the caller to free. */
static const char *series_why(const bv_hist *h, char **pos, size_t npos, size_t nrange, char **owned)
{
	if (h->releases && npos)
		return *owned =
		    bv_asprintf("--releases is the whole series: '%s' is one too many", pos[0]);
	else if (nrange && npos > 1)
		return "a range A..B is the whole series: give it alone, or list the versions instead";
	else if (nrange && strstr(pos[0], "..."))
		return *owned = bv_asprintf(
		    "'%s': history takes A..B (the commits from A to B), not A...B", pos[0]);
	else if (h->import && (npos || h->releases || h->no_store))
		return "--import takes a run's directory alone (and --store)";
	else if (h->import)
		return NULL; /* an import names no series */
	else if (!h->releases && npos == 0)
		return "no series: give --releases, a range A..B or two versions or more";
	else if (!h->releases && !nrange && npos < 2)
		return *owned =
		    bv_asprintf("one version (%s) is no history: give two or more, a range A..B or "
		                "--releases",
		                pos[0]);
	else if (h->first_parent && !nrange)
		return "--first-parent is for a range A..B";
	else if (h->every && !nrange && !h->releases)
		return "--every N is for a range A..B or --releases (a list keeps every version named)";
	return NULL;
}

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, bv_hist *h)
{
	h->format = "table";
	h->window = WINDOW_DEFAULT;
	bv_run_cli_init(&h->cli);
	bv_option shared[BV_RUN_CLI_OPTIONS];
	bv_run_cli_table(&h->cli, shared, measuring);
	const bv_option opts[] = {
	    BV_FLAG("--releases", &h->releases,
	            "the series is every release in reach, oldest first (as compat lists them)"),
	    BV_FLAG("--first-parent", &h->first_parent,
	            "A..B: follow first parents only (a merge is one step)"),
	    BV_INT("--every", &h->every, "N", 1, 1000000,
	           "A..B or --releases: keep every Nth version (both ends always); the\n"
	           "bisect command of a change then narrows the commits skipped"),
	    BV_INT("--window", &h->window, "W", 2, WINDOW_MAX,
	           "versions measured together, overlapping by one (default 4; 2: each step alone)"),
	    BV_ENUM("--format", &h->format, "F", bv_hist_format_list(),
	            "table (default), json, markdown or html (also kept as history.html)"),
	    BV_STRING("--store", &h->store_path, "PATH",
	              "the history store (SQLite; default <cache>/history.sqlite): steps already\n"
	              "measured on this machine class with the same method are taken from it, and\n"
	              "new ones kept"),
	    BV_FLAG("--no-store", &h->no_store, "measure every window and keep nothing"),
	    BV_STRING("--import", &h->import, "RUN_DIR",
	              "no history: put a run's paired ratios (its baseline against each version)\n"
	              "into the store, under the run's machine class and method, and stop"),
	    BV_REFUSED("--isolated", "history measures every step paired (adjacent versions in the same "
	                             "processes); --isolated would unpair every step"),
	    BV_REFUSED("--resume", "history does not resume a run: its windows are measured one by one into "
	                           "a new results directory"),
	    BV_INCLUDE(shared,
	               "the measuring options of run: --benches, --ops, --backends, --sizes, --quick,\n"
	               "--min-processes, --max-processes, --processes, --budget, --rounds, --sample-us,\n"
	               "--timeout, --memory-limit, --pin, --recalibrate, --threads, --simd-isa,\n"
	               "--threshold, --seed, --layouts, --results, --jobs, --build-timeout\n"
	               "(see bench-versions run --help);\n"
	               "--layouts is 4 unless given: code placement is noise over many builds"),
	    BV_END,
	};
	char **pos = bv_xcalloc((size_t)argc + 1, sizeof(char *));
	size_t npos = 0;
	int prc = bv_options_parse(opts, argc, argv, pos, &npos);
	if (prc == 1) {
		free(pos);
		usage(stdout, opts);
		return 0;
	}
	const char *why = NULL;
	char *owned = NULL;
	size_t nrange = 0;
	for (size_t i = 0; i < npos; i++)
		nrange += strstr(pos[i], "..") != NULL;
	if (prc == 0)
		why = series_why(h, pos, npos, nrange, &owned);
	if (prc == 0 && !why) {
		if (nrange)
			h->range = pos[0];
		else if (!h->releases) {
			h->names = bv_xcalloc(npos, sizeof(char *));
			for (size_t i = 0; i < npos && !why; i++) {
				if (bv_version_name_check(pos[i]))
					why = owned = bv_strdup(bv_error_last());
				h->names[h->nnames++] = pos[i];
			}
		}
	}
	free(pos);
	if (prc || why) {
		fprintf(stderr, "bench-versions history: %s (see bench-versions history --help)\n",
		        prc ? bv_error_last() : why);
		free(owned);
		return BV_EXIT_USAGE;
	}
	/* Four code layouts unless asked (as report and bisect): a series
	 * spans many builds, and where the linker put a loop moves unchanged
	 * code by more than most changes (docs/measurement.md, "Code
	 * placement"); with one layout this repository's releases showed
	 * four such steps as change points in code no release touched. */
	if (!h->cli.mo.layouts)
		h->cli.mo.layouts = 4;
	long ncells = 0;
	if (bv_run_cli_finish(&h->cli, &ncells)) {
		fprintf(stderr, "bench-versions history: %s\n", bv_error_last());
		return BV_EXIT_USAGE;
	}
	if (!h->every)
		h->every = 1;
	h->method = bv_hist_method_key(&h->cli.mo);
	bv_signals_install();
	return -1;
}

/* ---- the command ------------------------------------------------------------ */

int bv_cmd_history(int argc, char **argv)
{
	bv_hist h;
	memset(&h, 0, sizeof(h));
	h.lockfd = -1;
	int code = parse_options(argc, argv, &h);
	if (code >= 0) {
		free(h.names);
		return code;
	}
	if (h.import) {
		int irc = bv_hist_import(&h);
		if (irc)
			fprintf(stderr, "bench-versions history: %s\n", bv_error_last());
		free(h.names);
		bv_hist_free(&h);
		return irc ? bv_exit_code(irc) : 0;
	}
	int rc = bv_hist_resolve(&h);
	if (rc == 0)
		rc = bv_hist_open_results(&h);
	if (rc == 0)
		rc = bv_hist_build(&h);
	/* A project suite: the versions' builds describe its cells, merged
	 * over the series (a benchmark later commits add is n/a before them)
	 * and registered before any cell is planned, as run does (suite.h). */
	if (rc == 0)
		rc = bv_suite_describe(h.all, h.nall, h.dir, &h.cli.mo);
	if (rc == 0)
		rc = bv_plan_build(&h.cli.mo, NULL, 0, &h.plan);
	if (rc == 0)
		rc = bv_hist_plan_cells(&h);
	if (rc == 0)
		rc = bv_hist_open_store(&h);
	if (rc == 0)
		rc = bv_hist_measure(&h);
	if (rc == 0) {
		bv_hist_decide(&h);
		rc = bv_hist_keep_steps(&h);
	}
	if (rc == 0)
		rc = bv_hist_find_changes(&h);
	if (rc == 0)
		bv_hist_count_undecided(&h);
	if (rc == 0) {
		/* history.json is kept whatever the format: the results
		 * directory holds the whole history to read back later */
		cJSON *doc = bv_hist_json(&h);
		char *path = bv_asprintf("%s/history.json", h.dir);
		rc = bv_json_save(path, doc);
		free(path);
		cJSON_Delete(doc);
		if (rc == 0)
			rc = bv_hist_format_find(h.format)->write(&h, stdout);
		if (rc == 0)
			fprintf(stderr, "results: %s\n", h.dir);
	}
	if (rc && rc != BV_EINTR && bv_interrupted())
		rc = bv_fail_interrupted();
	if (rc) {
		fprintf(stderr, "bench-versions history: %s\n", bv_error_last());
		/* Nothing measured (a bad range, nothing built): no empty directory
		 * stays behind.  Measured windows stay, with their logs. */
		if (h.dir && !h.measured)
			bv_rm_rf(h.dir);
	}
	free(h.names);
	bv_hist_free(&h);
	return rc ? bv_exit_code(rc) : 0;
}
