/*
 * merge.c - the merge stage: results logs into one comparison table.
 *
 * A row per bench/op/backend/size, a column per log in the order given; the
 * first log is the baseline.  A version measured in the same run as the
 * baseline carries its ratios (measure.c) and those are used; otherwise the
 * ratio of medians is shown, marked unpaired, with a deliberately wide
 * interval (the quotient of the two medians' intervals).  Pairing needs the
 * same run (run.id) and machine: a log from another run may carry a change
 * block against a baseline that merely has the same label.  Logs from
 * another machine (hostname or cpu differ) get no ratio unless asked for.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "json.h"
#include "stages.h"
#include "stats.h"

static int row_index(bv_table *t, const char *bench, const char *op, const char *backend, size_t size)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].size == size && !strcmp(t->rows[i].bench, bench) && !strcmp(t->rows[i].op, op) &&
		    !strcmp(t->rows[i].backend, backend))
			return (int)i;
	t->rows = bv_xrealloc(t->rows, (t->nrows + 1) * sizeof(bv_row));
	bv_row *r = &t->rows[t->nrows];
	memset(r, 0, sizeof(*r));
	r->bench = bv_strdup(bench), r->op = bv_strdup(op), r->backend = bv_strdup(backend);
	r->size = size;
	const bv_bench *b = bv_bench_find(bench);
	for (size_t k = 0; b && k < b->nops; k++)
		if (!strcmp(b->ops[k].name, op)) {
			bv_cell c = {b, &b->ops[k], backend, size};
			r->bytes = bv_cell_bytes(&c), r->flops = bv_cell_flops(&c);
		}
	r->results = calloc(t->nversions, sizeof(bv_result));
	r->changes = calloc(t->nversions, sizeof(bv_change));
	for (size_t v = 0; v < t->nversions; v++)
		r->results[v].status = "n/a";
	return (int)t->nrows++;
}

/* Canonical status strings, so exporters can compare pointers or strings. */
static const char *status_of(const char *s)
{
	static const char *const known[] = {"ok", "n/a", "skipped", "wrong result", "failed", "build failed",
					    "crashed", "timeout", "out of memory", "unfinished", NULL};
	for (int i = 0; s && known[i]; i++)
		if (!strcmp(s, known[i]))
			return known[i];
	return "failed";
}

/* "1.1": the major number, digits only on both sides of one dot. */
static int schema_major(const char *sv, unsigned long *major)
{
	size_t a = strspn(sv, "0123456789");
	if (a == 0 || a > 6 || sv[a] != '.' || sv[a + 1] == '\0' || strspn(sv + a + 1, "0123456789") != strlen(sv + a + 1))
		return 0;
	*major = strtoul(sv, NULL, 10);
	return 1;
}

/* A count or a size from a log: absent (*out unchanged, 0), or a whole
 * number in [0, max] (0), else -1.  Casting anything else to an integer type
 * would be undefined (found by fuzz_results_log: a size of 1e300). */
static int whole_number(const cJSON *o, const char *key, double max, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v)
		return 0;
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= max) ||
	    v->valuedouble != floor(v->valuedouble))
		return -1;
	*out = v->valuedouble;
	return 0;
}

/* The better of a [before, after] pair of a state field: the higher
 * bandwidth (dir < 0 keeps the max) or the shorter compute step (dir > 0
 * keeps the min); NAN if none.  Why the better: verdict.c. */
static double better_of(const cJSON *state, const char *key, int dir)
{
	const cJSON *pair = cJSON_GetObjectItemCaseSensitive(state, key), *x;
	double w = NAN;
	cJSON_ArrayForEach(x, pair) if (cJSON_IsNumber(x) && isfinite(x->valuedouble) && x->valuedouble > 0) w =
	    isnan(w) ? x->valuedouble : dir < 0 ? fmax(w, x->valuedouble) : fmin(w, x->valuedouble);
	return w;
}

