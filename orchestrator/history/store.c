/*
 * store.c - the history store (store.h; docs/history.md, "The history
 * store"): the steps of every history measured on this machine, in one
 * SQLite database, so a history measured again, or grown by one version,
 * measures only what it lacks.  This file reads and writes the steps
 * through the statements store_db.c prepared (bv_store_get_step,
 * bv_store_put_step), and imports a run's results logs as steps
 * (bv_store_import_log); the database itself (opening it, its schema and
 * migrations, transactions) is store_db.c.
 *
 * A row that does not read as a step is BV_EINPUT naming the path: a step
 * is checked when it is put and again when it is read, whoever wrote the
 * store.
 *
 * proc_ratio is stored as a BLOB of IEEE-754 doubles, 8 bytes each,
 * little-endian whatever the host (a store copied between machines reads
 * the same), one per process in the order measured; an empty BLOB for none.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "classes.h"
#include "common.h"
#include "fs.h"
#include "json.h"
#include "merge.h"
#include "results.h"
#include "store.h"
#include "store_db.h"
#include "table.h"
#include "verdict.h"

/* The verdicts a step may have (verdict.c's words): what get_step hands
 * out, so callers compare pointers or strings alike. */
/* The statuses an absent step may have (results.c's words). */
static const char *const absences[] = {"n/a", "skipped", NULL};
/* An absent step's reason is printed in the history's notes: bounded and
 * without control characters, whoever wrote the store. */
#define STORE_REASON_MAX 1024

void bv_step_free(bv_step *s)
{
	if (!s)
		return;
	free(s->cell);
	free(s->proc_ratio);
	free(s->absent_reason);
	memset(s, 0, sizeof(*s));
}

static void put_le64(unsigned char *p, double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof(u));
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(u >> (8 * i));
}

static double get_le64(const unsigned char *p)
{
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u |= (uint64_t)p[i] << (8 * i);
	double d;
	memcpy(&d, &u, sizeof(d));
	return d;
}

static int key_ok(const char *s)
{
	return s && *s;
}

/* Whether a step's numbers are a step's: what put refuses to store and get
 * refuses to hand out.  NULL when they are, else what is wrong. */
static const char *step_wrong(double ratio, double lo, double hi, const double *pr, size_t n, double p)
{
	if (!isfinite(ratio) || ratio <= 0)
		return "ratio is not a finite number > 0";
	if (isnan(lo) != isnan(hi))
		return "one bound of the interval without the other";
	if (!isnan(lo) && !(isfinite(lo) && isfinite(hi) && lo > 0 && lo <= ratio && ratio <= hi))
		return "interval is not finite, positive and ordered (lo <= ratio <= hi)";
	for (size_t i = 0; i < n; i++)
		if (!isfinite(pr[i]) || pr[i] <= 0)
			return "a process ratio is not a finite number > 0";
	if (!isnan(p) && !(p >= 0 && p <= 1))
		return "p is not in [0, 1]";
	return NULL;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

static void bind_key(sqlite3_stmt *st, const char *cls, const char *key_a, const char *key_b,
                     const char *cell, const char *method)
{
	bind_text(st, 1, cls);
	bind_text(st, 2, key_a);
	bind_text(st, 3, key_b);
	bind_text(st, 4, cell);
	bind_text(st, 5, method);
}

/* A REAL column that may be NULL (NAN); *bad when it holds anything else. */
static double column_real(sqlite3_stmt *st, int i, int nullable, int *bad)
{
	int t = sqlite3_column_type(st, i);
	if (t == SQLITE_NULL && nullable)
		return NAN;
	if (t != SQLITE_FLOAT && t != SQLITE_INTEGER) {
		*bad = 1;
		return NAN;
	}
	return sqlite3_column_double(st, i);
}

/* A row of the store that does not read as what it should: input, named. */
static int row_wrong(const bv_store *s, const char *kind, const char *cls, const char *key_a,
                     const char *key_b, const char *cell, const char *method, const char *what)
{
	char *c = bv_escape(cell);
	int rc = bv_fail(BV_EINPUT,
	                 "%s: the %s of %s (class %s, %s..%s, method %s): %s; the store was left as it "
	                 "is: move it aside or give another --store",
	                 s->path, kind, c, cls, key_a, key_b, method, what);
	free(c);
	return rc;
}

/* A step put refuses: the caller's bug or hostile input, nothing written. */
static int unstorable(const bv_store *s, const char *key_a, const char *key_b, const char *cell,
                      const char *what)
{
	char *c = bv_escape(cell);
	int rc = bv_fail(BV_EINPUT, "%s: the step of %s (%s..%s) cannot be stored: %s", s->path, c, key_a,
	                 key_b, what);
	free(c);
	return rc;
}

static const char *absence_static(const char *v)
{
	for (size_t i = 0; v && absences[i]; i++)
		if (!strcmp(v, absences[i]))
			return absences[i];
	return NULL;
}

/* Whether an absent step's reason may be kept and shown: NULL when it may,
 * else what is wrong with it. */
static const char *reason_wrong(const char *r, size_t len)
{
	if (len > STORE_REASON_MAX)
		return "reason is over 1024 bytes";
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)r[i] < 0x20 || r[i] == 0x7f)
			return "reason holds a control character";
	return NULL;
}

