/*
 * counts.c - why a cell changed: each side's cell run once under Valgrind's
 * callgrind, the counts compared (counts.h says what they can tell).
 *
 * Order of work: the changes to explain are listed (o->which); each needs one
 * count per side, found in the run's counts.json (an earlier explain of the
 * same directory), else in the cache (<cache>/counts/<build key>/<id>.json),
 * else made: `valgrind --tool=callgrind ... bv-runner --count`, at most
 * o->jobs at once, each with a deadline, each in a process group of its own
 * that is killed whole when it ends; we are a subreaper meanwhile, so what
 * left that group (a setsid()'d process of the counted code) comes to us
 * and is killed too.  A count read from a file is checked first: the
 * cache's names its build, identity and cell, and each carries a digest of
 * what it says (count_digest); one that does not match is made again,
 * never shown.  What a count could not do (Valgrind missing or silent, a
 * crash, a deadline) is that count's status, shown beside the verdict;
 * nothing here fails a run but a results file that cannot be written or an
 * interruption.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benches.h"
#include "child.h"
#include "common.h"
#include "counts.h"
#include "env.h"
#include "fs.h"
#include "hash.h"
#include "json.h"
#include "ops_file.h"
#include "proc.h"
#include "progress.h"
#include "suite.h"
#include "table.h"

extern char **environ;

const char *const bv_count_event_names[BV_EV_COUNT] = {"Ir",   "Dr",   "Dw", "I1mr", "D1mr", "D1mw", "ILmr",
						       "DLmr", "DLmw", "Bc", "Bcm",  "Bi",   "Bim"};
const char *const bv_counts_values[] = {"changed", "all", "none", NULL};

/* What a count's identity holds besides the build: bump when the counted
 * region or the simulated machine changes. */
#define COUNT_SCHEMA "bv-count/4" /* 3: no warm call past 16 MiB, LD_BIND_NOW; 4: entries carry their digest */
#define BV_COUNT_MAX_FNS 64            /* functions kept per count */
#define MAX_PROFILE (64 << 20) /* bytes of a callgrind file read */

bv_counts_which bv_counts_parse(const char *s)
{
	return !strcmp(s, "all") ? BV_COUNTS_ALL : !strcmp(s, "none") ? BV_COUNTS_NONE : BV_COUNTS_CHANGED;
}

void bv_count_free(bv_count *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nfns; i++)
		free(c->fns[i].name);
	free(c->fns), free(c->label), free(c->cell), free(c->reason), free(c->simd_isa);
	free(c->profile);
	memset(c, 0, sizeof(*c));
}

void bv_count_cmp_free(bv_count_cmp *c)
{
	if (!c)
		return;
	free(c->text), free(c->fn), free(c->counted_isa), free(c->timed_isa);
	free(c);
}

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

/* ---- comparing two counts ---------------------------------------------- */

static double rel(double a, double b) { return a > 0 ? b / a - 1 : b > 0 ? INFINITY : 0; }

/* Instructions equal within 10 ppm: identical code gives identical counts
 * (a 0.1 % change, a few instructions in a 1M-element loop, is 100 times
 * that); misses within 1 % or 16 lines, since the data's addresses may move
 * by whole pages between two loads of different libraries. */
static int same_instr(double a, double b) { return fabs(b - a) <= 1e-5 * (a > b ? a : b); }
static int same_misses(double a, double b) { return fabs(b - a) <= fmax(16.0, 0.01 * fmax(a, b)); }

static void pct(double r, char *buf, size_t len)
{
	if (isinf(r))
		snprintf(buf, len, "new");
	else if (fabs(r) < 1e-3)
		snprintf(buf, len, "%+.3f %%", 100 * r);
	else if (fabs(r) < 0.1)
		snprintf(buf, len, "%+.2f %%", 100 * r);
	else
		snprintf(buf, len, "%+.1f %%", 100 * r);
}

/* The ISA a side's timed code ran on, where the counted code may differ:
 * the simd backend's own dispatch (the log's simd_isa), and OpenBLAS's,
 * which follows the CPU (Valgrind presents AVX2 whatever the machine). */
static const char *timed_isa(const char *backend, const char *timed_simd, const char *machine_isa)
{
	if (!strcmp(backend, "simd"))
		return timed_simd;
	if (!strcmp(backend, "blas"))
		return machine_isa && !strncmp(machine_isa, "avx512", 6) ? "avx512" : "avx2";
	return NULL;
}

/* Whether a reason names AVX-512 ("no AVX-512F", "avx512f", "AVX512"). */
static int names_avx512(const char *reason)
{
	for (const char *p = reason; p && *p; p++)
		if (!strncasecmp(p, "avx512", 6) || !strncasecmp(p, "avx-512", 7))
			return 1;
	return 0;
}

char *bv_count_missing_note(const bv_count *base, const bv_count *cand)
{
	const bv_count *bad = base->status != BV_ST_OK ? base : cand->status != BV_ST_OK ? cand : NULL;
	if (!bad)
		return NULL;
	/* Timed natively (the only cells counted) but skipped or n/a under
	 * Valgrind: Valgrind's CPU, not the version, is what lacks it.  Said
	 * of the variant, not of a version, so every version's row reads the
	 * same. */
	const bv_count *vg = base->status == BV_ST_SKIPPED || base->status == BV_ST_NA ? base
			     : cand->status == BV_ST_SKIPPED || cand->status == BV_ST_NA ? cand
										      : NULL;
	if (vg && (names_avx512(base->reason) || names_avx512(cand->reason)))
		return bv_strdup("not counted: this variant needs AVX-512, which Valgrind cannot run");
	if (vg)
		return bv_asprintf("not counted: this variant cannot run under Valgrind (%s)",
				   vg->reason ? vg->reason : bv_status_name(vg->status));
	return bv_asprintf("not counted: %s %s%s%s", bad->label, bv_status_name(bad->status), bad->reason ? ": " : "",
			   bad->reason ? bad->reason : "");
}

/* A rough cost of a call in cycles from its counts: each instruction 1,
 * each first-level data miss 10, each last-level one 100, each
 * mispredicted branch 15.  Only for bv_count_weigh: whether the counts can
 * explain the time at all, never shown as a time. */
static double modeled_cost(const double *e)
{
	return e[BV_EV_IR] + 10 * (e[BV_EV_D1MR] + e[BV_EV_D1MW]) + 100 * (e[BV_EV_DLMR] + e[BV_EV_DLMW]) +
	       15 * (e[BV_EV_BCM] + e[BV_EV_BIM]);
}

const char *bv_count_time_kind(const char *kind, double time_ratio, double cost)
{
	if ((strcmp(kind, "code") && strcmp(kind, "data")) || !(time_ratio > 0) || !isfinite(time_ratio) ||
	    !isfinite(cost) || cost <= -1)
		return kind;
	double t = log(time_ratio), w = log1p(cost);
	if ((t < 0 && w > 0) || (t > 0 && w < 0)) /* the other way */
		return "mixed";
	if (fabs(t) > BV_COUNT_TIME_FACTOR * fabs(w) + log1p(BV_COUNT_TIME_FLOOR)) /* far more */
		return "mixed";
	return kind;
}

