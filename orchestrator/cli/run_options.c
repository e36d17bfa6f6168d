/*
 * run_options.c - the measuring options of run, report and bisect: their
 * defaults, written once, and their lines of the option table (options.h),
 * so a flag has one meaning, one range and one help text in every command
 * that takes it.
 *
 * The defaults that --quick changes are left 0 by init and filled by settle
 * once the command line is read, so `--quick` and an explicit value combine
 * in either order (`--min-processes 8 --quick` keeps 8).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "benches.h"
#include "build.h"
#include "common.h"
#include "options.h"
#include "plan.h"
#include "run_options.h"
#include "suite.h"
#include "verdict.h"

unsigned long long bv_memory_limit_default(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	double eighty = pages > 0 && page > 0 ? 0.8 * (double)pages * (double)page : 0;
	double floor8 = 8.0 * 1024 * 1024 * 1024;
	return (unsigned long long)(eighty > floor8 ? eighty : floor8);
}

void bv_measure_opts_init(bv_measure_opts *mo)
{
	memset(mo, 0, sizeof(*mo));
	mo->pin = -1;
	mo->threads = 1;
	mo->inputs = 1;
	mo->timeout_s = 60;
	mo->threshold = 0.01;
	mo->seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 16);
	mo->memory_limit = bv_memory_limit_default();
}

int bv_measure_opts_settle(bv_measure_opts *mo)
{
	if (!mo->min_processes)
		mo->min_processes = mo->quick ? 6 : 10;
	/* quick: up to 24, because a change among hundreds of cells needs about
	 * 16 processes of evidence to survive the run's false-discovery control
	 * (verdict.c); only cells that look changed sample that long. */
	if (!mo->max_processes)
		mo->max_processes = mo->quick ? 24 : 60;
	/* Fewer processes than a 95 % interval needs give a one-point "interval"
	 * and no verdict worth the name: refused, naming the minimum. */
	if (mo->max_processes < BV_INTERVAL_MIN_PROCESSES)
		return bv_fail(BV_EINPUT,
			       "%s %d: a 95%% interval for the median needs at least %d processes "
			       "(with %d, [min, max] covers %.1f%%)",
			       mo->min_processes == mo->max_processes ? "--processes" : "--max-processes",
			       mo->max_processes, BV_INTERVAL_MIN_PROCESSES, mo->max_processes,
			       100.0 * (1.0 - 2.0 * pow(0.5, mo->max_processes)));
	if (mo->max_processes < mo->min_processes)
		return bv_fail(BV_EINPUT, "--max-processes %d is below --min-processes %d", mo->max_processes,
			       mo->min_processes);
	if (!mo->budget_s)
		mo->budget_s = mo->quick ? 2 : 10;
	if (!mo->rounds)
		mo->rounds = mo->quick ? 9 : 21;
	if (!mo->sample_us)
		mo->sample_us = mo->quick ? 300 : 1000;
	if (!mo->layouts)
		mo->layouts = 1;
	return 0;
}

void bv_run_cli_init(bv_run_cli *c)
{
	memset(c, 0, sizeof(*c));
	bv_measure_opts_init(&c->mo);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	c->jobs = ncpu > 0 ? (int)ncpu : 1;
}

