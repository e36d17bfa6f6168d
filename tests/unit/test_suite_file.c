/* test_suite_file.c - a suite's description (harness/common/suite_file.c): every
 * limit and hostile input refused with the file, benchmark and key named,
 * nothing registered on an error; the merge over versions; the cells a
 * loaded suite registers.  Its group is removed after each test
 * (test_fresh_registry): the other tests see the built-in registry
 * whatever the order (unit --reverse). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "bv_suite.h"
#include "suite_file.h"
#include "tests.h"

/* A description with one benchmark whose object is bench (JSON text). */
static char *doc_with(const char *suite, const char *bench)
{
	size_t n = strlen(bench) + 256;
	char *t = malloc(n);
	assert_non_null(t);
	snprintf(t, n, "{\"schema\": \"bench-versions-suite/1\", \"suite\": \"%s\", \"benchmarks\": [%s]}", suite, bench);
	return t;
}

/* text is refused, the message holds each of what (NULL-terminated), and
 * nothing was loaded. */
static void refused_text(const char *text, const char *const *what)
{
	char err[1024] = "";
	assert_int_equal(bv_suite_file_parse("F.json", text, strlen(text), err, sizeof(err)), -1);
	for (; *what; what++)
		if (!strstr(err, *what))
			fail_msg("'%s' not in: %s", *what, err);
	assert_null(bv_suite_file_hash());
	assert_null(bv_bench_find("mylib"));
}

static void refused_bench(const char *bench, const char *what1, const char *what2)
{
	char *t = doc_with("mylib", bench);
	const char *what[] = {"suite file F.json", what1, what2, NULL};
	refused_text(t, what2 ? what : (const char *[]){"suite file F.json", what1, NULL});
	free(t);
}

