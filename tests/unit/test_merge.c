/* test_merge.c - merging logs from one run, other runs and other machines,
 * the row filter, the gate, and what the exporters do with hostile text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "counts.h"
#include "export.h"
#include "fs.h"
#include "merge.h"
#include "results.h"
#include "stats.h"
#include "status.h"
#include "table.h"
#include "tests.h"

/* A results log with one relu cell; change is the cell's change block
 * (or "" for none). */
static char *write_log_m(const char *dir, const char *file, const char *label, const char *run_id,
                         const char *host, double median, const char *change, const char *method);

static char *write_log(const char *dir, const char *file, const char *label, const char *run_id,
                       const char *host, double median, const char *change)
{
	return write_log_m(dir, file, label, run_id, host, median, change, "");
}

/* ... with method fields added to the block (", \"quick\": true"). */
static char *write_log_m(const char *dir, const char *file, const char *label, const char *run_id,
                         const char *host, double median, const char *change, const char *method)
{
	char *text =
	    bv_asprintf("{\"schema\": \"bench-versions-results\", \"schema_version\": \"1.1\",\n"
	                " \"run\": {\"id\": \"%s\", \"baseline\": \"base\"},\n"
	                " \"version\": {\"label\": \"%s\", \"kernel_version\": \"0.1.0\", \"rule\": "
	                "\"branch\", \"summary\": \"s\"},\n"
	                " \"machine\": {\"hostname\": \"%s\", \"cpu\": \"cpu0\"},\n"
	                " \"method\": {\"mode\": \"paired\", \"threshold\": 0.02, \"min_processes\": 6, "
	                "\"max_processes\": 6%s},\n"
	                " \"cells\": [{\"bench\": \"unary\", \"op\": \"relu\", \"backend\": \"scalar\", "
	                "\"size\": 65536,\n"
	                "   \"status\": \"ok\", \"median_ns\": %g, \"median_ns_ci_low\": %g, "
	                "\"median_ns_ci_high\": %g%s%s},\n"
	                "  {\"bench\": \"unary\", \"op\": \"abs\", \"backend\": \"scalar\", \"size\": 1024,\n"
	                "   \"status\": \"ok\", \"median_ns\": 10, \"median_ns_ci_low\": 9, "
	                "\"median_ns_ci_high\": 11}]}\n",
	                run_id, label, host, method, median, median * 0.99, median * 1.01,
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
	assert_int_equal(t.rows[0].changes[1].verdict, BV_SLOWER);
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
	/* a ratio, but another machine is another run: no verdict (merge.c) */
	assert_int_equal(t.rows[0].changes[1].verdict, BV_INCONCLUSIVE);
	assert_false(bv_table_has_slower(&t));
	bv_table_free(&t);
	fixture_free(&f);
}

/* Identical code measured in two runs: the medians moved 3.7 % (the
 * issue's `0.963 [0.941, 0.982] faster unpaired`), each interval tight.
 * Between runs that is no change, and must not be called. */
static void identical_code_in_two_runs_is_not_called(void **state)
{
	(void)state;
	fixture f = {test_tmpdir(), {0}};
	f.paths[0] = write_log(f.dir, "a.json", "main", "R1", "h", 100, "");
	f.paths[1] = write_log(f.dir, "b.json", "main", "R2", "h", 96.3, "");
	bv_table t;
	bv_merge_opts o = {0.01, 0};
	assert_int_equal(bv_merge(f.paths, 2, &o, &t), 0);
	const bv_change *ch = &t.rows[0].changes[1];
	assert_true(ch->valid && ch->between_runs);
	assert_true(ch->ratio > 0.962 && ch->ratio < 0.964); /* the ratio is still shown */
	assert_int_equal(ch->verdict, BV_INCONCLUSIVE);
	assert_false(bv_table_has_slower(&t));
	/* the run's control counts it apart, and says why */
	assert_int_equal(t.called, 0);
	assert_int_equal(t.between_runs, 2);
	assert_non_null(t.control);
	assert_non_null(strstr(t.control, "2 unpaired across runs, not called"));
	assert_non_null(strstr(t.notes[0], "not called slower or faster"));
	bv_table_free(&t);
	fixture_free(&f);
}

/* A 30 % change across runs is not called either: the between-run
 * variation measured on this machine reached 47 % (docs/measurement.md),
 * so no fixed allowance separates it; the ratio is shown for a person to
 * judge, and the paired run is what decides. */
static void a_large_change_across_runs_is_shown_but_not_called(void **state)
{
	(void)state;
	fixture f = {test_tmpdir(), {0}};
	f.paths[0] = write_log(f.dir, "a.json", "base", "R1", "h", 100, "");
	f.paths[1] = write_log(f.dir, "b.json", "new", "R2", "h", 130, "");
	bv_table t;
	bv_merge_opts o = {0.01, 0};
	assert_int_equal(bv_merge(f.paths, 2, &o, &t), 0);
	const bv_change *ch = &t.rows[0].changes[1];
	assert_true(ch->ratio > 1.29 && ch->ratio < 1.31);
	assert_true(ch->ci_low > 1.2); /* its own interval alone would call it */
	assert_int_equal(ch->verdict, BV_INCONCLUSIVE);
	assert_string_equal(ch->mode, "unpaired");
	assert_false(bv_table_has_slower(&t));
	bv_table_free(&t);
	fixture_free(&f);
}

/* Logs measured with other settings (one --quick): the method line names
 * each log's, not the baseline's for all. */
static void method_line_names_each_log_when_they_differ(void **state)
{
	(void)state;
	fixture f = {test_tmpdir(), {0}};
	f.paths[0] = write_log_m(f.dir, "a.json", "base", "R1", "h", 100, "",
	                         ", \"rounds\": 30, \"sample_us\": 1000");
	f.paths[1] = write_log_m(f.dir, "b.json", "new", "R2", "h", 100, "",
	                         ", \"rounds\": 9, \"sample_us\": 300, \"quick\": true");
	bv_table t;
	bv_merge_opts o = {0.01, 0};
	assert_int_equal(bv_merge(f.paths, 2, &o, &t), 0);
	assert_non_null(strstr(t.method, "logs measured differently: base = paired: 6 processes x 30 rounds of 1000 "
	                                 "us samples; new = paired: 6 processes x 9 rounds of 300 us samples, --quick;"));
	bv_table_free(&t);
	/* alike: said once, as before */
	assert_int_equal(bv_merge(f.paths, 1, &o, &t), 0);
	assert_non_null(strstr(t.method, "paired: 6 processes x 30 rounds of 1000 us samples; versions alternated"));
	assert_null(strstr(t.method, "differently"));
	bv_table_free(&t);
	fixture_free(&f);
}

/* A run's directory: its logs, the run's baseline first whatever the names
 * sort as; a directory without logs is an input error. */
static void run_dir_lists_the_baseline_first(void **state)
{
	(void)state;
	fixture f = {test_tmpdir(), {0}};
	/* write_log's run block names "base" as the baseline */
	f.paths[0] = write_log(f.dir, "a.json", "a", "R1", "h", 100, CHANGE);
	f.paths[1] = write_log(f.dir, "base.json", "base", "R1", "h", 100, "");
	f.paths[2] = write_log(f.dir, "zz.json", "zz", "R1", "h", 100, CHANGE);
	test_write(f.dir, ".hidden.json", "not a log");
	char **paths = NULL;
	size_t n = 0, nv = 0;
	assert_int_equal(bv_run_dir_logs(f.dir, &paths, &n, &nv), 0);
	assert_int_equal(n, 3);
	assert_string_equal(paths[0], f.paths[1]);
	assert_string_equal(paths[1], f.paths[0]);
	assert_string_equal(paths[2], f.paths[2]);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	char *empty = bv_asprintf("%s/empty", f.dir);
	assert_int_equal(bv_mkdir_p(empty), 0);
	assert_int_equal(bv_run_dir_logs(empty, &paths, &n, &nv), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "holds no results log"));
	assert_null(paths);
	/* Every log refused: compare DIR once said only "holds
	 * no results log"; the loader's own reason is kept, with the count. */
	test_write(empty, "a.json", "{\"schema\": \"bench-versions-results\", \"schema_version\": \"2.0\"}");
	test_write(empty, "b.json", "[1, 2]");
	assert_int_equal(bv_run_dir_logs(empty, &paths, &n, &nv), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "holds no results log that loads: 2 .json files refused, the first: "));
	assert_non_null(strstr(bv_error_last(), "/empty/a.json: results schema 2.0 is newer than this bench-versions reads"));
	assert_null(paths);
	free(empty);
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

