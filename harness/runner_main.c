/*
 * runner_main.c - bv-runner, the measuring host: one short process that loads
 * every version's plugin, then for each cell of the matrix checks every
 * version's output against the reference and times the versions alternately,
 * in a fresh random order each round, on the same input buffers.
 *
 * Why one process for all versions: on these machines a process keeps one
 * speed level for its whole life (measurement.md), so timing version A in one
 * process and B in another compares the levels, not the code.  Pairing A and B
 * inside each process cancels the level; the orchestrator then runs many such
 * processes and takes the median over them, because code placement still
 * differs between processes.  The plugins are loaded in a random order per
 * process, so neither version always gets the first address.
 *
 * Every cell is a benchmark of a suite: the bundled catalog's (catalog.c,
 * the suite "kernels") or a project's (bv_suite.h).  Each version's setup
 * makes the cell's inputs; in the timing child the versions' inputs are one
 * memory (bvs_alloc_shared through share_take), so no version runs on other
 * addresses or fresher pages than another.
 *
 * Why a child process per step: a version that crashes or hangs in one cell
 * must cost that cell only.  The runner forks a child to check each version
 * (one child per version, so a crash is pinned on the version that crashed)
 * and one child to time the versions that passed; a child that dies by a
 * signal or outlives --timeout becomes that cell's status, and the runner
 * goes on with the next cell.  Cells an earlier process of the same run has
 * checked (--checked) go straight to timing.
 *
 *   bv-runner --out FILE [--seed N] [--rounds N] [--sample-us N] [--timeout S]
 *             [--pin CPU] [--only I,J,..] [--checked I,J,..] [--drop I:LABEL]...
 *             [--cell-ms MS] [--threads N] [--inputs N] [--memory-limit BYTES] [--probe-fd FD]
 *             [--simd-isa ISA]
 *             [--benches L] [--ops L] [--backends L] [--sizes L]
 *             LABEL=PLUGIN.so ...
 *   bv-runner --calibrate --out FILE
 *   bv-runner --count --only I [--simd-isa ISA] [lists] --out FILE LABEL=PLUGIN.so
 *   bv-runner --describe --out FILE LABEL=PLUGIN.so ...
 *   bv-runner --load LABEL=PLUGIN.so ...
 *
 * --load loads each plugin as a measuring process does and exits: 0, or 3
 * with dlerror()'s reason (bench-versions checks a build this way before it
 * caches it, so a plugin that cannot load costs its own version's build,
 * not every later run).
 *
 * --describe writes each plugin's suite description (suite_plugin.c, schema
 * "bv-runner-describe/1": {"versions": {LABEL: description or null}}), which
 * bench-versions merges into the run's suite file; the runs that measure it
 * get --suite-file F --suite-hash H (as --ops-file, --ops-hash).  A suite
 * cell (BV_K_SUITE) is opened, checked and closed by its plugin; the runner
 * compares every version's output with the first LABEL's (the baseline).
 *
 * --count is for running under Valgrind's callgrind with --instr-atstart=no
 * --collect-atstart=no (bench-versions' counts stage, counts.c): one
 * version, one cell; simulation starts before one warm call, then the
 * counted call runs between two collection toggles, so callgrind's
 * file holds the timed call and nothing else: no setup, no input making, no
 * check.  In this process, no child: Valgrind is the isolation, and its exit
 * status and the file are what counts.c reads.
 *
 * Writes one JSON document (schema "bv-runner/2") with every cell's status
 * and raw samples per version; exit 0, or 2 on bad arguments, 3 when a plugin
 * cannot be loaded or the output cannot be written.  While it measures,
 * FILE.cell names the cell (and version) whose child runs (at_say).
 *
 * This file holds main, its options and what runs once per process
 * (loading the plugins, --describe, writing the document); the other
 * runner_*.c hold one stage of a cell each (runner_internal.h).
 */
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "runner_internal.h"
#include "calibrate.h"
#include "ops_file.h"
#include "numbers.h"
#include "suite_file.h"

