/*
 * measure_resume.c - a run resumed (--resume DIR): its logs checked against
 * this run's plan (versions, trees, cells, method, builds, machine), the
 * numbering of its runner processes and its seed taken over, and every cell
 * finished in all versions' logs reused as it stands.
 *
 * Apart from the measuring because it reads logs, where the rest of the
 * stage writes them: every field it trusts is checked as hostile input.
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "benches.h"
#include "build.h"
#include "child.h"
#include "common.h"
#include "env.h"
#include "fs.h"
#include "json.h"
#include "machine.h"
#include "measure_resume.h"
#include "measure_session.h"
#include "ops_file.h"
#include "plan.h"
#include "proc.h"
#include "progress.h"
#include "resolve.h"
#include "results.h"
#include "shard.h"
#include "stats.h"
#include "status.h"
#include "suite.h"
#include "table.h"
#include "trust.h"
#include "verdict.h"

/* ---- resuming ---------------------------------------------------------- */

/* dir/<label>.json if it exists (*doc NULL if not), checked as every log
 * is (results.c): its cells are reused as they stand. */
static int prior_log(const char *dir, const bv_version *v, cJSON **doc)
{
	*doc = NULL;
	char *path = bv_ms_log_path(dir, v);
	int rc = 0;
	if (bv_exists(path) && (rc = bv_log_load(path, doc)) != 0)
		rc = bv_fail_context(BV_EINPUT, "--resume");
	free(path);
	return rc;
}

static int same_num(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)); }

/* The method fields that shape the numbers, and the options that set them. */
static const struct {
	const char *key, *option;
} method_keys[] = {
	{"min_processes", "--min-processes"}, {"max_processes", "--max-processes"}, {"budget_s", "--budget"},
	{"rounds", "--rounds"}, {"sample_us", "--sample-us"}, {"timeout_s", "--timeout"},
	{"threshold", "--threshold (as a fraction)"}, {"threads", "--threads"},
};

static int plan_differs(const char *dir, const char *what)
{
	return bv_fail(BV_EINPUT,
		       "--resume %s: %s; a run resumes only with the same versions, options and machine "
		       "(run without --resume to start afresh)",
		       dir, what);
}

/* --resume: the log compared the same versions, in the same order, and
 * this version's name resolves to the tree it measured. */
static int same_versions(const char *dir, const cJSON *doc, const bv_version *vs, size_t n, size_t i)
{
	const bv_version *v = &vs[i];
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(run, "versions");
	int same = cJSON_IsArray(labels) && (size_t)cJSON_GetArraySize(labels) == n;
	for (size_t k = 0; same && k < n; k++) {
		const cJSON *l = cJSON_GetArrayItem(labels, (int)k);
		same = cJSON_IsString(l) && !strcmp(l->valuestring, vs[k].label);
	}
	if (!same) {
		bv_buf was = BV_BUF_INIT, now = BV_BUF_INIT;
		const cJSON *l;
		cJSON_ArrayForEach(l, labels) bv_buf_printf(&was, "%s%s", was.len ? " " : "",
							    cJSON_IsString(l) ? l->valuestring : "?");
		for (size_t k = 0; k < n; k++)
			bv_buf_printf(&now, "%s%s", k ? " " : "", vs[k].label);
		char *msg = bv_asprintf("it compared %s, this command names %s", was.s ? was.s : "nothing", now.s);
		int rc = plan_differs(dir, msg);
		free(msg);
		bv_buf_free(&was), bv_buf_free(&now);
		return rc;
	}
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(doc, "version");
	const char *tree = bv_json_str(ver, "tree");
	if (!tree || strcmp(tree, v->tree)) {
		char *msg = bv_asprintf("%s resolves to %.24s now, to %.24s there (the code changed)", v->name, v->tree,
					tree ? tree : "nothing");
		int rc = plan_differs(dir, msg);
		free(msg);
		return rc;
	}
	return 0;
}

/* --resume: the log was measured with this command's method (mode,
 * processes, budget, rounds, sample, threads, inputs, ISA, layouts, shard,
 * pin, --quick). */
