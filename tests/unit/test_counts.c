/* test_counts.c - callgrind's files read, and two counts compared (counts.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counts.h"
#include "tests.h"

/* A file as callgrind 3.19 writes it with --compress-strings=no
 * --compress-pos=no: a call's inclusive cost follows its calls= line and is
 * not the caller's own. */
static const char plain[] = "# callgrind format\n"
			    "version: 1\ncreator: callgrind-3.19.0\n"
			    "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\n"
			    "summary: 1000 300 100 2 40 20 2 4 2 200 7 2 1\n\n"
			    "ob=/x/plugin.so\nfl=???\nfn=run_unary\n"
			    "0 10 2 1\n"
			    "cfn=kn_scalar_unary_ex\ncalls=1 0\n0 990 298 99 2 40 20 2 4 2 200 7 2 1\n"
			    "fn=kn_scalar_unary_ex\n"
			    "0 900 290 90 0 40 20 0 4 2 190 7\n"
			    "+3 90 8 9 2 0 0 2 0 0 10 0 2 1\n"
			    "totals: 1000 300 100 2 40 20 2 4 2 200 7 2 1\n";

/* The same with names compressed ("(1) name" defines, "(1)" refers) and a
 * name first defined on a cfn= line. */
static const char compressed[] = "events: Ir Dr\n"
				 "fn=(1) outer\n1 5\ncfn=(2) inner\ncalls=1 1\n1 70\n"
				 "fn=(2)\n1 60\n2 10\nfn=(1)\n2 5\n"
				 "summary: 80 0\n";

static void reads_plain_files(void **state)
{
	(void)state;
	bv_count c = {0};
	char why[128];
	assert_int_equal(bv_callgrind_parse(plain, strlen(plain), 64, &c, why, sizeof(why)), 0);
	assert_true(c.ev[BV_EV_IR] == 1000 && c.ev[BV_EV_D1MR] == 40 && c.ev[BV_EV_BIM] == 1);
	assert_int_equal(c.nfns, 2);
	assert_string_equal(c.fns[0].name, "kn_scalar_unary_ex");
	assert_true(c.fns[0].ir == 990); /* 900 + 90, not the call line's 990 twice */
	assert_string_equal(c.fns[1].name, "run_unary");
	assert_true(c.fns[1].ir == 10);
	bv_count_free(&c);
}

static void reads_compressed_names(void **state)
{
	(void)state;
	bv_count c = {0};
	char why[128];
	assert_int_equal(bv_callgrind_parse(compressed, strlen(compressed), 64, &c, why, sizeof(why)), 0);
	assert_true(c.ev[BV_EV_IR] == 80);
	assert_int_equal(c.nfns, 2);
	assert_string_equal(c.fns[0].name, "inner");
	assert_true(c.fns[0].ir == 70);
	assert_string_equal(c.fns[1].name, "outer");
	assert_true(c.fns[1].ir == 10);
	bv_count_free(&c);
}

static void refuses_what_is_not_one(void **state)
{
	(void)state;
	const char *bad[] = {"", "hello\n", "fn=x\n1 2 3\n", "events: Ir\nfn=x\n1 2x\n",
			     "events: Ir\nsummary: -5\n", "events: Ir\nfn=x\n1 99999999999999999999999\n", NULL};
	for (int i = 0; bad[i]; i++) {
		bv_count c = {0};
		char why[128] = "";
		if (bv_callgrind_parse(bad[i], strlen(bad[i]), 64, &c, why, sizeof(why)) == 0)
			fail_msg("accepted '%s'", bad[i]);
		assert_true(why[0] != '\0');
		bv_count_free(&c);
	}
}

static bv_count count(const char *label, double ir, double d1, const char *fn, double fn_ir, const char *isa)
{
	bv_count c = {0};
	c.label = strdup(label), c.cell = strdup("unary/relu/scalar/1M"), c.status = BV_ST_OK;
	c.simd_isa = isa ? strdup(isa) : NULL;
	c.ev[BV_EV_IR] = ir, c.ev[BV_EV_D1MR] = d1;
	c.fns = calloc(2, sizeof(bv_fn_count));
	c.fns[0] = (bv_fn_count){strdup(fn), fn_ir};
	c.fns[1] = (bv_fn_count){strdup("run_unary"), 13};
	c.nfns = 2;
	return c;
}

