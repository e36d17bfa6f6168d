/* test_classes.c - machine classes (classes.c): the class key and its
 * derived name, the grouping that refuses one name for two machines, and
 * the join that sets the classes' tables side by side without pooling. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classes.h"
#include "common.h"
#include "machine.h"
#include "merge.h"
#include "stats.h"
#include "status.h"
#include "table.h"
#include "tests.h"

static void derived_names_say_isa_brand_and_model(void **state)
{
	(void)state;
	static const struct {
		const char *cpu, *isa, *gpu, *name;
	} cases[] = {
	    {"AMD EPYC 7763 64-Core Processor", "avx2+fma", NULL, "avx2-EPYC-7763"},
	    {"Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", "avx512f", NULL, "avx512-Xeon-8375C"},
	    {"AMD EPYC", "avx512f", NULL, "avx512-EPYC"},
	    {"AMD EPYC 9654 96-Core Processor", "avx512f", "NVIDIA H100 80GB HBM3", "avx512-EPYC-9654-H100"},
	    {"", "", NULL, "isa"},
	    {NULL, NULL, NULL, "isa"},
	    /* hostile: escapes, slashes and spaces never reach the name */
	    {"\x1b[31mEvil/../CPU 12\n", "../avx2", NULL, "isa-31mEvil..CPU"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *n = bv_class_derive_name(cases[i].cpu, cases[i].isa, cases[i].gpu);
		assert_string_equal(n, cases[i].name);
		free(n);
	}
	/* whatever the model says, a derived name is a valid name (or "isa") */
	char longcpu[600];
	memset(longcpu, 'Z', sizeof(longcpu) - 1), longcpu[sizeof(longcpu) - 1] = '\0';
	char *n = bv_class_derive_name(longcpu, "avx512f", longcpu);
	assert_true(bv_class_name_ok(n));
	free(n);
}

