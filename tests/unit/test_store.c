/* test_store.c - the history store (orchestrator/history/store.c): steps round
 * trip, replace, missing; absent steps (a version lacks the cell) round
 * trip, replace measured ones and are refused when damaged; the schema's versions (newer refused, a v1 store
 * made by hand migrated, one holding a foreign table not); files that are not
 * a store, and stores holding what the schema does not create, refused and
 * left byte for byte as they were; two processes
 * writing at once; import of a run's results logs. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "classes.h"
#include "common.h"
#include "fs.h"
#include "merge.h"
#include "stats.h"
#include "store.h"
#include "table.h"
#include "tests.h"

#define KA "1111111111111111111111111111111111111111"
#define KB "2222222222222222222222222222222222222222"

/* SQL on a database, outside the store's code: how a test makes an old,
 * foreign or damaged one. */
static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	char *msg = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
	sqlite3_close(db);
}

static long long raw_int(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	long long v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static char *read_all(const char *path, size_t *len)
{
	char *s = NULL;
	assert_int_equal(bv_read_file(path, 1 << 20, &s, len), 0);
	return s;
}

static void round_trip_keeps_every_field(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	/* the store's directory is made on open */
	char *path = bv_asprintf("%s/deeper/history.sqlite", dir);
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(path, &s), 0);
	double pr[] = {1.5, 1.25, 0.75, 1e-300, 3.0e10, 1.0000000000000002};
	bv_step a = {.cell = "unary/relu/scalar/64K",
	             .ratio = 1.25,
	             .lo = 0.75,
	             .hi = 1.5,
	             .proc_ratio = pr,
	             .nproc = 6,
	             .verdict = BV_SLOWER,
	             .p = 0.003};
	bv_step b = {.cell = "unary/exp/simd/1M",
	             .ratio = 0.5,
	             .lo = NAN,
	             .hi = NAN,
	             .proc_ratio = NULL,
	             .nproc = 0,
	             .verdict = BV_INCONCLUSIVE,
	             .p = NAN};
	assert_int_equal(bv_store_put_step(s, "c1", KA, KB, a.cell, "m", &a), 0);
	assert_int_equal(bv_store_put_step(s, "c1", KA, KB, b.cell, "m", &b), 0);
	bv_store_close(s);
	/* read back through a new connection: what is on disk */
	assert_int_equal(bv_store_open(path, &s), 0);
	bv_step got;
	int found = 0;
	assert_int_equal(bv_store_get_step(s, "c1", KA, KB, a.cell, "m", &got, &found), 0);
	assert_int_equal(found, 1);
	assert_string_equal(got.cell, a.cell);
	assert_true(got.ratio == 1.25 && got.lo == 0.75 && got.hi == 1.5 && got.p == 0.003);
	assert_int_equal(got.nproc, 6);
	assert_memory_equal(got.proc_ratio, pr, sizeof(pr)); /* bit for bit */
	assert_int_equal(got.verdict, BV_SLOWER);
	bv_step_free(&got);
	assert_int_equal(bv_store_get_step(s, "c1", KA, KB, b.cell, "m", &got, &found), 0);
	assert_int_equal(found, 1);
	assert_true(got.ratio == 0.5 && isnan(got.lo) && isnan(got.hi) && isnan(got.p));
	assert_int_equal(got.nproc, 0);
	assert_null(got.proc_ratio);
	assert_int_equal(got.verdict, BV_INCONCLUSIVE);
	bv_step_free(&got);
	bv_store_close(s);
	/* what the file holds: WAL mode, our schema, created as UTC */
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 3);
	assert_int_equal(
	    raw_int(path, "SELECT count(*) FROM steps WHERE created LIKE '____-__-__T__:__:__Z'"), 2);
	assert_int_equal(
	    raw_int(path, "SELECT length(proc_ratio) FROM steps WHERE cell = 'unary/exp/simd/1M'"), 0);
	/* little-endian: 1.5 is 0x3FF8000000000000, last byte first */
	assert_int_equal(raw_int(path, "SELECT substr(proc_ratio, 1, 8) = X'000000000000F83F' FROM steps "
	                               "WHERE cell = 'unary/relu/scalar/64K'"),
	                 1);
	free(path);
	bv_rm_rf(dir);
	free(dir);
}

static void put_replaces_and_keys_are_distinct(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	char *path = bv_asprintf("%s/h.sqlite", dir);
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(path, &s), 0);
	double pr[] = {1.0, 1.1};
	bv_step a = {.cell = "x",
	             .ratio = 1.0,
	             .lo = NAN,
	             .hi = NAN,
	             .proc_ratio = pr,
	             .nproc = 2,
	             .verdict = BV_SAME,
	             .p = 0.5};
	assert_int_equal(bv_store_put_step(s, "c", KA, KB, "x", "m", &a), 0);
	a.ratio = 2.0, a.verdict = BV_SLOWER, a.nproc = 1;
	assert_int_equal(bv_store_put_step(s, "c", KA, KB, "x", "m", &a), 0);
	/* another method, class or direction is another step */
	a.ratio = 3.0;
	assert_int_equal(bv_store_put_step(s, "c", KA, KB, "x", "quick", &a), 0);
	assert_int_equal(bv_store_put_step(s, "d", KA, KB, "x", "m", &a), 0);
	assert_int_equal(bv_store_put_step(s, "c", KB, KA, "x", "m", &a), 0);
	bv_step got;
	int found = 0;
	assert_int_equal(bv_store_get_step(s, "c", KA, KB, "x", "m", &got, &found), 0);
	assert_int_equal(found, 1);
	assert_true(got.ratio == 2.0);
	assert_int_equal(got.nproc, 1);
	assert_int_equal(got.verdict, BV_SLOWER);
	bv_step_free(&got);
	bv_store_close(s);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM steps"), 4);
	free(path);
	bv_rm_rf(dir);
	free(dir);
}

