/*
 * catalog.c - the bundled catalog (harness/common/ops.def) written as a benchmark
 * suite in bv_suite.h (docs/suites-design.md, "Item 3: the plan", step 2).
 *
 * Every version's plugin without a project suite is suite_plugin.c + this
 * file + plugin.c (the calls into the kernels library, which gives this file
 * its table, bv_catalog_calls) + benches.c and expr.c (the registry, the
 * inputs, the reference and the check), each compiled with
 * -DBV_CATALOG_SUITE (orchestrator/build/build.c: compile_catalog).
 *
 * One benchmark per registry (group, op), generated from ops.def as plugin.c
 * and benches.c generate theirs, so adding an op stays one line there.  Op
 * names repeat across groups (max is binary and reduce), so a benchmark is
 * named "<group>__<op>"; its parameters are the backend (the variant) and
 * the size, which the runner passes as "backend=simd size=1M" for the
 * catalog cell (group, op, backend, size).  The registry stays the host
 * side's description of the cells (known before any build); the values
 * declared here are the groups' defaults, for the description only: the
 * runner passes any backend and size the selection names.
 *
 * setup rebuilds the bv_cell from the registry, probes the backend and looks
 * the call up in plugin.c (the same calls, statuses and reasons as the
 * default path's setup), makes the cell's buffers (bv_cell_layout) with
 * bvs_alloc, so bvs_alloc's bytes are the catalog's footprint 4 (nx + nx2 +
 * ny + nwork), and fills the inputs with bv_cell_inputs (deterministic: the
 * same bytes as the runner's shared inputs).  run makes plugin.c's call.
 * check makes the inputs again (an in-place op, axpy, has changed x2), the
 * reference with bv_reference and compares with bv_verify: bvs_wrong with
 * bv_verify's words when it fails.
 */
#include "benches.h"
#include "bv_suite.h"
#include "ops_file.h"
#include "plugin.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* plugin.c, compiled with -DBV_CATALOG_SUITE: its calls into the library. */
const bv_plugin *bv_catalog_calls(void);
#define CAT (bv_catalog_calls())
/* suite_plugin.c: the benchmark a cell is of */
const char *bv_catalog_bench_name(const bvs_ctx *c);
/* The build's user-defined ops (an ops file): the table generated per
 * build (orchestrator/build/user_ops.c), which plugin.c's lookup calls; weak, as
 * there: a build without an ops file has none. */
extern const bv_user_op bv_user_ops[] __attribute__((weak));
extern const size_t bv_user_ops_n __attribute__((weak));

/* One cell in one version. */
typedef struct cat_state {
	bv_cell cell;
	bv_layout l;
	bv_call call;
	bv_args args;
	double result;
	int device;        /* the backend computes in memory of its own (cuda) */
	float *x, *x2, *y; /* host: the call's buffers; device: the host's copies */
	void *dx, *dx2, *dy, *dwork; /* device buffers (NULL on host backends) */
	int owns_device;             /* made them (the versions' first setup), so frees them */
	/* --inputs: the input sets run takes in turn (host backends; set 0 is
	 * x, x2; the others malloc'd, not bvs_alloc'd: the cell's footprint
	 * is its layout's, without them), and the next one */
	int nsets;
	long next_set;
	float *xs[BV_MAX_INPUT_SETS], *x2s[BV_MAX_INPUT_SETS];
} cat_state;

/* A plugin.c status as a suite's, with the reason: n/a, skipped (this
 * machine cannot: BV_UNAVAILABLE), else failed. */
static int said(bvs_ctx *c, int s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int said(bvs_ctx *c, int s, const char *fmt, ...)
{
	char why[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (s == BV_NA)
		return bvs_na(c, "%s", why);
	if (s == BV_UNAVAILABLE)
		return bvs_skip(c, "%s", why);
	return bvs_fail(c, "%s", why);
}

static void release_all(cat_state *st)
{
	const char *be = st->cell.backend;
	void *bufs[] = {st->dx, st->dx2, st->dy, st->dwork};
	for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]) && st->owns_device; i++)
		if (bufs[i])
			CAT->release(be, bufs[i]);
	free(st);
}

