/*
 * cmd_bisect.c - bench-versions bisect --good REV --bad REV --bench B --op O
 * --backend BE --size S: the first commit where one cell moved from the good
 * level to the bad level.
 *
 * The graph is git bisect's (bisect.c): the candidates are the commits that
 * bad reaches and good does not, and each step tests the one that best
 * halves them.  A step builds its commit through the usual stages and
 * measures good, the commit and bad together in one bv_measure call over the
 * one cell, so the paired method compares the three in the same processes.
 * The commit's ratio to good is then set against the geometric midpoint of
 * the two levels, sqrt(bad / good): a commit is bad only when its whole
 * interval lies past the midpoint, good when wholly before it, and anything
 * else is measured again with more processes, then skipped.  One noisy
 * number never decides a step: a wrong step sends the search down the wrong
 * half and the answer is wrong with no sign of it.
 *
 * Every measurement is kept in a state file in the cache
 * (<cache>/bisect/<key>/state.json, written atomically after each one), keyed
 * by the two ends, the cell and the measuring options.  A second bisect of the
 * same range measures nothing twice, and an interrupted one goes on where it
 * stopped.  --first-parent is not part of the key: it changes which commits
 * are visited, not what a commit measures.
 *
 * This file is the command: its options, their checks, the one cell, and
 * the phases in order (the ends, the state, good against bad, the walk, the
 * first bad commit's parent, the answer) with the exit codes.  A step (the
 * build, the measurement, the verdict, the state file) is bisect_step.c's;
 * the ends, the walks and the Slurm rounds are bisect_search.c's; the
 * answer's formats are the bisect_answer family's (bisect_answer.h).  The
 * rules that decide on the numbers (has bad moved, which side of the
 * midpoint, the retries, when the walk ends) are pure functions in bisect.c,
 * unit-tested on their own (tests/unit/test_bisect.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benches.h"
#include "bisect.h"
#include "bisect_answer.h"
#include "bisect_search.h"
#include "bisect_step.h"
#include "cli.h"
#include "common.h"
#include "plan.h"
#include "proc.h"
#include "slurm.h"
#include "options.h"
#include "run_options.h"
#include "pipeline.h"
#include "suite.h"
#include "suite_file.h"

static void usage(FILE *out, const bv_option *opts)
{
	fprintf(out,
		"usage: bench-versions bisect --good REV --bad REV --bench B --op O --backend BE --size S\n"
		"                             [--first-parent] [--improvement] [--format text|json]\n"
		"                             [--quick] [--max-steps N] [--parallel K [--slurm]] [options]\n\n"
		"Finds the first commit between good and bad where one cell moved from good's\n"
		"level to bad's (a slowdown; with --improvement a speed-up).  Each step builds\n"
		"a commit and measures it together with good and bad; a commit is bad when\n"
		"its 95%% interval lies wholly past the midpoint of the two levels, good when\n"
		"wholly before it, else it is measured again with more processes and then\n"
		"skipped.  Commits that do not build or whose cell fails are skipped too.\n"
		"Measurements are kept in the cache: a second bisect of the same range\n"
		"measures nothing twice, and an interrupted one continues.  --parallel K tests\n"
		"K evenly spaced commits a round (with --slurm as one Slurm job array, one\n"
		"node each): fewer rounds for the same answer (docs/cli/bisect.md).\n\n"
		"options (--opt VALUE or --opt=VALUE):\n");
	bv_options_help(opts, out);
	fprintf(out, "\nenvironment: KERNEL_DIR, KERNEL_REPO, BENCH_VERSIONS_CACHE, BENCH_VERSIONS_COMPAT, CC\n"
		     "exit codes: 0 done (a commit or, with skips or --max-steps, a range), 2 usage or\n"
		     "input error (unknown cell or revision, good not an ancestor of bad, no change\n"
		     "between good and bad), 3 a build of an end or a measurement failed\n");
}

/* ---- the command ------------------------------------------------------ */

static const char *const by_values[] = {"time", "counts", NULL};
static const char *const slurm_cache_values[] = {"shared", "node", NULL};

