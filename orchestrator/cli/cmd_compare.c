/*
 * cmd_compare.c - bench-versions compare LOG... [options]: merges results
 * logs that already exist (from one run, several runs or several machines)
 * into one table, without building or measuring anything.  The first log is
 * the baseline; merge.c decides which ratios are paired, unpaired or not
 * formed at all, and says why in note lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "baseline.h"
#include "cli.h"
#include "common.h"
#include "export.h"
#include "fs.h"
#include "locate.h"
#include "merge.h"
#include "options.h"
#include "proc.h"
#include "results.h"
#include "shard.h"
#include "table.h"

static void usage(FILE *out, const bv_option *opts)
{
	fprintf(out, "usage: bench-versions compare LOG|RUN_DIR... [options]\n"
		     "       bench-versions compare --baseline NAME [LOG|RUN_DIR...] [options]\n\n"
		     "Merges results logs (results/<run>/<label>.json) into one comparison table;\n"
		     "the first LOG is the baseline; a run's directory stands for its logs, its\n"
		     "baseline first.  Logs from the same run keep their paired ratios; logs from\n"
		     "different runs get the ratio of medians, marked unpaired and never called\n"
		     "slower or faster (inconclusive: one run per version cannot measure the\n"
		     "variation between runs);\n"
		     "logs from another machine of the same class get no ratio unless\n"
		     "--across-machines.  Logs of different machine classes (cpu model, ISA level,\n"
		     "gpu) are never pooled: each class is merged on its own and the classes are\n"
		     "shown side by side, one column group per class, labelled LABEL@CLASS\n"
		     "(docs/results-format.md, \"Machine classes\").\n"
		     "latest stands for results/latest, the newest run.  --baseline NAME puts the logs\n"
		     "saved by run --save-baseline NAME first (default: compared with latest); they\n"
		     "are from another run, so their ratios are unpaired and inconclusive.\n\n"
		     "options (--opt VALUE or --opt=VALUE):\n");
	bv_options_help(opts, out);
	fprintf(out, "\nexit codes: 0 success, 1 a change is slower and --fail-on-slower was given, or a\n"
		     "wrong result and --fail-on-wrong or --fail-on-slower was given, 2 usage or input error\n"
		     "(unreadable log, bad regex), 3 output could not be written\n");
}

static const char *const units_values[] = {"time", "rate", "peak", "memory", NULL};

/* Everything compare's command line sets, and the table that sets it. */
typedef struct compare_cmd {
	const char *format, *filter, *units, *baseline, *root_opt, *join_to;
	bv_merge_opts mo;
	int gate, gate_wrong;
	bv_view_opts view;
	bv_option view_opts[BV_VIEW_OPTIONS];
	bv_option opts[12];
} compare_cmd;

/* What the arguments stand for once resolved: the logs to merge (a run's
 * directory stands for its logs), or the shard directories to join. */
typedef struct compare_inputs {
	char *root;  /* where baselines and latest are, when a name needed it */
	char *based; /* the saved baseline's directory (--baseline) */
	char **paths, **shards;
	size_t npaths, nshards, nplain;
} compare_inputs;

/* compare's option table, and its defaults. */
static void compare_table(compare_cmd *k)
{
	k->format = "table", k->units = "time";
	k->filter = k->baseline = k->root_opt = k->join_to = NULL;
	k->mo = (bv_merge_opts){-1, 0};
	k->gate = k->gate_wrong = 0;
	bv_view_init(&k->view);
	bv_view_table(&k->view, k->view_opts);
	static char format_help[160];
	snprintf(format_help, sizeof(format_help), "output format: %s (default table)", bv_exporter_names());
	const bv_option opts[] = {
	    BV_ENUM("--format", &k->format, "F", bv_exporter_list(), format_help),
	    BV_PERCENT("--threshold", &k->mo.threshold, "P", 0, 1000,
		       "smallest change called faster/slower, percent "
		       "(default: the baseline log's threshold)"),
	    BV_STRING("--filter", &k->filter, "REGEX",
		      "keep rows whose bench/op/backend/size matches (POSIX "
		      "extended regex; size as 64K), e.g. 'unary/(exp|relu)/scalar'"),
	    BV_FLAG("--across-machines", &k->mo.across_machines,
		    "form (unpaired) ratios between logs from different machines"),
	    BV_FLAG("--fail-on-slower", &k->gate, "exit 1 when any change's verdict is slower (a CI gate; inconclusive is not, nor a slower whose counts are the same on both sides: placement, not the code), or when a version gives a wrong result (as --fail-on-wrong)"),
	    BV_FLAG("--fail-on-wrong", &k->gate_wrong, "exit 1 when a version other than the baseline gives a wrong result (its output failed the check; each is a note under the table)"),
	    BV_ENUM("--units", &k->units, "U", units_values, "results as time, rate, peak or memory (the library's workspace per call; default time)"),
	    BV_STRING("--baseline", &k->baseline, "NAME",
		      "compare against the logs saved by run --save-baseline NAME (first column; "
		      "unpaired: another run)"),
	    BV_STRING("--results", &k->root_opt, "DIR",
		      "where baselines and latest are (default results/ of this checkout, as for run)"),
	    BV_STRING("--join-to", &k->join_to, "DIR",
		      "with shard directories (run --shard I/N): also write the joined run's logs into DIR, a "
		      "run directory that compare, report --from and share read like any other"),
	    BV_INCLUDE(k->view_opts, NULL),
	    BV_END,
	};
	_Static_assert(sizeof(opts) == sizeof(k->opts), "compare_cmd.opts holds compare's table");
	memcpy(k->opts, opts, sizeof(opts));
}