/* A device copy of n host floats (none for n == 0), as the runner's
 * device_copy. */
static int to_device(const char *be, const float *h, size_t n, void **out)
{
	*out = NULL;
	if (n == 0)
		return BV_OK;
	int s = CAT->alloc(be, n * sizeof(float), out);
	if (s == BV_OK && h)
		s = CAT->copy_in(be, *out, h, n * sizeof(float));
	return s;
}

/* suite_plugin.c: bvs_alloc_shared, not counted in host_bytes (the input
 * sets: the cell's footprint is its layout's, without them). */
void *bv_alloc_shared_uncounted(bvs_ctx *c, size_t bytes, int *fill);

/* --inputs: sets 1.. of a host backend's cell (benches.h: the count,
 * permutation and seeds), shared between the versions as set 0 is
 * (cat_setup); fewer when memory runs out (the count said is the one
 * made). */
static void input_sets(bvs_ctx *c, cat_state *st, int want)
{
	const bv_layout *l = &st->l;
	int n = bv_input_sets_count(&st->cell, l, want);
	for (int s = 1; s < n; s++) {
		int fill = 1, fill2 = 1;
		float *x = bv_alloc_shared_uncounted(c, l->nx * sizeof(float), &fill);
		float *x2 = l->nx2 ? bv_alloc_shared_uncounted(c, l->nx2 * sizeof(float), &fill2) : NULL;
		if (!x || (l->nx2 && !x2))
			break;
		if (fill || fill2) {
			memcpy(x, st->x, l->nx * sizeof(float));
			if (x2)
				memcpy(x2, st->x2, l->nx2 * sizeof(float));
			bv_input_set_permute(&st->cell, s, x, l->nx, x2, l->nx2);
		}
		st->xs[st->nsets] = x, st->x2s[st->nsets] = x2, st->nsets++;
	}
}

/* A device backend's buffers: the inputs copied to the device, the output
 * and scratch made there, and the timed call's arguments pointed at them.
 * BVS_OK, or a status said on c with st freed. */
static int device_buffers(bvs_ctx *c, cat_state *st)
{
	const bv_plugin *p = CAT;
	const bv_layout *l = &st->l;
	const char *be = st->cell.backend;
	int s;
	/* The device buffers are shared too, as host ones are: the first
	 * version's (separate allocations sit at other device
	 * addresses: an A/A run on an H100 had one cell 2 % apart so): the
	 * first setup makes them and leaves their addresses in a shared
	 * slot; a later one takes them from it.  The plugins share one
	 * CUDA runtime, so the pointers are valid in every version. */
	int fresh = 1;
	void **slot = bv_alloc_shared_uncounted(c, 5 * sizeof(void *), &fresh);
	s = slot ? BV_OK : BV_FAILED;
	if (slot && !fresh) {
		/* slot[4]: the first setup made them all */
		st->dx = slot[0], st->dx2 = slot[1], st->dy = slot[2], st->dwork = slot[3];
		if (!slot[4]) {
			free(st);
			return bvs_fail(c, "the cell's device buffers were not made by the first version's setup");
		}
	} else if (slot) {
		st->owns_device = 1;
		s = to_device(be, st->x, l->nx, &st->dx);
		if (s == BV_OK)
			s = to_device(be, st->x2, l->nx2, &st->dx2);
		if (s == BV_OK)
			s = to_device(be, NULL, l->ny, &st->dy);
		if (s == BV_OK && l->nwork)
			s = to_device(be, NULL, l->nwork, &st->dwork);
		if (s == BV_OK)
			slot[0] = st->dx, slot[1] = st->dx2, slot[2] = st->dy, slot[3] = st->dwork, slot[4] = slot;
	}
	if (!slot) {
		free(st);
		return bvs_fail(c, "out of host memory for the cell's buffers");
	}
	if (s != BV_OK) {
		int r = said(c, s, "%s", p->last_error());
		release_all(st);
		return r;
	}
	st->args.x = st->dx, st->args.x2 = st->dx2, st->args.y = st->dy, st->args.work = st->dwork;
	return BVS_OK;
}

