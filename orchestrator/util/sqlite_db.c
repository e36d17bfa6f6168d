/*
 * sqlite_db.c - an SQLite file that is user input, opened as one
 * (sqlite_db.h): what makes a file a database of one of our kinds (the
 * history store, the site store) that this bench-versions may write into,
 * the part that refuses one; its migrations; and an SQLite error said as
 * one of ours (bv_sqlite_fail).
 *
 * The database is input like any log: a file that is no SQLite database, a
 * database of some other program, one from a newer bench-versions, or one
 * holding anything its schema does not create is BV_EINPUT naming the
 * path, and nothing in it is changed, deleted or overwritten.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common.h"
#include "fs.h"
#include "sqlite_db.h"

/* A file that is not a database or is damaged, or a row or schema that is
 * not ours, is the user's input (BV_EINPUT); a lock held past the timeout,
 * a full disk or an I/O error is a failure to run (BV_ERUN). */
int bv_sqlite_fail(const bv_sqlite_kind *k, const char *path, sqlite3 *db, int rc, const char *doing)
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
		return bv_fail(BV_EINPUT,
		               "%s: %s: %s (not a %s this bench-versions can use; it was left as it is: "
		               "move it aside or give another --store)",
		               path, doing, msg, k->noun);
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return bv_fail(BV_ERUN, "%s: %s: %s (%s held the store for over %d s)", path, doing, msg,
		               k->holder, k->busy_ms / 1000);
	default:
		return bv_fail(BV_ERUN, "%s: %s: %s", path, doing, msg);
	}
}

int bv_sqlite_exec(const bv_sqlite_kind *k, const char *path, sqlite3 *db, const char *sql, const char *doing)
{
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : bv_sqlite_fail(k, path, db, rc, doing);
}

/* PRAGMA journal_mode = WAL needs the file to itself for a moment, and
 * SQLite answers SQLITE_BUSY at once there without calling the busy
 * handler (two runs opening a new store together: one failed with
 * "database is locked" in microseconds).  So it is retried here, for as
 * long as the busy timeout would have waited. */
static int set_wal(const bv_sqlite_kind *k, const char *path, sqlite3 *db)
{
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int rc = sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long ms = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) || ms >= k->busy_ms)
			return bv_sqlite_fail(k, path, db, rc, "switching the store to WAL mode");
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
static int schema_wanted(const bv_sqlite_kind *k, const char *path, long long v, schema_objs *out)
{
	sqlite3 *mem = NULL;
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	for (long long i = 0; rc == SQLITE_OK && i < v; i++)
		rc = sqlite3_exec(mem, k->migrations[i], NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(mem, "SELECT type, name, tbl_name, sql FROM sqlite_master", -1, &st,
		                        NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		schema_objs_add(out, st, 0);
		rc = SQLITE_OK;
	}
	int err = rc == SQLITE_DONE
	              ? 0
	              : bv_fail(BV_ERUN, "%s: making the store's schema %lld in memory to compare: %s", path,
	                        v, mem ? sqlite3_errmsg(mem) : sqlite3_errstr(rc));
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
static int schema_differs(const bv_sqlite_kind *k, const char *path, const schema_objs *have, long long v)
{
	schema_objs want = {0};
	int err = schema_wanted(k, path, v, &want);
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
			    path, type, name);
		else if (strcmp(how, "changed") == 0)
			err = bv_fail(
			    BV_EINPUT,
			    "%s: the store's %s '%s' is not as bench-versions creates it (its definition "
			    "was changed); it was left as it is: give another --store",
			    path, type, name);
		else
			err = bv_fail(
			    BV_EINPUT,
			    "%s: the store lacks %s '%s', which bench-versions creates (schema %lld); it "
			    "was left as it is: give another --store",
			    path, type, name, v);
		free(type), free(name);
	}
	schema_objs_free(&want);
	return err;
}

/* What the file says it is, read in one statement (one snapshot: read
 * apart, another opener's migration committing in between would show a
 * store with tables and no version yet), and refused unless it is a store
 * of kind k this bench-versions can use or an empty database: another
 * program's (its application id, or tables or a user_version without ours:
 * adding ours would write into a file that is not ours), a newer schema,
 * or a store whose objects are not exactly those its schema's version
 * creates (schema_differs).  Every store has had the application id from
 * its first migration on, set in the transaction that sets user_version,
 * so a user_version without it is another program's (a foreign database
 * at user_version 2 was migrated, switched to WAL and marked as a store).
 * *version: the schema's version (0: a new store). */
