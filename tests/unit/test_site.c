/* test_site.c - the site `bench-versions publish` writes (orchestrator/
 * publish/site*.c) from a small store made here with the store's schema:
 * every page is there, names from uploads are escaped and made safe as page
 * names, a cell page has every class's series, backends names each class's
 * fastest from its newest version, regressions lists only the newest
 * version's slower verdicts, no ratio is computed between classes, and a
 * second write of the same store touches no file.  And the store itself
 * (site_store.c): one the first site store's code made opens, and one that
 * is not as that code made it is refused, byte for byte untouched. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>
#include <sqlite3.h>

#include "common.h"
#include "fs.h"
#include "site.h"
#include "site_page.h"
#include "site_store.h"
#include "tests.h"

#define XSS "<script>alert(1)</script>"
/* As bv_html_esc writes it: < > / as numeric references. */
#define XSS_ESC "&#60;script&#62;alert(1)&#60;&#47;script&#62;"
#define XSS_ATTR "\\\"onload=\\\"alert(1)"

/* The schema of design "The store's schema" (site_store.c makes it). */
static const char schema[] =
    "CREATE TABLE archives(sha256 TEXT PRIMARY KEY, source TEXT NOT NULL, bytes INTEGER NOT NULL,"
    " seen TEXT NOT NULL, status TEXT NOT NULL, run TEXT, reason TEXT);"
    "CREATE TABLE runs(key TEXT PRIMARY KEY, id TEXT NOT NULL, created TEXT NOT NULL, class TEXT NOT NULL,"
    " cpu TEXT NOT NULL, isa TEXT NOT NULL, gpu TEXT NOT NULL, hostname TEXT, cpus INTEGER, tool TEXT,"
    " baseline TEXT NOT NULL, method TEXT NOT NULL, load_max REAL, loaded INTEGER, imported TEXT NOT NULL,"
    " page TEXT NOT NULL);"
    "CREATE TABLE versions(run TEXT NOT NULL, label TEXT NOT NULL, pos INTEGER NOT NULL, name TEXT, kind "
    "TEXT,"
    " commit_id TEXT, kernel_version TEXT, PRIMARY KEY (run, label));"
    "CREATE TABLE cells(run TEXT NOT NULL, version TEXT NOT NULL, bench TEXT NOT NULL, op TEXT NOT NULL,"
    " backend TEXT NOT NULL, size INTEGER NOT NULL, shape TEXT NOT NULL, status TEXT NOT NULL, reason TEXT,"
    " median_ns REAL, lo_ns REAL, hi_ns REAL, PRIMARY KEY (run, version, bench, op, backend, size));"
    "CREATE INDEX cells_by_cell ON cells (bench, op, backend, size);"
    "CREATE TABLE changes(run TEXT NOT NULL, version TEXT NOT NULL, baseline TEXT NOT NULL, bench TEXT NOT "
    "NULL,"
    " op TEXT NOT NULL, backend TEXT NOT NULL, size INTEGER NOT NULL, ratio REAL, lo REAL, hi REAL,"
    " verdict TEXT NOT NULL, mode TEXT NOT NULL, PRIMARY KEY (run, version, bench, op, backend, size));";

/* Two classes: "alpha" (runs A1: 1.0.0 and 1.1.0; A2: 1.1.0 and 2.0.0) and
 * one whose name and CPU are markup (run B1: 1.0.0 and 2.0.0).  In alpha's
 * newest version (2.0.0, run A2) simd is the faster backend of k dot 1K;
 * in its older 1.1.0 (run A1) scalar was: backends must take the newest.
 * On the hostile class scalar is the faster.  A1 called 1.1.0 slower on
 * "k dot simd" (1.567x): an older version, not on regressions; A2 called
 * 2.0.0 slower on "k sum simd" (1.234x): on regressions. */
