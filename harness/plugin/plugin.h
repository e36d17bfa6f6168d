/*
 * plugin.h - the interface between the measuring host (runner.c) and one
 * version's bench plugin (plugin.c built against that version).
 *
 * Both sides are always built from the same harness sources, so this ABI never
 * has to stay compatible across harness changes; what varies between versions
 * is only the kernels API that plugin.c calls, which compat shims and the
 * version macros below absorb.
 */
#ifndef BV_PLUGIN_H
#define BV_PLUGIN_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BV_PLUGIN_ABI 11 /* 11: suite_check's output carries the cell's tolerance (BVSOUT2) */
#define BV_PLUGIN_SYMBOL "bv_plugin_get"

/* Version of the kernels library being built, passed by the orchestrator as
 * -DBV_KERNELS_VERSION_MAJOR=... so the fixed harness can adapt where no
 * compat shim fits: #if BV_KERNELS_VERSION_LT(0, 2, 0) ... */
#define BV_KERNELS_VERSION_LT(ma, mi, pa)                                                          \
	(BV_KERNELS_VERSION_MAJOR < (ma) ||                                                        \
	 (BV_KERNELS_VERSION_MAJOR == (ma) &&                                                      \
	  (BV_KERNELS_VERSION_MINOR < (mi) ||                                                      \
	   (BV_KERNELS_VERSION_MINOR == (mi) && BV_KERNELS_VERSION_PATCH < (pa)))))

/* The parameters of the ops that take some: the same in every version's run
 * and in the reference (benches.c), so outputs are comparable. */
#define BV_CLAMP_LO (-1.0f)
#define BV_CLAMP_HI 1.0f
#define BV_SCALE_ALPHA 0.75f
#define BV_AXPY_ALPHA 0.5f
#define BV_NORM_EPS 1e-5f

/* concat's three inputs, back to back in x (rows x cols in all): rows x
 * cols/2, cols/4 and the rest, uneven so that no piece is the others'
 * width and the pieces start at odd offsets in y's rows. */
static inline void bv_concat_widths(size_t cols, size_t w[3])
{
	w[0] = cols / 2, w[1] = cols / 4, w[2] = cols - cols / 2 - cols / 4;
}

/* ---- the model group: whole layers composed of public calls ------------
 *
 * A cell is seq x d x batch (T = seq batch tokens of width d).  Attention
 * heads are BV_MODEL_HEAD wide when d is a multiple of it, else one head of
 * width d (odd test shapes).  x is T x d; x2 holds the weights, row-major,
 * in the order of bv_model_weights, then the constant ones vector (max(T, d)
 * ones: a K = 1 product with it broadcasts a bias over rows, which every
 * release since sgemm (0.4.0) can do).  The plugin's work buffers come from
 * the library (kn_alloc), made by the runner: l.nwork floats. */
#define BV_MODEL_HEAD 64
#define BV_MODEL_FF 4 /* the MLP widening, d -> 4d -> d */

typedef struct bv_model_weights {
	/* offsets into x2, in floats; encoder: all; mlp: w1, c1, w2, c2, ones */
	size_t wqkv, bqkv, wo, bo, g1, be1, w1, c1, w2, c2, g2, be2, ones, total;
	/* offsets into the work buffer, in floats */
	size_t qkv, p, ctx, a1, x1, h, a2, tmp, mean, var, nwork;
	size_t heads, dh;
} bv_model_weights;

static inline size_t bv_model_heads(size_t d)
{
	return d >= BV_MODEL_HEAD && d % BV_MODEL_HEAD == 0 ? d / BV_MODEL_HEAD : 1;
}

/* The scores' scale 1/sqrt(d_head), as a float: the same value in the
 * plugin's call and in the reference. */
static inline float bv_model_alpha(size_t dh)
{
	return (float)(1.0 / sqrt((double)dh));
}