static void missing_leaves_out_untouched(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	char *path = bv_asprintf("%s/h.sqlite", dir);
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(path, &s), 0);
	bv_step got = {.ratio = 42, .cell = NULL};
	int found = 7;
	assert_int_equal(bv_store_get_step(s, "c", KA, KB, "x", "m", &got, &found), 0);
	assert_int_equal(found, 0);
	assert_true(got.ratio == 42 && got.cell == NULL);
	bv_store_close(s);
	free(path);
	bv_rm_rf(dir);
	free(dir);
}

/* A step that is not one is refused and not written. */
static void put_refuses_what_is_not_a_step(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	char *path = bv_asprintf("%s/h.sqlite", dir);
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(path, &s), 0);
	double bad_pr[] = {1.0, -1.0};
	bv_step bad[] = {
	    {.cell = "x", .ratio = NAN, .lo = NAN, .hi = NAN, .verdict = BV_SAME, .p = NAN},
	    {.cell = "x", .ratio = 1.0, .lo = 1.1, .hi = 1.2, .verdict = BV_SAME, .p = NAN},
	    {.cell = "x", .ratio = 1.0, .lo = 0.9, .hi = NAN, .verdict = BV_SAME, .p = NAN},
	    {.cell = "x", .ratio = 1.0, .lo = NAN, .hi = NAN, .verdict = (bv_verdict)42, .p = NAN},
	    {.cell = "x", .ratio = 1.0, .lo = NAN, .hi = NAN, .verdict = BV_SAME, .p = 1.5},
	    {.cell = "x",
	     .ratio = 1.0,
	     .lo = NAN,
	     .hi = NAN,
	     .proc_ratio = bad_pr,
	     .nproc = 2,
	     .verdict = BV_SAME,
	     .p = NAN},
	    {.cell = "x",
	     .ratio = 1.0,
	     .lo = NAN,
	     .hi = NAN,
	     .proc_ratio = NULL,
	     .nproc = 3,
	     .verdict = BV_SAME,
	     .p = NAN},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(bv_store_put_step(s, "c", KA, KB, "x", "m", &bad[i]), BV_EINPUT);
		assert_non_null(strstr(bv_error_last(), "cannot be stored"));
	}
	bv_store_close(s);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM steps"), 0);
	free(path);
	bv_rm_rf(dir);
	free(dir);
}

static void newer_schema_is_refused_untouched(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	char *path = bv_asprintf("%s/h.sqlite", dir);
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(path, &s), 0);
	bv_store_close(s);
	raw_exec(path, "PRAGMA user_version = 99; PRAGMA journal_mode = DELETE");
	size_t n0, n1;
	char *before = read_all(path, &n0);
	assert_int_equal(bv_store_open(path, &s), BV_EINPUT);
	assert_null(s);
	char *want =
	    bv_asprintf("%s: store schema 99 is newer than this bench-versions reads (3); use a newer "
	                "bench-versions or another --store",
	                path);
	assert_string_equal(bv_error_last(), want);
	char *after = read_all(path, &n1);
	assert_int_equal(n0, n1);
	assert_memory_equal(before, after, n0);
	free(want), free(before), free(after), free(path);
	bv_rm_rf(dir);
	free(dir);
}

/* The v1 schema as the first bench-versions with a store wrote it. */
#define V1_SCHEMA                                                                                            \
	"CREATE TABLE steps ( class TEXT NOT NULL, key_a TEXT NOT NULL, key_b TEXT NOT NULL, cell TEXT NOT " \
	"NULL, method TEXT NOT NULL, ratio REAL NOT NULL, lo REAL, hi REAL, nproc INTEGER NOT NULL, "        \
	"proc_ratio BLOB NOT NULL, verdict TEXT NOT NULL, p REAL, created TEXT NOT NULL, source TEXT, "      \
	"PRIMARY KEY (class, key_a, key_b, cell, method));"                                                  \
	"PRAGMA application_id = 1112961908; PRAGMA user_version = 1;"                                       \
	"INSERT INTO steps VALUES ('c', '" KA "', '" KB                                                      \
	"', 'unary/relu/scalar/64K', 'm', 1.5, 1.25, 2.0, 2, "                                               \
	"X'000000000000F83F0000000000000040', 'slower', NULL, '2024-01-02T03:04:05Z', 'old run');"