static void tells_code_data_and_placement(void **state)
{
	(void)state;
	bv_count a = count("a", 1e6, 5e4, "kn_scalar_unary_ex", 9e5, "avx2");
	bv_count same = count("b", 1e6, 5e4, "kn_scalar_unary_ex", 9e5, "avx2");
	bv_count more = count("c", 1.03e6, 5e4, "kn_scalar_unary_ex", 9.3e5, "avx2");
	bv_count tiny = count("d", 1.001e6, 5e4, "kn_scalar_unary_ex", 9.01e5, "avx2");
	bv_count data = count("e", 1e6, 7e4, "kn_scalar_unary_ex", 9e5, "avx2");
	bv_count_cmp *w = bv_count_compare(&a, &same, "scalar", NULL, NULL, "avx512f");
	assert_string_equal(w->kind, "placement");
	assert_non_null(strstr(w->text, "not the code"));
	bv_count_cmp_free(w);
	w = bv_count_compare(&a, &more, "scalar", NULL, NULL, "avx512f");
	assert_string_equal(w->kind, "code");
	assert_true(fabs(w->instr - 0.03) < 1e-9);
	assert_string_equal(w->fn, "kn_scalar_unary_ex");
	assert_string_equal(w->text, "instr +3.00 % (kn_scalar_unary_ex +3.33 %)");
	bv_count_cmp_free(w);
	w = bv_count_compare(&a, &tiny, "scalar", NULL, NULL, NULL);
	assert_string_equal(w->kind, "code"); /* 0.1 %: 100 times the tolerance */
	bv_count_cmp_free(w);
	w = bv_count_compare(&a, &data, "scalar", NULL, NULL, NULL);
	assert_string_equal(w->kind, "data");
	assert_non_null(strstr(w->text, "D1 +40.0 %"));
	bv_count_cmp_free(w);
	/* simd: counted on avx2, timed on avx512: never "not the code" */
	w = bv_count_compare(&a, &same, "simd", "avx512", "avx512", "avx512f");
	assert_string_equal(w->kind, "unknown");
	assert_null(strstr(w->text, "not the code"));
	assert_non_null(strstr(w->text, "cannot tell"));
	assert_string_equal(w->counted_isa, "avx2");
	assert_string_equal(w->timed_isa, "avx512");
	bv_count_cmp_free(w);
	/* ... timed on avx2 too: the counts followed it */
	w = bv_count_compare(&a, &same, "simd", "avx2", "avx2", "avx512f");
	assert_string_equal(w->kind, "placement");
	bv_count_cmp_free(w);
	/* blas follows the CPU: an AVX-512 machine's OpenBLAS is not the one counted */
	w = bv_count_compare(&a, &same, "blas", NULL, NULL, "avx512f");
	assert_string_equal(w->kind, "unknown");
	bv_count_cmp_free(w);
	w = bv_count_compare(&a, &same, "blas", NULL, NULL, "avx2");
	assert_string_equal(w->kind, "placement");
	bv_count_cmp_free(w);
	/* a side without a count says which and why */
	free(same.reason);
	same.status = BV_ST_TIMEOUT, same.reason = strdup("no count after 1 s");
	w = bv_count_compare(&a, &same, "scalar", NULL, NULL, NULL);
	assert_string_equal(w->kind, "unknown");
	assert_string_equal(w->text, "not counted: b timeout: no count after 1 s");
	assert_true(isnan(w->instr));
	bv_count_cmp_free(w);
	w = bv_count_compare(&a, &more, "cuda", NULL, NULL, NULL);
	assert_string_equal(w->text, "not counted: a GPU cell");
	bv_count_cmp_free(w);
	bv_count_free(&a), bv_count_free(&same), bv_count_free(&more), bv_count_free(&tiny), bv_count_free(&data);
}

/* The time against the counts: 1 % more work timed 25 % faster is not the
 * code's doing (a scalar add planted with 1 % more work read "0.749 faster;
 * instr +1.00 %", kind code). */
