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
#include "parse_options.h"
#include "suite_file.h"

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

/* ---- the command line ------------------------------------------------- */

/* What the command line asked for: the options' table writes here. */
typedef struct runner_args {
	const char *out, *only, *checked;
	bv_selection sel;
	settings set;
	unsigned long long seed;
	int pin, calibrate, count, describe, load_only;
	char **drops; /* --drop I:LABEL, each as given (room for argc) */
	int ndrops;
	char *labels[MAX_VERSIONS], *paths[MAX_VERSIONS];
	int nv;
	int probe_fd;                        /* --probe-fd: the run's probe file (trust.h) */
	const char *simd_isa;                /* --simd-isa: every version's simd backend forced onto it */
	const char *ops_file, *ops_hash;     /* user-defined ops: bench-versions's file */
	const char *suite_file, *suite_hash; /* a suite's merged description */
} runner_args;

static runner_args args = {.set = {21, 1e6, 60, 0, 1, 1}, .pin = -1, .probe_fd = -1};

/* --only, --checked: "3,5,9", cell indices; listed() reads them as such. */
static const char *index_list(const bv_option *o, const char *val)
{
	static const char want[] = "cell indices separated by commas (3,5,9)";
	for (const char *p = val; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char item[32];
		long long v;
		if (len == 0 || len >= sizeof(item))
			return want;
		memcpy(item, p, len), item[len] = '\0';
		if (bv_parse_int(item, 0, LONG_MAX, &v))
			return want;
		p = comma ? comma + 1 : p + len;
		if (comma && !*p)
			return want;
	}
	*(const char **)o->dest = val;
	return NULL;
}

/* --drop I:LABEL: a cell index, then a version's label; given once per
 * version and cell dropped. */
static const char *drop(const bv_option *o, const char *val)
{
	static const char want[] = "INDEX:LABEL, a cell index and a version";
	runner_args *a = o->dest;
	const char *colon = strchr(val, ':');
	char item[32];
	long long v;
	size_t len = colon ? (size_t)(colon - val) : 0;
	if (!colon || !colon[1] || len == 0 || len >= sizeof(item))
		return want;
	memcpy(item, val, len), item[len] = '\0';
	if (bv_parse_int(item, 0, LONG_MAX, &v))
		return want;
	a->drops[a->ndrops++] = (char *)val; /* argv's own */
	return NULL;
}

/* The options, one table, parsed by bench-versions's own parser
 * (parse_options.h): every number through numbers.h's checked conversions,
 * so a value that is not one ("--seed abc", "--rounds 5x", "--timeout nan")
 * is an error naming the option and the value, exit 2, never atoi's silent
 * 0 (which made `--seed abc` a random seed).  The names are the ones
 * bench-versions passes (measure.c, counts.c, build.c). */
