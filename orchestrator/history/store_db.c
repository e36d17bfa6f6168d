/*
 * store_db.c - the history store's database (store.h; docs/history.md,
 * "The history store"): one SQLite file opened as sqlite_db.c opens user
 * input (its schema checked and migrated forward), its statements
 * prepared, its transactions; and an SQLite error said as one of ours
 * (bv_store_db_fail).
 *
 * The database is input like any log: a file that is no SQLite database, a
 * database of some other program, one from a newer bench-versions, or a row
 * that does not read as a step is BV_EINPUT naming the path, and nothing in
 * it is changed, deleted or overwritten.  Every statement is prepared once
 * with bound parameters; no SQL is ever built from text that came from
 * outside.
 *
 * Apart from store.c, which reads and writes the steps through the
 * statements prepared here: this file says what the store is (its schema,
 * application id, busy timeout: store_kind); sqlite_db.c, shared with the
 * site store, is what makes a file one this bench-versions may write into,
 * the part that refuses one.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "fs.h"
#include "sqlite_db.h"
#include "store.h"
#include "store_db.h"

/* "BVst": marks a database as a bench-versions store (PRAGMA application_id),
 * so a database of another program given as --store is refused, not
 * written into. */
#define STORE_APP_ID 0x42567374
/* How long a statement waits for another run's write to end before it
 * fails: a run writes its steps in one short transaction, far below this. */
#define STORE_BUSY_MS 10000

/* The schema, one migration per version: migrations[i] takes a database
 * at user_version i to i + 1.  A new version appends a step here, never
 * edits one (databases at every earlier version exist); open applies the
 * missing ones in one transaction. */
static const char *const migrations[] = {
    /* 1: the steps.  lo, hi and p are NULL where the step has none (NAN in
     * a bv_step); created is UTC, ISO 8601; source says which run or log
     * the step came from (NULL: not said). */
    "CREATE TABLE steps ("
    " class TEXT NOT NULL, key_a TEXT NOT NULL, key_b TEXT NOT NULL,"
    " cell TEXT NOT NULL, method TEXT NOT NULL,"
    " ratio REAL NOT NULL, lo REAL, hi REAL, nproc INTEGER NOT NULL,"
    " proc_ratio BLOB NOT NULL, verdict TEXT NOT NULL, p REAL,"
    " created TEXT NOT NULL, source TEXT,"
    " PRIMARY KEY (class, key_a, key_b, cell, method))",
    /* 2: steps into a build, found without a scan (a history grown at its
     * start looks for the steps that end at its old first version). */
    "CREATE INDEX steps_by_b ON steps (class, key_b)",
    /* 3: the steps that have no ratio for a reason the builds decide (one
     * version lacks the cell, n/a, or cannot run it on this class,
     * skipped; store.h, bv_step.absent): kept so that a history over
     * releases that added ops measures nothing the second time.  side: 0
     * for key_a's version, 1 for key_b's; reason: that version's words. */
    "CREATE TABLE nosteps ("
    " class TEXT NOT NULL, key_a TEXT NOT NULL, key_b TEXT NOT NULL,"
    " cell TEXT NOT NULL, method TEXT NOT NULL,"
    " status TEXT NOT NULL, side INTEGER NOT NULL, reason TEXT,"
    " created TEXT NOT NULL, source TEXT,"
    " PRIMARY KEY (class, key_a, key_b, cell, method))",
};

/* The history store as sqlite_db.c opens it.  Foreign keys on: the
 * connection's own setting, made before the migration. */
static const bv_sqlite_kind store_kind = {
    .noun = "history store",
    .holder = "another run",
    .app_id = STORE_APP_ID,
    .migrations = migrations,
    .nmigrations = (int)(sizeof(migrations) / sizeof(migrations[0])),
    .busy_ms = STORE_BUSY_MS,
    .pragmas = "PRAGMA foreign_keys = ON",
    .pragmas_doing = "enabling foreign keys",
};

const char *bv_store_default_path(void)
{
	static char *path;
	if (!path)
		path = bv_asprintf("%s/history.sqlite", bv_cache_dir());
	return path;
}

int bv_store_db_fail(const char *path, sqlite3 *db, int rc, const char *doing)
{
	return bv_sqlite_fail(&store_kind, path, db, rc, doing);
}

