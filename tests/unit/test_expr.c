/* test_expr.c - user-defined ops: the reference expressions (harness/common/expr.c)
 * and the ops file (harness/common/ops_file.c): every error path, and evaluation
 * against libm.  test_ops_file registers ops, and removes them after each
 * test (test_fresh_registry): the other tests see the built-in registry
 * whatever the order (unit --reverse). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benches.h"
#include "expr.h"
#include "fs.h"
#include "ops_file.h"
#include "tests.h"
#include "user_ops.h"

static const char *const X[] = {"x"};
static const char *const AB[] = {"a", "b"};

static double eval1(const char *src, double x)
{
	char err[512];
	bv_expr *e = bv_expr_compile(src, X, 1, err, sizeof(err));
	if (!e)
		fail_msg("'%s' did not compile: %s", src, err);
	double v = bv_expr_eval(e, &x);
	bv_expr_free(e);
	return v;
}

static void evaluates_like_libm(void **state)
{
	(void)state;
	const double xs[] = {-2.5, -1, -0.3, 0, 0.25, 0.9, 1.7, 3};
	for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
		double x = xs[i];
		assert_true(eval1("sin(x)", x) == sin(x));
		assert_true(eval1("cos(x) + tan(x)", x) == cos(x) + tan(x));
		assert_true(eval1("atan(x) - sinh(x) * cosh(x)", x) == atan(x) - sinh(x) * cosh(x));
		assert_true(eval1("tanh(x) / exp(x)", x) == tanh(x) / exp(x));
		assert_true(eval1("exp2(x) + expm1(x)", x) == exp2(x) + expm1(x));
		assert_true(eval1("cbrt(x) + fabs(x) + abs(x)", x) == cbrt(x) + fabs(x) + fabs(x));
		assert_true(eval1("floor(x) + ceil(x)", x) == floor(x) + ceil(x));
		assert_true(eval1("erf(x) + erfc(x)", x) == erf(x) + erfc(x));
		assert_true(eval1("atan2(x, 2) + hypot(x, 3)", x) == atan2(x, 2) + hypot(x, 3));
		assert_true(eval1("fmin(x, 0) + fmax(x, 0)", x) == fmin(x, 0) + fmax(x, 0));
		assert_true(eval1("pow(x, 2) + x^3", x) == pow(x, 2) + pow(x, 3));
		assert_true(eval1("log(x + 4) + log2(x + 4) + log10(x + 4) + log1p(x + 2)", x) ==
		            log(x + 4) + log2(x + 4) + log10(x + 4) + log1p(x + 2));
		assert_true(eval1("sqrt(x + 3) + asin(x / 4) + acos(x / 4)", x) ==
		            sqrt(x + 3) + asin(x / 4) + acos(x / 4));
		assert_true(eval1("x / (1 + exp(-x))", x) == x / (1 + exp(-x)));
	}
	/* precedence and associativity */
	assert_true(eval1("1 + 2 * 3", 0) == 7);
	assert_true(eval1("(1 + 2) * 3", 0) == 9);
	assert_true(eval1("8 - 3 - 2", 0) == 3);
	assert_true(eval1("8 / 4 / 2", 0) == 1);
	assert_true(eval1("2^3^2", 0) == 512);
	assert_true(eval1("-x^2", 3) == -9);
	assert_true(eval1("2^-1", 0) == 0.5);
	assert_true(eval1("--x", 3) == 3);
	assert_true(eval1("+x", 3) == 3);
	assert_true(eval1(" 1.5e2 + .5 + 2. + 1E-1 ", 0) == 150 + 0.5 + 2 + 0.1);
	assert_true(eval1("pi", 0) == M_PI);
	assert_true(eval1("e", 0) == M_E);
	assert_true(isnan(eval1("log(x)", -1)));
	char err[256];
	bv_expr *e = bv_expr_compile("sqrt(a*a + b*b) - b", AB, 2, err, sizeof(err));
	assert_non_null(e);
	assert_true(bv_expr_eval(e, (double[]){3, 4}) == 1);
	bv_expr_free(e);
}

