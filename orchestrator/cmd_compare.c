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

#include "cli.h"
#include "common.h"
#include "stages.h"

static void usage(FILE *out)
{
	fprintf(out,
	        "usage: bench-versions compare LOG... [options]\n\n"
	        "Merges results logs (results/<run>/<label>.json) into one comparison table;\n"
	        "the first LOG is the baseline.  Logs from the same run keep their paired\n"
	        "ratios; logs from different runs get the ratio of medians, marked unpaired;\n"
	        "logs from another machine (hostname or cpu differ) get no ratio unless\n"
	        "--across-machines.\n\n"
	        "options:\n"
	        "  --format F         output format: %s (default table)\n"
	        "  --threshold P      smallest change called faster/slower, percent\n"
	        "                     (default: the baseline log's threshold)\n"
	        "  --filter REGEX     keep rows whose bench/op/backend/size matches (POSIX\n"
	        "                     extended regex; size as 64K), e.g. 'unary/(exp|relu)/scalar'\n"
	        "  --across-machines  form (unpaired) ratios between logs from different machines\n"
	        "  --fail-on-slower   exit 1 when any change's verdict is slower (a CI gate)\n"
	        "  --units U          results as time, rate or peak (default time)\n\n"
	        "exit codes: 0 success, 1 a change is slower and --fail-on-slower was given,\n"
	        "2 usage or input error (unreadable log, bad regex), 3 output could not be written\n",
	        bv_exporter_names());
}

int bv_cmd_compare(int argc, char **argv)
{
	const char *format = "table", *filter = NULL, *units = "time";
	bv_merge_opts mo = {-1, 0};
	int gate = 0;
	char **logs = calloc((size_t)argc, sizeof(char *));
	size_t nlogs = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int takes = 1;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			free(logs);
			return 0;
		} else if (!strcmp(a, "--across-machines"))
			mo.across_machines = 1, takes = 0;
		else if (!strcmp(a, "--fail-on-slower"))
			gate = 1, takes = 0;
		else if (!strncmp(a, "--", 2) && !val) {
			fprintf(stderr,
			        "bench-versions: %s needs a value (or is unknown); see compare --help\n", a);
			free(logs);
			return BV_EXIT_USAGE;
		} else if (!strcmp(a, "--format"))
			format = val;
		else if (!strcmp(a, "--filter"))
			filter = val;
		else if (!strcmp(a, "--units") &&
		         (!strcmp(val, "time") || !strcmp(val, "rate") || !strcmp(val, "peak")))
			units = val;
		else if (!strcmp(a, "--threshold") && (mo.threshold = atof(val) / 100.0) >= 0 &&
		         mo.threshold < 10)
			;
		else if (a[0] == '-') {
			fprintf(stderr,
			        "bench-versions: unknown option or bad value: %s%s%s (see compare --help)\n",
			        a, val ? " " : "", val ? val : "");
			free(logs);
			return BV_EXIT_USAGE;
		} else
			logs[nlogs++] = argv[i], takes = 0;
		i += takes;
	}
	if (nlogs == 0) {
		usage(stderr);
		free(logs);
		return BV_EXIT_USAGE;
	}
	const bv_exporter *exporter = bv_exporter_find(format);
	if (!exporter) {
		fprintf(stderr, "bench-versions: unknown format '%s' (known: %s)\n", format,
		        bv_exporter_names());
		free(logs);
		return BV_EXIT_USAGE;
	}
	regex_t re;
	int rc = filter ? bv_filter_compile(filter, &re) : 0;
	bv_table table;
	if (rc == 0) {
		rc = bv_merge(logs, nlogs, &mo, &table);
		if (rc == 0) {
			if (filter)
				bv_table_filter(&table, &re);
			table.units = units;
			/* CSV has no place for prose; say the caveats where a person sees them. */
			for (size_t i = 0; !strcmp(format, "csv") && i < table.nnotes; i++)
				fprintf(stderr, "note: %s\n", table.notes[i]);
			rc = exporter->write(&table, stdout);
			if (rc == 0 && fflush(stdout) != 0)
				rc = bv_fail(BV_ERUN, "cannot write the output");
			if (rc == 0 && gate && bv_table_has_slower(&table)) {
				fprintf(stderr, "bench-versions: a change is slower (--fail-on-slower)\n");
				rc = 1;
			}
			bv_table_free(&table);
		}
		if (filter)
			regfree(&re);
	}
	free(logs);
	if (rc == 1)
		return BV_EXIT_REGRESSION;
	if (rc)
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
	return rc ? bv_exit_code(rc) : 0;
}