static int same_method(const char *dir, const cJSON *doc, const bv_measure_opts *o)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "method");
	const char *mode = bv_json_str(m, "mode");
	if (!mode || strcmp(mode, o->isolated ? "isolated" : "paired"))
		return plan_differs(dir, o->isolated ? "it was measured without --isolated" : "it was measured with --isolated");
	double now[] = {o->min_processes, o->max_processes, o->budget_s,  o->rounds,
			o->sample_us,	  o->timeout_s,	    o->threshold, o->threads};
	for (size_t k = 0; k < sizeof(method_keys) / sizeof(method_keys[0]); k++) {
		double was = NAN;
		int found = bv_json_num(m, method_keys[k].key, &was) == 0;
		if (!found || !same_num(was, now[k])) {
			/* A log from before the field existed (schema 1.0 has no
			 * threads) has no value to print. */
			char *msg = found ? bv_asprintf("%s differs: %g there, %g now", method_keys[k].option, was, now[k])
					  : bv_asprintf("%s: not recorded there, %g now", method_keys[k].option, now[k]);
			int rc = plan_differs(dir, msg);
			free(msg);
			return rc;
		}
	}
	/* --inputs (schema 1.9; an older log had one set) */
	double was_inputs = 1;
	bv_json_num(m, "inputs", &was_inputs);
	if (!same_num(was_inputs, o->inputs > 1 ? o->inputs : 1)) {
		char *msg = bv_asprintf("--inputs differs: %g there, %d now", was_inputs, o->inputs > 1 ? o->inputs : 1);
		int rc = plan_differs(dir, msg);
		free(msg);
		return rc;
	}
	const char *forced = bv_json_str(m, "simd_isa_forced"); /* NULL: not forced, or an older log */
	if ((forced != NULL) != (o->simd_isa != NULL) || (forced && strcmp(forced, o->simd_isa))) {
		char *msg = bv_asprintf("--simd-isa differs: %s there, %s now", forced ? forced : "not given",
					o->simd_isa ? o->simd_isa : "not given");
		int rc = plan_differs(dir, msg);
		free(msg);
		return rc;
	}
	double layouts = 1;
	bv_json_num(m, "layouts", &layouts);
	if ((int)layouts != (o->layouts > 1 ? o->layouts : 1)) {
		char *msg = bv_asprintf("--layouts differs: %g there, %d now", layouts, o->layouts > 1 ? o->layouts : 1);
		int rc = plan_differs(dir, msg);
		free(msg);
		return rc;
	}
	/* A shard resumes as the same shard of the same cut: another I/N
	 * would reuse cells of a slice it does not own. */
	const cJSON *shard = cJSON_GetObjectItemCaseSensitive(doc, "shard");
	double si = 0, sn = 0;
	bv_json_num(shard, "index", &si);
	bv_json_num(shard, "count", &sn);
	if ((int)si != o->shard_index || (int)sn != o->shard_count) {
		char *msg = si > 0 ? bv_asprintf("--shard differs: %g/%g there, ", si, sn) : bv_strdup("--shard differs: none there, ");
		char *full = o->shard_count ? bv_asprintf("%s%d/%d now", msg, o->shard_index, o->shard_count)
					    : bv_asprintf("%snone now", msg);
		int rc = plan_differs(dir, full);
		free(msg), free(full);
		return rc;
	}
	double pin = -1;
	bv_json_num(m, "pinned_cpu", &pin);
	if ((int)pin != o->pin)
		return plan_differs(dir, "--pin differs");
	const cJSON *quick = cJSON_GetObjectItemCaseSensitive(m, "quick");
	if (!cJSON_IsBool(quick) || cJSON_IsTrue(quick) != !!o->quick)
		return plan_differs(dir, o->quick ? "it was measured without --quick" : "it was measured with --quick");
	return 0;
}

