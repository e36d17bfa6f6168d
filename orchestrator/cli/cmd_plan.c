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
#include "build.h"
#include "cli.h"
#include "common.h"
#include "json.h"
#include "options.h"
#include "pipeline.h"
#include "plan.h"
#include "planner.h"
#include "proc.h"
#include "resolve.h"
#include "run_options.h"
#include "runner.h"
#include "shard.h"

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

/* A plan once cut: what both forms print. */
typedef struct plan_out {
	bv_version *vs;
	size_t n_versions;
	bv_measure_opts mo;      /* run's options, cut into the shards (every one: no index) */
	bv_plan run;             /* the plan (planner.h), built once from mo and vs */
	const cJSON *plan;       /* its block: id, versions, method, cells */
	const char *id;          /* the plan's id */
	const cJSON *cells_json; /* every cell's name, in the run's order */
	const bv_cell *cells;
	const long long *cost, *total; /* per cell; per shard, in ms */
	const int *shard_of;           /* per cell */
	long ncells;
	int shards;
	long long all, longest; /* ms: every shard's, the longest shard's */
	long cuda;              /* cuda cells: a node without a GPU skips them */
	bv_strv args;           /* run's command line for a shard, less --shard */
} plan_out;

/* plan's checks after parsing: what it needs (--shards N) and what is
 * run's alone; *ncells gets the cells of the selection. */
static int plan_check(bv_run_cli *c, int shards, size_t nnames, const char *filter, long *ncells)
{
	int rc = 0;
	if (shards == 0)
		rc = bv_fail(BV_EINPUT, "--shards N is needed: how many shards to cut the matrix into");
	if (rc == 0 && nnames > BV_RUNNER_MAX_VERSIONS && !c->mo.isolated)
		rc = bv_fail(BV_EINPUT, "%zu versions given; at most %d can be compared in one run", nnames,
		             BV_RUNNER_MAX_VERSIONS);
	if (rc == 0 && (c->resume || c->dry_run))
		rc = bv_fail(BV_EINPUT, "%s does not apply to a plan (it is run's)",
		             c->resume ? "--resume" : "--dry-run");
	c->mo.filter = filter;
	if (rc == 0)
		rc = bv_run_cli_finish(c, ncells);
	return rc;
}

/* The versions resolved (their build keys are in the plan id) and the
 * cells cut into p->shards shards, with the totals both forms print. */
static int plan_cut(char **names, const bv_measure_opts *mo, int argc, char **argv, plan_out *p)
{
	int rc = bv_plan_versions(names, p->n_versions, &p->vs);
	/* What every `run --shard I/N` of these options plans for itself: the
	 * same cut, without an I of its own. */
	p->mo = *mo;
	p->mo.shard_index = 0, p->mo.shard_count = p->shards;
	if (rc == 0)
		rc = bv_plan_build(&p->mo, p->vs, p->n_versions, &p->run);
	if (rc)
		return rc;
	p->plan = p->run.block;
	p->cells = p->run.all, p->ncells = p->run.nall;
	p->cost = p->run.cost_ms, p->shard_of = p->run.shard_of, p->total = p->run.shard_ms;
	for (int s = 0; s < p->shards; s++) {
		p->all += p->total[s];
		if (p->total[s] > p->longest)
			p->longest = p->total[s];
	}
	for (long k = 0; k < p->ncells; k++)
		p->cuda += !strcmp(p->cells[k].backend, "cuda");
	run_args(argc, argv, &p->args);
	p->id = bv_json_str(p->plan, "id");
	p->cells_json = cJSON_GetObjectItemCaseSensitive(p->plan, "cells");
	return 0;
}

/* --format json: the plan for an engine to read (docs/cli/plan.md). */
static void print_json(const plan_out *p)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", "bench-versions-plan");
	cJSON_AddStringToObject(doc, "schema_version", "1.0");
	cJSON_AddStringToObject(doc, "plan", p->id);
	cJSON_AddNumberToObject(doc, "count", p->shards);
	cJSON *va = cJSON_AddArrayToObject(doc, "versions");
	const cJSON *pv;
	size_t i = 0;
	cJSON_ArrayForEach(pv, cJSON_GetObjectItemCaseSensitive(p->plan, "versions"))
	{
		cJSON *v = cJSON_Duplicate(pv, 1);
		cJSON_AddStringToObject(v, "tree", p->vs[i].tree);
		cJSON_AddStringToObject(v, "kernel_version", p->vs[i].kernel_version);
		int cached = 0;
		bv_build_is_cached(&p->vs[i], &cached);
		cJSON_AddBoolToObject(v, "cached", cached);
		cJSON_AddItemToArray(va, v);
		i++;
	}
	cJSON_AddItemToObject(doc, "method",
	                      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(p->plan, "method"), 1));
	/* every cell in the run's order: what each shard log's
	 * shard.cells records (results-format.md) */
	cJSON_AddItemToObject(doc, "cells", cJSON_Duplicate(p->cells_json, 1));
	cJSON_AddNumberToObject(doc, "cuda_cells", (double)p->cuda);
	cJSON_AddNumberToObject(doc, "expected_s", (double)p->all / 1000.0);
	cJSON_AddNumberToObject(doc, "longest_shard_s", (double)p->longest / 1000.0);
	cJSON *sa = cJSON_AddArrayToObject(doc, "shards");
	for (int s = 0; s < p->shards; s++) {
		cJSON *o = cJSON_CreateObject();
		char label[32];
		snprintf(label, sizeof(label), "%d/%d", s + 1, p->shards);
		cJSON_AddNumberToObject(o, "index", s + 1);
		cJSON_AddStringToObject(o, "shard", label);
		cJSON_AddNumberToObject(o, "expected_s", (double)p->total[s] / 1000.0);
		cJSON *ca = cJSON_AddArrayToObject(o, "cells");
		for (long k = 0; k < p->ncells; k++)
			if (p->shard_of[k] == s)
				cJSON_AddItemToArray(
				    ca, cJSON_CreateString(
				            cJSON_GetArrayItem(p->cells_json, (int)k)->valuestring));
		cJSON *argv_a = cJSON_AddArrayToObject(o, "argv");
		cJSON_AddItemToArray(argv_a, cJSON_CreateString("bench-versions"));
		for (size_t a = 0; a < p->args.n; a++)
			cJSON_AddItemToArray(argv_a, cJSON_CreateString(p->args.v[a]));
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
}

