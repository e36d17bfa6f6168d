/*
 * shard.c - the matrix cut into shards (the cut itself: plan.c; each
 * shard's plan: planner.c), the plan id, and the shards' join (shard.h).
 *
 * Why shards are cut this way:
 *
 * - Every version is in every shard.  A ratio is only as good as its
 *   pairing (docs/measurement.md: two byte-identical builds timed in
 *   different processes differ by up to 2x here), so a shard is a slice of
 *   the cells, never of the versions.
 * - The cut depends on the cells and the method alone: every node computes
 *   it for itself from the same command line, so no scheduler has to hand
 *   out cell lists, and a node with a GPU cuts the matrix as one without.
 *   Costs are whole milliseconds so that the sums, and the ties, are the same
 *   on every machine.
 * - Balanced by expected time, not by count: a 16M-element cell writes its
 *   inputs in every process and may not fit its processes into its budget,
 *   where a 1K one always does.
 */
#include "shard.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "build.h"
#include "common.h"
#include "fs.h"
#include "hash.h"
#include "json.h"
#include "merge.h"
#include "plan.h"
#include "results.h"
#include "status.h"
#include "table.h"

int bv_shard_parse(const char *text, int *index, int *count)
{
	const char *want = "expected I/N, two whole numbers with 1 <= I <= N (e.g. 2/5)";
	char *shown = bv_escape(text ? text : "");
	int rc = 0;
	long v[2] = {0, 0};
	const char *p = text ? text : "";
	for (int k = 0; k < 2 && rc == 0; k++) {
		/* digits only: strtol would take a sign, spaces and 0x */
		if (*p < '0' || *p > '9') {
			rc = BV_EINPUT;
			break;
		}
		long x = 0;
		while (*p >= '0' && *p <= '9' && x <= BV_SHARDS_MAX)
			x = x * 10 + (*p++ - '0');
		if (*p >= '0' && *p <= '9') /* too many digits for any plan */
			x = BV_SHARDS_MAX + 1;
		while (*p >= '0' && *p <= '9')
			p++;
		v[k] = x;
		if (k == 0 && *p++ != '/')
			rc = BV_EINPUT;
	}
	if (rc == 0 && *p)
		rc = BV_EINPUT;
	if (rc)
		rc = bv_fail(BV_EINPUT, "--shard '%s': %s", shown, want);
	else if (v[1] < 1 || v[1] > BV_SHARDS_MAX)
		rc = bv_fail(BV_EINPUT, "--shard '%s': N must be 1 to %d", shown, BV_SHARDS_MAX);
	else if (v[0] < 1 || v[0] > v[1])
		rc = bv_fail(BV_EINPUT, "--shard '%s': I must be 1 to %ld (shards are numbered from 1)",
		             shown, v[1]);
	free(shown);
	if (rc == 0)
		*index = (int)v[0], *count = (int)v[1];
	return rc;
}

/* ---- the plan ------------------------------------------------------------ */

void bv_plan_id(const cJSON *plan, char out[17])
{
	/* The fields that define the plan, printed unformatted: cJSON prints
	 * numbers and escapes strings the same way every time. */
	static const char *const keys[] = {"count", "versions", "cells", "method", NULL};
	bv_buf b = BV_BUF_INIT;
	bv_buf_puts(&b, "bench-versions plan 1\n");
	for (int k = 0; keys[k]; k++) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(plan, keys[k]);
		char *text = f ? cJSON_PrintUnformatted(f) : NULL;
		bv_buf_printf(&b, "%s %s\n", keys[k], text ? text : "null");
		free(text);
	}
	char full[41];
	bv_hash_bytes(b.s, b.len, full);
	bv_buf_free(&b);
	memcpy(out, full, 16);
	out[16] = '\0';
}

/* ---- joining the shards' logs --------------------------------------------- */

/* One shard as found: its directory's logs, in the plan's version order. */
typedef struct shard_in {
	const char *dir;
	char **paths; /* its logs, the plan's version order */
	size_t n;
	cJSON **docs;          /* loaded one version at a time (load_version) */
	cJSON *plan, *machine; /* copies of the first log's shard and machine blocks */
	char id[17];           /* the plan id */
	int index, count;
} shard_in;

