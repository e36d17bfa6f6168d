/*
 * site_store.c - the store of what `publish` imported (site_store.h): its
 * schema, opening and refusing, transactions, and the statements the import
 * writes through.
 *
 * The file is input like any log: a file that is not SQLite, a database of
 * another program (its application_id is not ours) or of a newer
 * bench-versions (user_version above ours) is refused and left untouched.
 * Every statement is constant text with bound parameters: nothing read from
 * an upload ever becomes SQL.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "fs.h"
#include "site_store.h"

/* "BVsi": a bench-versions site store (PRAGMA application_id). */
#define SITE_APP_ID 0x42567369
#define SITE_SCHEMA 1
#define SITE_BUSY_MS 10000

/* The schema at version 1; a later version appends a migration, never
 * edits this (stores at version 1 exist). */
static const char schema_v1[] =
    "CREATE TABLE archives ("
    " sha256 TEXT PRIMARY KEY, source TEXT NOT NULL, bytes INTEGER NOT NULL, seen TEXT NOT NULL,"
    " status TEXT NOT NULL, run TEXT, reason TEXT);"
    "CREATE TABLE runs ("
    " key TEXT PRIMARY KEY, id TEXT NOT NULL, created TEXT NOT NULL, class TEXT NOT NULL,"
    " cpu TEXT NOT NULL, isa TEXT NOT NULL, gpu TEXT NOT NULL, hostname TEXT, cpus INTEGER,"
    " tool TEXT, baseline TEXT NOT NULL, method TEXT NOT NULL, load_max REAL, loaded INTEGER,"
    " imported TEXT NOT NULL, page TEXT NOT NULL);"
    "CREATE TABLE versions ("
    " run TEXT NOT NULL, label TEXT NOT NULL, pos INTEGER NOT NULL, name TEXT, kind TEXT,"
    " commit_id TEXT, kernel_version TEXT, PRIMARY KEY (run, label));"
    "CREATE TABLE cells ("
    " run TEXT NOT NULL, version TEXT NOT NULL, bench TEXT NOT NULL, op TEXT NOT NULL,"
    " backend TEXT NOT NULL, size INTEGER NOT NULL, shape TEXT NOT NULL, status TEXT NOT NULL,"
    " reason TEXT, median_ns REAL, lo_ns REAL, hi_ns REAL,"
    " PRIMARY KEY (run, version, bench, op, backend, size));"
    "CREATE INDEX cells_by_cell ON cells (bench, op, backend, size);"
    "CREATE TABLE changes ("
    " run TEXT NOT NULL, version TEXT NOT NULL, baseline TEXT NOT NULL, bench TEXT NOT NULL,"
    " op TEXT NOT NULL, backend TEXT NOT NULL, size INTEGER NOT NULL, ratio REAL, lo REAL, hi REAL,"
    " verdict TEXT NOT NULL, mode TEXT NOT NULL,"
    " PRIMARY KEY (run, version, bench, op, backend, size));";

int bv_site_db_fail(const bv_site_store *s, int rc, const char *doing)
{
	const char *msg = s && s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
	const char *path = s ? s->path : "the site store";
	switch (rc & 0xff) {
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
	case SQLITE_FORMAT:
	case SQLITE_SCHEMA:
	case SQLITE_ERROR:
	case SQLITE_MISMATCH:
		return bv_fail(BV_EINPUT,
			       "%s: %s: %s (not a site store this bench-versions can use; it was left as it is: "
			       "move it aside or give another --store)",
			       path, doing, msg);
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return bv_fail(BV_ERUN, "%s: %s: %s (another publish held the store for over %d s)", path, doing, msg,
			       SITE_BUSY_MS / 1000);
	default:
		return bv_fail(BV_ERUN, "%s: %s: %s", path, doing, msg);
	}
}

static int exec_const(bv_site_store *s, const char *sql, const char *doing)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : bv_site_db_fail(s, rc, doing);
}

