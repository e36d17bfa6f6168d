/* test_merge.c - merging logs from one run, other runs and other machines,
 * the row filter, the gate, and what the exporters do with hostile text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "stages.h"
#include "tests.h"

/* A results log with one relu cell; change is the cell's change block
 * (or "" for none). */
static char *write_log(const char *dir, const char *file, const char *label, const char *run_id,
                       const char *host, double median, const char *change)
{
	char *text =
	    bv_asprintf("{\"schema\": \"bench-versions-results\", \"schema_version\": \"1.1\",\n"
	                " \"run\": {\"id\": \"%s\", \"baseline\": \"base\"},\n"
	                " \"version\": {\"label\": \"%s\", \"kernel_version\": \"0.1.0\", \"rule\": "
	                "\"branch\", \"summary\": \"s\"},\n"
	                " \"machine\": {\"hostname\": \"%s\", \"cpu\": \"cpu0\"},\n"
	                " \"method\": {\"mode\": \"paired\", \"threshold\": 0.02, \"min_processes\": 6, "
	                "\"max_processes\": 6},\n"
	                " \"cells\": [{\"bench\": \"unary\", \"op\": \"relu\", \"backend\": \"scalar\", "
	                "\"size\": 65536,\n"
	                "   \"status\": \"ok\", \"median_ns\": %g, \"median_ns_ci_low\": %g, "
	                "\"median_ns_ci_high\": %g%s%s},\n"
	                "  {\"bench\": \"unary\", \"op\": \"abs\", \"backend\": \"scalar\", \"size\": 1024,\n"
	                "   \"status\": \"ok\", \"median_ns\": 10, \"median_ns_ci_low\": 9, "
	                "\"median_ns_ci_high\": 11}]}\n",
	                run_id, label, host, median, median * 0.99, median * 1.01,
	                *change ? ", \"change\": " : "", change);
	test_write(dir, file, text);
	free(text);
	return bv_asprintf("%s/%s", dir, file);
}

/* The paired block says 1.5 x; the medians say 2 x: which one the merge
 * used tells whether it paired. */
#define CHANGE                                                                                               \
	"{\"baseline\": \"base\", \"mode\": \"paired\", \"ratio\": 1.5, \"ratio_ci_low\": 1.4, "             \
	"\"ratio_ci_high\": 1.6, \"coverage\": 0.96, \"processes\": 6}"

typedef struct fixture {
	char *dir;
	char *paths[3];
} fixture;

static void fixture_free(fixture *f)
{
	for (int i = 0; i < 3; i++)
		free(f->paths[i]);
	bv_rm_rf(f->dir);
	free(f->dir);
}

static void same_run_keeps_the_paired_ratio(void **state)
{
	(void)state;
	fixture f = {test_tmpdir(), {0}};
	f.paths[0] = write_log(f.dir, "base.json", "base", "R1", "h", 100, "");
	f.paths[1] = write_log(f.dir, "new.json", "new", "R1", "h", 200, CHANGE);
	bv_table t;
	bv_merge_opts o = {-1, 0};
	assert_int_equal(bv_merge(f.paths, 2, &o, &t), 0);
	assert_true(t.threshold > 0.019 && t.threshold < 0.021); /* the baseline log's */
	assert_int_equal(t.nrows, 2);
	assert_true(t.rows[0].changes[1].valid);
	assert_string_equal(t.rows[0].changes[1].mode, "paired");
	assert_true(t.rows[0].changes[1].ratio == 1.5);
	assert_string_equal(t.rows[0].changes[1].verdict, "slower");
	assert_int_equal(t.nnotes, 0);
	bv_table_free(&t);
	fixture_free(&f);
}

