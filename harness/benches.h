/*
 * benches.h - the fixed benchmark matrix: groups of ops, the backends and
 * sizes each runs at, how inputs are made, how results are checked, and how
 * much work a call does (so a time can be shown as GB/s or GFLOP/s).
 *
 * Host-side only: nothing here calls the kernels library, so the orchestrator
 * links it too, for `list benches` and for validating filters.
 */
#ifndef BV_BENCHES_H
#define BV_BENCHES_H

#include <stddef.h>

typedef struct bv_op_def {
	const char *name;
	double (*ref)(double x); /* double-precision reference */
	float lo, hi;            /* inputs are drawn from [lo, hi] */
	unsigned max_ulp;        /* accepted distance from the rounded reference */
	double flops;            /* floating-point operations per element */
} bv_op_def;

typedef struct bv_bench {
	const char *name; /* the group, as the CLI names it: --benches unary */
	const bv_op_def *ops;
	size_t nops;
	const char *const *backends; /* NULL-terminated */
	const size_t *sizes;         /* default sizes in elements, 0-terminated */
	double bytes_per_elem;       /* bytes read plus written per element */
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
const bv_bench *bv_bench_find(const char *name);

/* All cells the selection names, in registry order.  Returns the count, or
 * -1 with a message in err (an unknown bench, op, backend or a bad size). */
long bv_cells_select(const bv_selection *sel, bv_cell **out, char *err, size_t errlen);

/* "1K" -> 1024, "16M" -> 16777216, "1000" -> 1000; 0 on a malformed size. */
size_t bv_size_parse(const char *s);
/* 1024 -> "1K"; buf of at least 24 bytes. */
const char *bv_size_format(size_t n, char *buf, size_t len);

/* Deterministic input element i for op (the same in every process). */
float bv_input(const bv_op_def *op, size_t i);
/* x[i] = bv_input(op, i) for i < n, without redoing the per-op setup. */
void bv_input_fill(const bv_op_def *op, float *x, size_t n);

/* Checks y against the reference of op applied to x.  Returns 1 when every
 * element is within op->max_ulp; otherwise 0 and describes the first bad one. */
int bv_check(const bv_op_def *op, const float *x, const float *y, size_t n, char *why, size_t len);

/* Units of work of one call of a cell. */
double bv_cell_bytes(const bv_cell *c);
double bv_cell_flops(const bv_cell *c);

#endif