static inline void bv_model_offsets(int encoder, size_t seq, size_t d, size_t batch, bv_model_weights *w)
{
	size_t t = seq * batch, f = BV_MODEL_FF * d, o = 0;
	w->heads = bv_model_heads(d), w->dh = d / w->heads;
	w->wqkv = w->bqkv = w->wo = w->bo = w->g1 = w->be1 = w->g2 = w->be2 = 0;
	if (encoder) {
		w->wqkv = o, o += d * 3 * d;
		w->bqkv = o, o += 3 * d;
		w->wo = o, o += d * d;
		w->bo = o, o += d;
		w->g1 = o, o += d;
		w->be1 = o, o += d;
	}
	w->w1 = o, o += d * f;
	w->c1 = o, o += f;
	w->w2 = o, o += f * d;
	w->c2 = o, o += d;
	if (encoder) {
		w->g2 = o, o += d;
		w->be2 = o, o += d;
	}
	w->ones = o, o += t > d ? t : d;
	w->total = o;
	/* work: the mlp only needs its hidden layer */
	o = 0;
	w->qkv = w->p = w->ctx = w->a1 = w->x1 = w->a2 = w->tmp = w->mean = w->var = 0;
	if (encoder) {
		w->qkv = o, o += t * 3 * d;
		w->p = o, o += w->heads * seq * seq; /* one sequence's scores at a time */
		w->ctx = o, o += t * d;
		w->a1 = o, o += t * d;
		w->x1 = o, o += t * d;
	}
	w->h = o, o += t * f;
	if (encoder) {
		w->a2 = o, o += t * d;
		/* the layernorm composed of older calls (before 0.8.0) */
		w->tmp = o, o += t * d;
		w->mean = o, o += t;
		w->var = o, o += t;
	}
	w->nwork = o;
}

/* Results of plugin calls.  BV_NA: this version lacks the op or backend;
 * BV_UNAVAILABLE: it has it but it cannot run here (no device); BV_WRONG:
 * the call ran but its output is wrong (a suite's check, suite_plugin.c). */
enum { BV_OK = 0, BV_NA = 1, BV_UNAVAILABLE = 2, BV_FAILED = 3, BV_WRONG = 4 };

/* One call's buffers, in the backend's memory; which are used and what the
 * dimensions mean depends on the op's kind (benches.h: bv_layout). */
typedef struct bv_args {
	const float *x;  /* input */
	const float *x2; /* second input; axpy's and scatter_add's in-place output; norm: gain,
			  * then bias; gather: int32 indices; quantize, dequantize: the
			  * scale(s); batchnorm: mean, var, gain, bias (m floats each) */
	float *y;        /* output */
	size_t n;        /* elements; rows, norm, transpose, concat: columns; batchnorm: HW;
			  * gemm: N; gemv: N; model: d (quant: x and y may hold int8 /
			  * int32 / bf16 / f16 bits: benches.h) */
	size_t m, k;     /* rows, norm, transpose, concat: rows; batchnorm: C; gemm: M and K;
			  * gemv: M; model: seq, batch */
	double *result;  /* host memory: reductions, argreduce (an index), dot */
	float *work;     /* the model group's scratch, in the backend's memory (NULL: none) */
	void *cell;      /* a suite cell's state (suite_open); NULL for catalog ops */
} bv_args;

struct bv_op_def; /* benches.h */
typedef struct bv_call bv_call;
struct bv_call {
	int (*fn)(const bv_call *c, const bv_args *a); /* returns BV_OK or another BV_ */
	int backend;                                   /* the version's own backend id */
	int op;                                        /* the version's own op id */
};

/* bytes of zeroed memory, 64-byte aligned (at least 64 bytes made), or
 * NULL: a suite cell's buffers on either side (bvs_alloc in the plugin, the
 * shared ones in the runner). */
static inline void *bv_zalloc64(size_t bytes)
{
	if (bytes > SIZE_MAX - 64)
		return NULL;
	size_t rounded = bytes ? (bytes + 63) & ~(size_t)63 : 64;
	void *p = aligned_alloc(64, rounded);
	if (p)
		memset(p, 0, rounded);
	return p;
}

/* The runner's memory for a cell's shared buffers (ABI 10; bv_suite.h's
 * bvs_alloc_shared): the index-th buffer (counted per cell, from 0) of
 * bytes, 64-byte aligned.  *fill is 1 when the buffer is new (zeroed: the
 * caller writes its contents), 0 when an earlier version's setup in this
 * process made it (the caller must leave it as it is).  NULL when out of
 * memory. */
