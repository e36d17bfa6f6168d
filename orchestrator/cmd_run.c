/*
 * cmd_run.c - the comparison: bench-versions [run] V1 V2 ... [options].
 *
 * Drives every version through the stages (stages.h), then merges the logs
 * and exports the table.  Progress goes to stderr, the table to stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benches.h"
#include "cli.h"
#include "common.h"
#include "stages.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: bench-versions [run] VERSION... [options]\n\n"
		"Builds each VERSION of the kernel library against the same harness, measures\n"
		"them together and prints one table; the first VERSION is the baseline.\n\n"
		"VERSION: local (the working tree at KERNEL_DIR), a release number (0.1.0:\n"
		"a tag v0.1.0, else the first commit whose VERSION reads it), or any git\n"
		"revision (main, a commit, HEAD~3, v0.2.0^).\n\n"
		"options:\n"
		"  --benches L      comma-separated groups (see: bench-versions list benches)\n"
		"  --ops L          ops to run\n"
		"  --backends L     backends to run (scalar, simd, cuda, ...)\n"
		"  --sizes L        sizes in elements: 1K,64K,1M,16M\n"
		"  --quick          fewer processes and rounds, same method: for smoke runs and CI\n"
		"  --min-processes N  processes per cell before it may stop (default 10, quick 6)\n"
		"  --max-processes N  processes per cell at most (default 60, quick 12)\n"
		"  --processes N    exactly N processes per cell (no adaptive stopping)\n"
		"  --budget S       measuring seconds per cell, all versions (default 10, quick 2)\n"
		"  --rounds N       alternation rounds per process (default 21, quick 9)\n"
		"  --sample-us N    target length of one sample in microseconds (default 1000, quick 300)\n"
		"  --timeout S      a cell whose check or timing takes longer is killed (default 60)\n"
		"  --isolated       one process per version (for versions that cannot share one)\n"
		"  --pin CPU        pin the measuring processes to one CPU\n"
		"  --threads N      threads a backend may use, e.g. OpenBLAS (default 1)\n"
		"  --threshold P    smallest change called faster/slower, percent (default 1)\n"
		"  --seed N         seed for the random order of versions\n"
		"  --format F       output format: %s (default table)\n"
		"  --filter REGEX   show only rows whose bench/op/backend/size matches (POSIX\n"
		"                   extended regex, size as 64K), e.g. 'unary/(exp|relu)/scalar'\n"
		"  --fail-on-slower exit 1 when any change's verdict is slower (a CI gate)\n"
		"  --units U        results as time, rate (GB/s or GFLOP/s) or peak (%% of this\n"
		"                   machine's calibrated bandwidth or FLOPs); default time\n"
		"  --results DIR    where logs go (default results/ of this checkout)\n\n"
		"environment: KERNEL_DIR, KERNEL_REPO, BENCH_VERSIONS_CACHE, XDG_CACHE_HOME, CC\n"
		"exit codes: 0 success, 1 a change is slower and --fail-on-slower was given,\n"
		"2 usage or input error, 3 a build or run failed\n",
		bv_exporter_names());
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

static char *results_dir(const char *root)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	/* Two runs in one second must not share a directory. */
	for (int i = 0;; i++) {
		char *dir = i ? bv_asprintf("%s/%s-%d", root, stamp, i) : bv_asprintf("%s/%s", root, stamp);
		if (!bv_exists(dir) && bv_mkdir_p(root) == 0 && mkdir(dir, 0755) == 0)
			return dir;
		free(dir);
		if (i > 100)
			return NULL;
	}
}

