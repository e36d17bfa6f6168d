/*
 * report_classes.c - report --from RUN_DIR RUN_DIR...: one run per machine
 * class (classes.h), each judged on its own against its own baseline and
 * never pooled with another; READY only when every class is.  And the two
 * logs of one run's directory, which report --from DIR reads as well.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"
#include "common.h"
#include "fs.h"
#include "merge.h"
#include "proc.h"
#include "report.h"
#include "results.h"
#include "shard.h"
#include "table.h"

/* --from DIR: the run's two logs, by label or from the run block
 * (bv_run_dir_logs, which compare DIR shares: the baseline first). */
int bv_report_run_logs(const char *dir, const char *base, const char *cand, char **paths)
{
	if (base && cand) {
		paths[0] = bv_asprintf("%s/%s.json", dir, base);
		paths[1] = bv_asprintf("%s/%s.json", dir, cand);
		return 0;
	}
	char **found = NULL;
	size_t n = 0, nversions = 0;
	int rc = bv_run_dir_logs(dir, &found, &n, &nversions);
	if (rc == 0 && (nversions != 2 || n != 2))
		rc = bv_fail(BV_EINPUT,
			     "%s: the run has %zu %s (%zu %s); name two with --baseline LABEL --candidate LABEL",
			     dir, nversions, bv_plural((long long)nversions, "version", "versions"), n,
			     bv_plural((long long)n, "log", "logs"));
	else if (rc == 0) {
		paths[0] = base ? bv_asprintf("%s/%s.json", dir, base) : bv_strdup(found[0]);
		paths[1] = cand ? bv_asprintf("%s/%s.json", dir, cand) : bv_strdup(found[1]);
	}
	for (size_t i = 0; i < n; i++)
		free(found[i]);
	free(found);
	return rc;
}

/* What blocks a class, in one line: its first blocking cell ("unary exp
 * simd 1M: 1.07x slower ...") or, without one, its first reason. */
static char *blocker(const bv_report *r)
{
	for (size_t k = 0; k < r->ncells; k++)
		if (bv_cell_status_blocks(r->cells[k].status)) {
			char name[256], ratio[96];
			bv_report_cell_name(&r->cells[k], name, sizeof(name));
			if (r->cells[k].status != BV_CELL_REGRESSION)
				return bv_asprintf("%s: %s", name, r->cells[k].why);
			bv_report_ratio(&r->cells[k], ratio, sizeof(ratio));
			return bv_asprintf("%s %s slower: %s", name, ratio, r->cells[k].why);
		}
	return bv_strdup(r->nreasons ? r->reasons[0] : "not ready");
}

/* report --from RUN_DIR RUN_DIR...: one run per machine class (classes.h).
 * Each class is judged on its own run, against its own baseline, and never
 * pooled with another; the release is READY only when every class is.  Each
 * class's files go into its run's directory, or OUT/CLASS with --out. */
int bv_report_classes(char *const *dirs, size_t n, const char *baseline, const char *candidate,
                      double threshold, int across, const bv_budgets *budgets, const char *out_dir,
                      const int want[BV_REPORT_NFORMATS], int print_index)
{
	char **logs = bv_xcalloc(2 * n + 1, sizeof(char *));
	bv_class_groups g;
	memset(&g, 0, sizeof(g));
	int rc = 0;
	/* as for one run: a shard alone would read its missing cells as vanished */
	for (size_t i = 0; i < n && rc == 0; i++)
		if (bv_path_is_shard(dirs[i]))
			rc = bv_fail(BV_EINPUT,
				     "--from %s: a shard of a run (run --shard I/N); join the shards first "
				     "(bench-versions compare SHARD_DIR... --join-to DIR) and report --from DIR",
				     dirs[i]);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = bv_report_run_logs(dirs[i], baseline, candidate, &logs[2 * i]);
	/* the candidate's log says the class of each run */
	char **cands = bv_xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++)
		cands[i] = logs[2 * i + 1];
	if (rc == 0)
		rc = bv_class_groups_read(cands, n, &g);
	/* Two runs of one class would be two judgements of one machine kind:
	 * which one decides?  Refused rather than pooled or picked. */
	for (size_t i = 0; rc == 0 && i < n; i++)
		for (size_t j = 0; j < i && rc == 0; j++)
			if (g.of[i] == g.of[j])
				rc = bv_fail(BV_EINPUT,
					     "--from %s and %s: both runs are of class %s; give one run per machine "
					     "class (compare them with bench-versions compare)",
					     dirs[j], dirs[i], g.classes[g.of[i]].name);
	bv_report *reports = bv_xcalloc(n + 1, sizeof(bv_report));
	size_t judged = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		bv_table table;
		bv_merge_opts mo = {threshold, across};
		rc = bv_merge(&logs[2 * i], 2, &mo, &table);
		if (rc == 0 && (rc = bv_report_read_env(&reports[i], &logs[2 * i])) != 0)
			bv_table_free(&table);
		if (rc == 0 && (rc = bv_report_judge(&reports[i], &table, budgets)) != 0)
			bv_table_free(&table);
		judged += rc == 0;
	}
	int ready = 1, failed = 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		ready &= reports[i].ready, failed |= reports[i].baseline_failed;
	/* The verdict first, one line per class that blocks: what CI shows. */
	if (rc == 0 && print_index >= 0) {
		if (ready) {
			printf("READY: every class is ready (");
			for (size_t c = 0; c < g.nclasses; c++)
				printf("%s%s", c ? ", " : "", g.classes[c].name);
			printf(")\n");
		}
		for (size_t i = 0; i < n; i++)
			if (!reports[i].ready) {
				char *b = blocker(&reports[i]);
				printf("NOT READY: class %s blocks: %s\n", g.classes[g.of[i]].name, b);
				free(b);
			}
		for (size_t i = 0; i < n && rc == 0; i++) {
			printf("\nclass %s (%s):\n", g.classes[g.of[i]].name, dirs[i]);
			rc = bv_report_formats[print_index].fn(&reports[i], stdout);
		}
		if (rc == 0 && fflush(stdout) != 0)
			rc = bv_fail(BV_ERUN, "cannot write the output");
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const char *name = g.classes[g.of[i]].name; /* a checked name: a plain file name */
		char *where = out_dir ? bv_asprintf("%s/%s", out_dir, name) : bv_strdup(dirs[i]);
		rc = bv_mkdir_p(where);
		for (int f = 0; rc == 0 && f < BV_REPORT_NFORMATS; f++) {
			if (!want[f])
				continue;
			char *path = bv_asprintf("%s/%s", where, bv_report_formats[f].file);
			rc = bv_report_write_file(path, bv_report_formats[f].fn, &reports[i]);
			if (rc == 0)
				fprintf(stderr, "report: %s (class %s)\n", path, name);
			free(path);
		}
		free(where);
	}
	for (size_t i = 0; i < judged; i++)
		bv_report_free(&reports[i]);
	free(reports);
	for (size_t i = 0; i < 2 * n; i++)
		free(logs[i]);
	free(logs), free(cands);
	bv_class_groups_free(&g);
	if (rc) {
		fprintf(stderr, "bench-versions: %s\n", bv_error_last());
		return bv_exit_code(rc);
	}
	return failed ? 3 : ready ? 0 : 1;
}