/* What bisect takes of the measuring options (run_options.c), as run takes
 * them; --quick, --threshold and --layouts are bisect's own lines below,
 * with its own help and defaults. */
static const char *const measuring[] = {"--min-processes", "--max-processes", "--budget", "--seed",
					"--memory-limit", "--simd-isa", "--build-timeout", NULL};

/* The six options that name the cell and its ends, those missing said by
 * name: six options are too many to find the one left out by eye.
 * Returns -1 when none is missing, else the exit status. */
static int missing_options(const bv_bisect_args *a, const bv_option *opts)
{
	const struct {
		const char *name, *value;
	} needed[] = {{"--good", a->good_name}, {"--bad", a->bad_name},	 {"--bench", a->bench},
		      {"--op", a->op},	      {"--backend", a->backend}, {"--size", a->size}};
	bv_buf missing = BV_BUF_INIT;
	size_t nmissing = 0;
	for (size_t k = 0; k < sizeof(needed) / sizeof(needed[0]); k++)
		if (!needed[k].value)
			bv_buf_printf(&missing, "%s%s", nmissing++ ? ", " : "", needed[k].name);
	if (nmissing) {
		fprintf(stderr,
			"bench-versions bisect: %s %s missing (--good, --bad, --bench, --op, --backend and --size are "
			"all needed)\n",
			missing.s, nmissing == 1 ? "is" : "are");
		bv_buf_free(&missing);
		usage(stderr, opts);
		return BV_EXIT_USAGE;
	}
	return -1;
}

/* --slurm's options only with it; --slurm only with --parallel (the
 * sequential walk has one commit a round: nothing to spread); the job
 * script's three options together.  The message (to free), or NULL. */
static char *slurm_why(const bv_bisect_args *a)
{
	const char *alone = a->partition ? "--partition" : a->time_min ? "--time" : a->slurm_cache ? "--slurm-cache" : NULL;
	char *why = NULL;
	if (alone && !a->slurm)
		why = bv_asprintf("%s is an option of --slurm, which is not given", alone);
	else if (a->slurm && !a->parallel)
		why = bv_strdup("--slurm needs --parallel K: K commits a round, one Slurm task each");
	else if ((a->task != 0) != (a->task_out != NULL) || (a->task != 0) != (a->task_commits != NULL))
		why = bv_strdup("--slurm-task, --slurm-task-out and --slurm-commits go together (the job "
				"script's options)");
	return why;
}

/* Valgrind 3.19 presents an AVX2 CPU: on an AVX-512 machine the simd
 * and blas paths it counts are not the ones this machine times, which
 * --by counts says before it starts (called with --by counts only). */
static void counts_isa_warning(const bv_bisect_args *a, const bv_measure_opts *mo)
{
	if ((!strcmp(a->backend, "blas") || (!strcmp(a->backend, "simd") &&
	    !(mo->simd_isa && strcmp(mo->simd_isa, "avx512")))) && __builtin_cpu_supports("avx512f"))
		fprintf(stderr, "bisect: --by counts counts the %s backend's AVX2 path (the CPU Valgrind presents); "
				"this machine times AVX-512: a change in the AVX-512 path alone is not seen\n",
			a->backend);
}

/* The command line for a round's Slurm tasks: bisect's own, less the
 * options only the submitting side reads (--slurm and its options,
 * --parallel, --format, --max-steps); each round adds its commits
 * (bisect_search.c).  A list of words handed to sbatch as argv, never a
 * shell string. */
static void task_args(int argc, char **argv, bv_strv *out)
{
	static const char *const drop_value[] = {"--parallel", "--partition", "--time", "--slurm-cache",
						 "--format", "--max-steps", "--slurm-task", "--slurm-task-out",
						 "--slurm-commits", NULL};
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "--")) /* bisect takes no positionals: nothing follows */
			break;
		if (!strcmp(o, "--slurm"))
			continue;
		int dropped = 0;
		for (size_t k = 0; drop_value[k] && !dropped; k++) {
			size_t n = strlen(drop_value[k]);
			if (!strncmp(o, drop_value[k], n) && (o[n] == '=' || o[n] == '\0')) {
				dropped = 1;
				if (o[n] == '\0')
					i++; /* its value */
			}
		}
		if (!dropped)
			bv_strv_push(out, o);
	}
}

