/*
 * expr.c - a recursive-descent compiler of reference expressions (expr.h)
 * into a stack program, and its evaluator.
 *
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := ('-' | '+') unary | power
 *   power   := primary ('^' unary)?          right-associative: 2^3^2 = 2^9
 *   primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
 *
 * -x^2 is -(x^2), as in mathematics.  Every error names its column (1-based)
 * and what is wrong there; nothing is evaluated until the whole text
 * compiled.
 */
#include "expr.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { I_CONST, I_VAR, I_NEG, I_ADD, I_SUB, I_MUL, I_DIV, I_POW, I_CALL1, I_CALL2 } insn_kind;

typedef struct insn {
	insn_kind kind;
	int arg;  /* I_VAR: the variable; I_CALL*: the function */
	double k; /* I_CONST */
} insn;

struct bv_expr {
	insn *code;
	size_t n, cap;
	int depth, max_depth; /* stack depth while compiling, and its high mark */
};

static double f_abs(double x)
{
	return fabs(x);
}

static const struct {
	const char *name;
	int arity;
	double (*f1)(double);
	double (*f2)(double, double);
} functions[] = {
    {"sin", 1, sin, NULL},     {"cos", 1, cos, NULL},     {"tan", 1, tan, NULL},
    {"asin", 1, asin, NULL},   {"acos", 1, acos, NULL},   {"atan", 1, atan, NULL},
    {"sinh", 1, sinh, NULL},   {"cosh", 1, cosh, NULL},   {"tanh", 1, tanh, NULL},
    {"exp", 1, exp, NULL},     {"exp2", 1, exp2, NULL},   {"expm1", 1, expm1, NULL},
    {"log", 1, log, NULL},     {"log2", 1, log2, NULL},   {"log10", 1, log10, NULL},
    {"log1p", 1, log1p, NULL}, {"sqrt", 1, sqrt, NULL},   {"cbrt", 1, cbrt, NULL},
    {"fabs", 1, fabs, NULL},   {"abs", 1, f_abs, NULL},   {"floor", 1, floor, NULL},
    {"ceil", 1, ceil, NULL},   {"erf", 1, erf, NULL},     {"erfc", 1, erfc, NULL},
    {"atan2", 2, NULL, atan2}, {"hypot", 2, NULL, hypot}, {"pow", 2, NULL, pow},
    {"fmin", 2, NULL, fmin},   {"fmax", 2, NULL, fmax},
};
#define NFUNCTIONS (sizeof(functions) / sizeof(functions[0]))

typedef struct parser {
	const char *src, *p;
	const char *const *vars;
	int nvars, nesting, failed;
	char *err;
	size_t errlen;
	bv_expr *e;
} parser;