static int pragma_int(bv_site_store *s, const char *sql, long long *v)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0), rc = SQLITE_OK;
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : bv_site_db_fail(s, rc, "reading the store's header");
}

/* A new file gets the schema; an existing one must be ours, at our
 * version, holding nothing but our tables. */
static int check_or_create(bv_site_store *s)
{
	long long app = 0, ver = 0, objs = 0;
	int rc = pragma_int(s, "PRAGMA application_id", &app);
	if (rc == 0)
		rc = pragma_int(s, "PRAGMA user_version", &ver);
	if (rc == 0)
		rc = pragma_int(s, "SELECT count(*) FROM sqlite_master", &objs);
	if (rc)
		return rc;
	if (app == 0 && ver == 0 && objs == 0) {
		rc = exec_const(s, "BEGIN IMMEDIATE", "creating the store");
		if (rc == 0)
			rc = exec_const(s, schema_v1, "creating the store's tables");
		if (rc == 0)
			rc = exec_const(s, "PRAGMA application_id = 1112961897; PRAGMA user_version = 1",
					"marking the store");
		if (rc == 0)
			rc = exec_const(s, "COMMIT", "creating the store");
		else
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	if (app != SITE_APP_ID)
		return bv_fail(BV_EINPUT,
			       "%s is another program's database (application_id %lld), not a bench-versions site "
			       "store: it was left as it is; give another --store",
			       s->path, app);
	if (ver > SITE_SCHEMA)
		return bv_fail(BV_EINPUT,
			       "%s is a site store of a newer bench-versions (schema %lld; this one writes %d): it was "
			       "left as it is",
			       s->path, ver, SITE_SCHEMA);
	return 0;
}

int bv_site_store_open(const char *path, bv_site_store **out)
{
	*out = NULL;
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return bv_fail(BV_EINPUT, "%s is %s, not a site store (an SQLite file)", path, bv_file_kind(st.st_mode));
	bv_site_store *s = bv_xcalloc(1, sizeof(*s));
	s->path = bv_strdup(path);
	int rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
				 NULL);
	int err = rc == SQLITE_OK ? 0 : bv_site_db_fail(s, rc, "opening the store");
	if (err == 0) {
		sqlite3_extended_result_codes(s->db, 1);
		sqlite3_busy_timeout(s->db, SITE_BUSY_MS);
		/* no trigger, view or schema function another program may have
		 * added runs on this connection (store_db.c says why) */
		sqlite3_db_config(s->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)NULL);
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
		sqlite3_db_config(s->db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)NULL);
#endif
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
		sqlite3_db_config(s->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
#endif
		err = check_or_create(s);
	}
	/* one import is one transaction; a crash loses it whole, never half */
	if (err == 0)
		err = exec_const(s, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL", "setting WAL mode");
	/* The pages are written from full scans of cells in cell order, each
	 * row a seek into the table (rows are stored in import order): with
	 * SQLite's default 2 MiB of cache every seek re-read a page from the
	 * file (68 MB for 1000 runs).  Up to 128 MiB, taken only as used. */
	if (err == 0)
		err = exec_const(s, "PRAGMA cache_size = -131072", "sizing the store's cache");
	if (err) {
		bv_site_store_close(s);
		return err;
	}
	*out = s;
	return 0;
}

void bv_site_store_close(bv_site_store *s)
{
	if (!s)
		return;
	if (s->in_txn)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	for (int i = 0; i < BV_SITE_STMTS; i++)
		sqlite3_finalize(s->stmts[i]);
	sqlite3_close_v2(s->db);
	free(s->path);
	free(s);
}

int bv_site_begin(bv_site_store *s)
{
	int rc = exec_const(s, "BEGIN IMMEDIATE", "starting an import");
	s->in_txn = rc == 0;
	return rc;
}