static void usage(void)
{
	fprintf(stderr, "usage: bv-runner --out FILE [--seed N] [--rounds N] [--sample-us N] [--timeout S]\n"
			"                 [--pin CPU] [--only I,J] [--checked I,J] [--drop I:LABEL]\n"
			"                 [--cell-ms MS] [--threads N] [--inputs N] [--memory-limit BYTES]\n"
			"                 [--probe-fd FD]\n"
			"                 [--simd-isa ISA] [--ops-file FILE --ops-hash H]\n"
			"                 [--suite-file FILE --suite-hash H]\n"
			"                 [--benches L] [--ops L]\n"
			"                 [--backends L] [--sizes L] LABEL=PLUGIN ...\n"
			"       bv-runner --calibrate --out FILE\n"
			"       bv-runner --count --only I [--simd-isa ISA] [lists] --out FILE LABEL=PLUGIN\n"
			"       bv-runner --describe --out FILE LABEL=PLUGIN ...\n"
			"       bv-runner --load LABEL=PLUGIN ...\n");
	exit(2);
}

/* ---- main ------------------------------------------------------------- */

/* Loads a plugin.  The same file twice (an A/A run of one build) would give
 * the same handle, i.e. the same code at the same address; a private copy
 * makes it a second, independently placed library like any other version. */
static int load(version *v, const char *path, char loaded[][PATH_MAX], int nloaded)
{
	char real[PATH_MAX];
	if (!realpath(path, real)) {
		fprintf(stderr, "bv-runner: %s: %s\n", path, strerror(errno));
		return -1;
	}
	const char *use = real;
	char copy[] = "/tmp/bv-runner-XXXXXX.so";
	int is_copy = 0;
	for (int i = 0; i < nloaded; i++)
		if (strcmp(loaded[i], real) == 0) {
			int out = mkstemps(copy, 3), in = open(real, O_RDONLY);
			char buf[65536];
			ssize_t r;
			int ok = out >= 0 && in >= 0;
			while (ok && (r = read(in, buf, sizeof(buf))) > 0)
				ok = write(out, buf, (size_t)r) == r;
			if (in >= 0)
				close(in);
			if (out >= 0 && close(out) != 0)
				ok = 0;
			if (!ok) {
				fprintf(stderr, "bv-runner: cannot copy %s for a second load\n", real);
				return -1;
			}
			use = copy, is_copy = 1;
			break;
		}
	snprintf(loaded[nloaded], PATH_MAX, "%s", real);
	void *h = dlopen(use, RTLD_NOW | RTLD_LOCAL);
	if (is_copy)
		unlink(copy);
	bv_plugin_get_fn get = h ? (bv_plugin_get_fn)(uintptr_t)dlsym(h, BV_PLUGIN_SYMBOL) : NULL;
	if (!get) {
		fprintf(stderr, "bv-runner: cannot load plugin for %s: %s\n", v->label, dlerror());
		return -1;
	}
	v->p = get();
	if (v->p->abi != BV_PLUGIN_ABI) {
		fprintf(stderr, "bv-runner: plugin %s has ABI %d, expected %d\n", path, v->p->abi, BV_PLUGIN_ABI);
		return -1;
	}
	return 0;
}

/* Through a temporary file and rename(): a runner killed while writing (an
 * interrupted run) or a full disk never leaves half a document. */
static int write_doc(cJSON *doc, const char *out)
{
	char *text = cJSON_Print(doc);
	cJSON_Delete(doc);
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	FILE *f = text ? fopen(tmp, "w") : NULL;
	int ok = f && fputs(text, f) >= 0;
	int e = errno;
	if (f && fclose(f) != 0 && ok)
		ok = 0, e = errno;
	if (ok && rename(tmp, out) != 0)
		ok = 0, e = errno;
	free(text);
	if (!ok) {
		unlink(tmp);
		fprintf(stderr, "bv-runner: cannot write %s: %s\n", out, strerror(e));
		return 3;
	}
	return 0;
}

/* --describe: every version's suite description, checked here (so a bad
 * one is named by its version, not found in the merge), as one document:
 * {"schema": "bv-runner-describe/1", "versions": {LABEL: description, or
 * null for a plugin with no suite (plugin.c's)}}.  3 when a plugin's suite
 * breaks bv_suite.h's rules (suite_plugin.c) or its description is bad. */