static const char rows[] =
    "INSERT INTO runs VALUES ('a1key0000000000000000','A1','2026-01-01T00:00:00Z','alpha','CPU-A','avx2','',"
    " 'h',8,'bench-versions 0.1.0','1.0.0','paired, 6-24 processes',0.5,0,'x','compare/a1key00000000000.html');"
    "INSERT INTO runs VALUES ('a2key0000000000000000','A2','2026-02-01T00:00:00Z','alpha','CPU-A','avx2','',"
    " 'h',8,NULL,'1.1.0','paired, 6-24 processes',7.5,1,'x','compare/a2key00000000000.html');"
    "INSERT INTO runs VALUES ('b1key0000000000000000','B1','2026-03-01T00:00:00Z','" XSS "','" XSS_ATTR "',"
    " 'neon','',NULL,NULL,'" XSS "','1.0.0','paired','',NULL,'x','compare/b1key00000000000.html');"
    "INSERT INTO versions VALUES ('a1key0000000000000000','1.0.0',0,'1.0.0','git','c100','1.0.0');"
    "INSERT INTO versions VALUES ('a1key0000000000000000','1.1.0',1,'1.1.0','git','c110','1.1.0');"
    "INSERT INTO versions VALUES ('a2key0000000000000000','1.1.0',0,'1.1.0','git','c110','1.1.0');"
    "INSERT INTO versions VALUES ('a2key0000000000000000','2.0.0',1,'2.0.0','git','c200','2.0.0');"
    "INSERT INTO versions VALUES ('b1key0000000000000000','1.0.0',0,'1.0.0','git','c100','1.0.0');"
    "INSERT INTO versions VALUES ('b1key0000000000000000','2.0.0',1,'2.0.0','git','c200','2.0.0');"
    "INSERT INTO versions VALUES ('b1key0000000000000000','0.10.0',2,'0.10.0','git','c010','0.10.0');"
    "INSERT INTO versions VALUES ('b1key0000000000000000','0.9.0',3,'0.9.0','git','c009','0.9.0');"
    "INSERT INTO versions VALUES ('b1key0000000000000000','a-local',4,'a-local','local',NULL,NULL);"
    "INSERT INTO cells VALUES "
    "('a1key0000000000000000','1.1.0','k','dot','scalar',1024,'1K','ok',NULL,10,9,11);"
    "INSERT INTO cells VALUES "
    "('a1key0000000000000000','1.1.0','k','dot','simd',1024,'1K','ok',NULL,50,45,55);"
    "INSERT INTO cells VALUES "
    "('a2key0000000000000000','2.0.0','k','dot','scalar',1024,'1K','ok',NULL,100,90,110);"
    "INSERT INTO cells VALUES "
    "('a2key0000000000000000','2.0.0','k','dot','simd',1024,'1K','ok',NULL,40,38,42);"
    "INSERT INTO cells VALUES "
    "('a2key0000000000000000','2.0.0','k','sum','simd',1024,'1K','ok',NULL,70,65,75);"
    "INSERT INTO cells VALUES "
    "('b1key0000000000000000','2.0.0','k','dot','scalar',1024,'1K','ok',NULL,50,48,52);"
    "INSERT INTO cells VALUES "
    "('b1key0000000000000000','2.0.0','k','dot','simd',1024,'1K','ok',NULL,90,85,95);"
    "INSERT INTO cells VALUES ('b1key0000000000000000','2.0.0','k','" XSS_ATTR "','simd',1024,'1K','ok',NULL,"
    " 30,29,31);"
    "INSERT INTO cells VALUES ('b1key0000000000000000','2.0.0','../k','dot','simd',1024,'1K','failed','" XSS
    "',NULL,NULL,NULL);"
    "INSERT INTO cells VALUES ('b1key0000000000000000','2.0.0','a-b','c','simd',1024,'1K','ok',NULL,5,4,6);"
    "INSERT INTO cells VALUES ('b1key0000000000000000','2.0.0','a','b-c','simd',1024,'1K','ok',NULL,5,4,6);"
    "INSERT INTO changes VALUES ('a1key0000000000000000','1.1.0','1.0.0','k','dot','simd',1024,1.567,1.5,1.6,"
    " 'slower','paired');"
    "INSERT INTO changes VALUES ('a2key0000000000000000','2.0.0','1.1.0','k','sum','simd',1024,1.234,1.2,1.3,"
    " 'slower','paired');"
    "INSERT INTO archives VALUES ('ab','1-" XSS ".tar.gz',10,'2026-03-02T00:00:00Z','quarantined',NULL,"
    " 'refused: " XSS "');";

/* site_store.c's migrations after the first, as it runs them. */
static const char migrations_2_3[] = "ALTER TABLE versions ADD COLUMN tree TEXT;"
                                     "ALTER TABLE changes ADD COLUMN proc_ratio BLOB;";

typedef struct site_fx {
	sqlite3 *db;
	char *dir;
} site_fx;

static int setup(void **state)
{
	site_fx *f = bv_xcalloc(1, sizeof(*f));
	assert_int_equal(sqlite3_open(":memory:", &f->db), SQLITE_OK);
	char *err = NULL;
	int rc = sqlite3_exec(f->db, schema, NULL, NULL, &err);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(f->db, rows, NULL, NULL, &err);
	/* the second and third migrations, on rows imported before them
	 * (tree and proc_ratio NULL) */
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(f->db, migrations_2_3, NULL, NULL, &err);
	if (rc != SQLITE_OK)
		fail_msg("the store: %s", err);
	f->dir = test_tmpdir();
	if (bv_site_write(f->db, f->dir, "bench-versions test " XSS))
		fail_msg("bv_site_write: %s", bv_error_last());
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	site_fx *f = *state;
	sqlite3_close(f->db);
	bv_rm_rf(f->dir);
	free(f->dir), free(f);
	return 0;
}

static char *page(const site_fx *f, const char *rel)
{
	char *path = bv_asprintf("%s/%s", f->dir, rel), *text = NULL;
	size_t len = 0;
	if (bv_read_file(path, 16 << 20, &text, &len))
		fail_msg("%s is missing: %s", rel, bv_error_last());
	free(path);
	return text;
}

/* The file names of site_dir/rel, sorted, each on a line. */
static char *listing(const site_fx *f, const char *rel)
{
	char *path = bv_asprintf("%s/%s", f->dir, rel);
	DIR *d = opendir(path);
	assert_non_null(d);
	bv_strv names = BV_STRV_INIT;
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.')
			bv_strv_push(&names, e->d_name);
	closedir(d);
	qsort(names.v, names.n, sizeof(char *), (int (*)(const void *, const void *))strcmp);
	bv_buf b = BV_BUF_INIT;
	for (size_t i = 0; i < names.n; i++)
		bv_buf_printf(&b, "%s\n", names.v[i]);
	bv_strv_free(&names);
	free(path);
	return b.s ? bv_buf_detach(&b) : bv_strdup("");
}

static void every_page_is_written(void **state)
{
	site_fx *f = *state;
	static const char *const pages[] = {"index.html",
	                                    "backends.html",
	                                    "regressions.html",
	                                    "quarantine.html",
	                                    "data/index.json",
	                                    "data/classes.json",
	                                    "data/runs.json",
	                                    "data/backends.json",
	                                    "data/regressions.json",
	                                    "data/quarantine.json",
	                                    "cells/k-dot-simd-1K.html",
	                                    "cells/k-sum-simd-1K.html",
	                                    "data/cells/k-dot-scalar-1K.json"};
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		free(page(f, pages[i]));
	/* Seven cells, seven pages: "a-b"+"c" and "a"+"b-c" meet on one plain
	 * name, and both get a hash; "../k" and the markup op are made safe. */
	char *cells = listing(f, "cells");
	size_t n = 0;
	for (const char *p = cells; *p; p++)
		n += *p == '\n';
	assert_int_equal(n, 7);
	assert_null(strstr(cells, "a-b-c-simd-1K.html\n"));
	assert_null(strchr(cells, '/'));
	for (const char *p = cells; *p; p = strchr(p, '\n') + 1)
		assert_true(*p != '.');
	free(cells);
	cells = listing(f, "data/cells");
	assert_non_null(strstr(cells, "k-dot-simd-1K.json\n"));
	free(cells);
}

