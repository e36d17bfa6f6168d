/*
 * publish.c - shared runs into the site's store (publish.h).
 *
 * Everything here is untrusted: an upload is whatever someone with a token
 * sent.  So an archive is unpacked with the limits the tool enforces for
 * release tarballs (fetch/unpack.c: plain relative names, no links, no
 * devices, at most 1 GiB and 20000 entries), every log is read through the
 * loader compare uses (bv_log_load), and then the run must hold together:
 * one top directory named as its run, each log named for its version, the
 * logs agreeing on their run, and each figure the median its own samples
 * say (a forged median_ns or ratio is caught here, not shown).  What fails
 * is quarantined with its reason; it never stops the others.
 *
 * A run is known by its key, the sha256 of its logs (names and bytes): the
 * same archive twice, or the same run uploaded and also given as a results
 * directory, is one run.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "benches.h"
#include "classes.h"
#include "common.h"
#include "export.h"
#include "fs.h"
#include "json.h"
#include "merge.h"
#include "publish.h"
#include "results.h"
#include "stats.h"
#include "status.h"
#include "table.h"
#include "unpack.h"

/* ---- sha256 -------------------------------------------------------------- */

typedef struct sha_ctx {
	EVP_MD_CTX *md;
} sha_ctx;

static int sha_start(sha_ctx *h)
{
	h->md = EVP_MD_CTX_new();
	return h->md && EVP_DigestInit_ex(h->md, EVP_sha256(), NULL) ? 0 : bv_fail(BV_ERUN, "cannot start sha256");
}

static void sha_add(sha_ctx *h, const void *p, size_t n) { EVP_DigestUpdate(h->md, p, n); }

static void sha_end(sha_ctx *h, char out[65])
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	EVP_DigestFinal_ex(h->md, d, &n);
	EVP_MD_CTX_free(h->md);
	for (unsigned int i = 0; i < n && i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
	out[64] = '\0';
}

/* The archive's sha256 and size, reading at most max bytes. */
static int file_sha(const char *path, unsigned long long max, char out[65], unsigned long long *bytes)
{
	int fd;
	struct stat st;
	int rc = bv_open_regular(path, &fd, &st);
	if (rc)
		return rc;
	*bytes = (unsigned long long)st.st_size;
	if (*bytes > max) {
		close(fd);
		return bv_fail(BV_EINPUT, "refused: %llu bytes, over the %llu-byte limit for an upload", *bytes, max);
	}
	sha_ctx h;
	rc = sha_start(&h);
	char buf[1 << 16];
	ssize_t n;
	while (rc == 0 && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			rc = bv_fail(BV_ERUN, "%s: %s", path, strerror(errno));
		else
			sha_add(&h, buf, (size_t)n);
	}
	close(fd);
	if (h.md)
		sha_end(&h, out);
	return rc;
}

/* ---- one run's logs, loaded and checked ---------------------------------- */

typedef struct run_in {
	char **paths;
	size_t n;
	cJSON **docs;
	char key[65];
} run_in;

static void run_in_free(run_in *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->paths[i]);
		if (r->docs)
			cJSON_Delete(r->docs[i]);
	}
	free(r->paths), free(r->docs);
	memset(r, 0, sizeof(*r));
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* A figure the log states against the one its own samples give: they are
 * written from one computation, so beyond rounding in the JSON they agree. */
static int agrees(double stated, double recomputed)
{
	return isfinite(recomputed) && fabs(stated - recomputed) <= 1e-6 * fabs(recomputed) + 1e-9;
}

static double median_of(const cJSON *arr)
{
	size_t n = (size_t)cJSON_GetArraySize(arr), i = 0;
	if (n == 0)
		return NAN;
	double *v = bv_xmalloc(n * sizeof(*v));
	const cJSON *e;
	cJSON_ArrayForEach(e, arr) v[i++] = e->valuedouble;
	double m = bv_median(v, n);
	free(v);
	return m;
}

/* Each ok cell's median is the median of its processes' medians, and each
 * ratio the median of its processes' ratios: what a person who edits a
 * figure in a log (to make a version look faster) does not keep. */
