/*
 * suite_plugin.c - the plugin runtime of a benchmark suite (bv_suite.h,
 * docs/suites-design.md): compiled per version together with the suite's
 * .c files (which define `const bvs_suite bvs_suite_def`) and linked with
 * that version's library into its plugin, in place of plugin.c.
 *
 * It gives the suite the bvs_* calls, and the runner a bv_plugin whose
 * suite_* members open, check and close the suite's cells; its catalog
 * members answer for a plugin with no catalog: lookup finds the suite's
 * benchmarks only (the timed call is a trampoline into .run), every backend
 * name probes ok (a suite's variants are its own business), memory is the
 * host's.
 *
 * Links only the library and libc/libm (no cJSON, nothing of the harness's
 * host side): the description is written here by hand.
 *
 * A suite that breaks bv_suite.h's rules (an API version it does not load, a
 * bad or repeated name, a params string that does not parse, a variant that
 * is no parameter, a tolerance that is no number) still loads: suite_describe then
 * returns NULL with last_error() saying why, and bv-runner --describe
 * reports it for that version (exit 3, naming the label).  Its lookup and
 * suite_open fail the same way, so no cell of it runs.  What the limits on
 * the description leave to the host (a size that does not parse, too many
 * cells) is found there, by bv_suite_desc_check, with the same message
 * shape.
 */
#include "bv_suite.h"
#include "plugin.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef BVS_VERSION_MAJOR
#define BVS_VERSION_MAJOR 0
#endif
#ifndef BVS_VERSION_MINOR
#define BVS_VERSION_MINOR 0
#endif
#ifndef BVS_VERSION_PATCH
#define BVS_VERSION_PATCH 0
#endif
#define BVS_STR_(x) #x
#define BVS_STR(x) BVS_STR_(x)

extern const bvs_suite bvs_suite_def;
/* BVS_LIBRARY: optional, so weak (NULL when the suite defines none). */
extern const bvs_library bvs_library_def __attribute__((weak));
#define HOOK(name) (&bvs_library_def && bvs_library_def.name ? bvs_library_def.name : NULL)

#ifdef BV_CATALOG_SUITE
/* The catalog suite (catalog.c) is never described to the host: its
 * benchmarks are "<group>__<op>", and an ops file's op names (ops_file.h:
 * a letter, then letters, digits or _, at most 48) are among them, with
 * up to BV_OPS_MAX (256) of them beside the catalog's. */
#define NAME_MAX_ 64
#define BENCH_MAX_ (BVS_MAX_BENCHMARKS + 256)
#define NAME_UPPER_ 1
#else
#define NAME_MAX_ 32  /* suite_file.h: BV_SUITE_NAME_MAX */
#define BENCH_MAX_ BVS_MAX_BENCHMARKS
#define NAME_UPPER_ 0
#endif
#define VALUE_MAX_ 32 /* BV_SUITE_VALUE_MAX */

/* Why the last call on this thread failed (bv_plugin.last_error). */
static _Thread_local char last[1024];

static void set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last, sizeof(last), fmt, ap);
	va_end(ap);
}

/* ---- the suite's declarations, parsed once ---------------------------- */

typedef struct param {
	char name[NAME_MAX_ + 1];
	char values[BVS_MAX_VALUES][VALUE_MAX_ + 1];
	int nvalues;
} param;

typedef struct bench {
	const bvs_benchmark *b;
	param params[BVS_MAX_PARAMS];
	int nparams;
	int variant; /* index of the variant's parameter, or -1 */
} bench;

static bench benches[BENCH_MAX_];
static int nbenches;
static int parsed;          /* 0: not yet; 1: valid; -1: invalid (why in invalid) */
static char invalid[1024];

/* BVS_BENCHMARK's registrations, made by the suite files' constructors when
 * the plugin loads (before anything reads the suite).  Hidden, as
 * bvs_register_ is: each version's plugin has its own.  One past the most
 * the suite may have is kept, so suite_ok can say there were too many. */
typedef struct registration {
	const bvs_benchmark *b;
	const char *file;
	int line;
} registration;
static registration registered[BENCH_MAX_ + 1];
static int nregistered;

__attribute__((visibility("hidden"))) void bvs_register_(const bvs_benchmark *b, const char *file, int line)
{
	if (b && nregistered < BENCH_MAX_ + 1)
		registered[nregistered++] = (registration){b, file ? file : "", line};
}

/* The order the constructors ran in is the linker's, and within a file
 * the compiler's: by file name, then line, a suite lists the same way
 * wherever it is built. */
static int by_place(const void *a, const void *b)
{
	const registration *x = a, *y = b;
	int c = strcmp(x->file, y->file);
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int name_ok(const char *s, size_t n)
{
	if (n == 0 || n > NAME_MAX_)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		      (NAME_UPPER_ && s[i] >= 'A' && s[i] <= 'Z')))
			return 0;
	return 1;
}

static int value_ok(const char *s, size_t n)
{
	if (n == 0 || n > VALUE_MAX_)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      strchr("_.+-", s[i])))
			return 0;
	return 1;
}

/* "size=1K,64K variant=scalar,avx2": parameters apart by spaces, each a
 * name, '=', values apart by commas.  0, or -1 with why. */
