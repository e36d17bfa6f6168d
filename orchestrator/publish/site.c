/*
 * site.c - bv_site_write (site.h): loads what every page needs from the
 * store once (runs, machine classes, versions in the site's order, the list
 * of cells with their page names), then has each kind of page written
 * (site_<kind>.c).
 *
 * Why load first: the scale the site is built for is about a thousand runs
 * from ten classes; a page that asked the db per run or per cell would make
 * a publish O(runs x cells) queries.  Here each table is read once, and each
 * page is one grouped query plus lookups into these arrays.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "semver.h"
#include "site.h"
#include "site_page.h"

int bv_site_prepare(bv_site *s, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return bv_fail(BV_EINPUT, "the site's store cannot answer a query of the site: %s",
		               sqlite3_errmsg(s->db));
	return 0;
}

int bv_site_step_error(bv_site *s, const char *what)
{
	return bv_fail(BV_ERUN, "reading %s from the site's store: %s", what, sqlite3_errmsg(s->db));
}

const char *bv_site_col(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? (const char *)t : "";
}

char *bv_site_coldup(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NULL : bv_strdup(bv_site_col(st, i));
}

static int run_cmp_key(const void *k, const void *e)
{
	return strcmp(k, ((const bv_site_run *)e)->key);
}

bv_site_run *bv_site_run_find(const bv_site *s, const char *key)
{
	return s->nruns ? bsearch(key, s->runs, s->nruns, sizeof(*s->runs), run_cmp_key) : NULL;
}

static int vref_cmp(const void *a, const void *b)
{
	const bv_site_vref *x = a, *y = b;
	int c = strcmp(x->run, y->run);
	return c ? c : strcmp(x->label, y->label);
}

size_t bv_site_version_of(const bv_site *s, const char *run, const char *label)
{
	bv_site_vref k = {run, label, 0};
	bv_site_vref *v = s->nvrefs ? bsearch(&k, s->vrefs, s->nvrefs, sizeof(k), vref_cmp) : NULL;
	return v ? v->version : BV_SITE_NONE;
}

static int cell_cmp4(const bv_site_cell *c, const char *bench, const char *op, const char *backend,
                     long long size)
{
	int r = strcmp(c->bench, bench);
	if (!r)
		r = strcmp(c->op, op);
	if (!r)
		r = strcmp(c->backend, backend);
	if (!r)
		r = c->size < size ? -1 : c->size > size;
	return r;
}

size_t bv_site_cell_find(const bv_site *s, const char *bench, const char *op, const char *backend,
                         long long size)
{
	size_t lo = 0, hi = s->ncells;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cell_cmp4(&s->cells[mid], bench, op, backend, size);
		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return BV_SITE_NONE;
}

/* ---- runs and classes ---------------------------------------------------- */

static size_t class_of(bv_site *s, const bv_site_run *r)
{
	for (size_t i = 0; i < s->nclasses; i++) {
		bv_site_class *c = &s->classes[i];
		if (!strcmp(c->name, r->cls_name) && !strcmp(c->cpu, r->cpu) && !strcmp(c->isa, r->isa) &&
		    !strcmp(c->gpu, r->gpu))
			return i;
	}
	s->classes = bv_xrealloc(s->classes, (s->nclasses + 1) * sizeof(*s->classes));
	bv_site_class *c = &s->classes[s->nclasses];
	*c = (bv_site_class){bv_strdup(r->cls_name),
	                     bv_strdup(r->cpu),
	                     bv_strdup(r->isa),
	                     bv_strdup(r->gpu),
	                     0,
	                     0,
	                     0,
	                     BV_SITE_NONE,
	                     NULL};
	c->slug = bv_asprintf("c%zu", s->nclasses);
	return s->nclasses++;
}

static const bv_site *sort_site; /* qsort has no context argument */

static int by_created_cmp(const void *a, const void *b)
{
	const bv_site_run *x = &sort_site->runs[*(const size_t *)a],
	                  *y = &sort_site->runs[*(const size_t *)b];
	int c = strcmp(x->created, y->created);
	return c ? c : strcmp(x->key, y->key);
}