static int check_figures(const char *path, const cJSON *doc)
{
	size_t i = 0;
	const cJSON *cell;
	cJSON_ArrayForEach(cell, bv_log_cells(doc))
	{
		bv_log_cell c;
		bv_log_cell_read(cell, &c);
		char size[32];
		bv_size_format(c.size, size, sizeof(size));
		if (c.status == BV_ST_OK && c.process_medians &&
		    !agrees(c.median_ns, median_of(c.process_medians)))
			return bv_fail(BV_EINPUT,
				       "%s: cells[%zu] (%s %s %s %s): median_ns %.6g is not the median of its "
				       "process_medians_ns (%.6g): a figure was changed after the run",
				       path, i, c.bench, c.op, c.backend, size, c.median_ns, median_of(c.process_medians));
		if (c.has_change && c.change.process_ratios &&
		    !agrees(c.change.ratio, median_of(c.change.process_ratios)))
			return bv_fail(BV_EINPUT,
				       "%s: cells[%zu] (%s %s %s %s): change.ratio %.6g is not the median of its "
				       "process_ratios (%.6g): a figure was changed after the run",
				       path, i, c.bench, c.op, c.backend, size, c.change.ratio,
				       median_of(c.change.process_ratios));
		i++;
	}
	return 0;
}

static int same_json(const cJSON *a, const cJSON *b) { return a && b && cJSON_Compare(a, b, 1); }

/* The run's logs: loaded, named for their versions, agreeing on their run
 * (its id named as top, when given), their figures their samples'. */
static int run_load(const char *dir, const char *top, run_in *r)
{
	memset(r, 0, sizeof(*r));
	size_t nv = 0, kept_at = 0;
	cJSON *kept = NULL;
	int rc = bv_run_dir_logs_keep(dir, &r->paths, &r->n, &nv, &kept, &kept_at);
	if (rc)
		return rc;
	rc = bv_logs_check_sizes(r->paths, r->n);
	r->docs = bv_xcalloc(r->n ? r->n : 1, sizeof(cJSON *));
	if (kept)
		r->docs[kept_at] = kept;
	/* each log read once: its bytes go into the run's key (every log's
	 * name and bytes, in the run's own order, the same wherever it came
	 * from) and are parsed and checked as bv_log_load does */
	sha_ctx h = {NULL};
	if (rc == 0)
		rc = sha_start(&h);
	for (size_t i = 0; rc == 0 && i < r->n; i++) {
		char *data = NULL;
		size_t len = 0;
		rc = bv_read_file(r->paths[i], BV_RESULTS_MAX, &data, &len);
		if (rc == 0) {
			const char *b = base_name(r->paths[i]);
			sha_add(&h, b, strlen(b) + 1);
			char n[32];
			snprintf(n, sizeof(n), "%zu:", len);
			sha_add(&h, n, strlen(n));
			sha_add(&h, data, len);
		}
		if (rc == 0 && !r->docs[i]) {
			rc = bv_json_parse(r->paths[i], data, len, &r->docs[i]);
			if (rc == 0 && (rc = bv_log_check(r->paths[i], r->docs[i])) != 0)
				cJSON_Delete(r->docs[i]), r->docs[i] = NULL;
		}
		free(data);
	}
	if (rc == 0)
		sha_end(&h, r->key);
	else if (h.md)
		EVP_MD_CTX_free(h.md);
	const cJSON *run0 = r->n ? cJSON_GetObjectItemCaseSensitive(r->docs[0], "run") : NULL;
	for (size_t i = 0; rc == 0 && i < r->n; i++) {
		const cJSON *doc = r->docs[i], *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
		const char *label = bv_json_str(cJSON_GetObjectItemCaseSensitive(doc, "version"), "label");
		const char *file = base_name(r->paths[i]);
		size_t fl = strlen(file);
		if (!cJSON_IsObject(run) || !bv_json_str(run, "id") || !bv_json_str(run, "baseline") ||
		    !bv_json_str(run, "created"))
			rc = bv_fail(BV_EINPUT, "%s: no \"run\" block with its id, created and baseline: a shared "
						"run must come from `run` as it writes it",
				     r->paths[i]);
		else if (!label || fl != strlen(label) + 5 || strncmp(file, label, fl - 5))
			rc = bv_fail(BV_EINPUT, "%s: the log of version '%s' is not named %s.json", r->paths[i],
				     label ? label : "(none)", label ? label : "LABEL");
		else if (i && (!same_json(cJSON_GetObjectItemCaseSensitive(run, "id"),
					  cJSON_GetObjectItemCaseSensitive(run0, "id")) ||
			       !same_json(cJSON_GetObjectItemCaseSensitive(run, "created"),
					  cJSON_GetObjectItemCaseSensitive(run0, "created")) ||
			       !same_json(cJSON_GetObjectItemCaseSensitive(run, "baseline"),
					  cJSON_GetObjectItemCaseSensitive(run0, "baseline")) ||
			       !same_json(cJSON_GetObjectItemCaseSensitive(doc, "machine"),
					  cJSON_GetObjectItemCaseSensitive(r->docs[0], "machine"))))
			rc = bv_fail(BV_EINPUT, "%s: its run or machine is not the one %s has: the logs are not of "
						"one run",
				     r->paths[i], base_name(r->paths[0]));
		else if (top && strcmp(bv_json_str(run, "id"), top))
			rc = bv_fail(BV_EINPUT, "%s: run.id is not '%s', the directory it came in", r->paths[i], top);
		else
			rc = check_figures(r->paths[i], doc);
	}
	return rc;
}