static const bv_option options[] = {
	BV_STRING("--out", &args.out, "FILE", "where the document goes (through FILE.tmp)"),
	BV_U64("--seed", &args.seed, "N", "the random orders' seed (0: from the pid and the clock)"),
	BV_INT("--rounds", &args.set.rounds, "N", 1, 100000, "rounds of the versions per cell"),
	BV_DOUBLE("--sample-us", &args.set.sample_ns, "US", 0, 1e9, "microseconds", "one sample's target time",
		  .above_min = 1, .scale = 1e3),
	BV_DOUBLE("--timeout", &args.set.timeout_s, "S", 0, 1e7, "seconds", "what a check or timing child may take",
		  .above_min = 1),
	BV_INT("--pin", &args.pin, "CPU", 0, CPU_SETSIZE - 1, "run on this CPU alone"),
	BV_CALLBACK("--only", &args.only, "I,J", index_list, "measure these cells alone (their indices)"),
	BV_CALLBACK("--checked", &args.checked, "I,J", index_list, "cells checked before: timed at once"),
	BV_CALLBACK("--drop", &args, "I:LABEL", drop, "version LABEL is not measured in cell I (repeatable)"),
	BV_DOUBLE("--cell-ms", &args.set.cell_ns, "MS", 0, 1e9, "milliseconds",
		  "time for one cell in this process (0: the rounds asked)", .scale = 1e6),
	BV_INT("--threads", &args.set.threads, "N", 1, 1024, "threads a backend may use"),
	BV_INT("--inputs", &args.set.inputs, "N", 1, BV_MAX_INPUT_SETS, "input sets cycled through"),
	BV_U64("--memory-limit", &memory_limit, "BYTES", "what a child may allocate beyond the runner"),
	BV_INT("--probe-fd", &args.probe_fd, "FD", 3, 1 << 20, "the run's probe file (trust.h)"),
	BV_STRING("--simd-isa", &args.simd_isa, "ISA", "every version's simd backend forced onto ISA"),
	BV_STRING("--ops-file", &args.ops_file, "FILE", "user-defined ops, bench-versions's file"),
	BV_STRING("--ops-hash", &args.ops_hash, "H", "the ops file's hash as bench-versions read it"),
	BV_STRING("--suite-file", &args.suite_file, "FILE", "the suite's merged description"),
	BV_STRING("--suite-hash", &args.suite_hash, "H", "the suite file's hash as bench-versions read it"),
	BV_STRING("--benches", &args.sel.benches, "L", "the cells: these benchmarks"),
	BV_STRING("--ops", &args.sel.ops, "L", "the cells: these ops"),
	BV_STRING("--backends", &args.sel.backends, "L", "the cells: these backends"),
	BV_STRING("--sizes", &args.sel.sizes, "L", "the cells: these sizes"),
	BV_FLAG("--calibrate", &args.calibrate, "the machine's calibration; no plugin"),
	BV_FLAG("--count", &args.count, "one version, one cell (--only I), for callgrind"),
	BV_FLAG("--describe", &args.describe, "each plugin's suite description"),
	BV_FLAG("--load", &args.load_only, "load each plugin, then exit"),
	BV_END,
};

static void usage(FILE *out)
{
	fprintf(out, "usage: bv-runner --out FILE [options] LABEL=PLUGIN ...\n"
		     "       bv-runner --calibrate --out FILE\n"
		     "       bv-runner --count --only I [--simd-isa ISA] [lists] --out FILE LABEL=PLUGIN\n"
		     "       bv-runner --describe --out FILE LABEL=PLUGIN ...\n"
		     "       bv-runner --load LABEL=PLUGIN ...\n\n");
	bv_print_options(options, out);
}

/* The versions, LABEL=PLUGIN each: 0, or -1 with why. */
static int take_versions(runner_args *a, char **pos, size_t npos, char *why, size_t len)
{
	for (size_t i = 0; i < npos; i++) {
		char *eq = strchr(pos[i], '=');
		if (!eq || eq == pos[i]) {
			snprintf(why, len, "'%s': expected LABEL=PLUGIN, a version's label and its plugin", pos[i]);
			return -1;
		}
		if (a->nv == MAX_VERSIONS) { /* bench-versions says so before it builds anything */
			snprintf(why, len, "at most %d versions in one process", MAX_VERSIONS);
			return -1;
		}
		*eq = '\0';
		a->labels[a->nv] = pos[i], a->paths[a->nv++] = eq + 1;
	}
	return 0;
}

/* Parses the command line into a: -1 to go on, else the exit code (0 after
 * --help, 2 on a bad command line, said on stderr). */
static int parse_args(runner_args *a, int argc, char **argv)
{
	char why[PATH_MAX + 128];
	char **pos = calloc((size_t)argc, sizeof(char *));
	a->drops = calloc((size_t)argc, sizeof(char *));
	size_t npos = 0;
	if (!pos || !a->drops) {
		free(pos);
		fprintf(stderr, "bv-runner: out of memory\n");
		return 3;
	}
	int rc = bv_parse_options(options, argc, argv, pos, &npos);
	if (rc < 0)
		snprintf(why, sizeof(why), "%s", bv_parse_options_error());
	else if (rc == 0)
		rc = take_versions(a, pos, npos, why, sizeof(why));
	free(pos);
	if (rc == 1) {
		usage(stdout);
		return 0;
	}
	if (rc == 0 && !a->out && !a->load_only)
		rc = -1, snprintf(why, sizeof(why), "no --out FILE given");
	else if (rc == 0 && a->nv == 0 && !a->calibrate)
		rc = -1, snprintf(why, sizeof(why), "no version given (LABEL=PLUGIN)");
	if (rc == 0)
		return -1;
	fprintf(stderr, "bv-runner: %s (see bv-runner --help)\n", why);
	return 2;
}