static int describe_versions(const version *vs, int nv, const char *out)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", "bv-runner-describe/1");
	cJSON *vers = cJSON_AddObjectToObject(doc, "versions");
	for (int i = 0; i < nv; i++) {
		const bv_plugin *p = vs[i].p;
		if (!p->suite_describe) {
			cJSON_AddNullToObject(vers, vs[i].label);
			continue;
		}
		const char *text = p->suite_describe();
		cJSON *d = text ? cJSON_Parse(text) : NULL;
		char why[1024] = "", where[300];
		snprintf(where, sizeof(where), "(%s's description)", vs[i].label);
		if (!text)
			snprintf(why, sizeof(why), "%s", p->last_error());
		else if (!d)
			snprintf(why, sizeof(why), "its description is not JSON");
		else
			bv_suite_desc_check(where, d, why, sizeof(why));
		if (*why) {
			fprintf(stderr, "bv-runner: %s: the suite: %s\n", vs[i].label, why);
			cJSON_Delete(d);
			cJSON_Delete(doc);
			return 3;
		}
		cJSON_AddItemToObject(vers, vs[i].label, d);
	}
	return write_doc(doc, out);
}

/* ---- the runner's own numbers ----------------------------------------- */

/* Each numeric option through numbers.h's checked conversions: a value that
 * is not one ("--seed abc", "--rounds 5x", "--timeout nan") is an error
 * naming the option and the value, exit 2, never atoi's silent 0 (which
 * made `--seed abc` a random seed). */
static void bad_number(const char *opt, const char *val, const char *expected)
{
	fprintf(stderr, "bv-runner: %s '%s': expected %s\n", opt, val, expected);
	exit(2);
}

static long long int_option(const char *opt, const char *val, long long min, long long max)
{
	long long v;
	if (bv_parse_int(val, min, max, &v)) {
		char want[96];
		snprintf(want, sizeof(want), "a whole number from %lld to %lld", min, max);
		bad_number(opt, val, want);
	}
	return v;
}

static unsigned long long u64_option(const char *opt, const char *val)
{
	unsigned long long v;
	if (bv_parse_u64(val, ULLONG_MAX, &v)) {
		char want[96];
		snprintf(want, sizeof(want), "a whole number from 0 to %llu", ULLONG_MAX);
		bad_number(opt, val, want);
	}
	return v;
}

/* A finite number in (0, max] (or [0, max] when zero_ok). */
static double positive_option(const char *opt, const char *val, double max, int zero_ok, const char *unit)
{
	double v;
	if (bv_parse_double(val, 0, max, &v) || (!zero_ok && v == 0)) {
		char want[128];
		if (zero_ok)
			snprintf(want, sizeof(want), "a number of %s from 0 to %g", unit, max);
		else
			snprintf(want, sizeof(want), "a number of %s greater than 0 and at most %g", unit, max);
		bad_number(opt, val, want);
	}
	return v;
}

/* --only, --checked: "3,5,9", cell indices; listed() reads them as such. */
static void index_list_option(const char *opt, const char *val)
{
	for (const char *p = val; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char item[32];
		long long v;
		if (len == 0 || len >= sizeof(item))
			bad_number(opt, val, "cell indices separated by commas (3,5,9)");
		memcpy(item, p, len), item[len] = '\0';
		if (bv_parse_int(item, 0, LONG_MAX, &v))
			bad_number(opt, val, "cell indices separated by commas (3,5,9)");
		p = comma ? comma + 1 : p + len;
		if (comma && !*p)
			bad_number(opt, val, "cell indices separated by commas (3,5,9)");
	}
}

/* --drop I:LABEL: a cell index, then a version's label. */
static void drop_option(const char *val)
{
	const char *colon = strchr(val, ':');
	char item[32];
	long long v;
	size_t len = colon ? (size_t)(colon - val) : 0;
	if (!colon || !colon[1] || len == 0 || len >= sizeof(item))
		bad_number("--drop", val, "INDEX:LABEL, a cell index and a version");
	memcpy(item, val, len), item[len] = '\0';
	if (bv_parse_int(item, 0, LONG_MAX, &v))
		bad_number("--drop", val, "INDEX:LABEL, a cell index and a version");
}

/* Membership in "3,5,9", a list of cell indices (--only, --checked);
 * a NULL list holds every index when all is set, else none. */