/* ---- what the store keeps of a run --------------------------------------- */

static const cJSON *obj(const cJSON *o, const char *k) { return o ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL; }

static double num_or_nan(const cJSON *o, const char *k)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(x) ? x->valuedouble : NAN;
}

/* The highest 1-minute load average the run saw: the calibration's, and
 * each process's (loadavg before and after) of every compared cell. */
static double run_load_max(cJSON *const *docs, size_t n)
{
	double m = num_or_nan(obj(obj(docs[0], "machine"), "calibration"), "load_average");
	for (size_t i = 0; i < n; i++) {
		const cJSON *cell;
		cJSON_ArrayForEach(cell, bv_log_cells(docs[i]))
		{
			const cJSON *st = obj(obj(cell, "change"), "process_state"), *p;
			cJSON_ArrayForEach(p, st)
			{
				const cJSON *la = cJSON_GetObjectItemCaseSensitive(p, "loadavg"), *x;
				cJSON_ArrayForEach(x, la) if (cJSON_IsNumber(x) && isfinite(x->valuedouble) &&
							      x->valuedouble >= 0 && !(x->valuedouble <= m))
					m = x->valuedouble;
			}
		}
	}
	return m;
}

/* "paired, 6-24 processes, 9 rounds, 95 % intervals, quick" */
static char *method_line(const cJSON *doc)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "method");
	const char *mode = bv_json_str(m, "mode");
	double lo = num_or_nan(m, "min_processes"), hi = num_or_nan(m, "max_processes");
	double rounds = num_or_nan(m, "rounds"), conf = num_or_nan(m, "confidence");
	const cJSON *quick = cJSON_GetObjectItemCaseSensitive(m, "quick");
	bv_buf b = BV_BUF_INIT;
	bv_buf_printf(&b, "%s", mode ? mode : "mode not said");
	if (isfinite(lo) && isfinite(hi))
		bv_buf_printf(&b, ", %.0f-%.0f processes", lo, hi);
	if (isfinite(rounds))
		bv_buf_printf(&b, ", %.0f rounds", rounds);
	if (isfinite(conf))
		bv_buf_printf(&b, ", %.0f %% intervals", conf * 100);
	if (cJSON_IsTrue(quick))
		bv_buf_puts(&b, ", quick");
	return bv_buf_detach(&b);
}

#define INSERT_RUN                                                                                             \
	"INSERT INTO runs (key, id, created, class, cpu, isa, gpu, hostname, cpus, tool, baseline, method, "  \
	"load_max, loaded, imported, page) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, " \
	"strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?15)"
