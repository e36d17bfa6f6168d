/*
 * site_store.c - the store of what `publish` imported (site_store.h): what
 * it is (its schema and application id: site_kind, which sqlite_db.c opens
 * and refuses by), its transactions, and the statements the import writes
 * through.
 *
 * The file is input like any log, opened as sqlite_db.c opens one: a file
 * that is not SQLite, a database of another program (its application_id
 * is not ours), of a newer bench-versions (user_version above ours), or a
 * store holding any table, index, trigger or view its schema does not
 * create, or one altered, is refused and left untouched.  Every statement
 * is constant text with bound parameters: nothing read from an upload ever
 * becomes SQL.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "site_store.h"
#include "sqlite_db.h"

/* "BVsi": a bench-versions site store (PRAGMA application_id). */
#define SITE_APP_ID 0x42567369
#define SITE_BUSY_MS 10000

/* The schema, one migration per version: migrations[i] takes a store at
 * user_version i to i + 1.  A later version appends a migration, never
 * edits one: stores at version 1 exist, and their objects are compared
 * with what these statements make, SQL text and all (sqlite_db.c). */
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

static const char *const migrations[] = {
    schema_v1,
    /* 2: a working tree's tree hash (the log's version.tree), which names
     * a version that has no commit; NULL in rows imported before. */
    "ALTER TABLE versions ADD COLUMN tree TEXT",
    /* 3: a paired change's per-process ratios (the log's process_ratios),
     * IEEE-754 doubles, 8 bytes each, little-endian, as the history store
     * keeps them: the cell pages pair two versions' ratios process by
     * process to find change points.  NULL where the log has none. */
    "ALTER TABLE changes ADD COLUMN proc_ratio BLOB",
};

/* The site store as sqlite_db.c opens it.  The pages are written from full
 * scans of cells in cell order, each row a seek into the table (rows are
 * stored in import order): with SQLite's default 2 MiB of cache every seek
 * re-read a page from the file (68 MB for 1000 runs).  Up to 128 MiB,
 * taken only as used. */
static const bv_sqlite_kind site_kind = {
    .noun = "site store",
    .holder = "another publish",
    .app_id = SITE_APP_ID,
    .migrations = migrations,
    .nmigrations = (int)(sizeof(migrations) / sizeof(migrations[0])),
    .busy_ms = SITE_BUSY_MS,
    .pragmas = "PRAGMA cache_size = -131072",
    .pragmas_doing = "sizing the store's cache",
};

int bv_site_db_fail(const bv_site_store *s, int rc, const char *doing)
{
	return bv_sqlite_fail(&site_kind, s ? s->path : "the site store", s ? s->db : NULL, rc, doing);
}

static int exec_const(bv_site_store *s, const char *sql, const char *doing)
{
	return bv_sqlite_exec(&site_kind, s->path, s->db, sql, doing);
}

int bv_site_store_open(const char *path, bv_site_store **out)
{
	*out = NULL;
	bv_site_store *s = bv_xcalloc(1, sizeof(*s));
	s->path = bv_strdup(path);
	/* Opened, checked, in WAL mode (one import is one transaction; a crash
	 * loses it whole, never half), given its schema when new. */
	int err = bv_sqlite_open(&site_kind, path, &s->db);
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

unsigned char *bv_site_ratios_blob(const double *r, size_t n, size_t *bytes)
{
	*bytes = 0;
	if (!r || !n)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!(isfinite(r[i]) && r[i] > 0))
			return NULL;
	unsigned char *b = bv_xmalloc(8 * n);
	for (size_t i = 0; i < n; i++) {
		uint64_t u;
		memcpy(&u, &r[i], sizeof(u));
		for (int k = 0; k < 8; k++)
			b[8 * i + k] = (unsigned char)(u >> (8 * k));
	}
	*bytes = 8 * n;
	return b;
}

double *bv_site_ratios_read(const void *blob, size_t bytes, size_t *n)
{
	*n = 0;
	if (!blob || !bytes || bytes % 8)
		return NULL;
	const unsigned char *b = blob;
	double *r = bv_xmalloc(bytes);
	for (size_t i = 0; i < bytes / 8; i++) {
		uint64_t u = 0;
		for (int k = 0; k < 8; k++)
			u |= (uint64_t)b[8 * i + k] << (8 * k);
		memcpy(&r[i], &u, sizeof(u));
		if (!(isfinite(r[i]) && r[i] > 0)) {
			free(r);
			return NULL;
		}
	}
	*n = bytes / 8;
	return r;
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
		case BV_SV_BLOB:
			rc = sqlite3_bind_blob(st, i + 1, args[i].text, (int)args[i].i, SQLITE_TRANSIENT);
			break;
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
