/*
 * counts_files.c - a count as it is read and kept: callgrind's output file
 * read into a count (bv_callgrind_parse, counts.h), and a count as JSON,
 * the form of the run's counts/counts.json and of the cache's entries,
 * with the digest that tells whether an entry is still what was written
 * (counts_files.h).
 *
 * Apart from counts.c (what is counted, and what the counts say) and
 * counts_make.c (the processes that make them): these are functions of
 * text alone, every input hostile (a file of another program, one changed
 * after it was written), and what the unit tests and the fuzzer
 * (tests/fuzz/fuzz_callgrind.c) reach without Valgrind or a run.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "counts.h"
#include "counts_files.h"
#include "fs.h"
#include "hash.h"
#include "json.h"
#include "status.h"

/* ---- the callgrind file --------------------------------------------------- */

/* A compressed name "(12) name" defines id 12, "(12)" uses it; an
 * uncompressed one is the name.  The table grows as ids come. */
typedef struct names {
	char **v;
	size_t n;
} names;

static const char *name_of(names *nm, const char *s, size_t len)
{
	/* bounded by len throughout: a line of the file is not a string */
	if (len < 3 || s[0] != '(')
		return NULL;
	size_t i = 1;
	unsigned long id = 0;
	while (i < len && s[i] >= '0' && s[i] <= '9' && id <= 1000000)
		id = id * 10 + (unsigned long)(s[i++] - '0');
	if (i == 1 || i >= len || s[i] != ')' || id > 1000000)
		return NULL;
	i++;
	while (i < len && s[i] == ' ')
		i++;
	size_t restlen = len - i;
	if (id >= nm->n) {
		size_t n = id + 1 > 2 * nm->n ? id + 1 : 2 * nm->n;
		nm->v = bv_xrealloc(nm->v, n * sizeof(char *));
		memset(nm->v + nm->n, 0, (n - nm->n) * sizeof(char *));
		nm->n = n;
	}
	if (restlen) {
		free(nm->v[id]);
		nm->v[id] = bv_xmalloc(restlen + 1);
		memcpy(nm->v[id], s + i, restlen);
		nm->v[id][restlen] = '\0';
	}
	return nm->v[id] ? nm->v[id] : "???";
}

/* Numbers of a cost line after its position: at most BV_EV_COUNT, each a
 * non-negative integer; 0 when the line is not one. */
static int costs(const char *s, const char *end, const int *map, size_t nmap, double *out)
{
	for (size_t i = 0; i < nmap && s < end; i++) {
		while (s < end && *s == ' ')
			s++;
		if (s == end)
			break;
		/* digits only, within the line (not strtoull: it takes "-5" and
		 * wraps it, and reads past a line that is not a string) */
		const char *e = s;
		double v = 0;
		while (e < end && *e >= '0' && *e <= '9' && v < 1e18)
			v = v * 10 + (*e++ - '0');
		if (e == s || v >= 1e18 || (e < end && *e != ' '))
			return 0;
		if (map[i] >= 0)
			out[map[i]] += v;
		s = e;
	}
	return 1;
}

static int fn_cmp(const void *a, const void *b)
{
	double x = ((const bv_fn_count *)a)->ir, y = ((const bv_fn_count *)b)->ir;
	return x < y ? 1 : x > y ? -1 : strcmp(((const bv_fn_count *)a)->name, ((const bv_fn_count *)b)->name);
}

/* What bv_callgrind_parse knows so far, line by line. */
typedef struct cg_state {
	int map[BV_EV_COUNT * 2]; /* the events line: each column's event, -1 for one not counted */
	size_t nmap;
	int have_events, have_total, skip_next; /* have_total: 1 totals, 2 summary */
	names nm;
	bv_fn_count *fns;
	size_t nfns, cap;
	long cur; /* the current function's slot in fns */
	double summary[BV_EV_COUNT], totals[BV_EV_COUNT], sum_ir;
} cg_state;