/* Runs a bound statement that returns no rows, then resets it. */
static int step_done(bv_store *s, sqlite3_stmt *st, const char *doing)
{
	int rc = sqlite3_step(st);
	int err = rc == SQLITE_DONE ? 0 : bv_store_db_fail(s->path, s->db, rc, doing);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return err;
}

/* The absent step of the key, if the store has one (schema 3's nosteps). */
static int get_absent(bv_store *s, const char *cls, const char *key_a, const char *key_b, const char *cell,
                      const char *method, bv_step *out, int *found)
{
	sqlite3_stmt *st = s->get_abs;
	bind_key(st, cls, key_a, key_b, cell, method);
	int rc = sqlite3_step(st), err = 0;
	if (rc == SQLITE_ROW) {
		const char *status = NULL, *what = NULL;
		if (sqlite3_column_type(st, 0) == SQLITE_TEXT)
			status = absence_static((const char *)sqlite3_column_text(st, 0));
		sqlite3_int64 side = sqlite3_column_int64(st, 1);
		int rtype = sqlite3_column_type(st, 2);
		const char *reason = rtype == SQLITE_TEXT ? (const char *)sqlite3_column_text(st, 2) : NULL;
		size_t rlen = reason ? (size_t)sqlite3_column_bytes(st, 2) : 0;
		if (!status)
			what = "status is not n/a or skipped";
		else if (sqlite3_column_type(st, 1) != SQLITE_INTEGER || (side != 0 && side != 1))
			what = "side is not 0 or 1";
		else if (rtype != SQLITE_NULL && rtype != SQLITE_TEXT)
			what = "reason is not text";
		else if (reason)
			what = reason_wrong(reason, rlen);
		if (what) {
			err = row_wrong(s, "absent step", cls, key_a, key_b, cell, method, what);
		} else {
			out->cell = bv_strdup(cell);
			out->ratio = out->lo = out->hi = out->p = NAN;
			out->proc_ratio = NULL, out->nproc = 0, out->verdict = BV_NO_VERDICT;
			out->absent = status, out->absent_side = (int)side;
			out->absent_reason = reason ? bv_strdup(reason) : NULL;
			*found = 1;
		}
	} else if (rc != SQLITE_DONE)
		err = bv_store_db_fail(s->path, s->db, rc, "reading an absent step");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return err;
}