static void shard_in_free(shard_in *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->paths[i]);
		if (s->docs)
			cJSON_Delete(s->docs[i]);
	}
	free(s->paths), free(s->docs);
	cJSON_Delete(s->plan), cJSON_Delete(s->machine);
	memset(s, 0, sizeof(*s));
}

static int whole_in(const cJSON *o, const char *key, double lo, double hi, int *out)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble < lo || x->valuedouble > hi ||
	    x->valuedouble != floor(x->valuedouble))
		return -1;
	*out = (int)x->valuedouble;
	return 0;
}

/* A shard block is hostile input like the rest of a log: its shape, then
 * its id against its own fields, so a block edited by hand (or a log cut
 * short and patched) cannot pass for a shard of the plan. */
static int plan_check(const char *path, const cJSON *plan, int need_index, int *index, int *count)
{
	char *where = bv_escape(path);
	int rc = 0;
	const char *what = NULL;
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(plan, "id");
	const cJSON *vs = cJSON_GetObjectItemCaseSensitive(plan, "versions");
	const cJSON *cells = cJSON_GetObjectItemCaseSensitive(plan, "cells");
	const cJSON *x;
	*index = 0;
	if (!cJSON_IsObject(plan))
		what = "no shard block (its run was not a shard: run ... --shard I/N)";
	else if (!cJSON_IsString(id) || strlen(id->valuestring) != 16 ||
	         strspn(id->valuestring, "0123456789abcdef") != 16)
		what = "shard.id is not a plan id (16 hex digits)";
	else if (whole_in(plan, "count", 1, BV_SHARDS_MAX, count))
		what = "shard.count is not a whole number from 1 to 10000";
	else if (need_index && whole_in(plan, "index", 1, *count, index))
		what = "shard.index is not a whole number from 1 to shard.count";
	else if (!cJSON_IsArray(vs) || cJSON_GetArraySize(vs) < 1)
		what = "shard.versions is not a list of versions";
	else if (!cJSON_IsArray(cells))
		what = "shard.cells is not a list of cells";
	else if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(plan, "method")))
		what = "shard.method is not an object";
	cJSON_ArrayForEach(x, vs) if (!what &&
	                              (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(x, "label")) ||
	                               !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(x, "build_key"))))
	    what = "shard.versions[] needs a label and a build_key";
	cJSON_ArrayForEach(x, cells) if (!what && !cJSON_IsString(x)) what =
	    "shard.cells[] are not cell names";
	if (!what) {
		char again[17];
		bv_plan_id(plan, again);
		if (strcmp(again, id->valuestring))
			what = "its shard block does not match its plan id (edited, or not written by "
			       "bench-versions)";
	}
	if (what)
		rc = bv_fail(BV_EINPUT, "%s: %s", where, what);
	free(where);
	return rc;
}

static const char *ver_label(const cJSON *plan, size_t k)
{
	return bv_json_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(plan, "versions"), (int)k),
	                   "label");
}

/* Log v of shard sh into sh->docs[v], checked: a results log (the one
 * loader), a shard block true to its plan id, of the same plan and I/N as
 * the shard's first log, and the plan's version v.  The join loads one
 * version's logs at a time (a full matrix's logs of every version and
 * shard, parsed at once, took several times their size). */
/* sh->docs[v] is the plan's version v (run's file order is the plan's). */
static int check_label(const shard_in *sh, size_t v)
{
	const char *label = ver_label(sh->plan, v);
	const char *got = bv_json_str(cJSON_GetObjectItemCaseSensitive(sh->docs[v], "version"), "label");
	if (label && got && !strcmp(got, label))
		return 0;
	char *d = bv_escape(sh->dir), *l = bv_escape(label ? label : "?");
	int rc = bv_fail(BV_EINPUT, "%s (shard %d/%d): no log for version '%s' of its plan (%s.json)", d,
	                 sh->index, sh->count, l, l);
	free(d), free(l);
	return rc;
}