static int check_one(const char *dir, const cJSON *doc, const bv_version *vs, size_t n, size_t i,
		     const bv_measure_opts *o, const bv_cell *defs, long ndefs, int after_build)
{
	const bv_version *v = &vs[i];
	int rc = same_versions(dir, doc, vs, n, i);
	if (rc == 0)
		rc = same_method(dir, doc, o);
	if (rc != 0)
		return rc;
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(doc, "version");
	const cJSON *cells = bv_log_cells(doc), *cell;
	long nc = cJSON_GetArraySize(cells), k = 0;
	int cells_same = ndefs < 0 || nc == 0 || nc == ndefs; /* ndefs < 0: not known yet */
	cJSON_ArrayForEach(cell, cells)
	{
		bv_log_cell c;
		if (!cells_same || ndefs < 0 || nc == 0 || k >= ndefs || bv_log_cell_read(cell, &c))
			break;
		cells_same = !strcmp(c.bench, defs[k].bench->name) && !strcmp(c.op, defs[k].op->name) &&
			     !strcmp(c.backend, defs[k].backend) && c.size == defs[k].size;
		k++;
	}
	if (!cells_same) {
		char *msg = bv_asprintf("its cells differ from this command's (--benches, --ops, --backends, --sizes, --filter): "
					"%ld there, %ld now",
					nc, ndefs);
		rc = plan_differs(dir, msg);
		free(msg);
		return rc;
	}
	if (!after_build)
		return 0;
	const cJSON *build = cJSON_GetObjectItemCaseSensitive(ver, "build");
	const char *key = bv_json_str(build, "key");
	if (key && v->build_key && strcmp(key, v->build_key)) {
		char *msg = bv_asprintf("%s's build differs (the harness, its compat rules or the compiler changed)",
					v->name);
		rc = plan_differs(dir, msg);
		free(msg);
		return rc;
	}
	const char *bstatus = bv_json_str(build, "status");
	int built = bv_status_parse(bstatus) == BV_ST_OK;
	if (bstatus && built != !!bv_ms_measurable(v)) {
		char *msg = bv_asprintf("%s %s there but %s now", v->name,
					built ? "built" : "failed to build",
					bv_ms_measurable(v) ? "builds" : "does not build");
		rc = plan_differs(dir, msg);
		free(msg);
		return rc;
	}
	cJSON *here = bv_machine_info();
	const cJSON *there = cJSON_GetObjectItemCaseSensitive(doc, "machine");
	const char *h1 = bv_json_str(here, "hostname"), *h2 = bv_json_str(there, "hostname");
	const char *c1 = bv_json_str(here, "cpu"), *c2 = bv_json_str(there, "cpu");
	if (!h1 || !h2 || strcmp(h1, h2) || !c1 || !c2 || strcmp(c1, c2)) {
		char *msg = bv_asprintf("it was measured on another machine (%s, %s)", h2 ? h2 : "?", c2 ? c2 : "?");
		rc = plan_differs(dir, msg);
		free(msg);
	}
	cJSON_Delete(here);
	return rc;
}

/* Runner processes one run may number (raw/process-N.json, processes_started):
 * far more than a run starts (--max-processes is at most 1000 per cell), far
 * below INT_MAX, so that numbering on from a resumed directory cannot
 * overflow.  A planted process-2147483647.json did: the resume wrote
 * process--2147483648.json and logs it then refused itself. */
#define BV_PROCESSES_MAX 100000000

/* N of raw/process-N.json as run_process names it (digits without a leading
 * zero): 1 and *k (past BV_PROCESSES_MAX when too long to parse); 0 for any
 * other name, which is not a runner's document. */
static int process_number(const char *name, long *k)
{
	const char *d = name + strlen("process-");
	size_t len = strspn(d, "0123456789");
	if (strncmp(name, "process-", strlen("process-")) || len == 0 || d[0] == '0' || strcmp(d + len, ".json"))
		return 0;
	*k = len > 9 ? BV_PROCESSES_MAX + 1L : strtol(d, NULL, 10);
	return 1;
}

/* The highest N of raw/process-N.json into *last: a run killed between two
 * log writes started more processes than its logs say, and their files stay.
 * An N past BV_PROCESSES_MAX no runner wrote: refused, naming the file. */
static int last_process(const char *raw, int *last)
{
	*last = 0;
	int rc = 0;
	DIR *d = opendir(raw);
	struct dirent *e;
	while (rc == 0 && d && (e = readdir(d))) {
		long k = 0;
		if (!process_number(e->d_name, &k))
			continue;
		if (k > BV_PROCESSES_MAX)
			rc = bv_fail(BV_EINPUT,
				     "--resume: %s/%s: process number past %d, more than a run starts: not a runner's "
				     "document (move it out of the run's directory to resume)",
				     raw, e->d_name, BV_PROCESSES_MAX);
		else if (k > *last)
			*last = (int)k;
	}
	if (d)
		closedir(d);
	return rc;
}

/* What a resume writes into and numbers on from: raw/ a directory of the
 * run's own (a link there carried 25 documents out of the run), the process
 * numbers of its files in range. */
static int check_raw(const char *dir)
{
	char *raw = bv_asprintf("%s/raw", dir);
	int last = 0, rc = bv_exists(raw) ? bv_mkdir_inside(dir, "raw") : 0;
	if (rc == 0)
		rc = last_process(raw, &last);
	free(raw);
	return rc;
}

/* A log's processes_started, numbered on from: in range, or the log refused
 * (a cast of 1e300 to int is undefined). */
static int check_started(const char *dir, const bv_version *v, const cJSON *doc)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "method"),
							  "processes_started");
	if (!p || (cJSON_IsNumber(p) && p->valuedouble >= 0 && p->valuedouble <= BV_PROCESSES_MAX &&
		   p->valuedouble == floor(p->valuedouble)))
		return 0;
	char *path = bv_ms_log_path(dir, v);
	int rc = bv_fail(BV_EINPUT, "--resume: %s: method.processes_started: expected a whole number from 0 to %d", path,
			 BV_PROCESSES_MAX);
	free(path);
	return rc;
}

