/*
 * store_db.c - the history store's database (store.h; docs/history.md,
 * "The history store"): one SQLite file opened, its schema checked and
 * migrated forward, its statements prepared, its transactions; and an
 * SQLite error said as one of ours (bv_store_db_fail).
 *
 * The database is input like any log: a file that is no SQLite database, a
 * database of some other program, one from a newer bench-versions, or a row
 * that does not read as a step is BV_EINPUT naming the path, and nothing in
 * it is changed, deleted or overwritten.  Every statement is prepared once
 * with bound parameters; no SQL is ever built from text that came from
 * outside.
 *
 * Apart from store.c, which reads and writes the steps through the
 * statements prepared here: this file is what makes a file a store this
 * bench-versions may write into, the part that refuses one.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "common.h"
#include "fs.h"
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
#define STORE_SCHEMA ((int)(sizeof(migrations) / sizeof(migrations[0])))

const char *bv_store_default_path(void)
{
	static char *path;
	if (!path)
		path = bv_asprintf("%s/history.sqlite", bv_cache_dir());
	return path;
}

/* An SQLite error on s's database as one of ours: a file that is not a
 * database or is damaged is the user's input (BV_EINPUT); a lock held past
 * the timeout, a full disk or an I/O error is a failure to run (BV_ERUN). */
int bv_store_db_fail(const char *path, sqlite3 *db, int rc, const char *doing)
{
	const char *msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
	switch (rc & 0xff) {
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
	case SQLITE_FORMAT:
	case SQLITE_SCHEMA:
	case SQLITE_ERROR: /* "no such table", a column missing: not our schema */
	case SQLITE_MISMATCH:
	case SQLITE_CONSTRAINT:
		return bv_fail(
		    BV_EINPUT,
		    "%s: %s: %s (not a history store this bench-versions can use; it was left as it is: "
		    "move it aside or give another --store)",
		    path, doing, msg);
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return bv_fail(BV_ERUN, "%s: %s: %s (another run held the store for over %d s)", path, doing,
		               msg, STORE_BUSY_MS / 1000);
	default:
		return bv_fail(BV_ERUN, "%s: %s: %s", path, doing, msg);
	}
}

/* One statement without parameters or results (constant text only). */
static int exec_const(bv_store *s, const char *sql, const char *doing)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : bv_store_db_fail(s->path, s->db, rc, doing);
}

/* PRAGMA journal_mode = WAL needs the file to itself for a moment, and
 * SQLite answers SQLITE_BUSY at once there without calling the busy
 * handler (two runs opening a new store together: one failed with
 * "database is locked" in microseconds).  So it is retried here, for as
 * long as the busy timeout would have waited. */
static int set_wal(bv_store *s)
{
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int rc = sqlite3_exec(s->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long ms = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) || ms >= STORE_BUSY_MS)
			return bv_store_db_fail(s->path, s->db, rc, "switching the store to WAL mode");
		struct timespec nap = {0, 10 * 1000 * 1000};
		nanosleep(&nap, NULL);
	}
}

/* One object of a database's schema as sqlite_master lists it; sql is
 * NULL for an index SQLite makes itself (a PRIMARY KEY's). */
typedef struct {
	char *type, *name, *tbl, *sql;
} schema_obj;

typedef struct {
	schema_obj *v;
	size_t n;
} schema_objs;

static char *column_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? bv_strdup((const char *)t) : NULL;
}

static void schema_objs_free(schema_objs *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->v[i].type), free(o->v[i].name), free(o->v[i].tbl), free(o->v[i].sql);
	free(o->v);
	o->v = NULL, o->n = 0;
}

/* The row st is on, from column col: type, name, tbl_name, sql. */
static void schema_objs_add(schema_objs *o, sqlite3_stmt *st, int col)
{
	o->v = bv_xrealloc(o->v, (o->n + 1) * sizeof(*o->v));
	schema_obj *x = &o->v[o->n++];
	x->type = column_dup(st, col);
	x->name = column_dup(st, col + 1);
	x->tbl = column_dup(st, col + 2);
	x->sql = column_dup(st, col + 3);
}

static int same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static const schema_obj *schema_find(const schema_objs *o, const schema_obj *x)
{
	for (size_t i = 0; i < o->n; i++)
		if (same_text(o->v[i].type, x->type) && same_text(o->v[i].name, x->name))
			return &o->v[i];
	return NULL;
}

/* What the schema at version v is, object by object: the migrations up to
 * v run on an empty database in memory, so the list is SQLite's own (the
 * indexes a PRIMARY KEY makes included) and needs no copy kept by hand
 * beside the migrations. */