static int load_runs(bv_site *s)
{
	sqlite3_stmt *st;
	int rc =
	    bv_site_prepare(s,
	                    "SELECT key, id, created, class, cpu, isa, gpu, hostname, cpus, tool, baseline, "
	                    "method, load_max, loaded, page FROM runs ORDER BY key",
	                    &st);
	if (rc)
		return rc;
	size_t cap = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (s->nruns == cap)
			cap = cap ? 2 * cap : 64, s->runs = bv_xrealloc(s->runs, cap * sizeof(*s->runs));
		bv_site_run *r = &s->runs[s->nruns++];
		memset(r, 0, sizeof(*r));
		r->key = bv_strdup(bv_site_col(st, 0)), r->id = bv_strdup(bv_site_col(st, 1));
		r->created = bv_strdup(bv_site_col(st, 2)), r->cls_name = bv_strdup(bv_site_col(st, 3));
		r->cpu = bv_strdup(bv_site_col(st, 4)), r->isa = bv_strdup(bv_site_col(st, 5));
		r->gpu = bv_strdup(bv_site_col(st, 6)), r->hostname = bv_site_coldup(st, 7);
		/* A number, or unknown: a text there ('' from a careless import) is no load. */
		r->has_cpus = sqlite3_column_type(st, 8) == SQLITE_INTEGER,
		r->cpus = sqlite3_column_int64(st, 8);
		r->tool = bv_site_coldup(st, 9), r->baseline = bv_strdup(bv_site_col(st, 10));
		r->method = bv_strdup(bv_site_col(st, 11));
		r->has_load = sqlite3_column_type(st, 12) == SQLITE_FLOAT ||
		              sqlite3_column_type(st, 12) == SQLITE_INTEGER;
		r->load_max = sqlite3_column_double(st, 12);
		r->loaded = sqlite3_column_type(st, 13) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 13) != 0;
		r->page = bv_strdup(bv_site_col(st, 14));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return bv_site_step_error(s, "the runs");
	s->by_created = bv_xcalloc(s->nruns + 1, sizeof(size_t));
	for (size_t i = 0; i < s->nruns; i++) {
		bv_site_run *r = &s->runs[i];
		r->cls = class_of(s, r);
		s->classes[r->cls].nruns++;
		s->classes[r->cls].nloaded += r->loaded == 1;
		s->by_created[i] = i;
	}
	sort_site = s;
	qsort(s->by_created, s->nruns, sizeof(size_t), by_created_cmp);
	return 0;
}

/* ---- versions ------------------------------------------------------------ */

typedef struct vrow {
	char *run, *label, *kv, *commit, *tree, *kind;
	const char *created;
	size_t version;
} vrow;

static int vrow_key_cmp(const void *a, const void *b)
{
	const vrow *x = a, *y = b;
	int c = strcmp(x->label, y->label);
	if (!c)
		c = strcmp(x->kv ? x->kv : "", y->kv ? y->kv : "");
	if (!c)
		c = strcmp(x->commit ? x->commit : "", y->commit ? y->commit : "");
	if (!c)
		c = strcmp(x->tree ? x->tree : "", y->tree ? y->tree : "");
	return c;
}

/* The site's order: semver of kernel_version (versions without one after
 * those with), then the label, then when first seen, then the commit (or
 * the tree). */
static int version_order(const void *a, const void *b)
{
	const bv_site_version *x = a, *y = b;
	bv_semver sx, sy;
	int px = x->kernel_version && !bv_semver_parse(x->kernel_version, &sx);
	int py = y->kernel_version && !bv_semver_parse(y->kernel_version, &sy);
	if (px != py)
		return py - px;
	int c = px ? bv_semver_cmp(&sx, &sy) : 0;
	if (!c)
		c = strcmp(x->label, y->label);
	if (!c)
		c = strcmp(x->first_seen, y->first_seen);
	if (!c)
		c = strcmp(x->commit ? x->commit : "", y->commit ? y->commit : "");
	if (!c)
		c = strcmp(x->tree ? x->tree : "", y->tree ? y->tree : "");
	if (!c)
		c = strcmp(x->kernel_version ? x->kernel_version : "",
		           y->kernel_version ? y->kernel_version : "");
	return c;
}