/* process_ratios[] and, aligned with it, process_state[] into ch. */
static void read_processes(const cJSON *change, bv_change *ch)
{
	const cJSON *pr = cJSON_GetObjectItemCaseSensitive(change, "process_ratios");
	const cJSON *ps = cJSON_GetObjectItemCaseSensitive(change, "process_state");
	int n = cJSON_IsArray(pr) ? cJSON_GetArraySize(pr) : 0;
	int aligned = cJSON_IsArray(ps) && cJSON_GetArraySize(ps) == n;
	if (n <= 0)
		return;
	ch->proc_ratio = calloc((size_t)n, sizeof(double));
	ch->proc_gbps = calloc((size_t)n, sizeof(double));
	ch->proc_compute_ns = calloc((size_t)n, sizeof(double));
	ch->proc_running = calloc((size_t)n, sizeof(double));
	for (int k = 0; k < n; k++) {
		const cJSON *x = cJSON_GetArrayItem(pr, k);
		double r = cJSON_IsNumber(x) ? x->valuedouble : NAN;
		if (!(isfinite(r) && r > 0))
			continue; /* carries no evidence; its state is dropped with it */
		const cJSON *st = aligned ? cJSON_GetArrayItem(ps, k) : NULL;
		ch->proc_ratio[ch->nproc] = r;
		ch->proc_gbps[ch->nproc] = better_of(st, "probe_gbps", -1);
		ch->proc_compute_ns[ch->nproc] = better_of(st, "probe_compute_ns", +1);
		ch->proc_running[ch->nproc] = better_of(st, "running", +1); /* the fewer */
		ch->nproc++;
	}
}

static int load_log(const char *path, cJSON **doc)
{
	unsigned long major = 0;
	int rc = bv_json_load(path, (size_t)1 << 30, doc);
	if (rc)
		return rc;
	const char *schema = bv_json_str(*doc, "schema");
	const char *sv = bv_json_str(*doc, "schema_version");
	if (!schema || strcmp(schema, "bench-versions-results") != 0 || !sv)
		rc = bv_fail(BV_EINPUT, "%s: not a bench-versions results log (no \"schema\")", path);
	else if (!schema_major(sv, &major)) {
		char *shown = bv_escape(sv); /* the log's text: shown, never obeyed */
		rc = bv_fail(BV_EINPUT, "%s: schema_version: expected \"MAJOR.MINOR\", got '%.32s'", path, shown);
		free(shown);
	} else if (major != 1)
		rc = bv_fail(BV_EINPUT, "%s: results schema %s is %s than this bench-versions reads (1.x)", path, sv,
			     major > 1 ? "newer" : "older");
	else if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(*doc, "cells")) ||
		 !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(*doc, "version")))
		rc = bv_fail(BV_EINPUT, "%s: missing \"version\" or \"cells\"", path);
	if (rc) {
		cJSON_Delete(*doc);
		*doc = NULL;
	}
	return rc;
}

/* Text from a log is hostile input: control characters (terminal escapes,
 * newlines that would forge table lines) are escaped (bv_escape).  Exporters
 * still escape for their format; this only keeps every string one printable
 * line. */
static char *clean_dup(const char *s) { return bv_escape(s); }

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static int same_str(const char *a, const char *b) { return a && b ? !strcmp(a, b) : a == b; }

static void add_note(bv_table *t, char *note)
{
	t->notes = bv_xrealloc(t->notes, (t->nnotes + 1) * sizeof(char *));
	t->notes[t->nnotes++] = note;
}

/* Labels must be unique columns; logs from different runs often share one
 * ("main" twice), so every label that repeats gets its run id, and a label
 * that still repeats (the same log twice) its position. */
static void unique_labels(bv_table *t, cJSON **docs)
{
	size_t n = t->nversions;
	int *dup = calloc(n, sizeof(int));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (i != j && !strcmp(t->labels[i], t->labels[j]))
				dup[i] = 1;
	for (size_t i = 0; i < n; i++)
		if (dup[i]) {
			const char *id = bv_json_str(cJSON_GetObjectItemCaseSensitive(docs[i], "run"), "id");
			char *id_clean = clean_dup(id ? id : "?");
			char *l = bv_asprintf("%s@%s", t->labels[i], id_clean);
			free(id_clean);
			free(t->labels[i]);
			t->labels[i] = l;
		}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			if (!strcmp(t->labels[i], t->labels[j])) {
				char *l = bv_asprintf("%s-%zu", t->labels[i], i + 1);
				free(t->labels[i]);
				t->labels[i] = l;
				break;
			}
	free(dup);
}

