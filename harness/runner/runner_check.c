/*
 * runner_check.c - one cell opened in one version (suite_setup: the
 * benchmark's run and its setup, the shared-input arena) and checked: the
 * check child, a cell's status object, and the comparison of every
 * version's output and shared inputs with the baseline's
 * (suite_checks_agree).  Separate from the timing because a check runs one
 * version alone per child, and what it finds decides who is timed.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner_internal.h"

const char *status_name(int s)
{
	switch (s) {
	case BV_OK: return "ok";
	case BV_NA: return "n/a";
	case BV_UNAVAILABLE: return "skipped";
	case ST_WRONG: return "wrong result";
	default: return "failed";
	}
}

/* ---- checking one version in one cell (in a child) -------------------- */


/* A reason as the log may hold it: the text comes from the library or the
 * suite under test (its bvs_fail, its last error), so it may hold anything.
 * Control characters and bytes that are not well-formed UTF-8 become '?':
 * the log stays valid JSON text for every reader, not only cJSON.  Line
 * breaks and tabs too (docs/suites.md): a reason is one line of the
 * table's notes and of every export, never the start of another. */
static void reason_text(const char *in, char *out, size_t len)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;
	while (*s && o + 5 < len) {
		int n = *s < 0x80 ? 1 : (*s & 0xe0) == 0xc0 ? 2 : (*s & 0xf0) == 0xe0 ? 3 : (*s & 0xf8) == 0xf0 ? 4 : 0;
		int ok = n > 0 && !(n == 2 && *s < 0xc2);
		for (int k = 1; ok && k < n; k++)
			ok = (s[k] & 0xc0) == 0x80;
		if (!ok || (n == 1 && (*s < 0x20 || *s == 0x7f))) {
			out[o++] = '?', s++;
			continue;
		}
		memcpy(out + o, s, (size_t)n);
		o += (size_t)n, s += n;
	}
	out[o] = '\0';
}

cJSON *status_object(int s, const char *reason)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "status", status_name(s));
	if (reason && *reason) {
		char clean[2048];
		reason_text(reason, clean, sizeof(clean));
		cJSON_AddStringToObject(o, "reason", clean);
	}
	return o;
}

/* ---- opening a cell in a version ------------------------------------------- */

/* The cell's seed: FNV-1a 64 of "suite/op/backend/size", its registered
 * names, so every version and process draws the same inputs for it. */
