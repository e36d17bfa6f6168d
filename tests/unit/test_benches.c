/* test_benches.c - the matrix registry: sizes, selection, checking. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "tests.h"

static void sizes_parse_and_format(void **state)
{
	(void)state;
	char buf[32];
	assert_int_equal(bv_size_parse("1K"), 1024);
	assert_int_equal(bv_size_parse("16M"), 16u << 20);
	assert_int_equal(bv_size_parse("1000"), 1000);
	assert_int_equal(bv_size_parse(""), 0);
	assert_int_equal(bv_size_parse("0"), 0);
	assert_int_equal(bv_size_parse("1Q"), 0);
	assert_int_equal(bv_size_parse("-1K"), 0);
	assert_int_equal(bv_size_parse("99999999999G"), 0);
	assert_string_equal(bv_size_format(1u << 20, buf, sizeof(buf)), "1M");
	assert_string_equal(bv_size_format(1000, buf, sizeof(buf)), "1000");
}

static void selection_filters_and_rejects_unknown_names(void **state)
{
	(void)state;
	bv_cell *cells;
	char err[256];
	bv_selection all = {"unary", NULL, NULL, NULL};
	long n = bv_cells_select(&all, &cells, err, sizeof(err));
	const bv_bench *u = bv_bench_find("unary");
	size_t nbe = 0, nsz = 0;
	for (const char *const *b = u->backends; *b; b++)
		nbe++;
	for (const size_t *s = u->sizes; *s; s++)
		nsz++;
	assert_int_equal(n, (long)(u->nops * nbe * nsz));
	free(cells);
	bv_selection some = {NULL, "relu,exp", "scalar", "1K,1K,3000"};
	n = bv_cells_select(&some, &cells, err, sizeof(err));
	assert_int_equal(n, 4); /* 2 ops x 1 backend x 2 distinct sizes */
	assert_string_equal(cells[0].op->name, "exp");
	assert_int_equal(cells[1].size, 3000);
	free(cells);
	bv_selection bad[] = {{"nope", NULL, NULL, NULL}, {NULL, "nope", NULL, NULL},
			      {NULL, NULL, "tpu", NULL}, {NULL, NULL, NULL, "1X"}, {"unary,", NULL, NULL, NULL}};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(bv_cells_select(&bad[i], &cells, err, sizeof(err)), -1);
}

static void check_catches_a_wrong_element(void **state)
{
	(void)state;
	const bv_bench *u = bv_bench_find("unary");
	const bv_op_def *exp_op = NULL;
	for (size_t i = 0; i < u->nops; i++)
		if (!strcmp(u->ops[i].name, "exp"))
			exp_op = &u->ops[i];
	float x[100], y[100];
	for (int i = 0; i < 100; i++)
		x[i] = bv_input(exp_op, (size_t)i), y[i] = expf(x[i]);
	char why[256];
	assert_true(bv_check(exp_op, x, y, 100, why, sizeof(why)));
	y[57] = nextafterf(nextafterf(y[57], INFINITY), INFINITY) * 1.0001f;
	assert_false(bv_check(exp_op, x, y, 100, why, sizeof(why)));
	assert_non_null(strstr(why, "element 57"));
}

static void inputs_differ_between_ops_sharing_a_letter(void **state)
{
	(void)state;
	bv_op_def a = {"sqrt", NULL, 0.0f, 1.0f, 0, 1}, b = {"silu", NULL, 0.0f, 1.0f, 0, 1};
	int same = 0;
	for (size_t i = 0; i < 64; i++) {
		same += bv_input(&a, i) == bv_input(&b, i);
		assert_true(bv_input(&a, i) >= 0.0f && bv_input(&a, i) <= 1.0f);
		assert_true(bv_input(&a, i) == bv_input(&a, i)); /* deterministic */
	}
	assert_true(same < 4);
}

int test_benches(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizes_parse_and_format),
		cmocka_unit_test(selection_filters_and_rejects_unknown_names),
		cmocka_unit_test(check_catches_a_wrong_element),
		cmocka_unit_test(inputs_differ_between_ops_sharing_a_letter),
	};
	return cmocka_run_group_tests_name("benches", tests, NULL, NULL);
}