static void class_names_are_plain(void **state)
{
	(void)state;
	const char *good[] = {"avx2-EPYC", "ci_x86.1", "a", "gpu+avx512"};
	const char *bad[] = {"", ".hidden", "-opt", "a/b", "..", "a b", "x\n", NULL};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(bv_class_name_ok(good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(bv_class_name_ok(bad[i]));
	char longest[BV_CLASS_NAME_MAX + 2];
	memset(longest, 'a', BV_CLASS_NAME_MAX + 1), longest[BV_CLASS_NAME_MAX + 1] = '\0';
	assert_false(bv_class_name_ok(longest));
	longest[BV_CLASS_NAME_MAX] = '\0';
	assert_true(bv_class_name_ok(longest));
}

static cJSON *log_doc(const char *machine, const char *version, const char *method)
{
	char *text =
	    bv_asprintf("{\"machine\": %s, \"version\": %s, \"method\": %s}", machine, version, method);
	cJSON *doc = cJSON_Parse(text);
	free(text);
	assert_non_null(doc);
	return doc;
}

static void key_is_cpu_isa_and_gpu(void **state)
{
	(void)state;
	bv_class c;
	cJSON *d = log_doc("{\"cpu\": \"AMD EPYC 7763\", \"hostname\": \"a\", \"gpu\": null, "
	                   "\"calibration\": {\"isa\": \"avx2+fma\"}}",
	                   "{\"simd_isa\": \"avx512\"}", "{}");
	assert_int_equal(bv_class_of(d, "a.json", &c), 0);
	assert_string_equal(c.isa, "avx2+fma"); /* the calibration's, not the simd backend's */
	assert_string_equal(c.name, "avx2-EPYC-7763");
	assert_false(c.named);
	bv_class_free(&c), cJSON_Delete(d);
	/* no calibration: what simd chose says the level ... */
	d = log_doc("{\"cpu\": \"AMD EPYC 7763\"}", "{\"simd_isa\": \"avx512\"}",
	            "{\"simd_isa_forced\": null}");
	assert_int_equal(bv_class_of(d, "a.json", &c), 0);
	assert_string_equal(c.isa, "avx512");
	bv_class_free(&c), cJSON_Delete(d);
	/* ... unless --simd-isa chose for it */
	d = log_doc("{\"cpu\": \"AMD EPYC 7763\"}", "{\"simd_isa\": \"generic\"}",
	            "{\"simd_isa_forced\": \"generic\"}");
	assert_int_equal(bv_class_of(d, "a.json", &c), 0);
	assert_string_equal(c.isa, "");
	bv_class_free(&c), cJSON_Delete(d);
	/* a given name; a hostile one is refused naming the log */
	d = log_doc("{\"cpu\": \"X\", \"class\": \"ci-x86\"}", "{}", "{}");
	assert_int_equal(bv_class_of(d, "a.json", &c), 0);
	assert_string_equal(c.name, "ci-x86");
	assert_true(c.named);
	bv_class_free(&c), cJSON_Delete(d);
	const char *hostile[] = {"\"../x\"", "\"\"", "42", "[]"};
	for (size_t i = 0; i < 4; i++) {
		char *m = bv_asprintf("{\"cpu\": \"X\", \"class\": %s}", hostile[i]);
		d = log_doc(m, "{}", "{}");
		assert_int_equal(bv_class_of(d, "evil.json", &c), BV_EINPUT);
		assert_non_null(strstr(bv_error_last(), "evil.json: machine.class"));
		cJSON_Delete(d), free(m);
	}
}

static bv_class mk(const char *name, const char *cpu, const char *isa, const char *gpu, int named)
{
	bv_class c = {bv_strdup(name), bv_strdup(cpu), bv_strdup(isa), bv_strdup(gpu), named};
	return c;
}

static void groups_keep_keys_apart_and_refuse_one_name_for_two(void **state)
{
	(void)state;
	bv_class_groups g;
	memset(&g, 0, sizeof(g));
	bv_class c = mk("avx2-EPYC", "AMD EPYC 7763", "avx2", "", 0);
	assert_int_equal(bv_class_groups_add(&g, &c, "a.json", NULL), 0);
	c = mk("avx512-EPYC", "AMD EPYC 7763", "avx512f", "", 0); /* another ISA level: another class */
	assert_int_equal(bv_class_groups_add(&g, &c, "b.json", NULL), 0);
	c = mk("avx2-EPYC", "AMD EPYC 7763", "avx2", "", 0); /* the first again (another host) */
	assert_int_equal(bv_class_groups_add(&g, &c, "c.json", NULL), 0);
	c = mk("gpu-box", "AMD EPYC 7763", "avx2", "H100", 1); /* a GPU makes it another */
	assert_int_equal(bv_class_groups_add(&g, &c, "d.json", NULL), 0);
	assert_int_equal(g.nclasses, 3);
	assert_int_equal(g.nlogs, 4);
	assert_int_equal(g.of[0], 0), assert_int_equal(g.of[1], 1), assert_int_equal(g.of[2], 0);
	assert_int_equal(g.of[3], 2);
	/* one machine kind, named at one run and not at another: the given name wins */
	c = mk("ci-avx512", "AMD EPYC 7763", "avx512f", "", 1);
	assert_int_equal(bv_class_groups_add(&g, &c, "e.json", NULL), 0);
	assert_int_equal(g.nclasses, 3);
	assert_string_equal(g.classes[1].name, "ci-avx512");
	/* one name for another CPU: refused, naming both machines and logs */
	c = mk("avx2-EPYC", "AMD EPYC 9654", "avx2", "", 0);
	assert_int_equal(bv_class_groups_add(&g, &c, "f.json", "a.json"), BV_EINPUT);
	const char *e = bv_error_last();
	assert_non_null(strstr(e, "class name avx2-EPYC names two machine classes"));
	assert_non_null(strstr(e, "AMD EPYC 7763"));
	assert_non_null(strstr(e, "AMD EPYC 9654"));
	assert_non_null(strstr(e, "a.json"));
	assert_non_null(strstr(e, "f.json"));
	assert_int_equal(g.nclasses, 3); /* nothing added */
	assert_int_equal(g.nlogs, 5);
	/* the log's text in the message is escaped: no terminal escape gets through */
	c = mk("avx2-EPYC", "AMD\x1b[2J EPYC", "avx2\x1b]0;x\a", "\x1b[31m", 0);
	assert_int_equal(bv_class_groups_add(&g, &c, "g.json", "a.json"), BV_EINPUT);
	assert_null(strchr(bv_error_last(), '\x1b'));
	assert_null(strchr(bv_error_last(), '\a'));
	bv_class_groups_free(&g);
}

/* A table of two versions and the given rows (op names), as merge makes it. */
static void small_table(bv_table *t, const char *base, const char *cand, const char *const *ops, size_t n,
                        bv_verdict verdict)
{
	memset(t, 0, sizeof(*t));
	t->nversions = 2;
	t->labels = bv_xcalloc(2, sizeof(char *));
	t->labels[0] = bv_strdup(base), t->labels[1] = bv_strdup(cand);
	t->rows = bv_xcalloc(n, sizeof(bv_row));
	t->nrows = n;
	t->tested = n, t->called = verdict == BV_SAME ? 0 : n;
	t->notes = bv_xcalloc(1, sizeof(char *));
	t->notes[0] = bv_strdup("a caveat"), t->nnotes = 1;
	for (size_t k = 0; k < n; k++) {
		bv_row *r = &t->rows[k];
		r->bench = bv_strdup("unary"), r->op = bv_strdup(ops[k]), r->backend = bv_strdup("scalar");
		r->size = 1024;
		r->results = bv_xcalloc(2, sizeof(bv_result));
		r->changes = bv_xcalloc(2, sizeof(bv_change));
		for (int v = 0; v < 2; v++)
			r->results[v].status = BV_ST_OK, r->results[v].median_ns = 100.0 * (v + 1);
		r->results[1].reason = bv_strdup("moved, not copied");
		r->changes[1] =
		    (bv_change){.valid = 1, .ratio = 2, .ci_low = 1.9, .ci_high = 2.1, .verdict = verdict};
		r->changes[1].proc_ratio = bv_xcalloc(1, sizeof(double)), r->changes[1].nproc = 1;
		/* merge may leave evidence in a baseline's slot: the join clears it */
		r->changes[0] = (bv_change){.valid = 1, .ratio = 0.5, .verdict = BV_FASTER};
	}
}

static void join_sets_classes_side_by_side(void **state)
{
	(void)state;
	bv_table t[2], out;
	const char *ops_a[] = {"relu", "abs"}, *ops_b[] = {"abs", "exp"};
	small_table(&t[0], "0.1.0", "main", ops_a, 2, BV_SLOWER);
	small_table(&t[1], "0.1.0", "main", ops_b, 2, BV_SAME);
	bv_class cls[2] = {mk("avx512-Xeon", "Xeon", "avx512f", "", 0),
	                   mk("avx2-EPYC", "EPYC", "avx2", "", 0)};
	bv_table_join(t, cls, 2, &out);
	assert_int_equal(out.nversions, 4);
	assert_int_equal(out.nclasses, 2);
	assert_string_equal(out.labels[0], "0.1.0@avx512-Xeon");
	assert_string_equal(out.labels[3], "main@avx2-EPYC");
	/* each class's first column is its baseline */
	size_t base[4] = {0, 0, 2, 2};
	for (size_t v = 0; v < 4; v++) {
		assert_int_equal(bv_table_base(&out, v), base[v]);
		assert_int_equal(bv_table_is_base(&out, v), base[v] == v);
	}
	/* rows: the union, in order first seen; a class without one has n/a */
	assert_int_equal(out.nrows, 3);
	assert_string_equal(out.rows[0].op, "relu");
	assert_string_equal(out.rows[1].op, "abs");
	assert_string_equal(out.rows[2].op, "exp");
	assert_int_equal(out.rows[0].results[2].status, BV_ST_NA);
	assert_false(out.rows[0].changes[3].valid);
	assert_int_equal(out.rows[2].results[0].status, BV_ST_NA);
	/* each class's ratios as its own merge made them: never pooled */
	assert_int_equal(out.rows[1].changes[1].verdict, BV_SLOWER);
	assert_int_equal(out.rows[1].changes[3].verdict, BV_SAME);
	assert_true(out.rows[1].changes[3].ratio == 2);
	for (size_t k = 0; k < out.nrows; k++)
		assert_false(out.rows[k].changes[0].valid || out.rows[k].changes[2].valid);
	assert_int_equal(out.tested, 4);
	assert_int_equal(out.called, 2);
	assert_int_equal(out.nnotes, 2);
	assert_string_equal(out.notes[1], "class avx2-EPYC: a caveat");
	/* the class tables are left empty (what moved is freed once, by out) */
	assert_int_equal(t[0].nrows, 0);
	assert_null(t[1].labels);
	bv_table_free(&out);
	bv_class_free(&cls[0]), bv_class_free(&cls[1]);
	/* a table of one class: every version's baseline is column 0 */
	bv_table one;
	small_table(&one, "a", "b", ops_a, 1, BV_SAME);
	assert_int_equal(bv_table_base(&one, 1), 0);
	assert_false(bv_table_is_base(&one, 1));
	bv_table_free(&one);
}

static void run_records_a_given_class_name(void **state)
{
	(void)state;
	const char *was = getenv(BV_CLASS_ENV);
	char *saved = was ? bv_strdup(was) : NULL;
	setenv(BV_CLASS_ENV, "ci-avx2", 1);
	cJSON *m = bv_machine_info();
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(m, "class");
	assert_true(cJSON_IsString(c));
	assert_string_equal(c->valuestring, "ci-avx2");
	cJSON_Delete(m);
	setenv(BV_CLASS_ENV, "../../etc", 1); /* not a name: not recorded */
	m = bv_machine_info();
	assert_null(cJSON_GetObjectItemCaseSensitive(m, "class"));
	cJSON_Delete(m);
	if (saved)
		setenv(BV_CLASS_ENV, saved, 1), free(saved);
	else
		unsetenv(BV_CLASS_ENV);
}

int test_classes(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(derived_names_say_isa_brand_and_model),
	    cmocka_unit_test(class_names_are_plain),
	    cmocka_unit_test(key_is_cpu_isa_and_gpu),
	    cmocka_unit_test(groups_keep_keys_apart_and_refuse_one_name_for_two),
	    cmocka_unit_test(join_sets_classes_side_by_side),
	    cmocka_unit_test(run_records_a_given_class_name),
	};
	return test_run_group("classes", tests, NULL, NULL);
}