#define INSERT_VERSION                                                                                         \
	"INSERT INTO versions (run, label, pos, name, kind, commit_id, kernel_version, tree) VALUES (?1, ?2, ?3, " \
	"?4, ?5, ?6, ?7, ?8)"
#define INSERT_CELL                                                                                            \
	"INSERT INTO cells (run, version, bench, op, backend, size, shape, status, reason, median_ns, lo_ns, "  \
	"hi_ns) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
#define INSERT_CHANGE                                                                                          \
	"INSERT INTO changes (run, version, baseline, bench, op, backend, size, ratio, lo, hi, verdict, mode, " \
	"proc_ratio) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"

static int store_run(bv_site_store *s, const run_in *r, const bv_class *cls, const char *page)
{
	const cJSON *d0 = r->docs[0], *run = cJSON_GetObjectItemCaseSensitive(d0, "run");
	const cJSON *mach = cJSON_GetObjectItemCaseSensitive(d0, "machine");
	double cpus = num_or_nan(obj(mach, "calibration"), "cpus");
	if (!isfinite(cpus))
		cpus = num_or_nan(mach, "cores");
	double load = run_load_max(r->docs, r->n);
	/* loaded: others kept at least half the CPUs busy beside the run's own
	 * one process (a load average counts the run itself) */
	bv_site_val loaded = isfinite(load) && isfinite(cpus) && cpus > 0 ? BV_SV_I(load >= 1 + cpus / 2)
									   : BV_SV_T(NULL);
	char *method = method_line(d0);
	bv_site_val args[] = {BV_SV_T(r->key),
			      BV_SV_T(bv_json_str(run, "id")),
			      BV_SV_T(bv_json_str(run, "created")),
			      BV_SV_T(cls->name),
			      BV_SV_T(cls->cpu ? cls->cpu : ""),
			      BV_SV_T(cls->isa ? cls->isa : ""),
			      BV_SV_T(cls->gpu ? cls->gpu : ""),
			      BV_SV_T(bv_json_str(mach, "hostname")),
			      isfinite(cpus) ? BV_SV_I((long long)cpus) : BV_SV_T(NULL),
			      BV_SV_T(bv_json_str(run, "tool")),
			      BV_SV_T(bv_json_str(run, "baseline")),
			      BV_SV_T(method),
			      bv_sv_real(load),
			      loaded,
			      BV_SV_T(page)};
	int rc = bv_site_exec(s, INSERT_RUN, args, 15, "recording a run");
	free(method);
	for (size_t i = 0; rc == 0 && i < r->n; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(r->docs[i], "version");
		const char *label = bv_json_str(v, "label");
		bv_site_val va[] = {BV_SV_T(r->key),
				    BV_SV_T(label),
				    BV_SV_I((long long)i),
				    BV_SV_T(bv_json_str(v, "name")),
				    BV_SV_T(bv_json_str(v, "kind")),
				    BV_SV_T(bv_json_str(v, "commit")),
				    BV_SV_T(bv_json_str(v, "kernel_version")),
				    BV_SV_T(bv_json_str(v, "tree"))};
		rc = bv_site_exec(s, INSERT_VERSION, va, 8, "recording a version");
		const cJSON *cell;
		cJSON_ArrayForEach(cell, bv_log_cells(r->docs[i]))
		{
			if (rc)
				break;
			bv_log_cell c;
			bv_log_cell_read(cell, &c);
			char size[32];
			const char *shape = bv_json_str(cell, "shape");
			if (!shape)
				shape = bv_size_format(c.size, size, sizeof(size));
			int ok = c.status == BV_ST_OK;
			bv_site_val ca[] = {BV_SV_T(r->key),
					    BV_SV_T(label),
					    BV_SV_T(c.bench),
					    BV_SV_T(c.op),
					    BV_SV_T(c.backend),
					    BV_SV_I((long long)c.size),
					    BV_SV_T(shape),
					    BV_SV_T(bv_status_name(c.status)),
					    BV_SV_T(c.reason),
					    ok ? bv_sv_real(c.median_ns) : BV_SV_T(NULL),
					    ok ? bv_sv_real(c.ci_low_ns) : BV_SV_T(NULL),
					    ok ? bv_sv_real(c.ci_high_ns) : BV_SV_T(NULL)};
			/* a cell twice in one log is refused by the loader */
			rc = bv_site_exec(s, INSERT_CELL, ca, 12, "recording a cell");
		}
	}
	return rc;
}