int bv_cmd_run(int argc, char **argv)
{
	bv_measure_opts mo = {0};
	int processes = 0, rounds = 0, min_p = 0, max_p = 0;
	double threshold = 0.01, budget = 0;
	mo.pin = -1, mo.threads = 1, mo.timeout_s = 60;
	const char *format = "table", *results_root = NULL, *units = "time", *filter = NULL;
	int gate = 0;
	char **names = calloc((size_t)argc, sizeof(char *));
	size_t nnames = 0;
	mo.sample_us = 1000;
	mo.seed = (unsigned long long)time(NULL) ^ ((unsigned long long)getpid() << 16);

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		int takes = 1;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			free(names);
			return 0;
		} else if (!strcmp(a, "--quick"))
			mo.quick = 1, takes = 0;
		else if (!strcmp(a, "--isolated"))
			mo.isolated = 1, takes = 0;
		else if (!strcmp(a, "--fail-on-slower"))
			gate = 1, takes = 0;
		else if (!strncmp(a, "--", 2) && !val) {
			fprintf(stderr, "bench-versions: %s needs a value (or is unknown); see --help\n", a);
			free(names);
			return BV_EXIT_USAGE;
		} else if (!strcmp(a, "--benches"))
			mo.benches = val;
		else if (!strcmp(a, "--ops"))
			mo.ops = val;
		else if (!strcmp(a, "--backends"))
			mo.backends = val;
		else if (!strcmp(a, "--sizes"))
			mo.sizes = val;
		else if (!strcmp(a, "--format"))
			format = val;
		else if (!strcmp(a, "--filter"))
			filter = val;
		else if (!strcmp(a, "--units") && (!strcmp(val, "time") || !strcmp(val, "rate") || !strcmp(val, "peak")))
			units = val;
		else if (!strcmp(a, "--results"))
			results_root = val;
		else if (!strcmp(a, "--processes") && parse_int(val, 1, 1000, &processes) == 0)
			;
		else if (!strcmp(a, "--min-processes") && parse_int(val, 1, 1000, &min_p) == 0)
			;
		else if (!strcmp(a, "--max-processes") && parse_int(val, 1, 1000, &max_p) == 0)
			;
		else if (!strcmp(a, "--budget") && (budget = atof(val)) > 0 && budget <= 86400)
			;
		else if (!strcmp(a, "--timeout") && (mo.timeout_s = atof(val)) > 0 && mo.timeout_s <= 86400)
			;
		else if (!strcmp(a, "--pin") && parse_int(val, 0, 1 << 30, &mo.pin) == 0)
			;
		else if (!strcmp(a, "--threads") && parse_int(val, 1, 1024, &mo.threads) == 0)
			;
		else if (!strcmp(a, "--rounds") && parse_int(val, 1, 100000, &rounds) == 0)
			;
		else if (!strcmp(a, "--sample-us") && (mo.sample_us = atof(val)) >= 1 && mo.sample_us <= 1e7)
			;
		else if (!strcmp(a, "--threshold") && (threshold = atof(val) / 100.0) >= 0 && threshold < 10)
			;
		else if (!strcmp(a, "--seed"))
			mo.seed = strtoull(val, NULL, 10);
		else if (a[0] == '-') {
			fprintf(stderr, "bench-versions: unknown option or bad value: %s%s%s (see --help)\n", a,
				val ? " " : "", val ? val : "");
			free(names);
			return BV_EXIT_USAGE;
		} else
			names[nnames++] = argv[i], takes = 0;
		i += takes;
	}
	if (nnames == 0) {
		usage(stderr);
		free(names);
		return BV_EXIT_USAGE;
	}
	const bv_exporter *exporter = bv_exporter_find(format);
	if (!exporter) {
		fprintf(stderr, "bench-versions: unknown format '%s' (known: %s)\n", format, bv_exporter_names());
		free(names);
		return BV_EXIT_USAGE;
	}
	mo.min_processes = processes ? processes : min_p ? min_p : mo.quick ? 6 : 10;
	mo.max_processes = processes ? processes : max_p ? max_p : mo.quick ? 12 : 60;
	if (mo.max_processes < mo.min_processes) {
		fprintf(stderr, "bench-versions: --max-processes %d is below --min-processes %d\n", mo.max_processes,
			mo.min_processes);
		free(names);
		return BV_EXIT_USAGE;
	}
	if (mo.pin >= 0 && mo.pin >= sysconf(_SC_NPROCESSORS_CONF)) {
		fprintf(stderr, "bench-versions: --pin %d: this machine has CPUs 0-%ld\n", mo.pin,
			sysconf(_SC_NPROCESSORS_CONF) - 1);
		free(names);
		return BV_EXIT_USAGE;
	}
	mo.budget_s = budget ? budget : mo.quick ? 2 : 10;
	mo.threshold = threshold;
	mo.rounds = rounds ? rounds : mo.quick ? 9 : 21;
	if (mo.quick && mo.sample_us == 1000)
		mo.sample_us = 300;
	bv_cell *cells;
	char err[256];
	long ncells = bv_cells_select(&(bv_selection){mo.benches, mo.ops, mo.backends, mo.sizes}, &cells, err, sizeof(err));
	if (ncells <= 0) {
		fprintf(stderr, "bench-versions: %s\n", ncells < 0 ? err : "the filters select no benchmark");
		free(names);
		return BV_EXIT_USAGE;
	}
	free(cells);
	/* A bad regex is found now, not after minutes of measuring. */
	regex_t re;
	if (filter && bv_filter_compile(filter, &re)) {
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
		free(names);
		return BV_EXIT_USAGE;
	}

	bv_repo *repo = NULL;
	bv_compat *compat = NULL;
	bv_version *vs = calloc(nnames, sizeof(bv_version));
	char **logs = NULL, *dir = NULL;
	size_t nresolved = 0;
	int rc = bv_repo_open(&repo);
	/* resolve: every name to an exact tree, printed before anything builds */
	for (size_t i = 0; rc == 0 && i < nnames; i++) {
		rc = bv_resolve(repo, names[i], &vs[i]);
		if (rc)
			break;
		nresolved++;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(vs[k].label, vs[i].label)) {
				char *l = bv_asprintf("%s-%zu", vs[i].label, i + 1);
				free(vs[i].label);
				vs[i].label = l;
			}
		fprintf(stderr, "resolve: %-12s -> %s %.12s, kernels %s [%s]\n", vs[i].name,
			vs[i].kind == BV_VERSION_LOCAL ? "tree" : "commit",
			vs[i].kind == BV_VERSION_LOCAL ? vs[i].tree : vs[i].commit, vs[i].kernel_version, vs[i].rule);
	}
	if (rc == 0) {
		char *path = bv_asprintf("%s/compat/compat.json", bv_home());
		rc = bv_compat_load(path, &compat);
		free(path);
	}
	int build_failures = 0, gated = 0;
	for (size_t i = 0; rc == 0 && i < nnames; i++) {
		rc = bv_fetch(repo, &vs[i]);
		bv_semver sv;
		if (rc == 0 && bv_semver_parse(vs[i].kernel_version, &sv) == 0)
			rc = bv_compat_match(compat, &sv, &vs[i].shims);
		if (rc == 0) {
			rc = bv_build(&vs[i]);
			if (rc == 0 && vs[i].build_error) {
				build_failures++;
				fprintf(stderr, "build: %-12s FAILED: %s\n", vs[i].name, vs[i].build_error);
			} else if (rc == 0) {
				bv_buf shims = BV_BUF_INIT;
				for (size_t k = 0; k < vs[i].shims.nrules; k++)
					bv_buf_printf(&shims, "%s%s", k ? ", " : "", vs[i].shims.rules[k]);
				fprintf(stderr, "build: %-12s %s (compat: %s)\n", vs[i].name,
					vs[i].cached ? "cached, nothing rebuilt" : "built",
					shims.s ? shims.s : "none");
				bv_buf_free(&shims);
			}
		}
	}
	if (rc == 0) {
		char *root = results_root ? bv_strdup(results_root) : bv_asprintf("%s/results", bv_home());
		dir = results_dir(root);
		if (!dir)
			rc = bv_fail(BV_ERUN, "cannot create a results directory in %s", root);
		free(root);
	}
	if (rc == 0) {
		/* Fixed thread counts, recorded in the logs: a library that picks its
		 * own count measures the machine's load, not the code. */
		char threads[16];
		snprintf(threads, sizeof(threads), "%d", mo.threads);
		setenv("OPENBLAS_NUM_THREADS", threads, 1);
		setenv("OMP_NUM_THREADS", threads, 1);
		rc = bv_measure(vs, nnames, &mo, dir, &logs);
	}
	if (rc == 0) {
		bv_table table;
		fprintf(stderr, "results: %s\n", dir);
		rc = bv_merge_logs(logs, nnames, threshold, &table);
		if (rc == 0) {
			table.units = units;
			if (filter)
				bv_table_filter(&table, &re);
			rc = exporter->write(&table, stdout);
			if (rc == 0 && gate && bv_table_has_slower(&table))
				gated = 1;
			bv_table_free(&table);
		}
	}
	if (rc)
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
	for (size_t i = 0; i < nresolved; i++) {
		if (logs)
			free(logs[i]);
		bv_version_free(&vs[i]);
	}
	free(logs);
	free(vs);
	free(dir);
	free(names);
	bv_compat_free(compat);
	bv_repo_free(repo);
	if (filter)
		regfree(&re);
	if (rc)
		return bv_exit_code(rc);
	if (gated)
		fprintf(stderr, "bench-versions: a change is slower (--fail-on-slower)\n");
	return build_failures ? BV_EXIT_FAILED : gated ? BV_EXIT_REGRESSION : 0;
}
