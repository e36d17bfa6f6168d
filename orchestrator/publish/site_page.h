/*
 * site_page.h - what the members of the site family (site.c, site_*.c)
 * share and nothing else sees: the store's runs, machine classes and
 * versions, loaded once (site.c) so that each page is one grouped query over
 * cells or changes plus lookups here, never a query per run or per cell; the
 * page frame (head with its Content-Security-Policy, foot); safe page names;
 * and the write that leaves a file alone when its bytes are unchanged
 * (site_page.c).
 */
#ifndef BV_SITE_PAGE_H
#define BV_SITE_PAGE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#define BV_SITE_NONE ((size_t)-1)

typedef struct bv_site_run {
	char *key, *id, *created, *cls_name, *cpu, *isa, *gpu, *hostname, *tool, *baseline, *method, *page;
	long long cpus;
	int has_cpus, has_load;
	double load_max;
	int loaded; /* 1 loaded, 0 quiet, -1 unknown */
	size_t cls; /* index in bv_site.classes */
	size_t nversions;
} bv_site_run;

/* A machine class is its name with its key (CPU, ISA, GPU): two uploads that
 * share a name but not the machine are two classes, never one series. */
typedef struct bv_site_class {
	char *name, *cpu, *isa, *gpu;
	size_t nruns, nloaded, nversions;
	size_t newest; /* the newest version (index in versions) it measured, or NONE */
	char *slug;    /* a safe id for anchors and CSS */
} bv_site_class;

/* A version as the site orders it: a label with its kernel_version and
 * commit (main measured a month apart is two versions); a working tree,
 * which has no commit, with its tree's hash (two people's `local` are two
 * versions unless their files are the same). */
typedef struct bv_site_version {
	char *label, *kernel_version, *commit, *tree, *kind, *first_seen;
	char *title; /* what the pages show: the label, with its commit (or tree) where the label is not unique */
	size_t nruns;
} bv_site_version;

/* (run, label) -> version, sorted for bsearch. */
typedef struct bv_site_vref {
	const char *run, *label;
	size_t version;
} bv_site_vref;

typedef struct bv_site_cell {
	char *bench, *op, *backend, *shape;
	long long size;
	char *name; /* the page's name without .html: safe, unique */
	size_t nrows;
} bv_site_cell;

typedef struct bv_site {
	sqlite3 *db;
	const char *dir, *publisher;
	bv_site_run *runs; /* sorted by key */
	size_t nruns;
	size_t *by_created; /* run indexes, oldest first */
	bv_site_class *classes;
	size_t nclasses;
	bv_site_version *versions; /* in the site's order: semver, label, first seen */
	size_t nversions;
	bv_site_vref *vrefs;
	size_t nvrefs;
	bv_site_cell *cells; /* sorted by bench, op, backend, size (bytes), as the queries order them */
	size_t ncells;
	char csp[160]; /* the Content-Security-Policy: the one inline script's sha256 */
} bv_site;

extern const char bv_site_script[]; /* the index's filter (site_index.c) */

/* Loading (site.c). */
int bv_site_prepare(bv_site *s, const char *sql, sqlite3_stmt **st);
int bv_site_step_error(bv_site *s, const char *what);
const char *bv_site_col(sqlite3_stmt *st, int i); /* "" for NULL */
char *bv_site_coldup(sqlite3_stmt *st, int i);    /* NULL for NULL */
bv_site_run *bv_site_run_find(const bv_site *s, const char *key);
size_t bv_site_version_of(const bv_site *s, const char *run, const char *label);
size_t bv_site_cell_find(const bv_site *s, const char *bench, const char *op, const char *backend,
                         long long size);

/* The CSP into s->csp: the sha256 of bv_site_script, base64 (site_page.c). */
void bv_site_csp_init(bv_site *s);

/* Pages (site_page.c).  A page is written into memory, then put. */
typedef struct bv_site_page {
	FILE *out;
	char *buf;
	size_t len;
} bv_site_page;
void bv_site_page_open(bv_site_page *p);
/* The head: doctype, CSP, title, style, the navigation; up is "" for a page
 * at the top, "../" for one in cells/. */
void bv_site_head(const bv_site *s, FILE *out, const char *title, const char *up);
void bv_site_foot(const bv_site *s, FILE *out);
int bv_site_page_put(bv_site *s, bv_site_page *p, const char *rel);
int bv_site_mkdir(bv_site *s, const char *rel); /* site_dir/rel, no link followed */
int bv_site_put(bv_site *s, const char *rel, const char *data, size_t len);
int bv_site_json_put(bv_site *s, const char *rel, cJSON *doc); /* frees doc */
void bv_site_esc(FILE *out, const char *s);
/* A time in ns as people read it: "18.6 us", "1.25 ms". */
void bv_site_time(double ns, char *buf, size_t len);
/* The run's link and its id, escaped; up as for the head. */
void bv_site_run_link(FILE *out, const bv_site_run *r, const char *up);
/* "quiet (load 0.9)", "loaded (load 5.2 on 2 cpus)", "load not recorded". */
void bv_site_load_words(const bv_site_run *r, char *buf, size_t len);
/* A page name from names an upload chose: only [A-Za-z0-9._+-], no leading
 * dot, at most 100 characters; hash: append a short hash of key (the name
 * was changed, too long, or not unique). */
char *bv_site_safe_name(const char *raw, const char *key, int hash_hex);
void bv_site_sha256_hex(const void *data, size_t len, char out[65]);
void bv_site_class_colour(size_t cls, char *buf, size_t len);
cJSON *bv_site_json_str(const char *s); /* null for NULL */

/* The writers, one per kind of page (site_<kind>.c). */
int bv_site_index(bv_site *s);
int bv_site_cells_write(bv_site *s);
int bv_site_backends(bv_site *s);
int bv_site_regressions(bv_site *s);
int bv_site_quarantine(bv_site *s);
int bv_site_data(bv_site *s); /* index.json, classes.json, runs.json */

/* The chart of one cell (site_chart.c): per class a series over the versions. */
typedef struct bv_site_point {
	int has;
	double median, lo, hi; /* ns */
	const char *run_id;
} bv_site_point;
/* A change point of a class's series (site_changes.h): between versions
 * from and to (indexes in bv_site.versions; adjacent in the class's series
 * for a single step, the span's ends for a gradual one), at jfrom and jto
 * on the chart.  nproc and nruns: the processes and runs that paired its
 * step (a gradual one: the fewest of any of its steps). */
typedef struct bv_site_cp {
	size_t from, to, jfrom, jto;
	double ratio, lo, hi;
	int dir; /* 1 slower, -1 faster */
	int gradual;
	size_t nproc, nruns;
} bv_site_cp;
typedef struct bv_site_series {
	size_t cls;             /* class index: its colour and name */
	const bv_site_point *p; /* one per chart version */
	const bv_site_cp *cp;   /* its change points */
	size_t ncp;
} bv_site_series;
void bv_site_chart(const bv_site *s, FILE *out, const char *what, const size_t *versions, size_t nv,
                   const bv_site_series *series, size_t nseries);

#endif
