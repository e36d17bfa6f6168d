/*
 * merge.c - the merge stage: results logs into one comparison table.
 *
 * A row per bench/op/backend/size, a column per log in the order given; the
 * first log is the baseline.  A version measured in the same run as the
 * baseline carries its ratios (measure.c) and those are used; otherwise the
 * ratio of medians is shown, marked unpaired, with a deliberately wide
 * interval (the quotient of the two medians' intervals).  Across runs that
 * ratio is never called slower or faster: each median's interval holds the
 * variation between the processes of its own run only, and runs differ by
 * more (the same code measured in two runs on this machine: 0.72 to 1.47,
 * and a false `faster`; docs/measurement.md), which one run per version
 * cannot measure.  Such a change is `inconclusive`.  Pairing needs the
 * same run (run.id) and machine: a log from another run may carry a change
 * block against a baseline that merely has the same label.  Logs from
 * another machine (hostname or cpu differ) get no ratio unless asked for.
 *
 * This file makes the table: a run's logs (bv_merge_logs), any logs
 * (bv_merge, bv_merge_docs, bv_merge_source), and logs of several machine
 * classes side by side (bv_merge_classes, bv_table_join).  What is done to
 * the table once made (filters, folds, geomeans, gates) is merge_gates.c.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "benches.h"
#include "classes.h"
#include "common.h"
#include "counts.h"
#include "json.h"
#include "merge.h"
#include "results.h"
#include "stats.h"
#include "status.h"
#include "table.h"
#include "verdict.h"

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
	r->results = bv_xcalloc(t->nversions, sizeof(bv_result));
	r->changes = bv_xcalloc(t->nversions, sizeof(bv_change));
	for (size_t v = 0; v < t->nversions; v++)
		r->results[v].status = BV_ST_NA;
	return (int)t->nrows++;
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

/* process_ratios[] and, aligned with it, process_state[] into ch (the
 * loader checked every ratio is a finite number > 0). */
static void read_processes(const bv_log_change *lc, bv_change *ch)
{
	const cJSON *pr = lc->process_ratios, *ps = lc->process_state;
	int n = cJSON_GetArraySize(pr);
	int aligned = cJSON_GetArraySize(ps) == n;
	if (n <= 0)
		return;
	ch->proc_ratio = bv_xcalloc((size_t)n, sizeof(double));
	ch->proc_gbps = bv_xcalloc((size_t)n, sizeof(double));
	ch->proc_compute_ns = bv_xcalloc((size_t)n, sizeof(double));
	ch->proc_running = bv_xcalloc((size_t)n, sizeof(double));
	const cJSON *x, *st = aligned ? ps->child : NULL;
	cJSON_ArrayForEach(x, pr)
	{
		ch->proc_ratio[ch->nproc] = x->valuedouble;
		ch->proc_gbps[ch->nproc] = better_of(st, "probe_gbps", -1);
		ch->proc_compute_ns[ch->nproc] = better_of(st, "probe_compute_ns", +1);
		ch->proc_running[ch->nproc] = better_of(st, "running", +1); /* the fewer */
		ch->nproc++;
		st = st ? st->next : NULL;
	}
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

/* What the merge keeps of a log once its cells are in the table.  The
 * document itself is freed as soon as they are: every log parsed and held
 * until the end took 5-15 times the logs' size (a cJSON node per number), so
 * 10,000 logs of 20 KB took gigabytes. */
typedef struct log_info {
	char *label;		     /* as the log has it (NULL: none), unescaped */
	char *run_id, *run_baseline; /* NULL when absent */
	char *hostname, *cpu;
	char *kernel_version, *rule, *summary;
	char *commit, *tree, *isa, *simd_isa;
	char *build_key; /* version.build.key: 40 hex digits, else NULL */
	double cores; /* 0 when not said */
	int build_failed;
} log_info;

static char *dup_or_null(const char *s) { return s ? bv_strdup(s) : NULL; }

static void info_read(const cJSON *doc, log_info *l)
{
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(doc, "version");
	const cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "machine");
	l->label = dup_or_null(bv_json_str(ver, "label"));
	l->run_id = dup_or_null(bv_json_str(run, "id"));
	l->run_baseline = dup_or_null(bv_json_str(run, "baseline"));
	l->hostname = dup_or_null(bv_json_str(m, "hostname"));
	l->cpu = dup_or_null(bv_json_str(m, "cpu"));
	l->kernel_version = dup_or_null(bv_json_str(ver, "kernel_version"));
	l->rule = dup_or_null(bv_json_str(ver, "rule"));
	l->summary = dup_or_null(bv_json_str(ver, "summary"));
	l->commit = dup_or_null(bv_json_str(ver, "commit"));
	l->tree = dup_or_null(bv_json_str(ver, "tree"));
	l->simd_isa = dup_or_null(bv_json_str(ver, "simd_isa"));
	/* The build key finds the build in the cache (counts_make.c runs it again);
	 * anything but 40 hex digits is no key. */
	const char *key = bv_json_str(cJSON_GetObjectItemCaseSensitive(ver, "build"), "key");
	l->build_key = key && strlen(key) == 40 && strspn(key, "0123456789abcdef") == 40 ? bv_strdup(key) : NULL;
	l->isa = dup_or_null(bv_json_str(cJSON_GetObjectItemCaseSensitive(m, "calibration"), "isa"));
	if (bv_json_num(m, "cores", &l->cores) != 0 || !(l->cores > 0))
		l->cores = 0;
	const char *bstatus = bv_json_str(cJSON_GetObjectItemCaseSensitive(ver, "build"), "status");
	l->build_failed = bv_status_parse(bstatus) == BV_ST_FAILED;
}