static int load_version(shard_in *sh, size_t v)
{
	if (sh->docs[v])
		return 0;
	int rc = bv_log_load(sh->paths[v], &sh->docs[v]);
	const cJSON *plan = rc ? NULL : cJSON_GetObjectItemCaseSensitive(sh->docs[v], "shard");
	int index = 0, count = 0;
	if (rc == 0)
		rc = plan_check(sh->paths[v], plan, 1, &index, &count);
	if (rc == 0 &&
	    (index != sh->index || count != sh->count || strcmp(bv_json_str(plan, "id"), sh->id))) {
		char *a = bv_escape(sh->dir), *b = bv_escape(sh->paths[v]);
		rc = bv_fail(BV_EINPUT,
		             "%s holds shard %d/%d of plan %s, but %s is shard %d/%d of plan %s: one "
		             "directory holds one shard's logs",
		             a, sh->index, sh->count, sh->id, b, index, count, bv_json_str(plan, "id"));
		free(a), free(b);
	}
	if (rc == 0)
		rc = check_label(sh, v);
	if (rc) {
		cJSON_Delete(sh->docs[v]);
		sh->docs[v] = NULL;
	}
	return rc;
}

/* One shard's directory: its logs listed, the first loaded (load_version)
 * for the plan, I/N and the machine; one log per version of its plan. */
static int shard_load(const char *dir, shard_in *s)
{
	memset(s, 0, sizeof(*s));
	s->dir = dir;
	int rc = bv_run_dir_logs(dir, &s->paths, &s->n, NULL);
	if (rc == 0)
		rc = bv_logs_check_sizes(s->paths, s->n);
	s->docs = bv_xcalloc(s->n + 1, sizeof(cJSON *));
	if (rc == 0) {
		/* The first log (version 0's, kept for its join) says what the
		 * others must agree with; its plan and machine are kept as
		 * copies, small, since the join takes the log apart. */
		rc = bv_log_load(s->paths[0], &s->docs[0]);
		const cJSON *plan = rc ? NULL : cJSON_GetObjectItemCaseSensitive(s->docs[0], "shard");
		if (rc == 0)
			rc = plan_check(s->paths[0], plan, 1, &s->index, &s->count);
		if (rc == 0) {
			s->plan = cJSON_Duplicate(plan, 1);
			s->machine =
			    cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(s->docs[0], "machine"), 1);
			snprintf(s->id, sizeof(s->id), "%s", bv_json_str(plan, "id"));
			rc = check_label(s, 0);
		}
	}
	if (rc == 0) {
		size_t want =
		    (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s->plan, "versions"));
		if (s->n != want) {
			char *d = bv_escape(dir);
			rc = bv_fail(BV_EINPUT, "%s (shard %d/%d): %zu logs for the %zu versions of its plan",
			             d, s->index, s->count, s->n, want);
			free(d);
		}
	}
	if (rc)
		shard_in_free(s);
	return rc;
}

/* What differs between two plans, in words naming the field; wa and wb
 * say where each was read (escaped already). */
