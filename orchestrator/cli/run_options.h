/*
 * run_options.h - the measuring options, once for run, report and bisect
 * (run_options.c): the defaults of bv_measure_opts and the pipeline's command
 * line (bv_run_cli).
 */
#ifndef BV_RUN_OPTIONS_H
#define BV_RUN_OPTIONS_H

#include "plan.h"

/* The measuring defaults, written once for run, report and bisect
 * (run_options.c).  init: every field at its default, except those that
 * --quick changes, which stay 0 (not given); settle: those, for the fields
 * still 0: processes 10-60 (quick 6-24), budget 10 s (2), rounds 21 (9),
 * samples of 1000 us (300), 1 layout.  BV_EINPUT when --max-processes is
 * below --min-processes. */
void bv_measure_opts_init(bv_measure_opts *mo);
int bv_measure_opts_settle(bv_measure_opts *mo);
/* The default of --memory-limit: 80 % of this machine's memory, at least
 * 8 GiB (a cell of the matrix needs well under 1 GiB; docs/measurement.md). */
unsigned long long bv_memory_limit_default(void);

/* The options of the measuring stages, parsed once for every driver of the
 * pipeline (run, report; bisect takes some), so a flag means the same in
 * each (run_options.c). */
typedef struct bv_run_cli {
	bv_measure_opts mo;
	int processes; /* --processes N: min and max; 0: not given */
	int jobs;
	const char *results_root; /* NULL: bv_results_default() (locate.h) */
	const char *resume;       /* --resume DIR: go on with that interrupted run */
	int dry_run;              /* --dry-run: resolve and say the plan; build and measure nothing */
	const char *dry_format;   /* --dry-run's output: "json", else text */
	int not_latest;           /* leave <results>/latest alone (a report's re-measurement is not a run of its own) */
	/* The command line as the user gave it, taken once by the command
	 * (bv_run_cli_given), so that no stage below the commands reads argv:
	 * again, the command that resumes a run without its --results and
	 * --resume ("PROGRAM SUBCOMMAND ARGS...", shell-quoted; NULL: no resume
	 * hint), and given, the measuring options as given (the lines of
	 * bv_run_cli_table, and --filter; not --results, --resume or --seed),
	 * which a Slurm shard's command line repeats. */
	char *again;
	char **given;
	size_t ngiven;
} bv_run_cli;

struct bv_option;
/* Lines in the table bv_run_cli_table fills, its end included. */
#define BV_RUN_CLI_OPTIONS 27

void bv_run_cli_init(bv_run_cli *c);
/* Fills c->again and c->given from the command's argv (its table opts,
 * which names the options that take a value). */
void bv_run_cli_given(bv_run_cli *c, const struct bv_option *opts, const char *subcommand, int argc, char **argv);
void bv_run_cli_free(bv_run_cli *c);
/* The pipeline's options as an options.h table pointing into c, in opts
 * (room for BV_RUN_CLI_OPTIONS); only: the names to take (NULL-terminated;
 * NULL: all of them). */
void bv_run_cli_table(bv_run_cli *c, struct bv_option *opts, const char *const *only);
/* Applies the defaults that depend on --quick and checks the options against
 * each other, the machine and the matrix; *ncells gets the cells selected.
 * BV_EINPUT. */
int bv_run_cli_finish(bv_run_cli *c, long *ncells);

#endif