int bv_store_get_step(bv_store *s, const char *cls, const char *key_a, const char *key_b, const char *cell,
                      const char *method, bv_step *out, int *found)
{
	*found = 0;
	if (!key_ok(cls) || !key_ok(key_a) || !key_ok(key_b) || !key_ok(cell) || !key_ok(method))
		return bv_fail(BV_ERUN, "%s: a step's key needs a class, two build keys, a cell and a method",
		               s->path);
	sqlite3_stmt *st = s->get;
	bind_key(st, cls, key_a, key_b, cell, method);
	int rc = sqlite3_step(st), err = 0;
	if (rc == SQLITE_DONE)
		err = 0;
	else if (rc != SQLITE_ROW)
		err = bv_store_db_fail(s->path, s->db, rc, "reading a step");
	else {
		int bad = 0;
		double ratio = column_real(st, 0, 0, &bad);
		double lo = column_real(st, 1, 1, &bad), hi = column_real(st, 2, 1, &bad);
		double p = column_real(st, 6, 1, &bad);
		sqlite3_int64 nproc = sqlite3_column_int64(st, 3);
		if (sqlite3_column_type(st, 3) != SQLITE_INTEGER)
			bad = 1;
		const unsigned char *blob = NULL;
		int blen = 0;
		if (sqlite3_column_type(st, 4) == SQLITE_BLOB) {
			blob = sqlite3_column_blob(st, 4);
			blen = sqlite3_column_bytes(st, 4);
		} else
			bad = 1;
		const char *what = NULL;
		bv_verdict verdict = BV_NO_VERDICT;
		if (sqlite3_column_type(st, 5) == SQLITE_TEXT)
			verdict = bv_verdict_parse((const char *)sqlite3_column_text(st, 5));
		double *pr = NULL;
		if (bad)
			what = "a column of the wrong type";
		/* blen / 8, not nproc * 8: a count edited by hand (2^61) made
		 * the product wrap to an empty BLOB's 0, and its doubles were
		 * allocated (out of memory, abort) */
		else if (nproc < 0 || blen % 8 != 0 || nproc != (sqlite3_int64)(blen / 8))
			what = "proc_ratio does not hold nproc doubles";
		else if (!verdict)
			what = "verdict is not one of same, slower, faster, inconclusive, unstable";
		else {
			pr = nproc ? bv_xcalloc((size_t)nproc, sizeof(double)) : NULL;
			for (sqlite3_int64 i = 0; i < nproc; i++)
				pr[i] = get_le64(blob + 8 * i);
			what = step_wrong(ratio, lo, hi, pr, (size_t)nproc, p);
		}
		if (what) {
			free(pr);
			err = row_wrong(s, "step", cls, key_a, key_b, cell, method, what);
		} else {
			out->cell = bv_strdup(cell);
			out->ratio = ratio, out->lo = lo, out->hi = hi, out->p = p;
			out->proc_ratio = pr;
			out->nproc = (size_t)nproc;
			out->verdict = verdict;
			out->absent = NULL, out->absent_side = 0, out->absent_reason = NULL;
			*found = 1;
		}
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (err == 0 && !*found)
		err = get_absent(s, cls, key_a, key_b, cell, method, out, found);
	return err;
}

/* An absent step into nosteps, and out of steps (the two tables never hold
 * one key twice). */
static int put_absent(bv_store *s, const char *cls, const char *key_a, const char *key_b, const char *cell,
                      const char *method, const bv_step *step)
{
	const char *what = NULL;
	if (!absence_static(step->absent))
		what = "an absent step's status is not n/a or skipped";
	else if (step->absent_side != 0 && step->absent_side != 1)
		what = "an absent step's side is not 0 or 1";
	else if (step->absent_reason)
		what = reason_wrong(step->absent_reason, strlen(step->absent_reason));
	if (what)
		return unstorable(s, key_a, key_b, cell, what);
	sqlite3_stmt *st = s->put_abs;
	bind_key(st, cls, key_a, key_b, cell, method);
	bind_text(st, 6, step->absent);
	sqlite3_bind_int(st, 7, step->absent_side);
	if (step->absent_reason)
		bind_text(st, 8, step->absent_reason);
	else
		sqlite3_bind_null(st, 8);
	if (s->source)
		bind_text(st, 9, s->source);
	else
		sqlite3_bind_null(st, 9);
	int err = step_done(s, st, "writing an absent step");
	if (err == 0) {
		bind_key(s->del, cls, key_a, key_b, cell, method);
		err = step_done(s, s->del, "replacing a step");
	}
	return err;
}

int bv_store_put_step(bv_store *s, const char *cls, const char *key_a, const char *key_b, const char *cell,
                      const char *method, const bv_step *step)
{
	if (!key_ok(cls) || !key_ok(key_a) || !key_ok(key_b) || !key_ok(cell) || !key_ok(method))
		return bv_fail(BV_ERUN, "%s: a step's key needs a class, two build keys, a cell and a method",
		               s->path);
	if (step->absent)
		return put_absent(s, cls, key_a, key_b, cell, method, step);
	const char *what = step->nproc && !step->proc_ratio ? "nproc without process ratios" : NULL;
	if (!what)
		what = step_wrong(step->ratio, step->lo, step->hi, step->proc_ratio, step->nproc, step->p);
	if (!what && !bv_verdict_name(step->verdict))
		what = "verdict is not one of same, slower, faster, inconclusive, unstable";
	if (!what && step->nproc > (size_t)INT32_MAX / 8)
		what = "too many process ratios";
	if (what)
		return unstorable(s, key_a, key_b, cell, what);
	unsigned char *blob = bv_xmalloc(step->nproc * 8 + 1);
	for (size_t i = 0; i < step->nproc; i++)
		put_le64(blob + 8 * i, step->proc_ratio[i]);
	sqlite3_stmt *st = s->put;
	bind_key(st, cls, key_a, key_b, cell, method);
	sqlite3_bind_double(st, 6, step->ratio);
	/* NAN binds as NULL in SQLite; said outright so it never depends on it */
	isnan(step->lo) ? sqlite3_bind_null(st, 7) : sqlite3_bind_double(st, 7, step->lo);
	isnan(step->hi) ? sqlite3_bind_null(st, 8) : sqlite3_bind_double(st, 8, step->hi);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)step->nproc);
	/* a non-NULL pointer: a zero-length BLOB, not NULL */
	sqlite3_bind_blob(st, 10, blob, (int)(step->nproc * 8), SQLITE_TRANSIENT);
	bind_text(st, 11, bv_verdict_name(step->verdict));
	isnan(step->p) ? sqlite3_bind_null(st, 12) : sqlite3_bind_double(st, 12, step->p);
	if (s->source)
		bind_text(st, 13, s->source);
	else
		sqlite3_bind_null(st, 13);
	int err = step_done(s, st, "writing a step");
	free(blob);
	if (err == 0) {
		bind_key(s->del_abs, cls, key_a, key_b, cell, method);
		err = step_done(s, s->del_abs, "replacing an absent step");
	}
	return err;
}