/* "events: Ir Dr ...": the names, in the order the cost lines give them. */
static void cg_events(cg_state *st, const char *q, const char *le)
{
	st->nmap = 0;
	while (q < le && st->nmap < BV_EV_COUNT * 2) {
		while (q < le && *q == ' ')
			q++;
		const char *w = q;
		while (q < le && *q != ' ')
			q++;
		if (q == w)
			break;
		int at = -1;
		for (int k = 0; k < BV_EV_COUNT; k++)
			if (strlen(bv_count_event_names[k]) == (size_t)(q - w) &&
			    !strncmp(w, bv_count_event_names[k], (size_t)(q - w)))
				at = k;
		st->map[st->nmap++] = at;
	}
	st->have_events = st->nmap > 0 && st->map[0] == BV_EV_IR;
}

/* "fn=NAME" (or a compressed name): the function the next cost lines are
 * of, a slot of its own the first time (at most 100000 of them). */
static void cg_function(cg_state *st, const char *s, size_t n)
{
	const char *name = name_of(&st->nm, s, n);
	char *own = NULL;
	if (!name) {
		own = bv_xmalloc(n + 1);
		memcpy(own, s, n);
		own[n] = '\0';
		name = own;
	}
	st->cur = -1;
	for (size_t i = 0; i < st->nfns && st->cur < 0; i++)
		if (!strcmp(st->fns[i].name, name))
			st->cur = (long)i;
	if (st->cur < 0 && st->nfns < 100000) {
		if (st->nfns == st->cap) {
			st->cap = st->cap ? 2 * st->cap : 64;
			st->fns = bv_xrealloc(st->fns, st->cap * sizeof(*st->fns));
		}
		st->fns[st->nfns] = (bv_fn_count){bv_strdup(name), 0};
		st->cur = (long)st->nfns++;
	}
	free(own);
	st->skip_next = 0;
}

/* A cost line: the position first, then the costs, counted to the
 * current function unless it is a call's inclusive cost. */
static int cg_cost(cg_state *st, const char *p, const char *le, char *why, size_t whylen)
{
	int rc = 0;
	if (!st->have_events) {
		snprintf(why, whylen, "a cost line before the events line");
		rc = -1;
	} else {
		const char *q = p;
		while (q < le && *q != ' ')
			q++;
		double add[BV_EV_COUNT] = {0};
		if (!costs(q, le, st->map, st->nmap, add)) {
			snprintf(why, whylen, "a cost line that is not numbers");
			rc = -1;
		} else if (!st->skip_next && st->cur >= 0) {
			st->fns[st->cur].ir += add[BV_EV_IR];
			st->sum_ir += add[BV_EV_IR];
		}
	}
	st->skip_next = 0;
	return rc;
}

/* One line of the file, by its kind; the ones not named are skipped. */
static int cg_line(cg_state *st, const char *p, const char *le, char *why, size_t whylen)
{
	size_t n = (size_t)(le - p);
	if (n >= 7 && !strncmp(p, "events:", 7))
		cg_events(st, p + 7, le);
	else if (n >= 8 && (!strncmp(p, "summary:", 8) || !strncmp(p, "totals:", 7))) {
		int is_summary = p[0] == 's';
		const char *q = p + (is_summary ? 8 : 7);
		st->have_total |= is_summary ? 2 : 1;
		double *into = is_summary ? st->summary : st->totals;
		if (!st->have_events || !costs(q, le, st->map, st->nmap, into)) {
			snprintf(why, whylen, "a %s line that is not %s", is_summary ? "summary" : "totals",
				 st->have_events ? "numbers" : "after the events line");
			return -1;
		}
	} else if (n >= 3 && !strncmp(p, "fn=", 3))
		cg_function(st, p + 3, n - 3);
	else if (n >= 4 && (!strncmp(p, "cfn=", 4) || !strncmp(p, "cfi=", 4) || !strncmp(p, "cfl=", 4))) {
		if (p[1] == 'f' && p[2] == 'n')
			name_of(&st->nm, p + 4, n - 4); /* a compressed name may be defined here first */
	} else if (n >= 6 && !strncmp(p, "calls=", 6))
		st->skip_next = 1; /* the next cost line is the call's inclusive cost */
	else if (n > 0 && (p[0] == '+' || p[0] == '-' || p[0] == '*' || (p[0] >= '0' && p[0] <= '9')))
		return cg_cost(st, p, le, why, whylen);
	return 0;
}