static void refuses_hostile_descriptions(void **state)
{
	(void)state;
	/* the document */
	refused_text("[1]", (const char *[]){"not a JSON object", NULL});
	refused_text("{\"schema\": ", (const char *[]){"syntax error", NULL});
	refused_text("{\"schema\": \"bench-versions-suite/2\", \"suite\": \"a\", \"benchmarks\": []}",
		     (const char *[]){"key 'schema'", NULL});
	refused_text("{\"schema\": \"bench-versions-suite/1\", \"suite\": \"a\", \"benchmarks\": [], \"x\": 1}",
		     (const char *[]){"unknown key 'x'", NULL});
	refused_text("{\"schema\": \"bench-versions-suite/1\", \"suite\": \"a\", \"suite\": \"b\", \"benchmarks\": []}",
		     (const char *[]){"key 'suite' given twice", NULL});
	refused_text("{\"schema\": \"bench-versions-suite/1\", \"suite\": \"a\", \"benchmarks\": []}",
		     (const char *[]){"key 'benchmarks'", "1 to 256", NULL});
	/* names: the suite's, a benchmark's, a parameter's */
	char *t = doc_with("My-Lib", "{\"name\": \"a\", \"params\": []}");
	refused_text(t, (const char *[]){"key 'suite'", "'My-Lib' is no suite name", NULL});
	free(t);
	t = doc_with("unary", "{\"name\": \"a\", \"params\": []}");
	refused_text(t, (const char *[]){"'unary' is the name of a group", NULL});
	free(t);
	refused_bench("{\"name\": \"Exp\", \"params\": []}", "benchmarks[0]: key 'name': 'Exp' is no benchmark name",
		      NULL);
	refused_bench("{\"name\": \"exp_is_a_name_longer_than_32_bytes\", \"params\": []}", "is no benchmark name", NULL);
	refused_bench("{\"name\": \"exp\", \"params\": [{\"name\": \"a b\", \"values\": [\"1\"]}]}",
		      "benchmark 'exp': key 'params'", "'a b' is no parameter name");
	refused_bench("{\"name\": \"exp\", \"params\": [{\"name\": \"lvl\", \"values\": [\"1;rm\"]}]}",
		      "benchmark 'exp': key 'params': parameter 'lvl'", "value '1;rm' is no value");
	refused_bench("{\"name\": \"exp\", \"params\": [{\"name\": \"lvl\", \"values\": [\"1\", \"1\"]}]}",
		      "parameter 'lvl': value '1' given twice", NULL);
	refused_bench("{\"name\": \"exp\", \"params\": [{\"name\": \"lvl\", \"values\": []}]}",
		      "parameter 'lvl': its values must be an array of 1 to 64 (it has 0)", NULL);
	refused_bench("{\"name\": \"exp\", \"params\": [{\"name\": \"l\", \"values\": [\"1\"]}, {\"name\": \"l\", \"values\": [\"2\"]}]}",
		      "benchmark 'exp': key 'params': parameter 'l' declared twice", NULL);
	refused_bench("{\"name\": \"exp\", \"params\": [], \"colour\": 1}", "benchmark 'exp': unknown key 'colour'", NULL);
	refused_bench("{\"name\": \"exp\", \"params\": [], \"max_ulp\": -1}", "benchmark 'exp': key 'max_ulp'", NULL);
	refused_bench("{\"name\": \"exp\", \"params\": [], \"runs\": 1}", "benchmark 'exp': key 'runs'", NULL);
	refused_bench("{\"name\": \"exp\", \"params\": [{\"name\": \"l\", \"values\": [\"1\"]}], \"variant\": \"v\"}",
		      "benchmark 'exp': key 'variant'", "(not 'v')");
	refused_bench("{\"name\": \"exp\", \"params\": [{\"name\": \"size\", \"values\": [\"1K\"]}], \"variant\": \"size\"}",
		      "benchmark 'exp': key 'variant'", NULL);
	/* sizes: must parse, and two spellings of one size are one cell */
	refused_bench("{\"name\": \"exp\", \"params\": [{\"name\": \"size\", \"values\": [\"1K\", \"lots\"]}]}",
		      "benchmark 'exp': key 'params': parameter 'size': 'lots' is no size", NULL);
	refused_bench("{\"name\": \"exp\", \"params\": [{\"name\": \"size\", \"values\": [\"1K\", \"1024\"]}]}",
		      "'1K' and '1024' are the same size", NULL);
	/* a NUL would cut a name short */
	refused_bench("{\"name\": \"exp\\u0000x\", \"params\": []}", "\\u0000", NULL);

	/* limits: values per parameter, parameters, cells, benchmarks */
	char big[16384];
	size_t at = (size_t)snprintf(big, sizeof(big), "{\"name\": \"exp\", \"params\": [{\"name\": \"l\", \"values\": [");
	for (int i = 0; i <= BVS_MAX_VALUES; i++)
		at += (size_t)snprintf(big + at, sizeof(big) - at, "%s\"%d\"", i ? ", " : "", i);
	snprintf(big + at, sizeof(big) - at, "]}]}");
	refused_bench(big, "parameter 'l': its values must be an array of 1 to 64 (it has 65)", NULL);
	at = (size_t)snprintf(big, sizeof(big), "{\"name\": \"exp\", \"params\": [");
	for (int i = 0; i <= BVS_MAX_PARAMS; i++)
		at += (size_t)snprintf(big + at, sizeof(big) - at, "%s{\"name\": \"p%d\", \"values\": [\"1\"]}", i ? ", " : "", i);
	snprintf(big + at, sizeof(big) - at, "]}");
	refused_bench(big, "benchmark 'exp': key 'params': 9 parameters, at most 8", NULL);
	at = (size_t)snprintf(big, sizeof(big), "{\"name\": \"exp\", \"params\": [");
	for (int p = 0; p < 3; p++) { /* 20^3 = 8000 cells */
		at += (size_t)snprintf(big + at, sizeof(big) - at, "%s{\"name\": \"p%d\", \"values\": [", p ? ", " : "", p);
		for (int i = 0; i < 20; i++)
			at += (size_t)snprintf(big + at, sizeof(big) - at, "%s\"%d\"", i ? ", " : "", i);
		at += (size_t)snprintf(big + at, sizeof(big) - at, "]}");
	}
	snprintf(big + at, sizeof(big) - at, "]}");
	refused_bench(big, "benchmark 'exp': key 'params': 8000 cells", "at most 4096");
	char *many = malloc(64 * 300);
	assert_non_null(many);
	at = 0;
	for (int i = 0; i <= BVS_MAX_BENCHMARKS; i++)
		at += (size_t)snprintf(many + at, 64 * 300 - at, "%s{\"name\": \"b%d\", \"params\": []}", i ? ", " : "", i);
	refused_bench(many, "key 'benchmarks': 257 benchmarks, 1 to 256", NULL);
	free(many);
	/* a benchmark twice */
	refused_bench("{\"name\": \"exp\", \"params\": []}, {\"name\": \"exp\", \"params\": []}",
		      "benchmark 'exp': key 'name': declared twice", NULL);
	/* the file itself */
	char err[512];
	assert_int_equal(bv_suite_file_load("/nonexistent/suite.json", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "suite file /nonexistent/suite.json: cannot read it"));
	assert_int_equal(bv_suite_file_load("/tmp", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a regular file"));
}

static cJSON *parse(const char *text)
{
	cJSON *j = cJSON_Parse(text);
	assert_non_null(j);
	return j;
}

static void merges_versions_and_names_conflicts(void **state)
{
	(void)state;
	char *a = doc_with("mylib", "{\"name\": \"exp\", \"params\": [{\"name\": \"size\", \"values\": [\"1K\"]}], "
				    "\"variant\": null, \"max_ulp\": 1, \"rel_tol\": 0, \"runs\": false}");
	char *b = doc_with("mylib", "{\"name\": \"cube\", \"params\": [], \"variant\": null, \"runs\": true}, "
				    "{\"name\": \"exp\", \"params\": [{\"name\": \"size\", \"values\": [\"1K\"]}], "
				    "\"variant\": null, \"max_ulp\": 1, \"rel_tol\": 0, \"runs\": true}");
	cJSON *ja = parse(a), *jb = parse(b), *into = NULL;
	char err[1024];
	assert_int_equal(bv_suite_desc_merge(&into, "0.1.0", ja, "0.1.0", err, sizeof(err)), 0);
	assert_int_equal(bv_suite_desc_merge(&into, "0.1.0", jb, "0.2.0", err, sizeof(err)), 0);
	/* the union in order of first appearance, runs ORed */
	const cJSON *bs = cJSON_GetObjectItem(into, "benchmarks");
	assert_int_equal(cJSON_GetArraySize(bs), 2);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(bs, 0), "name")->valuestring, "exp");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(bs, 0), "runs")));
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(bs, 1), "name")->valuestring, "cube");
	assert_int_equal(bv_suite_desc_check("merged", into, err, sizeof(err)), 0);

	/* conflicts name both labels and the key; *into is left as it was */
	char *before = cJSON_PrintUnformatted(into);
	const char *conflicts[][2] = {
	    {"{\"name\": \"exp\", \"params\": [{\"name\": \"size\", \"values\": [\"1K\", \"4K\"]}], \"max_ulp\": 1}",
	     "key 'params' (0.1.0: size=1K; 0.3.0: size=1K,4K)"},
	    {"{\"name\": \"exp\", \"params\": [{\"name\": \"size\", \"values\": [\"1K\"]}], \"max_ulp\": 2}",
	     "key 'max_ulp' (0.1.0: 1; 0.3.0: 2)"},
	    {"{\"name\": \"exp\", \"params\": [{\"name\": \"size\", \"values\": [\"1K\"]}], \"max_ulp\": 1, \"rel_tol\": 1e-6}",
	     "key 'rel_tol'"},
	};
	for (size_t i = 0; i < sizeof(conflicts) / sizeof(conflicts[0]); i++) {
		char *c = doc_with("mylib", conflicts[i][0]);
		cJSON *jc = parse(c);
		assert_int_equal(bv_suite_desc_merge(&into, "0.1.0", jc, "0.3.0", err, sizeof(err)), -1);
		if (!strstr(err, conflicts[i][1]) || !strstr(err, "benchmark 'exp' is declared differently in 0.1.0 and 0.3.0"))
			fail_msg("conflict %zu: %s", i, err);
		char *now = cJSON_PrintUnformatted(into);
		assert_string_equal(now, before);
		free(now);
		cJSON_Delete(jc);
		free(c);
	}
	char *other = doc_with("yourlib", "{\"name\": \"exp\", \"params\": []}");
	cJSON *jo = parse(other);
	assert_int_equal(bv_suite_desc_merge(&into, "0.1.0", jo, "0.4.0", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "the suite is 'mylib' in 0.1.0 but 'yourlib' in 0.4.0"));
	cJSON_Delete(jo);
	free(other);
	/* a variant left out is null */
	char *same = doc_with("mylib", "{\"name\": \"exp\", \"params\": [{\"name\": \"size\", \"values\": [\"1K\"]}], \"max_ulp\": 1}");
	cJSON *js = parse(same);
	assert_int_equal(bv_suite_desc_merge(&into, "0.1.0", js, "0.5.0", err, sizeof(err)), 0);
	cJSON_Delete(js);
	free(same);
	free(before);
	cJSON_Delete(into);
	cJSON_Delete(ja);
	cJSON_Delete(jb);
	free(a);
	free(b);
}

