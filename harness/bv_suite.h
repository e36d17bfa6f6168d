/*
 * bv_suite.h - the API a benchmark suite is written in (docs/suites.md).
 *
 * A suite is C code at one fixed revision that benchmarks a library through
 * the library's own API.  bench-versions compiles it against each version's
 * headers, links it with that version's library into the version's plugin,
 * and measures every version's cells paired, in the same processes, as it
 * measures its own catalog.  The library varies; the suite does not.
 *
 * A suite is a NULL-terminated array of benchmarks and one BVS_SUITE line:
 *
 *     #include <bv_suite.h>
 *     #include "mylib.h"
 *
 *     static int setup(bvs_ctx *c)
 *     {
 *             size_t n = (size_t)bvs_param_int(c, "size");
 *             double *x = bvs_alloc(c, n * sizeof(double));
 *             double *y = bvs_alloc(c, n * sizeof(double));
 *             if (!x || !y)
 *                     return bvs_fail(c, "out of memory");
 *             for (size_t i = 0; i < n; i++)
 *                     x[i] = bvs_uniform(c, -10, 10);
 *             bvs_set_state(c, x); ...
 *             bvs_work(c, 16.0 * n, 20.0 * n, (double)n);
 *             return BVS_OK;
 *     }
 *     static int run(bvs_ctx *c) { mylib_exp(x, y, n); return BVS_OK; }
 *
 *     static const bvs_benchmark benchmarks[] = {
 *             {.name = "exp", .params = "size=1K,64K,1M", .setup = setup, .run = run},
 *             {0},
 *     };
 *     BVS_SUITE("mylib", benchmarks)
 *
 * Cells.  A benchmark's params name its parameters and their values:
 * "size=1K,64K variant=scalar,avx2 level=1,9"; its cells are every
 * combination.  Two names have a role: "size" is the cell's size (values
 * as --sizes writes them: 4096, 4K, 1M, 64x64), and the parameter named by
 * .variant (default: one called "variant", if any) is what --backends
 * selects and --vs-backend compares (which variant is fastest).  Any other
 * parameter is part of the cell's name: compress[level=9] (--vs level=1
 * compares its values).  Values are
 * [A-Za-z0-9_.+-], at most BVS_MAX_VALUES per parameter.
 *
 * The calls, per cell and version, each in a child process of the
 * measuring process (a crash or hang costs that cell and version only):
 *   setup     makes the inputs, deterministically: bvs_random and
 *             bvs_uniform give the same numbers in every version and process
 *             for a cell; returns BVS_OK, bvs_na(...) (this version cannot
 *             run the cell: n/a), bvs_skip(...) (this machine cannot:
 *             skipped) or bvs_fail(...);
 *   run       the timed call, many times: BVS_OK or bvs_fail(...);
 *   check     (optional) after one run: returns bvs_wrong(...) when a test of
 *             its own finds the output wrong; names the output with bvs_output and,
 *             where the suite can compute one, its reference with
 *             bvs_reference (doubles, in higher precision).  The output is
 *             checked against the reference (a float output within .max_ulp
 *             ulps or .rel_tol relative error; other types exactly) and
 *             against the baseline version's output on the same inputs,
 *             with the same tolerance: a result that changed between
 *             versions is `wrong result`, naming the first differing element
 *             and its error, even with no reference;
 *   teardown  (optional) frees what setup made other than with bvs_alloc
 *             (bvs_alloc's memory is freed after it).
 *
 * Versions.  Each version's build defines BVS_VERSION_MAJOR, _MINOR and
 * _PATCH from its version number (the project's "version" key), so code
 * only some versions have is compiled only for them:
 *
 *     #if !BVS_VERSION_LT(1, 2, 0)   ... mylib_sincos exists from 1.2.0 ...
 *
 * A benchmark absent from a version's array, or whose .run is NULL there, is
 * n/a in that version.  Declare a benchmark's parameters the same way in
 * every version (a difference is an error naming both versions).
 *
 * Names: a benchmark's name is [a-z0-9_]+, unique in the suite; the suite's
 * name is what --benches selects (a group, like `unary`), its benchmarks
 * what --ops selects.
 */