static uint64_t suite_seed(const bv_cell *c)
{
	char size[32], key[1400];
	snprintf(key, sizeof(key), "%s/%s/%s/%s", c->bench->name, c->op->name, c->backend,
		 bv_size_format(c->size, size, sizeof(size)));
	uint64_t h = 0xcbf29ce484222325ull;
	for (const char *p = key; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
	return h;
}

/* Every parameter of the cell, as suite_open takes them: the other
 * parameters, then the variant's, then size's ("level=9 variant=avx2
 * size=64K"; size as --sizes writes it). */
static void suite_params(const bv_cell *c, char *buf, size_t len)
{
	const bv_suite_op *so = c->op->suite;
	char size[32];
	size_t at = (size_t)snprintf(buf, len, "%s", so->params);
	if (so->variant && at < len)
		at += (size_t)snprintf(buf + at, len - at, "%s%s=%s", at ? " " : "", so->variant, c->backend);
	if (so->has_size && at < len)
		snprintf(buf + at, len - at, "%ssize=%s", at ? " " : "", bv_size_format(c->size, size, sizeof(size)));
}

/* Whether c is a cell of the bundled catalog (ops.def's, or an ops file's),
 * not of a project suite. */
int catalog_cell(const bv_cell *c)
{
	return c->op->kind != BV_K_SUITE;
}

/* Opens t's cell in its version: the timed call (lookup: the benchmark's
 * run) and the cell's state (suite_open: setup), in args.cell.  A catalog
 * cell (catalog_cell) is the benchmark "<group>__<op>" of the suite
 * BV_CATALOG_SUITE_NAME, with the parameters "backend=B size=S". */
int suite_setup(timed *t, const bv_cell *c, int inputs, char *reason, size_t len)
{
	const bv_plugin *p = t->v->p;
	char params[1200], bench[200];
	const char *group = c->bench->name;
	int catalog = catalog_cell(c);
	if (t->v->isa_refused[0]) {
		snprintf(reason, len, "%s", t->v->isa_refused);
		return BV_NA;
	}
	if (!p->suite_open) {
		snprintf(reason, len, "%s's plugin has no suite (built without one)", t->v->label);
		return BV_FAILED;
	}
	if (catalog && !p->catalog) {
		/* a project suite's plugin: the bundled catalog is not in it */
		snprintf(reason, len, "%s's plugin is a project suite's, without the bundled catalog", t->v->label);
		return BV_NA;
	}
	if (catalog) {
		char size[32];
		group = BV_CATALOG_SUITE_NAME;
		snprintf(bench, sizeof(bench), "%s__%s", c->bench->name, c->op->name);
		snprintf(params, sizeof(params), "backend=%s size=%s", c->backend,
			 bv_size_format(c->size, size, sizeof(size)));
	} else {
		snprintf(bench, sizeof(bench), "%s", c->op->suite->bench);
		suite_params(c, params, sizeof(params));
	}
	int s = p->lookup(group, bench, c->backend, &t->call);
	if (s != BV_OK) {
		snprintf(reason, len, "%s", p->last_error());
		return s;
	}
	s = p->suite_open(bench, params, suite_seed(c), inputs, &t->args.cell);
	if (s != BV_OK)
		snprintf(reason, len, "%s", p->last_error());
	return s;
}


void *share_take(void *ctx, unsigned index, size_t bytes, int *fill)
{
	share_arena *a = ctx;
	*fill = 1;
	if (index < a->nshared && a->made[index].bytes == bytes) {
		*fill = 0;
		return a->made[index].buf;
	}
	if (a->n == a->cap) {
		unsigned cap = a->cap ? 2 * a->cap : 16;
		void *grown = realloc(a->made, cap * sizeof(*a->made));
		if (!grown)
			return NULL;
		a->made = grown, a->cap = cap;
	}
	void *p = bv_zalloc64(bytes);
	if (!p)
		return NULL;
	/* the next shared buffer while no private one was made yet; a later
	 * version asking another size gets a private one */
	if (index == a->nshared && a->nshared == a->n)
		a->nshared++;
	a->made[a->n].buf = p, a->made[a->n].bytes = bytes;
	a->n++;
	return p;
}

void share_free(share_arena *a)
{
	for (unsigned i = 0; i < a->n; i++)
		free(a->made[i].buf);
	free(a->made);
	*a = (share_arena){0};
}

/* A digest (FNV-1a, 64 bits) of the shared buffers a's setup wrote, in
 * their order: what check_child compares between versions. */
static void share_digest(const share_arena *a, char out[17])
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (unsigned i = 0; i < a->nshared; i++) {
		const unsigned char *b = a->made[i].buf;
		for (size_t k = 0; k < sizeof(size_t); k++)
			h = (h ^ (unsigned char)(a->made[i].bytes >> (8 * k))) * 0x100000001b3ull;
		for (size_t k = 0; k < a->made[i].bytes; k++)
			h = (h ^ b[k]) * 0x100000001b3ull;
	}
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* A suite cell's check, in a child: open, one run and the suite's check
 * (the plugin compares with its reference and writes the output to the
 * job's file for the comparison between versions), the work, close. */
cJSON *check_child(void *arg)
{
	check_job *j = arg;
	const bv_cell *c = j->d->c;
	const bv_plugin *p = j->v->p;
	timed t = {.v = j->v};
	char reason[1024] = "";
	double worst = NAN, work[3] = {0, 0, 0}, host = 0, device = 0, lib_host = 0, lib_device = 0;
	int counted = 0;
	/* A project suite's shared buffers come from an arena here too, each
	 * version's own (it runs alone, so its setup fills them): their
	 * digest after setup goes to the parent, which compares the versions'
	 * (a suite whose setup writes other bytes per version would have every
	 * version timed on the first one's).  The catalog's setup writes the
	 * same inputs in every version, and keeps device pointers there. */
	share_arena shared = {0};
	int guard = c->op->kind == BV_K_SUITE && p->suite_share;
	if (guard)
		p->suite_share(share_take, &shared);
	int s = suite_setup(&t, c, j->d->inputs, reason, sizeof(reason)), opened = s == BV_OK, sets = 1;
	if (guard)
		p->suite_share(NULL, NULL);
	char digest[17] = "";
	if (s == BV_OK && shared.nshared)
		share_digest(&shared, digest);
	if (s == BV_OK) {
		sets = p->suite_input_sets(t.args.cell);
		s = p->suite_check(t.args.cell, j->out_fd, &worst);
		if (s != BV_OK)
			snprintf(reason, sizeof(reason), "%s", p->last_error());
		p->suite_work(t.args.cell, work);
		counted = p->suite_footprint(t.args.cell, &host, &lib_host, &lib_device);
		p->suite_close(t.args.cell);
	}
	share_free(&shared);
	if (catalog_cell(c) && p->catalog) {
		/* A catalog cell's footprint is its layout's: what the
		 * benchmark allocates for the cell (bvs_alloc's bytes, the same
		 * number on a host backend) also when it was not opened, and as
		 * much in a device backend's memory. */
		const bv_layout *l = &j->d->l;
		double bytes = 4.0 * (double)(l->nx + l->nx2 + l->ny + l->nwork);
		if (!opened)
			host = bytes;
		device = s != BV_NA && !p->host_memory(c->backend) ? bytes : 0;
	}
	cJSON *o = status_object(s == BV_WRONG ? ST_WRONG : s, reason);
	/* The footprint: what bvs_alloc gave the cell (the runner makes no
	 * buffers for it), and the library's own where BVS_LIBRARY counts. */
	cJSON_AddNumberToObject(o, "host_bytes", host);
	cJSON_AddNumberToObject(o, "device_bytes", device);
	if (counted) {
		cJSON_AddNumberToObject(o, "library_host_bytes", lib_host);
		cJSON_AddNumberToObject(o, "library_device_bytes", lib_device);
	}
	if (isfinite(worst))
		cJSON_AddNumberToObject(o, "worst_error", worst);
	/* the sets setup made (bvs_input_sets_made): measure_cell takes it
	 * for the cell's input_sets and drops it from the entry */
	if (opened)
		cJSON_AddNumberToObject(o, "input_sets", sets);
	if (*digest) /* taken off again by measure_cell */
		cJSON_AddStringToObject(o, "shared_digest", digest);
	if (work[0] > 0 || work[1] > 0 || work[2] > 0) {
		cJSON *w = cJSON_AddObjectToObject(o, "work");
		cJSON_AddNumberToObject(w, "bytes", work[0]);
		cJSON_AddNumberToObject(w, "flops", work[1]);
		cJSON_AddNumberToObject(w, "items", work[2]);
	}
	return o;
}

/* A version's output as suite_check wrote it to fd: "BVSOUT2\0", uint32
 * type, uint32 own (1: the cell set its own tolerance), uint64 n, double
 * max_ulp, double rel_tol, the elements.  Returns the elements (malloc'd)
 * or NULL when there are none (the check named no output, or the file is
 * short); *tol the cell's own tolerance, or NULL-like (own 0). */
typedef struct out_tol {
	int own;
	double max_ulp, rel_tol;
} out_tol;

static unsigned char *read_output(int fd, uint32_t *type, uint64_t *n, out_tol *tol)
{
	unsigned char head[40];
	static const size_t es[] = {4, 8, 1, 4, 8}; /* bv_suite.h: bvs_type */
	if (fd < 0 || pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head) || memcmp(head, "BVSOUT2", 8))
		return NULL;
	uint32_t own;
	memcpy(type, head + 8, 4), memcpy(&own, head + 12, 4), memcpy(n, head + 16, 8);
	memcpy(&tol->max_ulp, head + 24, 8), memcpy(&tol->rel_tol, head + 32, 8);
	tol->own = own == 1 && tol->max_ulp >= 0 && tol->max_ulp <= 1e18 && tol->rel_tol >= 0 && tol->rel_tol <= 1e18;
	if (*type > 4 || *n > ((uint64_t)1 << 40) / es[*type])
		return NULL;
	size_t bytes = (size_t)*n * es[*type];
	unsigned char *data = malloc(bytes ? bytes : 1);
	size_t got = 0;
	while (data && got < bytes) {
		ssize_t r = pread(fd, data + got, bytes - got, (off_t)(sizeof(head) + got));
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (data && got < bytes) {
		free(data);
		return NULL;
	}
	return data;
}

static double output_at(const unsigned char *d, uint32_t type, uint64_t i)
{
	switch (type) {
	case 0: { float f; memcpy(&f, d + 4 * i, 4); return f; }
	case 1: { double x; memcpy(&x, d + 8 * i, 8); return x; }
	case 2: return d[i];
	case 3: { int32_t v; memcpy(&v, d + 4 * i, 4); return v; }
	default: { int64_t v; memcpy(&v, d + 8 * i, 8); return (double)v; }
	}
}

/* Compares a version's output with the baseline's, on the same inputs,
 * with the benchmark's tolerance (floats: max_ulp or rel_tol; other types
 * exactly).  0 when they agree (or either named no output), else 1 with
 * the difference in why. */
static int outputs_differ(const bv_cell *c, int base_fd, const char *base_label, int fd, char *why, size_t len)
{
	static const char *const types[] = {"f32", "f64", "u8", "i32", "i64"};
	uint32_t bt = 0, t = 0;
	uint64_t bn = 0, n = 0;
	out_tol btol = {0}, tol = {0}; /* btol unused: both are this suite's, mine decides */
	unsigned char *base = read_output(base_fd, &bt, &bn, &btol), *mine = base ? read_output(fd, &t, &n, &tol) : NULL;
	int differ = 0;
	if (!base || !mine) {
		free(base), free(mine);
		return 0;
	}
	if (bt != t || bn != n) {
		snprintf(why, len, "output is %llu %s, %s's %llu %s", (unsigned long long)n, types[t], base_label,
			 (unsigned long long)bn, types[bt]);
		differ = 1;
	}
	const bv_suite_op *so = c->op->suite;
	/* the cell's own tolerance (bvs_tolerance, this version's), else the benchmark's */
	double max_ulp = tol.own ? tol.max_ulp : so->max_ulp, rel_tol = tol.own ? tol.rel_tol : so->rel_tol;
	int fl = t == 0 || t == 1;
	for (uint64_t i = 0; !differ && i < n; i++) {
		double a = output_at(mine, t, i), b = output_at(base, t, i);
		double gap = fl ? bv_ulp_gap(a, b, t == 0) : fabs(a - b);
		int ok = fl ? gap <= max_ulp || (rel_tol > 0 && fabs(a - b) <= rel_tol * fabs(b)) : a == b;
		if (ok)
			continue;
		char tols[64];
		if (!fl)
			snprintf(tols, sizeof(tols), "exact");
		else if (rel_tol > 0)
			snprintf(tols, sizeof(tols), "%g ulp or %g relative", max_ulp, rel_tol);
		else
			snprintf(tols, sizeof(tols), "%g ulp", max_ulp);
		int digits = t == 1 ? 17 : 9; /* enough to tell two neighbouring doubles (floats) apart */
		snprintf(why, len, "output differs from %s's at element %llu of %llu: %.*g vs %.*g (%.3g%s; tolerance %s)",
			 base_label, (unsigned long long)i, (unsigned long long)n, digits, a, digits, b, gap,
			 fl ? " ulp" : "", tols);
		differ = 1;
	}
	free(base), free(mine);
	return differ;
}

/* A suite cell's checks, each version's alone, held against the first
 * version's (the baseline): an output that differs is a wrong result, and
 * shared buffers that setup filled otherwise are a failure.  Each entry's
 * status and reason are rewritten in place. */
void suite_checks_agree(const bv_cell *c, const version *vs, int nv, cJSON **entry, const int *out_fd)
{
	const cJSON *base_st = nv > 0 ? cJSON_GetObjectItemCaseSensitive(entry[0], "status") : NULL;
	/* A suite's shared buffers (bvs_alloc_shared) hold, in the timing
	 * child, what the first version's setup wrote: a version whose own
	 * setup, run alone in its check, writes other bytes there would be
	 * timed on data not its own.  It fails, saying so, and is not
	 * timed.  Before the outputs are compared: other inputs give another
	 * output, and "output differs" would blame the library for what the
	 * suite's setup did. */
	const cJSON *base_dg = cJSON_IsString(base_st) && !strcmp(base_st->valuestring, "ok")
				       ? cJSON_GetObjectItemCaseSensitive(entry[0], "shared_digest")
				       : NULL;
	for (int i = 1; cJSON_IsString(base_dg) && i < nv; i++) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(entry[i], "status");
		const cJSON *dg = cJSON_GetObjectItemCaseSensitive(entry[i], "shared_digest");
		if (!cJSON_IsString(s) || strcmp(s->valuestring, "ok") || !cJSON_IsString(dg) ||
		    !strcmp(dg->valuestring, base_dg->valuestring))
			continue;
		char why[512];
		snprintf(why, sizeof(why),
			 "its setup writes other bytes into the cell's shared buffers (bvs_alloc_shared) than %s's, "
			 "which every version timed beside it would run on: a shared buffer is for inputs the same in "
			 "every version (bvs_random, the parameters); what a version makes itself needs bvs_alloc",
			 vs[0].label);
		cJSON_ReplaceItemInObject(entry[i], "status", cJSON_CreateString(status_name(BV_FAILED)));
		cJSON_DeleteItemFromObject(entry[i], "reason");
		cJSON_AddStringToObject(entry[i], "reason", why);
	}
	/* A suite's result that changed between versions is wrong in the
	 * later one, reference or not: each version's output against the
	 * baseline's (the first label's), when both passed their checks. */
	for (int i = 1; i < nv && cJSON_IsString(base_st) && !strcmp(base_st->valuestring, "ok"); i++) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(entry[i], "status");
		char why[1024];
		if (out_fd[0] < 0 || out_fd[i] < 0 || !cJSON_IsString(s) || strcmp(s->valuestring, "ok") ||
		    !outputs_differ(c, out_fd[0], vs[0].label, out_fd[i], why, sizeof(why)))
			continue;
		cJSON_ReplaceItemInObject(entry[i], "status", cJSON_CreateString(status_name(ST_WRONG)));
		cJSON_DeleteItemFromObject(entry[i], "reason");
		cJSON_AddStringToObject(entry[i], "reason", why);
	}
	for (int i = 0; i < nv; i++)
		cJSON_DeleteItemFromObject(entry[i], "shared_digest");
}