void bv_count_weigh(bv_count_cmp *c, double time_ratio, int layouts)
{
	const char *kind = bv_count_time_kind(c->kind, time_ratio, c->cost);
	if (kind == c->kind)
		return;
	char tp[32], cp[32];
	pct(time_ratio - 1, tp, sizeof(tp));
	pct(c->cost, cp, sizeof(cp));
	int against = (time_ratio < 1) != (c->cost < 0);
	/* The other way: what moved the time is not this code.  Far more:
	 * the counts carry only part of it, and the rest may be the new code's
	 * latency, which counts do not see (a SIMD math library's new scalar
	 * functions: -17 % instructions, -63 % time, verified outside the
	 * tool), as well as placement or the machine: not said to be either. */
	char *text = against ? bv_asprintf("%s, but the time went the other way (%s against the counts' %s): placement "
					   "or machine dominates, not the code%s",
					   c->text, tp, cp,
					   layouts > 1 ? " (across the layouts measured: more likely the machine)"
						       : "; --layouts 4 tells placement from the machine")
			     : bv_asprintf("%s, but the time moved far more (%s against the counts' %s): more than the "
					   "counted work explains (latency the counts do not see, placement or the "
					   "machine)%s",
					   c->text, tp, cp,
					   layouts > 1 ? "" : "; --layouts 4 tells placement apart");
	free(c->text);
	c->text = text;
	c->kind = kind;
}