static char *plan_diff(const cJSON *a, const cJSON *b, const char *wa, const char *wb)
{
	double ca = 0, cb = 0;
	bv_json_num(a, "count", &ca);
	bv_json_num(b, "count", &cb);
	if (ca != cb)
		return bv_asprintf("the shard count: %g in %s, %g in %s (--shard I/N with another N)", cb, wb,
		                   ca, wa);
	const cJSON *va = cJSON_GetObjectItemCaseSensitive(a, "versions"),
	            *vb = cJSON_GetObjectItemCaseSensitive(b, "versions");
	int na = cJSON_GetArraySize(va), nb = cJSON_GetArraySize(vb);
	for (int k = 0; k < na || k < nb; k++) {
		const cJSON *x = cJSON_GetArrayItem(va, k), *y = cJSON_GetArrayItem(vb, k);
		const char *lx = bv_json_str(x, "label"), *ly = bv_json_str(y, "label");
		char *ex = bv_escape(lx ? lx : "(none)"), *ey = bv_escape(ly ? ly : "(none)");
		char *msg = NULL;
		if (!x || !y || strcmp(lx, ly))
			msg = bv_asprintf("the versions: version %d is '%s' in %s, '%s' in %s", k + 1, ey, wb,
			                  ex, wa);
		else if (strcmp(bv_json_str(x, "build_key"), bv_json_str(y, "build_key"))) {
			char *kx = bv_escape(bv_json_str(x, "build_key")),
			     *ky = bv_escape(bv_json_str(y, "build_key"));
			msg = bv_asprintf(
			    "version '%s''s build key: %.12s in %s, %.12s in %s (another tree, compat "
			    "rule, harness or compiler)",
			    ex, ky, wb, kx, wa);
			free(kx), free(ky);
		}
		free(ex), free(ey);
		if (msg)
			return msg;
	}
	const cJSON *ma = cJSON_GetObjectItemCaseSensitive(a, "cells"),
	            *mb = cJSON_GetObjectItemCaseSensitive(b, "cells");
	na = cJSON_GetArraySize(ma), nb = cJSON_GetArraySize(mb);
	for (int k = 0; k < na || k < nb; k++) {
		const cJSON *x = cJSON_GetArrayItem(ma, k), *y = cJSON_GetArrayItem(mb, k);
		if (x && y && !strcmp(x->valuestring, y->valuestring))
			continue;
		char *ex = bv_escape(x ? x->valuestring : "(none)"),
		     *ey = bv_escape(y ? y->valuestring : "(none)");
		char *msg = bv_asprintf(
		    "the cells (--benches, --ops, --backends, --sizes, --filter): %d in %s, %d in "
		    "%s; cell %d is %s in %s, %s in %s",
		    nb, wb, na, wa, k + 1, ey, wb, ex, wa);
		free(ex), free(ey);
		return msg;
	}
	const cJSON *oa = cJSON_GetObjectItemCaseSensitive(a, "method"),
	            *ob = cJSON_GetObjectItemCaseSensitive(b, "method");
	const cJSON *x;
	cJSON_ArrayForEach(x, oa)
	{
		const cJSON *y = cJSON_GetObjectItemCaseSensitive(ob, x->string);
		char *tx = cJSON_PrintUnformatted(x),
		     *ty = y ? cJSON_PrintUnformatted(y) : bv_strdup("absent");
		char *msg = NULL;
		if (strcmp(tx, ty)) {
			char *k = bv_escape(x->string), *ex = bv_escape(tx), *ey = bv_escape(ty);
			msg = bv_asprintf("the method's %s: %s in %s, %s in %s", k, ey, wb, ex, wa);
			free(k), free(ex), free(ey);
		}
		free(tx), free(ty);
		if (msg)
			return msg;
	}
	cJSON_ArrayForEach(x, ob) if (!cJSON_GetObjectItemCaseSensitive(oa, x->string))
	{
		char *k = bv_escape(x->string);
		char *msg = bv_asprintf("the method's %s: set in %s, absent in %s", k, wb, wa);
		free(k);
		return msg;
	}
	return bv_strdup("the plan id (its fields read alike)");
}

static void cell_key(const bv_log_cell *c, char *buf, size_t len)
{
	char size[32];
	snprintf(buf, len, "%s/%s/%s/%s", c->bench, c->op, c->backend,
	         bv_size_format(c->size, size, sizeof(size)));
}

static int build_failed(const cJSON *doc)
{
	const char *st = bv_json_str(
	    cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "version"), "build"),
	    "status");
	return bv_status_parse(st) == BV_ST_FAILED;
}

/* The worse of two run statuses: a joined run is complete only when every
 * shard is. */
static int status_rank(const char *s)
{
	return !s                          ? 4
	       : !strcmp(s, "complete")    ? 0
	       : !strcmp(s, "running")     ? 1
	       : !strcmp(s, "interrupted") ? 2
	                                   : 3;
}

/* qsort has no context argument in C11: the names being sorted. */
static const char *const *sort_keys;
static int key_cmp(const void *a, const void *b)
{
	return strcmp(sort_keys[*(const size_t *)a], sort_keys[*(const size_t *)b]);
}

