/*
 * bv_suite.h - the API a benchmark suite is written in (docs/suites.md).
 *
 * A suite is C code at one fixed revision that benchmarks a library through
 * the library's own API.  bench-versions compiles it against each version's
 * headers, links it with that version's library into the version's plugin,
 * and measures every version's cells paired, in the same processes, as it
 * measures its own catalog.  The library varies; the suite does not.
 *
 * A suite is its benchmarks, each a BVS_BENCHMARK line in any of the
 * suite's .c files, and one BVS_SUITE line naming the suite (in one file):
 *
 * ---- example (tests/e2e/test_suite_api.sh compiles it) ----
 *     #include <bv_suite.h>
 *     #include "mylib.h"
 *
 *     typedef struct io { double *x, *y; size_t n; } io;
 *
 *     static bvs_status setup(bvs_ctx *c)
 *     {
 *             long long n;
 *             if (bvs_param_ll(c, "size", &n) != BVS_OK)
 *                     return BVS_FAIL; // the reason is said: its value is no number
 *             io *s = bvs_alloc(c, sizeof(io));
 *             double *x = bvs_alloc(c, (size_t)n * sizeof(double));
 *             double *y = bvs_alloc(c, (size_t)n * sizeof(double));
 *             if (!s || !x || !y)
 *                     return bvs_fail(c, "out of memory");
 *             for (long long i = 0; i < n; i++)
 *                     x[i] = bvs_uniform(c, -10, 10);
 *             *s = (io){x, y, (size_t)n};
 *             bvs_set_state(c, s);
 *             bvs_work(c, 16.0 * (double)n, 20.0 * (double)n, (double)n);
 *             return BVS_OK;
 *     }
 *     static bvs_status run(bvs_ctx *c)
 *     {
 *             io *s = bvs_state(c);
 *             mylib_exp(s->x, s->y, s->n);
 *             return BVS_OK;
 *     }
 *
 *     BVS_BENCHMARK(exp, .params = "size=1K,64K,1M", .setup = setup, .run = run)
 *     BVS_SUITE("mylib")
 * ---- end of the example ----
 *
 * A benchmark inside `#if !BVS_VERSION_LT(1, 2, 0)` (below) is simply
 * absent, n/a, from older versions.  The array of API 1.0 still works,
 * alone or beside BVS_BENCHMARK lines: BVS_SUITE("mylib", benchmarks) with
 * benchmarks a `const bvs_benchmark[]` ending in {0}.  BVS_SUITE's further
 * members are optional: BVS_SUITE("mylib", .init = f, .fini = g).
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
 * measuring process (a crash or hang costs that cell and version only),
 * setup, run and check returning a bvs_status:
 *   setup     makes the inputs, deterministically: bvs_random and
 *             bvs_uniform give the same numbers in every version and process
 *             for a cell; returns BVS_OK, bvs_na(...) (this version cannot
 *             run the cell: n/a), bvs_skip(...) (this machine cannot:
 *             skipped) or bvs_fail(...);
 *   run       the timed call, many times: BVS_OK or bvs_fail(...); a
 *             result nothing reads needs bvs_do_not_optimize (below);
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
 *     #if !BVS_VERSION_LT(1, 2, 0)   // mylib_sincos exists from 1.2.0
 *     static bvs_status sincos_run(bvs_ctx *c) { ... }
 *     BVS_BENCHMARK(sincos, .params = "size=64K", .setup = setup, .run = sincos_run)
 *     #endif
 *
 * A benchmark absent from a version (its BVS_BENCHMARK compiled out, or
 * missing from its array), or whose .run is NULL there, is n/a in that
 * version; so is every cell of a version before the suite's first
 * benchmark, which has none at all.  Declare a benchmark's parameters the same way in every version
 * (a difference is an error naming both versions).
 *
 * Names: a benchmark's name is [a-z0-9_]+, unique in the suite; the suite's
 * name is what --benches selects (a group, like `unary`), its benchmarks
 * what --ops selects.
 *
 * The API's own version is BVS_API_VERSION_MAJOR.BVS_API_VERSION_MINOR
 * (1.1), not the library's (BVS_VERSION_*, above): a minor version adds
 * to the API and keeps every suite of the versions before it compiling and
 * loading; a major one may not.  BVS_SUITE writes the version into the
 * suite, and the harness loads what was built against 1.0 or 1.1 (1.0:
 * the first three members of bvs_suite) and refuses any other, naming
 * both versions.  docs/suites.md, "API versions", says what changed.
 */
#ifndef BV_SUITE_H
#define BV_SUITE_H

#include <stddef.h>
#include <stdint.h>