/* ---- the steps of a run ----------------------------------------------- */

static int pin_to(int cpu)
{
	cpu_set_t cpus;
	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	if (cpu >= CPU_SETSIZE || sched_setaffinity(0, sizeof(cpus), &cpus) != 0) {
		fprintf(stderr, "bv-runner: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
		return 2;
	}
	return 0;
}

/* Load in a random order: the first library loaded tends to land at the
 * same place relative to the host, and neither version should always get
 * it.  The output keeps the order given.  0, or 3. */
static int load_versions(version *vs, const runner_args *a)
{
	char(*loaded)[PATH_MAX] = calloc(MAX_VERSIONS, PATH_MAX);
	if (!loaded) {
		fprintf(stderr, "bv-runner: out of memory\n");
		return 3;
	}
	int order[MAX_VERSIONS];
	for (int i = 0; i < a->nv; i++)
		order[i] = i, vs[i].label = a->labels[i];
	shuffle(order, a->nv);
	int rc = 0;
	for (int k = 0; k < a->nv && !rc; k++)
		if (load(&vs[order[k]], a->paths[order[k]], loaded, k) != 0)
			rc = 3; /* a plugin gone (cache removed mid-run) */
	free(loaded);
	return rc;
}

/* Before any cell, in this process: the check and timing children
 * inherit the choice.  A version whose library cannot be told (before
 * kernels 0.2.0, which has no simd backend) keeps BV_NA and its simd
 * cells say n/a on their own.  0, or 2. */
static int force_simd_isa(version *vs, int nv, const char *simd_isa)
{
	for (int i = 0; simd_isa && i < nv; i++) {
		int s = vs[i].p->set_simd_isa(simd_isa);
		if (s == BV_NA && vs[i].p->suite_open && !vs[i].p->catalog) {
			snprintf(vs[i].isa_refused, sizeof(vs[i].isa_refused), "--simd-isa %s: %s", simd_isa,
				 vs[i].p->last_error());
		}
		if (s != BV_OK && s != BV_NA) {
			fprintf(stderr, "bv-runner: --simd-isa %s: %s: %s\n", simd_isa, vs[i].label, vs[i].p->last_error());
			return 2;
		}
	}
	return 0;
}

/* The orchestrator's user-defined ops, the same bytes (its hash), or the
 * cells' indices would name other cells.  A catalog-suite plugin's
 * registry gets the same ops (their definitions: ranges, tolerances,
 * references), which its setup and check read.  0, 2 or 3. */
static int load_ops(version *vs, const runner_args *a)
{
	char why[1024];
	if (!a->ops_file)
		return 0;
	if (bv_ops_file_load(a->ops_file, why, sizeof(why)) != 0) {
		fprintf(stderr, "bv-runner: %s\n", why);
		return 2;
	}
	if (a->ops_hash && strcmp(a->ops_hash, bv_ops_file_hash()) != 0) {
		fprintf(stderr, "bv-runner: ops file %s changed during the run (hash %s, bench-versions read %s)\n",
			a->ops_file, bv_ops_file_hash(), a->ops_hash);
		return 2;
	}
	for (int i = 0; i < a->nv; i++) {
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
				free(mine);
				return 3;
			}
			free(mine);
		}
	}
	return 0;
}

/* The suite's description as bench-versions merged it, the same bytes,
 * registered after the ops file's ops (the cells' indices agree).  0, or 2. */
static int load_suite(const runner_args *a)
{
	char why[1024];
	if (!a->suite_file)
		return 0;
	if (bv_suite_file_load(a->suite_file, why, sizeof(why)) != 0) {
		fprintf(stderr, "bv-runner: %s\n", why);
		return 2;
	}
	if (a->suite_hash && strcmp(a->suite_hash, bv_suite_file_hash()) != 0) {
		fprintf(stderr, "bv-runner: suite file %s changed during the run (hash %s, bench-versions read %s)\n",
			a->suite_file, bv_suite_file_hash(), a->suite_hash);
		return 2;
	}
	return 0;
}