static int schema_wanted(const bv_store *s, long long v, schema_objs *out)
{
	sqlite3 *mem = NULL;
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	for (long long i = 0; rc == SQLITE_OK && i < v; i++)
		rc = sqlite3_exec(mem, migrations[i], NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(mem, "SELECT type, name, tbl_name, sql FROM sqlite_master", -1, &st,
		                        NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		schema_objs_add(out, st, 0);
		rc = SQLITE_OK;
	}
	int err = rc == SQLITE_DONE
	              ? 0
	              : bv_fail(BV_ERUN, "%s: making the store's schema %lld in memory to compare: %s",
	                        s->path, v, mem ? sqlite3_errmsg(mem) : sqlite3_errstr(rc));
	sqlite3_finalize(st);
	sqlite3_close(mem);
	return err;
}

/* A name from the file for a message: escaped (it cannot forge a line) and
 * cut short (a name may be as long as the file). */
static char *name_for_message(const char *s)
{
	if (!s)
		return bv_strdup("(none)");
	char cut[104];
	snprintf(cut, sizeof(cut), "%.100s%s", s, strlen(s) > 100 ? "..." : "");
	return bv_escape(cut);
}

/* The objects in the file (have) against those the schema at version v
 * creates (want), exactly: the same types and names, each defined by the
 * same SQL.  A store holding anything else was changed by hand or by
 * another program, and what it holds is not inert: a trigger on steps
 * rewrote each step as it was stored ("imported 1 step", and the step read
 * ratio 9, slower), a view or index is part of what a statement may run.
 * Comparing the SQL text as SQLite keeps it is sound because a migration
 * is never edited (stores at every version exist), so what a migration
 * made is the same text today; a table altered by hand (ALTER TABLE
 * rewrites its text) or an index made again differently reads otherwise. */
static int schema_differs(const bv_store *s, const schema_objs *have, long long v)
{
	schema_objs want = {0};
	int err = schema_wanted(s, v, &want);
	const char *how = NULL;
	const schema_obj *x = NULL;
	for (size_t i = 0; err == 0 && !x && i < have->n; i++) {
		const schema_obj *w = schema_find(&want, &have->v[i]);
		if (!w)
			x = &have->v[i], how = "holds";
		else if (!same_text(w->tbl, have->v[i].tbl) || !same_text(w->sql, have->v[i].sql))
			x = &have->v[i], how = "changed";
	}
	for (size_t i = 0; err == 0 && !x && i < want.n; i++)
		if (!schema_find(have, &want.v[i]))
			x = &want.v[i], how = "lacks";
	if (x) {
		char *type = name_for_message(x->type), *name = name_for_message(x->name);
		if (strcmp(how, "holds") == 0)
			err = bv_fail(
			    BV_EINPUT,
			    "%s: the store holds %s '%s', which bench-versions does not create; it was "
			    "left as it is: drop it, or give another --store",
			    s->path, type, name);
		else if (strcmp(how, "changed") == 0)
			err = bv_fail(
			    BV_EINPUT,
			    "%s: the store's %s '%s' is not as bench-versions creates it (its definition "
			    "was changed); it was left as it is: give another --store",
			    s->path, type, name);
		else
			err = bv_fail(
			    BV_EINPUT,
			    "%s: the store lacks %s '%s', which bench-versions creates (schema %lld); it "
			    "was left as it is: give another --store",
			    s->path, type, name, v);
		free(type), free(name);
	}
	schema_objs_free(&want);
	return err;
}

/* What the file says it is, read in one statement (one snapshot: read
 * apart, another run's migration committing in between would show a store
 * with tables and no version yet), and refused unless it is a store this
 * bench-versions can use or an empty database: another program's (its
 * application id, or tables or a user_version without ours: adding ours
 * would write into a file that is not ours), a newer schema, or a store
 * whose objects are not exactly those its schema's version creates
 * (schema_differs).  Every store has had the application id from its first
 * migration on, set in the transaction that sets user_version, so a
 * user_version without it is another program's (a foreign database at
 * user_version 2 was migrated, switched to WAL and marked as a store).
 * *version: the schema's version (0: a new store). */
static int check_header(bv_store *s, long long *version)
{
	sqlite3_stmt *st = NULL;
	long long app = 0, v = 0;
	schema_objs have = {0};
	/* One row for the header even in an empty database (the LEFT JOIN),
	 * then one a schema object. */
	int rc = sqlite3_prepare_v2(
	    s->db,
	    "SELECT (SELECT application_id FROM pragma_application_id), (SELECT user_version "
	    "FROM pragma_user_version), m.type, m.name, m.tbl_name, m.sql "
	    "FROM (SELECT 1) LEFT JOIN sqlite_master AS m",
	    -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		app = sqlite3_column_int64(st, 0);
		v = sqlite3_column_int64(st, 1);
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			schema_objs_add(&have, st, 2);
		rc = SQLITE_OK;
	}
	int err = rc == SQLITE_DONE ? 0 : bv_store_db_fail(s->path, s->db, rc, "reading the store");
	sqlite3_finalize(st);
	if (err == 0 && app != 0 && app != STORE_APP_ID)
		err = bv_fail(
		    BV_EINPUT,
		    "%s: an SQLite database of another program (application id %lld); it was left as it "
		    "is: give another --store",
		    s->path, app);
	else if (err == 0 && v > STORE_SCHEMA)
		err =
		    bv_fail(BV_EINPUT,
		            "%s: store schema %lld is newer than this bench-versions reads (%d); use a newer "
		            "bench-versions or another --store",
		            s->path, v, STORE_SCHEMA);
	else if (err == 0 && app == 0 && (have.n > 0 || v != 0))
		err = bv_fail(BV_EINPUT,
		              "%s: an SQLite database of something else (it has %s and no bench-versions "
		              "application id); it was left as it is: give another --store",
		              s->path, have.n > 0 ? "tables" : "a user_version");
	else if (err == 0 && v >= 0)
		err = schema_differs(s, &have, v);
	else if (err == 0)
		err = bv_fail(BV_EINPUT,
		              "%s: store schema %lld is no version bench-versions ever wrote; it was "
		              "left as it is: give another --store",
		              s->path, v);
	schema_objs_free(&have);
	*version = v;
	return err;
}

static int set_user_version(bv_store *s, int v)
{
	/* PRAGMA takes no bound parameter; v is our own constant. */
	char sql[48];
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
	return exec_const(s, sql, "recording the schema version");
}

/* Brings the schema to STORE_SCHEMA in one transaction: all of it or none.
 * The version is read again inside the transaction: another run opening
 * the same new store may have migrated it meanwhile. */
static int migrate(bv_store *s)
{
	int rc = exec_const(s, "BEGIN IMMEDIATE", "starting the schema migration");
	if (rc)
		return rc;
	long long v = 0;
	rc = check_header(s, &v);
	for (int i = (int)v; rc == 0 && i < STORE_SCHEMA; i++) {
		char doing[64];
		snprintf(doing, sizeof(doing), "migrating the schema to version %d", i + 1);
		rc = exec_const(s, migrations[i], doing);
	}
	if (rc == 0 && v < STORE_SCHEMA) {
		char sql[64];
		snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", STORE_APP_ID);
		rc = exec_const(s, sql, "marking the store");
		if (rc == 0)
			rc = set_user_version(s, STORE_SCHEMA);
	}
	if (rc == 0)
		rc = exec_const(s, "COMMIT", "committing the schema migration");
	if (rc)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int bv_store_open(const char *path, bv_store **out)
{
	*out = NULL;
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return bv_fail(BV_EINPUT, "%s is %s, not a history store (an SQLite file)", path,
		               bv_file_kind(st.st_mode));
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
	int rc = sqlite3_open_v2(path, &s->db,
	                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	int err = rc == SQLITE_OK ? 0 : bv_store_db_fail(path, s->db, rc, "opening the store");
	if (err == 0) {
		sqlite3_extended_result_codes(s->db, 1);
		sqlite3_busy_timeout(s->db, STORE_BUSY_MS);
		/* The schema has no trigger or view: none runs on this connection,
		 * even one another program adds while a history runs (the check
		 * below refuses one found on open).  The schema is not trusted to
		 * call functions with side effects either. */
		sqlite3_db_config(s->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)NULL);
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
		sqlite3_db_config(s->db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)NULL);
#endif
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
		sqlite3_db_config(s->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
#endif
	}
	/* Read before anything is written: a file that is no database, a
	 * database of another program or of a newer bench-versions, or a store
	 * holding what its schema does not create is refused here, untouched
	 * (switching to WAL would rewrite its header). */
	long long v = 0;
	if (err == 0)
		err = check_header(s, &v);
	/* WAL: readers never wait for a writer and several runs may write in
	 * turn; synchronous=NORMAL is WAL's safe setting (a power cut may lose
	 * the last commit, never corrupt the file). */
	if (err == 0)
		err = set_wal(s);
	if (err == 0)
		err = exec_const(s, "PRAGMA synchronous = NORMAL", "setting the store's synchronous mode");
	if (err == 0)
		err = exec_const(s, "PRAGMA foreign_keys = ON", "enabling foreign keys");
	if (err == 0)
		err = migrate(s);
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