static int cat_setup(bvs_ctx *c, const char *group, const char *name)
{
	const bv_plugin *p = CAT;
	const bv_bench *b = bv_bench_find(group);
	const bv_op_def *op = NULL;
	for (size_t i = 0; b && i < b->nops && !op; i++)
		if (!strcmp(b->ops[i].name, name))
			op = &b->ops[i];
	const char *be = bvs_param(c, "backend"), *sz = bvs_param(c, "size");
	size_t size = sz ? bv_size_parse(sz) : 0;
	if (!op || !be || !size)
		return bvs_fail(c, "the catalog suite has no cell %s/%s/%s/%s", group, name, be ? be : "(no backend)",
				sz ? sz : "(no size)");
	/* Probe, then lookup: a backend this machine lacks is skipped, an op
	 * the version lacks n/a, each with the library's reason. */
	int s = p->probe(be);
	if (s != BV_OK)
		return said(c, s, "%s", p->last_error());
	bv_call call;
	s = p->lookup(group, name, be, &call);
	if (s != BV_OK)
		return said(c, s, "%s/%s not in this version", group, name);
	cat_state *st = calloc(1, sizeof(*st));
	if (!st)
		return bvs_fail(c, "out of host memory");
	st->cell = (bv_cell){b, op, be, size};
	bv_cell_layout(&st->cell, &st->l);
	st->call = call;
	st->device = !p->host_memory(be);
	const bv_layout *l = &st->l;
	/* The buffers, shared by the versions timed side by side (the same
	 * addresses and pages in each), through bvs_alloc_shared: their bytes are the cell's
	 * footprint (host_bytes).  A device backend's scratch is the
	 * device's.  The first version's setup writes them (fill); a later
	 * one's finds them written, and would otherwise undo what the
	 * earlier versions' warm-up left (an in-place op's x2).  fill is
	 * whether any of them is fresh (a version whose sizes differ gets
	 * buffers of its own): the inputs are then written whole, which gives
	 * a shared buffer among them the bytes it already holds. */
	int fill = 1, f;
	st->x = bvs_alloc_shared(c, l->nx * sizeof(float), &fill);
	st->x2 = l->nx2 ? bvs_alloc_shared(c, l->nx2 * sizeof(float), &f) : NULL;
	fill |= l->nx2 && f;
	st->y = l->ny ? bvs_alloc_shared(c, l->ny * sizeof(float), &f) : NULL;
	fill |= l->ny && f;
	float *work = l->nwork && !st->device ? bvs_alloc_shared(c, l->nwork * sizeof(float), &f) : NULL;
	if (!st->x || (l->nx2 && !st->x2) || (l->ny && !st->y) || (l->nwork && !st->device && !work)) {
		free(st);
		return bvs_fail(c, "out of host memory for the cell's buffers");
	}
	if (fill)
		bv_cell_inputs(&st->cell, st->x, st->x2);
	st->nsets = 1, st->xs[0] = st->x, st->x2s[0] = st->x2;
	if (!st->device)
		input_sets(c, st, bvs_input_sets(c));
	bvs_input_sets_made(c, st->nsets);
	/* NaN everywhere: a kernel that writes nothing fails the check. */
	if (st->y && fill)
		memset(st->y, 0xff, l->ny * sizeof(float));
	st->result = NAN;
	st->args = (bv_args){st->x, st->x2, st->y, l->n, l->m, l->k, &st->result, work, NULL};
	if (st->device && (s = device_buffers(c, st)) != BVS_OK)
		return s; /* st is freed */
	bvs_work(c, bv_cell_bytes(&st->cell), bv_cell_flops(&st->cell), 0);
	bvs_set_state(c, st);
	return BVS_OK;
}

/* The timed call: plugin.c's, on the cell's buffers; with --inputs, each
 * call the next set (the first: set 0, the check's), in the same order in
 * every version. */