static void version_titles(bv_site *s)
{
	for (size_t i = 0; i < s->nversions; i++) {
		bv_site_version *v = &s->versions[i];
		int unique = 1;
		for (size_t j = 0; j < s->nversions && unique; j++)
			unique = j == i || strcmp(s->versions[j].label, v->label);
		if (unique)
			v->title = bv_strdup(v->label);
		else if (v->commit)
			v->title = bv_asprintf("%s@%.7s", v->label, v->commit);
		else if (v->tree)
			v->title = bv_asprintf("%s (tree %.7s)", v->label, v->tree);
		else
			v->title =
			    bv_asprintf("%s (%s)", v->label, v->kernel_version ? v->kernel_version : "?");
	}
}

static int read_vrows(bv_site *s, vrow **out, size_t *n)
{
	sqlite3_stmt *st;
	int rc = bv_site_prepare(
	    s, "SELECT run, label, kernel_version, commit_id, kind, tree FROM versions ORDER BY run, label", &st);
	if (rc)
		return rc;
	size_t cap = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		bv_site_run *r = bv_site_run_find(s, bv_site_col(st, 0));
		if (!r)
			continue; /* a version of no run: the import is the place to refuse it */
		if (*n == cap)
			cap = cap ? 2 * cap : 64, *out = bv_xrealloc(*out, cap * sizeof(**out));
		(*out)[(*n)++] = (vrow){r->key,
		                        bv_strdup(bv_site_col(st, 1)),
		                        bv_site_coldup(st, 2),
		                        bv_site_coldup(st, 3),
		                        /* a tree names a version only where no commit does */
		                        sqlite3_column_type(st, 3) == SQLITE_NULL ? bv_site_coldup(st, 5) : NULL,
		                        bv_site_coldup(st, 4),
		                        r->created,
		                        0};
		r->nversions++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : bv_site_step_error(s, "the versions");
}

static int version_perm_cmp(const void *a, const void *b)
{
	return version_order(&sort_site->versions[*(const size_t *)a],
	                     &sort_site->versions[*(const size_t *)b]);
}

/* The distinct versions of rows (sorted by key) into s->versions, in the
 * site's order; each row's version is its rank there. */
static void order_versions(bv_site *s, vrow *rows, size_t n)
{
	bv_site_version *uniq = bv_xcalloc(n + 1, sizeof(*uniq));
	size_t nu = 0;
	for (size_t i = 0; i < n; i++) {
		if (!i || vrow_key_cmp(&rows[i - 1], &rows[i]))
			uniq[nu++] = (bv_site_version){
			    rows[i].label, rows[i].kv, rows[i].commit, rows[i].tree, rows[i].kind, (char *)rows[i].created,
			    NULL,          0};
		else
			free(rows[i].label), free(rows[i].kv), free(rows[i].commit), free(rows[i].tree),
			    free(rows[i].kind);
		bv_site_version *v = &uniq[nu - 1];
		if (strcmp(rows[i].created, v->first_seen) < 0)
			v->first_seen = (char *)rows[i].created;
		v->nruns++;
		/* The row now names the version's strings (its own copies, if
		 * any, were freed above): the next comparison reads them. */
		rows[i].label = v->label, rows[i].kv = v->kernel_version, rows[i].commit = v->commit;
		rows[i].tree = v->tree;
		rows[i].kind = NULL, rows[i].version = nu - 1;
	}
	size_t *perm = bv_xcalloc(nu + 1, sizeof(size_t)), *rank = bv_xcalloc(nu + 1, sizeof(size_t));
	for (size_t i = 0; i < nu; i++)
		perm[i] = i;
	s->versions = uniq; /* for the comparison */
	sort_site = s;
	qsort(perm, nu, sizeof(size_t), version_perm_cmp);
	s->versions = bv_xcalloc(nu + 1, sizeof(*s->versions));
	for (size_t j = 0; j < nu; j++)
		s->versions[j] = uniq[perm[j]], rank[perm[j]] = j;
	s->nversions = nu;
	for (size_t i = 0; i < n; i++)
		rows[i].version = rank[rows[i].version];
	free(uniq), free(perm), free(rank);
}