static void v1_store_is_migrated(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	char *path = bv_asprintf("%s/h.sqlite", dir);
	raw_exec(path, V1_SCHEMA);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'steps_by_b'"), 0);
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(path, &s), 0);
	bv_step got;
	int found = 0;
	assert_int_equal(bv_store_get_step(s, "c", KA, KB, "unary/relu/scalar/64K", "m", &got, &found), 0);
	assert_int_equal(found, 1);
	assert_true(got.ratio == 1.5 && got.lo == 1.25 && got.hi == 2.0 && isnan(got.p));
	assert_int_equal(got.nproc, 2);
	assert_true(got.proc_ratio[0] == 1.5 && got.proc_ratio[1] == 2.0);
	bv_step_free(&got);
	bv_store_close(s);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 3);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'steps_by_b'"), 1);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'nosteps'"), 1);
	free(path);
	/* and a v2 store (its index, no nosteps): the objects each version's
	 * migrations made are the store's, whatever version it is at */
	path = bv_asprintf("%s/h2.sqlite", dir);
	raw_exec(path, V1_SCHEMA "CREATE INDEX steps_by_b ON steps (class, key_b); PRAGMA user_version = 2;");
	assert_int_equal(bv_store_open(path, &s), 0);
	bv_store_close(s);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 3);
	free(path);
	bv_rm_rf(dir);
	free(dir);
}

/* An old store holding a table where a migration makes an index of that
 * name: the migration failed on it and was rolled back; now the table is
 * refused before any migration starts.  Either way the store stays at its
 * old version with its steps. */
static void v1_store_with_a_foreign_table_is_not_migrated(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	char *path = bv_asprintf("%s/h.sqlite", dir);
	raw_exec(path, V1_SCHEMA "CREATE TABLE steps_by_b (x);");
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(path, &s), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(),
	                       "the store holds table 'steps_by_b', which bench-versions does not create"));
	assert_non_null(strstr(bv_error_last(), path));
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 1);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM steps"), 1);
	free(path);
	bv_rm_rf(dir);
	free(dir);
}

/* path refused with BV_EINPUT, its message holding want, and its bytes
 * what they were. */
static void refused_untouched(const char *path, const char *want)
{
	size_t n0, n1;
	char *before = read_all(path, &n0);
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(path, &s), BV_EINPUT);
	assert_null(s);
	assert_non_null(strstr(bv_error_last(), path));
	if (!strstr(bv_error_last(), want))
		fail_msg("'%s' lacks '%s'", bv_error_last(), want);
	char *after = read_all(path, &n1);
	assert_int_equal(n0, n1);
	assert_memory_equal(before, after, n0);
	free(before), free(after);
}

static void what_is_not_a_store_is_refused_untouched(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	/* text */
	bv_buf b = BV_BUF_INIT;
	for (int i = 0; i < 100; i++)
		bv_buf_puts(&b, "this is not a database\n");
	test_write(dir, "text.sqlite", b.s);
	bv_buf_free(&b);
	char *p = bv_asprintf("%s/text.sqlite", dir);
	refused_untouched(p, "file is not a database");
	free(p);
	/* another program's database */
	p = bv_asprintf("%s/other.sqlite", dir);
	raw_exec(p, "CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('x')");
	refused_untouched(p, "an SQLite database of something else");
	free(p);
	/* ... that sets a user_version of its own: a version
	 * the store's schema also has (2 < 3) is no sign of a store, and was
	 * migrated, switched to WAL and marked as one */
	p = bv_asprintf("%s/versioned.sqlite", dir);
	raw_exec(p, "CREATE TABLE users(n); PRAGMA user_version=2;");
	refused_untouched(p, "an SQLite database of something else");
	free(p);
	p = bv_asprintf("%s/versioned-empty.sqlite", dir);
	raw_exec(p, "PRAGMA user_version=1;");
	refused_untouched(p, "an SQLite database of something else");
	free(p);
	p = bv_asprintf("%s/app.sqlite", dir);
	raw_exec(p, "PRAGMA application_id = 1234");
	refused_untouched(p, "application id 1234");
	free(p);
	/* a store whose header is damaged */
	p = bv_asprintf("%s/damaged.sqlite", dir);
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(p, &s), 0);
	bv_store_close(s);
	raw_exec(p, "PRAGMA journal_mode = DELETE");
	FILE *f = fopen(p, "r+b");
	assert_non_null(f);
	fwrite("SQLite format 9", 1, 15, f); /* the magic string */
	fclose(f);
	refused_untouched(p, "file is not a database");
	free(p);
	/* a directory */
	assert_int_equal(bv_store_open(dir, &s), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "a directory"));
	bv_rm_rf(dir);
	free(dir);
}