int bv_resume_check_plan(const char *dir, const bv_version *vs, size_t n, bv_measure_opts *o, const bv_plan *plan,
			 int after_build)
{
	const bv_cell *defs = plan ? plan->cells : NULL;
	long ndefs = plan ? plan->ncells : -1;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		cJSON *doc = NULL;
		rc = prior_log(dir, &vs[i], &doc);
		if (rc == 0 && doc) {
			rc = check_one(dir, doc, vs, n, i, o, defs, ndefs, after_build);
			if (rc == 0)
				rc = check_started(dir, &vs[i], doc);
			double seed;
			/* The random orders go on from the same seed: a whole number
			 * a seed can be (a negative, huge or fractional one would be
			 * cast with undefined behaviour), else the log is refused. */
			if (rc == 0 && !bv_json_num(cJSON_GetObjectItemCaseSensitive(doc, "method"), "seed", &seed)) {
				if (!(seed >= 0 && seed < 18446744073709551616.0 && seed == floor(seed))) {
					char *path = bv_ms_log_path(dir, &vs[i]);
					rc = bv_fail(BV_EINPUT, "--resume: %s: method.seed: expected a whole number from 0 to "
								"18446744073709551615", path);
					free(path);
				} else
					o->seed = (unsigned long long)seed;
			}
		}
		cJSON_Delete(doc);
	}
	if (rc == 0)
		rc = check_raw(dir);
	return rc;
}

/* Takes over the cells every measurable version's log has finished. */
int bv_ms_resume_from(session *s)
{
	cJSON **docs = bv_xcalloc(s->n, sizeof(cJSON *));
	int rc = 0, any = 0;
	double started = 0;
	for (size_t i = 0; rc == 0 && i < s->n; i++) {
		rc = prior_log(s->dir, &s->vs[i], &docs[i]);
		if (rc == 0 && docs[i]) {
			any = 1;
			const cJSON *run = cJSON_GetObjectItemCaseSensitive(docs[i], "run");
			const char *created = bv_json_str(run, "created");
			if (created && !s->created[0]) {
				free(s->created);
				s->created = bv_strdup(created);
			}
			const cJSON *resumed = cJSON_GetObjectItemCaseSensitive(run, "resumed");
			if (cJSON_IsArray(resumed) && cJSON_GetArraySize(s->resumed) < cJSON_GetArraySize(resumed)) {
				cJSON_Delete(s->resumed);
				s->resumed = cJSON_Duplicate(resumed, 1);
			}
			double p;
			if (!bv_json_num(cJSON_GetObjectItemCaseSensitive(docs[i], "method"), "processes_started", &p) &&
			    p > started)
				started = p;
		}
	}
	size_t reused = 0;
	for (size_t c = 0; rc == 0 && any && c < s->ncells; c++) {
		cstate *cs = &s->cells[c];
		int all = 1, none = 1;
		for (size_t i = 0; all && i < s->n; i++) {
			if (!bv_ms_measurable(&s->vs[i]))
				continue;
			none = 0;
			const cJSON *cell = docs[i] ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(docs[i], "cells"),
									 (int)c)
						    : NULL;
			const char *st = bv_json_str(cell, "status");
			all = st && bv_status_parse(st) != BV_ST_UNFINISHED;
		}
		if (!all || none)
			continue;
		cs->prior = bv_xcalloc(s->n, sizeof(cJSON *));
		for (size_t i = 0; i < s->n; i++)
			if (bv_ms_measurable(&s->vs[i]))
				cs->prior[i] = cJSON_Duplicate(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(docs[i], "cells"),
										  (int)c),
							       1);
		cs->active = 0;
		reused++;
	}
	/* Both checked by bv_resume_check: in range, no sum can overflow. */
	int last = 0;
	if (rc == 0)
		rc = last_process(s->raw, &last);
	s->processes = last > (int)started ? last : (int)started;
	if (rc == 0)
		fprintf(stderr, "resume: %s: %zu of %zu %s reused (finished in %d earlier %s), %zu to measure\n", s->dir,
			reused, s->ncells, bv_plural((long long)s->ncells, "cell", "cells"), s->processes,
			bv_plural(s->processes, "process", "processes"), s->ncells - reused);
	for (size_t i = 0; i < s->n; i++)
		cJSON_Delete(docs[i]);
	free(docs);
	s->nwritten = reused;
	return rc;
}