/* The parse's result into c: summary, every event of the run (the
 * collected part); totals where there is no summary; else the functions'
 * sum; and the max_fns functions with the most instructions, the others
 * freed. */
static void cg_result(cg_state *st, size_t max_fns, bv_count *c)
{
	const double *src = st->have_total & 2 ? st->summary : st->have_total & 1 ? st->totals : NULL;
	if (src)
		memcpy(c->ev, src, sizeof(c->ev));
	else
		c->ev[BV_EV_IR] = st->sum_ir;
	if (st->nfns) /* qsort takes no NULL, even for 0 elements */
		qsort(st->fns, st->nfns, sizeof(*st->fns), fn_cmp);
	size_t keep = 0;
	for (size_t i = 0; i < st->nfns; i++) {
		if (keep < max_fns && st->fns[i].ir > 0)
			st->fns[keep++] = st->fns[i];
		else
			free(st->fns[i].name);
	}
	c->fns = st->fns, c->nfns = keep;
	st->fns = NULL;
}

int bv_callgrind_parse(const char *text, size_t len, size_t max_fns, bv_count *c, char *why, size_t whylen)
{
	cg_state *st = bv_xcalloc(1, sizeof(*st));
	st->cur = -1;
	int rc = 0;
	memset(c->ev, 0, sizeof(c->ev));
	for (const char *p = text, *end = text + len; p < end && rc == 0;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		rc = cg_line(st, p, nl ? nl : end, why, whylen);
		p = nl ? nl + 1 : end;
	}
	if (rc == 0 && !st->have_events) {
		snprintf(why, whylen, "no events line: not a callgrind file");
		rc = -1;
	}
	if (rc == 0)
		cg_result(st, max_fns, c);
	for (size_t i = 0; st->fns && i < st->nfns; i++)
		free(st->fns[i].name);
	free(st->fns);
	for (size_t i = 0; i < st->nm.n; i++)
		free(st->nm.v[i]);
	free(st->nm.v);
	free(st);
	return rc;
}

/* ---- counts.json ------------------------------------------------------- */

/* A digest of what a count says: its cell and status, the reason, the ISA,
 * the events and the functions, which the "why" is made of (not the label,
 * a run's own name for the build, nor the seconds, cached or profile, which
 * a copy changes).  Stored with the count, in the cache and in counts.json:
 * a file changed after it was written (an edit, a flipped bit, another
 * count's entry copied over it) no longer matches it, and is made again,
 * never shown.  Each string with its length, each number exactly. */
static void count_digest(const bv_count *c, char out[41])
{
	bv_buf b = BV_BUF_INIT;
	const char *strs[] = {c->cell, bv_status_name(c->status), c->reason, c->simd_isa};
	for (size_t i = 0; i < sizeof(strs) / sizeof(*strs); i++)
		bv_buf_printf(&b, "%zd:%s\n", strs[i] ? (ssize_t)strlen(strs[i]) : (ssize_t)-1, strs[i] ? strs[i] : "");
	if (c->status == BV_ST_OK) {
		for (int k = 0; k < BV_EV_COUNT; k++)
			bv_buf_printf(&b, "%s %.17g\n", bv_count_event_names[k], c->ev[k]);
		for (size_t i = 0; i < c->nfns; i++)
			bv_buf_printf(&b, "%zu:%s %.17g\n", strlen(c->fns[i].name), c->fns[i].name, c->fns[i].ir);
	}
	bv_hash_bytes(b.s ? b.s : "", b.len, out);
	bv_buf_free(&b);
}

/* NULL when the count c, read from o, is what o's digest says it is;
 * else why not.  An entry without one is taken only when !required
 * (a run's counts.json from before digests). */
const char *bv_count_unsound(const cJSON *o, const bv_count *c, int required)
{
	const char *want = bv_json_str(o, "digest");
	if (!want)
		return required ? "has no digest" : NULL;
	char got[41];
	count_digest(c, got);
	return strcmp(want, got) ? "does not match its digest (changed after it was written)" : NULL;
}