static int parse_params(bench *d, const char *s, char *why, size_t len)
{
	d->nparams = 0;
	for (const char *p = s ? s : ""; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		const char *end = p + strcspn(p, " "), *eq = memchr(p, '=', (size_t)(end - p));
		if (!eq) {
			snprintf(why, len, "'%.*s' is no parameter (name=value,value...)", (int)(end - p), p);
			return -1;
		}
		if (!name_ok(p, (size_t)(eq - p))) {
			snprintf(why, len, "'%.*s' is no parameter name ([a-z0-9_], 1 to %d)", (int)(eq - p), p, NAME_MAX_);
			return -1;
		}
		if (d->nparams == BVS_MAX_PARAMS) {
			snprintf(why, len, "more than %d parameters", BVS_MAX_PARAMS);
			return -1;
		}
		param *pa = &d->params[d->nparams];
		memcpy(pa->name, p, (size_t)(eq - p));
		pa->name[eq - p] = '\0';
		for (int i = 0; i < d->nparams; i++)
			if (!strcmp(d->params[i].name, pa->name)) {
				snprintf(why, len, "parameter '%s' declared twice", pa->name);
				return -1;
			}
		pa->nvalues = 0;
		for (const char *v = eq + 1;;) {
			const char *ve = v;
			while (ve < end && *ve != ',')
				ve++;
			if (!value_ok(v, (size_t)(ve - v))) {
				snprintf(why, len, "parameter '%s': '%.*s' is no value ([A-Za-z0-9_.+-], 1 to %d)", pa->name,
					 (int)(ve - v), v, VALUE_MAX_);
				return -1;
			}
			if (pa->nvalues == BVS_MAX_VALUES) {
				snprintf(why, len, "parameter '%s': more than %d values", pa->name, BVS_MAX_VALUES);
				return -1;
			}
			memcpy(pa->values[pa->nvalues], v, (size_t)(ve - v));
			pa->values[pa->nvalues][ve - v] = '\0';
			for (int i = 0; i < pa->nvalues; i++)
				if (!strcmp(pa->values[i], pa->values[pa->nvalues])) {
					snprintf(why, len, "parameter '%s': value '%s' given twice", pa->name, pa->values[i]);
					return -1;
				}
			pa->nvalues++;
			if (ve == end)
				break;
			v = ve + 1;
		}
		d->nparams++;
		p = end;
	}
	return 0;
}

/* The API version the suite was built against, from bvs_suite.abi
 * (BVS_API_VERSION; 1.0's headers wrote 1).  0 when this harness loads it
 * (1.0 or 1.1), else -1 with why in invalid, naming both versions. */
static int api_version_ok(const bvs_suite *s, int *minor)
{
	unsigned v = (unsigned)s->abi, major = v == BVS_ABI ? 1 : v >> 16;
	*minor = v == BVS_ABI ? 0 : (int)(v & 0xffff);
	if (major == BVS_API_VERSION_MAJOR && *minor <= BVS_API_VERSION_MINOR)
		return 0;
	/* The name is the second member in every version of the header. */
	char name[80];
	size_t len = 0;
	while (s->name && len <= NAME_MAX_ && s->name[len])
		len++;
	if (s->name && name_ok(s->name, len))
		snprintf(name, sizeof(name), "suite '%s'", s->name);
	else
		snprintf(name, sizeof(name), "the suite");
	char built[64];
	if (major)
		snprintf(built, sizeof(built), "bv_suite.h %u.%d", major, *minor);
	else
		snprintf(built, sizeof(built), "no bv_suite.h this harness knows (its version %d)", s->abi);
	snprintf(invalid, sizeof(invalid),
		 "%s was built against %s; this harness loads %d.%d (and the %d.x before it): compile the suite "
		 "against this bench-versions' harness/bv_suite.h (a copy of another version on the include path, "
		 "in the suite's or the library's directories, comes first)",
		 name, built, BVS_API_VERSION_MAJOR, BVS_API_VERSION_MINOR, BVS_API_VERSION_MAJOR);
	return -1;
}

/* One benchmark into benches, checked against bv_suite.h's rules: 0, or
 * -1 with why in invalid. */
static int add_bench(const char *suite, const bvs_benchmark *b)
{
	char why[512];
	if (nbenches == BENCH_MAX_) {
		snprintf(invalid, sizeof(invalid), "suite %s: more than %d benchmarks", suite, BENCH_MAX_);
		return -1;
	}
	if (!b->name || !name_ok(b->name, strlen(b->name))) {
		snprintf(invalid, sizeof(invalid), "suite %s: '%.64s' is no benchmark name ([a-z0-9_], 1 to %d)",
			 suite, b->name ? b->name : "(NULL)", NAME_MAX_);
		return -1;
	}
	for (int i = 0; i < nbenches; i++)
		if (!strcmp(benches[i].b->name, b->name)) {
			snprintf(invalid, sizeof(invalid), "suite %s: benchmark '%s' defined twice", suite, b->name);
			return -1;
		}
	bench *d = &benches[nbenches];
	d->b = b;
	if (parse_params(d, b->params, why, sizeof(why))) {
		snprintf(invalid, sizeof(invalid), "suite %s: benchmark '%s': .params: %s", suite, b->name, why);
		return -1;
	}
	d->variant = -1;
	const char *v = b->variant ? b->variant : "variant";
	for (int i = 0; i < d->nparams; i++)
		if (!strcmp(d->params[i].name, v))
			d->variant = i;
	if (b->variant && (d->variant < 0 || !strcmp(b->variant, "size"))) {
		snprintf(invalid, sizeof(invalid),
			 "suite %s: benchmark '%s': .variant '%.64s' is no parameter of it (other than size)", suite,
			 b->name, b->variant);
		return -1;
	}
	if (!(b->max_ulp >= 0 && b->max_ulp <= 1e18) || !(b->rel_tol >= 0 && b->rel_tol <= 1e18)) {
		snprintf(invalid, sizeof(invalid),
			 "suite %s: benchmark '%s': .max_ulp and .rel_tol must be numbers in [0, 1e18]", suite, b->name);
		return -1;
	}
	nbenches++;
	return 0;
}

/* The suite's init and fini (1.1), NULL in a 1.0 suite, whose definition
 * ends before them. */
static bvs_status (*suite_init)(void);
static void (*suite_fini)(void);

/* Checks bvs_suite_def against bv_suite.h's rules, once: the API version
 * it was built against, then its benchmarks, the array's (BVS_SUITE) and
 * the registered ones (BVS_BENCHMARK), as one list. */