/* A store of ours (one step in it) given one more statement by hand. */
static char *store_with(const char *dir, const char *name, const char *sql)
{
	char *path = bv_asprintf("%s/%s", dir, name);
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(path, &s), 0);
	double pr[] = {1.5, 2.0};
	bv_step a = {.cell = "unary/relu/scalar/64K",
	             .ratio = 1.5,
	             .lo = 1.25,
	             .hi = 2.0,
	             .proc_ratio = pr,
	             .nproc = 2,
	             .verdict = BV_SAME,
	             .p = NAN};
	assert_int_equal(bv_store_put_step(s, "c", KA, KB, a.cell, "m", &a), 0);
	bv_store_close(s);
	raw_exec(path, sql);
	return path;
}

/* refused_untouched, and no WAL, shared memory or journal left beside it:
 * the refusal came before anything was written. */
static void refused_bare(const char *path, const char *want)
{
	refused_untouched(path, want);
	const char *ext[] = {"-wal", "-shm", "-journal"};
	for (size_t i = 0; i < 3; i++) {
		char *p = bv_asprintf("%s%s", path, ext[i]);
		if (access(p, F_OK) == 0)
			fail_msg("%s is left beside the refused store", p);
		free(p);
	}
}

/* A store with our application id and schema that holds more than the
 * schema creates, or something the schema creates changed or missing, is
 * not a store this bench-versions wrote: a trigger on steps rewrote each
 * step as it was stored (an import said "imported 1 step" and the step read
 * ratio 9, slower).  Each is refused before anything is written. */
static void what_the_schema_does_not_create_is_refused_untouched(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	const struct {
		const char *sql, *want;
	} cases[] = {
	    {"CREATE TRIGGER rewrite AFTER INSERT ON steps BEGIN UPDATE steps SET ratio = 9, verdict = "
	     "'slower' WHERE rowid = new.rowid; END",
	     ": the store holds trigger 'rewrite', which bench-versions does not create; it was left as "
	     "it is: "},
	    {"CREATE VIEW faster AS SELECT * FROM steps WHERE verdict = 'faster'",
	     ": the store holds view 'faster', which bench-versions does not create"},
	    {"CREATE TABLE notes (x TEXT)",
	     ": the store holds table 'notes', which bench-versions does not create"},
	    {"CREATE INDEX by_ratio ON steps (ratio)",
	     ": the store holds index 'by_ratio', which bench-versions does not create"},
	    /* ours, changed */
	    {"ALTER TABLE steps ADD COLUMN note TEXT DEFAULT 'x'",
	     ": the store's table 'steps' is not as bench-versions creates it"},
	    {"DROP INDEX steps_by_b; CREATE INDEX steps_by_b ON steps (class, key_a)",
	     ": the store's index 'steps_by_b' is not as bench-versions creates it"},
	    {"DROP INDEX steps_by_b; CREATE VIEW steps_by_b AS SELECT 1",
	     ": the store holds view 'steps_by_b', which bench-versions does not create"},
	    /* ours, missing */
	    {"DROP INDEX steps_by_b", ": the store lacks index 'steps_by_b', which bench-versions creates"},
	    /* a name from the file is escaped: it cannot forge a line */
	    {"CREATE VIEW \"a\nb\" AS SELECT 1", ": the store holds view 'a\\x0ab'"},
	};
	char *path = NULL;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[32];
		snprintf(name, sizeof(name), "h%zu.sqlite", i);
		path = store_with(dir, name, cases[i].sql);
		refused_bare(path, cases[i].want);
		free(path);
	}
	/* a user_version below any (migrations[-1] was run) */
	path = store_with(dir, "negative.sqlite", "PRAGMA user_version = -1");
	refused_bare(path, ": store schema -1 is no version bench-versions ever wrote; it was left as it is");
	free(path);
	/* an old store (v1) with a trigger: refused, not migrated */
	path = bv_asprintf("%s/v1.sqlite", dir);
	raw_exec(path, V1_SCHEMA "CREATE TRIGGER t AFTER INSERT ON steps BEGIN SELECT 1; END;");
	refused_bare(path, ": the store holds trigger 't', which bench-versions does not create");
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 1);
	free(path);
	bv_rm_rf(dir);
	free(dir);
}

/* Each of cells[] (class c, keys a..b, method m) in the store at path is
 * refused as input naming the store and why[i], and nothing is handed out. */
static void rows_refused(const char *path, const char *const *cells, const char *const *why, size_t n)
{
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(path, &s), 0);
	for (size_t i = 0; i < n; i++) {
		bv_step got = {0};
		int found = 0;
		assert_int_equal(bv_store_get_step(s, "c", "a", "b", cells[i], "m", &got, &found), BV_EINPUT);
		assert_int_equal(found, 0);
		assert_null(got.cell);
		assert_non_null(strstr(bv_error_last(), path));
		if (!strstr(bv_error_last(), why[i]))
			fail_msg("'%s' lacks '%s'", bv_error_last(), why[i]);
	}
	bv_store_close(s);
}