cJSON *bv_count_json(const bv_count *c)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "label", c->label);
	cJSON_AddStringToObject(o, "cell", c->cell);
	cJSON_AddStringToObject(o, "status", bv_status_name(c->status));
	if (c->reason)
		cJSON_AddStringToObject(o, "reason", c->reason);
	if (c->simd_isa)
		cJSON_AddStringToObject(o, "simd_isa", c->simd_isa);
	if (c->status == BV_ST_OK) {
		cJSON *ev = cJSON_AddObjectToObject(o, "events");
		for (int k = 0; k < BV_EV_COUNT; k++)
			cJSON_AddNumberToObject(ev, bv_count_event_names[k], c->ev[k]);
		cJSON *fns = cJSON_AddArrayToObject(o, "functions");
		for (size_t i = 0; i < c->nfns; i++) {
			cJSON *f = cJSON_CreateObject();
			cJSON_AddStringToObject(f, "name", c->fns[i].name);
			cJSON_AddNumberToObject(f, "Ir", c->fns[i].ir);
			cJSON_AddItemToArray(fns, f);
		}
	}
	cJSON_AddNumberToObject(o, "seconds", c->seconds);
	cJSON_AddBoolToObject(o, "cached", c->cached);
	if (c->profile)
		cJSON_AddStringToObject(o, "profile", c->profile);
	char digest[41];
	count_digest(c, digest);
	cJSON_AddStringToObject(o, "digest", digest);
	return o;
}

/* A count from counts.json or the cache; -1 when o is not one (a damaged
 * or hostile file is no count: it is made again). */
int bv_count_read(const cJSON *o, bv_count *c)
{
	memset(c, 0, sizeof(*c));
	const char *label = bv_json_str(o, "label"), *cell = bv_json_str(o, "cell"), *st = bv_json_str(o, "status");
	if (!label || !cell || !st || strlen(st) > 64)
		return -1;
	/* a status this program does not write is a count that failed */
	bv_status status = bv_status_parse_any(st);
	c->label = bv_strdup(label), c->cell = bv_strdup(cell);
	c->status = status != BV_ST_NONE ? status : BV_ST_FAILED;
	const char *r = bv_json_str(o, "reason"), *isa = bv_json_str(o, "simd_isa"), *prof = bv_json_str(o, "profile");
	c->reason = r ? bv_strdup(r) : NULL;
	c->simd_isa = isa && strlen(isa) < 32 ? bv_strdup(isa) : NULL;
	c->profile = prof && bv_path_lexically_inside(prof) ? bv_strdup(prof) : NULL;
	double s;
	c->seconds = bv_json_num(o, "seconds", &s) == 0 && s >= 0 && s < 1e7 ? s : 0;
	const cJSON *cached = cJSON_GetObjectItemCaseSensitive(o, "cached");
	c->cached = cJSON_IsTrue(cached);
	if (c->status != BV_ST_OK)
		return 0;
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(o, "events");
	for (int k = 0; k < BV_EV_COUNT; k++) {
		double v;
		if (bv_json_num(ev, bv_count_event_names[k], &v) != 0 || !(v >= 0) || v > 1e18) {
			bv_count_free(c);
			return -1;
		}
		c->ev[k] = v;
	}
	const cJSON *fns = cJSON_GetObjectItemCaseSensitive(o, "functions"), *f;
	if (!cJSON_IsArray(fns)) {
		bv_count_free(c);
		return -1;
	}
	size_t n = (size_t)cJSON_GetArraySize(fns);
	c->fns = bv_xcalloc(n ? n : 1, sizeof(bv_fn_count));
	cJSON_ArrayForEach(f, fns)
	{
		const char *name = bv_json_str(f, "name");
		double ir;
		if (!name || bv_json_num(f, "Ir", &ir) != 0 || !(ir >= 0) || c->nfns >= BV_COUNT_MAX_FNS) {
			bv_count_free(c);
			return -1;
		}
		c->fns[c->nfns++] = (bv_fn_count){bv_strdup(name), ir};
	}
	return 0;
}