/* The run's verdicts as compare gives them (merged as compare merges one
 * run: paired within it, on its one machine). */
static int store_changes(bv_site_store *s, const char *key, const bv_table *t)
{
	int rc = 0;
	for (size_t k = 0; rc == 0 && k < t->nrows; k++) {
		const bv_row *row = &t->rows[k];
		for (size_t v = 0; rc == 0 && v < t->nversions; v++) {
			const bv_change *ch = &row->changes[v];
			if (bv_table_is_base(t, v) || !ch->valid)
				continue;
			/* A paired change's per-process ratios (merge read them from
			 * the log's process_ratios): the cell pages pair them across
			 * versions for change points.  NULL for an unpaired change, or
			 * one with any ratio that is not a finite number > 0. */
			size_t bytes = 0;
			unsigned char *blob =
			    ch->paired ? bv_site_ratios_blob(ch->proc_ratio, ch->nproc, &bytes) : NULL;
			bv_site_val a[] = {BV_SV_T(key),
					   BV_SV_T(t->labels[v]),
					   BV_SV_T(t->labels[bv_table_base(t, v)]),
					   BV_SV_T(row->bench),
					   BV_SV_T(row->op),
					   BV_SV_T(row->backend),
					   BV_SV_I((long long)row->size),
					   bv_sv_real(ch->ratio),
					   bv_sv_real(ch->ci_low),
					   bv_sv_real(ch->ci_high),
					   BV_SV_T(bv_verdict_name(ch->verdict)),
					   BV_SV_T(ch->paired ? "paired" : "unpaired"),
					   BV_SV_B(blob, bytes)};
			rc = bv_site_exec(s, INSERT_CHANGE, a, 13, "recording a verdict");
			free(blob);
		}
	}
	return rc;
}

/* The run's comparison page, as `compare --format html` writes it. */
static int write_compare_page(bv_table *t, const char *site, const char *page)
{
	bv_view_opts view;
	bv_view_init(&view);
	int rc = bv_view_apply(&view, "html", t);
	char *dir = bv_asprintf("%s/compare", site), *path = bv_asprintf("%s/%s", site, page);
	if (rc == 0)
		rc = bv_mkdir_p(dir);
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = rc == 0 ? open_memstream(&buf, &len) : NULL;
	if (rc == 0 && !mem)
		rc = bv_fail(BV_ERUN, "cannot write %s: %s", path, strerror(errno));
	if (rc == 0) {
		rc = bv_export_html(t, mem);
		fclose(mem);
	}
	if (rc == 0)
		rc = bv_write_file_atomic(path, buf, len);
	free(buf), free(dir), free(path);
	return rc;
}

/* One run from dir (an unpacked upload's top directory, or a results
 * directory).  *dup_of gets the key when the run is already in the store. */