static void info_free(log_info *l)
{
	free(l->label), free(l->run_id), free(l->run_baseline), free(l->hostname), free(l->cpu);
	free(l->kernel_version), free(l->rule), free(l->summary);
	free(l->commit), free(l->tree), free(l->isa), free(l->simd_isa), free(l->build_key);
}

/* Labels must be unique columns; logs from different runs often share one
 * ("main" twice), so every label that repeats gets its run id, and a label
 * that still repeats (the same log twice) its position. */
static void unique_labels(bv_table *t, const log_info *info)
{
	size_t n = t->nversions;
	int *dup = bv_xcalloc(n, sizeof(int));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (i != j && !strcmp(t->labels[i], t->labels[j]))
				dup[i] = 1;
	for (size_t i = 0; i < n; i++)
		if (dup[i]) {
			char *id_clean = clean_dup(info[i].run_id ? info[i].run_id : "?");
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

static char *machine_desc(const log_info *l)
{
	char *h = clean_dup(l->hostname ? l->hostname : "?"), *c = clean_dup(l->cpu ? l->cpu : "?");
	char *d = bv_asprintf("%s, %s", h, c);
	free(h), free(c);
	return d;
}

/* How one log says its numbers were measured: mode, processes, rounds,
 * samples, --quick.  Logs measured differently each get theirs on the
 * method line (method_line). */
static char *method_how(const cJSON *doc)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "method");
	double minp = 0, maxp = 0, rounds = 0, sample = 0, budget = 0;
	bv_json_num(m, "min_processes", &minp);
	bv_json_num(m, "max_processes", &maxp);
	if (!bv_json_num(m, "processes", &minp)) /* schema 1.0 */
		maxp = minp;
	bv_json_num(m, "rounds", &rounds);
	bv_json_num(m, "sample_us", &sample);
	bv_json_num(m, "budget_s", &budget);
	const char *mode = bv_json_str(m, "mode");
	bv_buf b = BV_BUF_INIT;
	char *shown = clean_dup(mode ? mode : "?");
	bv_buf_printf(&b, "%s: ", shown);
	free(shown);
	if (minp == maxp)
		bv_buf_printf(&b, "%g processes", minp);
	else
		bv_buf_printf(&b, "%g-%g processes per cell (stops when the interval decides, or at %g s)", minp, maxp,
			      budget);
	bv_buf_printf(&b, " x %g rounds of %g us samples", rounds, sample);
	/* --quick changes the budget and rounds above; said by name too, as
	 * the user typed it. */
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "quick")))
		bv_buf_puts(&b, ", --quick");
	return bv_buf_detach(&b);
}

static int is_isolated(const char *how) { return !strncmp(how, "isolated:", 9); }

/* The table's method line: how each log was measured, once when every log
 * was measured alike (one run, or runs with the same settings), else each
 * log's own (labels[i]: how[i]): a table whose columns came from a --quick
 * run and a full one must say so, or the baseline's settings are taken for
 * all.  Then what the ratios and times are, for each mode present. */