/* The position of key in the plan (keys, sorted by byname), or n. */
static size_t find_key(const char **keys, const size_t *byname, size_t n, const char *key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(keys[byname[mid]], key);
		if (c == 0)
			return byname[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return n;
}

/* One version's join in progress: the plan's cells, where each was
 * found, and what the shards' run blocks add up to. */
typedef struct join_state {
	size_t ncells;
	const char **keys;  /* the plan's cells, in its order */
	size_t *byname;     /* keys' indices sorted by name */
	const cJSON **got;  /* per plan cell: the shard log's cell, once found */
	int *from;          /* per plan cell: the shard it was found in */
	int failed;         /* the first shard where the version did not build, or -1 */
	const char *worst;  /* the worst run status */
	double started;     /* processes started, over every shard */
} join_state;

/* The plan's cells indexed by name.  Cells are found by name through a
 * sorted index: a log is hostile, and a search per cell over a plan of a
 * million names would be a trillion comparisons.  A name twice is refused. */
static int index_cells(const cJSON *plan, join_state *st)
{
	const cJSON *pcells = cJSON_GetObjectItemCaseSensitive(plan, "cells");
	size_t ncells = (size_t)cJSON_GetArraySize(pcells);
	st->ncells = ncells;
	st->keys = bv_xcalloc(ncells + 1, sizeof(char *));
	st->got = bv_xcalloc(ncells + 1, sizeof(cJSON *));
	st->from = bv_xcalloc(ncells + 1, sizeof(int));
	size_t k = 0;
	const cJSON *x;
	cJSON_ArrayForEach(x, pcells) st->keys[k++] = x->valuestring;
	st->byname = bv_xcalloc(ncells + 1, sizeof(size_t));
	for (size_t c = 0; c < ncells; c++)
		st->byname[c] = c;
	sort_keys = st->keys;
	qsort(st->byname, ncells, sizeof(size_t), key_cmp);
	for (size_t c = 1; c < ncells; c++)
		if (!strcmp(st->keys[st->byname[c]], st->keys[st->byname[c - 1]])) {
			char *ek = bv_escape(st->keys[st->byname[c]]);
			int rc = bv_fail(BV_EINPUT, "the plan names cell %s twice (shard.cells)", ek);
			free(ek);
			return rc;
		}
	return 0;
}

/* Shard s's log of version v: its run block into the totals, and each of
 * its cells to its place in the plan (a cell not of the plan, or in two
 * shards, is refused). */
static int gather_shard(shard_in *sh, int count, int s, size_t v, join_state *st)
{
	const cJSON *doc = sh[s].docs[v];
	if (build_failed(doc) && st->failed < 0)
		st->failed = s;
	const char *status = bv_json_str(cJSON_GetObjectItemCaseSensitive(doc, "run"), "status");
	if (status_rank(status) > status_rank(st->worst))
		st->worst = status ? status : "failed";
	double p = 0;
	if (!bv_json_num(cJSON_GetObjectItemCaseSensitive(doc, "method"), "processes_started", &p) && p > 0)
		st->started += p;
	const cJSON *cell;
	int pos = 0, rc = 0;
	cJSON_ArrayForEach(cell, bv_log_cells(doc))
	{
		bv_log_cell c;
		bv_log_cell_read(cell, &c);
		char key[512];
		cell_key(&c, key, sizeof(key));
		size_t at = find_key(st->keys, st->byname, st->ncells, key);
		char *p1 = bv_escape(sh[s].paths[v]), *ek = bv_escape(key);
		if (at == st->ncells)
			rc = bv_fail(BV_EINPUT, "%s: cells[%d] (%s) is not a cell of its plan", p1, pos, ek);
		else if (st->got[at]) {
			char *p0 = bv_escape(sh[st->from[at]].dir);
			rc = bv_fail(BV_EINPUT,
			             "%s: cells[%d] (%s) is also in shard %d/%d (%s): a cell belongs to "
			             "one shard",
			             p1, pos, ek, sh[st->from[at]].index, count, p0);
			free(p0);
		} else
			st->got[at] = cell, st->from[at] = s;
		free(p1), free(ek);
		if (rc)
			return rc;
		pos++;
	}
	return 0;
}

/* The joined document: the log of shard 1 (or of the first shard where
 * the version failed to build), its cells replaced by every shard's in
 * the plan's order (moved, not copied: a full matrix's logs are tens of
 * MB, and a deep copy of them was a third of the join's time), its run
 * block the joined run's, and the plan with each shard's run id in the
 * place of its index. */
static cJSON *joined_doc(shard_in *sh, int count, size_t v, const cJSON *plan, const char *run_id,
			 const join_state *st)
{
	cJSON *cells = cJSON_CreateArray();
	for (size_t c = 0; st->failed < 0 && c < st->ncells; c++) {
		cJSON *parent = cJSON_GetObjectItemCaseSensitive(sh[st->from[c]].docs[v], "cells");
		cJSON_AddItemToArray(cells, cJSON_DetachItemViaPointer(parent, (cJSON *)st->got[c]));
	}
	cJSON *joined = cJSON_Duplicate(plan, 1);
	cJSON_DeleteItemFromObjectCaseSensitive(joined, "index");
	cJSON *ids = cJSON_AddArrayToObject(joined, "joined");
	for (int s = 0; s < count; s++) {
		const char *id = bv_json_str(cJSON_GetObjectItemCaseSensitive(sh[s].docs[v], "run"), "id");
		cJSON_AddItemToArray(ids, cJSON_CreateString(id ? id : ""));
	}
	int keep = st->failed >= 0 ? st->failed : 0;
	cJSON *doc = sh[keep].docs[v];
	sh[keep].docs[v] = NULL; /* the joined document now */
	cJSON *run = cJSON_GetObjectItemCaseSensitive(doc, "run");
	cJSON_ReplaceItemInObjectCaseSensitive(run, "id", cJSON_CreateString(run_id));
	if (cJSON_GetObjectItemCaseSensitive(run, "status"))
		cJSON_ReplaceItemInObjectCaseSensitive(run, "status", cJSON_CreateString(st->worst));
	cJSON *method = cJSON_GetObjectItemCaseSensitive(doc, "method");
	if (cJSON_GetObjectItemCaseSensitive(method, "processes_started"))
		cJSON_ReplaceItemInObjectCaseSensitive(method, "processes_started",
		                                       cJSON_CreateNumber(st->started));
	cJSON_ReplaceItemInObjectCaseSensitive(doc, "cells", cells);
	cJSON_ReplaceItemInObjectCaseSensitive(doc, "shard", joined);
	return doc;
}

/* Version v's joined log: shard 1's document with every shard's cells in
 * the plan's order and the run told what it was joined from. */
static int join_version(shard_in *sh, int count, size_t v, const cJSON *plan, const char *run_id, cJSON **out)
{
	join_state st = {.failed = -1, .worst = "complete"};
	int rc = index_cells(plan, &st);
	for (int s = 0; rc == 0 && s < count; s++)
		rc = load_version(&sh[s], v);
	for (int s = 0; rc == 0 && s < count; s++)
		rc = gather_shard(sh, count, s, v, &st);
	/* A version that built in no shard has no cells anywhere: its log
	 * says why (as one run's would), and merge marks every row. */
	for (size_t c = 0; rc == 0 && st.failed < 0 && c < st.ncells; c++)
		if (!st.got[c]) {
			char *ek = bv_escape(st.keys[c]), *l = bv_escape(ver_label(plan, v));
			rc = bv_fail(BV_EINPUT,
			             "cell %s of version '%s' is in no shard's log (a shard's log is incomplete)", ek, l);
			free(ek), free(l);
		}
	if (rc == 0)
		*out = joined_doc(sh, count, v, plan, run_id, &st);
	/* What is left of this version's shard logs (emptied of their cells,
	 * or all of them after an error) goes before the next version's come. */
	for (int s = 0; s < count; s++) {
		cJSON_Delete(sh[s].docs[v]);
		sh[s].docs[v] = NULL;
	}
	free(st.keys), free(st.got), free(st.from), free(st.byname);
	return rc;
}

/* The shards, checked as one plan, each version joined on demand. */
struct bv_shards {
	shard_in *got; /* as given */
	size_t ngot;
	shard_in *by; /* by index: by[I-1] (entries are got's) */
	int count;
	size_t nversions;
	cJSON *plan;
	char *run_id;
};

void bv_shards_close(bv_shards *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->ngot; i++)
		shard_in_free(&j->got[i]);
	free(j->got), free(j->by), free(j->run_id);
	cJSON_Delete(j->plan);
	free(j);
}