static int cat_run(bvs_ctx *c)
{
	cat_state *st = bvs_state(c);
	if (st->nsets > 1) {
		int k = (int)(st->next_set++ % st->nsets);
		st->args.x = st->xs[k], st->args.x2 = st->x2s[k];
	}
	int s = st->call.fn(&st->call, &st->args);
	return s == BV_OK ? BVS_OK : said(c, s, "%s", CAT->last_error());
}

static int cat_check(bvs_ctx *c)
{
	cat_state *st = bvs_state(c);
	const bv_cell *cell = &st->cell;
	const bv_layout *l = &st->l;
	size_t nout = bv_cell_outputs(cell);
	/* The output: y, or x2 for an in-place op (axpy), or the result. */
	const float *out = l->inplace ? st->args.x2 : st->args.y;
	float *copy = NULL, *x = malloc((l->nx ? l->nx : 1) * sizeof(float));
	float *x2 = l->nx2 ? malloc(l->nx2 * sizeof(float)) : NULL;
	double *want = malloc((nout ? nout : 1) * sizeof(double)), *scale = malloc((nout ? nout : 1) * sizeof(double));
	int rc = BVS_OK;
	if (!x || (l->nx2 && !x2) || !want || !scale)
		rc = bvs_fail(c, "out of host memory for the cell's reference");
	if (rc == BVS_OK && st->device && !l->result) {
		copy = malloc((nout ? nout : 1) * sizeof(float));
		int s = copy ? CAT->copy_out(cell->backend, copy, out, nout * sizeof(float)) : BV_FAILED;
		if (s != BV_OK)
			rc = copy ? said(c, s, "%s", CAT->last_error()) : bvs_fail(c, "out of host memory");
		out = copy;
	}
	if (rc == BVS_OK) {
		/* The inputs again: the run may have changed x2 in place. */
		char why[512] = "";
		bv_cell_inputs(cell, x, x2);
		bv_reference(cell, x, x2, want, scale);
		if (!bv_verify(cell, want, scale, out ? out : x, st->result, why, sizeof(why)))
			rc = bvs_wrong(c, "%s", why);
	}
	free(copy), free(x), free(x2), free(want), free(scale);
	return rc;
}

static void cat_teardown(bvs_ctx *c)
{
	release_all(bvs_state(c));
}

/* ---- the benchmarks, from ops.def --------------------------------------
 *
 * The groups' backends and default sizes (benches.c's registry), for the
 * description: the runner passes whatever the selection names. */
#define BE_ELEMENTWISE "backend=scalar,simd,cuda"
#define BE_BLAS "backend=scalar,simd,blas,cuda"
#define BE_MATMUL "backend=simd,blas,cuda"
#define SZ_ELEMENTWISE " size=1K,64K,1M,16M"
#define SZ_ROWS " size=64x1024,1024x1024,1024x4096"
#define SZ_MEMORY " size=1K,64K,1M,16M,1024x1024,4096x4096"
#define SZ_QUANT " size=1K,64K,1M,16M,1024x1024,4096x4096,256x256x256,1024x1024x1024"
#define SZ_CONV " size=56x56x64,28x28x128,112x112x32"
#define SZ_POOL " size=112x112x64,56x56x256"
#define SZ_MODEL " size=128x256x1,128x256x8,128x768x1"
#define SZ_MATMUL                                                                                  \
	" size=64x64x64,128x128x128,256x256x256,512x512x512,1024x1024x1024,128x768x768,128x3072x768," \
	"512x1024x4096,1024x1024,4096x4096"

/* Each group's parameters (PARAMS_<group>). */
#define PARAMS_unary BE_ELEMENTWISE SZ_ELEMENTWISE
#define PARAMS_binary BE_BLAS SZ_ELEMENTWISE
#define PARAMS_reduce BE_BLAS SZ_ELEMENTWISE
#define PARAMS_softmax BE_ELEMENTWISE SZ_ROWS
#define PARAMS_matmul BE_MATMUL SZ_MATMUL
#define PARAMS_norm BE_ELEMENTWISE SZ_ROWS
#define PARAMS_memory BE_BLAS SZ_MEMORY
#define PARAMS_quant BE_BLAS SZ_QUANT
#define PARAMS_conv BE_BLAS SZ_CONV
#define PARAMS_pool BE_ELEMENTWISE SZ_POOL
#define PARAMS_model BE_MATMUL SZ_MODEL