/* Every HTML file under dir (relative names). */
static void html_files(const char *dir, const char *rel, bv_strv *out)
{
	char *path = bv_asprintf("%s/%s", dir, rel);
	DIR *d = opendir(path);
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char *sub = *rel ? bv_asprintf("%s/%s", rel, e->d_name) : bv_strdup(e->d_name);
		char *full = bv_asprintf("%s/%s", dir, sub);
		if (bv_is_dir(full))
			html_files(dir, sub, out);
		else if (strstr(sub, ".html"))
			bv_strv_push(out, sub);
		free(sub), free(full);
	}
	closedir(d);
	free(path);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void names_from_uploads_are_escaped(void **state)
{
	site_fx *f = *state;
	bv_strv files = BV_STRV_INIT;
	html_files(f->dir, "", &files);
	assert_true(files.n >= 11);
	for (size_t i = 0; i < files.n; i++) {
		char *t = page(f, files.v[i]);
		if (strstr(t, "alert(1)</script>") || strstr(t, "\"onload=") || strstr(t, "onload=\"alert"))
			fail_msg("%s holds a name from an upload unescaped", files.v[i]);
		/* The one script is the index's filter, allowed by its hash. */
		assert_int_equal(count(t, "<script"), !strcmp(files.v[i], "index.html"));
		assert_non_null(strstr(t, "script-src 'sha256-"));
		free(t);
	}
	bv_strv_free(&files);
	char *t = page(f, "index.html");
	assert_non_null(strstr(t, XSS_ESC)); /* the class, escaped */
	free(t);
	t = page(f, "quarantine.html");
	assert_non_null(strstr(t, "refused&#58; " XSS_ESC));
	free(t);
}

/* The index's one script is what its CSP's hash allows: a browser runs it
 * (and would refuse it were a byte different). */
static void the_script_is_allowed_by_its_hash(void **state)
{
	site_fx *f = *state;
	char *t = page(f, "index.html");
	const char *open = strstr(t, "<script>"), *close = open ? strstr(open, "</script>") : NULL;
	assert_non_null(close);
	open += strlen("<script>");
	unsigned char md[EVP_MAX_MD_SIZE], b64[64];
	unsigned int n = 0;
	assert_true(EVP_Digest(open, (size_t)(close - open), md, &n, EVP_sha256(), NULL));
	EVP_EncodeBlock(b64, md, (int)n);
	char *want = bv_asprintf("script-src 'sha256-%s'\">", (const char *)b64);
	assert_non_null(strstr(t, want));
	free(want), free(t);
}

/* Versions in semver order of their kernel_version (0.9.0 before 0.10.0,
 * which text order would swap), one without a kernel_version last. */
static void versions_in_semver_order(void **state)
{
	site_fx *f = *state;
	char *t = page(f, "index.html");
	static const char *const order[] = {"0.9.0", "0.10.0", "1.0.0", "1.1.0", "2.0.0", "a-local"};
	const char *prev = strstr(t, "<h2>Versions</h2>");
	assert_non_null(prev);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		char *row = bv_asprintf("<tr><td>%s</td>", order[i]);
		const char *p = strstr(prev, row);
		if (!p)
			fail_msg("the versions table does not list %s after %s", order[i],
			         i ? order[i - 1] : "its head");
		prev = p;
		free(row);
	}
	free(t);
}

/* A working tree has no commit: its tree's hash names it.  Two runs of
 * `local` with different trees are two versions, each titled with its
 * tree; a third with the first one's tree is that version again; a
 * `local` imported before trees were kept (tree NULL) stays one. */