/* The version of this API (not the library's: BVS_VERSION_* below). */
#define BVS_API_VERSION_MAJOR 1
#define BVS_API_VERSION_MINOR 1
/* What BVS_SUITE writes into bvs_suite.abi: major << 16 | minor.  1.0's
 * headers wrote 1 there, their BVS_ABI, which still means 1.0. */
#define BVS_API_VERSION ((BVS_API_VERSION_MAJOR << 16) | BVS_API_VERSION_MINOR)
#define BVS_ABI 1 /* 1.0's version tag; a suite that writes it is read as 1.0 */
#define BVS_MAX_PARAMS 8   /* parameters of one benchmark */
#define BVS_MAX_VALUES 64  /* values of one parameter */
#define BVS_MAX_CELLS 4096 /* cells of one benchmark (the product) */
#define BVS_MAX_BENCHMARKS 256

/* What setup, run, check (and a BVS_LIBRARY hook, and init) return.  Each
 * status is named as the call that returns it with a reason: bvs_na ->
 * BVS_NA, bvs_skip -> BVS_SKIP, bvs_fail -> BVS_FAIL, bvs_wrong ->
 * BVS_WRONG.  BVS_SKIPPED and BVS_FAILED are 1.0's names, kept. */
typedef enum bvs_status {
	/* Not a status.  Its sign makes the enum's type int (GCC, Clang: an
	 * enum without negative values is unsigned), so a 1.0 suite's
	 * `static int setup(bvs_ctx *c)` still fits .setup, without a warning. */
	BVS_STATUS_SIGNED_ = -1,
	BVS_OK = 0,
	BVS_NA = 1,    /* this version cannot run the cell: n/a */
	BVS_SKIP = 2,  /* this machine cannot: skipped */
	BVS_FAIL = 3,  /* failed */
	BVS_WRONG = 4, /* check only: the output is wrong (wrong result) */
	BVS_SKIPPED = BVS_SKIP,
	BVS_FAILED = BVS_FAIL,
} bvs_status;

typedef enum { BVS_F32, BVS_F64, BVS_U8, BVS_I32, BVS_I64 } bvs_type;

/* One cell in one version: its parameters, its memory, its state. */
typedef struct bvs_ctx bvs_ctx;

/* The layout is 1.0's and stays so: a 1.0 suite's array is read as it was. */
typedef struct bvs_benchmark {
	const char *name;    /* [a-z0-9_]+, unique in the suite */
	const char *params;  /* "size=1K,1M level=1,9": NULL or "" for none */
	const char *variant; /* the parameter in the backends' role; NULL: "variant" if declared */
	bvs_status (*setup)(bvs_ctx *c);     /* optional */
	bvs_status (*run)(bvs_ctx *c);       /* the timed call; NULL: n/a in this version */
	bvs_status (*check)(bvs_ctx *c);     /* optional */
	void (*teardown)(bvs_ctx *c);        /* optional */
	double max_ulp;      /* float outputs: accepted distance in ulps (0: exact) */
	double rel_tol;      /* float outputs: also accepted, |got - want| <= rel_tol |want| */
} bvs_benchmark;

/* abi and name stay the first two members in every version of this header,
 * so a harness can name a suite of a version it does not load. */
typedef struct bvs_suite {
	int abi;          /* BVS_API_VERSION (1.0: 1) */
	const char *name; /* [a-z0-9_]+: the group --benches names */
	const bvs_benchmark *benchmarks; /* NULL, or an array ending with one whose name is NULL */
	/* 1.1: once in each process that opens cells of the suite, before the
	 * first one's setup (each cell and version runs in a process of its
	 * own: a library's global init, not a cache of inputs): BVS_OK, or
	 * bvs_fail/bvs_skip/bvs_na(NULL, why), which every cell opened in the
	 * process then is; optional. */
	bvs_status (*init)(void);
	/* 1.1: after the last cell open in the process is closed (its
	 * teardown); optional.  A process that ends early (a crash, a failed
	 * timing) skips it, as it skips teardown. */
	void (*fini)(void);
} bvs_suite;

/* The one definition the harness looks for in a suite's objects:
 * BVS_SUITE("mylib") (the benchmarks are BVS_BENCHMARK lines),
 * BVS_SUITE("mylib", benchmarks) (1.0's array), and either with
 * .init = f, .fini = g after them. */
#define BVS_SUITE(...) const bvs_suite bvs_suite_def = {.abi = BVS_API_VERSION, __VA_ARGS__};