static char *method_line(char **how, char **labels, size_t n, double threshold)
{
	bv_buf b = BV_BUF_INIT;
	int alike = 1, isolated = 0, alternated = 0;
	for (size_t i = 0; i < n; i++) {
		alike &= !strcmp(how[i], how[0]);
		if (is_isolated(how[i]))
			isolated = 1;
		else
			alternated = 1;
	}
	if (alike)
		bv_buf_printf(&b, "%s; ", how[0]);
	else {
		bv_buf_puts(&b, "logs measured differently: ");
		for (size_t i = 0; i < n; i++)
			bv_buf_printf(&b, "%s = %s; ", labels[i], how[i]);
	}
	if (isolated)
		bv_buf_puts(&b, "one process per version, in random order; ratio = median over rounds of the "
				"ratio of the processes' medians; ");
	if (alternated)
		bv_buf_puts(&b, "versions alternated in random order in each process; ratio = median over "
				"processes of each process's median pair ratio; ");
	/* The time columns are each version's own median: a statistic of
	 * other numbers than the ratio beside them, and on a machine whose
	 * speed moves between processes their quotient can differ from it by
	 * far more than its interval (docs/measurement.md says why they are
	 * not derived from the ratio).  Said where every exporter shows it. */
	bv_buf_puts(&b, "times = each version's own median over processes of its per-process median, "
			"unpaired (their quotient need not be the ratio); ");
	bv_buf_printf(&b, "95%% order-statistic interval; threshold %.1f%%", threshold * 100);
	return bv_buf_detach(&b);
}

/* Log i's cells into the table.  Its change blocks are taken (paired) only
 * when it comes from the baseline's run (same_run) and names the baseline
 * (base_label, the baseline log's label as the change blocks name it). */
/* The change of log i's cell as the log has it, into ch: its ratio, interval
 * and per-process evidence. */
static void change_read(const bv_log_change *lc, bv_change *ch, double threshold)
{
	bv_interval iv = {lc->ratio, lc->ci_low, lc->ci_high, lc->coverage, 1};
	ch->valid = 1;
	ch->mode = lc->mode;
	ch->paired = ch->mode[0] == 'p';
	ch->ratio = iv.est, ch->ci_low = iv.lo, ch->ci_high = iv.hi;
	ch->coverage = iv.coverage;
	ch->verdict = bv_verdict_of(&iv, threshold);
	ch->noisy = bv_interval_noisy(&iv, threshold);
	ch->processes = lc->processes;
	if (lc->layouts > 1 && lc->has_spread) {
		ch->layouts = lc->layouts;
		ch->layout_lo = lc->layout_lo, ch->layout_hi = lc->layout_hi;
	}
	/* The per-process ratios, in the order measured, and the machine's
	 * state around each: the evidence verdict.c decides on over the whole
	 * table. */
	read_processes(lc, ch);
}

/* base_pair: for the first log, the label its run paired it with (its run's
 * baseline), else NULL: its changes against that version are kept in
 * changes[0] until merge has seen every log (bv_merge: reversed pairs). */
static void add_cells(bv_table *t, size_t i, const cJSON *doc, int same_run, const char *base_label,
		      const char *base_pair, double threshold)
{
	const cJSON *cell;
	cJSON_ArrayForEach(cell, bv_log_cells(doc))
	{
		bv_log_cell c;
		bv_log_cell_read(cell, &c); /* checked by bv_log_load */
		char *cb = clean_dup(c.bench), *co = clean_dup(c.op), *ck = clean_dup(c.backend);
		int idx = row_index(t, cb, co, ck, c.size); /* may move t->rows */
		free(cb), free(co), free(ck);
		bv_row *r = &t->rows[idx];
		bv_result *res = &r->results[i];
		res->status = c.status;
		if (c.reason)
			res->reason = clean_dup(c.reason);
		res->host_bytes = c.host_bytes, res->device_bytes = c.device_bytes;
		res->library_host_bytes = c.library_host_bytes, res->library_device_bytes = c.library_device_bytes;
		res->gbps = c.gbps, res->gflops = c.gflops;
		res->pct_copy_bw = c.pct_copy_bw, res->pct_peak_flops = c.pct_peak_flops;
		res->processes = c.processes;
		res->stopped = c.stopped, res->stop_budget_s = c.stop_budget_s; /* static strings */
		res->median_ns = c.median_ns, res->ci_low_ns = c.ci_low_ns, res->ci_high_ns = c.ci_high_ns;
		if (c.process_ids && !res->proc_ns) {
			size_t np = (size_t)cJSON_GetArraySize(c.process_ids);
			res->proc_ns = bv_xcalloc(np + 1, sizeof(double));
			res->proc_id = bv_xcalloc(np + 1, sizeof(int));
			const cJSON *m = c.process_medians->child, *d = c.process_ids->child;
			for (; m && d && res->nproc_ns < np; m = m->next, d = d->next, res->nproc_ns++)
				res->proc_ns[res->nproc_ns] = m->valuedouble, res->proc_id[res->nproc_ns] = (int)d->valuedouble;
		}
		const bv_log_change *lc = &c.change;
		if (i == 0) {
			if (base_pair && c.has_change && lc->baseline && !strcmp(lc->baseline, base_pair) &&
			    lc->coverage >= 0 && !r->changes[0].valid)
				change_read(lc, &r->changes[0], threshold);
			continue;
		}
		/* Paired only within one run: a log from another run may name a
		 * baseline with the same label that is not this one.  A change
		 * without its coverage (some 1.0 logs) is left to the unpaired
		 * fallback. */
		if (!same_run || !c.has_change || !lc->baseline || strcmp(lc->baseline, base_label) || lc->coverage < 0)
			continue;
		change_read(lc, &r->changes[i], threshold);
	}
}