bv_count_cmp *bv_count_compare(const bv_count *base, const bv_count *cand, const char *backend,
			       const char *timed_base, const char *timed_cand, const char *machine_isa)
{
	bv_count_cmp *c = bv_xcalloc(1, sizeof(*c));
	c->kind = "unknown";
	c->instr = c->d1 = c->ll = c->mispred = c->cost = NAN;
	if (!strcmp(backend, "cuda")) {
		c->text = bv_strdup("not counted: a GPU cell");
		return c;
	}
	char *missing = bv_count_missing_note(base, cand);
	if (missing) {
		c->text = missing;
		return c;
	}
	const double *a = base->ev, *b = cand->ev;
	c->ir_base = a[BV_EV_IR], c->ir_cand = b[BV_EV_IR];
	c->instr = rel(a[BV_EV_IR], b[BV_EV_IR]);
	c->d1 = rel(a[BV_EV_D1MR] + a[BV_EV_D1MW], b[BV_EV_D1MR] + b[BV_EV_D1MW]);
	c->ll = rel(a[BV_EV_DLMR] + a[BV_EV_DLMW], b[BV_EV_DLMR] + b[BV_EV_DLMW]);
	c->mispred = rel(a[BV_EV_BCM] + a[BV_EV_BIM], b[BV_EV_BCM] + b[BV_EV_BIM]);
	c->cost = rel(modeled_cost(a), modeled_cost(b));
	/* The function whose instructions moved most, by name across versions. */
	double best = 0;
	for (int side = 0; side < 2; side++) {
		const bv_count *x = side ? cand : base, *y = side ? base : cand;
		for (size_t i = 0; i < x->nfns; i++) {
			double other = 0;
			for (size_t j = 0; j < y->nfns; j++)
				if (!strcmp(x->fns[i].name, y->fns[j].name))
					other = y->fns[j].ir;
			double fa = side ? other : x->fns[i].ir, fb = side ? x->fns[i].ir : other;
			if (fabs(fb - fa) > best) {
				best = fabs(fb - fa);
				free(c->fn);
				c->fn = bv_strdup(x->fns[i].name);
				c->fn_base = fa, c->fn_cand = fb;
			}
		}
	}
	int code = !same_instr(a[BV_EV_IR], b[BV_EV_IR]);
	int data = !same_misses(a[BV_EV_D1MR] + a[BV_EV_D1MW], b[BV_EV_D1MR] + b[BV_EV_D1MW]) ||
		   !same_misses(a[BV_EV_DLMR] + a[BV_EV_DLMW], b[BV_EV_DLMR] + b[BV_EV_DLMW]);
	char ins[32], fnp[32], d1[32], ll[32];
	pct(c->instr, ins, sizeof(ins));
	pct(rel(c->fn_base, c->fn_cand), fnp, sizeof(fnp));
	pct(c->d1, d1, sizeof(d1));
	pct(c->ll, ll, sizeof(ll));
	char what[256];
	if (code && c->fn && c->fn_base == 0) /* a function the baseline lacks: new, or renamed */
		snprintf(what, sizeof(what), "instr %s (%s, a function the baseline has not)", ins, c->fn);
	else if (code && c->fn && c->fn_cand == 0)
		snprintf(what, sizeof(what), "instr %s (%s, gone from this version)", ins, c->fn);
	else if (code && c->fn)
		snprintf(what, sizeof(what), "instr %s (%s %s)", ins, c->fn, fnp);
	else if (code)
		snprintf(what, sizeof(what), "instr %s", ins);
	else if (data)
		snprintf(what, sizeof(what), "same instructions, data misses D1 %s, LL %s: the data's layout", d1, ll);
	else
		snprintf(what, sizeof(what), "same instructions and misses");
	/* Did the counts follow the timed code?  Each side's counted ISA
	 * against the one it was timed on. */
	const char *tb = timed_isa(backend, timed_base, machine_isa), *tc = timed_isa(backend, timed_cand, machine_isa);
	const char *cb = !strcmp(backend, "blas") ? "avx2" : base->simd_isa;
	const char *cc = !strcmp(backend, "blas") ? "avx2" : cand->simd_isa;
	if (tb || tc || !strcmp(backend, "simd") || !strcmp(backend, "blas")) {
		c->counted_isa = bv_strdup(cc ? cc : "-");
		c->timed_isa = bv_strdup(tc ? tc : "-");
		int followed = tb && tc && cb && cc && !strcmp(tb, cb) && !strcmp(tc, cc);
		if (!followed) {
			/* Never "not the code" from counts of another path: an
			 * AVX-512-only change is invisible to the AVX2 counts. */
			c->text = bv_asprintf("%s on the %s path counted; %s timed: cannot tell code from placement", what,
					      c->counted_isa, c->timed_isa);
			return c;
		}
	}
	c->kind = code ? "code" : data ? "data" : "placement";
	if (!code && !data)
		c->text = bv_strdup("same instructions and misses: placement or machine, not the code");
	else
		c->text = bv_strdup(what);
	return c;
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
static const char *bv_count_unsound(const cJSON *o, const bv_count *c, int required)
{
	const char *want = bv_json_str(o, "digest");
	if (!want)
		return required ? "has no digest" : NULL;
	char got[41];
	count_digest(c, got);
	return strcmp(want, got) ? "does not match its digest (changed after it was written)" : NULL;
}

static cJSON *bv_count_json(const bv_count *c)
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
static int bv_count_read(const cJSON *o, bv_count *c)
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

/* ---- making counts ------------------------------------------------------ */

/* One count to make or find. */
typedef struct bv_count_job {
	bv_count c;
	const char *key;      /* the version's build key */
	const char *timed;    /* the simd ISA it was timed on (--simd-isa for the count), or NULL */
	const char *bench, *op, *backend;
	size_t size;
	char id[41];          /* the count's identity in the cache */
	char cg_digest[41];   /* its callgrind file's digest, once made ("": none) */
	char *dir;            /* its scratch directory while it runs */
	pid_t pid;
	double started, deadline;
	int state;            /* 0 to make, 1 running, 2 done, 3 none to show (compare, nothing counted) */
} bv_count_job;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void set_status(bv_count *c, bv_status status, char *reason)
{
	free(c->reason);
	c->status = status;
	c->reason = reason;
}

/* The simd ISA a count asks for: the one the version was timed on, so the
 * counted path is the timed one, except avx512, which Valgrind 3.19 does
 * not run (the count then takes Valgrind's CPU's, and says so). */
static const char *count_isa(const char *timed)
{
	return timed && strcmp(timed, "avx512") && strlen(timed) < 32 ? timed : NULL;
}

static char *cache_path(const bv_count_job *j, const char *ext)
{
	return bv_asprintf("%s/counts/%s/%s.%s", bv_cache_dir(), j->key, j->id, ext);
}

/* bv-runner --count for the job's one cell under callgrind, with the
 * simulated caches of a fixed geometry (BV_COUNT_CACHES). */
static void count_argv(const bv_count_job *j, const char *valgrind, const char *plugin, const char *size,
		       bv_strv *argv)
{
	bv_strv_push(argv, valgrind);
	bv_strv_push(argv, "--tool=callgrind");
	bv_strv_pushf(argv, "--callgrind-out-file=%s/callgrind.out", j->dir);
	bv_strv_pushf(argv, "--log-file=%s/valgrind.log", j->dir);
	/* nothing simulated before bv-runner asks (CALLGRIND_START_INSTRUMENTATION
	 * before its warm call): loading, setup and making the inputs run at
	 * full speed, 2.5x less time for a 1M-element exp */
	bv_strv_push(argv, "--instr-atstart=no");
	bv_strv_push(argv, "--collect-atstart=no");
	bv_strv_push(argv, "--cache-sim=yes");
	bv_strv_push(argv, "--branch-sim=yes");
	const char *caches[] = {BV_COUNT_CACHES};
	for (size_t i = 0; i < sizeof(caches) / sizeof(*caches); i++)
		bv_strv_push(argv, caches[i]);
	bv_strv_pushf(argv, "%s/bv-runner", bv_libexec());
	bv_strv_push(argv, "--count");
	bv_strv_push(argv, "--out");
	bv_strv_pushf(argv, "%s/count.json", j->dir);
	bv_strv_push(argv, "--threads");
	bv_strv_push(argv, "1");
	if (count_isa(j->timed)) {
		bv_strv_push(argv, "--simd-isa");
		bv_strv_push(argv, count_isa(j->timed));
	}
	if (bv_ops_file_hash()) {
		bv_strv_push(argv, "--ops-file");
		bv_strv_push(argv, bv_ops_file_path());
		bv_strv_push(argv, "--ops-hash");
		bv_strv_push(argv, bv_ops_file_hash());
	}
	/* The same for a project suite's description (suite.h): its group
	 * is registered after the catalog's and the ops file's. */
	bv_suite_runner_args(argv);
	const char *lists[][2] = {{"--benches", j->bench}, {"--ops", j->op}, {"--backends", j->backend},
				  {"--sizes", size}};
	for (size_t i = 0; i < 4; i++)
		bv_strv_push(argv, lists[i][0]), bv_strv_push(argv, lists[i][1]);
	bv_strv_push(argv, "--only");
	bv_strv_push(argv, "0");
	bv_strv_pushf(argv, "%s=%s", j->c.label, plugin);

}

/* The runner's environment: the library under test learns no secret
 * (bv_child_environ), and one thread, as the count says.  The strings
 * are env's (freed by the caller after the array). */
static char **count_environ(char **env)
{
	size_t ne = 0;
	while (env[ne])
		ne++;
	char **env2 = bv_xcalloc(ne + 4, sizeof(char *));
	size_t k = 0;
	for (size_t i = 0; i < ne; i++)
		if (strncmp(env[i], "OPENBLAS_NUM_THREADS=", 21) && strncmp(env[i], "OMP_NUM_THREADS=", 16) &&
		    strncmp(env[i], "LD_BIND_NOW=", 12))
			env2[k++] = env[i];
	env2[k++] = "OPENBLAS_NUM_THREADS=1";
	env2[k++] = "OMP_NUM_THREADS=1";
	/* every symbol bound at load: no lazy binding inside a counted call
	 * (a large cell's counted call is its first: bv-runner --count) */
	env2[k++] = "LD_BIND_NOW=1";
	return env2;
}

/* fork and exec, not posix_spawn: the child dies with us (PDEATHSIG
 * survives the exec), so a count never outlives a killed bench-versions,
 * whose deadline is the only one it has; and it leads a group of its
 * own, killed whole when the count ends, with what the kernel started.
 * Its output goes to log.  The child's pid, or -1 with errno. */
static pid_t spawn_count(char **argv, char **env, const char *log)
{
	pid_t parent = getpid();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		int in = open("/dev/null", O_RDONLY), out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
			_exit(127);
		execvpe(argv[0], argv, env);
		dprintf(2, "cannot start %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid > 0)
		setpgid(pid, pid); /* as the child does: whichever runs first */
	return pid;
}

static int start(bv_count_job *j, const char *valgrind, const char *tmp, double timeout_s)
{
	char size[32];
	bv_size_format(j->size, size, sizeof(size));
	j->dir = bv_mkdtemp_in(tmp, "count-");
	if (!j->dir) {
		set_status(&j->c, BV_ST_FAILED, bv_asprintf("cannot make a scratch directory in %s", tmp));
		j->state = 2;
		return 0;
	}
	char plugin[4096];
	snprintf(plugin, sizeof(plugin), "%s/builds/%s/plugin-host.so", bv_cache_dir(), j->key);
	if (!bv_exists(plugin))
		snprintf(plugin, sizeof(plugin), "%s/builds/%s/plugin.so", bv_cache_dir(), j->key);
	if (!bv_exists(plugin)) {
		set_status(&j->c, BV_ST_NOT_RUN, bv_asprintf("the build %s is not in the cache (%s) any more",
							     j->key, bv_cache_dir()));
		j->state = 2;
		return 0;
	}
	bv_strv argv = BV_STRV_INIT;
	count_argv(j, valgrind, plugin, size, &argv);
	char *log = bv_asprintf("%s/output.log", j->dir);
	char **env = bv_child_environ(environ, BV_ENV_RUNNER);
	char **env2 = count_environ(env);
	pid_t pid = spawn_count(argv.v, env2, log);
	int rc = pid < 0 ? errno : 0;
	j->pid = pid;
	free(log);
	free(env2), free(env);
	bv_strv_free(&argv);
	if (rc != 0) {
		set_status(&j->c, BV_ST_NOT_RUN, bv_asprintf("cannot start %s: %s", valgrind, strerror(rc)));
		j->state = 2;
		return 0;
	}
	bv_child_track(j->pid);
	j->started = now_s();
	j->deadline = j->started + timeout_s;
	j->state = 1;
	return 0;
}

/* The last line of a file that says something, for a reason. */
static char *last_words(const char *path)
{
	char *tail = bv_file_tail(path, 600);
	if (!tail)
		return NULL;
	size_t n = strlen(tail);
	while (n && (tail[n - 1] == '\n' || tail[n - 1] == ' '))
		tail[--n] = '\0';
	char *nl = strrchr(tail, '\n');
	char *s = bv_strdup(nl ? nl + 1 : tail);
	free(tail);
	/* valgrind's prefix "==123== " says nothing to a user */
	if (s[0] == '=' && s[1] == '=') {
		char *e = strstr(s + 2, "== ");
		if (e)
			memmove(s, e + 3, strlen(e + 3) + 1);
	}
	return s;
}

/* A count's callgrind file in the results, counts/profiles/LABEL/CELL
 * (CELL's slashes as dashes): j->c.profile gets its relative path.  Best
 * effort: the count stands without it. */
static void keep_profile(bv_count_job *j, const char *results_dir, const char *text, size_t len)
{
	/* a label read from a log is hostile: one path component, or no file */
	const char *l = j->c.label;
	if (!*l || strchr(l, '/') || !strcmp(l, ".") || !strcmp(l, "..") || !bv_path_lexically_inside(l))
		return;
	char *cell = bv_strdup(j->c.cell);
	for (char *p = cell; *p; p++)
		if (*p == '/')
			*p = '-';
	char *rel = bv_asprintf("counts/profiles/%s/%s.callgrind", j->c.label, cell);
	char *full = bv_asprintf("%s/%s", results_dir, rel), *sub = bv_asprintf("counts/profiles/%s", j->c.label);
	free(j->c.profile);
	j->c.profile = NULL;
	/* each directory the run's own, never a link out of it */
	if (bv_mkdir_inside(results_dir, sub) == 0 && bv_write_file_atomic(full, text, len) == 0)
		j->c.profile = rel, rel = NULL;
	free(rel), free(full), free(sub), free(cell);
}

/* What a count that exited 0 left: bv-runner's document d, and the
 * callgrind file out, into j (kept in the cache when cache_ok, and in the
 * results).  Nonzero when what failed is Valgrind's doing, not the
 * build's (such a count is not cached). */
static int read_count(bv_count_job *j, const cJSON *d, const char *out, const char *results_dir, int cache_ok)
{
	int fault = 0;
	/* the runner's status, as a log says it; one it does not say is a failure */
	bv_status st = bv_status_parse(bv_json_str(d, "status"));
	const char *isa = bv_json_str(d, "simd_isa");
	const cJSON *on = cJSON_GetObjectItemCaseSensitive(d, "on_valgrind");
	free(j->c.simd_isa);
	j->c.simd_isa = isa && strlen(isa) < 32 ? bv_strdup(isa) : NULL;
	if (!cJSON_IsTrue(on)) {
		set_status(&j->c, BV_ST_FAILED, bv_strdup("the runner did not run under Valgrind"));
		fault = 1;
	} else if (st != BV_ST_OK) {
		const char *r = bv_json_str(d, "reason");
		set_status(&j->c, st != BV_ST_NONE ? st : BV_ST_FAILED, r ? bv_strdup(r) : NULL);
	} else {
		char *text = NULL, why[200];
		size_t len = 0;
		if (bv_read_file(out, MAX_PROFILE, &text, &len) != 0) {
			set_status(&j->c, BV_ST_FAILED,
				   bv_asprintf("no callgrind file: %s", bv_error_last()));
			fault = 1;
		} else if (bv_callgrind_parse(text, len, BV_COUNT_MAX_FNS, &j->c, why, sizeof(why)) != 0) {
			set_status(&j->c, BV_ST_FAILED, bv_asprintf("callgrind's file: %s", why));
			fault = 1;
		} else {
			set_status(&j->c, BV_ST_OK, NULL);
			/* The file itself, for callgrind_annotate or KCachegrind:
			 * in the cache beside the count, and in the results. */
			char *keep = cache_path(j, "callgrind");
			bv_hash_bytes(text, len, j->cg_digest);
			if (cache_ok)
				(void)bv_write_file_atomic(keep, text, len);
			free(keep);
			keep_profile(j, results_dir, text, len);
		}
		free(text);
	}
	return fault;
}

/* A count's process has ended with wait status ws: read what it left. */
static void finish(bv_count_job *j, int ws, const char *results_dir, double timeout_s, int timed_out)
{
	j->c.seconds = now_s() - j->started;
	char *cdir = bv_asprintf("%s/counts/%s", bv_cache_dir(), j->key);
	int cache_ok = bv_mkdir_p(cdir) == 0; /* a cache that cannot be written costs a count next time only */
	free(cdir);
	char *out = bv_asprintf("%s/callgrind.out", j->dir), *doc = bv_asprintf("%s/count.json", j->dir);
	char *vlog = bv_asprintf("%s/valgrind.log", j->dir), *olog = bv_asprintf("%s/output.log", j->dir);
	cJSON *d = NULL;
	int vg_fault = 0; /* Valgrind's doing, not the build's */
	if (timed_out)
		set_status(&j->c, BV_ST_TIMEOUT,
			   bv_asprintf("no count after %g s under Valgrind (about 50x slower than native; "
				       "--count-timeout gives more)",
				       timeout_s));
	else if (WIFSIGNALED(ws)) {
		/* Valgrind ends itself with the signal that ended the program;
		 * an instruction it cannot run (AVX-512 in 3.19) says so first. */
		char *vl = NULL;
		size_t vlen;
		int unknown = bv_read_file(vlog, 1 << 20, &vl, &vlen) == 0 && strstr(vl, "unhandled instruction");
		free(vl);
		set_status(&j->c, BV_ST_CRASHED,
			   bv_asprintf("signal %d (%s) under Valgrind%s", WTERMSIG(ws), strsignal(WTERMSIG(ws)),
				       unknown ? ", at an instruction Valgrind cannot run (AVX-512 code, or built "
						 "with -march=native?)"
					       : ""));
	}
	else if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
		char *w = last_words(vlog);
		char *o = last_words(olog);
		const char *say = w && *w && strstr(w, "Process terminating") == NULL ? w : o && *o ? o : w;
		set_status(&j->c, BV_ST_CRASHED,
			   bv_asprintf("exited with status %d under Valgrind%s%s", WIFEXITED(ws) ? WEXITSTATUS(ws) : -1,
				       say && *say ? ": " : "", say ? say : ""));
		free(w), free(o);
	} else if (bv_json_load(doc, 1 << 20, &d) != 0) {
		/* A success that left no counts is no crash of the version:
		 * bv-runner writes count.json before it exits 0, so what ran as
		 * Valgrind did not run it (a stub, a wrapper) or lost its file. */
		int none = !bv_exists(doc);
		char *w = bv_exists(vlog) ? last_words(vlog) : NULL, *o = bv_exists(olog) ? last_words(olog) : NULL;
		const char *say = w && *w ? w : o && *o ? o : NULL;
		if (none)
			set_status(&j->c, BV_ST_FAILED,
				   bv_asprintf("Valgrind exited 0 without writing its counts (bv-runner's count.json is "
					       "missing%s%s)",
					       say ? "; its last words: " : "", say ? say : ""));
		else
			set_status(&j->c, BV_ST_FAILED,
				   bv_asprintf("Valgrind exited 0, but its counts cannot be read: %s", bv_error_last()));
		free(w), free(o);
		vg_fault = 1;
	} else
		vg_fault = read_count(j, d, out, results_dir, cache_ok);
	cJSON_Delete(d);
	/* Only what the same build will count again the same way: not a
	 * timeout (a busier machine), not a count that could not start, not
	 * what Valgrind failed to do (a stub that wrote nothing would stand
	 * for the real one's count under its version). */
	if (!timed_out && !vg_fault && cache_ok && j->c.status != BV_ST_NOT_RUN) {
		char *path = cache_path(j, "json");
		cJSON *o = bv_count_json(&j->c);
		/* what it is the count of, checked when it is read (from_cache) */
		cJSON_AddStringToObject(o, "build_key", j->key);
		cJSON_AddStringToObject(o, "id", j->id);
		if (j->cg_digest[0])
			cJSON_AddStringToObject(o, "callgrind_digest", j->cg_digest);
		(void)bv_json_save(path, o);
		cJSON_Delete(o);
		free(path);
	}
	bv_rm_rf(j->dir);
	free(j->dir);
	j->dir = NULL;
	free(out), free(doc), free(vlog), free(olog);
	j->state = 2;
}

/* Why the cache's entry d (read into c) is not the count job j looks for,
 * or NULL when it is: the build, the count's identity and the cell it
 * names are j's, its content is what its digest says, and so is its
 * callgrind file's (read into *text, when there is one).  To free. */
static char *cache_entry_fault(const cJSON *d, const bv_count *c, const bv_count_job *j, const char *cg,
			       char **text, size_t *len)
{
	const char *key = bv_json_str(d, "build_key"), *id = bv_json_str(d, "id");
	const char *cgd = bv_json_str(d, "callgrind_digest"), *unsound;
	if (strcmp(c->cell, j->c.cell))
		return bv_asprintf("names the cell %.200s, not %s", c->cell, j->c.cell);
	if (!key || strcmp(key, j->key))
		return bv_asprintf("names the build %.64s, not %s", key ? key : "(none)", j->key);
	if (!id || strcmp(id, j->id))
		return bv_asprintf("is the count %.64s, not %s", id ? id : "(none)", j->id);
	if ((unsound = bv_count_unsound(d, c, 1)))
		return bv_strdup(unsound);
	/* a callgrind file that is not there is no count's fault (it is
	 * written after the count, best effort): the count stands alone */
	if (c->status == BV_ST_OK && bv_read_file(cg, MAX_PROFILE, text, len) == 0) {
		char got[41];
		bv_hash_bytes(*text, *len, got);
		if (!cgd || strcmp(cgd, got))
			return bv_asprintf("has a callgrind file (%s) that does not match its digest", cg);
	}
	return NULL;
}

/* The cache's copy of a count, with its callgrind file copied into the
 * results; 0 when found.  An entry that is not the count asked for, or
 * not what it was when written, is said, removed and made again: the
 * "why" is never taken from a file that changed. */
static int from_cache(bv_count_job *j, const char *results_dir)
{
	char *path = cache_path(j, "json"), *cg = cache_path(j, "callgrind"), *text = NULL, *fault = NULL;
	size_t len = 0;
	cJSON *d = NULL;
	bv_count c;
	memset(&c, 0, sizeof(c));
	int rc = -1;
	if (!bv_exists(path))
		;
	else if (bv_json_load(path, 1 << 20, &d) != 0)
		fault = bv_asprintf("cannot be read (%s)", bv_error_last());
	else if (bv_count_read(d, &c) != 0)
		fault = bv_strdup("is not a count");
	else if (!(fault = cache_entry_fault(d, &c, j, cg, &text, &len)))
		rc = 0;
	cJSON_Delete(d);
	if (fault) {
		fprintf(stderr, "counts: the cache's count of %s %s (%s) %s: it is made again\n", j->c.label, j->c.cell,
			path, fault);
		unlink(path), unlink(cg);
		bv_count_free(&c);
	}
	if (rc == 0) {
		free(c.label), free(c.cell);
		c.label = j->c.label, c.cell = j->c.cell;
		j->c.label = j->c.cell = NULL;
		bv_count_free(&j->c);
		j->c = c;
		j->c.cached = 1;
		free(j->c.profile);
		j->c.profile = NULL;
		if (text)
			keep_profile(j, results_dir, text, len);
		j->state = 2;
	}
	free(text), free(cg), free(path), free(fault);
	return rc;
}

/* How long `valgrind --version` is waited for: it answers at once, but a
 * broken or wrapped one that never does must not hang the run. */
#define PROBE_S 10

static void keep_probe(void *ctx, const char *data, size_t n)
{
	bv_buf *b = ctx;
	if (b->len < 200)
		bv_buf_putn(b, data, n < 200 - b->len ? n : 200 - b->len);
}

/* "valgrind-3.19.0", or NULL with *why (to free) when there is none to
 * count with: not found, no answer within PROBE_S (killed), or an answer
 * that is not a version.  Forked and exec'd as a count is (spawn_count):
 * the probe dies with us, even by SIGKILL, and leads a group of its own,
 * killed whole when it does not answer. */
static char *valgrind_version(const char *valgrind, char **why)
{
	*why = NULL;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		*why = bv_asprintf("cannot ask %s its version: pipe: %s", valgrind, strerror(errno));
		return NULL;
	}
	char *argv[] = {(char *)valgrind, "--version", NULL};
	char **env = bv_child_environ(environ, BV_ENV_BUILD);
	pid_t parent = getpid();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(126);
		int in = open("/dev/null", O_RDWR);
		if (in < 0 || dup2(in, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(in, 2) < 0)
			_exit(126);
		execvpe(argv[0], argv, env);
		_exit(errno == ENOENT ? 127 : 126);
	}
	int err = errno;
	free(env);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		*why = bv_asprintf("cannot ask %s its version: fork: %s", valgrind, strerror(err));
		return NULL;
	}
	setpgid(pid, pid); /* as the child does: whichever runs first */
	bv_child_track(pid);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double deadline = ((double)ts.tv_sec + PROBE_S) * 1e9 + (double)ts.tv_nsec;
	bv_buf b = BV_BUF_INIT;
	bv_buf_puts(&b, "");
	int late = bv_read_child(fds[0], pid, deadline, keep_probe, &b) == 1;
	close(fds[0]);
	if (late) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	int ws = 0;
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	bv_child_untrack(pid);
	char *out = bv_buf_detach(&b);
	out[strcspn(out, "\r\n")] = '\0';
	if (late)
		*why = bv_asprintf("%s did not answer --version within %d s (killed; BV_VALGRIND names another "
				   "valgrind)",
				   valgrind, PROBE_S);
	else if (WIFEXITED(ws) && WEXITSTATUS(ws) == 127 && !*out)
		*why = bv_asprintf("%s not found (apt-get install valgrind, or scripts/deps.sh): its counts say why "
				   "a cell changed",
				   valgrind);
	else if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0 || strncmp(out, "valgrind-", 9))
		*why = bv_asprintf("%s --version did not say a version (%s %d%s%.60s)", valgrind,
				   WIFEXITED(ws) ? "exit status" : "signal",
				   WIFEXITED(ws) ? WEXITSTATUS(ws) : WTERMSIG(ws), *out ? ", said: " : "", out);
	if (*why) {
		free(out);
		return NULL;
	}
	return out;
}