static int load_versions(bv_site *s)
{
	vrow *rows = NULL;
	size_t n = 0;
	int rc = read_vrows(s, &rows, &n);
	if (rc)
		return rc;
	if (n) /* qsort of NULL, even of none, is undefined */
		qsort(rows, n, sizeof(*rows), vrow_key_cmp);
	order_versions(s, rows, n);
	version_titles(s);
	unsigned char *seen = bv_xcalloc(s->nclasses * s->nversions + 1, 1);
	s->vrefs = bv_xcalloc(n + 1, sizeof(*s->vrefs));
	for (size_t i = 0; i < n; i++) {
		size_t v = rows[i].version;
		bv_site_run *r = bv_site_run_find(s, rows[i].run);
		s->vrefs[s->nvrefs++] = (bv_site_vref){r->key, rows[i].label, v};
		bv_site_class *c = &s->classes[r->cls];
		if (c->newest == BV_SITE_NONE || v > c->newest)
			c->newest = v;
		if (!seen[r->cls * s->nversions + v])
			seen[r->cls * s->nversions + v] = 1, c->nversions++;
	}
	qsort(s->vrefs, s->nvrefs, sizeof(*s->vrefs), vref_cmp);
	free(seen);
	free(rows);
	return 0;
}

/* ---- cells and their page names ------------------------------------------ */

/* A string that names one cell alone (lengths before the names): what its
 * page name's hash is taken of. */
static char *cell_key(const bv_site_cell *c)
{
	return bv_asprintf("%zu:%s%zu:%s%zu:%s%lld", strlen(c->bench), c->bench, strlen(c->op), c->op,
	                   strlen(c->backend), c->backend, c->size);
}

static int cell_name_cmp(const void *a, const void *b)
{
	return strcmp(((const bv_site_cell *)a)->name, ((const bv_site_cell *)b)->name);
}

static int name_cmp(const void *a, const void *b)
{
	const bv_site_cell *x = &sort_site->cells[*(const size_t *)a],
	                   *y = &sort_site->cells[*(const size_t *)b];
	return strcmp(x->name, y->name);
}

/* Each cell's page name: the plain name where it is safe as it is, unique
 * and short, so that the usual cell's address reads as what it is; else the
 * name with a hash of the cell's key, longer each round, until no two cells
 * share a name (the last round's names are 64 hex digits of distinct keys). */
static void name_cells(bv_site *s)
{
	static const int rounds[] = {0, 10, 16, 64};
	unsigned char *hash = bv_xcalloc(s->ncells + 1, 1);
	size_t *ord = bv_xcalloc(s->ncells + 1, sizeof(size_t));
	for (int round = 0; round < 4; round++) {
		int dup = 0;
		for (size_t i = 0; i < s->ncells; i++) {
			bv_site_cell *c = &s->cells[i];
			if (round && !hash[i])
				continue;
			char *raw = bv_asprintf("%s-%s-%s-%s", c->bench, c->op, c->backend, c->shape);
			char *key = cell_key(c);
			free(c->name);
			c->name = bv_site_safe_name(raw, key, round ? rounds[round] : 0);
			if (!round && (strcmp(c->name, raw) || strlen(raw) > 100))
				free(c->name), c->name = bv_site_safe_name(raw, key, rounds[1]), hash[i] = 1;
			free(raw), free(key);
			ord[i] = i;
		}
		sort_site = s;
		qsort(ord, s->ncells, sizeof(size_t), name_cmp);
		memset(hash, 0, s->ncells);
		for (size_t i = 1; i < s->ncells; i++)
			if (!strcmp(s->cells[ord[i - 1]].name, s->cells[ord[i]].name))
				hash[ord[i - 1]] = hash[ord[i]] = 1, dup = 1;
		if (!dup)
			break;
	}
	free(hash), free(ord);
}

static int load_cells(bv_site *s)
{
	sqlite3_stmt *st;
	int rc = bv_site_prepare(s,
	                         "SELECT bench, op, backend, size, min(shape), count(*) FROM cells "
	                         "GROUP BY bench, op, backend, size ORDER BY bench, op, backend, size",
	                         &st);
	if (rc)
		return rc;
	size_t cap = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (s->ncells == cap)
			cap = cap ? 2 * cap : 64, s->cells = bv_xrealloc(s->cells, cap * sizeof(*s->cells));
		s->cells[s->ncells++] =
		    (bv_site_cell){bv_strdup(bv_site_col(st, 0)),      bv_strdup(bv_site_col(st, 1)),
		                   bv_strdup(bv_site_col(st, 2)),      bv_strdup(bv_site_col(st, 4)),
		                   sqlite3_column_int64(st, 3),        NULL,
		                   (size_t)sqlite3_column_int64(st, 5)};
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return bv_site_step_error(s, "the cells");
	name_cells(s);
	return 0;
}