/* --count: the first cell --only names, of the one version. */
static int count_one(version *vs, const runner_args *a, const bv_cell *cells, long ncells)
{
	long at = -1;
	for (long i = 0; i < ncells && at < 0; i++)
		if (listed(a->only, i, 0))
			at = i;
	if (a->nv != 1 || at < 0) {
		fprintf(stderr, "bv-runner: --count takes one version and one cell (--only I)\n");
		return 2;
	}
	return write_doc(count_cell(&vs[0], &cells[at], at), a->out);
}

/* The document's head: the process, and each version as loaded. */
static cJSON *doc_head(const version *vs, const runner_args *a)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", "bv-runner/2");
	cJSON_AddNumberToObject(doc, "pid", (double)getpid());
	cJSON_AddNumberToObject(doc, "rounds", a->set.rounds);
	if (a->pin >= 0)
		cJSON_AddNumberToObject(doc, "pinned_cpu", a->pin);
	cJSON *vers = cJSON_AddArrayToObject(doc, "versions");
	for (int i = 0; i < a->nv; i++) {
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
	cJSON_AddNumberToObject(doc, "threads", a->set.threads);
	return doc;
}

/* Every cell --only names (all without it), each measured in turn. */
static int measure_all(version *vs, const runner_args *a, const bv_cell *cells, long ncells)
{
	cJSON *doc = doc_head(vs, a);
	/* Once per process, before any cell: the probe's pages are faulted in
	 * here, not in the first cell's probe.  Without the memory the state
	 * still has the load, and NAN (null) rates. */
	bv_probe probe = {0};
	bv_probe_init(&probe, a->probe_fd);
	if (a->probe_fd >= 0)
		close(a->probe_fd); /* mapped; the cells' children need no descriptor */
	cJSON *arr = cJSON_AddArrayToObject(doc, "cells");
	at_open(a->out);
	for (long i = 0; i < ncells; i++)
		if (listed(a->only, i, 1))
			cJSON_AddItemToArray(arr, measure_cell(vs, a->nv, &cells[i], i, &a->set, a->drops, a->ndrops,
							       listed(a->checked, i, 0), &probe));
	at_close(a->out);
	bv_probe_free(&probe);
	return write_doc(doc, a->out);
}

/* What the command line asked for, once read: the exit code. */
static int run(runner_args *a)
{
	/* A bench-versions killed outright (SIGKILL) takes its runner along:
	 * an orphan would go on writing into a results directory a resumed
	 * run now owns. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* What a kernel starts and orphans (a setsid()'d process) comes to us,
	 * not to init, so that in_child can end it with the cell. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (a->pin >= 0 && pin_to(a->pin) != 0)
		return 2;
	if (a->calibrate)
		return write_doc(bv_calibrate(), a->out);
	rng_state = a->seed ? a->seed : ((uint64_t)getpid() << 32 ^ (uint64_t)now_ns()) | 1;
	version vs[MAX_VERSIONS] = {{0}};
	int rc = load_versions(vs, a);
	if (rc || a->load_only)
		return rc;
	if (a->describe)
		return describe_versions(vs, a->nv, a->out);
	if ((rc = force_simd_isa(vs, a->nv, a->simd_isa)) || (rc = load_ops(vs, a)) || (rc = load_suite(a)))
		return rc;
	bv_cell *cells;
	char err[1024];
	long ncells = bv_cells_select(&a->sel, &cells, err, sizeof(err));
	if (ncells < 0) {
		fprintf(stderr, "bv-runner: %s\n", err);
		return 2;
	}
	rc = a->count ? count_one(vs, a, cells, ncells) : measure_all(vs, a, cells, ncells);
	free(cells);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = parse_args(&args, argc, argv);
	if (rc < 0)
		rc = run(&args);
	free(args.drops);
	return rc;
}