int bv_site_commit(bv_site_store *s)
{
	int rc = exec_const(s, "COMMIT", "saving an import");
	s->in_txn = 0;
	return rc;
}

void bv_site_rollback(bv_site_store *s)
{
	if (s->in_txn)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	s->in_txn = 0;
}

bv_site_val bv_sv_real(double r)
{
	return isfinite(r) ? (bv_site_val){BV_SV_REAL, NULL, 0, r} : (bv_site_val){BV_SV_NULL, NULL, 0, 0};
}

static int bind_all(sqlite3_stmt *st, const bv_site_val *args, int n)
{
	int rc = SQLITE_OK;
	for (int i = 0; rc == SQLITE_OK && i < n; i++)
		switch (args[i].kind) {
		case BV_SV_NULL: rc = sqlite3_bind_null(st, i + 1); break;
		case BV_SV_TEXT: rc = sqlite3_bind_text(st, i + 1, args[i].text, -1, SQLITE_TRANSIENT); break;
		case BV_SV_INT: rc = sqlite3_bind_int64(st, i + 1, args[i].i); break;
		case BV_SV_REAL: rc = sqlite3_bind_double(st, i + 1, args[i].r); break;
		}
	return rc;
}

int bv_site_exec(bv_site_store *s, const char *sql, const bv_site_val *args, int n, const char *doing)
{
	/* Each statement is prepared once and kept (sqlite3_prepare parses
	 * the text every time: 6 % of an import of 100 runs went there);
	 * more different statements than the cache holds are prepared and
	 * finalized each time, as before. */
	sqlite3_stmt *st = NULL;
	int slot = -1, rc = SQLITE_OK;
	for (int i = 0; i < BV_SITE_STMTS && !st; i++)
		if (!s->stmts[i])
			slot = slot < 0 ? i : slot;
		else if (!strcmp(sqlite3_sql(s->stmts[i]), sql))
			st = s->stmts[i], slot = i;
	if (!st) {
		rc = sqlite3_prepare_v3(s->db, sql, -1, slot >= 0 ? SQLITE_PREPARE_PERSISTENT : 0, &st, NULL);
		if (rc == SQLITE_OK && slot >= 0)
			s->stmts[slot] = st;
	}
	if (rc == SQLITE_OK)
		rc = bind_all(st, args, n);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_DONE || rc == SQLITE_ROW)
			rc = SQLITE_OK;
	}
	int err = rc == SQLITE_OK ? 0 : bv_site_db_fail(s, rc, doing);
	if (st && slot >= 0 && s->stmts[slot] == st) {
		/* ready for the next time, holding no lock and no text of this one */
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	} else
		sqlite3_finalize(st);
	return err;
}

static int one_text(bv_site_store *s, const char *sql, const char *arg, char **out, const char *doing)
{
	*out = NULL;
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			const unsigned char *t = sqlite3_column_text(st, 0);
			*out = bv_strdup(t ? (const char *)t : "");
			rc = SQLITE_OK;
		} else if (rc == SQLITE_DONE)
			rc = SQLITE_OK;
	}
	int err = rc == SQLITE_OK ? 0 : bv_site_db_fail(s, rc, doing);
	sqlite3_finalize(st);
	return err;
}

int bv_site_archive_status(bv_site_store *s, const char *sha, char **status)
{
	return one_text(s, "SELECT status FROM archives WHERE sha256 = ?1", sha, status, "reading the archives");
}

int bv_site_run_known(bv_site_store *s, const char *key, int *known)
{
	char *t = NULL;
	int rc = one_text(s, "SELECT key FROM runs WHERE key = ?1", key, &t, "reading the runs");
	*known = t != NULL;
	free(t);
	return rc;
}

int bv_site_archive_reason(bv_site_store *s, const char *sha, char **reason)
{
	return one_text(s, "SELECT reason FROM archives WHERE sha256 = ?1", sha, reason, "reading the archives");
}