/* ---- the stage ----------------------------------------------------------- */

/* Whether change ch of a row is one o asks to explain. */
static int wanted(const bv_counts_opts *o, const bv_row *r, const bv_change *ch)
{
	if (!strcmp(r->backend, "cuda"))
		return 0;
	if (o->which == BV_COUNTS_ALL)
		return 1;
	return o->which == BV_COUNTS_CHANGED && ch->valid && ch->verdict != BV_SAME;
}

static bv_count_job *find(bv_count_job *js, size_t n, const char *label, const char *cell)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(js[i].c.label, label) && !strcmp(js[i].c.cell, cell))
			return &js[i];
	return NULL;
}

static int run_jobs(bv_count_job *js, size_t n, const bv_counts_opts *o, const char *results_dir,
		    const char *valgrind)
{
	char *tmp = bv_asprintf("%s/counts", bv_cache_dir());
	if (bv_mkdir_p(tmp) != 0) {
		free(tmp);
		return bv_fail(BV_ERUN, "cannot make %s/counts: %s", bv_cache_dir(), bv_error_last());
	}
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int jobs = o->jobs > 0 ? o->jobs : cpus > 0 ? (int)cpus : 1;
	size_t next = 0, running = 0, done = 0, total = 0;
	for (size_t i = 0; i < n; i++)
		total += js[i].state == 0;
	int rc = 0;
	double t0 = now_s(), last = t0;
	int tty = isatty(2), drawn = 0, estimated = 0;
	/* bv_count_jobs_make made us a subreaper: what a count leaves is killed
	 * whenever no count runs (every child then is such a leftover). */
	while (rc == 0 && (next < n || running)) {
		while (next < n && (int)running < jobs) {
			bv_count_job *j = &js[next++];
			if (j->state != 0)
				continue;
			start(j, valgrind, tmp, o->timeout_s);
			if (j->state == 1)
				running++;
			else
				done++;
		}
		int ws;
		pid_t pid = waitpid(-1, &ws, WNOHANG);
		for (size_t i = 0; pid > 0 && i < n; i++)
			if (js[i].state == 1 && js[i].pid == pid) {
				bv_child_untrack(pid);
				kill(-pid, SIGKILL); /* what it left in its group */
				finish(&js[i], ws, results_dir, o->timeout_s, 0);
				running--, done++;
				if (!running)
					bv_kill_children();
			}
		double t = now_s();
		for (size_t i = 0; i < n; i++)
			if (js[i].state == 1 && t > js[i].deadline) {
				kill(-js[i].pid, SIGKILL);
				kill(js[i].pid, SIGKILL);
				while (waitpid(js[i].pid, &ws, 0) < 0 && errno == EINTR)
					;
				bv_child_untrack(js[i].pid);
				finish(&js[i], ws, results_dir, o->timeout_s, 1);
				running--, done++;
				if (!running)
					bv_kill_children();
			}
		if (bv_interrupted())
			rc = bv_fail(BV_EINTR, "interrupted (%s) while counting under Valgrind; the run's logs are "
					       "complete: bench-versions compare %s --counts changed counts the rest",
				     bv_interrupted() == SIGTERM ? "SIGTERM" : "SIGINT", results_dir);
		/* What it is doing, and how long it has left (from the calls
		 * done so far): redrawn on a terminal every 2 s, a line every
		 * progress interval elsewhere (a CI log showed nothing for
		 * 404 s of counting). */
		long every = tty ? 2 : bv_progress_interval();
		/* the first estimate as soon as one call is done, then every interval */
		int first = done && !estimated && done < total;
		if (every > 0 && (first || t - last > (double)every) && total) {
			estimated |= done > 0;
			char eta[48] = "";
			if (done && done < total)
				snprintf(eta, sizeof(eta), ", about %.0fs left", (t - t0) / (double)done * (double)(total - done));
			fprintf(stderr, "%scounts: %zu of %zu calls under Valgrind, %zu running (%.0fs%s)%s", tty ? "\r\033[K" : "",
				done, total, running, t - t0, eta, tty ? "" : "\n");
			last = t, drawn = tty;
		}
		if (pid <= 0)
			usleep(20000);
	}
	for (size_t i = 0; i < n; i++)
		if (js[i].state == 1) { /* interrupted */
			int ws;
			kill(-js[i].pid, SIGKILL);
			kill(js[i].pid, SIGKILL);
			waitpid(js[i].pid, &ws, 0);
			bv_child_untrack(js[i].pid);
			bv_rm_rf(js[i].dir);
			free(js[i].dir);
			js[i].dir = NULL;
		}
	bv_kill_children();
	if (drawn)
		fprintf(stderr, "\r\033[K");
	free(tmp);
	return rc;
}