/* One statement without parameters or results (constant text only). */
static int exec_const(bv_store *s, const char *sql, const char *doing)
{
	return bv_sqlite_exec(&store_kind, s->path, s->db, sql, doing);
}

int bv_store_open(const char *path, bv_store **out)
{
	*out = NULL;
	/* A file that is not a regular file is refused by bv_sqlite_open. */
	struct stat st;
	if (stat(path, &st) != 0 && errno == ENOENT) {
		/* A new store: its directory too (the cache may not exist yet). */
		char *dir = bv_strdup(path);
		char *slash = strrchr(dir, '/');
		int rc = 0;
		if (slash && slash != dir) {
			*slash = 0;
			rc = bv_mkdir_p(dir);
		}
		free(dir);
		if (rc)
			return rc;
	}
	bv_store *s = bv_xcalloc(1, sizeof(*s));
	s->path = bv_strdup(path);
	/* Opened, checked, in WAL mode, migrated (sqlite_db.c). */
	int rc = 0, err = bv_sqlite_open(&store_kind, path, &s->db);
	/* Every statement prepared once, with bound parameters only. */
#define KEY_WHERE "WHERE class = ?1 AND key_a = ?2 AND key_b = ?3 AND cell = ?4 AND method = ?5"
#define NOW "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
	const struct {
		sqlite3_stmt **st;
		const char *sql;
	} stmts[] = {
	    {&s->get, "SELECT ratio, lo, hi, nproc, proc_ratio, verdict, p FROM steps " KEY_WHERE},
	    {&s->put, "INSERT OR REPLACE INTO steps (class, key_a, key_b, cell, method, ratio, lo, hi, "
	              "nproc, proc_ratio, verdict, p, created, source) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
	              "?8, ?9, ?10, ?11, ?12, " NOW ", ?13)"},
	    {&s->get_abs, "SELECT status, side, reason FROM nosteps " KEY_WHERE},
	    {&s->put_abs, "INSERT OR REPLACE INTO nosteps (class, key_a, key_b, cell, method, status, side, "
	                  "reason, created, source) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, " NOW ", ?9)"},
	    {&s->del, "DELETE FROM steps " KEY_WHERE},
	    {&s->del_abs, "DELETE FROM nosteps " KEY_WHERE},
	};
#undef KEY_WHERE
#undef NOW
	for (size_t i = 0; err == 0 && i < sizeof(stmts) / sizeof(stmts[0]); i++) {
		rc = sqlite3_prepare_v2(s->db, stmts[i].sql, -1, stmts[i].st, NULL);
		if (rc != SQLITE_OK)
			err = bv_store_db_fail(path, s->db, rc, "reading the steps table");
	}
	if (err) {
		bv_store_close(s);
		return err;
	}
	*out = s;
	return 0;
}

void bv_store_close(bv_store *s)
{
	if (!s)
		return;
	if (s->in_txn)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_finalize(s->get);
	sqlite3_finalize(s->put);
	sqlite3_finalize(s->get_abs);
	sqlite3_finalize(s->put_abs);
	sqlite3_finalize(s->del);
	sqlite3_finalize(s->del_abs);
	sqlite3_close(s->db); /* NULL-safe; every statement is finalized */
	free(s->path);
	free(s->source);
	free(s);
}

const char *bv_store_path(const bv_store *s)
{
	return s->path;
}

void bv_store_set_source(bv_store *s, const char *source)
{
	free(s->source);
	s->source = source ? bv_strdup(source) : NULL;
}

int bv_store_begin(bv_store *s)
{
	if (s->in_txn)
		return bv_fail(BV_ERUN, "%s: a transaction is already open", s->path);
	/* IMMEDIATE: the write lock now, waiting for another run's commit
	 * through the busy timeout; a deferred transaction that reads first
	 * could not wait its way to writing under WAL. */
	int rc = exec_const(s, "BEGIN IMMEDIATE", "starting a transaction");
	if (rc == 0)
		s->in_txn = 1;
	return rc;
}

int bv_store_commit(bv_store *s)
{
	if (!s->in_txn)
		return bv_fail(BV_ERUN, "%s: no transaction to commit", s->path);
	int rc = exec_const(s, "COMMIT", "committing");
	if (rc) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	}
	s->in_txn = 0;
	return rc;
}

void bv_store_rollback(bv_store *s)
{
	if (s->in_txn)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	s->in_txn = 0;
}