static void registers_the_suite_cells(void **state)
{
	(void)state;
	char *t = doc_with("mylib", "{\"name\": \"compress\", \"params\": [{\"name\": \"level\", \"values\": [\"1\", \"9\"]}, "
				    "{\"name\": \"size\", \"values\": [\"64K\", \"1M\"]}], \"variant\": null, \"runs\": true}, "
				    "{\"name\": \"exp\", \"params\": [{\"name\": \"variant\", \"values\": [\"scalar\", \"avx2\"]}, "
				    "{\"name\": \"dtype\", \"values\": [\"f64\"]}], \"variant\": \"variant\", \"max_ulp\": 1}");
	char err[1024];
	assert_int_equal(bv_suite_file_parse("F.json", t, strlen(t), err, sizeof(err)), 0);
	assert_non_null(bv_suite_file_hash());
	assert_int_equal(strlen(bv_suite_file_hash()), 16);
	assert_string_equal(bv_suite_file_suite(), "mylib");
	/* once per process */
	assert_int_equal(bv_suite_file_parse("G.json", t, strlen(t), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "loaded already"));
	const bv_bench *g = bv_bench_find("mylib");
	assert_non_null(g);
	assert_int_equal(g->nops, 3);
	assert_string_equal(g->ops[0].name, "compress[level=1]");
	assert_string_equal(g->ops[1].name, "compress[level=9]");
	assert_string_equal(g->ops[2].name, "exp[dtype=f64]");
	assert_int_equal(g->ops[2].kind, BV_K_SUITE);
	assert_string_equal(g->ops[1].suite->params, "level=9");
	assert_string_equal(g->ops[2].suite->variant, "variant");
	assert_true(g->ops[2].suite->max_ulp == 1);

	/* --ops compress: both levels, each at its two sizes, backend default */
	bv_selection sel = {.benches = "mylib", .ops = "compress"};
	bv_cell *cells;
	long n = bv_cells_select(&sel, &cells, err, sizeof(err));
	assert_int_equal(n, 4);
	assert_string_equal(cells[0].op->name, "compress[level=1]");
	assert_string_equal(cells[0].backend, "default");
	assert_int_equal(cells[0].size, 65536);
	assert_int_equal(cells[3].size, 1u << 20);
	bv_layout l;
	bv_cell_layout(&cells[0], &l);
	assert_int_equal(l.nx + l.nx2 + l.ny + l.m + l.n + l.k, 0);
	assert_true(bv_cell_bytes(&cells[0]) == 0 && bv_cell_flops(&cells[0]) == 0);
	free(cells);
	/* the variant's values are exp's backends; it has no size: one, 1 */
	sel = (bv_selection){.ops = "exp[dtype=f64]", .backends = "avx2", .sizes = "4K"};
	n = bv_cells_select(&sel, &cells, err, sizeof(err));
	assert_int_equal(n, 1);
	assert_string_equal(cells[0].backend, "avx2");
	assert_int_equal(cells[0].size, 1);
	free(cells);
	/* an explicit size for an op with a size parameter, whatever its shape */
	sel = (bv_selection){.benches = "mylib", .ops = "compress[level=9]", .sizes = "64x64"};
	n = bv_cells_select(&sel, &cells, err, sizeof(err));
	assert_int_equal(n, 1);
	free(cells);
	/* a backend only the suite has is known; a typo is not */
	sel = (bv_selection){.backends = "avx3"};
	assert_int_equal(bv_cells_select(&sel, &cells, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown backend 'avx3'"));

	/* the reset: the group and its backends gone, no suite loaded, and
	 * another may be */
	size_t ngroups;
	bv_bench_all(&ngroups);
	test_fresh_registry(NULL);
	size_t now;
	bv_bench_all(&now);
	assert_int_equal(now, ngroups - 1);
	assert_null(bv_bench_find("mylib"));
	assert_null(bv_suite_file_hash());
	assert_null(bv_suite_file_suite());
	sel = (bv_selection){.backends = "avx2", .ops = "exp[dtype=f64]"};
	assert_int_equal(bv_cells_select(&sel, &cells, err, sizeof(err)), -1);
	assert_int_equal(bv_suite_file_parse("G.json", t, strlen(t), err, sizeof(err)), 0);
	assert_string_equal(bv_suite_file_suite(), "mylib");
	free(t);
}

int test_suite_file(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(refuses_hostile_descriptions, test_fresh_registry, test_fresh_registry),
	    cmocka_unit_test_setup_teardown(merges_versions_and_names_conflicts, test_fresh_registry,
					    test_fresh_registry),
	    cmocka_unit_test_setup_teardown(registers_the_suite_cells, test_fresh_registry, test_fresh_registry),
	};
	return test_run_group("suite_file", tests, NULL, NULL);
}
