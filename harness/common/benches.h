/*
 * benches.h - the fixed benchmark matrix: groups of ops, the backends and
 * sizes each runs at, how inputs are made, how results are checked, and how
 * much work a call does (so a time can be shown as GB/s or GFLOP/s).
 *
 * Host-side only: nothing here calls the kernels library, so the orchestrator
 * links it too, for `list benches` and for validating filters.
 *
 * Three files define it: benches.c (the registry, sizes, selection, layouts
 * and work), bench_inputs.c (a cell's inputs) and bench_reference.c (its
 * reference and the check of its output).
 */
#ifndef BV_BENCHES_H
#define BV_BENCHES_H

#include <stddef.h>

/* How an op is called and checked; each kind has its own buffers (see
 * bv_layout), reference and work model. */
typedef enum {
	BV_K_UNARY,     /* y[i] = f(x[i]) */
	BV_K_BINARY,    /* y[i] = f(x[i], x2[i]) */
	BV_K_AXPY,      /* x2[i] = alpha x[i] + x2[i], in place */
	BV_K_REDUCE,    /* result = f(x[0..n)) */
	BV_K_ARGREDUCE, /* result = index of f over x[0..n) */
	BV_K_DOT,       /* result = sum x[i] x2[i] */
	BV_K_ROWS,      /* y = f(each row of x), x rows x cols (softmax) */
	BV_K_GEMM,      /* y(M x N) = x(M x K) x2(K x N) */
	BV_K_GEMV,      /* y(M) = x(M x N) x2(N) */
	BV_K_NORM,      /* y = each row of x normalised, x rows x cols; x2 the gain per
			 * column, then (layernorm) the bias per column */
	BV_K_COPY,      /* y = x */
	BV_K_TRANSPOSE, /* y (cols x rows) = x^T, x rows x cols */
	BV_K_GATHER,    /* y[i] = x[x2[i]], x2 int32 indices (a permutation) */
	BV_K_SCATTER,   /* x2[idx[i]] += x[i] in place: x holds n values, then the n
			 * int32 indices idx (a permutation) */
	/* The quant group (kernels 0.11).  Its int8, int32 and 16-bit payloads
	 * are stored as bits in the float buffers, packed (4 int8 or 2 bf16 /
	 * f16 a float, little-endian, the last float's unused bytes left
	 * alone), as gather's int32 indices are; nx, nx2 and ny count floats,
	 * so 4 nx bytes is what a payload takes.  The outputs that are
	 * payloads (quantize's int8, qgemm's int32, to_bf16's and to_f16's
	 * uint16) are checked bit for bit: their reference holds each output
	 * float's 32 bits as an integer (bv_verify). */
	BV_K_QUANT,      /* y (int8, n) = sat(rne(x / s)), x n floats, x2 the one scale */
	BV_K_QUANT_PC,   /* the same per row: x rows x cols, x2 a scale per row */
	BV_K_DEQUANT,    /* y (n floats) = x (int8) s, x2 the one scale */
	BV_K_DEQUANT_PC, /* the same per row, x2 a scale per row */
	BV_K_QGEMM,      /* y (int32, M x N) = x (int8, M x K) x2 (int8, K x N) */
	BV_K_BF16GEMM,   /* y (float, M x N) = x (bf16, M x K) x2 (bf16, K x N) */
	BV_K_TO_HALF,    /* y (bf16 or f16, n) = x (n floats) rounded: to_bf16, to_f16 */
	BV_K_FROM_HALF,  /* y (n floats) = x (bf16 or f16, n) widened: from_bf16, from_f16 */
	/* conv and pool groups: x one image H x W x C (the size
	 * H x W x C), NCHW or NHWC by the op; the op's conv fields say the rest */
	BV_K_CONV,      /* y = conv2d(x, x2), x2 the weights (k x c x r x s, or HWIO) */
	BV_K_DWCONV,    /* y = depthwise conv2d(x, x2), x2 c x r x s (or r x s x c) */
	BV_K_MAXPOOL,   /* y = max over each window of x */
	BV_K_AVGPOOL,   /* y = mean over each window's elements inside x */
	BV_K_BATCHNORM, /* y = (x - mean) / sqrt(var + eps) gain + bias per row: x is
			 * C x HW (the shape's rows x cols, one image), x2 holds mean,
			 * var, gain and bias, C floats each */
	BV_K_CONCAT,    /* y (rows x cols) = three inputs joined along the columns,
			 * back to back in x: rows x cols/2, cols/4, the rest */
	BV_K_MODEL,     /* y = a layer of x (seq batch x d), x2 its weights (plugin.h:
			 * bv_model_offsets), work buffers from the library */
	BV_K_SUITE      /* a benchmark suite's cell (bv_suite.h, suite_file.h): the
			 * suite makes its own inputs and checks its own output; the
			 * runner makes no buffers (its layout is all zeros) */
} bv_kind;