/* ---- import of results logs ------------------------------------------- */

/* A build key as build.c makes it: 40 lowercase hex digits. */
static int build_key_ok(const char *k)
{
	if (!k || strlen(k) != 40)
		return 0;
	for (const char *p = k; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return 1;
}

static const char *log_build_key(const cJSON *doc)
{
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(doc, "version");
	return bv_json_str(cJSON_GetObjectItemCaseSensitive(ver, "build"), "key");
}

/* Logs of the run that path is (a run's directory) or belongs to (a log:
 * its directory), and which of them to import: *only = -1 for all, else
 * the index of the log path names. */
static int import_logs(const char *path, char ***paths, size_t *n, long *only)
{
	*only = -1;
	if (bv_is_dir(path))
		return bv_run_dir_logs(path, paths, n, NULL);
	struct stat want, st;
	if (stat(path, &want) != 0)
		return bv_fail(BV_EINPUT, "cannot read %s: %s", path, strerror(errno));
	/* Its run's baseline is beside it: that log's build key is key_a. */
	char *dir = bv_strdup(path), *slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = 0;
	else
		*slash = 0;
	int rc = bv_run_dir_logs(dir, paths, n, NULL);
	for (size_t i = 0; rc == 0 && i < *n && *only < 0; i++)
		if (stat((*paths)[i], &st) == 0 && st.st_dev == want.st_dev && st.st_ino == want.st_ino)
			*only = (long)i;
	if (rc == 0 && *only < 0)
		rc = bv_fail(BV_EINPUT,
		             "%s is not a results log of the run in %s (import reads a log beside its "
		             "run's baseline log, or a run's directory)",
		             path, dir);
	free(dir);
	return rc;
}

/* Every log of the run read, with its build key, and checked to begin
 * with the run's baseline (whose build keys every step); *run_id is the
 * run's id, for the steps' source.  0, or the error said. */
static int import_read(char **paths, size_t n, cJSON **docs, char **keys, char **run_id)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		rc = bv_log_load(paths[i], &docs[i]);
		if (rc)
			break;
		const char *k = log_build_key(docs[i]);
		keys[i] = k ? bv_strdup(k) : NULL;
	}
	if (rc == 0) {
		/* The first log is the run's baseline only when the run block
		 * says so and its log is there: otherwise every ratio would be
		 * keyed to the wrong build. */
		const cJSON *run = cJSON_GetObjectItemCaseSensitive(docs[0], "run");
		const cJSON *ver = cJSON_GetObjectItemCaseSensitive(docs[0], "version");
		const char *base = bv_json_str(run, "baseline"), *label = bv_json_str(ver, "label");
		const char *id = bv_json_str(run, "id");
		if (!base || !label || strcmp(base, label))
			rc = bv_fail(BV_EINPUT,
			             "%s: its run's baseline log is not there (the run block names %s, the "
			             "first log is "
			             "%s): import needs it for the steps' first build",
			             paths[0], base ? base : "none", paths[0]);
		else if (!build_key_ok(keys[0]))
			rc = bv_fail(
			    BV_EINPUT,
			    "%s: version.build.key is missing or not a build key (40 hex digits): its steps "
			    "cannot be keyed (a log written before build keys?)",
			    paths[0]);
		*run_id = bv_strdup(id ? id : "?");
	}
	return rc;
}

/* Version v's paired, stable changes in the merged table t, each put in
 * the store as a step from the baseline's build (keys[0]) to v's, with the
 * log's own path as the source; *imported counts them.  0, or the error
 * said. */