/* The command line, checked, with bisect's own measuring defaults settled
 * into x->mo: every usage error is found here, before a repository is
 * opened.  Returns -1 to go on, else the exit status (0 after --help). */
static int parse_options(int argc, char **argv, bv_bisect_args *a, bv_bisect_ctx *x)
{
	a->format = "text";
	bv_run_cli cli;
	bv_run_cli_init(&cli);
	bv_option shared[BV_RUN_CLI_OPTIONS];
	bv_run_cli_table(&cli, shared, measuring);
	const bv_option opts[] = {
	    BV_STRING("--good", &a->good_name, "REV", "a commit at the old level (any git revision)"),
	    BV_STRING("--bad", &a->bad_name, "REV",
		      "a later commit at the new level; good must be its ancestor"),
	    BV_STRING("--bench", &a->bench, "B", "the one cell's group (see: bench-versions list benches)"),
	    BV_STRING("--op", &a->op, "O", "its op"),
	    BV_STRING("--backend", &a->backend, "BE", "its backend"),
	    BV_STRING("--size", &a->size, "S", "its size (64K, 1M, 1024x4096); one cell, no lists"),
	    BV_FLAG("--first-parent", &a->first_parent, "follow first parents only (a merge is one step)"),
	    BV_FLAG("--improvement", &a->improvement, "look for the first commit that got faster"),
	    BV_ENUM("--format", &a->format, "F", bv_bisect_answer_formats(), "text (default) or json"),
	    BV_ENUM("--by", &a->by, "WHAT", by_values,
		    "time (default: paired timings) or counts: each step is Valgrind's count of the\n"
		    "cell's instructions per call (one process per version, the same on every run and\n"
		    "under any load; finds code changes, not placement; see docs/cli/bisect.md)"),
	    BV_DURATION("--count-timeout", &x->count_timeout, "S", 1, 86400,
			"--by counts: one call under Valgrind may take this long (default 120 s)"),
	    BV_FLAG("--quick", &cli.mo.quick, "fewer processes per measurement (6-12 instead of 10-60)"),
	    BV_INT("--max-steps", &a->max_steps, "N", 1, 10000,
		   "stop after N steps and name the commits still in the range"),
	    BV_PERCENT("--threshold", &cli.mo.threshold, "P", 0, 1000,
		       "the smallest change good..bad must show, percent (default 1)"),
	    BV_INT("--layouts", &cli.mo.layouts, "N", 1, 8,
		   "code layouts per version, one at random per process (default 4; "
		   "see bench-versions run --help)"),
	    BV_INT("--parallel", &a->parallel, "K", 1, 64,
		   "test K commits a round, evenly spaced in the range (K-ary search: fewer\n"
		   "rounds); without --slurm one after another here"),
	    BV_FLAG("--slurm", &a->slurm, "with --parallel K: a round's K commits as one Slurm job array"),
	    BV_STRING("--partition", &a->partition, "P", "--slurm: the partition (default: the cluster's)"),
	    BV_INT("--time", &a->time_min, "MIN", 1, 525600, "--slurm: each task's time limit, minutes"),
	    BV_ENUM("--slurm-cache", &a->slurm_cache, "shared|node", slurm_cache_values,
		    "--slurm: build here into a cache the nodes share (shared, the default) or on\n"
		    "each node into its own cache (node)"),
	    BV_INT("--slurm-task", &a->task, "I", 1, 64, NULL),
	    BV_STRING("--slurm-task-out", &a->task_out, "DIR", NULL),
	    BV_STRING("--slurm-commits", &a->task_commits, "LIST", NULL),
	    BV_INCLUDE(shared, "--min-processes N, --max-processes N, --budget S, --seed N,\n"
			       "--memory-limit SIZE, --simd-isa ISA and --build-timeout S as for run\n"
			       "(see bench-versions run --help)"),
	    BV_END,
	};
	char **pos = bv_xcalloc((size_t)argc + 1, sizeof(char *));
	size_t npos = 0;
	int prc = bv_options_parse(opts, argc, argv, pos, &npos);
	if (prc == 0 && npos)
		prc = bv_fail(BV_EINPUT, "unexpected argument '%s': bisect takes options only", pos[0]);
	free(pos);
	if (prc == 1) {
		usage(stdout, opts);
		return 0;
	}
	if (prc) {
		fprintf(stderr, "bench-versions bisect: %s (see bench-versions bisect --help)\n", bv_error_last());
		return BV_EXIT_USAGE;
	}
	int mrc = missing_options(a, opts);
	if (mrc >= 0)
		return mrc;
	char *why = slurm_why(a);
	if (why) {
		fprintf(stderr, "bench-versions bisect: %s (see bench-versions bisect --help)\n", why);
		free(why);
		return BV_EXIT_USAGE;
	}
	if (!a->slurm_cache)
		a->slurm_cache = "shared";
	x->by_counts = a->by && !strcmp(a->by, "counts");
	if (x->count_timeout <= 0)
		x->count_timeout = 120;
	if (x->by_counts)
		counts_isa_warning(a, &cli.mo);
	if (a->slurm)
		task_args(argc, argv, &a->task_cmd);
	/* bisect's own defaults: at most 12 processes with --quick (a step is
	 * one cell, measured again when inconclusive), and four layouts, so a
	 * step's verdict is not where the linker put a loop. */
	if (cli.mo.quick && !cli.mo.max_processes)
		cli.mo.max_processes = 12;
	if (!cli.mo.layouts)
		cli.mo.layouts = 4;
	if (bv_measure_opts_settle(&cli.mo)) {
		fprintf(stderr, "bench-versions bisect: %s\n", bv_error_last());
		return BV_EXIT_USAGE;
	}
	x->mo = cli.mo;
	/* Ctrl-C and SIGTERM reach the builds and measuring processes and stop
	 * the bisect between steps; what was measured is in the state file, so
	 * the same command goes on from there. */
	bv_signals_install();
	return -1;
}