/* The first log was paired with log i in their run (compare B A of a run of
 * A and B): its ratios, turned over, are log i's paired ratios to it, with
 * the same evidence, instead of a ratio of medians. */
static void change_reverse(const bv_change *b, bv_change *ch, double threshold)
{
	*ch = *b;
	ch->ratio = 1.0 / b->ratio;
	ch->ci_low = 1.0 / b->ci_high, ch->ci_high = 1.0 / b->ci_low;
	if (b->layouts > 1)
		ch->layout_lo = 1.0 / b->layout_hi, ch->layout_hi = 1.0 / b->layout_lo;
	bv_interval iv = {ch->ratio, ch->ci_low, ch->ci_high, ch->coverage, 1};
	ch->verdict = bv_verdict_of(&iv, threshold);
	ch->noisy = bv_interval_noisy(&iv, threshold);
	ch->proc_ratio = ch->proc_gbps = ch->proc_compute_ns = ch->proc_running = NULL;
	if (b->nproc) {
		size_t sz = b->nproc * sizeof(double);
		ch->proc_ratio = bv_xcalloc(b->nproc, sizeof(double));
		for (size_t j = 0; j < b->nproc; j++)
			ch->proc_ratio[j] = 1.0 / b->proc_ratio[j];
		ch->proc_gbps = memcpy(bv_xcalloc(b->nproc, sizeof(double)), b->proc_gbps, sz);
		ch->proc_compute_ns = memcpy(bv_xcalloc(b->nproc, sizeof(double)), b->proc_compute_ns, sz);
		ch->proc_running = memcpy(bv_xcalloc(b->nproc, sizeof(double)), b->proc_running, sz);
	}
}

int bv_merge_logs(char *const *paths, size_t n, double threshold, bv_table *out)
{
	bv_merge_opts o = {threshold, 0};
	return bv_merge(paths, n, &o, out);
}

/* Whether log i was the baseline the first log was paired with in their run
 * (merge reverses those pairs). */
static int reversed(const log_info *info, size_t i)
{
	return i > 0 && info[0].run_baseline && info[i].label && !strcmp(info[0].run_baseline, info[i].label) &&
	       !same_str(info[0].run_baseline, info[0].label);
}

/* Every entry below: logs read from paths (src NULL), or documents handed
 * over one at a time by src (taken and freed here as soon as their cells
 * are in; paths[i] then only names each in notes), so no more than one is
 * held at once whichever way they come. */
static int merge_core(char *const *paths, const bv_doc_source *src, size_t n, const bv_merge_opts *o,
		      bv_table *t);

int bv_merge(char *const *paths, size_t n, const bv_merge_opts *o, bv_table *t)
{
	return merge_core(paths, NULL, n, o, t);
}

static int from_array(void *ctx, size_t i, cJSON **doc)
{
	cJSON **docs = ctx;
	*doc = docs[i], docs[i] = NULL;
	return 0;
}

int bv_merge_docs(cJSON **docs, char *const *names, size_t n, const bv_merge_opts *o, bv_table *t)
{
	bv_doc_source src = {from_array, docs};
	int rc = merge_core(names, &src, n, o, t);
	for (size_t i = 0; i < n; i++) {
		cJSON_Delete(docs[i]); /* those not reached after an error */
		docs[i] = NULL;
	}
	return rc;
}

int bv_merge_source(const bv_doc_source *src, char *const *names, size_t n, const bv_merge_opts *o, bv_table *t)
{
	return merge_core(names, src, n, o, t);
}

/* What merge_core learns of each log while reading it, for the steps that
 * follow.  Per log: its ratios may be the paired ones (same run and machine
 * as the baseline), may fall back to the ratio of medians, or may not be
 * formed at all (another machine, unless asked). */
typedef struct merge_state {
	log_info *info;
	int *same_run, *other_machine;
	char **how; /* each log's method (method_how) */
	double threshold;
} merge_state;