int bv_shards_open(char *const *dirs, size_t ndirs, bv_shards **out, size_t *nversions)
{
	*out = NULL;
	if (nversions)
		*nversions = 0;
	if (ndirs == 0)
		return bv_fail(BV_EINPUT, "no shard given");
	bv_shards *j = bv_xcalloc(1, sizeof(*j));
	j->got = bv_xcalloc(ndirs, sizeof(shard_in));
	shard_in *got = j->got;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < ndirs; i++) {
		rc = shard_load(dirs[i], &got[i]);
		if (rc == 0)
			j->ngot++;
	}
	/* One plan: the same id; where not, the field that differs. */
	for (size_t i = 1; rc == 0 && i < ndirs; i++) {
		const char *a = got[0].id, *b = got[i].id;
		if (strcmp(a, b)) {
			char *d0 = bv_escape(dirs[0]), *di = bv_escape(dirs[i]);
			char *what = plan_diff(got[0].plan, got[i].plan, d0, di);
			rc = bv_fail(BV_EINPUT,
			             "%s (shard %d/%d, plan %s) is not a shard of the plan of %s (shard "
			             "%d/%d, plan %s): they differ in %s",
			             di, got[i].index, got[i].count, b, d0, got[0].index, got[0].count, a,
			             what);
			free(what), free(d0), free(di);
		}
	}
	/* One machine class: each ratio is paired on its own node, but a table
	 * whose cells came from different CPUs would read as one machine's. */
	for (size_t i = 1; rc == 0 && i < ndirs; i++) {
		const char *c0 = bv_json_str(got[0].machine, "cpu");
		const char *ci = bv_json_str(got[i].machine, "cpu");
		if (c0 && ci && strcmp(c0, ci)) {
			char *d0 = bv_escape(dirs[0]), *di = bv_escape(dirs[i]), *e0 = bv_escape(c0),
			     *ei = bv_escape(ci);
			rc = bv_fail(BV_EINPUT,
			             "%s (shard %d/%d) was measured on %s, %s (shard %d/%d) on %s: the "
			             "shards of one plan run on one machine class (compare the classes' "
			             "joined runs side by side instead)",
			             di, got[i].index, got[i].count, ei, d0, got[0].index, got[0].count, e0);
			free(d0), free(di), free(e0), free(ei);
		}
	}
	j->count = rc == 0 ? got[0].count : 0;
	j->by = rc == 0 ? bv_xcalloc((size_t)j->count, sizeof(shard_in)) : NULL;
	for (size_t i = 0; rc == 0 && i < ndirs; i++) {
		shard_in *slot = &j->by[got[i].index - 1];
		if (slot->dir) {
			char *a = bv_escape(slot->dir), *b = bv_escape(dirs[i]);
			rc = bv_fail(BV_EINPUT, "shard %d/%d given twice: %s and %s", got[i].index, j->count,
			             a, b);
			free(a), free(b);
		} else
			*slot = got[i];
	}
	if (rc == 0) {
		bv_buf missing = BV_BUF_INIT;
		int nmissing = 0;
		for (int s = 0; s < j->count; s++)
			if (!j->by[s].dir)
				bv_buf_printf(&missing, "%s%d/%d", nmissing++ ? ", " : "", s + 1, j->count);
		if (nmissing)
			rc = bv_fail(BV_EINPUT,
			             "%s %s missing: the join needs every shard of plan %s (%zu of %d given)",
			             nmissing == 1 ? "shard" : "shards", missing.s, got[0].id, ndirs,
			             j->count);
		bv_buf_free(&missing);
	}
	if (rc) {
		/* by's entries are got's: freed once, through got */
		bv_shards_close(j);
		return rc;
	}
	j->plan = cJSON_Duplicate(j->by[0].plan, 1);
	j->run_id = bv_asprintf("plan-%s", got[0].id);
	j->nversions = got[0].n;
	*out = j;
	if (nversions)
		*nversions = j->nversions;
	return 0;
}