/* The window of a conv or pool op (ops.def): square win x win, the stride,
 * out channels = kmul x in channels, NHWC when nhwc (else NCHW); the padding
 * is (win - 1) / 2 on every side ("same" for odd windows, none for 2 x 2). */
typedef struct bv_conv_def {
	unsigned char win, stride, kmul, nhwc;
} bv_conv_def;

/* A suite op (BV_K_SUITE): one benchmark of the suite with its other
 * parameters fixed (docs/suites-design.md, Cell identity).  Made by
 * suite_file.c; its strings live for the process. */
typedef struct bv_suite_op {
	const char *bench;   /* the benchmark's name in the suite */
	const char *params;  /* the op's other parameters, "level=9 dtype=f64" ("" when none) */
	const char *variant; /* the parameter in the backend slot, or NULL (backend "default") */
	int has_size;        /* the cell's size is the "size" parameter */
	double max_ulp, rel_tol;
	const char *const *backends; /* this op's backends (variant values), NULL-terminated */
	const size_t *sizes;         /* this op's sizes, 0-terminated ({1, 0} without "size") */
} bv_suite_op;

typedef struct bv_op_def {
	const char *name;
	bv_kind kind;
	double (*ref)(double x);            /* BV_K_UNARY: double-precision reference */
	double (*ref2)(double a, double b); /* BV_K_BINARY */
	float lo, hi;                       /* inputs are drawn from [lo, hi] */
	unsigned max_ulp; /* accepted distance from the rounded reference */
	double tol;       /* also accepted: |got - want| <= tol * FLT_EPSILON * scale */
	double flops;     /* per element (of the output, or of the input for reductions) */
	bv_conv_def conv; /* conv and pool kinds */
	/* A user-defined op (an ops file, harness/common/ops_file.h) has these; a
	 * built-in one has NULL.  expr: the reference, evaluated instead of
	 * ref / ref2; function: what the plugin calls (generated per build). */
	const struct bv_expr *expr;
	const char *function;
	/* A suite op's benchmark and parameters (BV_K_SUITE); NULL otherwise.
	 * Its backends and sizes are its own, not its group's. */
	const struct bv_suite_op *suite;
} bv_op_def;

typedef struct bv_bench {
	const char *name; /* the group, as the CLI names it: --benches unary */
	const bv_op_def *ops;
	size_t nops;
	const char *const *backends; /* NULL-terminated (a suite's: every op's, once each) */
	const size_t *sizes;         /* default sizes, 0-terminated (bv_size_parse) */
} bv_bench;

/* One cell of the matrix. */
typedef struct bv_cell {
	const bv_bench *bench;
	const bv_op_def *op;
	const char *backend;
	size_t size;
} bv_cell;

/* Which cells to run: comma-separated name lists, NULL meaning all/default. */
typedef struct bv_selection {
	const char *benches, *ops, *backends, *sizes;
} bv_selection;

const bv_bench *bv_bench_all(size_t *count);
/* Adds user-defined ops (unary and binary kinds only) to the group named
 * group, after its built-in ones.  The ops are copied, their strings and
 * expr are kept (owned by the caller for the life of the process).  Only
 * before any cell is selected: cells point into the registry.  Returns 0,
 * or -1 with a message in err (no such group, a name taken). */
int bv_bench_add_ops(const char *group, const bv_op_def *ops, size_t n, char *err, size_t errlen);
/* Adds a whole group (a suite's: suite_file.c) after the others.  The
 * struct is copied; what it points to is kept (the caller's, for the life
 * of the process).  Only before any cell is selected.  Returns 0, or -1
 * with a message in err (a group of that name exists). */
int bv_bench_add_group(const bv_bench *group, char *err, size_t errlen);
/* The registry back to the built-in groups, as before any addition: what
 * bv_bench_add_ops and bv_bench_add_group made is freed (what the added ops
 * and groups point to is their caller's: bv_ops_file_reset and
 * bv_suite_file_reset free theirs).  For the unit tests, so that no test
 * sees another's ops (tests/unit/test_expr.c, test_suite_file.c), and for a
 * process that loads another ops file or suite.  Every cell selected before
 * points into what is freed: none may be used after. */
void bv_bench_reset(void);
const bv_bench *bv_bench_find(const char *name);
/* Whether a --ops item names op: its name, or for a suite op its base name
 * (the benchmark's: `compress` names compress[level=1] and [level=9]). */
int bv_op_named(const bv_op_def *op, const char *item, size_t len);
/* The backends and default sizes of op in group b: a suite op's own,
 * otherwise the group's. */
const char *const *bv_op_backends(const bv_bench *b, const bv_op_def *op);
const size_t *bv_op_sizes(const bv_bench *b, const bv_op_def *op);

/* All cells the selection names, in registry order.  Returns the count, or
 * -1 with a message in err (an unknown bench, op, backend or a bad size). */