static void working_trees_are_versions_by_their_tree(void **state)
{
	site_fx *f = *state;
	char *err = NULL;
	static const char more[] =
	    "INSERT INTO runs VALUES ('c1key0000000000000000','C1','2026-04-01T00:00:00Z','alpha','CPU-A','avx2',"
	    " '','h',8,NULL,'2.0.0','paired',0.5,0,'x','compare/c1key00000000000.html');"
	    "INSERT INTO runs VALUES ('c2key0000000000000000','C2','2026-04-02T00:00:00Z','alpha','CPU-A','avx2',"
	    " '','h',8,NULL,'2.0.0','paired',0.5,0,'x','compare/c2key00000000000.html');"
	    "INSERT INTO runs VALUES ('c3key0000000000000000','C3','2026-04-03T00:00:00Z','alpha','CPU-A','avx2',"
	    " '','h',8,NULL,'2.0.0','paired',0.5,0,'x','compare/c3key00000000000.html');"
	    "INSERT INTO versions VALUES ('c1key0000000000000000','local',1,'local','local',NULL,'2.0.0',"
	    " 'aaaaaaa1111');"
	    "INSERT INTO versions VALUES ('c2key0000000000000000','local',1,'local','local',NULL,'2.0.0',"
	    " 'bbbbbbb2222');"
	    "INSERT INTO versions VALUES ('c3key0000000000000000','local',1,'local','local',NULL,'2.0.0',"
	    " 'aaaaaaa1111');";
	if (sqlite3_exec(f->db, more, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("the store: %s", err);
	if (bv_site_write(f->db, f->dir, "bench-versions test"))
		fail_msg("bv_site_write: %s", bv_error_last());
	char *t = page(f, "index.html");
	const char *a = strstr(t, "<tr><td>local (tree aaaaaaa)</td>");
	const char *b = strstr(t, "<tr><td>local (tree bbbbbbb)</td>");
	assert_non_null(a);
	assert_non_null(b);
	/* C1 and C3 are one version: two runs */
	assert_non_null(strstr(a, "<code>tree aaaaaaa1111</code></td><td class=\"num\">2</td>"));
	assert_non_null(strstr(b, "<code>tree bbbbbbb2222</code></td><td class=\"num\">1</td>"));
	free(t);
	t = page(f, "data/index.json");
	cJSON *doc = cJSON_Parse(t);
	assert_non_null(doc);
	int locals = 0, trees = 0, untreed = 0;
	const cJSON *v;
	cJSON_ArrayForEach(v, cJSON_GetObjectItem(doc, "versions"))
	{
		const char *label = cJSON_GetStringValue(cJSON_GetObjectItem(v, "label"));
		const cJSON *tree = cJSON_GetObjectItem(v, "tree");
		locals += !strcmp(label, "local");
		trees += cJSON_IsString(tree);
		untreed += !strcmp(label, "a-local") && cJSON_IsNull(tree);
	}
	assert_int_equal(locals, 2);
	assert_int_equal(trees, 2);
	assert_int_equal(untreed, 1);
	cJSON_Delete(doc);
	free(t);
}

static void a_cell_page_has_every_class(void **state)
{
	site_fx *f = *state;
	char *t = page(f, "cells/k-dot-simd-1K.html");
	/* Each class's section (the footer names the publisher, markup too). */
	assert_non_null(strstr(t, "</span>alpha</h2>"));
	assert_non_null(strstr(t, "</span>" XSS_ESC "</h2>"));
	assert_non_null(strstr(t, "CPU-A"));
	assert_non_null(strstr(t, "<svg"));
	assert_non_null(strstr(t, "bench-versions 0.1.0")); /* A1's tool */
	assert_non_null(strstr(t, "not recorded"));         /* A2's */
	assert_non_null(strstr(t, "1 quiet, 1 loaded"));
	free(t);
}

/* Where t shows a ratio ("1.5x", "2x"), or NULL. */
static const char *ratio_in(const char *t)
{
	for (const char *p = t; (p = strchr(p + 1, 'x'));)
		if (isdigit((unsigned char)p[-1]) && !isalnum((unsigned char)p[1])) {
			fprintf(stderr, "a ratio: ...%.30s\n", p - 10);
			return p;
		}
	return NULL;
}

/* The row of backends.html for class `cls` in the workload k dot 1K. */
static char *backends_row(const char *t, const char *cls)
{
	char *start = bv_asprintf("<tr><td>%s</td>", cls);
	const char *p = strstr(t, "<h3>k dot 1K</h3>");
	p = p ? strstr(p, start) : NULL;
	free(start);
	if (!p)
		return NULL;
	const char *e = strstr(p, "</tr>");
	return bv_asprintf("%.*s", (int)(e - p), p);
}

static void backends_names_each_class_fastest(void **state)
{
	site_fx *f = *state;
	char *t = page(f, "backends.html");
	char *alpha = backends_row(t, "alpha");
	char *hostile = backends_row(t, XSS_ESC);
	assert_non_null(alpha), assert_non_null(hostile);
	assert_non_null(strstr(alpha, "<td class=\"best\">simd</td><td>2.0.0</td>"));
	assert_non_null(strstr(hostile, "<td class=\"best\">scalar</td><td>2.0.0</td>"));
	/* No ratio: a number ending in x, as "1.5x" or "2x " would be (not
	 * "8xv" in a base64 hash). */
	assert_null(ratio_in(t));
	free(alpha), free(hostile), free(t);
	t = page(f, "index.html");
	assert_null(ratio_in(t));
	free(t);
}

static void regressions_are_the_newest_versions(void **state)
{
	site_fx *f = *state;
	char *t = page(f, "regressions.html");
	assert_non_null(strstr(t, "1.234x"));
	assert_non_null(strstr(t, "cells/k-sum-simd-1K.html"));
	assert_non_null(strstr(t, "compare&#47;a2key00000000000.html")); /* escaped: from the db */
	assert_null(strstr(t, "1.567x"));                             /* 1.1.0's: alpha's newest is 2.0.0 */
	assert_null(strstr(t, "cells/k-dot-simd-1K.html"));
	free(t);
}

typedef struct stamp {
	char *rel;
	struct timespec mtime;
} stamp;

static void stamps(const char *dir, const char *rel, stamp **out, size_t *n)
{
	char *path = bv_asprintf("%s/%s", dir, rel);
	DIR *d = opendir(path);
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *sub = *rel ? bv_asprintf("%s/%s", rel, e->d_name) : bv_strdup(e->d_name);
		char *full = bv_asprintf("%s/%s", dir, sub);
		struct stat st;
		assert_int_equal(lstat(full, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			stamps(dir, sub, out, n);
			free(sub);
		} else {
			*out = bv_xrealloc(*out, (*n + 1) * sizeof(**out));
			(*out)[(*n)++] = (stamp){sub, st.st_mtim};
		}
		free(full);
	}
	closedir(d);
	free(path);
}

static void a_second_write_changes_nothing(void **state)
{
	site_fx *f = *state;
	stamp *before = NULL, *after = NULL;
	size_t nb = 0, na = 0;
	stamps(f->dir, "", &before, &nb);
	/* Back-date every file: a rewrite, even within the clock's tick, shows. */
	for (size_t i = 0; i < nb; i++) {
		char *full = bv_asprintf("%s/%s", f->dir, before[i].rel);
		struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
		assert_int_equal(utimensat(AT_FDCWD, full, old, 0), 0);
		before[i].mtime = old[1];
		free(full);
	}
	/* A page of a cell the store no longer has goes; a dot-file stays. */
	test_write(f->dir, "cells/gone-x-y-1K.html", "old");
	test_write(f->dir, "data/cells/gone-x-y-1K.json", "old");
	test_write(f->dir, "cells/.keep", "");
	if (bv_site_write(f->db, f->dir, "bench-versions test " XSS))
		fail_msg("bv_site_write: %s", bv_error_last());
	char *keep = bv_asprintf("%s/cells/.keep", f->dir);
	assert_true(bv_exists(keep));
	assert_int_equal(unlink(keep), 0);
	free(keep);
	stamps(f->dir, "", &after, &na);
	assert_int_equal(na, nb); /* no temporary file left either, nor the stale pages */
	for (size_t i = 0; i < na; i++)
		if (after[i].mtime.tv_sec != 1000000000)
			fail_msg("a second write of the same store rewrote %s", after[i].rel);
	/* And a change in the store is written. */
	assert_int_equal(sqlite3_exec(f->db,
	                              "UPDATE cells SET median_ns = 60 WHERE run = 'a2key0000000000000000' "
	                              "AND op = 'sum'",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	assert_int_equal(bv_site_write(f->db, f->dir, "bench-versions test"), 0);
	struct stat st;
	char *cell = bv_asprintf("%s/cells/k-sum-simd-1K.html", f->dir);
	assert_int_equal(stat(cell, &st), 0);
	assert_true(st.st_mtim.tv_sec != 1000000000);
	free(cell);
	for (size_t i = 0; i < nb; i++)
		free(before[i].rel);
	for (size_t i = 0; i < na; i++)
		free(after[i].rel);
	free(before), free(after);
}

/* A refused upload is on quarantine.html and quarantine.json alone: every
 * other file keeps its bytes (and its mtime). */
static void a_refused_upload_changes_only_the_quarantine(void **state)
{
	site_fx *f = *state;
	stamp *before = NULL, *after = NULL;
	size_t nb = 0, na = 0;
	stamps(f->dir, "", &before, &nb);
	for (size_t i = 0; i < nb; i++) {
		char *full = bv_asprintf("%s/%s", f->dir, before[i].rel);
		struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
		assert_int_equal(utimensat(AT_FDCWD, full, old, 0), 0);
		free(full);
	}
	assert_int_equal(
	    sqlite3_exec(f->db,
	                 "INSERT INTO archives VALUES ('cd','2-x.tar.gz',10,'2026-03-03T00:00:00Z',"
	                 "'quarantined',NULL,'refused: the archive holds two runs')",
	                 NULL, NULL, NULL),
	    SQLITE_OK);
	if (bv_site_write(f->db, f->dir, "bench-versions test " XSS))
		fail_msg("bv_site_write: %s", bv_error_last());
	stamps(f->dir, "", &after, &na);
	assert_int_equal(na, nb);
	size_t changed = 0;
	for (size_t i = 0; i < na; i++) {
		int quarantine = strstr(after[i].rel, "quarantine.") != NULL;
		if ((after[i].mtime.tv_sec != 1000000000) != quarantine)
			fail_msg("a refused upload %s %s", quarantine ? "left alone" : "rewrote",
			         after[i].rel);
		changed += quarantine;
	}
	assert_int_equal(changed, 2);
	char *t = page(f, "quarantine.html");
	assert_non_null(strstr(t, "2-x.tar.gz"));
	free(t);
	for (size_t i = 0; i < nb; i++)
		free(before[i].rel);
	for (size_t i = 0; i < na; i++)
		free(after[i].rel);
	free(before), free(after);
}

static void safe_names(void **state)
{
	(void)state;
	char *n = bv_site_safe_name("a/b c", "k", 10);
	assert_int_equal(strlen(n), strlen("a_b_c-") + 10);
	assert_memory_equal(n, "a_b_c-", 6);
	free(n);
	n = bv_site_safe_name("..x", "k", 0);
	assert_string_equal(n, "_.x");
	free(n);
	char long_name[300];
	memset(long_name, 'y', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = 0;
	n = bv_site_safe_name(long_name, "k", 10);
	assert_true(strlen(n) <= 100);
	free(n);
	char *a = bv_site_safe_name("same", "key one", 10), *b = bv_site_safe_name("same", "key two", 10);
	assert_string_not_equal(a, b);
	free(a), free(b);
}

/* ---- change points (site_changes.c) ---------------------------------------- */

/* One cell, m add scalar 64K, on four classes, each with versions 1.0.0,
 * 1.1.0 and 2.0.0 (12 processes a paired run unless said):
 *  gamma: G1 paired all three; 1.1.0 is 1.0.0's speed, but each process's
 *    baseline was slow or fast (its ratios 0.8 and 1.25 in turn), and 2.0.0
 *    is 1.5x 1.1.0 in every process: one change point, 1.1.0 -> 2.0.0, at
 *    1.5x exactly (the baseline cancels process by process);
 *  delta: D1 compared 1.0.0 with 2.0.0 alone (3x slower, its verdict
 *    slower) and D2 measured 1.1.0 alone: no run paired 1.1.0 with either,
 *    so no step and no change point, whatever D1 said;
 *  eps: E1 paired all three, every ratio within 0.1 % of 1: none;
 *  zeta: Z1 paired 1.0.0 and 1.1.0 in 6 processes, 1.02x to 1.3x: its
 *    interval lies above the band but 6 processes are short of the
 *    evidence the page's control asks (an anytime-valid sign test at
 *    6 of 6 is about 0.07): none;
 *  eta: H1 paired all three, but its 1.1.0 in 16 processes and its 2.0.0
 *    (2x) in 12: not the same processes, so no step 1.1.0 -> 2.0.0. */
static void cp_rows(sqlite3 *db)
{
	static const struct {
		const char *key, *id, *cls, *base;
	} runs[] = {{"g1", "G1", "gamma", "1.0.0"},
	            {"d1", "D1", "delta", "1.0.0"},
	            {"d2", "D2", "delta", "1.1.0"},
	            {"e1", "E1", "eps", "1.0.0"},
	            {"z1", "Z1", "zeta", "1.0.0"},
	            {"h1", "H1", "eta", "1.0.0"}};
	static const char *const vers[] = {"1.0.0", "1.1.0", "2.0.0"};
	/* which versions each run measured (bits 1, 2, 4) */
	static const int measured[] = {7, 5, 2, 7, 3, 7};
	char *err = NULL;
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		char *sql = bv_asprintf("INSERT INTO runs VALUES ('%s','%s','2026-05-0%zuT00:00:00Z','%s','CPU-%s',"
		                        "'avx2','','h',8,NULL,'%s','paired',0.5,0,'x','compare/%s.html');",
		                        runs[r].key, runs[r].id, r + 1, runs[r].cls, runs[r].cls, runs[r].base,
		                        runs[r].key);
		if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
			fail_msg("%s: %s", sql, err);
		free(sql);
		for (int v = 0; v < 3; v++) {
			if (!(measured[r] & (1 << v)))
				continue;
			sql = bv_asprintf("INSERT INTO versions VALUES ('%s','%s',%d,'%s','git','c%d','%s',NULL);"
			                  "INSERT INTO cells VALUES ('%s','%s','m','add','scalar',65536,'64K','ok',"
			                  "NULL,%d,%d,%d);",
			                  runs[r].key, vers[v], v, vers[v], v, vers[v], runs[r].key, vers[v],
			                  100 + 50 * v, 95 + 50 * v, 105 + 50 * v);
			if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
				fail_msg("%s: %s", sql, err);
			free(sql);
		}
	}
	double g11[12], g20[12], d20[12], e11[12], e20[12], z11[6], h11[16], h20[12];
	for (int j = 0; j < 12; j++) {
		g11[j] = j % 2 ? 1.25 : 0.8;
		g20[j] = 1.5 * g11[j];
		d20[j] = 3.0 + 0.01 * (j % 3);
		e11[j] = 1.0 + 0.0005 * ((j % 3) - 1);
		e20[j] = 1.0 - 0.0005 * ((j % 3) - 1);
	}
	for (int j = 0; j < 6; j++)
		z11[j] = 1.02 + 0.056 * j;
	for (int j = 0; j < 16; j++)
		h11[j] = 1.0 + 0.0005 * ((j % 3) - 1), h20[j % 12] = 2.0 + 0.001 * (j % 5);
	static const struct {
		const char *run, *version, *verdict;
		int n;
	} ch[] = {{"g1", "1.1.0", "same", 12},   {"g1", "2.0.0", "slower", 12}, {"d1", "2.0.0", "slower", 12},
	          {"e1", "1.1.0", "same", 12},   {"e1", "2.0.0", "same", 12},   {"z1", "1.1.0", "slower", 6},
	          {"h1", "1.1.0", "same", 16},   {"h1", "2.0.0", "same", 12}};
	const double *pr[] = {g11, g20, d20, e11, e20, z11, h11, h20};
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_prepare_v2(db,
	                                    "INSERT INTO changes VALUES (?1, ?2, '1.0.0', 'm', 'add', 'scalar', "
	                                    "65536, ?3, ?3, ?3, ?4, 'paired', ?5)",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	for (size_t i = 0; i < sizeof(ch) / sizeof(ch[0]); i++) {
		size_t bytes = 0;
		unsigned char *blob = bv_site_ratios_blob(pr[i], (size_t)ch[i].n, &bytes);
		assert_non_null(blob);
		sqlite3_bind_text(st, 1, ch[i].run, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, ch[i].version, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 3, pr[i][0]);
		sqlite3_bind_text(st, 4, ch[i].verdict, -1, SQLITE_STATIC);
		sqlite3_bind_blob(st, 5, blob, (int)bytes, SQLITE_TRANSIENT);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
		free(blob);
	}
	sqlite3_finalize(st);
}

static int cp_setup(void **state)
{
	site_fx *f = bv_xcalloc(1, sizeof(*f));
	assert_int_equal(sqlite3_open(":memory:", &f->db), SQLITE_OK);
	char *err = NULL;
	int rc = sqlite3_exec(f->db, schema, NULL, NULL, &err);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(f->db, migrations_2_3, NULL, NULL, &err);
	if (rc != SQLITE_OK)
		fail_msg("the store: %s", err);
	cp_rows(f->db);
	f->dir = test_tmpdir();
	if (bv_site_write(f->db, f->dir, "bench-versions test"))
		fail_msg("bv_site_write: %s", bv_error_last());
	*state = f;
	return 0;
}

/* The change points of the series of class cls in data/cells/m-add-scalar-64K.json. */
static const cJSON *json_cps(const cJSON *doc, const char *cls)
{
	const cJSON *s;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(doc, "series")) if (
	    !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(s, "class")), cls)) return cJSON_GetObjectItem(s,
	                                                                                             "change_points");
	fail_msg("no series of class %s", cls);
	return NULL;
}

static void change_points_are_the_paired_steps(void **state)
{
	site_fx *f = *state;
	char *t = page(f, "cells/m-add-scalar-64K.html");
	/* one mark on the chart: gamma's, slower, between 1.1.0 and 2.0.0;
	 * its interval is the quotients', process by process */
	assert_int_equal(count(t, "<g class=\"cp\">"), 1);
	assert_int_equal(count(t, "fill=\"#cf222e\""), 1);
	assert_int_equal(count(t, "fill=\"#1a7f37\""), 0);
	assert_non_null(strstr(t, "<title>change point on gamma: 1.1.0 -&gt; 2.0.0, 1.50x [1.50, 1.50], slower, "
	                          "12 processes from 1 run</title>"));
	/* listed under gamma, and each other class says it has none */
	const char *g = strstr(t, "</span>gamma</h2>");
	assert_non_null(g);
	const char *list = strstr(g, "<h3>Change points</h3>");
	assert_non_null(list);
	assert_non_null(strstr(list, "<tr><td>1.1.0</td><td>2.0.0</td><td class=\"num\">1.500x</td>"
	                             "<td class=\"num\">1.500x - 1.500x</td><td class=\"slower\">slower</td>"
	                             "<td class=\"num\">12</td><td class=\"num\">1</td></tr>"));
	assert_int_equal(count(t, "<h3>Change points</h3>"), 5);
	/* delta: no run paired its steps (D1's 3x is 1.0.0 against 2.0.0) */
	const char *d = strstr(t, "</span>delta</h2>");
	assert_non_null(d);
	assert_non_null(strstr(d, "None: of the 2 steps between this class's versions, 0 were measured"));
	/* eta: 1.1.0 and 2.0.0 in different processes, only 1.0.0 -> 1.1.0 paired */
	const char *h = strstr(t, "</span>eta</h2>");
	assert_non_null(h);
	assert_non_null(strstr(h, "None: of the 2 steps between this class's versions, 1 was measured"));
	/* D1's and Z1's own verdicts stay, as the runs' claims */
	const char *v = strstr(t, "<h2>Paired verdicts</h2>");
	assert_non_null(v);
	assert_int_equal(count(v, "<td class=\"slower\">slower (paired)</td>"), 3);
	free(t);
	t = page(f, "data/cells/m-add-scalar-64K.json");
	cJSON *doc = cJSON_Parse(t);
	assert_non_null(doc);
	const cJSON *cps = json_cps(doc, "gamma");
	assert_int_equal(cJSON_GetArraySize(cps), 1);
	const cJSON *c = cJSON_GetArrayItem(cps, 0);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(c, "from")), "1.1.0");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(c, "to")), "2.0.0");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(c, "direction")), "slower");
	assert_true(fabs(cJSON_GetObjectItem(c, "ratio")->valuedouble - 1.5) < 1e-9);
	assert_int_equal(cJSON_GetObjectItem(c, "processes")->valueint, 12);
	assert_int_equal(cJSON_GetObjectItem(c, "runs")->valueint, 1);
	assert_int_equal(cJSON_GetArraySize(json_cps(doc, "delta")), 0);
	assert_int_equal(cJSON_GetArraySize(json_cps(doc, "eps")), 0);
	assert_int_equal(cJSON_GetArraySize(json_cps(doc, "zeta")), 0);
	assert_int_equal(cJSON_GetArraySize(json_cps(doc, "eta")), 0);
	cJSON_Delete(doc);
	free(t);
}

