/*
 * suite_api.c - a cell's context (struct bvs_ctx) and the bvs_* calls of
 * bv_suite.h a suite's setup, run, check and teardown make on it: its
 * parameters (bvs_param, bvs_param_int, bvs_param_dim), memory
 * (bvs_alloc, bvs_alloc_shared), random numbers, state, input sets, work,
 * the output and reference it names for the check, its own tolerance, and
 * the reasons bvs_fail, bvs_na, bvs_skip and bvs_wrong give.
 *
 * Apart from the declarations (suite_declarations.c) and the plugin's calls
 * that open, check and close a cell (suite_plugin.c): this is the API a
 * suite's author reads.  Not compiled on its own: suite_plugin.c includes
 * it, so the runtime stays one translation unit.  It goes into each
 * version's plugin, compiled at run time (orchestrator/build/build.c:
 * compile_suite, or the catalog's catalog_fixed).
 */
#ifndef BV_SUITE_PLUGIN_C
#error "harness/plugin/suite_api.c is part of harness/plugin/suite_plugin.c, which includes it: compile suite_plugin.c"
#else

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

#endif /* BV_SUITE_PLUGIN_C */