/* src must fail at column col with a message holding what. */
static void refused_at(const char *src, const char *const *vars, int nvars, int col, const char *what)
{
	char err[512], at[32];
	bv_expr *e = bv_expr_compile(src, vars, nvars, err, sizeof(err));
	if (e) {
		bv_expr_free(e);
		fail_msg("'%s' compiled", src);
	}
	snprintf(at, sizeof(at), "at column %d: ", col);
	if (strncmp(err, at, strlen(at)) || !strstr(err, what))
		fail_msg("'%s': got '%s', expected '%s%s'", src, err, at, what);
}

static void refuses_bad_expressions_with_their_column(void **state)
{
	(void)state;
	refused_at("sinn(x)", X, 1, 1, "unknown function 'sinn'");
	refused_at("x + system(x)", X, 1, 5, "unknown function 'system'");
	refused_at("y", X, 1, 1, "unknown name 'y'");
	refused_at("a + b", X, 1, 1, "unknown name 'a'");
	refused_at("x", AB, 2, 1, "unknown name 'x'");
	refused_at("", X, 1, 1, "empty expression");
	refused_at("   ", X, 1, 4, "empty expression");
	refused_at("1 +", X, 1, 4, "before the end");
	refused_at("(x", X, 1, 3, "expected ')'");
	refused_at("x)", X, 1, 2, "unmatched ')'");
	refused_at("x x", X, 1, 3, "unexpected 'x' after the expression");
	refused_at("sin(x", X, 1, 6, "expected ',' or ')'");
	refused_at("sin()", X, 1, 1, "sin takes 1 argument, not 0");
	refused_at("sin(x, x)", X, 1, 1, "sin takes 1 argument, not 2");
	refused_at("pow(x)", X, 1, 1, "pow takes 2 arguments, not 1");
	refused_at("1e999", X, 1, 1, "out of range");
	refused_at("1e", X, 1, 2, "an exponent needs digits");
	refused_at("1.2.3", X, 1, 4, "unexpected '.' in a number");
	refused_at("0x10", X, 1, 2, "unexpected 'x' in a number");
	refused_at("inf", X, 1, 1, "unknown name 'inf'");
	refused_at("nan", X, 1, 1, "unknown name 'nan'");
	refused_at(".", X, 1, 1, "a number needs a digit");
	refused_at("x # 1", X, 1, 3, "unexpected '#'");
	refused_at("x \x01", X, 1, 3, "unexpected byte 0x01");
	refused_at("x * * x", X, 1, 5, "unexpected '*'");
	refused_at("x,", X, 1, 2, "unexpected ','");
	/* bounded: nesting and length */
	char deep[300];
	memset(deep, '(', 65);
	strcpy(deep + 65, "x");
	memset(deep + 66, ')', 65);
	deep[131] = '\0';
	refused_at(deep, X, 1, 65, "nested deeper than 64");
	memset(deep, '-', 70);
	strcpy(deep + 70, "x");
	refused_at(deep, X, 1, 65, "nested deeper than 64");
	memset(deep, '(', 64);
	strcpy(deep + 64, "x");
	memset(deep + 65, ')', 64);
	deep[129] = '\0';
	assert_true(eval1(deep, 2) == 2);
	char *longer = malloc(BV_EXPR_MAX_LEN + 2);
	memset(longer, ' ', BV_EXPR_MAX_LEN + 1);
	longer[0] = 'x';
	longer[BV_EXPR_MAX_LEN + 1] = '\0';
	refused_at(longer, X, 1, BV_EXPR_MAX_LEN + 1, "longer than 1024");
	longer[BV_EXPR_MAX_LEN] = '\0';
	assert_true(eval1(longer, 5) == 5);
	/* the longest sum the bound allows evaluates (the stack holds it) */
	for (int i = 0; i < BV_EXPR_MAX_LEN; i++)
		longer[i] = i % 2 ? '+' : '1';
	longer[BV_EXPR_MAX_LEN - 1] = '\0';
	assert_true(eval1(longer, 0) == BV_EXPR_MAX_LEN / 2);
	free(longer);
}

int test_expr(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(evaluates_like_libm),
	    cmocka_unit_test(refuses_bad_expressions_with_their_column),
	};
	return test_run_group("expr", tests, NULL, NULL);
}

/* ---- the ops file ------------------------------------------------------ */