/* The processes' ratios as the store keeps them: a ratio that is not a
 * finite number > 0 makes none (NULL), and a blob that is not whole
 * doubles, or holds such a ratio, reads as none. */
static void process_ratios_round_trip(void **state)
{
	(void)state;
	double r[3] = {1.5, 0.75, 2.0};
	size_t bytes = 0, n = 0;
	unsigned char *b = bv_site_ratios_blob(r, 3, &bytes);
	assert_int_equal(bytes, 24);
	assert_int_equal(b[7], 0x3f); /* 1.5 little-endian: 00 .. 00 f8 3f */
	double *back = bv_site_ratios_read(b, bytes, &n);
	assert_int_equal(n, 3);
	assert_memory_equal(back, r, sizeof(r));
	free(back);
	assert_null(bv_site_ratios_read(b, 23, &n));
	memset(b + 8, 0, 8); /* a ratio of 0 */
	assert_null(bv_site_ratios_read(b, bytes, &n));
	free(b);
	r[1] = NAN;
	assert_null(bv_site_ratios_blob(r, 3, &bytes));
	r[1] = -1;
	assert_null(bv_site_ratios_blob(r, 3, &bytes));
	assert_null(bv_site_ratios_blob(r, 0, &bytes));
}

/* ---- the store (site_store.c) ---------------------------------------------- */

