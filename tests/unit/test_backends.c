/* test_backends.c - the backend view (backends.c): pairing by process. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"
#include "common.h"
#include "export.h"
#include "json.h"
#include "merge.h"
#include "stats.h"
#include "status.h"
#include "table.h"
#include "tests.h"

/* A table of one version and two rows of one cell, scalar and simd, with
 * per-process medians and ids as merge.c reads them from logs. */
static void row_of(bv_row *r, const char *backend, const double *ns, const int *ids, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->bench = bv_strdup("unary"), r->op = bv_strdup("relu"), r->backend = bv_strdup(backend);
	r->size = 65536;
	r->results = bv_xcalloc(1, sizeof(bv_result));
	r->changes = bv_xcalloc(1, sizeof(bv_change));
	r->results[0].status = BV_ST_OK;
	r->results[0].proc_ns = bv_xcalloc(n + 1, sizeof(double));
	r->results[0].proc_id = bv_xcalloc(n + 1, sizeof(int));
	memcpy(r->results[0].proc_ns, ns, n * sizeof(double));
	memcpy(r->results[0].proc_id, ids, n * sizeof(int));
	r->results[0].nproc_ns = n;
}

static void table_of(bv_table *t, const double *a, const int *ia, size_t na, const double *b, const int *ib,
                     size_t nb)
{
	memset(t, 0, sizeof(*t));
	t->nversions = 1;
	t->labels = bv_xcalloc(1, sizeof(char *));
	t->labels[0] = bv_strdup("v");
	t->threshold = 0.01;
	t->nrows = 2;
	t->rows = bv_xcalloc(2, sizeof(bv_row));
	row_of(&t->rows[0], "scalar", a, ia, na);
	row_of(&t->rows[1], "simd", b, ib, nb);
}

static void pairs_by_process_id_not_by_position(void **state)
{
	(void)state;
	/* scalar 100 ns everywhere but process 3 (200: the machine was busy
	 * there, simd too); simd's list in another order, with a process (9)
	 * scalar lacks.  Paired: 10/100 in every process, 0.1 exactly. */
	double a[] = {100, 100, 200, 100, 100, 100, 100, 100, 100, 100};
	int ia[] = {1, 2, 3, 4, 5, 6, 7, 8, 10, 11};
	double b[] = {20, 10, 10, 10, 10, 10, 10, 10, 10, 10, 50};
	int ib[] = {3, 1, 2, 4, 5, 6, 7, 8, 10, 11, 9};
	bv_table t;
	table_of(&t, a, ia, 10, b, ib, 11);
	assert_int_equal(bv_table_backends(&t, "scalar"), 0);
	assert_int_equal(t.nbackends, 1);
	const bv_change *ch = &t.backends[0].ch;
	assert_true(ch->valid);
	assert_int_equal(ch->processes, 10); /* process 9 has no partner */
	assert_true(fabs(ch->ratio - 0.1) < 1e-12);
	assert_int_equal(ch->verdict, BV_FASTER);
	assert_int_equal(t.backends_decided.tested, 1);
	assert_int_equal(t.backends_decided.called, 1);
	bv_table_free(&t);
}

static void no_common_process_is_no_ratio(void **state)
{
	(void)state;
	double a[] = {100, 100, 100, 100, 100, 100};
	int ia[] = {1, 2, 3, 4, 5, 6};
	int ib[] = {7, 8, 9, 10, 11, 12}; /* cuda cells: processes of their own */
	bv_table t;
	table_of(&t, a, ia, 6, a, ib, 6);
	assert_int_equal(bv_table_backends(&t, "scalar"), 0);
	assert_int_equal(t.nbackends, 1);
	assert_false(t.backends[0].ch.valid);
	assert_non_null(strstr(t.backends[0].ch.none, "other processes"));
	assert_int_equal(t.backends_decided.tested, 0);
	bv_table_free(&t);
}

static void a_reference_no_cell_has_is_an_input_error(void **state)
{
	(void)state;
	double a[] = {100};
	int ia[] = {1};
	bv_table t;
	table_of(&t, a, ia, 1, a, ia, 1);
	assert_int_equal(bv_table_backends(&t, "blas"), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "backends here: scalar, simd"));
	assert_false(t.vs.on);
	bv_table_free(&t);
}