/* First pass: a setup per op that names its (group, op). */
#define CAT_SETUP(group, op_)                                                                     \
	static int setup_##group##__##op_(bvs_ctx *c) { return cat_setup(c, #group, #op_); }
#define BV_UNARY(name, ...) CAT_SETUP(unary, name)
#define BV_BINARY(name, ...) CAT_SETUP(binary, name)
#define BV_AXPY(name, ...) CAT_SETUP(binary, name)
#define BV_REDUCE(name, ...) CAT_SETUP(reduce, name)
#define BV_ROWS(name, ...) CAT_SETUP(softmax, name)
#define BV_MATMUL(name, ...) CAT_SETUP(matmul, name)
#define BV_NORM(name, ...) CAT_SETUP(norm, name)
#define BV_BATCHNORM(name, ...) CAT_SETUP(norm, name)
#define BV_MEMORY(name, ...) CAT_SETUP(memory, name)
#define BV_CONCAT(name, ...) CAT_SETUP(memory, name)
#define BV_QUANT(name, ...) CAT_SETUP(quant, name)
#define BV_CONV(name, ...) CAT_SETUP(conv, name)
#define BV_POOL(name, ...) CAT_SETUP(pool, name)
#define BV_MODEL(name, ...) CAT_SETUP(model, name)
#include "ops.def"
#undef BV_UNARY
#undef BV_BINARY
#undef BV_AXPY
#undef BV_REDUCE
#undef BV_ROWS
#undef BV_MATMUL
#undef BV_NORM
#undef BV_BATCHNORM
#undef BV_MEMORY
#undef BV_CONCAT
#undef BV_QUANT
#undef BV_CONV
#undef BV_POOL
#undef BV_MODEL

/* Second pass: how many. */
#define BV_UNARY(...) +1
#define BV_BINARY(...) +1
#define BV_AXPY(...) +1
#define BV_REDUCE(...) +1
#define BV_ROWS(...) +1
#define BV_MATMUL(...) +1
#define BV_NORM(...) +1
#define BV_BATCHNORM(...) +1
#define BV_MEMORY(...) +1
#define BV_CONCAT(...) +1
#define BV_QUANT(...) +1
#define BV_CONV(...) +1
#define BV_POOL(...) +1
#define BV_MODEL(...) +1
enum { CAT_BUILTIN = 0
#include "ops.def"
};
#undef BV_UNARY
#undef BV_BINARY
#undef BV_AXPY
#undef BV_REDUCE
#undef BV_ROWS
#undef BV_MATMUL
#undef BV_NORM
#undef BV_BATCHNORM
#undef BV_MEMORY
#undef BV_CONCAT
#undef BV_QUANT
#undef BV_CONV
#undef BV_POOL
#undef BV_MODEL