/* The schema as the first site store's code (bench-versions before
 * util/sqlite_db.c) wrote it, text for text: stores made by it exist, and
 * must open unchanged.  Kept here, not taken from site_store.c, so that an
 * edit of the migration there is caught. */
static const char old_schema_v1[] =
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

/* A store as that code made one: its schema in one transaction with its
 * application id and version, WAL, and one run imported.  Then extra
 * (NULL: nothing), as another program would add it. */
static char *old_store(const char *dir, const char *name, const char *extra)
{
	char *path = bv_asprintf("%s/%s", dir, name);
	sqlite3 *db = NULL;
	char *err = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, &err);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, old_schema_v1, NULL, NULL, &err);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(
		    db,
		    "PRAGMA application_id = 1112961897; PRAGMA user_version = 1; COMMIT;"
		    "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
		    "INSERT INTO runs VALUES ('a1key0000000000000000','A1','2026-01-01T00:00:00Z',"
		    "'alpha','CPU-A','avx2','','h',8,NULL,'1.0.0','paired',0.5,0,'x','p.html');",
		    NULL, NULL, &err);
	if (rc == SQLITE_OK && extra)
		rc = sqlite3_exec(db, extra, NULL, NULL, &err);
	if (rc != SQLITE_OK)
		fail_msg("%s: %s", path, err);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
	return path;
}

