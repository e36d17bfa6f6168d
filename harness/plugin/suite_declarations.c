/*
 * suite_declarations.c - the suite runtime's reading of what a suite
 * declares: BVS_BENCHMARK's registrations (bvs_register_), the API version
 * it was built against, its benchmarks' names, parameters, variant and
 * tolerances checked against bv_suite.h's rules once (suite_ok), and the
 * description bv-runner --describe hands the host, written by hand as JSON.
 *
 * Apart from the cell's calls (suite_api.c) and the plugin's (suite_plugin.c):
 * this is the part that says whether a suite loads at all, and why not.
 * Not compiled on its own: suite_plugin.c includes it, so the runtime stays
 * one translation unit (a suite is built from suite_plugin.c and its own
 * files, and what the parts share stays static, no symbol of the plugin).
 * It goes into each version's plugin, compiled at run time
 * (orchestrator/build/build.c: compile_suite, or the catalog's catalog_fixed).
 */
#ifndef BV_SUITE_PLUGIN_C
#error "harness/plugin/suite_declarations.c is part of harness/plugin/suite_plugin.c, which includes it: compile suite_plugin.c"
#else

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
		 "against this bench-versions' harness/plugin/bv_suite.h (a copy of another version on the include path, "
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

#endif /* BV_SUITE_PLUGIN_C */