/* bv_wrap: no line past the width, every character kept in order (a word
 * longer than the width broken), each line after the first indented. */
static void wrap_keeps_every_word_within_the_width(void **state)
{
	(void)state;
	const char *text = "counts: 4 cells counted by Valgrind, one call per side; callgrind files in "
			   "a/very/long/path/with/no/spaces/in/it/that/must/break and the rest";
	char *out = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&out, &len);
	bv_wrap(mem, text, 30, 2);
	fclose(mem);
	char squeezed_in[512] = "", squeezed_out[512] = "";
	for (size_t i = 0, j = 0; text[i]; i++)
		if (text[i] != ' ')
			squeezed_in[j++] = text[i];
	size_t lines = 0;
	for (char *l = out, *nl; (nl = strchr(l, '\n')); l = nl + 1, lines++) {
		assert_true(nl - l <= 30);
		if (l != out)
			assert_true(l[0] == ' ' && l[1] == ' ' && l[2] != ' ');
	}
	for (size_t i = 0, j = 0; out[i]; i++)
		if (out[i] != ' ' && out[i] != '\n')
			squeezed_out[j++] = out[i];
	assert_string_equal(squeezed_out, squeezed_in);
	assert_true(lines >= 5);
	free(out);
	/* no width: one line as it is */
	mem = open_memstream(&out, &len);
	bv_wrap(mem, text, 0, 2);
	fclose(mem);
	assert_int_equal(strlen(out), strlen(text) + 1);
	free(out);
}