static int suite_ok(void)
{
	if (parsed)
		return parsed > 0;
	const bvs_suite *s = &bvs_suite_def;
	int minor;
	parsed = -1;
	if (api_version_ok(s, &minor))
		return 0;
	if (!s->name || !name_ok(s->name, strlen(s->name))) {
		snprintf(invalid, sizeof(invalid), "the suite's name %s%.64s%s is no name ([a-z0-9_], 1 to %d)",
			 s->name ? "'" : "", s->name ? s->name : "(NULL)", s->name ? "'" : "", NAME_MAX_);
		return 0;
	}
	/* 1.0 had the array alone; from 1.1 a suite may have BVS_BENCHMARK
	 * lines instead, or none at all in a version before its first one
	 * (every cell n/a there; a run where no version has one is the host's
	 * to refuse: bv_suite_file_load). */
	if (!s->benchmarks && minor == 0) {
		snprintf(invalid, sizeof(invalid), "suite %s: its benchmarks are NULL", s->name);
		return 0;
	}
	if (minor >= 1)
		suite_init = s->init, suite_fini = s->fini;
	nbenches = 0;
	for (const bvs_benchmark *b = s->benchmarks; b && b->name; b++)
		if (add_bench(s->name, b))
			return 0;
	qsort(registered, (size_t)nregistered, sizeof(registered[0]), by_place);
	for (int i = 0; i < nregistered; i++)
		if (add_bench(s->name, registered[i].b))
			return 0;
	parsed = 1;
	return 1;
}

static const bench *find_bench(const char *name)
{
	for (int i = 0; i < nbenches; i++)
		if (!strcmp(benches[i].b->name, name))
			return &benches[i];
	return NULL;
}

/* ---- the description -------------------------------------------------- */