static void another_run_is_unpaired_even_with_the_same_baseline_label(void **state)
{
	(void)state;
	fixture f = {test_tmpdir(), {0}};
	f.paths[0] = write_log(f.dir, "base.json", "base", "R1", "h", 100, "");
	f.paths[1] = write_log(f.dir, "new.json", "new", "R2", "h", 200, CHANGE);
	bv_table t;
	bv_merge_opts o = {0.02, 0};
	assert_int_equal(bv_merge(f.paths, 2, &o, &t), 0);
	const bv_change *ch = &t.rows[0].changes[1];
	assert_true(ch->valid);
	assert_string_equal(ch->mode, "unpaired");
	assert_false(ch->paired);
	assert_true(ch->ratio > 1.99 && ch->ratio < 2.01);
	assert_int_equal(t.nnotes, 1);
	assert_non_null(strstr(t.notes[0], "another run"));
	bv_table_free(&t);
	fixture_free(&f);
}

static void another_machine_gets_no_ratio_unless_asked(void **state)
{
	(void)state;
	fixture f = {test_tmpdir(), {0}};
	f.paths[0] = write_log(f.dir, "base.json", "base", "R1", "h", 100, "");
	f.paths[1] = write_log(f.dir, "new.json", "new", "R1", "elsewhere", 200, CHANGE);
	bv_table t;
	bv_merge_opts o = {0.02, 0};
	assert_int_equal(bv_merge(f.paths, 2, &o, &t), 0);
	assert_false(t.rows[0].changes[1].valid);
	assert_string_equal(t.rows[0].changes[1].none, "other machine");
	assert_false(bv_table_has_slower(&t));
	assert_int_equal(t.nnotes, 1);
	assert_non_null(strstr(t.notes[0], "new.json was measured on another machine (elsewhere, cpu0"));
	assert_non_null(strstr(t.notes[0], "no ratios unless --across-machines"));
	bv_table_free(&t);
	o.across_machines = 1;
	assert_int_equal(bv_merge(f.paths, 2, &o, &t), 0);
	assert_true(t.rows[0].changes[1].valid);
	assert_string_equal(t.rows[0].changes[1].mode, "unpaired");
	assert_true(bv_table_has_slower(&t));
	bv_table_free(&t);
	fixture_free(&f);
}

static void run_mates_against_another_baseline_are_unpaired(void **state)
{
	(void)state;
	fixture f = {test_tmpdir(), {0}};
	/* both from run R1, whose baseline was "base" */
	f.paths[0] = write_log(f.dir, "new.json", "new", "R1", "h", 100, CHANGE);
	f.paths[1] = write_log(f.dir, "other.json", "other", "R1", "h", 300, CHANGE);
	bv_table t;
	bv_merge_opts o = {0.02, 0};
	assert_int_equal(bv_merge(f.paths, 2, &o, &t), 0);
	assert_string_equal(t.rows[0].changes[1].mode, "unpaired");
	assert_true(t.rows[0].changes[1].ratio > 2.99 && t.rows[0].changes[1].ratio < 3.01);
	assert_int_equal(t.nnotes, 1);
	assert_non_null(strstr(t.notes[0], "other.json was paired with another baseline"));
	bv_table_free(&t);
	fixture_free(&f);
}

static void duplicate_labels_get_their_run_id(void **state)
{
	(void)state;
	fixture f = {test_tmpdir(), {0}};
	f.paths[0] = write_log(f.dir, "a.json", "main", "R1", "h", 100, "");
	f.paths[1] = write_log(f.dir, "b.json", "main", "R2", "h", 100, "");
	f.paths[2] = write_log(f.dir, "c.json", "main", "R2", "h", 100, "");
	bv_table t;
	bv_merge_opts o = {0.02, 0};
	assert_int_equal(bv_merge(f.paths, 3, &o, &t), 0);
	assert_string_equal(t.labels[0], "main@R1");
	assert_string_equal(t.labels[1], "main@R2");
	assert_string_equal(t.labels[2], "main@R2-3");
	bv_table_free(&t);
	fixture_free(&f);
}

