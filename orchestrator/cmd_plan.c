/*
 * cmd_plan.c - bench-versions plan VERSION... [run's options] --shards N
 * [--format text|json]: the shards a comparison is cut into, for an engine
 * that runs them on many machines (a CI matrix, a Slurm array).
 *
 * It resolves the versions (their build keys are part of the plan) and
 * builds and measures nothing.  What it prints is what `run --shard I/N`
 * with the same versions and options will measure on any machine: the plan
 * id, each shard's cells and expected time, and the command for each shard,
 * so an engine needs nothing but this output (docs/cli/plan.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "cli.h"
#include "common.h"
#include "json.h"
#include "options.h"
#include "runner.h"
#include "shard.h"
#include "stages.h"

static void usage(FILE *out, const bv_option *opts)
{
	fprintf(out,
	        "usage: bench-versions plan VERSION... --shards N [run's options] [--format text|json]\n\n"
	        "Cuts the comparison run would make into N shards of about equal expected time, every\n"
	        "version in each, and prints them: the plan id, the versions' build keys, each shard's\n"
	        "cells and expected measuring time, and the command that measures shard I of N\n"
	        "(run ... --shard I/N) on any machine.  compare joins the N shards' result\n"
	        "directories into one run.  Nothing is built or measured.\n\n"
	        "options (--opt VALUE or --opt=VALUE):\n");
	bv_options_help(opts, out);
	fprintf(out,
	        "\nexit codes: 0 success, 2 usage or input error (a bad option, a version that does not\n"
	        "resolve)\n");
}

/* run's arguments as given to plan, less plan's own options: each shard's
 * command is this plus --shard I/N. */
static void run_args(int argc, char **argv, bv_strv *out)
{
	bv_strv_push(out, "run");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--shards") || !strcmp(a, "--format")) {
			i++; /* its value */
			continue;
		}
		if (!strncmp(a, "--shards=", 9) || !strncmp(a, "--format=", 9))
			continue;
		bv_strv_push(out, a);
	}
}

static const char *const plan_formats[] = {"text", "json", NULL};

/* Shell-quoted for the text form, so a line can be pasted. */
static void put_word(FILE *out, const char *w)
{
	if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%") ==
	              strlen(w)) {
		fputs(w, out);
		return;
	}
	fputc('\'', out);
	for (const char *p = w; *p; p++)
		if (*p == '\'')
			fputs("'\\''", out);
		else
			fputc(*p, out);
	fputc('\'', out);
}