/* Reads every log into t's rows and s, one at a time, each freed as soon as
 * its cells are in; too much in all is refused before a byte of any log is
 * read. */
static int read_logs(char *const *paths, const bv_doc_source *src, size_t n, bv_table *t, merge_state *s)
{
	log_info *info = s->info;
	int rc = src ? 0 : bv_logs_check_sizes(paths, n);
	for (size_t i = 0; i < n && rc == 0; i++) {
		cJSON *doc = NULL;
		if (src ? (rc = src->next(src->ctx, i, &doc)) != 0 : (rc = bv_log_load(paths[i], &doc)) != 0)
			break;
		info_read(doc, &info[i]);
		if (i == 0) {
			const cJSON *method = cJSON_GetObjectItemCaseSensitive(doc, "method");
			if (s->threshold < 0 && bv_json_num(method, "threshold", &s->threshold))
				s->threshold = 0.01;
			if (s->threshold < 0 || s->threshold >= 10)
				s->threshold = 0.01;
		}
		s->how[i] = method_how(doc);
		t->labels[i] = clean_dup(info[i].label ? info[i].label : "?");
		s->other_machine[i] =
			!same_str(info[0].hostname, info[i].hostname) || !same_str(info[0].cpu, info[i].cpu);
		/* A log without a run id cannot prove it shares the baseline's processes. */
		s->same_run[i] =
			!s->other_machine[i] && info[i].run_id && same_str(info[0].run_id, info[i].run_id);
		const char *pair = info[0].run_baseline && !same_str(info[0].run_baseline, info[0].label)
					   ? info[0].run_baseline
					   : NULL;
		add_cells(t, i, doc, s->same_run[i], info[0].label ? info[0].label : "", i == 0 ? pair : NULL,
			  s->threshold);
		cJSON_Delete(doc);
	}
	return rc;
}

/* A note for every log whose ratios to the first are not the plain paired
 * ones (another machine, another run, another baseline), so the table never
 * shows such ratios without saying what they are worth. */
static void note_pairing(char *const *paths, size_t n, const bv_merge_opts *o, bv_table *t,
			 const merge_state *s)
{
	const log_info *info = s->info;
	for (size_t i = 1; i < n; i++) {
		const char *file = base_name(paths[i]);
		char *named = strncmp(file, t->labels[i], strlen(t->labels[i])) || strcmp(file + strlen(t->labels[i]), ".json")
				      ? bv_asprintf("%s (column %s)", file, t->labels[i])
				      : bv_strdup(file);
		char *clean = clean_dup(named);
		if (s->other_machine[i]) {
			char *here = machine_desc(&info[i]), *base = machine_desc(&info[0]);
			if (o->across_machines)
				add_note(t, bv_asprintf("%s was measured on another machine (%s; the baseline on %s); its "
							"ratios are unpaired and include the difference between the machines",
							clean, here, base));
			else
				add_note(t, bv_asprintf("%s was measured on another machine (%s; the baseline on %s); no "
							"ratios unless --across-machines",
							clean, here, base));
			free(here), free(base);
		} else if (!s->same_run[i])
			add_note(t, bv_asprintf("%s is from another run than the baseline; its ratios are unpaired "
						"(ratio of medians) and not called slower or faster, since runs differ "
						"by more than one run per version can measure (inconclusive; to decide, "
						"measure the versions together in one run)",
						clean));
		else {
			/* Same run, but its ratios were taken against another version. */
			const char *rb = info[i].run_baseline;
			if (reversed(info, i))
				add_note(t, bv_asprintf("%s was the baseline of its run; its ratios to the first log "
							"are the first log's paired ratios turned over",
							clean));
			else if (rb && strcmp(rb, info[0].label ? info[0].label : ""))
				add_note(t, bv_asprintf("%s was paired with another baseline in its run; its ratios to "
							"the first log are unpaired (ratio of medians, wider intervals)",
							clean));
		}
		free(clean), free(named);
	}
}

/* Each column's description and version facts, as exporters show them. */
static void describe_versions(bv_table *t, const log_info *info, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const log_info *l = &info[i];
		char *d = bv_asprintf("%s: %s, kernels %s (%s)", t->labels[i], l->summary ? l->summary : "",
				      l->kernel_version ? l->kernel_version : "?", l->rule ? l->rule : "?");
		t->descriptions[i] = clean_dup(d);
		free(d);
		bv_version_meta *m = &t->meta[i];
		m->commit = l->commit ? clean_dup(l->commit) : NULL;
		m->tree = l->tree ? clean_dup(l->tree) : NULL;
		m->cpu = l->cpu ? clean_dup(l->cpu) : NULL;
		m->isa = l->isa ? clean_dup(l->isa) : NULL;
		m->simd_isa = l->simd_isa ? clean_dup(l->simd_isa) : NULL;
		m->build_key = l->build_key ? bv_strdup(l->build_key) : NULL;
		m->cores = l->cores;
	}
}