static const char *const good_op = "{\"name\": \"sin\", \"group\": \"unary\", \"function\": \"fm_sin\", "
                                   "\"lo\": -3, \"hi\": 3, \"max_ulp\": 4, \"reference\": \"sin(x)\"";

/* An ops file whose only op is good_op with `extra` spliced in (",\"k\": v"),
 * or the whole text when it starts with '!'. */
static void file_refused(const char *extra, const char *what)
{
	char text[2048], err[1024];
	if (extra[0] == '!')
		snprintf(text, sizeof(text), "%s", extra + 1);
	else
		snprintf(text, sizeof(text), "{\"schema_version\": 1, \"ops\": [%s%s}]}", good_op, extra);
	if (bv_ops_file_parse("F.json", text, strlen(text), err, sizeof(err)) == 0)
		fail_msg("accepted %s", text);
	if (!strstr(err, what) || strncmp(err, "ops file F.json: ", 17))
		fail_msg("%s: got '%s', expected '%s'", text, err, what);
	assert_null(bv_ops_file_hash());
}

static void ops_file_refuses_bad_input(void **state)
{
	(void)state;
	size_t before;
	const bv_bench *unary = bv_bench_find("unary");
	before = unary->nops;
	file_refused("!not json", "not a JSON object");
	file_refused("![]", "not a JSON object");
	file_refused("!{\"ops\": []}", "key 'schema_version' must be 1 (it is missing)");
	file_refused("!{\"schema_version\": 2, \"ops\": []}", "key 'schema_version' must be 1");
	file_refused("!{\"schema_version\": 1}", "key 'ops' must be an array of ops (it is missing)");
	file_refused("!{\"schema_version\": 1, \"ops\": {}}", "key 'ops' must be an array");
	file_refused("!{\"schema_version\": 1, \"ops\": [], \"extra\": 1}", "unknown key 'extra'");
	file_refused("!{\"schema_version\": 1, \"ops\": [], \"ops\": []}", "key 'ops' given twice");
	file_refused("!{\"schema_version\": 1, \"ops\": [3]}", "ops[0]: must be an object");
	file_refused(", \"speed\": 1", "op 'sin': unknown key 'speed'");
	file_refused(", \"lo\": 1", "op 'sin': key 'lo' given twice");
	file_refused("!{\"schema_version\": 1, \"ops\": [{\"group\": \"unary\"}]}",
	             "ops[0]: key 'name' is missing");
	file_refused("!{\"schema_version\": 1, \"ops\": [{\"name\": 5}]}",
	             "ops[0]: key 'name' must be a string");
	file_refused("!{\"schema_version\": 1, \"ops\": [{\"name\": \"a,b\"}]}",
	             "ops[0]: key 'name': 'a,b' is no op name");
	file_refused(
	    "!{\"schema_version\": 1, \"ops\": [{\"name\": \"s\", \"group\": \"unary\", \"function\": \"f\", "
	    "\"lo\": 0, \"hi\": 1, \"max_ulp\": 0}]}",
	    "op 's': key 'reference' is missing");
	file_refused("!{\"schema_version\": 1, \"ops\": [{\"name\": \"s\", \"group\": \"reduce\", "
	             "\"function\": \"f\", "
	             "\"lo\": 0, \"hi\": 1, \"max_ulp\": 0, \"reference\": \"x\"}]}",
	             "op 's': key 'group': 'reduce' is not a group ops can be added to");
	file_refused(", \"tol\": 4", "op 'sin': key 'tol': the unary group's check is max_ulp alone");
	file_refused(", \"note\": 4", "op 'sin': key 'note' must be a string");
	file_refused(", \"flops\": \"ten\"", "op 'sin': key 'flops' must be a finite number");
	file_refused(", \"flops\": -1", "op 'sin': key 'flops': -1 is not in");
	/* ranges */
	file_refused(
	    "!{\"schema_version\": 1, \"ops\": [{\"name\": \"s\", \"group\": \"unary\", \"function\": \"f\", "
	    "\"lo\": 2, \"hi\": 1, \"max_ulp\": 0, \"reference\": \"x\"}]}",
	    "op 's': keys 'lo', 'hi': lo (2) must be below hi (1)");
	file_refused(
	    "!{\"schema_version\": 1, \"ops\": [{\"name\": \"s\", \"group\": \"unary\", \"function\": \"f\", "
	    "\"lo\": 1, \"hi\": 1.00000001, \"max_ulp\": 0, \"reference\": \"x\"}]}",
	    "lo (1) must be below hi (1), as floats");
	file_refused(
	    "!{\"schema_version\": 1, \"ops\": [{\"name\": \"s\", \"group\": \"unary\", \"function\": \"f\", "
	    "\"lo\": -1e300, \"hi\": 1, \"max_ulp\": 0, \"reference\": \"x\"}]}",
	    "the range must fit a float");
	file_refused(
	    "!{\"schema_version\": 1, \"ops\": [{\"name\": \"s\", \"group\": \"unary\", \"function\": \"f\", "
	    "\"lo\": \"0\", \"hi\": 1, \"max_ulp\": 0, \"reference\": \"x\"}]}",
	    "op 's': key 'lo' must be a finite number");
	file_refused(
	    "!{\"schema_version\": 1, \"ops\": [{\"name\": \"s\", \"group\": \"unary\", \"function\": \"f\", "
	    "\"lo\": 0, \"max_ulp\": 0, \"reference\": \"x\"}]}",
	    "op 's': key 'hi' is missing");
	file_refused(
	    "!{\"schema_version\": 1, \"ops\": [{\"name\": \"s\", \"group\": \"unary\", \"function\": \"f\", "
	    "\"lo\": 0, \"hi\": 1, \"max_ulp\": 0.5, \"reference\": \"x\"}]}",
	    "op 's': key 'max_ulp': 0.5 is no whole number");
	file_refused(
	    "!{\"schema_version\": 1, \"ops\": [{\"name\": \"s\", \"group\": \"unary\", \"function\": \"f\", "
	    "\"lo\": 0, \"hi\": 1, \"max_ulp\": -1, \"reference\": \"x\"}]}",
	    "op 's': key 'max_ulp': -1 is no whole number");
	/* functions go into generated C */
	const char *bad_fn[] = {"", "1f", "f-g", "f; g", "bv_user_ops", "f\\n", NULL};
	for (int i = 0; bad_fn[i]; i++) {
		char text[512];
		snprintf(text, sizeof(text),
		         "!{\"schema_version\": 1, \"ops\": [{\"name\": \"s\", \"group\": \"unary\", "
		         "\"function\": \"%s\", "
		         "\"lo\": 0, \"hi\": 1, \"max_ulp\": 0, \"reference\": \"x\"}]}",
		         bad_fn[i]);
		file_refused(text, "op 's': key 'function'");
	}
	/* references, with the column */
	file_refused("!{\"schema_version\": 1, \"ops\": [{\"name\": \"h\", \"group\": \"binary\", "
	             "\"function\": \"f\", "
	             "\"lo\": 0, \"hi\": 1, \"max_ulp\": 0, \"reference\": \"hypot(x, b)\"}]}",
	             "op 'h': key 'reference': reference of op 'h' at column 7: unknown name 'x'");
	file_refused(
	    "!{\"schema_version\": 1, \"ops\": [{\"name\": \"s\", \"group\": \"unary\", \"function\": \"f\", "
	    "\"lo\": 0, \"hi\": 1, \"max_ulp\": 0, \"reference\": \"sinn(x)\"}]}",
	    "reference of op 's' at column 1: unknown function 'sinn'");
	/* names: twice, or a built-in op's of the group */
	char text[1024];
	snprintf(text, sizeof(text), "!{\"schema_version\": 1, \"ops\": [%s}, %s}]}", good_op, good_op);
	file_refused(text, "op 'sin': key 'name': defined twice (ops[0] and ops[1])");
	file_refused(
	    "!{\"schema_version\": 1, \"ops\": [{\"name\": \"s\", \"group\": \"unary\", \"function\": \"f\", "
	    "\"lo\": 0, \"hi\": 1, \"max_ulp\": 0, \"reference\": \"x\"}, {\"name\": \"t\", \"group\": "
	    "\"binary\", \"function\": \"f\", \"lo\": 0, \"hi\": 1, \"max_ulp\": 0, \"reference\": \"a\"}]}",
	    "op 't': key 'function': f is op 's''s function too, in group unary");
	file_refused("!{\"schema_version\": 1, \"ops\": [{\"name\": \"exp\", \"group\": \"unary\", "
	             "\"function\": \"f\", "
	             "\"lo\": 0, \"hi\": 1, \"max_ulp\": 0, \"reference\": \"x\"}]}",
	             "op 'exp': key 'name': the unary group has a built-in op of that name");
	/* \u0000 in a string: cJSON decodes it into a NUL,
	 * and the string read in C ends there ("fm_bench_my\u0000..." was the
	 * function fm_bench_my); refused naming the key, and a key holding one */
	file_refused("!{\"schema_version\": 1, \"ops\": [{\"name\": \"my\", \"group\": \"unary\", "
	             "\"function\": \"fm_bench_my\\u0000; evil()\", "
	             "\"lo\": 0, \"hi\": 1, \"max_ulp\": 0, \"reference\": \"x\"}]}",
	             "key 'function' at line 1, column 88: its string holds \\u0000 (a NUL character)");
	file_refused("!{\"schema_version\": 1,\n \"ops\": [{\"name\": \"my\\u0000x\"}]}",
	             "key 'name' at line 2, column 22: its string holds \\u0000");
	file_refused(", \"note\": \"a\\u0000b\"", "key 'note' at line 1");
	file_refused(", \"lo\\u0000x\": 1", "a key at line 1, column 146 holds \\u0000");
	{
		/* a NUL byte as such */
		const char raw[] = "{\"schema_version\": 1, \"ops\": [{\"name\": \"my\0x\"}]}";
		char err[256];
		assert_int_equal(bv_ops_file_parse("F.json", raw, sizeof(raw) - 1, err, sizeof(err)), -1);
		if (!strstr(err, "ops file F.json: holds a NUL byte at offset 42"))
			fail_msg("got '%s'", err);
	}
	assert_int_equal(bv_bench_find("unary")->nops, before); /* nothing registered */
	char err[256];
	assert_int_equal(bv_ops_file_load("/nonexistent/ops.json", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "ops file /nonexistent/ops.json: cannot read it"));
	/* a FIFO: refused, not waited on for a writer that
	 * never comes (the alarm ends a hang as a failure) */
	char *dir = test_tmpdir();
	char *fifo = bv_asprintf("%s/ops.json", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(10);
	int rc = bv_ops_file_load(fifo, err, sizeof(err));
	alarm(0);
	assert_int_equal(rc, -1);
	if (!strstr(err, "is a FIFO, not a regular file") || !strstr(err, fifo))
		fail_msg("got '%s'", err);
	bv_rm_rf(dir);
	free(fifo), free(dir);
}

/* The ops are registered, then removed again (test_fresh_registry): no
 * other test sees them. */
static void ops_file_registers_and_checks_its_ops(void **state)
{
	(void)state;
	const char *text =
	    "{\"schema_version\": 1, \"ops\": ["
	    "{\"name\": \"sin\", \"group\": \"unary\", \"function\": \"fm_sin\", \"lo\": -3, \"hi\": 3, "
	    "\"max_ulp\": 4, \"flops\": 10, \"reference\": \"sin(x)\", \"note\": \"\\\\u0000 is text\"},"
	    "{\"name\": \"hyp\", \"group\": \"binary\", \"function\": \"fm_hyp\", \"lo\": -100, "
	    "\"hi\": 100, \"max_ulp\": 2, \"reference\": \"sqrt(a*a + b*b)\"}]}";
	char err[1024];
	size_t nu = bv_bench_find("unary")->nops, nb = bv_bench_find("binary")->nops;
	assert_int_equal(bv_ops_file_parse("F.json", text, strlen(text), err, sizeof(err)), 0);
	assert_non_null(bv_ops_file_hash());
	assert_int_equal(strlen(bv_ops_file_hash()), 16);
	assert_int_equal(bv_bench_find("unary")->nops, nu + 1);
	assert_int_equal(bv_bench_find("binary")->nops, nb + 1);
	/* a second load is refused (the registry is once per process) */
	assert_int_equal(bv_ops_file_parse("F.json", text, strlen(text), err, sizeof(err)), -1);

	/* --ops sin selects it on the unary group's backends and sizes */
	bv_cell *cells;
	long n = bv_cells_select(&(bv_selection){"unary", "sin", "scalar", "1K"}, &cells, err, sizeof(err));
	assert_int_equal(n, 1);
	const bv_op_def *op = cells[0].op;
	assert_string_equal(op->name, "sin");
	assert_string_equal(op->function, "fm_sin");
	assert_true(op->lo == -3 && op->hi == 3 && op->max_ulp == 4 && op->flops == 10);
	/* the reference is the expression; the check passes sinf and refuses cosf */
	float x[1024], y[1024];
	double want[1024], scale[1024];
	bv_cell_inputs(&cells[0], x, NULL);
	bv_reference(&cells[0], x, NULL, want, scale);
	for (int i = 0; i < 1024; i++) {
		assert_true(x[i] >= -3 && x[i] <= 3);
		assert_true(want[i] == sin((double)x[i]));
		y[i] = sinf(x[i]);
	}
	char why[256];
	assert_true(bv_verify(&cells[0], want, scale, y, 0, why, sizeof(why)));
	assert_true(bv_check(op, x, y, 1024, why, sizeof(why)));
	for (int i = 0; i < 1024; i++)
		y[i] = cosf(x[i]);
	assert_false(bv_verify(&cells[0], want, scale, y, 0, why, sizeof(why)));
	assert_non_null(strstr(why, "sin: element"));
	free(cells);

	n = bv_cells_select(&(bv_selection){"binary", "hyp", "scalar", "1K"}, &cells, err, sizeof(err));
	assert_int_equal(n, 1);
	float b[1024];
	bv_cell_inputs(&cells[0], x, b);
	bv_reference(&cells[0], x, b, want, scale);
	for (int i = 0; i < 1024; i++) {
		assert_true(want[i] == sqrt((double)x[i] * x[i] + (double)b[i] * b[i]));
		y[i] = hypotf(x[i], b[i]);
	}
	assert_true(bv_verify(&cells[0], want, scale, y, 0, why, sizeof(why)));
	free(cells);
	/* a typo is still a typo, with the user op among the suggestions */
	assert_int_equal(bv_cells_select(&(bv_selection){NULL, "hpy", NULL, NULL}, &cells, err, sizeof(err)),
	                 -1);
	assert_non_null(strstr(err, "did you mean 'hyp'"));

	/* the generated table: both ops, functions weak when no library
	 * defines them (here: no archive at all) */
	char *c = bv_user_ops_source("/nonexistent");
	assert_non_null(strstr(c, "extern kn_status fm_sin(kn_backend, const float *, float *, size_t) "
	                          "__attribute__((weak))"));
	assert_non_null(
	    strstr(c, "extern kn_status fm_hyp(kn_backend, const float *, const float *, float *, size_t) "
	              "__attribute__((weak))"));
	assert_non_null(strstr(c, "{\"unary\", \"sin\", (void (*)(void))fm_sin},"));
	assert_non_null(strstr(c, "{\"binary\", \"hyp\", (void (*)(void))fm_hyp},"));
	assert_non_null(strstr(c, "const size_t bv_user_ops_n = 2;"));
	free(c);
	assert_non_null(bv_user_ops_key());

	/* the reset: the built-in groups again, no file loaded, and another
	 * file may be (a process that loads another ops file) */
	test_fresh_registry(NULL);
	assert_int_equal(bv_bench_find("unary")->nops, nu);
	assert_int_equal(bv_bench_find("binary")->nops, nb);
	assert_null(bv_ops_file_hash());
	assert_null(bv_ops_file_path());
	assert_int_equal(bv_cells_select(&(bv_selection){"unary", "sin", NULL, NULL}, &cells, err, sizeof(err)),
	                 -1);
	assert_int_equal(bv_ops_file_parse("G.json", text, strlen(text), err, sizeof(err)), 0);
	assert_string_equal(bv_ops_file_path(), "G.json");
	assert_int_equal(bv_bench_find("unary")->nops, nu + 1);
}

int test_ops_file(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(ops_file_refuses_bad_input, test_fresh_registry, test_fresh_registry),
	    cmocka_unit_test_setup_teardown(ops_file_registers_and_checks_its_ops, test_fresh_registry,
					    test_fresh_registry),
	};
	return test_run_group("ops_file", tests, NULL, NULL);
}