/* Three backends of one cell in 12 processes: scalar 100 ns, simd 20,
 * blas 15 (or, tied, 20 with a wobble).  blas is fastest against simd
 * (not against scalar, the reference), their own ratio paired by process. */
static void three_rows(bv_table *t, const double *blas)
{
	double sc[12], si[12];
	int ids[12];
	for (int i = 0; i < 12; i++)
		sc[i] = 100 * (1 + 0.3 * (i % 3)), si[i] = 20 * (1 + 0.3 * (i % 3)), ids[i] = i + 1;
	table_of(t, sc, ids, 12, si, ids, 12);
	t->rows = bv_xrealloc(t->rows, 3 * sizeof(bv_row));
	t->nrows = 3;
	row_of(&t->rows[2], "blas", blas, ids, 12);
}

static void the_fastest_is_told_against_the_next(void **state)
{
	(void)state;
	double blas[12];
	for (int i = 0; i < 12; i++)
		blas[i] = 15 * (1 + 0.3 * (i % 3)); /* the machine's state moves all three */
	bv_table t;
	three_rows(&t, blas);
	assert_int_equal(bv_table_backends(&t, "scalar"), 0);
	assert_int_equal(t.nbackends, 2);
	assert_int_equal(t.nwins, 1);
	const bv_backend_win *w = &t.wins[0];
	assert_string_equal(t.rows[w->row].backend, "blas");
	assert_string_equal(t.rows[w->next_row].backend, "simd");
	assert_true(w->ch.valid);
	assert_true(fabs(w->ch.ratio - 0.75) < 1e-12); /* 15/20 in every process */
	assert_int_equal(w->ch.verdict, BV_FASTER);
	assert_int_equal(t.wins_decided.called, 1);
	char text[384];
	bv_backend_win_text(&t, w, text, sizeof(text));
	assert_non_null(strstr(text, "blas, 0.750"));
	assert_non_null(strstr(text, "of simd's time"));
	bv_table_free(&t);

	/* blas and simd alike (+-0.2 % around 20 ns): not told apart, both named */
	for (int i = 0; i < 12; i++)
		blas[i] = 20 * (1 + 0.3 * (i % 3)) * (i % 2 ? 1.002 : 0.998);
	three_rows(&t, blas);
	assert_int_equal(bv_table_backends(&t, "scalar"), 0);
	assert_int_equal(t.nwins, 1);
	w = &t.wins[0];
	assert_true(w->ch.valid);
	assert_int_not_equal(w->ch.verdict, BV_FASTER);
	assert_int_equal(t.wins_decided.called, 0);
	bv_backend_win_text(&t, w, text, sizeof(text));
	assert_non_null(strstr(text, "not told apart"));
	bv_table_free(&t);
}