/* Reversed pairs: the baseline of the first log's run gets the first log's
 * paired ratios turned over (kept in changes[0] while reading) rather than
 * an unpaired ratio of medians. */
static void reverse_pairs(bv_table *t, size_t n, const merge_state *s)
{
	for (size_t k = 0; k < t->nrows; k++) {
		bv_row *r = &t->rows[k];
		for (size_t i = 1; i < n && r->changes[0].valid; i++)
			if (s->same_run[i] && reversed(s->info, i) && !r->changes[i].valid &&
			    r->results[0].status == BV_ST_OK && r->results[i].status == BV_ST_OK)
				change_reverse(&r->changes[0], &r->changes[i], s->threshold);
	}
}

/* Unpaired fallback: versions from different runs (or machines, when asked)
 * still get a ratio of medians, with a wide interval and no verdict that
 * the runs' difference could fake. */
static void unpaired_changes(bv_table *t, size_t n, const bv_merge_opts *o, const merge_state *s)
{
	double threshold = s->threshold;
	for (size_t k = 0; k < t->nrows; k++) {
		bv_row *r = &t->rows[k];
		for (size_t i = 1; i < n; i++) {
			bv_result *a = &r->results[0], *b = &r->results[i];
			if (r->changes[i].valid || a->status != BV_ST_OK || b->status != BV_ST_OK || a->median_ns <= 0)
				continue;
			bv_change *ch = &r->changes[i];
			/* Two machines differ by more than most changes: no verdict
			 * unless the user asked for one (a note says so). */
			if (s->other_machine[i] && !o->across_machines) {
				ch->none = "other machine";
				continue;
			}
			ch->valid = 1;
			ch->ratio = b->median_ns / a->median_ns;
			ch->ci_low = a->ci_high_ns > 0 ? b->ci_low_ns / a->ci_high_ns : 0;
			ch->ci_high = a->ci_low_ns > 0 ? b->ci_high_ns / a->ci_low_ns : INFINITY;
			ch->coverage = 0.95;
			bv_interval iv = {ch->ratio, ch->ci_low, ch->ci_high, 0.95, 1};
			ch->verdict = bv_verdict_of(&iv, threshold);
			ch->noisy = bv_interval_noisy(&iv, threshold);
			ch->mode = "unpaired";
			/* Another run (or machine): the interval holds neither the
			 * difference between runs nor anything that bounds it, so no
			 * verdict, `same` included (a 4 % shift between runs can hide
			 * a 4 % change as well as fake one).  Within one run the
			 * medians share its processes and the quotient of their
			 * intervals stays a fair, wide, verdict. */
			if (!s->same_run[i]) {
				ch->between_runs = 1;
				ch->verdict = BV_INCONCLUSIVE;
				ch->noisy = 1; /* as every inconclusive (results-format.md) */
			}
		}
	}
}

/* A cell only one side has: said in words every exporter shows, the
 * words `report` uses (bv_status_gap, bv_gap_name), not a bare "-" or the
 * candidate's "ok" that reads like a verdict. */
static void name_gaps(bv_table *t, size_t n)
{
	for (size_t k = 0; k < t->nrows; k++) {
		bv_row *r = &t->rows[k];
		for (size_t i = 1; i < n; i++) {
			bv_change *ch = &r->changes[i];
			bv_gap gap = bv_status_gap(r->results[0].status, r->results[i].status);
			if (!ch->valid && !ch->none)
				ch->none = bv_gap_name(gap);
		}
	}
}