/* Exactly one cell: a list would bisect several questions at once.  Also
 * the thread count the measured libraries see.  Returns -1 to go on, else
 * the exit status. */
static int settle_cell(const bv_bisect_args *a, bv_bisect_ctx *x)
{
	bv_cell *cells = NULL;
	char err[256];
	/* A suite build holds the suite's cells only (suite.h). */
	const char *suite = bv_suite_file_suite();
	if (suite && strcmp(a->bench, suite)) {
		fprintf(stderr,
			"bench-versions bisect: --bench %s: this project's builds hold its suite '%s' only (the project "
			"file's \"suite\"): --bench %s, its benchmark with --op\n",
			a->bench, suite, suite);
		return BV_EXIT_USAGE;
	}
	bv_selection sel = {a->bench, a->op, a->backend, a->size};
	int list = strpbrk(sel.benches, ",") || strpbrk(sel.ops, ",") || strpbrk(sel.backends, ",") ||
		   strpbrk(sel.sizes, ",");
	long ncells = list ? -2 : bv_cells_select(&sel, &cells, err, sizeof(err));
	if (ncells != 1) {
		char hint[1024] = "";
		if (ncells == 0)
			bv_sizes_hint(&sel, hint, sizeof(hint));
		if (*hint) /* the size does not fit the op: the sizes that do */
			fprintf(stderr,
				"bench-versions bisect: --size '%s' does not fit %s/%s; its sizes: %s (others of the same "
				"dimensions work too; see: bench-versions list benches)\n",
				a->size, a->bench, a->op, hint);
		else
			fprintf(stderr, "bench-versions bisect: %s\n",
				ncells == -1 ? err
				: ncells == 0
				    ? "that bench, op, backend and size name no cell (see: bench-versions list benches)"
				    : "name exactly one cell: one bench, op, backend and size");
		free(cells);
		return BV_EXIT_USAGE;
	}
	x->bench = a->bench, x->op = a->op, x->backend = a->backend, x->size = cells[0].size;
	x->improvement = a->improvement;
	bv_size_format(x->size, x->shape, sizeof(x->shape));
	free(cells);
	char threads[16];
	snprintf(threads, sizeof(threads), "%d", x->mo.threads);
	setenv("OPENBLAS_NUM_THREADS", threads, 1);
	setenv("OMP_NUM_THREADS", threads, 1);
	return -1;
}

