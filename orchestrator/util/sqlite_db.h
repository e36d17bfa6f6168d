/*
 * sqlite_db.h - an SQLite file that is user input, opened as one (sqlite_db.c):
 * the history store (history/store_db.c) and publish's site store
 * (publish/site_store.c) are each a kind of database described here, and
 * share one way to open, check, migrate and fail.
 */
#ifndef BV_SQLITE_DB_H
#define BV_SQLITE_DB_H

#include <sqlite3.h>

/* A kind of database this bench-versions writes. */
typedef struct bv_sqlite_kind {
	/* What it is, in messages: "history store" ("not a history store
	 * this bench-versions can use"). */
	const char *noun;
	/* Who holds it past the busy timeout, in messages: "another run". */
	const char *holder;
	/* PRAGMA application_id: marks a database as this kind, so another
	 * program's database is refused, not written into. */
	int app_id;
	/* The schema, one migration per version: migrations[i] takes a
	 * database at user_version i to i + 1 (one or more statements).  A
	 * new version appends one, never edits one: databases at every
	 * earlier version exist, and their objects are compared, as SQL text,
	 * with what the migrations make (bv_sqlite_open). */
	const char *const *migrations;
	int nmigrations;
	/* How long a statement waits for another writer before it fails. */
	int busy_ms;
	/* The kind's own connection settings (constant PRAGMAs, or NULL), run
	 * after the file is checked and before the migration, outside any
	 * transaction (PRAGMA foreign_keys does nothing inside one); and what
	 * a failure of them says it was doing. */
	const char *pragmas;
	const char *pragmas_doing;
} bv_sqlite_kind;

/* Opens path as a database of kind k into *db (NULL on failure): a new file
 * is created and given the schema.  An existing file is read before
 * anything is written and refused, left byte for byte as it was (no -wal
 * beside it), with BV_EINPUT naming path when it is not a regular file, no
 * SQLite database, another program's database (another application id, or
 * tables or a user_version without ours), of a newer schema than
 * k->migrations make, or holds any object (table, index, trigger, view)
 * other than those its version's migrations create, each with the same
 * SQL.  Triggers and views never run on the connection, and the schema is
 * not trusted to call functions with side effects.  Then: WAL (retried
 * while another opener holds the file), synchronous = NORMAL, k->pragmas,
 * and the missing migrations in one transaction, the file checked again
 * inside it. */
int bv_sqlite_open(const bv_sqlite_kind *k, const char *path, sqlite3 **db);

/* An SQLite error rc on db (a database of kind k at path; db may be NULL)
 * as one of ours, doing saying what failed: BV_EINPUT for a file that is
 * no database of this kind this bench-versions can use (not a database,
 * damaged, not our schema, a row that breaks its constraints), BV_ERUN for
 * a lock held past k->busy_ms, a full disk or an I/O error. */
int bv_sqlite_fail(const bv_sqlite_kind *k, const char *path, sqlite3 *db, int rc, const char *doing);

/* One statement (or several) of constant text, without parameters or
 * results; an error as bv_sqlite_fail says it. */
int bv_sqlite_exec(const bv_sqlite_kind *k, const char *path, sqlite3 *db, const char *sql,
                   const char *doing);

#endif