static int merge_core(char *const *paths, const bv_doc_source *src, size_t n, const bv_merge_opts *o,
		      bv_table *t)
{
	memset(t, 0, sizeof(*t));
	t->nversions = n;
	t->labels = bv_xcalloc(n + 1, sizeof(char *));
	t->descriptions = bv_xcalloc(n + 1, sizeof(char *));
	t->meta = bv_xcalloc(n + 1, sizeof(bv_version_meta));
	merge_state s;
	s.info = bv_xcalloc(n + 1, sizeof(log_info));
	s.same_run = bv_xcalloc(n + 1, sizeof(int)), s.other_machine = bv_xcalloc(n + 1, sizeof(int));
	s.how = bv_xcalloc(n + 1, sizeof(char *));
	s.threshold = o->threshold;
	int rc = read_logs(paths, src, n, t, &s);
	if (s.threshold < 0 || s.threshold >= 10)
		s.threshold = 0.01;
	t->threshold = s.threshold;
	if (rc == 0) {
		unique_labels(t, s.info);
		t->method = method_line(s.how, t->labels, n, s.threshold);
		note_pairing(paths, n, o, t, &s);
		describe_versions(t, s.info, n);
		/* A build that failed has no cells; mark it in every row, whatever order. */
		for (size_t i = 0; i < n; i++)
			if (s.info[i].build_failed)
				for (size_t k = 0; k < t->nrows; k++)
					t->rows[k].results[i].status = BV_ST_BUILD_FAILED;
		reverse_pairs(t, n, &s);
	}
	/* Reversed pairs done, changes[0] is unused again. */
	for (size_t k = 0; k < t->nrows; k++) {
		bv_change *c0 = &t->rows[k].changes[0];
		free(c0->proc_ratio), free(c0->proc_gbps), free(c0->proc_compute_ns), free(c0->proc_running);
		memset(c0, 0, sizeof(*c0));
	}
	if (rc == 0) {
		unpaired_changes(t, n, o, &s);
		name_gaps(t, n);
		bv_table_decide(t, BV_FDR);
	}
	for (size_t i = 0; i < n; i++)
		info_free(&s.info[i]), free(s.how[i]);
	free(s.info), free(s.how);
	free(s.same_run), free(s.other_machine);
	if (rc)
		bv_table_free(t);
	return rc;
}

/* ---- logs of several machine classes (compare) -------------------------- */

static int same_row(const bv_row *a, const bv_row *b)
{
	return a->size == b->size && !strcmp(a->bench, b->bench) && !strcmp(a->op, b->op) &&
	       !strcmp(a->backend, b->backend);
}

/* Class c's columns (from column first on): its class, each version
 * labelled LABEL@CLASS, and its counts added to the joined table's. */
static void join_columns(bv_table *out, const bv_table *tc, const bv_class *cl, size_t c, size_t first)
{
	out->classes[c].name = bv_strdup(cl->name);
	out->classes[c].cpu = bv_strdup(cl->cpu);
	out->classes[c].isa = bv_strdup(cl->isa);
	out->classes[c].gpu = bv_strdup(cl->gpu);
	out->classes[c].named = cl->named;
	for (size_t i = 0, v = first; i < tc->nversions; i++, v++) {
		out->labels[v] = bv_asprintf("%s@%s", tc->labels[i], cl->name);
		out->descriptions[v] = tc->descriptions ? tc->descriptions[i] : NULL;
		if (tc->meta)
			out->meta[v] = tc->meta[i];
		out->class_of[v] = c;
	}
	out->tested += tc->tested, out->called += tc->called, out->unstable += tc->unstable;
	out->inconclusive += tc->inconclusive, out->between_runs += tc->between_runs;
}

/* Each class is its own run: its method, control and caveats are said
 * under its name.  A class of one log has no ratio at all: say why rather
 * than leave an empty column group to puzzle over. */
static void join_notes(bv_table *out, const bv_table *tc, const bv_class *cl)
{
	if (tc->method) {
		char *m = bv_asprintf("%s%s%s: %s", out->method ? out->method : "", out->method ? "\n" : "",
		                      cl->name, tc->method);
		free(out->method), out->method = m;
	}
	if (tc->control) {
		char *m = bv_asprintf("%s%s%s: %s", out->control ? out->control : "", out->control ? "\n" : "",
		                      cl->name, tc->control);
		free(out->control), out->control = m;
	}
	out->notes = bv_xrealloc(out->notes, (out->nnotes + tc->nnotes + 2) * sizeof(char *));
	for (size_t i = 0; i < tc->nnotes; i++)
		out->notes[out->nnotes++] = bv_asprintf("class %s: %s", cl->name, tc->notes[i]);
	if (tc->nversions == 1)
		out->notes[out->nnotes++] = bv_asprintf(
		    "class %s has one version only (%s): no ratio, since ratios are never formed "
		    "across machine classes; measure the versions together on that machine",
		    cl->name, tc->labels[0]);
}

/* The joined table's row for src's cell: found, or added with every one
 * of the nv columns n/a (row_index in merge.c does the same per log). */