/* A row that does not read as a step: the database is input too. */
static void damaged_rows_are_input_errors(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	char *path = bv_asprintf("%s/h.sqlite", dir);
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(path, &s), 0);
	bv_store_close(s);
	raw_exec(
	    path,
	    "INSERT INTO steps VALUES ('c', 'a', 'b', 'verdict', 'm', 1, NULL, NULL, 0, X'', 'better', "
	    "NULL, 't', NULL);"
	    "INSERT INTO steps VALUES ('c', 'a', 'b', 'blob', 'm', 1, NULL, NULL, 1, X'00', 'same', NULL, "
	    "'t', NULL);"
	    "INSERT INTO steps VALUES ('c', 'a', 'b', 'ratio', 'm', 'fast', NULL, NULL, 0, X'', 'same', "
	    "NULL, 't', NULL);"
	    "INSERT INTO steps VALUES ('c', 'a', 'b', 'order', 'm', 1, 2, 3, 0, X'', 'same', NULL, 't', "
	    "NULL);"
	    "INSERT INTO steps VALUES ('c', 'a', 'b', 'nan', 'm', 1, NULL, NULL, 1, X'000000000000F87F', "
	    "'same', NULL, 't', NULL);"
	    /* ratios edited by hand: below 0, 0, infinite (SQLite keeps 9e999
	     * as Inf; a NaN it keeps as NULL, which NOT NULL refuses) */
	    "INSERT INTO steps VALUES ('c', 'a', 'b', 'negative', 'm', -2, NULL, NULL, 0, X'', 'faster', "
	    "NULL, 't', NULL);"
	    "INSERT INTO steps VALUES ('c', 'a', 'b', 'zero', 'm', 0, NULL, NULL, 0, X'', 'faster', NULL, "
	    "'t', NULL);"
	    "INSERT INTO steps VALUES ('c', 'a', 'b', 'inf', 'm', 9e999, NULL, NULL, 0, X'', 'slower', NULL, "
	    "'t', NULL);"
	    "INSERT INTO steps VALUES ('c', 'a', 'b', 'infhi', 'm', 2, 1, 9e999, 0, X'', 'slower', NULL, "
	    "'t', NULL);"
	    /* nproc * 8 wraps to 0, the empty BLOB's length: 2^61 doubles were
	     * allocated (out of memory: abort) */
	    "INSERT INTO steps VALUES ('c', 'a', 'b', 'nproc', 'm', 1, NULL, NULL, 2305843009213693952, "
	    "X'', 'same', NULL, 't', NULL);");
	const char *cells[] = {"verdict",  "blob", "ratio", "order", "nan",
	                       "negative", "zero", "inf",   "infhi", "nproc"};
	const char *why[] = {"verdict is not one of",
	                     "proc_ratio does not hold",
	                     "wrong type",
	                     "ordered",
	                     "process ratio",
	                     "ratio is not a finite number > 0",
	                     "ratio is not a finite number > 0",
	                     "ratio is not a finite number > 0",
	                     "interval is not finite",
	                     "proc_ratio does not hold"};
	rows_refused(path, cells, why, sizeof(cells) / sizeof(cells[0]));
	free(path);
	bv_rm_rf(dir);
	free(dir);
}

/* An absent step (store.h: a version lacks the cell) round trips, and an
 * absent and a measured step of one key replace each other. */
static void absent_steps_round_trip_and_replace(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	char *path = bv_asprintf("%s/h.sqlite", dir);
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(path, &s), 0);
	bv_step a = {.cell = "unary/gelu/simd/64K",
	             .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN,
	             .absent = "n/a",
	             .absent_side = 0,
	             .absent_reason = "kernels 0.5.0 has no gelu"};
	bv_step b = {.cell = "unary/exp/cuda/64K",
	             .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN,
	             .absent = "skipped",
	             .absent_side = 1};
	assert_int_equal(bv_store_put_step(s, "c", KA, KB, a.cell, "m", &a), 0);
	assert_int_equal(bv_store_put_step(s, "c", KA, KB, b.cell, "m", &b), 0);
	bv_store_close(s);
	assert_int_equal(bv_store_open(path, &s), 0);
	bv_step got;
	int found = 0;
	assert_int_equal(bv_store_get_step(s, "c", KA, KB, a.cell, "m", &got, &found), 0);
	assert_int_equal(found, 1);
	assert_string_equal(got.absent, "n/a");
	assert_int_equal(got.absent_side, 0);
	assert_string_equal(got.absent_reason, "kernels 0.5.0 has no gelu");
	assert_true(isnan(got.ratio) && got.nproc == 0 && got.verdict == BV_NO_VERDICT);
	bv_step_free(&got);
	assert_int_equal(bv_store_get_step(s, "c", KA, KB, b.cell, "m", &got, &found), 0);
	assert_int_equal(found, 1);
	assert_string_equal(got.absent, "skipped");
	assert_int_equal(got.absent_side, 1);
	assert_null(got.absent_reason);
	bv_step_free(&got);
	/* another method or class: not found */
	assert_int_equal(bv_store_get_step(s, "c", KA, KB, a.cell, "quick", &got, &found), 0);
	assert_int_equal(found, 0);
	/* measured replaces absent ... */
	double pr[] = {1.0, 1.1};
	bv_step m = {.cell = a.cell, .ratio = 1.05, .lo = NAN, .hi = NAN, .proc_ratio = pr,
	             .nproc = 2, .verdict = BV_SAME, .p = NAN};
	assert_int_equal(bv_store_put_step(s, "c", KA, KB, a.cell, "m", &m), 0);
	assert_int_equal(bv_store_get_step(s, "c", KA, KB, a.cell, "m", &got, &found), 0);
	assert_true(found == 1 && got.absent == NULL && got.ratio == 1.05);
	bv_step_free(&got);
	/* ... and absent replaces measured */
	assert_int_equal(bv_store_put_step(s, "c", KA, KB, a.cell, "m", &a), 0);
	assert_int_equal(bv_store_get_step(s, "c", KA, KB, a.cell, "m", &got, &found), 0);
	assert_true(found == 1 && got.absent && !strcmp(got.absent, "n/a"));
	bv_step_free(&got);
	bv_store_close(s);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM steps"), 0);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM nosteps"), 2);
	/* what put refuses: another status, a side not 0/1, a reason with a
	 * control character or too long; nothing is written */
	assert_int_equal(bv_store_open(path, &s), 0);
	char *longr = bv_xcalloc(1100, 1);
	memset(longr, 'x', 1099);
	bv_step bad[] = {
	    {.cell = "x", .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .absent = "crashed"},
	    {.cell = "x", .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .absent = "n/a", .absent_side = 2},
	    {.cell = "x", .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .absent = "n/a",
	     .absent_reason = "line\n\x1b[31mred"},
	    {.cell = "x", .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .absent = "n/a", .absent_reason = longr},
	};
	const char *why[] = {"not n/a or skipped", "side is not 0 or 1", "control character", "over 1024"};
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(bv_store_put_step(s, "c", KA, KB, "x", "m", &bad[i]), BV_EINPUT);
		if (!strstr(bv_error_last(), why[i]))
			fail_msg("'%s' lacks '%s'", bv_error_last(), why[i]);
	}
	free(longr);
	bv_store_close(s);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM nosteps WHERE cell = 'x'"), 0);
	free(path);
	bv_rm_rf(dir);
	free(dir);
}