static int check_header(const bv_sqlite_kind *k, const char *path, sqlite3 *db, long long *version)
{
	sqlite3_stmt *st = NULL;
	long long app = 0, v = 0;
	schema_objs have = {0};
	/* One row for the header even in an empty database (the LEFT JOIN),
	 * then one a schema object. */
	int rc = sqlite3_prepare_v2(db,
	                            "SELECT (SELECT application_id FROM pragma_application_id), (SELECT "
	                            "user_version FROM pragma_user_version), m.type, m.name, m.tbl_name, "
	                            "m.sql FROM (SELECT 1) LEFT JOIN sqlite_master AS m",
	                            -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		app = sqlite3_column_int64(st, 0);
		v = sqlite3_column_int64(st, 1);
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			schema_objs_add(&have, st, 2);
		rc = SQLITE_OK;
	}
	int err = rc == SQLITE_DONE ? 0 : bv_sqlite_fail(k, path, db, rc, "reading the store");
	sqlite3_finalize(st);
	if (err == 0 && app != 0 && app != k->app_id)
		err = bv_fail(BV_EINPUT,
		              "%s: an SQLite database of another program (application id %lld); it was left "
		              "as it is: give another --store",
		              path, app);
	else if (err == 0 && v > k->nmigrations)
		err =
		    bv_fail(BV_EINPUT,
		            "%s: store schema %lld is newer than this bench-versions reads (%d); use a newer "
		            "bench-versions or another --store",
		            path, v, k->nmigrations);
	else if (err == 0 && app == 0 && (have.n > 0 || v != 0))
		err = bv_fail(BV_EINPUT,
		              "%s: an SQLite database of something else (it has %s and no bench-versions "
		              "application id); it was left as it is: give another --store",
		              path, have.n > 0 ? "tables" : "a user_version");
	else if (err == 0 && v >= 0)
		err = schema_differs(k, path, &have, v);
	else if (err == 0)
		err = bv_fail(BV_EINPUT,
		              "%s: store schema %lld is no version bench-versions ever wrote; it was "
		              "left as it is: give another --store",
		              path, v);
	schema_objs_free(&have);
	*version = v;
	return err;
}

/* Brings the schema to k->nmigrations in one transaction: all of it or
 * none.  The header is read again inside the transaction: another opener
 * of the same new store may have migrated it meanwhile. */
static int migrate(const bv_sqlite_kind *k, const char *path, sqlite3 *db)
{
	int rc = bv_sqlite_exec(k, path, db, "BEGIN IMMEDIATE", "starting the schema migration");
	if (rc)
		return rc;
	long long v = 0;
	rc = check_header(k, path, db, &v);
	for (int i = (int)v; rc == 0 && i < k->nmigrations; i++) {
		char doing[64];
		snprintf(doing, sizeof(doing), "migrating the schema to version %d", i + 1);
		rc = bv_sqlite_exec(k, path, db, k->migrations[i], doing);
	}
	/* PRAGMA takes no bound parameter; the numbers are our own constants. */
	if (rc == 0 && v < k->nmigrations) {
		char sql[64];
		snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", k->app_id);
		rc = bv_sqlite_exec(k, path, db, sql, "marking the store");
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", k->nmigrations);
		if (rc == 0)
			rc = bv_sqlite_exec(k, path, db, sql, "recording the schema version");
	}
	if (rc == 0)
		rc = bv_sqlite_exec(k, path, db, "COMMIT", "committing the schema migration");
	if (rc)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int bv_sqlite_open(const bv_sqlite_kind *k, const char *path, sqlite3 **out)
{
	*out = NULL;
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return bv_fail(BV_EINPUT, "%s is %s, not a %s (an SQLite file)", path,
		               bv_file_kind(st.st_mode), k->noun);
	sqlite3 *db = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
	                         NULL);
	int err = rc == SQLITE_OK ? 0 : bv_sqlite_fail(k, path, db, rc, "opening the store");
	if (err == 0) {
		sqlite3_extended_result_codes(db, 1);
		sqlite3_busy_timeout(db, k->busy_ms);
		/* No schema of ours has a trigger or view: none runs on this
		 * connection, even one another program adds while we write (the
		 * check below refuses one found on open).  The schema is not
		 * trusted to call functions with side effects either. */
		sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)NULL);
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
		sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)NULL);
#endif
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
		sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
#endif
	}
	/* Read before anything is written: a file that is no database, a
	 * database of another program or of a newer bench-versions, or a store
	 * holding what its schema does not create is refused here, untouched
	 * (switching to WAL would rewrite its header). */
	long long v = 0;
	if (err == 0)
		err = check_header(k, path, db, &v);
	/* WAL: readers never wait for a writer and several openers may write
	 * in turn; synchronous=NORMAL is WAL's safe setting (a power cut may
	 * lose the last commit, never corrupt the file). */
	if (err == 0)
		err = set_wal(k, path, db);
	if (err == 0)
		err = bv_sqlite_exec(k, path, db, "PRAGMA synchronous = NORMAL",
		                     "setting the store's synchronous mode");
	if (err == 0 && k->pragmas)
		err = bv_sqlite_exec(k, path, db, k->pragmas, k->pragmas_doing);
	if (err == 0)
		err = migrate(k, path, db);
	if (err) {
		sqlite3_close(db); /* NULL-safe; no statement is left open */
		return err;
	}
	*out = db;
	return 0;
}