typedef void *(*bv_share_fn)(void *ctx, unsigned index, size_t bytes, int *fill);

typedef struct bv_plugin {
	int abi;
	const char *(*kernel_version)(void);
	/* Fills *out for op of group on backend; BV_NA when this build has no
	 * such op at all (decided at compile time by the shim/version macros). */
	int (*lookup)(const char *group, const char *op, const char *backend, bv_call *out);
	/* BV_OK when backend can run here; otherwise BV_NA or BV_UNAVAILABLE. */
	int (*probe)(const char *backend);
	/* Why the last call on this thread failed. */
	const char *(*last_error)(void);
	/* Memory where a backend computes (device memory for cuda). */
	int (*alloc)(const char *backend, size_t bytes, void **out);
	void (*release)(const char *backend, void *p);
	int (*copy_in)(const char *backend, void *dst, const void *src, size_t bytes);
	int (*copy_out)(const char *backend, void *dst, const void *src, size_t bytes);
	int (*sync)(const char *backend);
	/* Whether a backend's buffers are host memory the host may share. */
	int (*host_memory)(const char *backend);
	/* Device time of `reps` calls in ns per call, measured with the device's
	 * own clock (CUDA events) after a device synchronise; NAN when this
	 * build cannot (the host then times with its clock and a sync). */
	double (*device_time)(const bv_call *c, const bv_args *a, long reps);
	/* The instruction set this version's simd backend dispatches to on this
	 * machine (kn_simd_isa: "avx512", "avx2", ...): the same code runs other
	 * loops on another ISA, so results say which.  NULL for a version
	 * without one (before 0.2.0). */
	const char *(*simd_isa)(void);
	/* What the library itself allocates during calls (its workspace):
	 * memory_mark starts a peak; memory_peak gives the most held at once
	 * since then beyond what was held at the mark, host and device bytes.
	 * BV_NA for a version that does not count its memory (before 0.10.0). */
	int (*memory_mark)(void);
	/* Forces this version's simd backend onto isa ("avx512", "avx2",
	 * "generic"; kn_simd_set_isa): BV_OK; BV_NA before kernels 0.2.0 (no
	 * simd backend to force); BV_UNAVAILABLE when this CPU lacks it. */
	int (*set_simd_isa)(const char *isa);
	int (*memory_peak)(double *host, double *device);

	/* Suites (harness/plugin/bv_suite.h; harness/plugin/suite_plugin.c): NULL in a catalog plugin. */
	const char *(*suite_describe)(void); /* this build's description (JSON text) */
	/* Opens a cell: bench is the benchmark's name; params every parameter the cell has,
	 * "name=value" separated by single spaces (the other params, then the variant's, then
	 * size's); seed the cell's; inputs the input sets the run asks for (--inputs, 1 when
	 * not asked: bvs_input_sets).  Runs setup.  BV_OK, BV_NA or BV_FAILED (last_error:
	 * why). */
	int (*suite_open)(const char *bench, const char *params, uint64_t seed, int inputs, void **cell);
	/* One run, then the benchmark's check: compares output and reference (tolerance of the
	 * benchmark; the worst error found is in *worst, NAN when no reference), writes the output
	 * to out_fd (when >= 0 and check named one) as: 8 bytes "BVSOUT2\0", uint32 type
	 * (bvs_type), uint32 own (1: the cell's own tolerance, bvs_tolerance), uint64 n, double
	 * max_ulp, double rel_tol (the cell's tolerance), then the n elements.  BV_OK, BV_WRONG
	 * or BV_FAILED. */
	int (*suite_check)(void *cell, int out_fd, double *worst);
	/* bvs_work's numbers (bytes, flops, items; 0 when not said). */
	void (*suite_work)(void *cell, double work[3]);
	void (*suite_close)(void *cell); /* teardown, then frees what bvs_alloc gave */
	/* ABI 7: what bvs_alloc gave the cell (bytes), and the library's own
	 * peak around check's run (BVS_LIBRARY's memory hooks): returns 1 when
	 * the library counted, else 0 (lib_* then 0). */
	int (*suite_footprint)(void *cell, double *host, double *lib_host, double *lib_device);
	/* ABI 8: 1 when this plugin is the bundled catalog written as a suite
	 * (harness/plugin/catalog.c, every plugin without a project suite): the
	 * runner then opens, checks and times the catalog's cells through the
	 * suite_* members, a cell (group, op) being the benchmark
	 * "<group>__<op>" with the parameters "backend=B size=S".  0 otherwise. */
	int catalog;
	/* ABI 9: the input sets an open cell's setup made (bvs_input_sets_made; 1 when it
	 * said nothing): the cell's input_sets in the runner's log. */
	int (*suite_input_sets)(void *cell);
	/* ABI 9, a catalog suite only (NULL elsewhere): the host's user-defined ops of
	 * group (an ops file, loaded by the runner from --ops-file: benches.h's bv_op_def,
	 * n of them), added to the plugin's registry as bv_bench_add_ops adds them (the
	 * definitions are copied; their strings and expr stay the host's, in this process).
	 * Their functions are the build's generated table (bv_user_ops).  Called once per
	 * group before any cell is opened.  BV_OK, or BV_FAILED with last_error. */
	int (*catalog_add_ops)(const char *group, const struct bv_op_def *ops, size_t n);
	/* ABI 10: where bvs_alloc_shared takes its memory in the cells opened from now on
	 * (NULL: private memory, as bvs_alloc's).  The timing child sets one sharer for every
	 * version of a cell before their setups, so the k-th shared buffer of the cell is the
	 * same memory in each version (bv_share_fn). */
	void (*suite_share)(bv_share_fn fn, void *ctx);
} bv_plugin;