static void site_free(bv_site *s)
{
	for (size_t i = 0; i < s->nruns; i++) {
		bv_site_run *r = &s->runs[i];
		free(r->key), free(r->id), free(r->created), free(r->cls_name), free(r->cpu), free(r->isa);
		free(r->gpu), free(r->hostname), free(r->tool), free(r->baseline), free(r->method),
		    free(r->page);
	}
	for (size_t i = 0; i < s->nclasses; i++) {
		bv_site_class *c = &s->classes[i];
		free(c->name), free(c->cpu), free(c->isa), free(c->gpu), free(c->slug);
	}
	for (size_t i = 0; i < s->nversions; i++) {
		bv_site_version *v = &s->versions[i];
		free(v->label), free(v->kernel_version), free(v->commit), free(v->tree), free(v->kind),
		    free(v->title);
	}
	for (size_t i = 0; i < s->ncells; i++) {
		bv_site_cell *c = &s->cells[i];
		free(c->bench), free(c->op), free(c->backend), free(c->shape), free(c->name);
	}
	free(s->runs), free(s->by_created), free(s->classes), free(s->versions), free(s->vrefs),
	    free(s->cells);
}

static int by_name(const void *k, const void *e)
{
	return strcmp(k, ((const bv_site_cell *)e)->name);
}

/* Removes from site_dir/rel the files of cells the site no longer has (a
 * cell whose name took a hash when a namesake arrived): the site shows the
 * store, nothing older.  Only plain files named NAME.ext, none a dot-file. */
static int prune(bv_site *s, const char *rel, const char *ext)
{
	char *dir = bv_asprintf("%s/%s", s->dir, rel);
	DIR *d = opendir(dir);
	int rc = d ? 0 : bv_fail(BV_ERUN, "cannot read %s: %s", dir, strerror(errno));
	bv_site_cell *sorted = bv_xcalloc(s->ncells + 1, sizeof(*sorted));
	memcpy(sorted, s->cells, s->ncells * sizeof(*sorted));
	if (s->ncells)
		qsort(sorted, s->ncells, sizeof(*sorted), cell_name_cmp);
	for (struct dirent *e; !rc && (e = readdir(d));) {
		size_t n = strlen(e->d_name), x = strlen(ext);
		if (e->d_name[0] == '.' || n <= x || strcmp(e->d_name + n - x, ext))
			continue;
		char *name = bv_asprintf("%.*s", (int)(n - x), e->d_name);
		if (!s->ncells || !bsearch(name, sorted, s->ncells, sizeof(*sorted), by_name)) {
			char *path = bv_asprintf("%s/%s", dir, e->d_name);
			if (unlink(path) && errno != ENOENT)
				rc = bv_fail(BV_ERUN,
				             "cannot remove %s, a page of a cell no longer in the store: %s",
				             path, strerror(errno));
			free(path);
		}
		free(name);
	}
	if (d)
		closedir(d);
	free(sorted), free(dir);
	return rc;
}

int bv_site_write(sqlite3 *db, const char *site_dir, const char *publisher)
{
	bv_site s;
	memset(&s, 0, sizeof(s));
	s.db = db, s.dir = site_dir, s.publisher = publisher ? publisher : "bench-versions";
	bv_site_csp_init(&s);
	int rc = load_runs(&s);
	if (!rc)
		rc = load_versions(&s);
	if (!rc)
		rc = load_cells(&s);
	/* Each writer makes the folders it writes into (cells/, data/). */
	int (*const writers[])(bv_site *) = {bv_site_index,       bv_site_cells_write, bv_site_backends,
	                                     bv_site_regressions, bv_site_quarantine,  bv_site_data};
	for (size_t i = 0; !rc && i < sizeof(writers) / sizeof(writers[0]); i++)
		rc = writers[i](&s);
	if (!rc)
		rc = prune(&s, "cells", ".html");
	if (!rc)
		rc = prune(&s, "data/cells", ".json");
	site_free(&s);
	return rc;
}