/* The plan for a person: the versions, each shard's cells and time, and
 * the command lines that measure and join the shards. */
static void print_text(const plan_out *p)
{
	printf("plan %s: %zu %s, %ld %s in %d %s; expected measuring %.1fs in all, %.1fs for the "
	       "longest shard\n",
	       p->id, p->n_versions, bv_plural((long long)p->n_versions, "version", "versions"), p->ncells,
	       bv_plural(p->ncells, "cell", "cells"), p->shards, bv_plural(p->shards, "shard", "shards"),
	       (double)p->all / 1000.0, (double)p->longest / 1000.0);
	printf("versions:\n");
	for (size_t i = 0; i < p->n_versions; i++) {
		char key[41] = "";
		int cached = 0;
		bv_build_key(&p->vs[i], key);
		bv_build_is_cached(&p->vs[i], &cached);
		printf("  %-12s kernels %-8s build %.12s (%s)\n", p->vs[i].label, p->vs[i].kernel_version,
		       key, cached ? "cached here" : "to build");
	}
	for (int s = 0; s < p->shards; s++) {
		long count = 0;
		for (long k = 0; k < p->ncells; k++)
			count += p->shard_of[k] == s;
		printf("shard %d/%d: %ld %s, expected %.1fs\n", s + 1, p->shards, count,
		       bv_plural(count, "cell", "cells"), (double)p->total[s] / 1000.0);
		for (long k = 0; k < p->ncells; k++)
			if (p->shard_of[k] == s)
				printf("  %s\n", cJSON_GetArrayItem(p->cells_json, (int)k)->valuestring);
	}
	if (p->cuda)
		printf("note: %ld cuda %s counted: a shard's node without a GPU skips %s at once\n",
		       p->cuda, bv_plural(p->cuda, "cell", "cells"), bv_plural(p->cuda, "it", "them"));
	printf("run shard I of %d with:\n  bench-versions", p->shards);
	for (size_t a = 0; a < p->args.n; a++) {
		putchar(' ');
		put_word(stdout, p->args.v[a]);
	}
	printf(" --shard I/%d\nthen join the %d result directories with:\n  bench-versions compare "
	       "DIR...\n",
	       p->shards, p->shards);
}

int bv_cmd_plan(int argc, char **argv)
{
	bv_run_cli c;
	bv_run_cli_init(&c);
	const char *format = "text", *filter = NULL;
	plan_out p;
	memset(&p, 0, sizeof(p));
	bv_option pipeline[BV_RUN_CLI_OPTIONS];
	bv_run_cli_table(&c, pipeline, NULL);
	const bv_option opts[] = {
	    BV_INT("--shards", &p.shards, "N", 1, BV_SHARDS_MAX,
	           "how many shards to cut the matrix into (machines, CI jobs or array tasks)"),
	    BV_ENUM("--format", &format, "F", plan_formats, "text (default) or json, for an engine to read"),
	    BV_STRING("--filter", &filter, "REGEX",
	              "as run's: only the cells whose bench/op/backend/size matches"),
	    BV_INCLUDE(pipeline, NULL),
	    BV_END,
	};
	char **names = bv_xcalloc((size_t)argc, sizeof(char *));
	long ncells = 0;
	int rc = bv_options_parse(opts, argc, argv, names, &p.n_versions), code;
	if ((code = bv_options_done(rc, p.n_versions == 0, "bench-versions plan", "plan", usage, opts)) >= 0 ||
	    (code = bv_options_done(plan_check(&c, p.shards, p.n_versions, filter, &ncells), 0,
				    "bench-versions plan", "plan", usage, opts)) >= 0)
		goto cleanup;
	if ((rc = plan_cut(names, &c.mo, argc, argv, &p)) != 0) {
		fprintf(stderr, "bench-versions plan: %s\n", bv_error_last());
		code = bv_exit_code(rc);
		goto cleanup;
	}
	if (!strcmp(format, "json"))
		print_json(&p);
	else
		print_text(&p);
	code = 0;
	if (fflush(stdout) != 0) {
		fprintf(stderr, "bench-versions plan: cannot write the output\n");
		code = BV_EXIT_FAILED;
	}
cleanup:
	bv_strv_free(&p.args);
	bv_plan_free(&p.run);
	for (size_t i = 0; p.vs && i < p.n_versions; i++)
		bv_version_free(&p.vs[i]);
	free(p.vs), free(names);
	return code;
}