static char *machine_desc(const cJSON *doc)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "machine");
	const char *host = bv_json_str(m, "hostname"), *cpu = bv_json_str(m, "cpu");
	char *h = clean_dup(host ? host : "?"), *c = clean_dup(cpu ? cpu : "?");
	char *d = bv_asprintf("%s, %s", h, c);
	free(h), free(c);
	return d;
}

int bv_merge_logs(char *const *paths, size_t n, double threshold, bv_table *out)
{
	bv_merge_opts o = {threshold, 0};
	return bv_merge(paths, n, &o, out);
}

int bv_merge(char *const *paths, size_t n, const bv_merge_opts *o, bv_table *t)
{
	memset(t, 0, sizeof(*t));
	t->nversions = n;
	t->labels = calloc(n, sizeof(char *));
	t->descriptions = calloc(n, sizeof(char *));
	cJSON **docs = calloc(n, sizeof(cJSON *));
	/* Per log: its ratios may be the paired ones (same run and machine as
	 * the baseline), may fall back to the ratio of medians, or may not be
	 * formed at all (another machine, unless asked). */
	int *same_run = calloc(n, sizeof(int)), *other_machine = calloc(n, sizeof(int));
	char *base_label = NULL; /* the baseline's label as the logs' change blocks name it */
	double threshold = o->threshold;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = load_log(paths[i], &docs[i]);
	if (rc == 0 && n > 0 && threshold < 0 &&
	    bv_json_num(cJSON_GetObjectItemCaseSensitive(docs[0], "method"), "threshold", &threshold))
		threshold = 0.01;
	if (threshold < 0 || threshold >= 10)
		threshold = 0.01;
	t->threshold = threshold;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const char *label = bv_json_str(cJSON_GetObjectItemCaseSensitive(docs[i], "version"), "label");
		t->labels[i] = clean_dup(label ? label : "?");
		if (i == 0)
			base_label = bv_strdup(label ? label : "");
		const cJSON *run0 = cJSON_GetObjectItemCaseSensitive(docs[0], "run");
		const cJSON *run = cJSON_GetObjectItemCaseSensitive(docs[i], "run");
		const cJSON *m0 = cJSON_GetObjectItemCaseSensitive(docs[0], "machine");
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(docs[i], "machine");
		other_machine[i] = !same_str(bv_json_str(m0, "hostname"), bv_json_str(m, "hostname")) ||
				   !same_str(bv_json_str(m0, "cpu"), bv_json_str(m, "cpu"));
		/* A log without a run id cannot prove it shares the baseline's processes. */
		same_run[i] = !other_machine[i] && bv_json_str(run, "id") &&
			      same_str(bv_json_str(run0, "id"), bv_json_str(run, "id"));
	}
	if (rc == 0)
		unique_labels(t, docs);
	for (size_t i = 1; i < n && rc == 0; i++) {
		const char *file = base_name(paths[i]);
		char *named = strncmp(file, t->labels[i], strlen(t->labels[i])) || strcmp(file + strlen(t->labels[i]), ".json")
				      ? bv_asprintf("%s (column %s)", file, t->labels[i])
				      : bv_strdup(file);
		char *clean = clean_dup(named);
		if (other_machine[i]) {
			char *here = machine_desc(docs[i]), *base = machine_desc(docs[0]);
			if (o->across_machines)
				add_note(t, bv_asprintf("%s was measured on another machine (%s; the baseline on %s); its "
							"ratios are unpaired and include the difference between the machines",
							clean, here, base));
			else
				add_note(t, bv_asprintf("%s was measured on another machine (%s; the baseline on %s); no "
							"ratios unless --across-machines",
							clean, here, base));
			free(here), free(base);
		} else if (!same_run[i])
			add_note(t, bv_asprintf("%s is from another run than the baseline; its ratios are unpaired "
						"(ratio of medians, wider intervals)",
						clean));
		else {
			/* Same run, but its ratios were taken against another version. */
			const char *rb = bv_json_str(cJSON_GetObjectItemCaseSensitive(docs[i], "run"), "baseline");
			if (rb && strcmp(rb, base_label))
				add_note(t, bv_asprintf("%s was paired with another baseline in its run; its ratios to "
							"the first log are unpaired (ratio of medians, wider intervals)",
							clean));
		}
		free(clean), free(named);
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		const cJSON *ver = cJSON_GetObjectItemCaseSensitive(docs[i], "version");
		const char *kv = bv_json_str(ver, "kernel_version");
		const char *rule = bv_json_str(ver, "rule");
		const char *summary = bv_json_str(ver, "summary");
		char *d = bv_asprintf("%s: %s, kernels %s (%s)", t->labels[i], summary ? summary : "", kv ? kv : "?",
				      rule ? rule : "?");
		t->descriptions[i] = clean_dup(d);
		free(d);
		const cJSON *cell;
		size_t ci = 0;
		cJSON_ArrayForEach(cell, cJSON_GetObjectItemCaseSensitive(docs[i], "cells"))
		{
			const char *bench = bv_json_str(cell, "bench"), *op = bv_json_str(cell, "op"),
				   *backend = bv_json_str(cell, "backend");
			/* Sizes are exact as doubles up to 2^53 (benches.h packs shapes below that). */
			double size = -1, np = 0;
			const char *bad = !cJSON_IsObject(cell) ? "expected an object"
					  : !bench		? "\"bench\": expected a string"
					  : !op			? "\"op\": expected a string"
					  : !backend		? "\"backend\": expected a string"
					  : whole_number(cell, "size", 9007199254740992.0, &size) || size < 0
						  ? "\"size\": expected a whole number from 0 to 2^53"
					  : whole_number(cell, "processes", INT_MAX, &np)
						  ? "\"processes\": expected a whole number"
						  : NULL;
			if (bad) {
				rc = bv_fail(BV_EINPUT, "%s: cells[%zu]: %s", paths[i], ci, bad);
				break;
			}
			ci++;
			char *cb = clean_dup(bench), *co = clean_dup(op), *ck = clean_dup(backend);
			int idx = row_index(t, cb, co, ck, (size_t)size); /* may move t->rows */
			free(cb), free(co), free(ck);
			bv_row *r = &t->rows[idx];
			bv_result *res = &r->results[i];
			res->status = status_of(bv_json_str(cell, "status"));
			const char *reason = bv_json_str(cell, "reason");
			if (reason)
				res->reason = clean_dup(reason);
			const cJSON *fp = cJSON_GetObjectItemCaseSensitive(cell, "footprint");
			bv_json_num(fp, "host_bytes", &res->host_bytes);
			bv_json_num(fp, "device_bytes", &res->device_bytes);
			bv_json_num(cell, "gbps", &res->gbps);
			bv_json_num(cell, "gflops", &res->gflops);
			bv_json_num(cell, "pct_copy_bandwidth", &res->pct_copy_bw);
			bv_json_num(cell, "pct_peak_flops", &res->pct_peak_flops);
			res->processes = (int)np;
			if (res->status == status_of("ok") &&
			    (bv_json_num(cell, "median_ns", &res->median_ns) ||
			     bv_json_num(cell, "median_ns_ci_low", &res->ci_low_ns) ||
			     bv_json_num(cell, "median_ns_ci_high", &res->ci_high_ns))) {
				rc = bv_fail(BV_EINPUT, "%s: cells[%zu]: an ok cell lacks median_ns, median_ns_ci_low or "
						     "median_ns_ci_high (numbers)", paths[i], ci - 1);
				break;
			}
			/* "change" since schema 1.1; 1.0 logs called it "paired". */
			const cJSON *pb = cJSON_GetObjectItemCaseSensitive(cell, "change");
			if (!pb)
				pb = cJSON_GetObjectItemCaseSensitive(cell, "paired");
			const char *pbase = bv_json_str(pb, "baseline");
			const char *mode = bv_json_str(pb, "mode");
			bv_change *ch = &r->changes[i];
			/* Paired only within one run: a log from another run may name a
			 * baseline with the same label that is not this one. */
			if (i > 0 && same_run[i] && pbase && !strcmp(pbase, base_label)) {
				bv_interval iv = {0};
				iv.n = 1;
				if (!bv_json_num(pb, "ratio", &iv.est) && !bv_json_num(pb, "ratio_ci_low", &iv.lo) &&
				    !bv_json_num(pb, "ratio_ci_high", &iv.hi) && !bv_json_num(pb, "coverage", &iv.coverage)) {
					ch->valid = 1;
					ch->mode = mode && !strcmp(mode, "isolated") ? "isolated" : "paired";
					ch->paired = ch->mode[0] == 'p';
					ch->ratio = iv.est, ch->ci_low = iv.lo, ch->ci_high = iv.hi;
					ch->coverage = iv.coverage;
					ch->verdict = bv_verdict_name(bv_verdict_of(&iv, threshold));
					ch->noisy = bv_interval_noisy(&iv, threshold);
					np = 0;
					if (whole_number(pb, "processes", INT_MAX, &np) == 0)
						ch->processes = (int)np;
					double nl = 0;
					const cJSON *ls = cJSON_GetObjectItemCaseSensitive(pb, "layout_spread");
					if (whole_number(pb, "layouts", 64, &nl) == 0 && nl > 1 && cJSON_IsArray(ls) &&
					    cJSON_GetArraySize(ls) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(ls, 0)) &&
					    cJSON_IsNumber(cJSON_GetArrayItem(ls, 1))) {
						ch->layouts = (int)nl;
						ch->layout_lo = cJSON_GetArrayItem(ls, 0)->valuedouble;
						ch->layout_hi = cJSON_GetArrayItem(ls, 1)->valuedouble;
					}
					/* The per-process ratios, in the order measured, and
					 * the machine's state around each: the evidence
					 * verdict.c decides on over the whole table. */
					read_processes(pb, ch);
				}
			}
		}
	}
	/* A build that failed has no cells; mark it in every row, whatever order. */
	for (size_t i = 0; i < n && rc == 0; i++) {
		const cJSON *build = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(docs[i], "version"), "build");
		const char *bstatus = bv_json_str(build, "status");
		if (bstatus && !strcmp(bstatus, "failed"))
			for (size_t k = 0; k < t->nrows; k++)
				t->rows[k].results[i].status = status_of("build failed");
	}
	/* Unpaired fallback: versions from different runs. */
	for (size_t k = 0; k < t->nrows && rc == 0; k++) {
		bv_row *r = &t->rows[k];
		for (size_t i = 1; i < n; i++) {
			bv_result *a = &r->results[0], *b = &r->results[i];
			if (r->changes[i].valid || strcmp(a->status, "ok") || strcmp(b->status, "ok") || a->median_ns <= 0)
				continue;
			bv_change *ch = &r->changes[i];
			/* Two machines differ by more than most changes: no verdict
			 * unless the user asked for one (a note says so). */
			if (other_machine[i] && !o->across_machines) {
				ch->none = "other machine";
				continue;
			}
			ch->valid = 1;
			ch->ratio = b->median_ns / a->median_ns;
			ch->ci_low = a->ci_high_ns > 0 ? b->ci_low_ns / a->ci_high_ns : 0;
			ch->ci_high = a->ci_low_ns > 0 ? b->ci_high_ns / a->ci_low_ns : INFINITY;
			ch->coverage = 0.95;
			bv_interval iv = {ch->ratio, ch->ci_low, ch->ci_high, 0.95, 1};
			ch->verdict = bv_verdict_name(bv_verdict_of(&iv, threshold));
			ch->noisy = bv_interval_noisy(&iv, threshold);
			ch->mode = "unpaired";
		}
	}
	if (rc == 0)
		bv_table_decide(t, BV_FDR);
	if (rc == 0 && n > 0) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(docs[0], "method");
		double minp = 0, maxp = 0, rounds = 0, sample = 0, budget = 0;
		bv_json_num(m, "min_processes", &minp);
		bv_json_num(m, "max_processes", &maxp);
		if (!bv_json_num(m, "processes", &minp)) /* schema 1.0 */
			maxp = minp;
		bv_json_num(m, "rounds", &rounds);
		bv_json_num(m, "sample_us", &sample);
		bv_json_num(m, "budget_s", &budget);
		const char *mode = bv_json_str(m, "mode");
		int isolated = mode && !strcmp(mode, "isolated");
		bv_buf b = BV_BUF_INIT;
		bv_buf_printf(&b, "%s: ", mode ? mode : "?");
		if (minp == maxp)
			bv_buf_printf(&b, "%g processes", minp);
		else
			bv_buf_printf(&b, "%g-%g processes per cell (stops when the interval decides, or at %g s)", minp,
				      maxp, budget);
		bv_buf_printf(&b, " x %g rounds of %g us samples; ", rounds, sample);
		if (isolated)
			bv_buf_puts(&b, "one process per version, in random order; ratio = median over rounds of the "
					"ratio of the processes' medians; ");
		else
			bv_buf_puts(&b, "versions alternated in random order in each process; ratio = median over "
					"processes of each process's median pair ratio; ");
		bv_buf_printf(&b, "95%% order-statistic interval; threshold %.1f%%", threshold * 100);
		t->method = bv_buf_detach(&b);
	}
	for (size_t i = 0; i < n; i++)
		cJSON_Delete(docs[i]);
	free(docs);
	free(same_run), free(other_machine), free(base_label);
	if (rc)
		bv_table_free(t);
	return rc;
}

