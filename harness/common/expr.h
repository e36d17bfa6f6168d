/*
 * expr.h - the reference of a user-defined op (ops file): an arithmetic
 * expression in its inputs, compiled once to a small stack program and
 * evaluated in double precision per element on the host side.
 *
 * The text comes from a user's file, so it is untrusted: numbers, the op's
 * variables, + - * / ^ (right-associative; also pow()), unary minus,
 * parentheses, a whitelist of libm functions and the constants pi and e.
 * At most BV_EXPR_MAX_LEN bytes and BV_EXPR_MAX_DEPTH levels of nesting.
 */
#ifndef BV_EXPR_H
#define BV_EXPR_H

#include <stddef.h>

#define BV_EXPR_MAX_LEN 1024
#define BV_EXPR_MAX_DEPTH 64

typedef struct bv_expr bv_expr;

/* Compiles src over the variables vars[0..nvars) (nvars <= 2: "x", or "a"
 * and "b").  Returns NULL with "at column N: what" in err on an error. */
bv_expr *bv_expr_compile(const char *src, const char *const *vars, int nvars, char *err, size_t errlen);
/* The value at vals[0..nvars). */
double bv_expr_eval(const bv_expr *e, const double *vals);
void bv_expr_free(bv_expr *e);

#endif