void bv_run_cli_table(bv_run_cli *c, bv_option *opts, const char *const *only)
{
	bv_measure_opts *mo = &c->mo;
	static const char *const simd_isas[] = {"avx512", "avx2", "generic", NULL};
	const bv_option all[] = {
	    BV_STRING("--benches", &mo->benches, "L",
		      "comma-separated groups (see: bench-versions list benches)"),
	    BV_STRING("--ops", &mo->ops, "L", "ops to run"),
	    BV_STRING("--backends", &mo->backends, "L", "backends to run (scalar, simd, cuda, ...)"),
	    BV_STRING("--sizes", &mo->sizes, "L", "sizes in elements: 1K,64K,1M,16M"),
	    BV_FLAG("--quick", &mo->quick, "fewer processes and rounds, same method: for smoke runs and CI"),
	    BV_INT("--min-processes", &mo->min_processes, "N", 1, 1000,
		   "processes per cell before it may stop (default 10, quick 6)"),
	    BV_INT("--max-processes", &mo->max_processes, "N", 1, 1000,
		   "processes per cell at most (default 60, quick 24; at least 6)"),
	    BV_INT("--processes", &c->processes, "N", 1, 1000,
		   "exactly N processes per cell (no adaptive stopping; at least 6, what a 95% interval needs)"),
	    BV_DURATION("--budget", &mo->budget_s, "S", 0.001, 86400,
			"measuring seconds per cell, all versions (default 10, quick 2)"),
	    BV_INT("--rounds", &mo->rounds, "N", 1, 100000,
		   "alternation rounds per process (default 21, quick 9)"),
	    BV_DOUBLE("--sample-us", &mo->sample_us, "N", 1, 1e7, "microseconds",
		      "target length of one sample in microseconds (default 1000, quick 300)"),
	    BV_DURATION("--timeout", &mo->timeout_s, "S", 0.001, 86400,
			"a cell whose check or timing takes longer is killed (default 60; "
			"seconds, or with ms, m, h: 90s, 2m)"),
	    BV_SIZE("--memory-limit", &mo->memory_limit, "SIZE", 0, 1e18,
		    "a cell's check or timing that allocates more than SIZE (bytes, or "
		    "with K, M, G, T) is stopped and the cell is 'out of memory'; default "
		    "80% of this machine's memory, at least 8G; 0: no limit"),
	    BV_FLAG("--isolated", &mo->isolated,
		    "one process per version (for versions that cannot share one)"),
	    BV_INT("--pin", &mo->pin, "CPU", 0, 1 << 30, "pin the measuring processes to one CPU"),
	    BV_FLAG("--recalibrate", &mo->recalibrate,
		    "measure this machine's bandwidth and FLOP peak again first (for --units rate|peak; "
		    "otherwise once, and again when the stored one is over 7 days old, was taken on a busy "
		    "machine that is quiet now, or is below what the run's own probes reach)"),
	    BV_INT("--threads", &mo->threads, "N", 1, 1024,
		   "threads a backend may use, e.g. OpenBLAS (default 1)"),
	    BV_INT("--inputs", &mo->inputs, "N", 1, 64,
		   "N input sets, the same values in N orders, each call taking the next (elementwise ops "
		   "and reductions): a data-dependent branch meets other data each call instead of one "
		   "buffer the predictor learns (default 1)"),
	    BV_ENUM("--simd-isa", &mo->simd_isa, "ISA", simd_isas,
		    "force every version's simd backend onto avx512, avx2 or generic "
		    "(e.g. the AVX2 path on an AVX-512 machine; default: each version's "
		    "own choice for this CPU)"),
	    BV_PERCENT("--threshold", &mo->threshold, "P", 0, 1000,
		       "smallest change called faster/slower, percent (default 1)"),
	    BV_U64("--seed", &mo->seed, "N", "seed for the random order of versions"),
	    BV_INT("--layouts", &mo->layouts, "N", 1, 8,
		   "link each version N ways with its code at different places "
		   "and take one at random per process (default 1; report 4): "
		   "a change that placement alone makes is then not a verdict"),
	    BV_STRING("--results", &c->results_root, "DIR",
		      "where logs go (default results/ of this checkout)"),
	    BV_STRING("--resume", &c->resume, "DIR",
		      "go on with the interrupted run whose logs are in DIR (same "
		      "versions and options): its finished cells are reused"),
	    BV_INT("--jobs", &c->jobs, "N", 1, 1024,
		   "versions fetched and built at once (default: the CPU count)"),
	    /* Process-wide, not in c: the build workers read it (build.h). */
	    BV_DURATION("--build-timeout", &bv_build_timeout_s, "S", 0, 7 * 86400,
			"a version whose build (patches, make or compat recipe, link) takes longer is stopped, "
			"its processes killed, and is a build failure (default 30m; seconds, or with m, h; "
			"0: no limit)"),
	    BV_END,
	};
	_Static_assert(sizeof(all) / sizeof(all[0]) <= BV_RUN_CLI_OPTIONS, "BV_RUN_CLI_OPTIONS is too small");
	size_t n = 0;
	for (const bv_option *o = all; o->kind != BV_OPT_END; o++) {
		const char *const *k = only;
		while (k && *k && strcmp(*k, o->name))
			k++;
		if (!only || *k)
			opts[n++] = *o;
	}
	opts[n] = (bv_option)BV_END;
}