typedef struct text {
	char *s;
	size_t len, cap;
	int lost;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (t->lost || n < 0)
		return;
	if (t->len + (size_t)n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		while (cap < t->len + (size_t)n + 1)
			cap *= 2;
		char *g = realloc(t->s, cap);
		if (!g) {
			t->lost = 1;
			return;
		}
		t->s = g, t->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

/* A JSON string.  The names and values are checked before they get here,
 * so nothing needs escaping today; the escaping is what keeps a later
 * change of those rules from writing broken JSON. */
static void put_string(text *t, const char *s)
{
	put(t, "\"");
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			put(t, "\\%c", ch);
		else if (ch < 0x20)
			put(t, "\\u%04x", ch);
		else
			put(t, "%c", ch);
	}
	put(t, "\"");
}

static char *description;

static const char *suite_describe(void)
{
	if (!suite_ok()) {
		set_error("%s", invalid);
		return NULL;
	}
	if (description)
		return description;
	text t = {0};
	put(&t, "{\"schema\": \"bench-versions-suite/1\", \"suite\": ");
	put_string(&t, bvs_suite_def.name);
	put(&t, ", \"benchmarks\": [");
	for (int i = 0; i < nbenches; i++) {
		const bench *d = &benches[i];
		put(&t, "%s\n {\"name\": ", i ? "," : "");
		put_string(&t, d->b->name);
		put(&t, ", \"params\": [");
		for (int p = 0; p < d->nparams; p++) {
			put(&t, "%s{\"name\": ", p ? ", " : "");
			put_string(&t, d->params[p].name);
			put(&t, ", \"values\": [");
			for (int v = 0; v < d->params[p].nvalues; v++) {
				put(&t, "%s", v ? ", " : "");
				put_string(&t, d->params[p].values[v]);
			}
			put(&t, "]}");
		}
		put(&t, "], \"variant\": ");
		if (d->variant >= 0)
			put_string(&t, d->params[d->variant].name);
		else
			put(&t, "null");
		put(&t, ", \"max_ulp\": %.17g, \"rel_tol\": %.17g, \"runs\": %s}", d->b->max_ulp, d->b->rel_tol,
		    d->b->run ? "true" : "false");
	}
	put(&t, "]}\n");
	if (t.lost) {
		free(t.s);
		set_error("out of memory for the suite's description");
		return NULL;
	}
	description = t.s;
	return description;
}

/* ---- a cell ------------------------------------------------------------ */

struct bvs_ctx {
	const bench *d;
	char names[BVS_MAX_PARAMS][NAME_MAX_ + 1];
	char values[BVS_MAX_PARAMS][VALUE_MAX_ + 1];
	int nparams;
	uint64_t rng;
	void *state;
	double work[3];
	void **allocs;
	size_t nallocs, cap;
	double alloc_bytes; /* what bvs_alloc gave: the cell's host_bytes */
	int lib_counted;    /* BVS_LIBRARY's memory_mark and _peak around check's run */
	double lib_host, lib_device;
	int set_up; /* setup returned BVS_OK: teardown runs at close */
	int inputs_asked, inputs_made; /* --inputs: bvs_input_sets, bvs_input_sets_made */
	bv_share_fn share;             /* bvs_alloc_shared's memory (suite_share), or NULL */
	void *share_ctx;
	unsigned nshared; /* bvs_alloc_shared's calls so far: the next one's index */
	/* what check named (copies: the suite's memory may be gone after it) */
	void *out;
	size_t nout;
	bvs_type tout;
	double *ref;
	size_t nref;
	int bad_output; /* bvs_output with an unknown type, or no memory for a copy */
	int own_tol;    /* bvs_tolerance was called: max_ulp and rel_tol below, not the benchmark's */
	double max_ulp, rel_tol;
	/* The reason bvs_fail, bvs_na, bvs_skip or bvs_wrong gave in the call
	 * now running (emptied before each): the cell's, so a thread the
	 * suite starts may say it, and no other cell's reason stands in. */
	char why[1024];
	/* The first parameter read wrong (bvs_param: a name the benchmark does
	 * not declare; bvs_param_ll: a value that is no number): it fails the
	 * cell after the call that read it, whatever that call returned. */
	char misread[512];
};

/* c's misread, once: the cell is the suite's (calloc'd in suite_open),
 * never const itself, though the reading calls take it so. */
static void misread(const bvs_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void misread(const bvs_ctx *c, const char *fmt, ...)
{
	bvs_ctx *w = (bvs_ctx *)c;
	if (w->misread[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(w->misread, sizeof(w->misread), fmt, ap);
	va_end(ap);
}

/* A name the benchmark does not declare: misread, naming what it does. */
static void undeclared(const bvs_ctx *c, const char *name)
{
	char declared[256] = "";
	size_t at = 0;
	for (int i = 0; i < c->d->nparams && at < sizeof(declared); i++)
		at += (size_t)snprintf(declared + at, sizeof(declared) - at, "%s%s", i ? ", " : "",
				       c->d->params[i].name);
	misread(c, "benchmark '%s' reads parameter '%.64s', which its params do not declare (declared: %s)",
		c->d->b->name, name ? name : "(NULL)", c->d->nparams ? declared : "none");
}

const char *bvs_param(const bvs_ctx *c, const char *name)
{
	if (!c)
		return NULL;
	for (int i = 0; name && i < c->nparams; i++)
		if (!strcmp(c->names[i], name))
			return c->values[i];
	int declared = 0;
	for (int i = 0; name && i < c->d->nparams; i++)
		declared |= !strcmp(c->d->params[i].name, name);
	if (!declared)
		undeclared(c, name);
	return NULL;
}

const char *bvs_benchmark_name(const bvs_ctx *c)
{
	return c && c->d ? c->d->b->name : NULL;
}

void bvs_tolerance(bvs_ctx *c, double max_ulp, double rel_tol)
{
	if (c && max_ulp >= 0 && max_ulp <= 1e18 && rel_tol >= 0 && rel_tol <= 1e18)
		c->own_tol = 1, c->max_ulp = max_ulp, c->rel_tol = rel_tol;
}

/* The cell's tolerance: its own (bvs_tolerance), else its benchmark's. */
static double tol_ulp(const bvs_ctx *c) { return c->own_tol ? c->max_ulp : c->d->b->max_ulp; }
static double tol_rel(const bvs_ctx *c) { return c->own_tol ? c->rel_tol : c->d->b->rel_tol; }

/* One dimension of a value: digits, then K, M or G (powers of 1024);
 * -1 when it is not one or past 2^62. */
static long long dim_value(const char *s, const char **end)
{
	if (*s < '0' || *s > '9')
		return -1;
	unsigned long long v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned)(*s - '0');
		if (v > (1ull << 62))
			return -1;
	}
	unsigned shift = *s == 'K' || *s == 'k' ? 10 : *s == 'M' || *s == 'm' ? 20 : *s == 'G' || *s == 'g' ? 30 : 0;
	if (shift)
		s++;
	if (v > (1ull << 62) >> shift)
		return -1;
	*end = s;
	return (long long)(v << shift);
}

/* The dimensions of a value "64x32" (up to 3); their count, or 0. */
static int dims_of(const char *s, long long d[3])
{
	int nd = 0;
	d[0] = d[1] = d[2] = 1;
	if (!s)
		return 0;
	for (const char *p = s;;) {
		const char *end;
		long long v = dim_value(p, &end);
		if (v < 0 || nd == 3)
			return 0;
		d[nd++] = v;
		if (!*end)
			return nd;
		if (*end != 'x')
			return 0;
		p = end + 1;
	}
}

/* A value as a number (bvs_param_ll's rules): 0, or -1 when it is none. */
static int number_of(const char *v, long long *out)
{
	long long d[3];
	if (v && v[0] == '-') { /* a negative number, not a shape */
		const char *end;
		long long x = dim_value(v + 1, &end);
		if (x < 0 || *end)
			return -1;
		*out = -x;
		return 0;
	}
	int nd = dims_of(v, d);
	if (!nd)
		return -1;
	long long p = 1;
	for (int i = 0; i < nd; i++) {
		if (d[i] && p > (1ll << 62) / d[i])
			return -1;
		p *= d[i];
	}
	*out = p;
	return 0;
}

bvs_status bvs_param_ll(const bvs_ctx *c, const char *name, long long *out)
{
	long long n = 0;
	const char *v = bvs_param(c, name);
	if (out)
		*out = 0;
	if (!c || !v) /* undeclared: bvs_param said so */
		return BVS_FAIL;
	if (number_of(v, &n)) {
		misread(c,
			"benchmark '%s' reads parameter '%s' as a number, but its value '%s' is none (digits with K, M "
			"or G, a shape such as 64x32, or -digits; at most 2^62)",
			c->d->b->name, name, v);
		return BVS_FAIL;
	}
	if (out)
		*out = n;
	return BVS_OK;
}

long long bvs_param_int(const bvs_ctx *c, const char *name)
{
	long long n;
	return number_of(bvs_param(c, name), &n) ? -1 : n;
}

long long bvs_param_dim(const bvs_ctx *c, const char *name, int i)
{
	long long d[3];
	if (i < 0 || i > 2 || !dims_of(bvs_param(c, name), d))
		return -1;
	return d[i];
}

void *bvs_alloc(bvs_ctx *c, size_t bytes)
{
	if (!c || bytes > SIZE_MAX - 64)
		return NULL;
	if (c->nallocs == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		void **g = realloc(c->allocs, cap * sizeof(*g));
		if (!g)
			return NULL;
		c->allocs = g, c->cap = cap;
	}
	void *p = bv_zalloc64(bytes);
	if (!p)
		return NULL;
	c->allocs[c->nallocs++] = p;
	c->alloc_bytes += (double)bytes;
	return p;
}

/* The runner's sharer for the cells opened from now on (suite_share). */
static bv_share_fn sharer;
static void *sharer_ctx;

static void suite_share(bv_share_fn fn, void *ctx)
{
	sharer = fn, sharer_ctx = ctx;
}

/* bvs_alloc_shared without counting the bytes in host_bytes: the catalog's
 * input sets (catalog.c), which its footprint leaves out as the default
 * path's does. */
__attribute__((visibility("hidden"))) void *bv_alloc_shared_uncounted(bvs_ctx *c, size_t bytes, int *fill);
__attribute__((visibility("hidden"))) void *bv_alloc_shared_uncounted(bvs_ctx *c, size_t bytes, int *fill)
{
	*fill = 1;
	if (!c || bytes > SIZE_MAX - 64)
		return NULL;
	if (!c->share) {
		/* private memory, freed at close as bvs_alloc's */
		double counted = c->alloc_bytes;
		void *p = bvs_alloc(c, bytes);
		c->alloc_bytes = counted;
		return p;
	}
	return c->share(c->share_ctx, c->nshared++, bytes, fill);
}

void *bvs_alloc_shared(bvs_ctx *c, size_t bytes, int *fill)
{
	int f = 1;
	void *p = bv_alloc_shared_uncounted(c, bytes, &f);
	if (p)
		c->alloc_bytes += (double)bytes;
	if (fill)
		*fill = f;
	return p;
}

/* splitmix64: the cell's seed (the runner's, from the cell's names) is the
 * whole state, so every version and process draws the same numbers. */
uint64_t bvs_random(bvs_ctx *c)
{
	uint64_t z = (c->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

double bvs_uniform(bvs_ctx *c, double lo, double hi)
{
	double u = (double)(bvs_random(c) >> 11) * 0x1p-53; /* [0, 1) */
	double x = lo + (hi - lo) * u;
	return x < hi ? x : lo; /* rounding can reach hi */
}

void bvs_set_state(bvs_ctx *c, void *state)
{
	c->state = state;
}

void *bvs_state(const bvs_ctx *c)
{
	return c->state;
}

int bvs_input_sets(const bvs_ctx *c)
{
	return c && c->inputs_asked > 1 ? c->inputs_asked : 1;
}

void bvs_input_sets_made(bvs_ctx *c, int n)
{
	if (c)
		c->inputs_made = n < 1 ? 1 : n > bvs_input_sets(c) ? bvs_input_sets(c) : n;
}

void bvs_work(bvs_ctx *c, double bytes, double flops, double items)
{
	c->work[0] = bytes > 0 && isfinite(bytes) ? bytes : 0;
	c->work[1] = flops > 0 && isfinite(flops) ? flops : 0;
	c->work[2] = items > 0 && isfinite(items) ? items : 0;
}

static size_t type_size(bvs_type t)
{
	switch (t) {
	case BVS_F32: return 4;
	case BVS_F64: return 8;
	case BVS_U8: return 1;
	case BVS_I32: return 4;
	case BVS_I64: return 8;
	}
	return 0;
}

void bvs_output(bvs_ctx *c, const void *data, size_t n, bvs_type t)
{
	size_t es = type_size(t);
	free(c->out);
	c->out = NULL, c->nout = 0, c->tout = t;
	if (!es || (n && !data) || n > SIZE_MAX / es) {
		c->bad_output = 1;
		return;
	}
	c->out = malloc(n ? n * es : 1);
	if (!c->out) {
		c->bad_output = 1;
		return;
	}
	if (n)
		memcpy(c->out, data, n * es);
	c->nout = n, c->bad_output = 0;
}

void bvs_reference(bvs_ctx *c, const double *want, size_t n)
{
	free(c->ref);
	c->ref = NULL, c->nref = 0;
	if ((n && !want) || n > SIZE_MAX / sizeof(double)) {
		c->bad_output = 1;
		return;
	}
	c->ref = malloc(n ? n * sizeof(double) : 1);
	if (!c->ref) {
		c->bad_output = 1;
		return;
	}
	if (n)
		memcpy(c->ref, want, n * sizeof(double));
	c->nref = n;
}

/* bvs_fail, bvs_na, bvs_skip and bvs_wrong: the reason into the cell (a
 * hook's or init's, c NULL: into last), then the status to return; one
 * definition each, written once. */
#define SAY(fn, status)                                                                            \
	bvs_status fn(bvs_ctx *c, const char *fmt, ...)                                            \
	{                                                                                          \
		va_list ap;                                                                        \
		va_start(ap, fmt);                                                                 \
		if (c)                                                                             \
			vsnprintf(c->why, sizeof(c->why), fmt, ap);                                \
		else                                                                               \
			vsnprintf(last, sizeof(last), fmt, ap);                                    \
		va_end(ap);                                                                        \
		return status;                                                                     \
	}
SAY(bvs_fail, BVS_FAIL)
SAY(bvs_na, BVS_NA)
SAY(bvs_skip, BVS_SKIP)
SAY(bvs_wrong, BVS_WRONG)
#undef SAY

/* ---- the suite_* calls ------------------------------------------------- */

static void free_cell(bvs_ctx *c)
{
	for (size_t i = 0; i < c->nallocs; i++)
		free(c->allocs[i]);
	free(c->allocs);
	free(c->out);
	free(c->ref);
	free(c);
}

/* A suite call's return value as a plugin status, with the reason the
 * call gave (the cell's; last for a call without a cell: init, a hook) in
 * last for the runner, or what to say when it gave none (its `return 3;`
 * without bvs_fail).  A parameter the call read wrong (c->misread) fails
 * the cell whatever it returned: a typo'd name must not run on NULL. */
static int from_bvs(const bvs_ctx *c, int rc, const char *name, const char *call)
{
	char why[sizeof(last)];
	snprintf(why, sizeof(why), "%s", c ? c->why : last);
	if (c && c->misread[0]) {
		set_error("%s", c->misread);
		return BV_FAILED;
	}
	if (rc == BVS_OK)
		return BV_OK;
	if (rc == BVS_WRONG && strcmp(call, "check")) {
		set_error("%s: %s returned bvs_wrong, which only check may (%s)", name, call, why);
		return BV_FAILED;
	}
	if (rc == BVS_WRONG) {
		if (why[0])
			set_error("%s", why);
		else
			set_error("%s: check returned BVS_WRONG without a reason", name);
		return BV_WRONG;
	}
	if (rc != BVS_NA && rc != BVS_SKIP && rc != BVS_FAIL) {
		set_error("%s: %s returned %d (not BVS_OK, bvs_na, bvs_skip, bvs_fail or bvs_wrong)", name, call, rc);
		return BV_FAILED;
	}
	if (why[0])
		set_error("%s", why);
	else
		set_error("%s: %s returned %s without a reason", name, call,
			  rc == BVS_NA ? "BVS_NA" : rc == BVS_SKIP ? "BVS_SKIP" : "BVS_FAIL");
	return rc == BVS_NA ? BV_NA : rc == BVS_SKIP ? BV_UNAVAILABLE : BV_FAILED;
}

/* A suite call on a cell, its reason emptied first: BV_* (from_bvs). */
#define CALL(c, fn, name, call) ((c)->why[0] = '\0', from_bvs((c), (fn)(c), (name), (call)))

/* The suite's init (1.1) before the first cell a process opens, its fini
 * after the last one it closes: cells open now. */
static int open_cells;

static int cells_begin(void)
{
	if (open_cells > 0 || !suite_init) {
		open_cells++;
		return BV_OK;
	}
	last[0] = '\0';
	int s = from_bvs(NULL, suite_init(), bvs_suite_def.name, "the suite's init");
	if (s == BV_OK)
		open_cells++;
	return s;
}

static void cells_end(void)
{
	if (open_cells > 0 && --open_cells == 0 && suite_fini)
		suite_fini();
}

static int suite_open(const char *bench_name, const char *params, uint64_t seed, int inputs, void **cell)
{
	*cell = NULL;
	last[0] = '\0';
	if (!suite_ok()) {
		set_error("%s", invalid);
		return BV_FAILED;
	}
	const bench *d = find_bench(bench_name);
	if (!d || !d->b->run) {
		set_error("benchmark %s is not in this version", bench_name);
		return BV_NA;
	}
	bvs_ctx *c = calloc(1, sizeof(*c));
	if (!c) {
		set_error("out of memory");
		return BV_FAILED;
	}
	c->d = d, c->rng = seed, c->inputs_asked = inputs > 1 ? inputs : 1, c->inputs_made = 1;
	c->share = sharer, c->share_ctx = sharer_ctx;
	/* "level=9 variant=avx2 size=64K": the runner's, from the merged
	 * description, whose parameters are this version's (the merge refuses
	 * a benchmark declared differently). */
	for (const char *p = params ? params : ""; *p;) {
		const char *end = p + strcspn(p, " "), *eq = memchr(p, '=', (size_t)(end - p));
		int known = 0;
		for (int i = 0; eq && i < d->nparams; i++)
			known |= strlen(d->params[i].name) == (size_t)(eq - p) && !strncmp(d->params[i].name, p, (size_t)(eq - p));
		if (!eq || !known || c->nparams == BVS_MAX_PARAMS || (size_t)(end - eq - 1) > VALUE_MAX_ ||
		    !value_ok(eq + 1, (size_t)(end - eq - 1))) {
			set_error("%s: parameter '%.*s' is not one this version declares", bench_name, (int)(end - p), p);
			free_cell(c);
			return BV_FAILED;
		}
		memcpy(c->names[c->nparams], p, (size_t)(eq - p));
		c->names[c->nparams][eq - p] = '\0';
		memcpy(c->values[c->nparams], eq + 1, (size_t)(end - eq - 1));
		c->values[c->nparams][end - eq - 1] = '\0';
		c->nparams++;
		p = *end ? end + 1 : end;
	}
	int s = cells_begin();
	if (s != BV_OK) {
		free_cell(c);
		return s;
	}
	s = d->b->setup ? CALL(c, d->b->setup, bench_name, "setup") : BV_OK;
	if (s != BV_OK) {
		/* No teardown: setup stopped part way, and a teardown that
		 * trusts its state would crash on what is not there.  What it
		 * made with bvs_alloc is freed; the child ends soon anyway. */
		free_cell(c);
		cells_end();
		return s;
	}
	c->set_up = 1;
	*cell = c;
	return BV_OK;
}

static double element(const bvs_ctx *c, size_t i)
{
	switch (c->tout) {
	case BVS_F32: return ((const float *)c->out)[i];
	case BVS_F64: return ((const double *)c->out)[i];
	case BVS_U8: return ((const uint8_t *)c->out)[i];
	case BVS_I32: return ((const int32_t *)c->out)[i];
	case BVS_I64: return (double)((const int64_t *)c->out)[i];
	}
	return NAN;
}

/* Whether got is within the benchmark's tolerance of want (floats), or
 * equal to it (other types); its error in ulps (floats) or absolute. */
static int within(const bvs_ctx *c, bvs_type t, double got, double want, double *err)
{
	if (t != BVS_F32 && t != BVS_F64) {
		*err = fabs(got - want);
		return got == want;
	}
	int f32 = t == BVS_F32;
	double w = f32 ? (double)(float)want : want; /* the reference rounded to the output's type */
	*err = bv_ulp_gap(got, w, f32);
	return *err <= tol_ulp(c) || (tol_rel(c) > 0 && fabs(got - want) <= tol_rel(c) * fabs(want));
}

static void tolerance_text(const bvs_ctx *c, bvs_type t, char *buf, size_t len)
{
	if (t != BVS_F32 && t != BVS_F64)
		snprintf(buf, len, "exact");
	else if (tol_rel(c) > 0)
		snprintf(buf, len, "%g ulp or %g relative", tol_ulp(c), tol_rel(c));
	else
		snprintf(buf, len, "%g ulp", tol_ulp(c));
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *s = p;
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w <= 0)
			return -1;
		s += w, n -= (size_t)w;
	}
	return 0;
}

static int suite_check(void *cell, int out_fd, double *worst)
{
	bvs_ctx *c = cell;
	const bvs_benchmark *b = c->d->b;
	*worst = NAN;
	last[0] = '\0';
	/* The library's footprint of one call: its first in this process, so
	 * what it allocates once and keeps is seen too (as the catalog's). */
	int (*mark)(void) = HOOK(memory_mark);
	int (*peak)(double *, double *) = HOOK(memory_peak);
	c->lib_counted = mark && peak && mark() == BVS_OK;
	int s = CALL(c, b->run, b->name, "run");
	if (c->lib_counted)
		c->lib_counted = peak(&c->lib_host, &c->lib_device) == BVS_OK;
#ifdef BV_CATALOG_SUITE
	/* The catalog's library says at its first call that it lacks an op
	 * (a compat shim's out-of-range op: KN_EUNSUPPORTED), or that it
	 * cannot run it here: n/a or skipped, with the library's reason
	 * (catalog.c's run passes plugin.c's status on). */
	if (s == BV_NA || s == BV_UNAVAILABLE)
		return s;
#endif
	if (s != BV_OK || !b->check)
		return s == BV_NA ? BV_FAILED : s; /* run has no n/a: setup says that */
	free(c->out), free(c->ref);
	c->out = NULL, c->ref = NULL, c->nout = c->nref = 0, c->bad_output = 0;
	int named = 0;
	s = CALL(c, b->check, b->name, "check");
	named = c->out != NULL;
	if (s != BV_OK)
		return s;
	if (c->bad_output) {
		set_error("%s: check's bvs_output or bvs_reference was given no data, an unknown type or too much",
			  b->name);
		return BV_FAILED;
	}
	if (c->ref && !named) {
		set_error("%s: check gave a reference (bvs_reference) but no output (bvs_output)", b->name);
		return BV_FAILED;
	}
	if (named && c->ref && c->nref != c->nout) {
		set_error("%s: the reference has %zu elements, the output %zu", b->name, c->nref, c->nout);
		return BV_FAILED;
	}
	if (named && out_fd >= 0) {
		/* the cell's own tolerance (bvs_tolerance) goes with it, for the
		 * runner's comparison with the baseline's output */
		unsigned char head[40];
		uint32_t type = (uint32_t)c->tout, own = (uint32_t)c->own_tol;
		uint64_t n = c->nout;
		double ulp = tol_ulp(c), rel = tol_rel(c);
		memcpy(head, "BVSOUT2", 8);
		memcpy(head + 8, &type, 4), memcpy(head + 12, &own, 4), memcpy(head + 16, &n, 8);
		memcpy(head + 24, &ulp, 8), memcpy(head + 32, &rel, 8);
		if (write_all(out_fd, head, sizeof(head)) || write_all(out_fd, c->out, c->nout * type_size(c->tout))) {
			set_error("%s: cannot write the output for the comparison between versions", b->name);
			return BV_FAILED;
		}
	}
	if (!c->ref)
		return BV_OK;
	/* Every element: the worst error is reported, with the first that is
	 * past the tolerance. */
	double w = 0, first_err = 0;
	size_t first = SIZE_MAX;
	for (size_t i = 0; i < c->nout; i++) {
		double e;
		if (!within(c, c->tout, element(c, i), c->ref[i], &e) && first == SIZE_MAX)
			first = i, first_err = e;
		if (e > w || isnan(e))
			w = e;
	}
	*worst = w;
	if (first == SIZE_MAX)
		return BV_OK;
	char tol[64];
	tolerance_text(c, c->tout, tol, sizeof(tol));
	int fl = c->tout == BVS_F32 || c->tout == BVS_F64;
	/* As many digits as the output's type needs to tell two neighbours
	 * apart (9 for a float, 17 for a double): got and want never read alike. */
	int digits = c->tout == BVS_F64 ? 17 : 9;
	double want = c->tout == BVS_F32 ? (double)(float)c->ref[first] : c->ref[first];
	set_error("element %zu of %zu: got %.*g, want %.*g (%.3g%s; tolerance %s; worst %.3g%s)", first, c->nout,
		  digits, element(c, first), digits, want, first_err, fl ? " ulp" : "", tol, w, fl ? " ulp" : "");
	return BV_WRONG;
}

static void suite_work(void *cell, double work[3])
{
	const bvs_ctx *c = cell;
	for (int i = 0; i < 3; i++)
		work[i] = c ? c->work[i] : 0;
}

static int suite_footprint(void *cell, double *host, double *lib_host, double *lib_device)
{
	const bvs_ctx *c = cell;
	*host = c ? c->alloc_bytes : 0;
	*lib_host = c && c->lib_counted ? c->lib_host : 0;
	*lib_device = c && c->lib_counted ? c->lib_device : 0;
	return c && c->lib_counted;
}

#ifdef BV_CATALOG_SUITE
/* catalog.c: the benchmark a cell is of ("<group>__<op>"), for the setup
 * its user-defined ops share. */
__attribute__((visibility("hidden"))) const char *bv_catalog_bench_name(const bvs_ctx *c);
__attribute__((visibility("hidden"))) const char *bv_catalog_bench_name(const bvs_ctx *c)
{
	return c->d->b->name;
}
#endif

static int suite_input_sets(void *cell)
{
	const bvs_ctx *c = cell;
	return c ? c->inputs_made : 1;
}

static void suite_close(void *cell)
{
	bvs_ctx *c = cell;
	if (!c)
		return;
	if (c->set_up && c->d->b->teardown)
		c->d->b->teardown(c);
	free_cell(c);
	cells_end();
}

/* ---- the catalog members ---------------------------------------------- */

#ifdef BV_CATALOG_SUITE
/* The bundled catalog as a suite (catalog.c):
 * the library's version, backends and memory are plugin.c's, whose table
 * this is (its own bv_plugin_get is left out of such a build).  A failing
 * call's reason is copied into this file's last_error. */
const bv_plugin *bv_catalog_calls(void);
/* catalog.c: the host's user-defined ops into its registry */
int bv_catalog_add_ops(const char *group, const struct bv_op_def *ops, size_t n);
#define CAT (bv_catalog_calls())
static int cat_said(int s)
{
	if (s != BV_OK)
		set_error("%s", CAT->last_error());
	return s;
}

static const char *kernel_version(void)
{
	return CAT->kernel_version();
}
#else
static const char *kernel_version(void)
{
	return BVS_STR(BVS_VERSION_MAJOR) "." BVS_STR(BVS_VERSION_MINOR) "." BVS_STR(BVS_VERSION_PATCH);
}
#endif

/* The timed call: the benchmark's run on the cell's state (bv_args.cell).
 * Its reason is emptied before each call (a store, next to the call's
 * cost), so a failure says its own, never one an earlier call left. */
static int trampoline(const bv_call *call, const bv_args *a)
{
	const bvs_benchmark *b = benches[call->op].b;
	bvs_ctx *c = a->cell;
	c->why[0] = '\0';
	int rc = b->run(c);
	if (rc == BVS_OK && !c->misread[0])
		return BV_OK;
	from_bvs(c, rc == BVS_OK ? BVS_FAIL : rc, b->name, "run");
	return BV_FAILED;
}

static int lookup(const char *group, const char *op, const char *backend, bv_call *out)
{
	(void)backend;
	if (!suite_ok()) {
		set_error("%s", invalid);
		return BV_FAILED;
	}
	const bench *d = strcmp(group, bvs_suite_def.name) ? NULL : find_bench(op);
	if (!d || !d->b->run) {
		set_error("%s/%s is not in this version", group, op);
		return BV_NA;
	}
	*out = (bv_call){trampoline, 0, (int)(d - benches)};
	return BV_OK;
}

#ifdef BV_CATALOG_SUITE
static int probe(const char *backend)
{
	return cat_said(CAT->probe(backend));
}
#else
static int probe(const char *backend)
{
	(void)backend;
	return BV_OK;
}
#endif

static const char *last_error(void)
{
	return last;
}

#ifdef BV_CATALOG_SUITE
/* The backend's memory (device memory for cuda), its copies and clock. */
static int alloc(const char *backend, size_t bytes, void **out)
{
	return cat_said(CAT->alloc(backend, bytes, out));
}

static void release(const char *backend, void *p)
{
	CAT->release(backend, p);
}

static int copy_in(const char *backend, void *dst, const void *src, size_t bytes)
{
	return cat_said(CAT->copy_in(backend, dst, src, bytes));
}

static int copy_out(const char *backend, void *dst, const void *src, size_t bytes)
{
	return cat_said(CAT->copy_out(backend, dst, src, bytes));
}

static int sync_backend(const char *backend)
{
	return cat_said(CAT->sync(backend));
}

static int host_memory(const char *backend)
{
	return CAT->host_memory(backend);
}

/* The trampoline under CUDA events: the catalog's run makes plugin.c's call. */
static double device_time(const bv_call *c, const bv_args *a, long reps)
{
	return CAT->device_time(c, a, reps);
}
#else
static int alloc(const char *backend, size_t bytes, void **out)
{
	(void)backend;
	*out = malloc(bytes ? bytes : 1);
	if (!*out)
		set_error("out of host memory");
	return *out ? BV_OK : BV_FAILED;
}

static void release(const char *backend, void *p)
{
	(void)backend;
	free(p);
}

static int copy(const char *backend, void *dst, const void *src, size_t bytes)
{
	(void)backend;
	memcpy(dst, src, bytes);
	return BV_OK;
}

static int sync_backend(const char *backend)
{
	(void)backend;
	return BV_OK;
}

static int host_memory(const char *backend)
{
	(void)backend;
	return 1;
}

static double device_time(const bv_call *c, const bv_args *a, long reps)
{
	(void)c, (void)a, (void)reps;
	return NAN;
}
#endif

/* BVS_LIBRARY's hooks, where the suite gives them. */
static const char *simd_isa(void)
{
	const char *(*isa)(void) = HOOK(isa);
	return isa ? isa() : NULL;
}

static int memory_mark(void)
{
	int (*mark)(void) = HOOK(memory_mark);
	return mark && mark() == BVS_OK ? BV_OK : BV_NA;
}

static int memory_peak(double *host, double *device)
{
	int (*peak)(double *, double *) = HOOK(memory_peak);
	return peak && peak(host, device) == BVS_OK ? BV_OK : BV_NA;
}

static int set_simd_isa(const char *isa)
{
	int (*set)(const char *) = HOOK(set_isa);
	if (!set) {
		set_error("the suite's library cannot be forced onto an ISA (no set_isa in BVS_LIBRARY)");
		return BV_NA;
	}
	last[0] = '\0';
	return from_bvs(NULL, set(isa), "BVS_LIBRARY", "set_isa");
}

static const bv_plugin plugin = {
	.abi = BV_PLUGIN_ABI,
	.kernel_version = kernel_version,
	.lookup = lookup,
	.probe = probe,
	.last_error = last_error,
	.alloc = alloc,
	.release = release,
#ifdef BV_CATALOG_SUITE
	.copy_in = copy_in,
	.copy_out = copy_out,
#else
	.copy_in = copy,
	.copy_out = copy,
#endif
	.sync = sync_backend,
	.host_memory = host_memory,
	.device_time = device_time,
	.simd_isa = simd_isa,
	.memory_mark = memory_mark,
	.memory_peak = memory_peak,
	.set_simd_isa = set_simd_isa,
	.suite_describe = suite_describe,
	.suite_open = suite_open,
	.suite_check = suite_check,
	.suite_work = suite_work,
	.suite_close = suite_close,
	.suite_footprint = suite_footprint,
	.suite_input_sets = suite_input_sets,
	.suite_share = suite_share,
#ifdef BV_CATALOG_SUITE
	.catalog = 1,
	.catalog_add_ops = bv_catalog_add_ops,
#endif
};

__attribute__((visibility("default"))) const bv_plugin *bv_plugin_get(void);
__attribute__((visibility("default"))) const bv_plugin *bv_plugin_get(void)
{
	return &plugin;
}