static void fail_at(parser *ps, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail_at(parser *ps, const char *at, const char *fmt, ...)
{
	if (ps->failed)
		return;
	ps->failed = 1;
	int n = snprintf(ps->err, ps->errlen, "at column %d: ", (int)(at - ps->src) + 1);
	if (n < 0 || (size_t)n >= ps->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/* Appends an instruction; pops and pushes track the stack's high mark. */
static void emit(parser *ps, insn_kind kind, int arg, double k, int pops)
{
	bv_expr *e = ps->e;
	if (ps->failed)
		return;
	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 16;
		insn *grown = realloc(e->code, cap * sizeof(insn));
		if (!grown) {
			fail_at(ps, ps->p, "out of memory");
			return;
		}
		e->code = grown, e->cap = cap;
	}
	e->code[e->n++] = (insn){kind, arg, k};
	e->depth += 1 - pops;
	if (e->depth > e->max_depth)
		e->max_depth = e->depth;
}

static void skip_space(parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

/* Nesting: every parenthesis, argument list, sign and exponent goes one
 * level deeper; the recursion (and the stack) stays bounded.  Called just
 * after the character that opens the level. */
static int enter(parser *ps)
{
	if (++ps->nesting > BV_EXPR_MAX_DEPTH) {
		fail_at(ps, ps->p - 1, "nested deeper than %d levels",
		        BV_EXPR_MAX_DEPTH); /* at what opened it */
		return 0;
	}
	return 1;
}

static void parse_expr(parser *ps);
static void parse_unary(parser *ps);

static void parse_number(parser *ps)
{
	const char *start = ps->p, *q = ps->p;
	while (isdigit((unsigned char)*q))
		q++;
	if (*q == '.') {
		q++;
		while (isdigit((unsigned char)*q))
			q++;
	}
	if (q == start + 1 && *start == '.') {
		fail_at(ps, start, "a number needs a digit");
		return;
	}
	if (*q == 'e' || *q == 'E') {
		const char *ex = q + 1;
		if (*ex == '+' || *ex == '-')
			ex++;
		if (!isdigit((unsigned char)*ex)) {
			fail_at(ps, q, "an exponent needs digits");
			return;
		}
		while (isdigit((unsigned char)*ex))
			ex++;
		q = ex;
	}
	if (isalpha((unsigned char)*q) || *q == '_' || *q == '.') {
		fail_at(ps, q, "unexpected '%c' in a number", *q);
		return;
	}
	/* Only the characters scanned above reach strtod: no hex, inf or nan. */
	char buf[BV_EXPR_MAX_LEN + 1];
	size_t len = (size_t)(q - start);
	memcpy(buf, start, len);
	buf[len] = '\0';
	double v = strtod(buf, NULL);
	if (!isfinite(v)) {
		fail_at(ps, start, "number '%s' out of range", buf);
		return;
	}
	ps->p = q;
	emit(ps, I_CONST, 0, v, 0);
}

static void parse_call(parser *ps, const char *name, size_t len, const char *at)
{
	size_t f;
	for (f = 0; f < NFUNCTIONS; f++)
		if (strlen(functions[f].name) == len && !strncmp(functions[f].name, name, len))
			break;
	if (f == NFUNCTIONS) {
		fail_at(ps, at,
		        "unknown function '%.*s' (known: sin cos tan asin acos atan atan2 sinh cosh tanh exp "
		        "exp2 expm1 log log2 log10 log1p sqrt cbrt fabs abs floor ceil erf erfc hypot pow "
		        "fmin fmax)",
		        (int)len, name);
		return;
	}
	ps->p++; /* '(' */
	if (!enter(ps))
		return;
	int args = 0;
	for (;;) {
		skip_space(ps);
		if (*ps->p == ')' && args == 0)
			break;
		parse_expr(ps);
		if (ps->failed)
			return;
		args++;
		skip_space(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		break;
	}
	if (*ps->p != ')') {
		fail_at(ps, ps->p, "expected ',' or ')' in the arguments of %s", functions[f].name);
		return;
	}
	if (args != functions[f].arity) {
		fail_at(ps, at, "%s takes %d argument%s, not %d", functions[f].name, functions[f].arity,
		        functions[f].arity == 1 ? "" : "s", args);
		return;
	}
	ps->p++;
	ps->nesting--;
	emit(ps, args == 1 ? I_CALL1 : I_CALL2, (int)f, 0, args);
}

static void parse_primary(parser *ps)
{
	skip_space(ps);
	const char *at = ps->p;
	char c = *at;
	if (isdigit((unsigned char)c) || c == '.') {
		parse_number(ps);
		return;
	}
	if (c == '(') {
		ps->p++;
		if (!enter(ps))
			return;
		parse_expr(ps);
		skip_space(ps);
		if (!ps->failed && *ps->p != ')')
			fail_at(ps, ps->p, *ps->p ? "expected ')'" : "expected ')' before the end");
		if (ps->failed)
			return; /* p stays inside the text */
		ps->p++;
		ps->nesting--;
		return;
	}
	if (isalpha((unsigned char)c) || c == '_') {
		const char *q = at;
		while (isalnum((unsigned char)*q) || *q == '_')
			q++;
		size_t len = (size_t)(q - at);
		ps->p = q;
		skip_space(ps);
		if (*ps->p == '(') {
			parse_call(ps, at, len, at);
			return;
		}
		for (int v = 0; v < ps->nvars; v++)
			if (strlen(ps->vars[v]) == len && !strncmp(ps->vars[v], at, len)) {
				emit(ps, I_VAR, v, 0, 0);
				return;
			}
		if (len == 2 && !strncmp(at, "pi", 2)) {
			emit(ps, I_CONST, 0, 3.14159265358979323846, 0);
			return;
		}
		if (len == 1 && *at == 'e') {
			emit(ps, I_CONST, 0, 2.71828182845904523536, 0);
			return;
		}
		char known[64] = "";
		for (int v = 0; v < ps->nvars; v++)
			snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s", v ? ", " : "",
			         ps->vars[v]);
		fail_at(ps, at, "unknown name '%.*s' (the variables here: %s; constants pi, e)",
		        len > 64 ? 64 : (int)len, at, known);
		return;
	}
	if (c == '\0')
		fail_at(ps, at, "expected a number, a variable, a function or '(' before the end");
	else if (isprint((unsigned char)c))
		fail_at(ps, at, "unexpected '%c'", c);
	else
		fail_at(ps, at, "unexpected byte 0x%02x", (unsigned char)c);
}

static void parse_power(parser *ps)
{
	parse_primary(ps);
	skip_space(ps);
	if (ps->failed || *ps->p != '^')
		return;
	ps->p++;
	if (!enter(ps))
		return;
	parse_unary(ps); /* right-associative: the exponent may hold another ^ */
	ps->nesting--;
	emit(ps, I_POW, 0, 0, 2);
}

static void parse_unary(parser *ps)
{
	skip_space(ps);
	char c = *ps->p;
	if (c != '-' && c != '+') {
		parse_power(ps);
		return;
	}
	ps->p++;
	if (!enter(ps))
		return;
	parse_unary(ps);
	ps->nesting--;
	if (c == '-')
		emit(ps, I_NEG, 0, 0, 1);
}

static void parse_term(parser *ps)
{
	parse_unary(ps);
	for (;;) {
		skip_space(ps);
		char c = *ps->p;
		if (ps->failed || (c != '*' && c != '/'))
			return;
		ps->p++;
		parse_unary(ps);
		emit(ps, c == '*' ? I_MUL : I_DIV, 0, 0, 2);
	}
}

static void parse_expr(parser *ps)
{
	parse_term(ps);
	for (;;) {
		skip_space(ps);
		char c = *ps->p;
		if (ps->failed || (c != '+' && c != '-'))
			return;
		ps->p++;
		parse_term(ps);
		emit(ps, c == '+' ? I_ADD : I_SUB, 0, 0, 2);
	}
}

bv_expr *bv_expr_compile(const char *src, const char *const *vars, int nvars, char *err, size_t errlen)
{
	if (errlen)
		err[0] = '\0';
	size_t len = strnlen(src, BV_EXPR_MAX_LEN + 1);
	if (len > BV_EXPR_MAX_LEN) {
		snprintf(err, errlen, "at column %d: longer than %d characters", BV_EXPR_MAX_LEN + 1,
		         BV_EXPR_MAX_LEN);
		return NULL;
	}
	bv_expr *e = calloc(1, sizeof(*e));
	if (!e) {
		snprintf(err, errlen, "at column 1: out of memory");
		return NULL;
	}
	parser ps = {src, src, vars, nvars < 0 ? 0 : nvars > 2 ? 2 : nvars, 0, 0, err, errlen, e};
	skip_space(&ps);
	if (!*ps.p)
		fail_at(&ps, ps.p, "empty expression");
	else
		parse_expr(&ps);
	skip_space(&ps);
	if (!ps.failed && *ps.p == ')')
		fail_at(&ps, ps.p, "unmatched ')'");
	else if (!ps.failed && *ps.p && isprint((unsigned char)*ps.p))
		fail_at(&ps, ps.p, "unexpected '%c' after the expression", *ps.p);
	else if (!ps.failed && *ps.p)
		fail_at(&ps, ps.p, "unexpected byte 0x%02x after the expression", (unsigned char)*ps.p);
	if (ps.failed) {
		bv_expr_free(e);
		return NULL;
	}
	return e;
}

double bv_expr_eval(const bv_expr *e, const double *vals)
{
	/* The high mark is at most one slot per character (the length bound). */
	double stack[BV_EXPR_MAX_LEN + 1];
	int sp = 0;
	for (size_t i = 0; i < e->n; i++) {
		const insn *in = &e->code[i];
		switch (in->kind) {
		case I_CONST:
			stack[sp++] = in->k;
			break;
		case I_VAR:
			stack[sp++] = vals[in->arg];
			break;
		case I_NEG:
			stack[sp - 1] = -stack[sp - 1];
			break;
		case I_ADD:
			sp--, stack[sp - 1] += stack[sp];
			break;
		case I_SUB:
			sp--, stack[sp - 1] -= stack[sp];
			break;
		case I_MUL:
			sp--, stack[sp - 1] *= stack[sp];
			break;
		case I_DIV:
			sp--, stack[sp - 1] /= stack[sp];
			break;
		case I_POW:
			sp--, stack[sp - 1] = pow(stack[sp - 1], stack[sp]);
			break;
		case I_CALL1:
			stack[sp - 1] = functions[in->arg].f1(stack[sp - 1]);
			break;
		case I_CALL2:
			sp--, stack[sp - 1] = functions[in->arg].f2(stack[sp - 1], stack[sp]);
			break;
		}
	}
	return sp == 1 ? stack[0] : NAN;
}

void bv_expr_free(bv_expr *e)
{
	if (!e)
		return;
	free(e->code);
	free(e);
}
