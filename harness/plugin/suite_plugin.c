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
 *
 * Three files, one translation unit (it includes the other two): what a
 * suite declares, checked and described (suite_declarations.c); a cell's
 * context and the bvs_* calls a suite makes on it (suite_api.c); and here,
 * the bv_plugin the runner calls: suite_open, suite_check and suite_close,
 * the trampoline and the catalog members.  All of it goes into each
 * version's plugin, compiled at run time (orchestrator/build/build.c), never into
 * bv-runner or the CLI.
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

/* The runtime's other parts, in this one translation unit: a suite is
 * built from this file and its own (docs/suites.md), and what the parts
 * share (the parsed benchmarks, the error of the last call) stays static,
 * no symbol of a version's plugin beside the library's.  Each part refuses
 * to be compiled on its own without BV_SUITE_PLUGIN_C. */
#define BV_SUITE_PLUGIN_C 1
#include "suite_declarations.c"
#include "suite_api.c"

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