void bv_table_free(bv_table *t)
{
	for (size_t k = 0; k < t->nrows; k++) {
		bv_row *r = &t->rows[k];
		for (size_t i = 0; i < t->nversions; i++) {
			free(r->results[i].reason);
			free(r->changes[i].proc_ratio), free(r->changes[i].proc_gbps);
			free(r->changes[i].proc_compute_ns), free(r->changes[i].proc_running);
		}
		free(r->results), free(r->changes);
		free(r->bench), free(r->op), free(r->backend);
	}
	for (size_t i = 0; i < t->nversions; i++) {
		if (t->labels)
			free(t->labels[i]);
		if (t->descriptions)
			free(t->descriptions[i]);
	}
	for (size_t i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	free(t->notes);
	free(t->labels), free(t->descriptions), free(t->rows), free(t->method), free(t->control);
	memset(t, 0, sizeof(*t));
}

int bv_filter_compile(const char *regex, regex_t *out)
{
	int err = regcomp(out, regex, REG_EXTENDED | REG_NOSUB);
	if (err) {
		char msg[256];
		regerror(err, out, msg, sizeof(msg));
		return bv_fail(BV_EINPUT, "--filter '%s': %s", regex, msg);
	}
	return 0;
}

void bv_row_key(const bv_row *r, char *buf, size_t len)
{
	char size[32];
	snprintf(buf, len, "%s/%s/%s/%s", r->bench, r->op, r->backend, bv_size_format(r->size, size, sizeof(size)));
}

void bv_table_filter(bv_table *t, const regex_t *re)
{
	size_t kept = 0;
	for (size_t k = 0; k < t->nrows; k++) {
		char key[512];
		bv_row_key(&t->rows[k], key, sizeof(key));
		if (regexec(re, key, 0, NULL, 0) == 0) {
			t->rows[kept++] = t->rows[k];
			continue;
		}
		bv_row *r = &t->rows[k];
		for (size_t i = 0; i < t->nversions; i++) {
			free(r->results[i].reason);
			free(r->changes[i].proc_ratio), free(r->changes[i].proc_gbps);
			free(r->changes[i].proc_compute_ns), free(r->changes[i].proc_running);
		}
		free(r->results), free(r->changes);
		free(r->bench), free(r->op), free(r->backend);
	}
	t->nrows = kept;
}

int bv_row_ran(const bv_row *r, size_t nversions)
{
	for (size_t i = 0; i < nversions; i++)
		if (!strcmp(r->results[i].status, "ok") || !strcmp(r->results[i].status, "wrong result") ||
		    !strcmp(r->results[i].status, "failed") || !strcmp(r->results[i].status, "build failed"))
			return 1;
	return 0;
}

double bv_table_geomean(const bv_table *t, size_t v, const char *bench, size_t *n)
{
	double logsum = 0;
	*n = 0;
	for (size_t k = 0; k < t->nrows; k++)
		if (!strcmp(t->rows[k].bench, bench) && t->rows[k].changes[v].valid && t->rows[k].changes[v].ratio > 0)
			logsum += log(t->rows[k].changes[v].ratio), (*n)++;
	return *n ? exp(logsum / (double)*n) : 0;
}

int bv_table_has_slower(const bv_table *t)
{
	for (size_t k = 0; k < t->nrows; k++)
		for (size_t i = 1; i < t->nversions; i++)
			if (t->rows[k].changes[i].valid && !strcmp(t->rows[k].changes[i].verdict, "slower"))
				return 1;
	return 0;
}