#ifndef BV_SUITE_H
#define BV_SUITE_H

#include <stddef.h>
#include <stdint.h>

#define BVS_ABI 1
#define BVS_MAX_PARAMS 8   /* parameters of one benchmark */
#define BVS_MAX_VALUES 64  /* values of one parameter */
#define BVS_MAX_CELLS 4096 /* cells of one benchmark (the product) */
#define BVS_MAX_BENCHMARKS 256

enum { BVS_OK = 0, BVS_NA = 1, BVS_SKIPPED = 2, BVS_FAILED = 3, BVS_WRONG = 4 };

typedef enum { BVS_F32, BVS_F64, BVS_U8, BVS_I32, BVS_I64 } bvs_type;

/* One cell in one version: its parameters, its memory, its state. */
typedef struct bvs_ctx bvs_ctx;

typedef struct bvs_benchmark {
	const char *name;    /* [a-z0-9_]+, unique in the suite */
	const char *params;  /* "size=1K,1M level=1,9": NULL or "" for none */
	const char *variant; /* the parameter in the backends' role; NULL: "variant" if declared */
	int (*setup)(bvs_ctx *c);      /* optional */
	int (*run)(bvs_ctx *c);        /* the timed call; NULL: n/a in this version */
	int (*check)(bvs_ctx *c);      /* optional */
	void (*teardown)(bvs_ctx *c);  /* optional */
	double max_ulp;      /* float outputs: accepted distance in ulps (0: exact) */
	double rel_tol;      /* float outputs: also accepted, |got - want| <= rel_tol |want| */
} bvs_benchmark;

typedef struct bvs_suite {
	int abi;
	const char *name; /* [a-z0-9_]+: the group --benches names */
	const bvs_benchmark *benchmarks; /* ends with one whose name is NULL */
} bvs_suite;

/* The one definition the harness looks for in a suite's objects. */
#define BVS_SUITE(NAME, BENCHMARKS) const bvs_suite bvs_suite_def = {BVS_ABI, NAME, BENCHMARKS};

/* Optional: what the library can say about itself, for every cell.  Any
 * member may be NULL.
 *   isa          the instruction set the library dispatches to now
 *                ("avx512", "avx2", "neon"): written with every version's
 *                results, since a speed means little without it;
 *   set_isa      forces the library onto one (bench-versions --simd-isa
 *                ISA): BVS_OK, or bvs_na(NULL, ...) when it cannot;
 *   memory_mark  starts counting what the library allocates (BVS_OK, or
 *                BVS_NA: it cannot count);
 *   memory_peak  the most it held since the mark, in bytes, in host and
 *                device memory: BVS_OK or BVS_NA.
 * Around the check's one call of run, mark and peak give the cell's
 * library footprint (library_host_bytes), beside what bvs_alloc gave it
 * (host_bytes):
 *
 *     BVS_LIBRARY({.isa = mylib_isa_name, .memory_peak = peak})
 */
typedef struct bvs_library {
	const char *(*isa)(void);
	int (*set_isa)(const char *isa);
	int (*memory_mark)(void);
	int (*memory_peak)(double *host_bytes, double *device_bytes);
} bvs_library;

#define BVS_LIBRARY(...) const bvs_library bvs_library_def = __VA_ARGS__;

#define BVS_VERSION_LT(ma, mi, pa)                                                                 \
	(BVS_VERSION_MAJOR < (ma) ||                                                               \
	 (BVS_VERSION_MAJOR == (ma) &&                                                             \
	  (BVS_VERSION_MINOR < (mi) || (BVS_VERSION_MINOR == (mi) && BVS_VERSION_PATCH < (pa)))))

/* ---- inside setup, run, check and teardown ---------------------------- */

/* A parameter's value as the params string wrote it ("64K", "avx2"), or
 * NULL when the benchmark has no such parameter. */
const char *bvs_param(const bvs_ctx *c, const char *name);
/* The same as a number: "64K" is 65536, "1M" 1048576, "12" 12; a shape
 * "64x32" is the product of its dimensions; -1 when absent or not a number. */