static void the_reference_can_be_the_fastest(void **state)
{
	(void)state;
	double a[] = {10, 10, 10, 10, 10, 10, 10, 10, 10, 10};
	double b[] = {30, 30, 30, 30, 30, 30, 30, 30, 30, 30};
	int ids[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	bv_table t;
	table_of(&t, a, ids, 10, b, ids, 10); /* scalar 10 ns, simd 30 */
	assert_int_equal(bv_table_backends(&t, "scalar"), 0);
	assert_int_equal(t.nwins, 1);
	assert_string_equal(t.rows[t.wins[0].row].backend, "scalar");
	assert_string_equal(t.rows[t.wins[0].next_row].backend, "simd");
	assert_true(fabs(t.wins[0].ch.ratio - 1.0 / 3) < 1e-12);
	assert_int_equal(t.wins[0].ch.verdict, BV_FASTER);
	bv_table_free(&t);
}

/* The parameter axis (--vs level=1): a suite op's "[level=V]" cells of one
 * backend and size, each over level=1's, paired by process; the backend
 * and size must agree, other parameters too. */
static void the_parameter_axis_pairs_the_same_op_otherwise(void **state)
{
	(void)state;
	double l1[10], l9[10], other[10];
	int ids[10];
	for (int i = 0; i < 10; i++)
		l1[i] = 100 * (1 + 0.2 * (i % 2)), l9[i] = 3 * l1[i], other[i] = 7 * l1[i], ids[i] = i + 1;
	bv_table t;
	table_of(&t, l1, ids, 10, l9, ids, 10);
	free(t.rows[0].op), free(t.rows[1].op);
	free(t.rows[0].backend), free(t.rows[1].backend);
	t.rows[0].op = bv_strdup("pack[level=1][mode=x]"), t.rows[0].backend = bv_strdup("default");
	t.rows[1].op = bv_strdup("pack[level=9][mode=x]"), t.rows[1].backend = bv_strdup("default");
	/* the same op at level 9 on another backend: its reference is missing */
	t.rows = bv_xrealloc(t.rows, 3 * sizeof(bv_row));
	t.nrows = 3;
	row_of(&t.rows[2], "fast", other, ids, 10);
	free(t.rows[2].op), t.rows[2].op = bv_strdup("pack[level=9][mode=x]");
	bv_vs_axis ax;
	assert_int_equal(bv_vs_parse("level=1", &ax), 0);
	assert_string_equal(ax.param, "level");
	assert_int_equal(bv_table_vs(&t, &ax), 0);
	assert_int_equal(t.nbackends, 1);
	assert_int_equal(t.backends[0].row, 1);
	assert_int_equal(t.backends[0].ref_row, 0);
	assert_true(fabs(t.backends[0].ch.ratio - 3) < 1e-12);
	assert_int_equal(t.backends[0].ch.verdict, BV_SLOWER);
	char text[512];
	bv_vs_group(&t, &t.rows[1], text, sizeof(text));
	assert_string_equal(text, "unary/pack[mode=x]/default/64K");
	assert_int_equal(t.nwins, 1);
	bv_backend_win_text(&t, &t.wins[0], text, sizeof(text));
	assert_non_null(strstr(text, "level=1, 0.333"));
	assert_non_null(strstr(text, "of level=9's time"));
	/* a parameter no cell has, a value none has */
	assert_int_equal(bv_vs_parse("dtype=f64", &ax), 0);
	assert_int_equal(bv_table_vs(&t, &ax), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "no cell here has a parameter dtype (the ops' parameters here: level, mode"));
	assert_int_equal(bv_vs_parse("level=3", &ax), 0);
	assert_int_equal(bv_table_vs(&t, &ax), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "no cell of level=3 was measured (level here: 1, 9)"));
	bv_table_free(&t);
}

static void the_vs_option_is_parsed(void **state)
{
	(void)state;
	bv_vs_axis ax;
	assert_int_equal(bv_vs_parse("backend=simd", &ax), 0);
	assert_true(ax.on);
	assert_string_equal(ax.param, "");
	assert_string_equal(ax.ref, "simd");
	assert_int_equal(bv_vs_parse("size=1K", &ax), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "--units rate"));
	const char *bad[] = {"level", "=1", "level=", "Level=1", "level=1 2", "lev el=1", "level=[1]", NULL};
	for (const char **b = bad; *b; b++) {
		assert_int_equal(bv_vs_parse(*b, &ax), BV_EINPUT);
		assert_non_null(strstr(bv_error_last(), "expected NAME=VALUE"));
		assert_false(ax.on);
	}
	/* a suite's variant parameter is the backend's place */
	cJSON *desc = cJSON_Parse("{\"benchmarks\":[{\"name\":\"dot\",\"variant\":\"method\"}]}");
	assert_int_equal(bv_vs_parse("method=simple", &ax), 0);
	bv_vs_settle_variant(&ax, desc);
	assert_string_equal(ax.param, "");
	assert_string_equal(ax.ref, "simple");
	assert_int_equal(bv_vs_parse("level=1", &ax), 0);
	bv_vs_settle_variant(&ax, desc);
	assert_string_equal(ax.param, "level");
	cJSON_Delete(desc);
}

int test_backends(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(pairs_by_process_id_not_by_position),
	    cmocka_unit_test(no_common_process_is_no_ratio),
	    cmocka_unit_test(the_fastest_is_told_against_the_next),
	    cmocka_unit_test(the_reference_can_be_the_fastest),
	    cmocka_unit_test(a_reference_no_cell_has_is_an_input_error),
	    cmocka_unit_test(the_parameter_axis_pairs_the_same_op_otherwise),
	    cmocka_unit_test(the_vs_option_is_parsed),
	};
	return test_run_group("backend view", tests, NULL, NULL);
}