/* A benchmark, in any of the suite's .c files, with the members of
 * bvs_benchmark but its name:
 *     BVS_BENCHMARK(exp, .params = "size=1K", .setup = setup, .run = run)
 * Registered when the plugin loads (a constructor).  Benchmarks are listed
 * in the order of their files' names, then of their lines, after the
 * array's, if BVS_SUITE names one. */
#define BVS_BENCHMARK(NAME, ...)                                                                   \
	static const bvs_benchmark bvs_benchmark_##NAME##_ = {.name = #NAME, __VA_ARGS__};         \
	__attribute__((constructor)) static void bvs_register_##NAME##_(void)                      \
	{                                                                                          \
		bvs_register_(&bvs_benchmark_##NAME##_, __FILE__, __LINE__);                       \
	}

/* BVS_BENCHMARK's registration, not to be called otherwise.  Hidden: when
 * several versions' plugins are loaded in one process, each one's
 * benchmarks register with that plugin alone. */
__attribute__((visibility("hidden"))) void bvs_register_(const bvs_benchmark *b, const char *file, int line);

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
	bvs_status (*set_isa)(const char *isa);
	bvs_status (*memory_mark)(void);
	bvs_status (*memory_peak)(double *host_bytes, double *device_bytes);
} bvs_library;

#define BVS_LIBRARY(...) const bvs_library bvs_library_def = __VA_ARGS__;

#define BVS_VERSION_LT(ma, mi, pa)                                                                 \
	(BVS_VERSION_MAJOR < (ma) ||                                                               \
	 (BVS_VERSION_MAJOR == (ma) &&                                                             \
	  (BVS_VERSION_MINOR < (mi) || (BVS_VERSION_MINOR == (mi) && BVS_VERSION_PATCH < (pa)))))

/* ---- inside setup, run, check and teardown ---------------------------- */

/* A parameter's value as the params string wrote it ("64K", "avx2").  A
 * name the benchmark's params do not declare (a typo: "sise") gives NULL
 * and fails the cell once the call that asked returns: "benchmark 'exp'
 * reads parameter 'sise', which its params do not declare (declared:
 * size)", whatever the call returned. */
const char *bvs_param(const bvs_ctx *c, const char *name);
/* The same as a number in *out: "64K" is 65536, "1M" 1048576, "12" 12,
 * "-3" -3; a shape "64x32" is the product of its dimensions.  BVS_OK, or
 * BVS_FAIL with *out 0 when the value is no such number (or past 2^62) or
 * the name is not declared: the cell then fails with a reason naming the
 * benchmark, the parameter and its value, even if the caller goes on. */
bvs_status bvs_param_ll(const bvs_ctx *c, const char *name, long long *out);
/* Deprecated (1.0): bvs_param_ll's number, or -1 when the value is absent
 * or no number, which a value of -1 is too.  An undeclared name fails the
 * cell as in bvs_param. */
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

/* Return values with a reason: `return bvs_na(c, "needs AVX-512");`.  The
 * reason is kept in the cell (c), so a thread of the suite's own may say
 * it; with c NULL (init, a BVS_LIBRARY hook) it is the calling thread's. */
bvs_status bvs_fail(bvs_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bvs_status bvs_na(bvs_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* This version has it, but this machine cannot run it (a CPU without the
 * ISA a variant needs, no device): `skipped`, with the reason. */
bvs_status bvs_skip(bvs_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* From check only: the output is wrong by a test of the suite's own (a
 * round trip that does not give the input back, an invariant that does not
 * hold, an error bound the suite computes): `wrong result`, with the reason
 * in the table, as a reference's failed comparison is. */
bvs_status bvs_wrong(bvs_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- keeping the timed work --------------------------------------------
 *
 * A run whose result nothing reads may lose its work to the compiler: a
 * call to a function it can see (inline, in a header) or one the library
 * declares pure or const is deleted, and the loop times nothing.
 * bvs_do_not_optimize(&result) makes the value count as read (it is
 * computed and stored); bvs_clobber() makes every store before it count as
 * read (a buffer written and then dropped).  Neither emits an instruction.
 * As Google Benchmark's DoNotOptimize and ClobberMemory. */
#if defined(__GNUC__) || defined(__clang__)
static inline void bvs_do_not_optimize(const void *p)
{
	__asm__ volatile("" : : "r,m"(p) : "memory");
}
static inline void bvs_clobber(void)
{
	__asm__ volatile("" : : : "memory");
}
#else
/* Without GNU asm: a store through a volatile pointer, which the compiler
 * must keep, of the address (the value behind it escapes with it). */
static inline void bvs_do_not_optimize(const void *p)
{
	static const void *volatile sink;
	sink = p;
}
static inline void bvs_clobber(void)
{
	static volatile int sink;
	sink = 0;
}
#endif

#endif
