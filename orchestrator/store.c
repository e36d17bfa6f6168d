/*
 * store.c - the history store (store.h; docs/history.md, "The history
 * store"): the steps of every history measured on this machine, in one
 * SQLite database, so a history measured again, or grown by one version,
 * measures only what it lacks.
 *
 * The database is input like any log: a file that is no SQLite database, a
 * database of some other program, one from a newer bench-versions, or a row
 * that does not read as a step is BV_EINPUT naming the path, and nothing in
 * it is changed, deleted or overwritten.  Every statement is prepared once
 * with bound parameters; no SQL is ever built from text that came from
 * outside.
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
#include <time.h>
#include <sys/stat.h>

#include "classes.h"
#include "common.h"
#include "fs.h"
#include "json.h"
#include "merge.h"
#include "results.h"
#include "store.h"
#include "table.h"
#include "verdict.h"

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

/* The verdicts a step may have (verdict.c's words): what get_step hands
 * out, so callers compare pointers or strings alike. */
/* The statuses an absent step may have (results.c's words). */
static const char *const absences[] = {"n/a", "skipped", NULL};
/* An absent step's reason is printed in the history's notes: bounded and
 * without control characters, whoever wrote the store. */
#define STORE_REASON_MAX 1024

struct bv_store {
	sqlite3 *db;
	char *path;
	char *source;
	sqlite3_stmt *get, *put;
	sqlite3_stmt *get_abs, *put_abs, *del, *del_abs; /* schema 3's nosteps */
	int in_txn; /* bv_store_begin's transaction is open */
};

void bv_step_free(bv_step *s)
{
	if (!s)
		return;
	free(s->cell);
	free(s->proc_ratio);
	free(s->absent_reason);
	memset(s, 0, sizeof(*s));
}

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
static int bv_store_db_fail(const char *path, sqlite3 *db, int rc, const char *doing)
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