int bv_shards_version(bv_shards *j, size_t v, cJSON **doc)
{
	*doc = NULL;
	if (v >= j->nversions)
		return bv_fail(BV_EINPUT, "the shards' plan has %zu versions", j->nversions);
	return join_version(j->by, j->count, v, j->plan, j->run_id, doc);
}

int bv_shards_join(char *const *dirs, size_t ndirs, cJSON ***docs_out, size_t *n_out)
{
	*docs_out = NULL, *n_out = 0;
	bv_shards *j = NULL;
	size_t nv = 0;
	int rc = bv_shards_open(dirs, ndirs, &j, &nv);
	cJSON **docs = rc == 0 ? bv_xcalloc(nv + 1, sizeof(cJSON *)) : NULL;
	for (size_t v = 0; rc == 0 && v < nv; v++)
		rc = bv_shards_version(j, v, &docs[v]);
	bv_shards_close(j);
	if (rc) {
		for (size_t v = 0; docs && v < nv; v++)
			cJSON_Delete(docs[v]);
		free(docs);
		return rc;
	}
	*docs_out = docs, *n_out = nv;
	return 0;
}

static int next_version(void *ctx, size_t i, cJSON **doc)
{
	return bv_shards_version(ctx, i, doc);
}

int bv_merge_shards(char *const *dirs, size_t ndirs, const bv_merge_opts *o, bv_table *out)
{
	memset(out, 0, sizeof(*out));
	bv_shards *j = NULL;
	size_t n = 0;
	int rc = bv_shards_open(dirs, ndirs, &j, &n);
	if (rc)
		return rc;
	/* The columns' file names, as a run's directory would have them. */
	char **names = bv_xcalloc(n + 1, sizeof(char *));
	for (size_t i = 0; i < n; i++) {
		const char *l = ver_label(j->plan, i);
		names[i] = bv_asprintf("%s.json", l ? l : "?");
	}
	bv_doc_source src = {next_version, j};
	rc = bv_merge_source(&src, names, n, o, out);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	bv_shards_close(j);
	return rc;
}