/* Finds or makes every job's count (state 0: to make): the cache first,
 * then Valgrind, o->jobs at once.  *vg_version gets Valgrind's version
 * (NULL: none ran); *cached and *made how many came from where. */
static int bv_count_jobs_make(bv_count_job *js, size_t n, const char *results_dir, const bv_counts_opts *o,
			      char **vg_version, size_t *cached, size_t *made)
{
	int rc = 0;
	size_t todo = 0;
	*vg_version = NULL, *cached = 0, *made = 0;
	for (size_t i = 0; i < n; i++)
		todo += js[i].state == 0;
	if (todo) {
		const char *valgrind = getenv("BV_VALGRIND") && *getenv("BV_VALGRIND") ? getenv("BV_VALGRIND") : "valgrind";
		/* The sanitizers' runtime and Valgrind cannot share a process:
		 * a sanitizer build's runner is not counted (make test's ASan
		 * subset runs such a bench-versions). */
#if defined(__SANITIZE_ADDRESS__)
		int sanitized = 1;
#else
		int sanitized = 0;
#endif
		/* A subreaper while counting, as while timing (measure.c): a
		 * process the counted code (or the probe) started and that left
		 * its group (setsid) is not reached by the group's kill, and would
		 * outlive the run with init for a parent.  Here it becomes ours
		 * when its parent ends, and is killed with what it started. */
		int was_subreaper = 0;
		prctl(PR_GET_CHILD_SUBREAPER, &was_subreaper);
		prctl(PR_SET_CHILD_SUBREAPER, 1);
		char *vg_why = NULL;
		*vg_version = sanitized ? NULL : valgrind_version(valgrind, &vg_why);
		bv_kill_children();
		for (size_t i = 0; i < n; i++) {
			bv_count_job *j = &js[i];
			if (j->state != 0)
				continue;
			if (sanitized) {
				free(j->c.reason);
				j->c.reason = bv_strdup("this bench-versions is a sanitizer build (bin-asan/): its "
							"runner cannot run under Valgrind");
				j->state = 2;
				continue;
			}
			if (!*vg_version) {
				free(j->c.reason);
				j->c.reason = bv_strdup(vg_why);
				j->state = 2;
				continue;
			}
			const char *isa = count_isa(j->timed);
			const char *caches[] = {BV_COUNT_CACHES};
			char *idtext = bv_asprintf("%s\n%s\n%s %s %s\n%s\nisa %s\nops %s\n", COUNT_SCHEMA, *vg_version,
						   caches[0], caches[1], caches[2], j->c.cell, isa ? isa : "-",
						   bv_ops_file_hash() ? bv_ops_file_hash() : "-");
			bv_hash_bytes(idtext, strlen(idtext), j->id);
			free(idtext);
			if (from_cache(j, results_dir) == 0)
				(*cached)++;
		}
		size_t left = 0;
		for (size_t i = 0; i < n; i++)
			left += js[i].state == 0;
		if (left) {
			fprintf(stderr, "counts: %zu %s under Valgrind (%s), %zu at once\n", left,
				bv_plural((long long)left, "call", "calls"), *vg_version,
				o->jobs > 0 ? (size_t)o->jobs : (size_t)sysconf(_SC_NPROCESSORS_ONLN));
			/* Ctrl-C and SIGTERM end the counts (and their processes)
			 * cleanly: compare has no handler of its own */
			bv_signals_install();
			rc = run_jobs(js, n, o, results_dir, valgrind);
			*made = left;
		}
		free(vg_why);
		prctl(PR_SET_CHILD_SUBREAPER, was_subreaper);
	}
	return rc;
}