static int import_version(bv_store *s, const bv_table *t, size_t v, char **paths, char **keys, const char *cls,
                          const char *method, const char *run_id, size_t *imported)
{
	int rc = 0;
	/* the log's own path, not results/latest's, which moves on */
	char *real = realpath(paths[v], NULL);
	char *source = bv_asprintf("%s (run %s)", real ? real : paths[v], run_id);
	free(real);
	bv_store_set_source(s, source);
	free(source);
	for (size_t k = 0; rc == 0 && k < t->nrows; k++) {
		const bv_change *ch = &t->rows[k].changes[v];
		/* Steps are paired ratios only: an isolated or unpaired
		 * ratio is not what a history chains. */
		if (!ch->valid || !ch->paired || ch->between_runs || strcmp(ch->mode, "paired"))
			continue;
		/* Nor a ratio that followed the machine's state (verdict.c):
		 * its processes disagree with its estimate; the history
		 * measures that step again. */
		if (ch->state_dependent || ch->unstable)
			continue;
		if (!build_key_ok(keys[v])) {
			rc = bv_fail(BV_EINPUT,
			             "%s: version.build.key is missing or not a build key (40 hex "
			             "digits): its "
			             "steps cannot be keyed (a log written before build keys?)",
			             paths[v]);
			break;
		}
		const bv_row *r = &t->rows[k];
		size_t clen = strlen(r->bench) + strlen(r->op) + strlen(r->backend) + 40;
		char *cell = bv_xmalloc(clen);
		bv_row_key(r, cell, clen);
		bv_step step = {.cell = cell,
		                .ratio = ch->ratio,
		                .lo = bv_change_has_interval(ch) ? ch->ci_low : NAN,
		                .hi = bv_change_has_interval(ch) ? ch->ci_high : NAN,
		                .proc_ratio = ch->proc_ratio,
		                .nproc = ch->nproc,
		                .verdict = ch->verdict,
		                .p = ch->p};
		rc = bv_store_put_step(s, cls, keys[0], keys[v], cell, method, &step);
		free(cell);
		if (rc == 0)
			(*imported)++;
	}
	return rc;
}

int bv_store_import_log(bv_store *s, const char *path, const char *method, size_t *imported)
{
	*imported = 0;
	if (!key_ok(method))
		return bv_fail(BV_ERUN, "import of %s: no method given", path);
	char **paths = NULL;
	size_t n = 0;
	long only = -1;
	int rc = import_logs(path, &paths, &n, &only);
	cJSON **docs = rc ? NULL : bv_xcalloc(n, sizeof(cJSON *));
	char **keys = rc ? NULL : bv_xcalloc(n, sizeof(char *));
	char *run_id = NULL;
	bv_class cls = {0};
	if (rc == 0)
		rc = import_read(paths, n, docs, keys, &run_id);
	if (rc == 0)
		rc = bv_class_of(docs[0], paths[0], &cls); /* machine.class, else derived */
	bv_table t;
	memset(&t, 0, sizeof(t));
	int merged = 0;
	if (rc == 0) {
		/* bv_merge_docs takes the documents over; its verdicts are the
		 * run's own (decided over the run's whole table, as run and
		 * compare DIR show them). */
		bv_merge_opts mo = {-1, 0};
		rc = bv_merge_docs(docs, paths, n, &mo, &t);
		merged = rc == 0;
	}
	int own_txn = rc == 0 && !s->in_txn;
	if (own_txn)
		rc = bv_store_begin(s);
	char *old_source = s->source ? bv_strdup(s->source) : NULL;
	for (size_t v = 1; rc == 0 && v < t.nversions; v++) {
		if (only >= 0 && (size_t)only != v)
			continue;
		rc = import_version(s, &t, v, paths, keys, cls.name, method, run_id, imported);
	}
	bv_store_set_source(s, old_source);
	free(old_source);
	if (own_txn && rc == 0)
		rc = bv_store_commit(s);
	else if (own_txn)
		bv_store_rollback(s);
	if (rc)
		*imported = 0; /* rolled back, or the caller's transaction will be */
	if (merged)
		bv_table_free(&t);
	for (size_t i = 0; docs && i < n; i++)
		cJSON_Delete(docs[i]); /* NULL once bv_merge_docs took them */
	bv_class_free(&cls);
	for (size_t i = 0; i < n; i++)
		free(paths[i]), free(keys ? keys[i] : NULL);
	free(paths), free(keys), free(docs), free(run_id);
	return rc;
}