static bv_row *join_row(bv_table *out, const bv_row *src, size_t nv)
{
	for (size_t j = 0; j < out->nrows; j++)
		if (same_row(&out->rows[j], src))
			return &out->rows[j];
	out->rows = bv_xrealloc(out->rows, (out->nrows + 1) * sizeof(bv_row));
	bv_row *dst = &out->rows[out->nrows++];
	memset(dst, 0, sizeof(*dst));
	dst->bench = bv_strdup(src->bench), dst->op = bv_strdup(src->op);
	dst->backend = bv_strdup(src->backend);
	dst->size = src->size, dst->bytes = src->bytes, dst->flops = src->flops;
	dst->results = bv_xcalloc(nv + 1, sizeof(bv_result));
	dst->changes = bv_xcalloc(nv + 1, sizeof(bv_change));
	for (size_t v = 0; v < nv; v++)
		dst->results[v].status = BV_ST_NA;
	dst->hidden = 1;
	return dst;
}

void bv_table_join(bv_table *t, const bv_class *classes, size_t n, bv_table *out)
{
	memset(out, 0, sizeof(*out));
	size_t nv = 0;
	for (size_t c = 0; c < n; c++)
		nv += t[c].nversions;
	out->nversions = nv;
	out->labels = bv_xcalloc(nv + 1, sizeof(char *));
	out->descriptions = bv_xcalloc(nv + 1, sizeof(char *));
	out->meta = bv_xcalloc(nv + 1, sizeof(bv_version_meta));
	out->class_of = bv_xcalloc(nv + 1, sizeof(size_t));
	out->classes = bv_xcalloc(n + 1, sizeof(bv_class));
	out->nclasses = n;
	out->threshold = n ? t[0].threshold : 0;
	out->fdr = n ? t[0].fdr : 0;
	out->units = n ? t[0].units : NULL;
	out->colour = n ? t[0].colour : 0;
	size_t *first = bv_xcalloc(n + 1, sizeof(size_t)); /* each class's first column */
	for (size_t c = 0, v = 0; c < n; v += t[c].nversions, c++) {
		first[c] = v;
		join_columns(out, &t[c], &classes[c], c, v);
		join_notes(out, &t[c], &classes[c]);
	}
	/* Rows: every class's, in the order first seen; a class without a
	 * row has n/a there. */
	for (size_t c = 0; c < n; c++)
		for (size_t k = 0; k < t[c].nrows; k++) {
			bv_row *src = &t[c].rows[k], *dst = join_row(out, src, nv);
			dst->hidden &= src->hidden;
			/* taken over: the pointers inside move with the structs */
			for (size_t i = 0; i < t[c].nversions; i++) {
				dst->results[first[c] + i] = src->results[i];
				dst->changes[first[c] + i] = src->changes[i];
			}
			memset(src->results, 0, t[c].nversions * sizeof(bv_result));
			memset(src->changes, 0, t[c].nversions * sizeof(bv_change));
		}
	/* A class's baseline has no ratio of its own: merge may have used its
	 * changes slot on the way (reversed pairs); nothing of it is shown. */
	for (size_t k = 0; k < out->nrows; k++)
		for (size_t c = 0; c < n; c++) {
			bv_change *ch = &out->rows[k].changes[first[c]];
			free(ch->proc_ratio), free(ch->proc_gbps), free(ch->proc_compute_ns),
			    free(ch->proc_running);
			memset(ch, 0, sizeof(*ch));
		}
	for (size_t c = 0; c < n; c++) {
		/* what moved is no longer the class table's to free */
		free(t[c].descriptions), t[c].descriptions = NULL;
		free(t[c].meta), t[c].meta = NULL;
		bv_table_free(&t[c]);
	}
	free(first);
}

int bv_merge_classes(char *const *paths, size_t n, const bv_merge_opts *o, bv_table *out)
{
	bv_class_groups g;
	int rc = bv_class_groups_read(paths, n, &g);
	if (rc)
		return rc;
	if (g.nclasses <= 1) {
		bv_class_groups_free(&g);
		return bv_merge(paths, n, o, out);
	}
	bv_table *t = bv_xcalloc(g.nclasses, sizeof(bv_table));
	char **sub = bv_xcalloc(n + 1, sizeof(char *));
	size_t done = 0;
	for (size_t c = 0; c < g.nclasses && rc == 0; c++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (g.of[i] == c)
				sub[m++] = paths[i];
		rc = bv_merge(sub, m, o, &t[c]);
		done += rc == 0;
	}
	if (rc == 0)
		bv_table_join(t, g.classes, g.nclasses, out);
	else
		for (size_t c = 0; c < done; c++)
			bv_table_free(&t[c]);
	free(t), free(sub);
	bv_class_groups_free(&g);
	return rc;
}