int bv_counts_make(const bv_count_req *reqs, size_t n, const char *results_dir, const bv_counts_opts *o,
		   bv_count *out)
{
	bv_count_job *js = bv_xcalloc(n ? n : 1, sizeof(bv_count_job));
	for (size_t i = 0; i < n; i++) {
		const bv_count_req *q = &reqs[i];
		bv_count_job *j = &js[i];
		char size[32];
		j->c.label = bv_strdup(q->label);
		j->c.cell = bv_asprintf("%s/%s/%s/%s", q->bench, q->op, q->backend, bv_size_format(q->size, size, sizeof(size)));
		j->c.status = BV_ST_NOT_RUN;
		j->bench = q->bench, j->op = q->op, j->backend = q->backend, j->size = q->size;
		j->key = q->build_key, j->timed = q->simd_isa;
		if (!j->key) {
			j->c.reason = bv_strdup("no build to count");
			j->state = 2;
		}
	}
	char *vg = NULL;
	size_t cached, made;
	int rc = bv_count_jobs_make(js, n, results_dir, o, &vg, &cached, &made);
	for (size_t i = 0; i < n; i++)
		out[i] = js[i].c;
	free(js), free(vg);
	return rc;
}

/* What the run's counts.json already holds (an earlier explain of these
 * logs: compare, or run's own before a resume); NULL, said, when it
 * cannot be read. */
