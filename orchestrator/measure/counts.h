/*
 * counts.h - why a cell changed: Valgrind's counts of one call of each side.
 *
 * A verdict says *that* a cell changed; the wall clock cannot say why.  Code
 * that moved but did not change (a release that touched another file) runs
 * 1.2-1.4x slower or faster here by its placement alone (docs/measurement.md),
 * and the paired verdict is right about the binary.  An instruction count is
 * not moved by placement or by the machine's load: the same code gives the
 * same count on every run.  So each changed cell is run once more per side
 * under callgrind (bv-runner --count: one warm call, then the counted call
 * alone, between two collection toggles) with simulated caches and branch
 * predictors of a fixed geometry, and the two counts say which it was:
 *
 *   code       the instructions differ: "instr +3.0 % (kn_scalar_exp +3.1 %)"
 *   data       the same instructions, other data misses: the data's layout
 *   placement  the same instructions and data misses: placement or the
 *              machine, not the code
 *   mixed      the counts differ, but a slower/faster time went the other
 *              way or far further than they can carry (bv_count_time_kind):
 *              placement or the machine dominates, not the code
 *   unknown    the counts cannot follow the timed code (Valgrind presents an
 *              AVX2 CPU: an AVX-512 path is timed, the AVX2 one counted; a
 *              device backend; a count that failed), said with the reason
 *
 * Counts are cached by build key and cell like builds, and kept in the run's
 * results directory (counts/counts.json, and each call's callgrind file
 * under counts/profiles/LABEL/ for callgrind_annotate or KCachegrind), so
 * `compare` shows them again without Valgrind.  Each count carries a digest
 * of what it says: one read back that does not match (a file changed after
 * it was written) is made again, never shown.
 */
#ifndef BV_COUNTS_H
#define BV_COUNTS_H

#include <stddef.h>

#include "status.h"
#include "table.h"

/* callgrind's events, in this order everywhere (counts.json's names). */
enum {
	BV_EV_IR, BV_EV_DR, BV_EV_DW, BV_EV_I1MR, BV_EV_D1MR, BV_EV_D1MW, BV_EV_ILMR,
	BV_EV_DLMR, BV_EV_DLMW, BV_EV_BC, BV_EV_BCM, BV_EV_BI, BV_EV_BIM, BV_EV_COUNT
};
extern const char *const bv_count_event_names[BV_EV_COUNT];

/* The caches callgrind simulates: fixed, so counts are the same on every
 * machine, not only on every run (size, associativity, line). */
#define BV_COUNT_CACHES "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"
#define BV_COUNT_CACHES_TEXT "I1 and D1 32 KiB 8-way, LL 8 MiB 16-way, 64-byte lines"

/* One function's instructions in one count (self cost). */
typedef struct bv_fn_count {
	char *name;
	double ir;
} bv_fn_count;

/* One version's count of one cell. */
typedef struct bv_count {
	char *label, *cell; /* cell: bench/op/backend/size as bv_row_key writes it */
	bv_status status;   /* ok, or why there is none: n/a, skipped, failed, crashed, timeout, not run */
	char *reason;
	char *simd_isa;     /* what the simd backend dispatched to under Valgrind */
	double ev[BV_EV_COUNT];
	bv_fn_count *fns; /* the most expensive first */
	size_t nfns;
	double seconds;   /* the call under Valgrind, start to end (0: from the cache) */
	int cached;
	char *profile;    /* the callgrind file, relative to the results directory; NULL: none */
} bv_count;

/* Two counts of one cell, compared (bv_change.why). */
typedef struct bv_count_cmp {
	const char *kind; /* code, data, placement, mixed, unknown */
	char *text;       /* beside the verdict: "instr +3.0 % (kn_scalar_exp +3.1 %)" */
	double instr, d1, ll, mispred; /* relative changes cand/base - 1; NAN: not counted */
	double cost; /* the modeled cycles' change (instructions 1, D1 misses 10, LL 100, mispredicts 15) */
	double ir_base, ir_cand;
	char *fn;          /* the function whose instructions changed most; NULL: none */
	double fn_base, fn_cand;
	char *counted_isa, *timed_isa; /* for simd and blas cells; NULL otherwise */
} bv_count_cmp;