/* A damaged absent row is an input error naming the store, never shown. */
static void damaged_absent_rows_are_input_errors(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	char *path = bv_asprintf("%s/h.sqlite", dir);
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(path, &s), 0);
	bv_store_close(s);
	raw_exec(path,
	         "INSERT INTO nosteps VALUES ('c', 'a', 'b', 'status', 'm', 'gone', 0, NULL, 't', NULL);"
	         "INSERT INTO nosteps VALUES ('c', 'a', 'b', 'side', 'm', 'n/a', 7, NULL, 't', NULL);"
	         "INSERT INTO nosteps VALUES ('c', 'a', 'b', 'sidetype', 'm', 'n/a', 'zero', NULL, 't', NULL);"
	         "INSERT INTO nosteps VALUES ('c', 'a', 'b', 'reason', 'm', 'n/a', 0, X'0a1b5b33316d', 't', "
	         "NULL);"
	         "INSERT INTO nosteps VALUES ('c', 'a', 'b', 'control', 'm', 'n/a', 0, 'a' || char(27) || "
	         "'[2J', 't', NULL);");
	const char *cells[] = {"status", "side", "sidetype", "reason", "control"};
	const char *why[] = {"status is not", "side is not", "side is not", "reason is not text",
	                     "control character"};
	rows_refused(path, cells, why, 5);
	free(path);
	bv_rm_rf(dir);
	free(dir);
}

/* Two processes open a new store at once and write 200 steps each, one in
 * transactions of 10, the other one step per transaction: every step is
 * there afterwards. */
static void concurrent_writers_lose_nothing(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	char *path = bv_asprintf("%s/h.sqlite", dir);
	pid_t kids[2];
	for (int k = 0; k < 2; k++) {
		kids[k] = fork();
		assert_true(kids[k] >= 0);
		if (kids[k] == 0) {
			bv_store *s = NULL;
			int rc = bv_store_open(path, &s);
			for (int i = 0; rc == 0 && i < 200; i++) {
				char cell[32];
				snprintf(cell, sizeof(cell), "cell/%d", i);
				double pr[] = {1.0 + i / 1000.0, 1.0};
				bv_step st = {.cell = cell,
				              .ratio = 1.0 + k,
				              .lo = NAN,
				              .hi = NAN,
				              .proc_ratio = pr,
				              .nproc = 2,
				              .verdict = BV_SAME,
				              .p = NAN};
				if (k == 0 && i % 10 == 0)
					rc = bv_store_begin(s);
				if (rc == 0)
					rc = bv_store_put_step(s, k ? "B" : "A", KA, KB, cell, "m", &st);
				if (rc == 0 && k == 0 && i % 10 == 9)
					rc = bv_store_commit(s);
			}
			if (rc)
				fprintf(stderr, "writer %d: %s\n", k, bv_error_last());
			bv_store_close(s);
			_exit(rc ? 1 : 0);
		}
	}
	for (int k = 0; k < 2; k++) {
		int st = 0;
		assert_int_equal(waitpid(kids[k], &st, 0), kids[k]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(path, &s), 0);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 200; i++) {
			char cell[32];
			snprintf(cell, sizeof(cell), "cell/%d", i);
			bv_step got;
			int found = 0;
			assert_int_equal(bv_store_get_step(s, k ? "B" : "A", KA, KB, cell, "m", &got, &found),
			                 0);
			assert_int_equal(found, 1);
			assert_true(got.ratio == 1.0 + k && got.proc_ratio[0] == 1.0 + i / 1000.0);
			bv_step_free(&got);
		}
	bv_store_close(s);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM steps"), 400);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"),
	                 1);
	free(path);
	bv_rm_rf(dir);
	free(dir);
}