static cJSON *counts_had(const char *path, const bv_counts_opts *o)
{
	cJSON *have = NULL;
	if (bv_exists(path) && bv_json_load(path, (size_t)64 << 20, &have) != 0) {
		fprintf(stderr, "bench-versions: %s; %s\n", bv_error_last(),
			o->measure ? "its counts are made again" : "its counts are not shown (--counts makes them again)");
		have = NULL;
	}
	return have;
}

/* One side's job (version x of row r): its count from counts.json when
 * there is one (state 2), none to show when not measuring (state 3), or
 * one to make (state 0). */
static void job_init(bv_count_job *j, const bv_table *t, const bv_row *r, size_t x, const char *cell,
		     const cJSON *have_counts, const bv_counts_opts *o)
{
	memset(j, 0, sizeof(*j));
	j->c.label = bv_strdup(t->labels[x]);
	j->c.cell = bv_strdup(cell);
	j->c.status = BV_ST_NOT_RUN;
	j->bench = r->bench, j->op = r->op, j->backend = r->backend, j->size = r->size;
	j->key = t->meta ? t->meta[x].build_key : NULL;
	j->timed = t->meta ? t->meta[x].simd_isa : NULL;
	const cJSON *e;
	cJSON_ArrayForEach(e, have_counts)
	{
		const char *l = bv_json_str(e, "label"), *c = bv_json_str(e, "cell");
		bv_count got;
		if (l && c && !strcmp(l, j->c.label) && !strcmp(c, cell) && bv_count_read(e, &got) == 0) {
			const char *unsound = bv_count_unsound(e, &got, 0);
			if (unsound) {
				fprintf(stderr, "counts: counts.json's count of %s %s %s: %s\n", l, c, unsound,
					o->measure ? "it is made again" : "it is not shown (--counts makes it again)");
				bv_count_free(&got);
				break;
			}
			bv_count_free(&j->c);
			j->c = got;
			j->state = 2;
			break;
		}
	}
	if (j->state == 0 && !o->measure) {
		/* nothing to show: an older run, or one that counted
		 * none (compare --counts counts it) */
		j->state = 3;
	} else if (j->state == 0 && !j->key) {
		free(j->c.reason);
		j->c.reason = bv_strdup("the log names no build key");
		j->state = 2;
	}
}

/* The jobs: both sides of every change to explain, each (label, cell)
 * once, only where the cell ran; *n of them. */