static int import_run(bv_publish *p, const char *dir, const char *top, char key[65], int *dup)
{
	run_in r;
	*dup = 0;
	int rc = run_load(dir, top, &r);
	if (rc == 0)
		memcpy(key, r.key, 65);
	int known = 0;
	if (rc == 0)
		rc = bv_site_run_known(p->store, r.key, &known);
	if (rc == 0 && known) {
		*dup = 1;
		run_in_free(&r);
		return 0;
	}
	bv_class cls = {0};
	if (rc == 0)
		rc = bv_class_of(r.docs[0], r.paths[0], &cls);
	int one_class = rc == 0;
	for (size_t i = 1; one_class && i < r.n; i++) {
		bv_class c;
		one_class = bv_class_of(r.docs[i], r.paths[i], &c) == 0 && bv_class_same(&c, &cls);
		bv_class_free(&c);
	}
	bv_table table;
	memset(&table, 0, sizeof(table));
	bv_merge_opts mo = {-1, 0};
	int merged = 0;
	char *page = bv_asprintf("compare/%.16s.html", r.key);
	if (rc == 0)
		rc = bv_site_begin(p->store);
	if (rc == 0)
		rc = store_run(p->store, &r, &cls, page);
	/* The logs are merged from the documents already loaded and checked
	 * (they are handed over and freed, so after store_run): reading them
	 * again from their files, as bv_merge_classes does, parsed each log
	 * twice more: half of an import's time.  Logs of two classes
	 * (one machine block, but a version's simd_isa told apart) still go
	 * through bv_merge_classes, for its messages. */
	if (rc == 0)
		rc = one_class ? bv_merge_docs(r.docs, r.paths, r.n, &mo, &table)
			       : bv_merge_classes(r.paths, r.n, &mo, &table),
		merged = rc == 0;
	if (rc == 0)
		rc = store_changes(p->store, r.key, &table);
	/* the page before the commit: a store that lists a run has its page */
	if (rc == 0)
		rc = write_compare_page(&table, p->site, page);
	if (rc == 0)
		rc = bv_site_commit(p->store);
	else
		bv_site_rollback(p->store);
	if (merged)
		bv_table_free(&table);
	bv_class_free(&cls);
	free(page);
	run_in_free(&r);
	return rc;
}

/* ---- uploads -------------------------------------------------------------- */

static int record_archive(bv_publish *p, const char *sha, const char *source, unsigned long long bytes,
			  const char *status, const char *run, const char *reason)
{
	bv_site_val a[] = {BV_SV_T(sha),  BV_SV_T(source), BV_SV_I((long long)bytes),
			   BV_SV_T(status), BV_SV_T(run),  BV_SV_T(reason)};
	return bv_site_exec(p->store,
			    "INSERT OR REPLACE INTO archives (sha256, source, bytes, seen, status, run, reason) VALUES "
			    "(?1, ?2, ?3, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?4, ?5, ?6)",
			    a, 6, "recording an upload");
}

/* The upload moved aside with its reason beside it, so the incoming
 * directory holds only what is still to be read. */
static int quarantine(bv_publish *p, const char *incoming, const char *name, const char *sha,
		      unsigned long long bytes, const char *reason)
{
	char *qdir = bv_asprintf("%s/quarantine", incoming), *from = bv_asprintf("%s/%s", incoming, name);
	char *to = bv_asprintf("%s/%s", qdir, name), *why = bv_asprintf("%s/%s.reason", qdir, name);
	char *text = bv_asprintf("%s\n", reason);
	int rc = bv_mkdir_p(qdir);
	if (rc == 0 && rename(from, to) != 0)
		rc = bv_fail(BV_ERUN, "cannot move %s to %s: %s", from, to, strerror(errno));
	if (rc == 0)
		rc = bv_write_file_atomic(why, text, strlen(text));
	fprintf(stderr, "publish: %s quarantined: %s\n", name, reason);
	p->quarantined++;
	int rc2 = sha ? record_archive(p, sha, name, bytes, "quarantined", NULL, reason) : 0;
	free(qdir), free(from), free(to), free(why), free(text);
	return rc ? rc : rc2;
}

/* The one directory an upload unpacked to, by name in *top. */
static int upload_top(const char *dir, char **top)
{
	*top = NULL;
	DIR *d = opendir(dir);
	if (!d)
		return bv_fail(BV_ERUN, "%s: %s", dir, strerror(errno));
	struct dirent *e;
	int n = 0, rc = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n++ == 0)
			*top = bv_strdup(e->d_name);
	}
	closedir(d);
	char *full = *top ? bv_asprintf("%s/%s", dir, *top) : NULL;
	if (n != 1 || !bv_is_dir(full))
		rc = bv_fail(BV_EINPUT, "the archive holds %d entries at its top, not one run's directory "
					"(share packs results/<run>/ as <run>/...)",
			     n);
	free(full);
	if (rc)
		free(*top), *top = NULL;
	return rc;
}

/* A message about a file unpacked under tmp, said of the upload: the
 * temporary directory means nothing to the person who reads the reason. */