/* The catalog suite's name (catalog.c's BVS_SUITE), and how a catalog
 * cell's (group, op) is named there: "<group>__<op>". */
#define BV_CATALOG_SUITE_NAME "kernels"

typedef const bv_plugin *(*bv_plugin_get_fn)(void);

/* Distance in units in the last place between two values of one float
 * precision (f32, else f64), as integers ordered like the values; NaN
 * against NaN 0, against a number infinite.  Here because both sides use
 * it: a suite's check against its reference (suite_plugin.c) and the
 * runner's comparison of two versions' outputs (runner.c).
 *
 * Exact to the last bit: the gap is taken between the two integers in
 * unsigned 64-bit arithmetic and only then made a double.  (Making each
 * integer a double first, as this once did, rounds a double's bit pattern,
 * about 2^62, to a multiple of 512 or 1024: two adjacent doubles read 0 or
 * 512 ulps apart, so a 1-ulp result failed a 1-ulp tolerance and 2- and
 * 8-ulp changes passed it.)  Gaps up to 2^53 are exact. */
static inline double bv_ulp_gap(double a, double b, int f32)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b) ? 0 : INFINITY;
	uint64_t x, y;
	if (f32) {
		float fa = (float)a, fb = (float)b;
		uint32_t i, k;
		memcpy(&i, &fa, 4), memcpy(&k, &fb, 4);
		/* sign-magnitude onto one unsigned line: negatives below 2^31, in reverse */
		x = i & 0x80000000u ? 0x80000000u - (i & 0x7fffffffu) : 0x80000000u + (uint64_t)i;
		y = k & 0x80000000u ? 0x80000000u - (k & 0x7fffffffu) : 0x80000000u + (uint64_t)k;
	} else {
		uint64_t i, k;
		const uint64_t sign = (uint64_t)1 << 63;
		memcpy(&i, &a, 8), memcpy(&k, &b, 8);
		/* the same on 64 bits: -0 and +0 both at 2^63, so they are 0 apart */
		x = i & sign ? sign - (i & ~sign) : sign + i;
		y = k & sign ? sign - (k & ~sign) : sign + k;
	}
	return (double)(x > y ? x - y : y - x);
}

/* User-defined ops (an ops file): the table orchestrator/build/user_ops.c
 * generates per build and links into the plugin.  fn is the op's function,
 * unary kn_status (kn_backend, const float *x, float *y, size_t n) or
 * binary kn_status (kn_backend, const float *a, const float *b, float *y,
 * size_t n); NULL when this version lacks it (a weak reference): n/a. */
typedef struct bv_user_op {
	const char *group, *name;
	void (*fn)(void);
} bv_user_op;

#endif