long long bvs_param_int(const bvs_ctx *c, const char *name);
/* Dimension i (0, 1, 2) of a shape-valued parameter ("64x32": 64, 32, 1). */
long long bvs_param_dim(const bvs_ctx *c, const char *name, int i);

/* Memory for the cell, 64-byte aligned, zeroed; NULL when there is none to
 * give (return bvs_fail).  Freed after teardown. */
void *bvs_alloc(bvs_ctx *c, size_t bytes);
/* Memory the versions measured side by side share: the k-th call of a
 * cell's setup gives the same buffer in every version of the cell in one
 * timing process, so no version runs on other addresses, alignment or
 * fresher pages than another (a difference that is not the code's: see
 * docs/measurement.md).  For inputs every version makes alike (from
 * bvs_random and the parameters, never from the library's own API) and
 * for outputs run overwrites whole.  *fill is 1 when this setup must write
 * the contents (the first version in the process; always in a check, which
 * runs each version alone); 0 when another version's setup wrote them, and
 * this one must leave them as they are.  Counted in host_bytes as bvs_alloc
 * is; zeroed when *fill is 1; NULL when there is none to give. */
void *bvs_alloc_shared(bvs_ctx *c, size_t bytes, int *fill);

/* The name of the benchmark this cell is of ("exp"): one setup may serve
 * several benchmarks and ask which. */
const char *bvs_benchmark_name(const bvs_ctx *c);

/* This cell's tolerance for its float output, in place of the benchmark's
 * .max_ulp and .rel_tol (from setup or check): a benchmark whose
 * parameter picks float or double can accept 1 ulp of a double and 2 of a
 * float.  Both checks use it, against the reference and against the
 * baseline version's output.  Values outside [0, 1e18] are ignored. */
void bvs_tolerance(bvs_ctx *c, double max_ulp, double rel_tol);

/* The cell's deterministic random stream: the same for a cell in every
 * version and process (seeded by the suite, benchmark and parameters). */
uint64_t bvs_random(bvs_ctx *c);
double bvs_uniform(bvs_ctx *c, double lo, double hi); /* in [lo, hi) */

/* What setup wants run, check and teardown to see. */
void bvs_set_state(bvs_ctx *c, void *state);
void *bvs_state(const bvs_ctx *c);

/* --inputs N (input sets): how many sets of inputs the run asks each cell
 * to cycle through, 1 when it asks for none.  A setup that can vary its
 * inputs (the same values in other orders, so a data-dependent branch
 * meets other data on each call) makes up to that many, takes the next
 * one in each call of run (the first call: the first set, the one check's
 * reference is for), and says how many it made with bvs_input_sets_made;
 * the run's log records that number as the cell's input_sets.  A setup
 * that says nothing made one.  n is taken within [1, bvs_input_sets(c)]. */
int bvs_input_sets(const bvs_ctx *c);
void bvs_input_sets_made(bvs_ctx *c, int n);

/* The work of one call of run, for --units rate: bytes moved, floating-
 * point operations, items (any of them 0: not said). */
void bvs_work(bvs_ctx *c, double bytes, double flops, double items);

/* In check: the output to compare (n elements of type t; the memory must
 * stay valid until check returns), and a reference for it, n doubles. */
void bvs_output(bvs_ctx *c, const void *data, size_t n, bvs_type t);
void bvs_reference(bvs_ctx *c, const double *want, size_t n);

/* Return values with a reason: `return bvs_na(c, "needs AVX-512");` */
int bvs_fail(bvs_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int bvs_na(bvs_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* This version has it, but this machine cannot run it (a CPU without the
 * ISA a variant needs, no device): `skipped`, with the reason. */
int bvs_skip(bvs_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* From check only: the output is wrong by a test of the suite's own (a
 * round trip that does not give the input back, an invariant that does not
 * hold, an error bound the suite computes): `wrong result`, with the reason
 * in the table, as a reference's failed comparison is. */
int bvs_wrong(bvs_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
