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

#include "classes.h"
#include "cli.h"
#include "common.h"
#include "locate.h"
#include "options.h"
#include "results.h"
#include "shard.h"
#include "stages.h"

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

int bv_cmd_compare(int argc, char **argv)
{
	const char *format = "table", *filter = NULL, *units = "time", *baseline = NULL, *root_opt = NULL;
	const char *join_to = NULL;
	bv_merge_opts mo = {-1, 0};
	int gate = 0, gate_wrong = 0;
	bv_view_opts view;
	bv_view_init(&view);
	bv_option view_opts[BV_VIEW_OPTIONS];
	bv_view_table(&view, view_opts);
	static char format_help[160];
	snprintf(format_help, sizeof(format_help), "output format: %s (default table)", bv_exporter_names());
	const bv_option opts[] = {
	    BV_ENUM("--format", &format, "F", bv_exporter_list(), format_help),
	    BV_PERCENT("--threshold", &mo.threshold, "P", 0, 1000,
		       "smallest change called faster/slower, percent "
		       "(default: the baseline log's threshold)"),
	    BV_STRING("--filter", &filter, "REGEX",
		      "keep rows whose bench/op/backend/size matches (POSIX "
		      "extended regex; size as 64K), e.g. 'unary/(exp|relu)/scalar'"),
	    BV_FLAG("--across-machines", &mo.across_machines,
		    "form (unpaired) ratios between logs from different machines"),
	    BV_FLAG("--fail-on-slower", &gate, "exit 1 when any change's verdict is slower (a CI gate; inconclusive is not, nor a slower whose counts are the same on both sides: placement, not the code), or when a version gives a wrong result (as --fail-on-wrong)"),
	    BV_FLAG("--fail-on-wrong", &gate_wrong, "exit 1 when a version other than the baseline gives a wrong result (its output failed the check; each is a note under the table)"),
	    BV_ENUM("--units", &units, "U", units_values, "results as time, rate, peak or memory (the library's workspace per call; default time)"),
	    BV_STRING("--baseline", &baseline, "NAME",
		      "compare against the logs saved by run --save-baseline NAME (first column; "
		      "unpaired: another run)"),
	    BV_STRING("--results", &root_opt, "DIR",
		      "where baselines and latest are (default results/ of this checkout, as for run)"),
	    BV_STRING("--join-to", &join_to, "DIR",
		      "with shard directories (run --shard I/N): also write the joined run's logs into DIR, a "
		      "run directory that compare, report --from and share read like any other"),
	    BV_INCLUDE(view_opts, NULL),
	    BV_END,
	};
	char **logs = bv_xcalloc((size_t)argc, sizeof(char *));
	size_t nlogs = 0;
	int rc = bv_options_parse(opts, argc, argv, logs, &nlogs);
	if (rc == 1 || (rc == 0 && nlogs == 0 && !baseline)) {
		usage(rc ? stdout : stderr, opts);
		free(logs);
		return rc ? 0 : BV_EXIT_USAGE;
	}
	if (rc == 0)
		rc = bv_view_vs(&view);
	if (rc) {
		fprintf(stderr, "bench-versions compare: %s (see bench-versions compare --help)\n", bv_error_last());
		free(logs);
		return BV_EXIT_USAGE;
	}
	/* A run's directory stands for its logs, the run's baseline first, as
	 * for report --from DIR (one loader: bv_run_dir_logs). */
	char **paths = NULL, **shards = NULL;
	size_t npaths = 0, nshards = 0, nplain = 0;
	/* Where baselines and latest are: --results, else run's default.  Only
	 * asked when a name needs it (latest: bv_results_resolve), so plain
	 * paths work without a library. */
	char *root = NULL, *based = NULL;
	/* A bad name is a usage error whether or not a library is found. */
	if (baseline)
		rc = bv_baseline_name_check(baseline);
	if (rc == 0 && baseline)
		rc = root_opt ? (root = bv_strdup(root_opt), 0) : bv_results_default(&root);
	if (rc == 0 && baseline)
		rc = bv_baseline_find(root, baseline, &based);
	/* --baseline alone compares the newest run with it. */
	if (rc == 0 && baseline && nlogs == 0)
		logs[nlogs++] = "latest";
	for (size_t i = 0; i < nlogs + (based != NULL) && rc == 0; i++) {
		char **found = NULL;
		size_t nfound = 0;
		/* the saved baseline first: it is the first column; latest in the
		 * results directory already found for it, if any */
		char *arg = NULL;
		if (based && i == 0)
			arg = bv_strdup(based);
		else
			rc = bv_results_resolve(root ? root : root_opt, logs[i - (based != NULL)], &arg);
		/* Shards of one plan are joined into the run they make up
		 * (shard.c); any other log with them would be compared against
		 * half a run. */
		int shard = rc == 0 && bv_path_is_shard(arg);
		if (rc == 0 && shard && !bv_is_dir(arg))
			rc = bv_fail(BV_EINPUT, "%s is one log of a shard: give each shard's directory (compare "
						"joins the N shards of a plan into one run)",
				     arg);
		else if (rc == 0 && (shard ? nplain : nshards) > 0)
			rc = bv_fail(BV_EINPUT, "%s %s: compare joins shard directories only with each other (all "
						"N of one plan); write the joined run first (--join-to DIR) "
						"and compare that directory with the others",
				     arg, shard ? "is a shard, the logs before it are not" : "is not a shard, the directories before it are");
		if (rc == 0 && shard) {
			shards = bv_xrealloc(shards, (nshards + 1) * sizeof(char *));
			shards[nshards++] = arg;
			continue;
		}
		nplain++;
		if (rc)
			; /* said below */
		else if (bv_is_dir(arg))
			rc = bv_run_dir_logs(arg, &found, &nfound, NULL);
		else
			found = bv_xcalloc(1, sizeof(char *)), found[0] = bv_strdup(arg), nfound = 1;
		free(arg);
		paths = bv_xrealloc(paths, (npaths + nfound + 1) * sizeof(char *));
		for (size_t j = 0; j < nfound; j++)
			paths[npaths++] = found[j];
		free(found);
	}
	const bv_exporter *exporter = bv_exporter_find(format);
	regex_t re;
	if (rc == 0)
		rc = filter ? bv_filter_compile(filter, &re) : 0;
	else
		filter = NULL; /* nothing compiled, nothing to free */
	bv_table table;
	if (rc == 0) {
		if (nshards)
			fprintf(stderr, "compare: joining %zu %s of one plan into one run\n", nshards,
				bv_plural((long long)nshards, "shard", "shards"));
		if (join_to && !nshards)
			rc = bv_fail(BV_EINPUT, "--join-to %s: no shard directory given (it writes the join of run "
						"--shard I/N's directories)",
				     join_to);
		else if (join_to) {
			/* The joined logs are written, then read back as any run's
			 * directory is: the table is the one compare DIR prints. */
			char **joined = NULL;
			size_t nj = 0;
			rc = bv_shards_write(shards, nshards, join_to, &joined, &nj);
			if (rc == 0) {
				fprintf(stderr, "compare: joined run written to %s\n", join_to);
				rc = bv_merge(joined, nj, &mo, &table);
			}
			for (size_t i = 0; i < nj; i++)
				free(joined[i]);
			free(joined);
		} else
			rc = nshards ? bv_merge_shards(shards, nshards, &mo, &table)
				     : bv_merge_classes(paths, npaths, &mo, &table);
		if (rc == 0) {
			if (filter)
				bv_table_filter(&table, &re);
			/* A gate over no row checks nothing: passing it would let a
			 * mistyped filter wave every regression through. */
			if (filter && (gate || gate_wrong) && table.nrows == 0) {
				bv_table_free(&table);
				regfree(&re);
				free(logs);
				free(root), free(based);
				for (size_t i = 0; i < npaths; i++)
					free(paths[i]);
				free(paths);
				fprintf(stderr,
					"bench-versions: --filter '%s' matches no row, so %s would check "
					"nothing (keys are bench/op/backend/size, size as 64K; see: bench-versions list "
					"benches)\n",
					filter, gate ? "--fail-on-slower" : "--fail-on-wrong");
				return BV_EXIT_USAGE;
			}
			table.units = units;
			/* Counts belong to one run's directory: logs from one. */
			char *dir = NULL;
			for (size_t i = 0; i < npaths && !nshards && !join_to; i++) {
				const char *sl = strrchr(paths[i], '/');
				char *d = sl ? bv_asprintf("%.*s", (int)(sl - paths[i]), paths[i]) : bv_strdup(".");
				if (i == 0)
					dir = d;
				else {
					if (dir && strcmp(dir, d))
						free(dir), dir = NULL, i = npaths;
					free(d);
				}
			}
			rc = dir ? bv_view_counts(&view, &table, dir, 0) : 0;
			/* --vs variant=B: a suite's variant parameter is the
			 * backend's place; the run's suite.json says its name. */
			bv_vs_settle_variant_dir(&view.axis, dir);
			free(dir);
			if (rc == 0)
				rc = bv_view_apply(&view, format, &table);
			/* CSV has no place for prose; say the caveats where a person sees them. */
			for (size_t i = 0; rc == 0 && !strcmp(format, "csv") && i < table.nnotes; i++)
				fprintf(stderr, "note: %s\n", table.notes[i]);
			if (rc == 0)
				rc = exporter->write(&table, stdout);
			if (rc == 0 && fflush(stdout) != 0)
				rc = bv_fail(BV_ERUN, "cannot write the output");
			if (rc == 0 && gate && bv_table_has_slower(&table)) {
				fprintf(stderr, "bench-versions: a change is slower (--fail-on-slower)\n");
				rc = 1;
			}
			/* A gate that passed a version computing the wrong thing
			 * would be no gate: --fail-on-slower checks this too. */
			char wrong[600];
			size_t nwrong = 0;
			if ((rc == 0 || rc == 1) && (gate || gate_wrong))
				nwrong = bv_table_wrong(&table, wrong, sizeof(wrong));
			if (nwrong) {
				bv_say_wrong(nwrong, wrong, gate_wrong ? "--fail-on-wrong" : "--fail-on-slower");
				rc = 1;
			}
			bv_table_free(&table);
		}
		if (filter)
			regfree(&re);
	}
	free(logs);
	free(root), free(based);
	for (size_t i = 0; i < npaths; i++)
		free(paths[i]);
	free(paths);
	for (size_t i = 0; i < nshards; i++)
		free(shards[i]);
	free(shards);
	if (rc == 1)
		return BV_EXIT_REGRESSION;
	if (rc)
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
	return rc ? bv_exit_code(rc) : 0;
}