long bv_cells_select(const bv_selection *sel, bv_cell **out, char *err, size_t errlen);
/* For a message when explicit sizes select no cell: the default sizes of
 * the groups the rest of the selection names, only those that fit its ops
 * ("matmul: 64x64x64 ... 4096x4096"; groups apart by "; "), or "" when the
 * groups, ops and backends name no cell whatever the sizes. */
void bv_sizes_hint(const bv_selection *sel, char *buf, size_t len);

/* "Did you mean": the index of the name in names[0..n) closest to word when
 * it is close enough to be a typo of it (at most 2 edits, a swap of two
 * neighbours being one, and at most a third of the longer one), else -1.
 * Here because both the runner and the orchestrator link this file: the
 * orchestrator uses it for options and subcommands too. */
long bv_closest_name(const char *word, const char *const *names, size_t n);

/* A size is one number.  1-D: elements ("1K" -> 1024, "16M").  Shapes
 * ("1024x4096" rows x cols, "256x256x256" M x N x K) are packed as
 * nd << 48 | d0 << 32 | d1 << 16 | d2 (each dim < 65536): still one number,
 * exact as a JSON double, so logs, merging and exporters need no second key.
 * Returns 0 on a malformed size. */
size_t bv_size_parse(const char *s);
/* 1024 -> "1K", a packed shape -> "1024x4096"; buf of at least 24 bytes. */
const char *bv_size_format(size_t n, char *buf, size_t len);
/* The dimensions of a size (d[1], d[2] = 1 when absent); returns nd. */
int bv_size_dims(size_t size, size_t d[3]);
size_t bv_size_shape(int nd, size_t d0, size_t d1, size_t d2);

/* The buffers of one call of a cell, in elements. */
typedef struct bv_layout {
	size_t nx, nx2, ny; /* inputs x and x2 (0: none), output y (0: none) */
	int result;         /* the output is one number (reductions, dot) */
	int inplace;        /* the output is x2 (axpy) */
	size_t nwork;       /* scratch the call needs, in the backend's memory (model) */
	size_t m, n, k;     /* dimensions: elementwise n; rows m x n; gemm M N K (the
			     * quant group: elements, not floats); model seq d batch */
} bv_layout;
void bv_cell_layout(const bv_cell *c, bv_layout *l);
/* Elements of the output the reference and the check cover. */
size_t bv_cell_outputs(const bv_cell *c);

/* Deterministic input element i for op (the same in every process). */
float bv_input(const bv_op_def *op, size_t i);
/* x[i] = bv_input(op, i) for i < n, without redoing the per-op setup. */
void bv_input_fill(const bv_op_def *op, float *x, size_t n);
/* Both inputs of a cell (x2 may be NULL when the layout has none). */
void bv_cell_inputs(const bv_cell *c, float *x, float *x2);

/* --inputs N, the input-sets rotation: a cell's input sets.  Set 0 is the cell's
 * inputs (bv_cell_inputs: the one the check sees); sets 1.. hold the same
 * values in other orders, so a data-dependent branch meets other data on
 * each call.  Only where order is all there is to vary: elementwise ops and
 * reductions (unary, binary, reduce, argreduce, dot); at most
 * BV_MAX_INPUT_SETS sets, and at most BV_INPUT_SETS_BYTES of them beside
 * set 0.  The catalog suite (catalog.c: each version's setup) makes them
 * with these calls, so every version has the same sets. */
#define BV_MAX_INPUT_SETS 64
#define BV_INPUT_SETS_BYTES (64.0 * 1024 * 1024)
/* How many sets cell c (layout l) gets when `want` are asked: 1 for other
 * kinds or want <= 1, else want bounded by the two limits. */
int bv_input_sets_count(const bv_cell *c, const bv_layout *l, int want);
/* Makes set s >= 1 from set 0 in place: x (nx floats) and x2 (nx2, may be
 * NULL) hold set 0's values on entry and set s's on return (a permutation
 * seeded by the op's name and s: the same in every process and version). */
void bv_input_set_permute(const bv_cell *c, int s, float *x, size_t nx, float *x2, size_t nx2);

/* The double-precision reference of a cell: want[i] per output element, and
 * scale[i], the magnitude its rounding error is measured against. */
void bv_reference(const bv_cell *c, const float *x, const float *x2, double *want, double *scale);
/* Checks an output (y, or result for reductions) against the reference.
 * Returns 1 when it passes; otherwise 0 and describes the first bad element. */
int bv_verify(const bv_cell *c, const double *want, const double *scale, const float *y, double result,
	      char *why, size_t len);

/* Checks y against the reference of a unary op applied to x (the same test
 * as bv_verify, for callers with a bare op). */
int bv_check(const bv_op_def *op, const float *x, const float *y, size_t n, char *why, size_t len);

/* Units of work of one call of a cell. */
double bv_cell_bytes(const bv_cell *c);
double bv_cell_flops(const bv_cell *c);

#endif