static char *in_upload(const char *msg, const char *tmp, const char *name)
{
	bv_buf b = BV_BUF_INIT;
	size_t tl = strlen(tmp);
	if (strncmp(msg, name, strlen(name)))
		bv_buf_printf(&b, "%s: ", name);
	for (const char *m = msg; *m;) {
		if (!strncmp(m, tmp, tl) && m[tl] == '/')
			m += tl + 1;
		else
			bv_buf_printf(&b, "%c", *m++);
	}
	return bv_buf_detach(&b);
}

static int one_upload(bv_publish *p, const char *incoming, const char *name)
{
	char *path = bv_asprintf("%s/%s", incoming, name);
	char sha[65] = "";
	unsigned long long bytes = 0;
	int rc = file_sha(path, p->max_archive, sha, &bytes);
	if (rc == BV_EINPUT) {
		char *reason = bv_strdup(bv_error_last());
		rc = quarantine(p, incoming, name, NULL, bytes, reason);
		free(reason), free(path);
		return rc;
	}
	char *status = NULL;
	if (rc == 0)
		rc = bv_site_archive_status(p->store, sha, &status);
	if (rc == 0 && status) {
		/* the same bytes again: one run (a bad one stays out) */
		if (!strcmp(status, "quarantined")) {
			char *before = NULL, *reason;
			rc = bv_site_archive_reason(p->store, sha, &before);
			reason = bv_asprintf("the same archive was refused before: %s", before ? before : "");
			if (rc == 0)
				rc = quarantine(p, incoming, name, NULL, bytes, reason);
			free(before), free(reason);
		} else
			p->known++;
		free(status), free(path);
		return rc;
	}
	char *tmp = rc == 0 ? bv_mkdtemp_in(getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
					     "bv-publish-")
			    : NULL;
	if (rc == 0 && !tmp)
		rc = bv_fail(BV_ERUN, "cannot make a temporary directory: %s", strerror(errno));
	char *top = NULL, key[65] = "";
	int dup = 0;
	int bad = 0;
	if (rc == 0) {
		bad = bv_archive_extract(path, tmp, name);
		if (bad == 0)
			bad = upload_top(tmp, &top);
		if (bad == 0) {
			char *run = bv_asprintf("%s/%s", tmp, top);
			bad = import_run(p, run, top, key, &dup);
			free(run);
		}
	}
	if (rc == 0 && bad == BV_EINPUT) {
		char *reason = in_upload(bv_error_last(), tmp, name);
		rc = quarantine(p, incoming, name, sha, bytes, reason);
		free(reason);
	} else if (rc == 0 && bad)
		rc = bad;
	else if (rc == 0) {
		rc = record_archive(p, sha, name, bytes, dup ? "duplicate" : "imported", key, NULL);
		if (dup)
			p->duplicates++;
		else
			p->imported++;
	}
	if (tmp)
		bv_rm_rf(tmp);
	free(tmp), free(top), free(path);
	return rc;
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int bv_publish_incoming(bv_publish *p, const char *incoming)
{
	DIR *d = opendir(incoming);
	if (!d)
		return bv_fail(BV_EINPUT, "--incoming %s: %s", incoming, strerror(errno));
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (e->d_name[0] == '.' || l < 8 || strcmp(e->d_name + l - 7, ".tar.gz"))
			continue;
		names = bv_xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = bv_strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (rc == 0)
			rc = one_upload(p, incoming, names[i]);
		free(names[i]);
	}
	free(names);
	return rc;
}

int bv_publish_dir(bv_publish *p, const char *dir)
{
	char key[65];
	int dup = 0;
	int rc = import_run(p, dir, NULL, key, &dup);
	if (rc == BV_EINPUT) {
		fprintf(stderr, "publish: %s not published: %s\n", dir, bv_error_last());
		p->failed++;
		return 0;
	}
	if (rc)
		return rc;
	char *src = bv_asprintf("dir:%s", key);
	rc = record_archive(p, src, dir, 0, dup ? "duplicate" : "imported", key, NULL);
	free(src);
	if (dup)
		p->duplicates++;
	else
		p->imported++;
	return rc;
}
