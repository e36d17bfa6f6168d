/*
 * site_store.h - what `publish` has imported (site_store.c): one SQLite file
 * beside the site, so publishing again reads only what is new, and the
 * pages (site.c) are written from it alone.  The schema is docs/publish.md's
 * "The store".
 */
#ifndef BV_SITE_STORE_H
#define BV_SITE_STORE_H

#include <sqlite3.h>
#include <stddef.h>

#define BV_SITE_STMTS 8
typedef struct bv_site_store {
	sqlite3 *db;
	char *path;
	int in_txn;
	/* bv_site_exec's statements, prepared once (an import runs each
	 * thousands of times) */
	sqlite3_stmt *stmts[BV_SITE_STMTS];
} bv_site_store;

/* Opens (creating it, and its schema, when absent) the store at path, as
 * sqlite_db.c opens user input.  BV_EINPUT when path is no SQLite file,
 * another program's database, one from a newer bench-versions, or a store
 * holding any object its schema does not create or one altered: it is
 * left as it is. */
int bv_site_store_open(const char *path, bv_site_store **out);
void bv_site_store_close(bv_site_store *s);

int bv_site_begin(bv_site_store *s);
int bv_site_commit(bv_site_store *s);
void bv_site_rollback(bv_site_store *s);

/* An SQLite error as one of ours (BV_EINPUT for a database that is not
 * ours or is damaged, BV_ERUN otherwise), naming the store and what was
 * being done. */
int bv_site_db_fail(const bv_site_store *s, int rc, const char *doing);

/* Runs sql (constant text with ?N parameters, never text from an upload)
 * with args[0..n) bound in order, each as its kind says: BV_SV_T (a NULL
 * string binds NULL), BV_SV_I, bv_sv_real.  The statement is kept for the
 * next call with the same text (site_store.c).  For the store's own
 * statements only. */
typedef struct bv_site_val {
	enum { BV_SV_NULL, BV_SV_TEXT, BV_SV_INT, BV_SV_REAL, BV_SV_BLOB } kind;
	const void *text; /* BV_SV_BLOB: its bytes, i of them */
	long long i;
	double r;
} bv_site_val;
#define BV_SV_T(s) ((bv_site_val){(s) ? BV_SV_TEXT : BV_SV_NULL, (s), 0, 0})
#define BV_SV_I(v) ((bv_site_val){BV_SV_INT, NULL, (v), 0})
/* bytes bytes of data (NULL binds NULL) */
#define BV_SV_B(data, bytes) ((bv_site_val){(data) ? BV_SV_BLOB : BV_SV_NULL, (data), (long long)(bytes), 0})
/* a NAN or infinite real is stored as NULL */
bv_site_val bv_sv_real(double r);
int bv_site_exec(bv_site_store *s, const char *sql, const bv_site_val *args, int n, const char *doing);

/* Per-process ratios as changes.proc_ratio holds them: IEEE-754 doubles, 8
 * bytes each, little-endian (as the history store keeps its steps').
 * bv_site_ratios_blob: malloc'd, *bytes set; NULL (store NULL) for none or
 * when any ratio is not a finite number > 0.  bv_site_ratios_read: the
 * ratios (malloc'd, *n set), NULL when the blob is absent, not a whole
 * number of doubles, or holds one that is not a finite number > 0. */
unsigned char *bv_site_ratios_blob(const double *r, size_t n, size_t *bytes);
double *bv_site_ratios_read(const void *blob, size_t bytes, size_t *n);

/* The status of the archive whose sha256 is sha ("imported", "duplicate",
 * "quarantined") in *status (caller frees), NULL when never seen. */
int bv_site_archive_status(bv_site_store *s, const char *sha, char **status);
/* Why that archive was quarantined, in *reason (caller frees). */
int bv_site_archive_reason(bv_site_store *s, const char *sha, char **reason);
/* Whether a run with this key is imported. */
int bv_site_run_known(bv_site_store *s, const char *key, int *known);

#endif