/* Third pass: the benchmarks. */
#define CAT_BENCH(group, op_)                                                                     \
	{.name = #group "__" #op_, .params = PARAMS_##group, .variant = "backend",                \
	 .setup = setup_##group##__##op_, .run = cat_run, .check = cat_check, .teardown = cat_teardown},
#define BV_UNARY(name, ...) CAT_BENCH(unary, name)
#define BV_BINARY(name, ...) CAT_BENCH(binary, name)
#define BV_AXPY(name, ...) CAT_BENCH(binary, name)
#define BV_REDUCE(name, ...) CAT_BENCH(reduce, name)
#define BV_ROWS(name, ...) CAT_BENCH(softmax, name)
#define BV_MATMUL(name, ...) CAT_BENCH(matmul, name)
#define BV_NORM(name, ...) CAT_BENCH(norm, name)
#define BV_BATCHNORM(name, ...) CAT_BENCH(norm, name)
#define BV_MEMORY(name, ...) CAT_BENCH(memory, name)
#define BV_CONCAT(name, ...) CAT_BENCH(memory, name)
#define BV_QUANT(name, ...) CAT_BENCH(quant, name)
#define BV_CONV(name, ...) CAT_BENCH(conv, name)
#define BV_POOL(name, ...) CAT_BENCH(pool, name)
#define BV_MODEL(name, ...) CAT_BENCH(model, name)
/* The catalog's, then the build's user-defined ops (user_ops(), at load),
 * then the end. */
static bvs_benchmark benchmarks[CAT_BUILTIN + BV_OPS_MAX + 1] = {
#include "ops.def"
};

BVS_SUITE(BV_CATALOG_SUITE_NAME, benchmarks)

/* ---- user-defined ops (an ops file: docs/user-ops.md) ------------------
 *
 * A benchmark "<group>__<op>" per entry of the build's generated table
 * (bv_user_ops: its group, name and function, NULL where this version
 * lacks it), added when the plugin loads, before anything reads the suite.
 * Their definitions (inputs' range, tolerance, flops, the reference
 * expression) are the host's: the runner, which loaded the ops file,
 * gives them to bv_catalog_add_ops before any cell is opened.  setup,
 * run and check are the catalog's: plugin.c's lookup finds the function
 * in the table (n/a without it), the reference is the op's expression. */
static char user_names[BV_OPS_MAX][72];

static int setup_user(bvs_ctx *c)
{
	char group[72];
	const char *name = bv_catalog_bench_name(c), *cut = strstr(name, "__");
	if (!cut || (size_t)(cut - name) >= sizeof(group))
		return bvs_fail(c, "the catalog suite has no benchmark %s", name);
	memcpy(group, name, (size_t)(cut - name));
	group[cut - name] = '\0';
	return cat_setup(c, group, cut + 2);
}

__attribute__((constructor)) static void user_ops(void)
{
	if (!bv_user_ops || !&bv_user_ops_n)
		return;
	size_t at = 0;
	while (benchmarks[at].name)
		at++;
	for (size_t i = 0; i < bv_user_ops_n && i < BV_OPS_MAX; i++) {
		const bv_user_op *u = &bv_user_ops[i];
		if (!u->group || !u->name)
			continue;
		int binary = !strcmp(u->group, "binary");
		snprintf(user_names[i], sizeof(user_names[i]), "%s__%s", u->group, u->name);
		benchmarks[at++] = (bvs_benchmark){.name = user_names[i],
						   .params = binary ? PARAMS_binary : PARAMS_unary,
						   .variant = "backend",
						   .setup = setup_user,
						   .run = cat_run,
						   .check = cat_check,
						   .teardown = cat_teardown};
	}
}

/* bv_plugin.catalog_add_ops (suite_plugin.c): the host's definitions into
 * this plugin's registry (benches.c), where setup finds them. */
__attribute__((visibility("hidden"))) int bv_catalog_add_ops(const char *group, const bv_op_def *ops, size_t n);
__attribute__((visibility("hidden"))) int bv_catalog_add_ops(const char *group, const bv_op_def *ops, size_t n)
{
	char err[512];
	if (bv_bench_add_ops(group, ops, n, err, sizeof(err))) {
		said(NULL, BV_FAILED, "the catalog suite's user-defined ops: %s", err);
		return BV_FAILED;
	}
	return BV_OK;
}

/* ---- the library's hooks: plugin.c's ----------------------------------- */

static const char *lib_isa(void)
{
	return CAT->simd_isa();
}

/* BV_NA (a release before the simd backend) stays n/a: the runner leaves a
 * catalog version's cells to say n/a on their own. */
static int lib_set_isa(const char *isa)
{
	int s = CAT->set_simd_isa(isa);
	return s == BV_OK ? BVS_OK : said(NULL, s, "%s", CAT->last_error());
}

static int lib_mark(void)
{
	return CAT->memory_mark() == BV_OK ? BVS_OK : BVS_NA;
}

static int lib_peak(double *host, double *device)
{
	return CAT->memory_peak(host, device) == BV_OK ? BVS_OK : BVS_NA;
}

BVS_LIBRARY({.isa = lib_isa, .set_isa = lib_set_isa, .memory_mark = lib_mark, .memory_peak = lib_peak})