static void filter_matches_bench_op_backend_and_size(void **state)
{
	(void)state;
	fixture f = {test_tmpdir(), {0}};
	f.paths[0] = write_log(f.dir, "base.json", "base", "R1", "h", 100, "");
	bv_table t;
	assert_int_equal(bv_merge_logs(f.paths, 1, 0.02, &t), 0);
	char key[128];
	bv_row_key(&t.rows[1], key, sizeof(key));
	assert_string_equal(key, "unary/abs/scalar/1K");
	regex_t re;
	assert_int_equal(bv_filter_compile("a[", &re), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "--filter 'a[': "));
	assert_int_equal(bv_filter_compile("^unary/(exp|relu)/scalar/64K$", &re), 0);
	bv_table_filter(&t, &re);
	regfree(&re);
	assert_int_equal(t.nrows, 1);
	assert_string_equal(t.rows[0].op, "relu");
	bv_table_free(&t);
	fixture_free(&f);
}

/* Runs one exporter on a table whose first label is hostile. */
static char *export_hostile(const char *format)
{
	char *dir = test_tmpdir();
	char *paths[2] = {
	    write_log(dir, "base.json", "=cmd|x,\\\"q\\\" <b>&amp;\\u001b[2J", "R1", "h", 100, ""),
	    write_log(dir, "new.json", "new", "R1", "h", 200, CHANGE)};
	bv_table t;
	assert_int_equal(bv_merge_logs(paths, 2, 0.02, &t), 0);
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	assert_int_equal(bv_exporter_find(format)->write(&t, mem), 0);
	fclose(mem);
	bv_table_free(&t);
	free(paths[0]), free(paths[1]);
	bv_rm_rf(dir);
	free(dir);
	return text;
}

static void exporters_neutralise_hostile_labels(void **state)
{
	(void)state;
	char *csv = export_hostile("csv");
	/* quoted, quotes doubled, formula defused, escape byte shown as \x1b */
	assert_non_null(strstr(csv, "\r\nunary,relu,scalar,65536,\"'=cmd|x,\"\"q\"\" <b>&amp;\\x1b[2J\",ok,"));
	assert_null(strchr(csv, 0x1b));
	free(csv);
	char *html = export_hostile("html");
	assert_null(strstr(html, "<b>"));
	assert_null(strstr(html, "&amp;"));
	assert_non_null(strstr(html, "&#61;cmd&#124;x,&#34;q&#34; &#60;b&#62;&#38;amp&#59;"));
	assert_null(strchr(html, 0x1b));
	free(html);
	char *md = export_hostile("markdown");
	assert_non_null(strstr(md, "| =cmd\\|x,\"q\" \\<b\\>\\&amp;\\\\x1b\\[2J |"));
	free(md);
	char *table = export_hostile("table");
	assert_null(strchr(table, 0x1b));
	free(table);
}

static void format_names_list_every_exporter(void **state)
{
	(void)state;
	assert_string_equal(bv_exporter_names(), "table|markdown|csv|json|html");
	const char *names[] = {"table", "markdown", "csv", "json", "html"};
	for (int i = 0; i < 5; i++)
		assert_non_null(bv_exporter_find(names[i]));
	assert_null(bv_exporter_find("xml"));
}

int test_merge(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(same_run_keeps_the_paired_ratio),
	    cmocka_unit_test(another_run_is_unpaired_even_with_the_same_baseline_label),
	    cmocka_unit_test(another_machine_gets_no_ratio_unless_asked),
	    cmocka_unit_test(run_mates_against_another_baseline_are_unpaired),
	    cmocka_unit_test(duplicate_labels_get_their_run_id),
	    cmocka_unit_test(filter_matches_bench_op_backend_and_size),
	    cmocka_unit_test(exporters_neutralise_hostile_labels),
	    cmocka_unit_test(format_names_list_every_exporter),
	};
	return cmocka_run_group_tests_name("merge and export", tests, NULL, NULL);
}