static char *file_bytes(const char *path, size_t *len)
{
	char *s = NULL;
	assert_int_equal(bv_read_file(path, 1 << 20, &s, len), 0);
	return s;
}

static void an_old_v1_store_opens(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	char *path = old_store(dir, "old.sqlite", NULL);
	bv_site_store *s = NULL;
	if (bv_site_store_open(path, &s))
		fail_msg("a store of the first site store's code: %s", bv_error_last());
	int known = 0;
	assert_int_equal(bv_site_run_known(s, "a1key0000000000000000", &known), 0);
	assert_true(known);
	/* migrated: versions has the tree column, changes the processes'
	 * ratios, the schema is the newest */
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_prepare_v2(s->db, "SELECT (SELECT user_version FROM pragma_user_version), "
	                                           "(SELECT count(*) FROM pragma_table_info('versions') "
	                                           "WHERE name = 'tree'), "
	                                           "(SELECT count(*) FROM pragma_table_info('changes') "
	                                           "WHERE name = 'proc_ratio' AND type = 'BLOB')",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 3);
	assert_int_equal(sqlite3_column_int(st, 1), 1);
	assert_int_equal(sqlite3_column_int(st, 2), 1);
	sqlite3_finalize(st);
	bv_site_store_close(s);
	/* and one made now opens again */
	char *fresh = bv_asprintf("%s/new.sqlite", dir);
	assert_int_equal(bv_site_store_open(fresh, &s), 0);
	bv_site_store_close(s);
	assert_int_equal(bv_site_store_open(fresh, &s), 0);
	bv_site_store_close(s);
	free(fresh), free(path);
	bv_rm_rf(dir);
	free(dir);
}