/* ---- import ---------------------------------------------------------------
 * A run of two versions as measure.c writes it (docs/results-format.md):
 * base and new, each with its build key; new's relu cell has a paired
 * change with six process ratios, its abs cell none. */
static void write_run(const char *dir, const char *cls, const char *new_key, const char *mode)
{
	const char *keys[2] = {KA, new_key};
	const char *labels[2] = {"base", "new"};
	for (int v = 0; v < 2; v++) {
		char *machine_class = cls ? bv_asprintf(", \"class\": \"%s\"", cls) : bv_strdup("");
		char *key = keys[v] ? bv_asprintf(", \"key\": \"%s\"", keys[v]) : bv_strdup("");
		char *change =
		    v ? bv_asprintf(
		            ", \"change\": {\"baseline\": \"base\", \"mode\": \"%s\", \"ratio\": 1.5, "
		            "\"ratio_ci_low\": 1.4, \"ratio_ci_high\": 1.6, \"coverage\": 0.96875, "
		            "\"processes\": 6, \"process_ratios\": [1.4, 1.45, 1.5, 1.5, 1.55, 1.6]}",
		            mode)
		      : bv_strdup("");
		char *text = bv_asprintf(
		    "{\"schema\": \"bench-versions-results\", \"schema_version\": \"1.6\",\n"
		    " \"run\": {\"id\": \"R1\", \"baseline\": \"base\", \"versions\": [\"base\", \"new\"]},\n"
		    " \"version\": {\"label\": \"%s\", \"kernel_version\": \"0.1.0\", \"rule\": \"branch\", "
		    "\"summary\": \"s\", \"build\": {\"status\": \"ok\"%s}},\n"
		    " \"machine\": {\"hostname\": \"h\", \"cpu\": \"cpu0\"%s},\n"
		    " \"method\": {\"mode\": \"%s\", \"threshold\": 0.02, \"min_processes\": 6, "
		    "\"max_processes\": 6},\n"
		    " \"cells\": [{\"bench\": \"unary\", \"op\": \"relu\", \"backend\": \"scalar\", "
		    "\"size\": 65536,\n"
		    "   \"status\": \"ok\", \"median_ns\": %d, \"median_ns_ci_low\": %d, "
		    "\"median_ns_ci_high\": %d, "
		    "\"processes\": 6%s},\n"
		    "  {\"bench\": \"unary\", \"op\": \"abs\", \"backend\": \"scalar\", \"size\": 1024,\n"
		    "   \"status\": \"ok\", \"median_ns\": 10, \"median_ns_ci_low\": 9, "
		    "\"median_ns_ci_high\": 11}]}\n",
		    labels[v], key, machine_class, mode, v ? 150 : 100, v ? 140 : 95, v ? 160 : 105, change);
		char *name = bv_asprintf("%s.json", labels[v]);
		test_write(dir, name, text);
		free(name), free(text), free(change), free(key), free(machine_class);
	}
}

/* The relu step in path's store, checked against what compare DIR makes
 * of the same logs. */
static void check_imported(bv_store *s, const char *dir, const char *cls)
{
	char *paths[2] = {bv_asprintf("%s/base.json", dir), bv_asprintf("%s/new.json", dir)};
	bv_table t;
	bv_merge_opts mo = {-1, 0};
	assert_int_equal(bv_merge(paths, 2, &mo, &t), 0);
	const bv_change *ch = NULL;
	for (size_t k = 0; k < t.nrows; k++)
		if (!strcmp(t.rows[k].op, "relu"))
			ch = &t.rows[k].changes[1];
	assert_non_null(ch);
	bv_step got;
	int found = 0;
	assert_int_equal(bv_store_get_step(s, cls, KA, KB, "unary/relu/scalar/64K", "m", &got, &found), 0);
	assert_int_equal(found, 1);
	assert_true(got.ratio == 1.5 && got.lo == 1.4 && got.hi == 1.6);
	assert_int_equal(got.nproc, 6);
	double pr[] = {1.4, 1.45, 1.5, 1.5, 1.55, 1.6};
	assert_memory_equal(got.proc_ratio, pr, sizeof(pr));
	assert_int_equal(got.verdict, ch->verdict);
	assert_true((isnan(got.p) && isnan(ch->p)) || got.p == ch->p);
	bv_step_free(&got);
	/* the abs cell had no change: no step */
	assert_int_equal(bv_store_get_step(s, cls, KA, KB, "unary/abs/scalar/1K", "m", &got, &found), 0);
	assert_int_equal(found, 0);
	bv_table_free(&t);
	free(paths[0]), free(paths[1]);
}