int bv_cmd_plan(int argc, char **argv)
{
	bv_run_cli c;
	bv_run_cli_init(&c);
	const char *format = "text", *filter = NULL;
	int shards = 0;
	bv_option pipeline[BV_RUN_CLI_OPTIONS];
	bv_run_cli_table(&c, pipeline, NULL);
	const bv_option opts[] = {
	    BV_INT("--shards", &shards, "N", 1, BV_SHARDS_MAX,
	           "how many shards to cut the matrix into (machines, CI jobs or array tasks)"),
	    BV_ENUM("--format", &format, "F", plan_formats, "text (default) or json, for an engine to read"),
	    BV_STRING("--filter", &filter, "REGEX",
	              "as run's: only the cells whose bench/op/backend/size matches"),
	    BV_INCLUDE(pipeline, NULL),
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
	if (rc == 0 && shards == 0)
		rc = bv_fail(BV_EINPUT, "--shards N is needed: how many shards to cut the matrix into");
	if (rc == 0 && nnames > BV_RUNNER_MAX_VERSIONS && !c.mo.isolated)
		rc = bv_fail(BV_EINPUT, "%zu versions given; at most %d can be compared in one run", nnames,
		             BV_RUNNER_MAX_VERSIONS);
	if (rc == 0 && (c.resume || c.dry_run))
		rc = bv_fail(BV_EINPUT, "%s does not apply to a plan (it is run's)",
		             c.resume ? "--resume" : "--dry-run");
	long ncells = 0;
	c.mo.filter = filter;
	if (rc == 0)
		rc = bv_run_cli_finish(&c, &ncells);
	if (rc) {
		fprintf(stderr, "bench-versions plan: %s (see bench-versions plan --help)\n",
		        bv_error_last());
		free(names);
		return BV_EXIT_USAGE;
	}
	bv_version *vs = NULL;
	rc = bv_plan_versions(names, nnames, &vs);
	cJSON *plan = NULL;
	if (rc == 0)
		rc = bv_plan_block(vs, nnames, &c.mo, 0, shards, &plan);
	bv_cell *cells = NULL;
	long long *cost = NULL, *total = NULL;
	int *shard_of = NULL;
	char err[256];
	long n =
	    rc == 0 ? bv_shard_plan(&c.mo, shards, &cells, &cost, &shard_of, &total, err, sizeof(err)) : 0;
	if (rc == 0 && n < 0)
		rc = bv_fail(BV_EINPUT, "%s", err);
	if (rc) {
		fprintf(stderr, "bench-versions plan: %s\n", bv_error_last());
		for (size_t i = 0; vs && i < nnames; i++)
			bv_version_free(&vs[i]);
		free(vs), free(names);
		cJSON_Delete(plan);
		return bv_exit_code(rc);
	}
	long long all = 0, longest = 0;
	long cuda = 0;
	for (int s = 0; s < shards; s++) {
		all += total[s];
		if (total[s] > longest)
			longest = total[s];
	}
	for (long k = 0; k < n; k++)
		cuda += !strcmp(cells[k].backend, "cuda");
	bv_strv args = BV_STRV_INIT;
	run_args(argc, argv, &args);
	const char *id = bv_json_str(plan, "id");
	const cJSON *pcells = cJSON_GetObjectItemCaseSensitive(plan, "cells");
	if (!strcmp(format, "json")) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "schema", "bench-versions-plan");
		cJSON_AddStringToObject(doc, "schema_version", "1.0");
		cJSON_AddStringToObject(doc, "plan", id);
		cJSON_AddNumberToObject(doc, "count", shards);
		cJSON *va = cJSON_AddArrayToObject(doc, "versions");
		const cJSON *pv;
		size_t i = 0;
		cJSON_ArrayForEach(pv, cJSON_GetObjectItemCaseSensitive(plan, "versions"))
		{
			cJSON *v = cJSON_Duplicate(pv, 1);
			cJSON_AddStringToObject(v, "tree", vs[i].tree);
			cJSON_AddStringToObject(v, "kernel_version", vs[i].kernel_version);
			int cached = 0;
			bv_build_is_cached(&vs[i], &cached);
			cJSON_AddBoolToObject(v, "cached", cached);
			cJSON_AddItemToArray(va, v);
			i++;
		}
		cJSON_AddItemToObject(doc, "method",
		                      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(plan, "method"), 1));
		/* every cell in the run's order: what each shard log's
		 * shard.cells records (results-format.md) */
		cJSON_AddItemToObject(doc, "cells", cJSON_Duplicate(pcells, 1));
		cJSON_AddNumberToObject(doc, "cuda_cells", (double)cuda);
		cJSON_AddNumberToObject(doc, "expected_s", (double)all / 1000.0);
		cJSON_AddNumberToObject(doc, "longest_shard_s", (double)longest / 1000.0);
		cJSON *sa = cJSON_AddArrayToObject(doc, "shards");
		for (int s = 0; s < shards; s++) {
			cJSON *o = cJSON_CreateObject();
			char label[32];
			snprintf(label, sizeof(label), "%d/%d", s + 1, shards);
			cJSON_AddNumberToObject(o, "index", s + 1);
			cJSON_AddStringToObject(o, "shard", label);
			cJSON_AddNumberToObject(o, "expected_s", (double)total[s] / 1000.0);
			cJSON *ca = cJSON_AddArrayToObject(o, "cells");
			for (long k = 0; k < n; k++)
				if (shard_of[k] == s)
					cJSON_AddItemToArray(
					    ca, cJSON_CreateString(
					            cJSON_GetArrayItem(pcells, (int)k)->valuestring));
			cJSON *argv_a = cJSON_AddArrayToObject(o, "argv");
			cJSON_AddItemToArray(argv_a, cJSON_CreateString("bench-versions"));
			for (size_t a = 0; a < args.n; a++)
				cJSON_AddItemToArray(argv_a, cJSON_CreateString(args.v[a]));
			cJSON_AddItemToArray(argv_a, cJSON_CreateString("--shard"));
			cJSON_AddItemToArray(argv_a, cJSON_CreateString(label));
			cJSON_AddItemToArray(sa, o);
		}
		cJSON *join = cJSON_AddArrayToObject(doc, "join");
		cJSON_AddItemToArray(join, cJSON_CreateString("bench-versions"));
		cJSON_AddItemToArray(join, cJSON_CreateString("compare"));
		char *text = cJSON_Print(doc);
		printf("%s\n", text);
		free(text);
		cJSON_Delete(doc);
	} else {
		printf("plan %s: %zu %s, %ld %s in %d %s; expected measuring %.1fs in all, %.1fs for the "
		       "longest shard\n",
		       id, nnames, bv_plural((long long)nnames, "version", "versions"), n,
		       bv_plural(n, "cell", "cells"), shards, bv_plural(shards, "shard", "shards"),
		       (double)all / 1000.0, (double)longest / 1000.0);
		printf("versions:\n");
		for (size_t i = 0; i < nnames; i++) {
			char key[41] = "";
			int cached = 0;
			bv_build_key(&vs[i], key);
			bv_build_is_cached(&vs[i], &cached);
			printf("  %-12s kernels %-8s build %.12s (%s)\n", vs[i].label, vs[i].kernel_version,
			       key, cached ? "cached here" : "to build");
		}
		for (int s = 0; s < shards; s++) {
			long count = 0;
			for (long k = 0; k < n; k++)
				count += shard_of[k] == s;
			printf("shard %d/%d: %ld %s, expected %.1fs\n", s + 1, shards, count,
			       bv_plural(count, "cell", "cells"), (double)total[s] / 1000.0);
			for (long k = 0; k < n; k++)
				if (shard_of[k] == s)
					printf("  %s\n", cJSON_GetArrayItem(pcells, (int)k)->valuestring);
		}
		if (cuda)
			printf("note: %ld cuda %s counted: a shard's node without a GPU skips %s at once\n",
			       cuda, bv_plural(cuda, "cell", "cells"), bv_plural(cuda, "it", "them"));
		printf("run shard I of %d with:\n  bench-versions", shards);
		for (size_t a = 0; a < args.n; a++) {
			putchar(' ');
			put_word(stdout, args.v[a]);
		}
		printf(" --shard I/%d\nthen join the %d result directories with:\n  bench-versions compare "
		       "DIR...\n",
		       shards, shards);
	}
	bv_strv_free(&args);
	free(cells), free(cost), free(shard_of), free(total);
	cJSON_Delete(plan);
	for (size_t i = 0; i < nnames; i++)
		bv_version_free(&vs[i]);
	free(vs), free(names);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "bench-versions plan: cannot write the output\n");
		return BV_EXIT_FAILED;
	}
	return 0;
}