/* Our store, with one thing another program did to it: refused with
 * BV_EINPUT naming the file and the thing, its bytes as they were and no
 * -wal beside it.  A trigger or view would run in our statements, an index
 * or an altered table is not what the pages were written against. */
static void a_store_not_as_we_made_it_is_refused_untouched(void **state)
{
	(void)state;
	static const struct {
		const char *name, *sql, *want;
	} cases[] = {
	    {"table.sqlite", "CREATE TABLE extra (x)",
	     "the store holds table 'extra', which bench-versions does not create"},
	    {"trigger.sqlite", "CREATE TRIGGER t AFTER INSERT ON runs BEGIN DELETE FROM runs; END",
	     "the store holds trigger 't', which bench-versions does not create"},
	    {"view.sqlite", "CREATE VIEW v AS SELECT * FROM runs",
	     "the store holds view 'v', which bench-versions does not create"},
	    {"index.sqlite", "CREATE INDEX runs_by_id ON runs (id)",
	     "the store holds index 'runs_by_id', which bench-versions does not create"},
	    {"altered.sqlite", "ALTER TABLE runs ADD COLUMN extra TEXT",
	     "the store's table 'runs' is not as bench-versions creates it (its definition was changed)"},
	    {"dropped.sqlite", "DROP INDEX cells_by_cell",
	     "the store lacks index 'cells_by_cell', which bench-versions creates (schema 1)"},
	    {"newer.sqlite", "PRAGMA user_version = 4",
	     "store schema 4 is newer than this bench-versions reads (3); use a newer bench-versions"},
	    {"other.sqlite", "PRAGMA application_id = 1234",
	     "an SQLite database of another program (application id 1234)"},
	};
	char *dir = test_tmpdir();
	/* every case checked, each one that fails said: not only the first */
	int bad = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* out of WAL mode, as a copy another program made may be: a
		 * store switched to WAL before it is refused shows in its
		 * header's bytes */
		char *sql = bv_asprintf("%s; PRAGMA journal_mode = DELETE", cases[i].sql);
		char *path = old_store(dir, cases[i].name, sql);
		free(sql);
		size_t n0, n1;
		char *before = file_bytes(path, &n0);
		bv_site_store *s = NULL;
		int rc = bv_site_store_open(path, &s);
		const char *msg = bv_error_last();
		const char *why = rc != BV_EINPUT                   ? "not refused (BV_EINPUT)"
		                  : !strstr(msg, path)              ? "its message does not name the file"
		                  : !strstr(msg, cases[i].want)     ? "its message does not say what it holds"
		                  : !strstr(msg, "another --store") ? "its message does not say what to do"
		                                                    : NULL;
		bv_site_store_close(s);
		char *after = file_bytes(path, &n1);
		char *wal = bv_asprintf("%s-wal", path);
		struct stat st;
		if (!why && stat(wal, &st) == 0)
			why = "refused, but a -wal was left beside it";
		if (!why && (n0 != n1 || memcmp(before, after, n0)))
			why = "refused, but its bytes changed";
		if (why) {
			print_error("%s: %s (rc %d: %s; want '%s')\n", cases[i].name, why, rc,
			            rc ? msg : "opened", cases[i].want);
			bad++;
		}
		free(wal), free(before), free(after), free(path);
	}
	assert_int_equal(bad, 0);
	bv_rm_rf(dir);
	free(dir);
}

int test_site(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(every_page_is_written, setup, teardown),
	    cmocka_unit_test_setup_teardown(names_from_uploads_are_escaped, setup, teardown),
	    cmocka_unit_test_setup_teardown(the_script_is_allowed_by_its_hash, setup, teardown),
	    cmocka_unit_test_setup_teardown(versions_in_semver_order, setup, teardown),
	    cmocka_unit_test_setup_teardown(working_trees_are_versions_by_their_tree, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_cell_page_has_every_class, setup, teardown),
	    cmocka_unit_test_setup_teardown(backends_names_each_class_fastest, setup, teardown),
	    cmocka_unit_test_setup_teardown(regressions_are_the_newest_versions, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_second_write_changes_nothing, setup, teardown),
	    cmocka_unit_test_setup_teardown(a_refused_upload_changes_only_the_quarantine, setup, teardown),
	    cmocka_unit_test_setup_teardown(change_points_are_the_paired_steps, cp_setup, teardown),
	    cmocka_unit_test(process_ratios_round_trip),
	    cmocka_unit_test(safe_names),
	    cmocka_unit_test(an_old_v1_store_opens),
	    cmocka_unit_test(a_store_not_as_we_made_it_is_refused_untouched),
	};
	return test_run_group("site", tests, NULL, NULL);
}