/* One argument, resolved (arg, owned): a shard directory goes to the
 * shards, anything else to the logs.  Shards of one plan are joined into
 * the run they make up (shard.c); any other log with them would be
 * compared against half a run. */
static int add_input(compare_inputs *in, char *arg)
{
	int rc = 0;
	char **found = NULL;
	size_t nfound = 0;
	int shard = bv_path_is_shard(arg);
	if (shard && !bv_is_dir(arg))
		rc = bv_fail(BV_EINPUT, "%s is one log of a shard: give each shard's directory (compare "
					"joins the N shards of a plan into one run)",
			     arg);
	else if ((shard ? in->nplain : in->nshards) > 0)
		rc = bv_fail(BV_EINPUT, "%s %s: compare joins shard directories only with each other (all "
					"N of one plan); write the joined run first (--join-to DIR) "
					"and compare that directory with the others",
			     arg, shard ? "is a shard, the logs before it are not" : "is not a shard, the directories before it are");
	if (rc == 0 && shard) {
		in->shards = bv_xrealloc(in->shards, (in->nshards + 1) * sizeof(char *));
		in->shards[in->nshards++] = arg;
		return 0;
	}
	in->nplain++;
	if (rc)
		; /* said by the caller */
	else if (bv_is_dir(arg))
		rc = bv_run_dir_logs(arg, &found, &nfound, NULL);
	else
		found = bv_xcalloc(1, sizeof(char *)), found[0] = bv_strdup(arg), nfound = 1;
	free(arg);
	in->paths = bv_xrealloc(in->paths, (in->npaths + nfound + 1) * sizeof(char *));
	for (size_t j = 0; j < nfound; j++)
		in->paths[in->npaths++] = found[j];
	free(found);
	return rc;
}

/* The arguments (logs, nlogs; room for one more) resolved into in: the
 * saved baseline first, then each name (latest, a run's directory, a log,
 * a shard directory).  Where baselines and latest are: --results, else
 * run's default, only asked when a name needs it (latest:
 * bv_results_resolve), so plain paths work without a library. */
static int collect_inputs(const compare_cmd *k, char **logs, size_t nlogs, compare_inputs *in)
{
	int rc = 0;
	const char *baseline = k->baseline;
	/* A bad name is a usage error whether or not a library is found. */
	if (baseline)
		rc = bv_baseline_name_check(baseline);
	if (rc == 0 && baseline)
		rc = k->root_opt ? (in->root = bv_strdup(k->root_opt), 0) : bv_results_default(&in->root);
	if (rc == 0 && baseline)
		rc = bv_baseline_find(in->root, baseline, &in->based);
	/* --baseline alone compares the newest run with it. */
	if (rc == 0 && baseline && nlogs == 0)
		logs[nlogs++] = "latest";
	for (size_t i = 0; i < nlogs + (in->based != NULL) && rc == 0; i++) {
		/* the saved baseline first: it is the first column; latest in the
		 * results directory already found for it, if any */
		char *arg = NULL;
		if (in->based && i == 0)
			arg = bv_strdup(in->based);
		else
			rc = bv_results_resolve(in->root ? in->root : k->root_opt, logs[i - (in->based != NULL)], &arg);
		if (rc == 0)
			rc = add_input(in, arg);
	}
	return rc;
}

/* The one table of the inputs: the shards joined (and, with --join-to,
 * written as a run's directory and read back as any run's is: the table
 * is the one compare DIR prints), or the logs merged class by class. */
static int merge_inputs(const compare_cmd *k, const compare_inputs *in, bv_table *table)
{
	if (k->join_to && !in->nshards)
		return bv_fail(BV_EINPUT, "--join-to %s: no shard directory given (it writes the join of run "
					  "--shard I/N's directories)",
			       k->join_to);
	if (!k->join_to)
		return in->nshards ? bv_merge_shards(in->shards, in->nshards, &k->mo, table)
				   : bv_merge_classes(in->paths, in->npaths, &k->mo, table);
	char **joined = NULL;
	size_t nj = 0;
	int rc = bv_shards_write(in->shards, in->nshards, k->join_to, &joined, &nj);
	if (rc == 0) {
		fprintf(stderr, "compare: joined run written to %s\n", k->join_to);
		rc = bv_merge(joined, nj, &k->mo, table);
	}
	for (size_t i = 0; i < nj; i++)
		free(joined[i]);
	free(joined);
	return rc;
}

/* Counts belong to one run's directory: the directory every log is in,
 * or NULL when they are from several (or from shards). */