/* The answer, in the format asked (stdout; the progress went to stderr). */
static void print_answer(const bv_bisect_ctx *x, const bv_bisect_args *a, const bv_bisect_walk *w)
{
	bv_bisect_answer ans = {.status = w->status,
	                        .good = w->good_hex,
	                        .bad = w->bad_hex,
	                        .first = w->first_hex,
	                        .first_step = w->first,
	                        .parent = w->parent_hex,
	                        .check = &w->check,
	                        .vs_parent = &w->vs_parent,
	                        .steps = w->steps,
	                        .nsteps = w->nsteps,
	                        .range = w->range,
	                        .nrange = w->nrange,
	                        .first_parent = a->first_parent,
	                        .elapsed = difftime(time(NULL), w->t0)};
	bv_bisect_answerer_find(a->format)->write(x, &ans, stdout);
}

/* The phases in order; each runs only when the one before succeeded. */
int bv_cmd_bisect(int argc, char **argv)
{
	bv_bisect_ctx x = {0};
	bv_bisect_args a = {0};
	bv_bisect_walk w = {0};
	int code = parse_options(argc, argv, &a, &x);
	/* A project suite's cells are known once the ends are built (below);
	 * what bisect cannot do with one yet is refused before anything is. */
	int suite = code < 0 && bv_suite_dir();
	if (suite && (x.by_counts || a.slurm)) {
		fprintf(stderr, "bench-versions bisect: %s with a project suite (the project file's \"suite\"): not "
				"supported yet%s\n",
			x.by_counts ? "--by counts" : "--slurm",
			x.by_counts ? " (counting suite cells under Valgrind is not; bisect by time)" : "");
		code = BV_EXIT_USAGE;
	}
	if (code < 0 && !suite)
		code = settle_cell(&a, &x);
	if (code < 0) {
		w.t0 = time(NULL);
		/* No Slurm commands, or a partition or time limit sbatch refuses:
		 * said before the ends are built. */
		int rc = 0;
		if (a.slurm) {
			bv_slurm_opts so;
			bv_slurm_init(&so);
			so.enabled = 1, so.partition = a.partition, so.time_min = a.time_min, so.cache = a.slurm_cache;
			rc = bv_slurm_preflight(&so, x.mo.threads, a.parallel);
		}
		if (rc == 0)
			rc = bv_bisect_open_ends(&x, &a, &w);
		int said = -1; /* settle_cell's exit status, once it said why */
		if (rc == 0 && suite) {
			rc = bv_bisect_suite_ends(&x, &w);
			if (rc == 0 && (said = settle_cell(&a, &x)) >= 0)
				rc = BV_EINPUT; /* not said again below */
		}
		if (rc == 0)
			rc = bv_bisect_open_state(&x, w.good_hex, w.bad_hex);
		if (rc == 0 && a.task) { /* a Slurm task of a round: its one commit */
			rc = bv_bisect_slurm_task(&x, &a, &w);
		} else {
			if (rc == 0)
				rc = bv_bisect_confirm_ends(&x, &a, &w);
			if (rc == 0)
				rc = a.parallel ? bv_bisect_kary(&x, &a, &w) : bv_bisect_sequential(&x, &a, &w);
			if (rc == 0 && w.status == BV_BISECT_FOUND)
				rc = bv_bisect_measure_parent(&x, &w);
			if (rc == 0)
				print_answer(&x, &a, &w);
		}
		if (rc && said < 0)
			fprintf(stderr, "bench-versions bisect: %s\n", bv_error_last());
		code = said >= 0 ? said : rc ? bv_exit_code(rc) : 0;
	}
	bv_strv_free(&a.task_cmd);
	bv_bisect_walk_free(&w);
	bv_bisect_ctx_free(&x);
	return code;
}