static bv_count_job *collect_jobs(const bv_table *t, const bv_counts_opts *o, const cJSON *have_counts,
				  size_t *n)
{
	bv_count_job *js = NULL;
	size_t cap = 0;
	*n = 0;
	for (size_t k = 0; k < t->nrows; k++) {
		const bv_row *r = &t->rows[k];
		char cell[512];
		bv_row_key(r, cell, sizeof(cell));
		for (size_t v = 0; v < t->nversions; v++) {
			if (bv_table_is_base(t, v) || !wanted(o, r, &r->changes[v]))
				continue;
			size_t sides[2] = {bv_table_base(t, v), v};
			for (int s = 0; s < 2; s++) {
				size_t x = sides[s];
				if (find(js, *n, t->labels[x], cell) || r->results[x].status != BV_ST_OK)
					continue;
				if (*n == cap)
					js = bv_xrealloc(js, (cap = cap ? 2 * cap : 16) * sizeof(bv_count_job));
				job_init(&js[(*n)++], t, r, x, cell, have_counts, o);
			}
		}
	}
	return js;
}

/* The run's file (path): every count, made or found. */
static int write_counts(const bv_count_job *js, size_t n, const char *vg_version, const char *results_dir,
			const char *path, const bv_counts_opts *o)
{
	int rc = 0;
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", "bv-counts/1");
	if (vg_version)
		cJSON_AddStringToObject(doc, "valgrind", vg_version);
	cJSON_AddStringToObject(doc, "caches", BV_COUNT_CACHES_TEXT);
	cJSON *arr = cJSON_AddArrayToObject(doc, "counts");
	for (size_t i = 0; i < n; i++)
		if (js[i].state != 3)
			cJSON_AddItemToArray(arr, bv_count_json(&js[i].c));
	if (o->measure)
		rc = bv_mkdir_inside(results_dir, "counts");
	if (rc == 0 && o->measure)
		rc = bv_json_save(path, doc);
	cJSON_Delete(doc);
	return rc;
}

/* What the comparisons found, for the table's counts line. */
typedef struct counts_tally {
	size_t kinds[5]; /* of the changes not same: code, data, placement, unknown, mixed */
	size_t counted, changes;
	const char *counted_isa; /* the simd ISA the counts ran on */
} counts_tally;

/* Each explained change's comparison (bv_change.why), from both sides'
 * counts. */
static void compare_changes(bv_table *t, const bv_counts_opts *o, bv_count_job *js, size_t n, counts_tally *ty)
{
	const char *kind_names[] = {"code", "data", "placement", "unknown", "mixed"};
	for (size_t k = 0; k < t->nrows; k++) {
		bv_row *r = &t->rows[k];
		char cell[512];
		bv_row_key(r, cell, sizeof(cell));
		for (size_t v = 0; v < t->nversions; v++) {
			bv_change *ch = &r->changes[v];
			size_t b = bv_table_base(t, v);
			if (bv_table_is_base(t, v) || !wanted(o, r, ch))
				continue;
			bv_count_job *jb = find(js, n, t->labels[b], cell), *jc = find(js, n, t->labels[v], cell);
			if (!jb || !jc || jb->state == 3 || jc->state == 3)
				continue;
			bv_count_cmp_free(ch->why);
			ch->why = bv_count_compare(&jb->c, &jc->c, r->backend, t->meta ? t->meta[b].simd_isa : NULL,
						   t->meta ? t->meta[v].simd_isa : NULL, t->meta ? t->meta[v].isa : NULL);
			ty->counted++;
			/* "not the code" explains a change; beside `same` the counts
			 * only say what they found */
			int same = ch->valid && ch->verdict == BV_SAME;
			/* a called change whose time the counts cannot carry (the
			 * other way, or far more) is not the code's */
			if (ch->valid && (ch->verdict == BV_SLOWER || ch->verdict == BV_FASTER))
				bv_count_weigh(ch->why, ch->ratio, ch->layouts);
			if (same && !strcmp(ch->why->kind, "placement")) {
				free(ch->why->text);
				ch->why->text = bv_strdup("same instructions and misses");
			}
			for (int i = 0; i < 5 && !same; i++)
				ty->kinds[i] += !strcmp(ch->why->kind, kind_names[i]);
			ty->changes += !same;
			if (!strcmp(r->backend, "simd") && jc->c.simd_isa)
				ty->counted_isa = jc->c.simd_isa;
		}
	}
}

/* The table's counts line: how many cells, what the changes were, what
 * was made and what came from the cache. */
static void counts_line(bv_table *t, const counts_tally *ty, const char *vg_version, size_t made,
			size_t cached, double took)
{
	bv_buf b = BV_BUF_INIT;
	bv_buf_printf(&b, "%zu %s counted by Valgrind, one call per side (%s%s%s)", ty->counted,
		      bv_plural((long long)ty->counted, "cell", "cells"), vg_version ? vg_version : "from counts.json",
		      ty->counted_isa ? "; simd counted on " : "", ty->counted_isa ? ty->counted_isa : "");
	if (ty->changes)
		bv_buf_printf(&b, "; of %zu not same: %zu the code, %zu the data's layout, %zu placement or "
				  "machine, %zu not told",
			      ty->changes, ty->kinds[0], ty->kinds[1], ty->kinds[2], ty->kinds[3]);
	if (ty->kinds[4])
		bv_buf_printf(&b, ", %zu not the code's alone (the time past what the counts carry)", ty->kinds[4]);
	if (made)
		bv_buf_printf(&b, "; %zu %s made in %.0f s, %zu from the cache", made,
			      bv_plural((long long)made, "count", "counts"), took, cached);
	bv_buf_printf(&b, "; simulated caches %s; callgrind files in the run's counts/profiles/",
		      BV_COUNT_CACHES_TEXT);
	free(t->counts);
	t->counts = bv_buf_detach(&b);
}

int bv_counts_explain(bv_table *t, const char *results_dir, const bv_counts_opts *o)
{
	if (o->which == BV_COUNTS_NONE || !results_dir)
		return 0;
	/* Counts are written into the run's counts/: a link there would carry
	 * them out of the run (a run's raw/ did once), so it is refused
	 * before anything is counted. */
	char *cdir = bv_asprintf("%s/counts", results_dir);
	int linked = o->measure && bv_exists(cdir) ? bv_mkdir_inside(results_dir, "counts") : 0;
	free(cdir);
	if (linked)
		return linked;
	char *path = bv_asprintf("%s/counts/counts.json", results_dir);
	cJSON *have = counts_had(path, o);
	size_t n = 0;
	bv_count_job *js = collect_jobs(t, o, cJSON_GetObjectItemCaseSensitive(have, "counts"), &n);
	cJSON_Delete(have);
	char *vg_version = NULL;
	size_t cached = 0, made = 0;
	double t0 = now_s();
	int rc = bv_count_jobs_make(js, n, results_dir, o, &vg_version, &cached, &made);
	double took = now_s() - t0;
	if (rc == 0 && n)
		rc = write_counts(js, n, vg_version, results_dir, path, o);
	counts_tally ty;
	memset(&ty, 0, sizeof(ty));
	if (rc == 0)
		compare_changes(t, o, js, n, &ty);
	if (rc == 0 && ty.counted)
		counts_line(t, &ty, vg_version, made, cached, took);
	for (size_t i = 0; i < n; i++)
		bv_count_free(&js[i].c);
	free(js);
	free(vg_version);
	free(path);
	return rc;
}