static void import_takes_a_runs_paired_changes(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	char *run = bv_asprintf("%s/run", dir), *db = bv_asprintf("%s/h.sqlite", dir);
	assert_int_equal(bv_mkdir_p(run), 0);
	write_run(run, "ci-x86", KB, "paired");
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(db, &s), 0);
	size_t n = 99;
	/* the run's directory */
	assert_int_equal(bv_store_import_log(s, run, "m", &n), 0);
	assert_int_equal(n, 1);
	check_imported(s, run, "ci-x86");
	/* one log: that version's steps; the baseline's log has none */
	char *log = bv_asprintf("%s/new.json", run), *base = bv_asprintf("%s/base.json", run);
	assert_int_equal(bv_store_import_log(s, log, "m", &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(bv_store_import_log(s, base, "m", &n), 0);
	assert_int_equal(n, 0);
	bv_store_close(s);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM steps"), 1);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM steps WHERE source LIKE '%new.json (run R1)'"), 1);
	free(log), free(base);
	bv_rm_rf(run);
	assert_int_equal(bv_mkdir_p(run), 0);
	/* no machine.class: the class derived as compare derives it */
	write_run(run, NULL, KB, "paired");
	assert_int_equal(bv_store_open(db, &s), 0);
	assert_int_equal(bv_store_import_log(s, run, "m", &n), 0);
	assert_int_equal(n, 1);
	char *derived = bv_class_derive_name("cpu0", "", "");
	check_imported(s, run, derived);
	free(derived);
	bv_store_close(s);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM steps"), 2);
	/* isolated ratios are not steps */
	bv_rm_rf(run);
	assert_int_equal(bv_mkdir_p(run), 0);
	write_run(run, "iso", KB, "isolated");
	assert_int_equal(bv_store_open(db, &s), 0);
	assert_int_equal(bv_store_import_log(s, run, "m", &n), 0);
	assert_int_equal(n, 0);
	bv_store_close(s);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM steps"), 2);
	free(run), free(db);
	bv_rm_rf(dir);
	free(dir);
}

static void import_refuses_logs_without_build_keys(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	char *run = bv_asprintf("%s/run", dir), *db = bv_asprintf("%s/h.sqlite", dir);
	assert_int_equal(bv_mkdir_p(run), 0);
	bv_store *s = NULL;
	assert_int_equal(bv_store_open(db, &s), 0);
	size_t n = 99;
	const char *bad_keys[] = {NULL, "../../etc/passwd", "2222"};
	for (size_t i = 0; i < 3; i++) {
		write_run(run, "c", bad_keys[i], "paired");
		assert_int_equal(bv_store_import_log(s, run, "m", &n), BV_EINPUT);
		assert_int_equal(n, 0);
		assert_non_null(strstr(bv_error_last(), "new.json: version.build.key"));
	}
	/* a log whose run's baseline is not beside it */
	char *base = bv_asprintf("%s/base.json", run), *log = bv_asprintf("%s/new.json", run);
	write_run(run, "c", KB, "paired");
	assert_int_equal(unlink(base), 0);
	assert_int_equal(bv_store_import_log(s, log, "m", &n), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "baseline log is not there"));
	/* not a log at all */
	test_write(run, "new.json",
	           "{\"schema\": \"bench-versions-results\", \"schema_version\": \"1.6\", \"cells\": 3}");
	assert_int_equal(bv_store_import_log(s, log, "m", &n), BV_EINPUT);
	bv_store_close(s);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM steps"), 0);
	free(base), free(log), free(run), free(db);
	bv_rm_rf(dir);
	free(dir);
}

static void default_path_is_in_the_cache(void **state)
{
	(void)state;
	char *want = bv_asprintf("%s/history.sqlite", bv_cache_dir());
	assert_string_equal(bv_store_default_path(), want);
	free(want);
}

int test_store(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(round_trip_keeps_every_field),
	    cmocka_unit_test(put_replaces_and_keys_are_distinct),
	    cmocka_unit_test(missing_leaves_out_untouched),
	    cmocka_unit_test(put_refuses_what_is_not_a_step),
	    cmocka_unit_test(newer_schema_is_refused_untouched),
	    cmocka_unit_test(v1_store_is_migrated),
	    cmocka_unit_test(v1_store_with_a_foreign_table_is_not_migrated),
	    cmocka_unit_test(what_is_not_a_store_is_refused_untouched),
	    cmocka_unit_test(what_the_schema_does_not_create_is_refused_untouched),
	    cmocka_unit_test(damaged_rows_are_input_errors),
	    cmocka_unit_test(absent_steps_round_trip_and_replace),
	    cmocka_unit_test(damaged_absent_rows_are_input_errors),
	    cmocka_unit_test(concurrent_writers_lose_nothing),
	    cmocka_unit_test(import_takes_a_runs_paired_changes),
	    cmocka_unit_test(import_refuses_logs_without_build_keys),
	    cmocka_unit_test(default_path_is_in_the_cache),
	};
	return test_run_group("history store", tests, NULL, NULL);
}
