/*
 * store_db.h - the history store's database as store_db.c opens it, for
 * store.c, which reads and writes its steps.  Private to the store's files
 * (store.c, store_db.c): every other module sees store.h, where a store is
 * an opaque bv_store.
 */
#ifndef BV_STORE_DB_H
#define BV_STORE_DB_H

#include <sqlite3.h>

#include "store.h"

/* An open store: the connection, and the statements prepared once on open
 * (store_db.c) that store.c binds and steps. */
struct bv_store {
	sqlite3 *db;
	char *path;
	char *source;
	sqlite3_stmt *get, *put;
	sqlite3_stmt *get_abs, *put_abs, *del, *del_abs; /* schema 3's nosteps */
	int in_txn; /* bv_store_begin's transaction is open */
};

/* An SQLite error rc on db (the store at path) as one of ours, doing
 * saying what failed: BV_EINPUT for a file that is no store this
 * bench-versions can use, BV_ERUN for a lock held too long, a full disk or
 * an I/O error. */
int bv_store_db_fail(const char *path, sqlite3 *db, int rc, const char *doing);

#endif