/* The why column's word for each kind of the counts (counts.h). */
static void why_words_name_the_counts_kind(void **state)
{
	(void)state;
	bv_count_cmp w = {0};
	bv_change ch = {0};
	assert_null(bv_why_word(&ch));
	ch.why = &w;
	const char *kinds[][3] = {{"code", "instr +3.0 %", "code"},
				  {"data", "same instructions, data misses D1 +40.0 %", "data"},
				  {"placement", "same instructions and misses", "placement"},
				  {"mixed", "instr +1.0 %, but the time went the other way", "machine"},
				  {"mixed", "instr -17.0 %, but the time moved far more", "code"},
				  {"unknown", "not counted: a GPU cell", "not counted"},
				  {"unknown", "instr +1.0 % on the avx2 path counted; avx512 timed", "not told"}};
	/* the time 0.5x; the counted work +1 % (the other way) or -17 % (the
	 * same way, far less) */
	ch.ratio = 0.5;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		w.kind = kinds[i][0];
		w.text = (char *)kinds[i][1];
		w.cost = strstr(w.text, "-17.0") ? -0.17 : 0.01;
		assert_string_equal(bv_why_word(&ch), kinds[i][2]);
	}
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

static void folded_rows_name_each_versions_reason_when_they_differ(void **state)
{
	(void)state;
	char *labels[] = {"0.1.0", "main", "local"};
	char old[] = "cuda: driver version is insufficient", gpu[] = "cuda: no GPU";
	bv_result differ[3] = {{.status = BV_ST_SKIPPED, .reason = old},
			       {.status = BV_ST_SKIPPED, .reason = gpu},
			       {.status = BV_ST_SKIPPED, .reason = gpu}};
	bv_result na[3] = {{.status = BV_ST_NA}, {.status = BV_ST_NA}, {.status = BV_ST_NA}};
	bv_result ran[3] = {{.status = BV_ST_NA}, {.status = BV_ST_OK}, {.status = BV_ST_CRASHED}};
	bv_row rows[] = {{.backend = "cuda", .results = differ}, {.backend = "blas", .results = na},
			 {.backend = "cuda", .results = differ}, {.backend = "simd", .results = ran}};
	bv_table t = {.nversions = 3, .labels = labels, .rows = rows, .nrows = 4};
	bv_fold *f;
	size_t n = bv_table_folds(&t, &f);
	assert_int_equal(n, 2); /* the simd row ran on main (and crashed on local) */
	assert_string_equal(f[0].backend, "cuda");
	assert_int_equal(f[0].count, 2);
	assert_string_equal(f[0].text, "0.1.0: skipped: cuda: driver version is insufficient; "
				       "main, local: skipped: cuda: no GPU");
	assert_string_equal(f[1].backend, "blas");
	assert_int_equal(f[1].count, 1);
	assert_string_equal(f[1].text, "n/a"); /* agreed: said once, no labels */
	bv_table_folds_free(f, n);
	rows[2].hidden = 1; /* --only-changes leaves it out */
	n = bv_table_folds(&t, &f);
	assert_int_equal(f[0].count, 1);
	bv_table_folds_free(f, n);
}

int test_merge(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(same_run_keeps_the_paired_ratio),
	    cmocka_unit_test(another_run_is_unpaired_even_with_the_same_baseline_label),
	    cmocka_unit_test(another_machine_gets_no_ratio_unless_asked),
	    cmocka_unit_test(identical_code_in_two_runs_is_not_called),
	    cmocka_unit_test(a_large_change_across_runs_is_shown_but_not_called),
	    cmocka_unit_test(method_line_names_each_log_when_they_differ),
	    cmocka_unit_test(run_dir_lists_the_baseline_first),
	    cmocka_unit_test(run_mates_against_another_baseline_are_unpaired),
	    cmocka_unit_test(duplicate_labels_get_their_run_id),
	    cmocka_unit_test(filter_matches_bench_op_backend_and_size),
	    cmocka_unit_test(exporters_neutralise_hostile_labels),
	    cmocka_unit_test(wrap_keeps_every_word_within_the_width),
	    cmocka_unit_test(why_words_name_the_counts_kind),
	    cmocka_unit_test(format_names_list_every_exporter),
	    cmocka_unit_test(folded_rows_name_each_versions_reason_when_they_differ),
	};
	return test_run_group("merge and export", tests, NULL, NULL);
}