static char *logs_dir(const compare_cmd *k, const compare_inputs *in)
{
	char *dir = NULL;
	for (size_t i = 0; i < in->npaths && !in->nshards && !k->join_to; i++) {
		const char *sl = strrchr(in->paths[i], '/');
		char *d = sl ? bv_asprintf("%.*s", (int)(sl - in->paths[i]), in->paths[i]) : bv_strdup(".");
		if (i == 0)
			dir = d;
		else {
			if (dir && strcmp(dir, d))
				free(dir), dir = NULL, i = in->npaths;
			free(d);
		}
	}
	return dir;
}

/* The table on stdout (with its counts and view), then the gates: 0, 1
 * when a gate fails (said here), or an error. */
static int compare_output(compare_cmd *k, const compare_inputs *in, bv_table *table)
{
	table->units = k->units;
	char *dir = logs_dir(k, in);
	int rc = dir ? bv_view_counts(&k->view, table, dir, 0) : 0;
	/* --vs variant=B: a suite's variant parameter is the
	 * backend's place; the run's suite.json says its name. */
	bv_vs_settle_variant_dir(&k->view.axis, dir);
	free(dir);
	if (rc == 0)
		rc = bv_view_apply(&k->view, k->format, table);
	/* CSV has no place for prose; say the caveats where a person sees them. */
	for (size_t i = 0; rc == 0 && !strcmp(k->format, "csv") && i < table->nnotes; i++)
		fprintf(stderr, "note: %s\n", table->notes[i]);
	if (rc == 0)
		rc = bv_exporter_find(k->format)->write(table, stdout);
	if (rc == 0 && fflush(stdout) != 0)
		rc = bv_fail(BV_ERUN, "cannot write the output");
	if (rc == 0 && k->gate && bv_table_has_slower(table)) {
		fprintf(stderr, "bench-versions: a change is slower (--fail-on-slower)\n");
		rc = 1;
	}
	/* A gate that passed a version computing the wrong thing
	 * would be no gate: --fail-on-slower checks this too. */
	char wrong[600];
	size_t nwrong = 0;
	if ((rc == 0 || rc == 1) && (k->gate || k->gate_wrong))
		nwrong = bv_table_wrong(table, wrong, sizeof(wrong));
	if (nwrong) {
		bv_say_wrong(nwrong, wrong, k->gate_wrong ? "--fail-on-wrong" : "--fail-on-slower");
		rc = 1;
	}
	return rc;
}

int bv_cmd_compare(int argc, char **argv)
{
	compare_cmd *k = bv_xcalloc(1, sizeof(*k));
	compare_table(k);
	compare_inputs in;
	memset(&in, 0, sizeof(in));
	char **logs = bv_xcalloc((size_t)argc, sizeof(char *));
	size_t nlogs = 0;
	regex_t re;
	bv_table table;
	int compiled = 0, have_table = 0, code;
	int rc = bv_options_parse(k->opts, argc, argv, logs, &nlogs);
	if ((code = bv_options_done(rc, nlogs == 0 && !k->baseline, "bench-versions compare", "compare", usage,
				    k->opts)) >= 0 ||
	    (code = bv_options_done(bv_view_vs(&k->view), 0, "bench-versions compare", "compare", usage,
				    k->opts)) >= 0)
		goto cleanup;
	rc = collect_inputs(k, logs, nlogs, &in);
	if (rc == 0 && k->filter)
		compiled = (rc = bv_filter_compile(k->filter, &re)) == 0;
	if (rc == 0 && in.nshards)
		fprintf(stderr, "compare: joining %zu %s of one plan into one run\n", in.nshards,
			bv_plural((long long)in.nshards, "shard", "shards"));
	if (rc == 0)
		have_table = (rc = merge_inputs(k, &in, &table)) == 0;
	if (rc == 0 && compiled)
		bv_table_filter(&table, &re);
	/* A gate over no row checks nothing: passing it would let a
	 * mistyped filter wave every regression through. */
	if (rc == 0 && compiled && (k->gate || k->gate_wrong) && table.nrows == 0) {
		fprintf(stderr,
			"bench-versions: --filter '%s' matches no row, so %s would check "
			"nothing (keys are bench/op/backend/size, size as 64K; see: bench-versions list "
			"benches)\n",
			k->filter, k->gate ? "--fail-on-slower" : "--fail-on-wrong");
		code = BV_EXIT_USAGE;
		goto cleanup;
	}
	if (rc == 0)
		rc = compare_output(k, &in, &table);
	if (rc == 1)
		code = BV_EXIT_REGRESSION;
	else if (rc) {
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
		code = bv_exit_code(rc);
	} else
		code = 0;
cleanup:
	if (have_table)
		bv_table_free(&table);
	if (compiled)
		regfree(&re);
	free(logs);
	free(in.root), free(in.based);
	for (size_t i = 0; i < in.npaths; i++)
		free(in.paths[i]);
	free(in.paths);
	for (size_t i = 0; i < in.nshards; i++)
		free(in.shards[i]);
	free(in.shards);
	free(k);
	return code;
}