static void time_the_counts_cannot_carry(void **state)
{
	(void)state;
	/* the decision alone: time ratio and the counts' modeled change */
	assert_string_equal(bv_count_time_kind("code", 0.749, 0.01), "mixed"); /* work grew, time fell */
	assert_string_equal(bv_count_time_kind("code", 1.25, -0.01), "mixed"); /* work fell, time grew */
	assert_string_equal(bv_count_time_kind("code", 1.25, 0.01), "mixed");  /* 22 % in log against 1 % */
	assert_string_equal(bv_count_time_kind("code", 0.80, -0.01), "mixed");
	assert_string_equal(bv_count_time_kind("data", 0.749, 0.05), "mixed");
	assert_string_equal(bv_count_time_kind("code", 1.03, 0.03), "code");   /* the plant, as timed */
	assert_string_equal(bv_count_time_kind("code", 0.903, -0.0645), "code"); /* 0.10.1's exp */
	assert_string_equal(bv_count_time_kind("code", 1.02, 0.002), "code");  /* within the 2 % floor */
	assert_string_equal(bv_count_time_kind("code", 1.10, 0.03), "code");   /* within 3x */
	assert_string_equal(bv_count_time_kind("code", 1.12, 0.03), "mixed");  /* past 3x + 2 % */
	assert_string_equal(bv_count_time_kind("data", 0.5, -0.4), "data");
	/* identical counts and counts of another path keep their kind */
	assert_string_equal(bv_count_time_kind("placement", 0.749, 0), "placement");
	assert_string_equal(bv_count_time_kind("unknown", 0.749, 0.01), "unknown");
	assert_string_equal(bv_count_time_kind("code", NAN, 0.01), "code");

	/* the whole row: counts with 1 % more instructions, time 0.749 */
	bv_count a = count("a", 1e6, 5e4, "kn_scalar_binary", 9e5, NULL);
	bv_count more = count("b", 1.01e6, 5e4, "kn_scalar_binary", 9.1e5, NULL);
	bv_count_cmp *w = bv_count_compare(&a, &more, "scalar", NULL, NULL, NULL);
	assert_string_equal(w->kind, "code");
	assert_true(w->cost > 0 && w->cost < 0.01);
	bv_count_weigh(w, 0.749, 1);
	assert_string_equal(w->kind, "mixed");
	assert_non_null(strstr(w->text, "instr +1.00 %"));
	assert_non_null(strstr(w->text, "the other way"));
	assert_non_null(strstr(w->text, "placement or machine dominates, not the code"));
	assert_non_null(strstr(w->text, "--layouts 4"));
	bv_count_cmp_free(w);
	/* ... timed 25 % slower: the same way, far more: not the code's alone,
	 * and not said to be placement either (new code's latency is possible) */
	w = bv_count_compare(&a, &more, "scalar", NULL, NULL, NULL);
	bv_count_weigh(w, 1.25, 1);
	assert_string_equal(w->kind, "mixed");
	assert_non_null(strstr(w->text, "moved far more"));
	assert_non_null(strstr(w->text, "more than the counted work explains"));
	assert_null(strstr(w->text, "dominates"));
	bv_count_cmp_free(w);
	/* ... timed 1 % slower: the code's */
	w = bv_count_compare(&a, &more, "scalar", NULL, NULL, NULL);
	bv_count_weigh(w, 1.01, 1);
	assert_string_equal(w->kind, "code");
	assert_string_equal(w->text, "instr +1.00 % (kn_scalar_binary +1.11 %)");
	bv_count_cmp_free(w);
	bv_count_free(&a), bv_count_free(&more);
}

/* A cell timed natively that Valgrind's CPU cannot run (a suite's AVX-512
 * variant skips itself under Valgrind): said of the variant, on every
 * version's row, never as one version's skip. */
static void variants_valgrind_cannot_run(void **state)
{
	(void)state;
	bv_count a = count("3.5.1", 1e6, 5e4, "f", 9e5, NULL), b = count("3.6", 1e6, 5e4, "f", 9e5, NULL);
	a.status = b.status = BV_ST_SKIPPED;
	a.reason = strdup("this CPU has no AVX-512F"), b.reason = strdup("this CPU has no AVX-512F");
	bv_count_cmp *w = bv_count_compare(&a, &b, "scalar", NULL, NULL, "avx512f");
	assert_string_equal(w->kind, "unknown");
	assert_string_equal(w->text, "not counted: this variant needs AVX-512, which Valgrind cannot run");
	bv_count_cmp_free(w);
	/* only the candidate skipped: the same words, no version named */
	bv_count c = count("3.5.1", 1e6, 5e4, "f", 9e5, NULL);
	char *note = bv_count_missing_note(&c, &b);
	assert_string_equal(note, "not counted: this variant needs AVX-512, which Valgrind cannot run");
	free(note);
	/* another reason: still the variant and Valgrind, with the reason */
	free(b.reason);
	b.reason = strdup("needs AMX");
	note = bv_count_missing_note(&c, &b);
	assert_string_equal(note, "not counted: this variant cannot run under Valgrind (needs AMX)");
	free(note);
	assert_null(bv_count_missing_note(&c, &c));
	bv_count_free(&a), bv_count_free(&b), bv_count_free(&c);
}

int test_counts(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_plain_files),
		cmocka_unit_test(reads_compressed_names),
		cmocka_unit_test(refuses_what_is_not_one),
		cmocka_unit_test(tells_code_data_and_placement),
		cmocka_unit_test(time_the_counts_cannot_carry),
		cmocka_unit_test(variants_valgrind_cannot_run),
	};
	return test_run_group("counts", tests, NULL, NULL);
}