static int listed(const char *only, long index, int all)
{
	if (!only)
		return all;
	for (const char *p = only; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p)
			return 0;
		if (v == index)
			return 1;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *only = NULL, *checked = NULL;
	bv_selection sel = {0};
	settings set = {21, 1e6, 60, 0, 1, 1};
	unsigned long long seed = 0;
	int pin = -1, calibrate = 0, count = 0, describe = 0, load_only = 0;
	char *labels[MAX_VERSIONS], *paths[MAX_VERSIONS];
	char **drops = calloc((size_t)argc, sizeof(char *));
	if (!drops) {
		fprintf(stderr, "bv-runner: out of memory\n");
		return 3;
	}
	int nv = 0, ndrops = 0;
	int probe_fd = -1; /* --probe-fd: the run's probe file (trust.h) */
	const char *simd_isa = NULL; /* --simd-isa: every version's simd backend forced onto it */
	const char *ops_file = NULL, *ops_hash = NULL; /* user-defined ops: bench-versions's file */
	const char *suite_file = NULL, *suite_hash = NULL; /* a suite's merged description */

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--calibrate") == 0)
			calibrate = 1;
		else if (strcmp(a, "--count") == 0)
			count = 1;
		else if (strcmp(a, "--describe") == 0)
			describe = 1;
		else if (strcmp(a, "--load") == 0)
			load_only = 1;
		else if (strcmp(a, "--out") == 0 && val)
			out = val, i++;
		else if (strcmp(a, "--seed") == 0 && val)
			seed = u64_option(a, val), i++;
		else if (strcmp(a, "--rounds") == 0 && val)
			set.rounds = (int)int_option(a, val, 1, 100000), i++;
		else if (strcmp(a, "--sample-us") == 0 && val)
			set.sample_ns = positive_option(a, val, 1e9, 0, "microseconds") * 1e3, i++;
		else if (strcmp(a, "--timeout") == 0 && val)
			set.timeout_s = positive_option(a, val, 1e7, 0, "seconds"), i++;
		else if (strcmp(a, "--pin") == 0 && val)
			pin = (int)int_option(a, val, 0, CPU_SETSIZE - 1), i++;
		else if (strcmp(a, "--only") == 0 && val)
			index_list_option(a, val), only = val, i++;
		else if (strcmp(a, "--checked") == 0 && val)
			index_list_option(a, val), checked = val, i++;
		else if (strcmp(a, "--cell-ms") == 0 && val)
			set.cell_ns = positive_option(a, val, 1e9, 1, "milliseconds") * 1e6, i++;
		else if (strcmp(a, "--threads") == 0 && val)
			set.threads = (int)int_option(a, val, 1, 1024), i++;
		else if (strcmp(a, "--inputs") == 0 && val)
			set.inputs = (int)int_option(a, val, 1, BV_MAX_INPUT_SETS), i++;
		else if (strcmp(a, "--simd-isa") == 0 && val)
			simd_isa = val, i++;
		else if (strcmp(a, "--probe-fd") == 0 && val)
			probe_fd = (int)int_option(a, val, 3, 1 << 20), i++;
		else if (strcmp(a, "--memory-limit") == 0 && val)
			memory_limit = u64_option(a, val), i++;
		else if (strcmp(a, "--drop") == 0 && val)
			drop_option(val), drops[ndrops++] = argv[++i];
		else if (strcmp(a, "--ops-file") == 0 && val)
			ops_file = val, i++;
		else if (strcmp(a, "--ops-hash") == 0 && val)
			ops_hash = val, i++;
		else if (strcmp(a, "--suite-file") == 0 && val)
			suite_file = val, i++;
		else if (strcmp(a, "--suite-hash") == 0 && val)
			suite_hash = val, i++;
		else if (strcmp(a, "--benches") == 0 && val)
			sel.benches = val, i++;
		else if (strcmp(a, "--ops") == 0 && val)
			sel.ops = val, i++;
		else if (strcmp(a, "--backends") == 0 && val)
			sel.backends = val, i++;
		else if (strcmp(a, "--sizes") == 0 && val)
			sel.sizes = val, i++;
		else if (a[0] != '-' && strchr(a, '=') && nv == MAX_VERSIONS) {
			/* bench-versions says so before it builds anything; this is
			 * for a runner started by hand. */
			fprintf(stderr, "bv-runner: at most %d versions in one process\n", MAX_VERSIONS);
			free(drops);
			return 2;
		} else if (a[0] != '-' && strchr(a, '=')) {
			char *eq = strchr(argv[i], '=');
			*eq = '\0';
			labels[nv] = argv[i], paths[nv] = eq + 1;
			nv++;
		} else
			usage();
	}
	/* A bench-versions killed outright (SIGKILL) takes its runner along:
	 * an orphan would go on writing into a results directory a resumed
	 * run now owns. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* What a kernel starts and orphans (a setsid()'d process) comes to us,
	 * not to init, so that in_child can end it with the cell. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if ((!out && !load_only) || (nv == 0 && !calibrate) || set.rounds < 1 || set.rounds > 100000 || !(set.sample_ns > 0) ||
	    !(set.timeout_s > 0) || set.threads < 1)
		usage();
	if (pin >= 0) {
		cpu_set_t cpus;
		CPU_ZERO(&cpus);
		CPU_SET(pin, &cpus);
		if (pin >= CPU_SETSIZE || sched_setaffinity(0, sizeof(cpus), &cpus) != 0) {
			fprintf(stderr, "bv-runner: cannot pin to CPU %d: %s\n", pin, strerror(errno));
			free(drops);
			return 2;
		}
	}
	if (calibrate) {
		free(drops);
		return write_doc(bv_calibrate(), out);
	}
	rng_state = seed ? seed : ((uint64_t)getpid() << 32 ^ (uint64_t)now_ns()) | 1;

	/* Load in a random order: the first library loaded tends to land at
	 * the same place relative to the host, and neither version should
	 * always get it.  The output keeps the order given. */
	version vs[MAX_VERSIONS] = {{0}};
	char(*loaded)[PATH_MAX] = calloc(MAX_VERSIONS, PATH_MAX);
	if (!loaded) {
		fprintf(stderr, "bv-runner: out of memory\n");
		exit(3);
	}
	int order[MAX_VERSIONS];
	for (int i = 0; i < nv; i++)
		order[i] = i, vs[i].label = labels[i];
	shuffle(order, nv);
	for (int k = 0; k < nv; k++)
		if (load(&vs[order[k]], paths[order[k]], loaded, k) != 0) {
			free(loaded); /* a plugin gone (cache removed mid-run): leak-free under LSan */
			free(drops);
			return 3;
		}
	free(loaded);
	if (load_only) {
		free(drops);
		return 0;
	}
	if (describe) {
		free(drops);
		return describe_versions(vs, nv, out);
	}
	/* Before any cell, in this process: the check and timing children
	 * inherit the choice.  A version whose library cannot be told (before
	 * kernels 0.2.0, which has no simd backend) keeps BV_NA and its simd
	 * cells say n/a on their own. */
	for (int i = 0; simd_isa && i < nv; i++) {
		int s = vs[i].p->set_simd_isa(simd_isa);
		if (s == BV_NA && vs[i].p->suite_open && !vs[i].p->catalog) {
			snprintf(vs[i].isa_refused, sizeof(vs[i].isa_refused), "--simd-isa %s: %s", simd_isa,
				 vs[i].p->last_error());
		}
		if (s != BV_OK && s != BV_NA) {
			fprintf(stderr, "bv-runner: --simd-isa %s: %s: %s\n", simd_isa, vs[i].label, vs[i].p->last_error());
			free(drops);
			return 2;
		}
	}

	/* The orchestrator's user-defined ops, the same bytes (its hash), or
	 * the cells' indices would name other cells. */
	if (ops_file) {
		char why[1024];
		if (bv_ops_file_load(ops_file, why, sizeof(why)) != 0) {
			fprintf(stderr, "bv-runner: %s\n", why);
			free(drops);
			return 2;
		}
		if (ops_hash && strcmp(ops_hash, bv_ops_file_hash()) != 0) {
			fprintf(stderr, "bv-runner: ops file %s changed during the run (hash %s, bench-versions read %s)\n",
				ops_file, bv_ops_file_hash(), ops_hash);
			free(drops);
			return 2;
		}
	}
	/* A catalog-suite plugin's registry gets the same user-defined ops
	 * (their definitions: ranges, tolerances, references), which its
	 * setup and check read. */
	for (int i = 0; ops_file && i < nv; i++) {
		static const char *const groups[] = {"unary", "binary"};
		if (!vs[i].p->catalog || !vs[i].p->catalog_add_ops)
			continue;
		for (int g = 0; g < 2; g++) {
			const bv_bench *b = bv_bench_find(groups[g]);
			bv_op_def *mine = b ? malloc((b->nops ? b->nops : 1) * sizeof(*mine)) : NULL;
			size_t n = 0;
			for (size_t k = 0; mine && k < b->nops; k++)
				if (b->ops[k].function)
					mine[n++] = b->ops[k];
			if (n && vs[i].p->catalog_add_ops(groups[g], mine, n) != BV_OK) {
				fprintf(stderr, "bv-runner: %s: %s\n", vs[i].label, vs[i].p->last_error());
				free(mine), free(drops);
				return 3;
			}
			free(mine);
		}
	}
	/* The suite's description as bench-versions merged it, the same bytes,
	 * registered after the ops file's ops (the cells' indices agree). */
	if (suite_file) {
		char why[1024];
		if (bv_suite_file_load(suite_file, why, sizeof(why)) != 0) {
			fprintf(stderr, "bv-runner: %s\n", why);
			free(drops);
			return 2;
		}
		if (suite_hash && strcmp(suite_hash, bv_suite_file_hash()) != 0) {
			fprintf(stderr,
				"bv-runner: suite file %s changed during the run (hash %s, bench-versions read %s)\n",
				suite_file, bv_suite_file_hash(), suite_hash);
			free(drops);
			return 2;
		}
	}
	bv_cell *cells;
	char err[1024];
	long ncells = bv_cells_select(&sel, &cells, err, sizeof(err));
	if (ncells < 0) {
		fprintf(stderr, "bv-runner: %s\n", err);
		free(drops);
		return 2;
	}

	if (count) {
		long at = -1;
		for (long i = 0; i < ncells && at < 0; i++)
			if (listed(only, i, 0))
				at = i;
		if (nv != 1 || at < 0) {
			fprintf(stderr, "bv-runner: --count takes one version and one cell (--only I)\n");
			free(cells);
			free(drops);
			return 2;
		}
		cJSON *doc = count_cell(&vs[0], &cells[at], at);
		free(cells);
		free(drops);
		return write_doc(doc, out);
	}

	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", "bv-runner/2");
	cJSON_AddNumberToObject(doc, "pid", (double)getpid());
	cJSON_AddNumberToObject(doc, "rounds", set.rounds);
	if (pin >= 0)
		cJSON_AddNumberToObject(doc, "pinned_cpu", pin);
	cJSON *vers = cJSON_AddArrayToObject(doc, "versions");
	for (int i = 0; i < nv; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "label", vs[i].label);
		cJSON_AddStringToObject(o, "kernel_version", vs[i].p->kernel_version());
		const char *isa = vs[i].p->simd_isa();
		if (isa)
			cJSON_AddStringToObject(o, "simd_isa", isa);
		else
			cJSON_AddNullToObject(o, "simd_isa");
		cJSON_AddItemToArray(vers, o);
	}
	cJSON_AddNumberToObject(doc, "threads", set.threads);
	/* Once per process, before any cell: the probe's pages are faulted in
	 * here, not in the first cell's probe.  Without the memory the state
	 * still has the load, and NAN (null) rates. */
	bv_probe probe = {0};
	bv_probe_init(&probe, probe_fd);
	if (probe_fd >= 0)
		close(probe_fd); /* mapped; the cells' children need no descriptor */
	cJSON *arr = cJSON_AddArrayToObject(doc, "cells");
	at_open(out);
	for (long i = 0; i < ncells; i++)
		if (listed(only, i, 1))
			cJSON_AddItemToArray(arr, measure_cell(vs, nv, &cells[i], i, &set, drops, ndrops,
							       listed(checked, i, 0), &probe));
	at_close(out);
	bv_probe_free(&probe);
	free(cells);
	free(drops);
	return write_doc(doc, out);
}