int bv_run_cli_finish(bv_run_cli *c, long *ncells)
{
	bv_measure_opts *mo = &c->mo;
	if (c->processes)
		mo->min_processes = mo->max_processes = c->processes;
	int rc = bv_measure_opts_settle(mo);
	if (rc)
		return rc;
	if (mo->pin >= 0 && mo->pin >= sysconf(_SC_NPROCESSORS_CONF))
		return bv_fail(BV_EINPUT, "--pin %d: this machine has CPUs 0-%ld", mo->pin,
			       sysconf(_SC_NPROCESSORS_CONF) - 1);
	if (c->resume && c->results_root)
		return bv_fail(BV_EINPUT, "--resume DIR writes into DIR; --results does not apply");
	/* A project suite's cells are known once the versions are built: the
	 * selection is checked then (bv_suite_describe).  A shard's cut needs
	 * the whole plan before anything is built. */
	if (bv_suite_dir()) {
		*ncells = 0;
		return mo->shard_count > 0 ? bv_fail(BV_EINPUT, "--shard with a project suite (the project file's "
		                                                "\"suite\"): not supported yet")
		                           : 0;
	}
	return bv_selection_check(mo, ncells);
}

/* Finds o's line for "--name" in a table (through its inclusions). */
static const bv_option *find_option(const bv_option *opts, const char *name, size_t len)
{
	for (const bv_option *o = opts; o->kind != BV_OPT_END; o++) {
		if (o->kind == BV_OPT_INCLUDE) {
			const bv_option *f = find_option(o->dest, name, len);
			if (f)
				return f;
		} else if (o->name && strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	}
	return NULL;
}

static int is_name(const char *a, size_t len, const char *name)
{
	return strlen(name) == len && !strncmp(a, name, len);
}

void bv_run_cli_given(bv_run_cli *c, const bv_option *opts, const char *subcommand, int argc, char **argv)
{
	bv_run_cli scratch;
	bv_option pipeline[BV_RUN_CLI_OPTIONS];
	bv_run_cli_init(&scratch);
	bv_run_cli_table(&scratch, pipeline, NULL);
	bv_strv given = BV_STRV_INIT;
	/* The resume command: the program as it was invoked (the
	 * bench-versions on PATH may be another build, or none), the same
	 * subcommand and arguments, without --results and --resume. */
	bv_buf again = BV_BUF_INIT;
	bv_shell_word(&again, bv_program());
	bv_buf_printf(&again, " %s", subcommand);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--resume") || !strcmp(argv[i], "--results")) {
			i++;
			continue;
		}
		if (!strncmp(argv[i], "--resume=", 9) || !strncmp(argv[i], "--results=", 10))
			continue;
		bv_buf_puts(&again, " ");
		bv_shell_word(&again, argv[i]);
	}
	/* The measuring options as given, for a shard's command line. */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--"))
			break;
		if (strncmp(a, "--", 2) != 0)
			continue; /* a version */
		const char *eq = strchr(a, '=');
		size_t len = eq ? (size_t)(eq - a) : strlen(a);
		const bv_option *o = find_option(opts, a, len);
		int takes_value = o && o->kind != BV_OPT_FLAG;
		int keep = (find_option(pipeline, a, len) || is_name(a, len, "--filter")) &&
		           !is_name(a, len, "--results") && !is_name(a, len, "--resume") &&
		           !is_name(a, len, "--seed");
		if (keep)
			bv_strv_push(&given, a);
		if (takes_value && !eq && i + 1 < argc) {
			i++;
			if (keep)
				bv_strv_push(&given, argv[i]);
		}
	}
	bv_run_cli_free(c);
	c->again = bv_buf_detach(&again);
	c->given = given.v, c->ngiven = given.n;
}

void bv_run_cli_free(bv_run_cli *c)
{
	free(c->again);
	for (size_t i = 0; i < c->ngiven; i++)
		free(c->given[i]);
	free(c->given);
	c->again = NULL, c->given = NULL, c->ngiven = 0;
}