/* 1-250 letters, digits, '.', '_', '-', not starting with '.': what
 * resolve.c makes labels of (room for ".json" in a file name). */
int bv_label_is_file_name(const char *l)
{
	size_t n = l ? strlen(l) : 0;
	if (n == 0 || n > 250 || l[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((l[i] >= 'a' && l[i] <= 'z') || (l[i] >= 'A' && l[i] <= 'Z') ||
		      (l[i] >= '0' && l[i] <= '9') || l[i] == '.' || l[i] == '_' || l[i] == '-'))
			return 0;
	return 1;
}

int bv_shards_write(char *const *dirs, size_t ndirs, const char *out_dir, char ***paths_out, size_t *n_out)
{
	*paths_out = NULL, *n_out = 0;
	/* Into an empty or new directory only: a log left there from before
	 * would be read as one more version of the joined run. */
	DIR *d = opendir(out_dir);
	struct dirent *e;
	int rc = 0;
	while (d && rc == 0 && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rc = bv_fail(
			    BV_EINPUT,
			    "--join-to %s: not empty; the joined run goes into a new or empty directory",
			    out_dir);
	if (d)
		closedir(d);
	bv_shards *j = NULL;
	size_t n = 0;
	if (rc == 0)
		rc = bv_shards_open(dirs, ndirs, &j, &n);
	if (rc == 0)
		rc = bv_mkdir_p(out_dir);
	char **paths = bv_xcalloc(n + 1, sizeof(char *));
	/* One version at a time: joined, written, freed. */
	for (size_t v = 0; rc == 0 && v < n; v++) {
		cJSON *doc = NULL;
		rc = bv_shards_version(j, v, &doc);
		const char *l = rc == 0 ? ver_label(j->plan, v) : NULL;
		/* A label is a shard log's text (hostile until checked) and
		 * becomes a file name here: one plain name, never "../x". */
		if (rc == 0 && !bv_label_is_file_name(l)) {
			char *shown = bv_escape(l ? l : "(none)");
			rc = bv_fail(BV_EINPUT, "a shard's plan names a version '%s': not a plain file name", shown);
			free(shown);
		}
		if (rc == 0)
			paths[v] = bv_asprintf("%s/%s.json", out_dir, l);
		if (rc == 0)
			rc = bv_json_save(paths[v], doc);
		cJSON_Delete(doc);
	}
	bv_shards_close(j);
	if (rc) {
		for (size_t i = 0; i < n; i++)
			free(paths[i]);
		free(paths);
		return rc;
	}
	*paths_out = paths, *n_out = n;
	return 0;
}

int bv_path_is_shard(const char *path)
{
	char **paths = NULL;
	size_t n = 0;
	int is = 0;
	if (bv_is_dir(path)) {
		if (bv_run_dir_logs(path, &paths, &n, NULL))
			return 0;
	} else {
		paths = bv_xcalloc(1, sizeof(char *));
		paths[0] = bv_strdup(path), n = 1;
	}
	cJSON *doc = NULL;
	/* compare asks this of every argument: a log that does not even hold
	 * the word is no shard, found without parsing megabytes of JSON (the
	 * parse, where the word is there, decides). */
	char *text = NULL;
	size_t len = 0;
	int maybe = n > 0 && bv_logs_check_sizes(paths, 1) == 0 &&
	            bv_read_file(paths[0], BV_RESULTS_MAX, &text, &len) == 0 &&
	            memmem(text, len, "\"shard\"", 7) != NULL;
	free(text);
	if (maybe && bv_log_load(paths[0], &doc) == 0)
		/* a joined run's logs keep the plan, without an index: they
		 * are one run again */
		is = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "shard"),
		                                      "index") != NULL;
	cJSON_Delete(doc);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	return is;
}