void bv_count_cmp_free(bv_count_cmp *c);

/* Which changes get counted (--counts): */
typedef enum {
	BV_COUNTS_NONE,    /* none */
	BV_COUNTS_CHANGED, /* the default: changes not `same` (slower, faster, inconclusive, unstable) */
	BV_COUNTS_ALL,     /* every host cell of every version */
} bv_counts_which;
extern const char *const bv_counts_values[]; /* "changed", "all", "none" */
bv_counts_which bv_counts_parse(const char *s);

typedef struct bv_counts_opts {
	bv_counts_which which;
	double timeout_s; /* one call under Valgrind, start to end */
	int jobs;         /* at once; 0: the CPUs online */
	int measure;      /* 0: only what results_dir's counts.json holds (compare) */
} bv_counts_opts;

/* Counts what o asks for in t (its versions' builds found in the cache by
 * their build keys), keeps them in results_dir/counts/counts.json, and sets each
 * counted change's why and t->counts (the footer line).  A count that
 * cannot be made is a status of its cell ("timeout", "crashed", Valgrind
 * missing), never an error; errors are for writing counts.json and
 * interruption (BV_EINTR).  Progress on stderr when measuring. */
int bv_counts_explain(bv_table *t, const char *results_dir, const bv_counts_opts *o);

/* One count to make outside a table (bisect --by counts): a version's
 * build and a cell. */
typedef struct bv_count_req {
	const char *label, *build_key;
	const char *bench, *op, *backend;
	size_t size;
	const char *simd_isa; /* what it is timed on (counted on it too, but avx512); NULL: its own */
} bv_count_req;
/* out[i] (n of them, each bv_count_free'd by the caller) for reqs[i], from
 * the cache or made under Valgrind (o->jobs at once, o->timeout_s each),
 * callgrind files kept under results_dir/counts/profiles/.  A count that
 * cannot be made has its status and reason; errors are interruption only. */
int bv_counts_make(const bv_count_req *reqs, size_t n, const char *results_dir, const bv_counts_opts *o,
		   bv_count *out);

/* The parts, for the unit tests and the fuzzer. */
/* Reads a callgrind output file's text (--compress-strings and
 * --compress-pos either way): the totals into c->ev, each function's self
 * instructions into c->fns (sorted, at most max_fns); 0, or -1 with why. */
int bv_callgrind_parse(const char *text, size_t len, size_t max_fns, bv_count *c, char *why, size_t whylen);
/* The two counts of one cell compared; backend and the timed ISAs decide
 * whether the counts followed the timed code. */
bv_count_cmp *bv_count_compare(const bv_count *base, const bv_count *cand, const char *backend,
			       const char *timed_base, const char *timed_cand, const char *machine_isa);
void bv_count_free(bv_count *c);
/* Why a cell has no counts ("not counted: ..."), NULL when both sides have
 * them.  Both cells were timed (only those are counted): one skipped or n/a
 * under Valgrind is a variant Valgrind cannot run, said so ("needs
 * AVX-512, which Valgrind cannot run" when the reason names AVX-512). */
char *bv_count_missing_note(const bv_count *base, const bv_count *cand);
/* The time against the counts (docs/measurement.md, "Why a cell changed"):
 * a code or data kind whose time ratio goes the other way from the modeled
 * cost's change, or moves more than BV_COUNT_TIME_FACTOR times as far (in
 * log) plus BV_COUNT_TIME_FLOOR, is "mixed"; any other kind is kept. */
#define BV_COUNT_TIME_FACTOR 3.0
#define BV_COUNT_TIME_FLOOR 0.02
const char *bv_count_time_kind(const char *kind, double time_ratio, double cost);
/* c's kind and text for a called change of time_ratio (measured over
 * layouts code layouts): a "mixed" says placement or machine dominates. */
void bv_count_weigh(bv_count_cmp *c, double time_ratio, int layouts);

#endif
