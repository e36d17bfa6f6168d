/* test_options.c - the option parser: checked conversions, both spellings
 * of a value, the messages a user gets, and help from the table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "options.h"
#include "plan.h"
#include "run_options.h"
#include "tests.h"

static void numbers_with_garbage_are_refused(void **state)
{
	(void)state;
	long long i;
	double d;
	unsigned long long u;
	assert_int_equal(bv_parse_int("42", 0, 100, &i), 0);
	assert_int_equal(i, 42);
	assert_int_equal(bv_parse_int("-3", -5, 5, &i), 0);
	assert_int_equal(i, -3);
	const char *bad_int[] = {
	    "", " 4", "4 ", "4x", "abc", "0x10", "1.5", "1e3", "101", "-1", "99999999999999999999", NULL};
	for (int k = 0; bad_int[k]; k++)
		if (bv_parse_int(bad_int[k], 0, 100, &i) == 0)
			fail_msg("int accepted '%s'", bad_int[k]);
	assert_int_equal(bv_parse_u64("18446744073709551615", ~0ull, &u), 0);
	assert_true(u == ~0ull);
	const char *bad_u64[] = {"", "xyz", "-1", "+1", "18446744073709551616", "12abc", NULL};
	for (int k = 0; bad_u64[k]; k++)
		if (bv_parse_u64(bad_u64[k], ~0ull, &u) == 0)
			fail_msg("u64 accepted '%s'", bad_u64[k]);
	assert_int_equal(bv_parse_double("0.5", 0, 1, &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(bv_parse_double("1e-2", 0, 1, &d), 0);
	const char *bad_double[] = {"",  "abc",  "nan",  "NaN",  "inf",  "-inf",     "1e999", "1e-999",
				    "2", "-0.5", "0.5%", " 0.5", "0.5 ", "infinity", NULL};
	for (int k = 0; bad_double[k]; k++)
		if (bv_parse_double(bad_double[k], 0, 1, &d) == 0)
			fail_msg("double accepted '%s'", bad_double[k]);
}

static void sizes_and_durations_take_their_units(void **state)
{
	(void)state;
	unsigned long long b;
	const struct {
		const char *s;
		unsigned long long bytes;
	} sizes[] = {{"0", 0},
		     {"512", 512},
		     {"512B", 512},
		     {"64K", 65536},
		     {"256M", 256ull << 20},
		     {"1.5G", 3ull << 29},
		     {"2GiB", 2ull << 30},
		     {"2gb", 2ull << 30},
		     {"1T", 1ull << 40}};
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		assert_int_equal(bv_parse_size(sizes[k].s, 0, 1e15, &b), 0);
		if (b != sizes[k].bytes)
			fail_msg("'%s' is %llu bytes, not %llu", sizes[k].s, b, sizes[k].bytes);
	}
	const char *bad_size[] = {"",      "G",   "-1K", "12Q",   "1GG", "1 G",
				  "1KiBs", "nan", "inf", "1e30T", "4P",  NULL};
	for (int k = 0; bad_size[k]; k++)
		if (bv_parse_size(bad_size[k], 0, 1e18, &b) == 0)
			fail_msg("size accepted '%s'", bad_size[k]);
	double s;
	const struct {
		const char *s;
		double seconds;
	} durations[] = {{"5", 5}, {"5s", 5}, {"250ms", 0.25}, {"2m", 120}, {"1min", 60}, {"1.5h", 5400}};
	for (size_t k = 0; k < sizeof(durations) / sizeof(durations[0]); k++) {
		assert_int_equal(bv_parse_duration(durations[k].s, 0.001, 86400, &s), 0);
		assert_true(fabs(s - durations[k].seconds) < 1e-12);
	}
	const char *bad_duration[] = {"",   "5minutes", "5 s", "s",   "5sec", "2d",
				      "-1", "0",        "nan", "1e9", NULL};
	for (int k = 0; bad_duration[k]; k++)
		if (bv_parse_duration(bad_duration[k], 0.001, 86400, &s) == 0)
			fail_msg("duration accepted '%s'", bad_duration[k]);
}

/* A table like a command's, with one of each kind. */
typedef struct fixture {
	int quick, rounds;
	unsigned long long seed, limit;
	double threshold, timeout;
	const char *results, *format;
	const char *seen, *threshold_seen;
} fixture;

static const char *const formats[] = {"table", "json", NULL};

static int parse(fixture *f, int argc, char **argv, char **pos, size_t *npos)
{
	const bv_option inner[] = {
	    BV_INT("--rounds", &f->rounds, "N", 1, 100000, "rounds per process"),
	    BV_PERCENT("--threshold", &f->threshold, "P", 0, 1000, "the inner threshold"),
	    BV_END,
	};
	const bv_option opts[] = {
	    BV_FLAG("--quick", &f->quick, "fewer processes"),
	    BV_U64("--seed", &f->seed, "N", "seed"),
	    BV_PERCENT("--threshold", &f->threshold, "P", 0, 1000, "smallest change, percent",
		       .seen = &f->threshold_seen),
	    BV_DURATION("--timeout", &f->timeout, "S", 0.001, 86400, "per step"),
	    BV_SIZE("--memory-limit", &f->limit, "SIZE", 0, 1e18, "a limit"),
	    BV_STRING("--results", &f->results, "DIR", "where logs go"),
	    BV_ENUM("--format", &f->format, "F", formats, "output format"),
	    BV_REFUSED("--token", "there is no --token option: put it in a file"),
	    BV_INCLUDE(inner, NULL, .seen = &f->seen),
	    BV_END,
	};
	return bv_options_parse(opts, argc, argv, pos, npos);
}

#define ARGV(...) ((char *[]){"cmd", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){"cmd", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(f, ...) parse(f, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), pos, &npos)

static void both_spellings_of_a_value_work(void **state)
{
	(void)state;
	char *pos[16];
	size_t npos;
	fixture f = {0};
	assert_int_equal(PARSE(&f, "main", "--threshold", "5", "--timeout=2m", "local", "--quick", "--seed=7",
			       "--memory-limit", "256M", "--results=/tmp/r", "--format", "json", "--rounds",
			       "9"),
			 0);
	assert_true(fabs(f.threshold - 0.05) < 1e-12);
	assert_true(f.timeout == 120 && f.quick == 1 && f.seed == 7 && f.limit == 256ull << 20);
	assert_string_equal(f.results, "/tmp/r");
	assert_string_equal(f.format, "json");
	assert_int_equal(f.rounds, 9);
	assert_int_equal(npos, 2);
	assert_string_equal(pos[0], "main");
	assert_string_equal(pos[1], "local");
	/* The command's own --threshold was the one set (it shadows the
	 * included one); the include saw --rounds. */
	assert_string_equal(f.threshold_seen, "--threshold");
	assert_string_equal(f.seen, "--rounds");
	/* The last of an option given twice wins; after --, all is positional. */
	fixture g = {0};
	assert_int_equal(PARSE(&g, "--rounds", "3", "--rounds=4", "--", "--quick", "-x"), 0);
	assert_int_equal(g.rounds, 4);
	assert_int_equal(g.quick, 0);
	assert_int_equal(npos, 2);
	assert_string_equal(pos[0], "--quick");
}

/* rc, and the message contains each of the words. */
static void refused(int rc, const char *const *words)
{
	assert_int_equal(rc, BV_EINPUT);
	for (; *words; words++)
		if (!strstr(bv_error_last(), *words))
			fail_msg("'%s' does not say '%s'", bv_error_last(), *words);
}

static void bad_values_name_the_option_the_value_and_what_was_expected(void **state)
{
	(void)state;
	char *pos[16];
	size_t npos;
	fixture f = {0};
	f.threshold = 0.01;
	refused(PARSE(&f, "--threshold", "abc"),
		(const char *[]){"--threshold 'abc'", "expected a number from 0 to 1000 percent", NULL});
	assert_true(f.threshold == 0.01); /* untouched: never a silent 0 */
	refused(PARSE(&f, "--timeout", "5minutes"),
		(const char *[]){"--timeout '5minutes'", "expected a duration", NULL});
	refused(PARSE(&f, "--seed", "xyz"),
		(const char *[]){"--seed 'xyz'", "expected a whole number", NULL});
	refused(PARSE(&f, "--seed=-1"), (const char *[]){"--seed '-1'", NULL});
	refused(PARSE(&f, "--rounds", "0"), (const char *[]){"--rounds '0'", "from 1 to 100000", NULL});
	refused(PARSE(&f, "--threshold", "nan"), (const char *[]){"--threshold 'nan'", NULL});
	refused(PARSE(&f, "--threshold="), (const char *[]){"--threshold ''", NULL});
	refused(PARSE(&f, "--memory-limit", "lots"),
		(const char *[]){"--memory-limit 'lots'", "K, M, G or T", NULL});
	refused(PARSE(&f, "--format", "yaml"),
		(const char *[]){"--format 'yaml'", "one of table|json", NULL});
	refused(PARSE(&f, "--results", ""), (const char *[]){"--results ''", "non-empty", NULL});
	refused(PARSE(&f, "--timeout"), (const char *[]){"--timeout needs a value", NULL});
	refused(PARSE(&f, "--quick=yes"), (const char *[]){"--quick takes no value", NULL});
	refused(PARSE(&f, "--x"), (const char *[]){"unknown option --x", NULL});
	refused(PARSE(&f, "-x"), (const char *[]){"unknown option -x", NULL});
	/* Neither a refused option's value nor an unknown one's is echoed. */
	refused(PARSE(&f, "--token=s3cret"), (const char *[]){"there is no --token option", NULL});
	assert_null(strstr(bv_error_last(), "s3cret"));
	refused(PARSE(&f, "--tokn=s3cret"), (const char *[]){"unknown option --tokn", NULL});
	assert_null(strstr(bv_error_last(), "s3cret"));
	/* A value that looks like an option is still the value. */
	refused(PARSE(&f, "--threshold", "-5"), (const char *[]){"--threshold '-5'", NULL});
	/* --help wins over what follows it, not over an error before it. */
	assert_int_equal(PARSE(&f, "main", "--help", "--x"), 1);
	assert_int_equal(PARSE(&f, "-h"), 1);
	refused(PARSE(&f, "--x", "--help"), (const char *[]){"unknown option --x", NULL});
}

/* A 95 % interval needs 6 processes: fewer is refused, naming the minimum,
 * however it is asked for (`--processes 1` once printed a one-point
 * "interval" 0.992 [0.992, 0.992]). */
static void fewer_processes_than_an_interval_needs_are_refused(void **state)
{
	(void)state;
	bv_measure_opts mo;
	bv_measure_opts_init(&mo);
	mo.min_processes = mo.max_processes = 1; /* --processes 1 */
	refused(bv_measure_opts_settle(&mo), (const char *[]){"--processes 1", "at least 6 processes", NULL});
	bv_measure_opts_init(&mo);
	mo.min_processes = mo.max_processes = 5;
	refused(bv_measure_opts_settle(&mo), (const char *[]){"--processes 5", "at least 6", "93.8%", NULL});
	bv_measure_opts_init(&mo);
	mo.max_processes = 4;
	mo.quick = 1;
	refused(bv_measure_opts_settle(&mo), (const char *[]){"--max-processes 4", "at least 6", NULL});
	bv_measure_opts_init(&mo);
	mo.min_processes = mo.max_processes = 6;
	assert_int_equal(bv_measure_opts_settle(&mo), 0);
	/* --min-processes below 6 stays allowed: a cell never stops before 6 */
	bv_measure_opts_init(&mo);
	mo.min_processes = 2;
	assert_int_equal(bv_measure_opts_settle(&mo), 0);
}

static void help_comes_from_the_table(void **state)
{
	(void)state;
	fixture f = {0};
	const bv_option inner[] = {
	    BV_INT("--rounds", &f.rounds, "N", 1, 100000, "rounds per process"),
	    BV_PERCENT("--threshold", &f.threshold, "P", 0, 1000, "the inner threshold"),
	    BV_END,
	};
	const bv_option opts[] = {
	    BV_FLAG("--quick", &f.quick,
		    "fewer processes and rounds, same method: for smoke runs and CI,\nwhere a quick answer is worth "
		    "more than a narrow interval"),
	    BV_PERCENT("--threshold", &f.threshold, "P", 0, 1000, "smallest change, percent"),
	    BV_REFUSED("--token", "no"),
	    BV_STRING("--hidden", &f.results, "X", NULL),
	    BV_INCLUDE(inner, NULL),
	    BV_END,
	};
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	bv_options_help(opts, out);
	fclose(out);
	/* Flowed into the column, broken at spaces, within 79 columns. */
	assert_non_null(strstr(text, "  --quick        fewer processes and rounds, same method: for smoke runs and\n"
				     "                 CI, where a quick answer is worth more than a narrow interval\n"));
	for (const char *line = text; *line; line += strcspn(line, "\n") + 1)
		assert_true(strcspn(line, "\n") <= 79);
	assert_non_null(strstr(text, "  --threshold P  smallest change, percent\n"));
	assert_non_null(strstr(text, "  --rounds N     rounds per process\n"));
	assert_non_null(strstr(text, "  --help         this usage\n"));
	assert_null(strstr(text, "inner threshold")); /* shadowed */
	assert_null(strstr(text, "--token"));
	assert_null(strstr(text, "--hidden"));
	free(text);
}

/* --filter narrows the cells before measuring: the kept cells come with
 * their position in the lists' selection, the index bv-runner (which
 * selects by the lists alone) knows them by. */
static void filter_selects_cells_with_their_runner_index(void **state)
{
	(void)state;
	bv_measure_opts mo;
	bv_measure_opts_init(&mo);
	mo.benches = "unary", mo.ops = "abs,relu", mo.backends = "scalar", mo.sizes = "1K,4K";
	bv_cell *cells = NULL;
	long *pos = NULL;
	char err[256];
	assert_int_equal(bv_plan_cells(&mo, &cells, &pos, err, sizeof(err)), 4);
	free(cells), free(pos);
	mo.filter = "relu/scalar/4K$";
	assert_int_equal(bv_plan_cells(&mo, &cells, &pos, err, sizeof(err)), 1);
	assert_string_equal(cells[0].op->name, "relu");
	assert_int_equal(cells[0].size, 4096);
	assert_int_equal(pos[0], 3); /* abs 1K, abs 4K, relu 1K, relu 4K */
	free(cells), free(pos);
	mo.filter = "^gemm/";
	assert_int_equal(bv_plan_cells(&mo, &cells, NULL, err, sizeof(err)), 0);
	free(cells);
	mo.filter = "(";
	assert_int_equal(bv_plan_cells(&mo, &cells, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--filter '('"));
	/* A run's options refuse a filter that matches nothing, naming it. */
	bv_run_cli c;
	bv_run_cli_init(&c);
	c.mo.benches = "unary", c.mo.filter = "^gemm/";
	long n = 0;
	assert_int_equal(bv_run_cli_finish(&c, &n), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "--filter '^gemm/' matches no cell"));
	c.mo.filter = "^unary/abs/scalar/1K$";
	assert_int_equal(bv_run_cli_finish(&c, &n), 0);
	assert_int_equal(n, 1);
}

/* A CALLBACK option (bv-runner's --drop, --only) sees each value given and
 * says what it expected; a DOUBLE above its minimum refuses the minimum
 * (bv-runner's --timeout 0).  Through the harness's parser alone, as
 * bv-runner calls it, and through options.h's, as the commands do. */
typedef struct taken {
	const char *v[4];
	int n;
} taken;

static const char *take_even(const bv_option *o, const char *value)
{
	taken *t = o->dest;
	if (strlen(value) % 2)
		return "an even number of characters";
	t->v[t->n++] = value;
	return NULL;
}

static void a_callback_sees_each_value_and_a_minimum_can_be_refused(void **state)
{
	(void)state;
	taken t = {{0}, 0};
	double timeout = 60;
	const bv_option opts[] = {
	    BV_CALLBACK("--drop", &t, "X", take_even, "repeatable"),
	    BV_DOUBLE("--timeout", &timeout, "S", 0, 1e7, "seconds", "per child", .above_min = 1),
	    BV_END,
	};
	char *pos[8];
	size_t npos;
	char *ok[] = {"cmd", "--drop", "ab", "--drop=cdef", "--timeout", "0.5", NULL};
	assert_int_equal(bv_parse_options(opts, 6, ok, pos, &npos), 0);
	assert_int_equal(t.n, 2);
	assert_string_equal(t.v[0], "ab");
	assert_string_equal(t.v[1], "cdef");
	assert_true(timeout == 0.5);
	char *odd[] = {"cmd", "--drop", "abc", NULL};
	assert_int_equal(bv_parse_options(opts, 3, odd, pos, &npos), -1);
	assert_string_equal(bv_parse_options_error(), "--drop 'abc': expected an even number of characters");
	char *zero[] = {"cmd", "--timeout", "0", NULL};
	assert_int_equal(bv_parse_options(opts, 3, zero, pos, &npos), -1);
	assert_string_equal(bv_parse_options_error(),
			    "--timeout '0': expected a number greater than 0 and at most 10000000 seconds");
	/* the commands' wrapper: the same message, in common.h's model */
	assert_int_equal(bv_options_parse(opts, 3, zero, pos, &npos), BV_EINPUT);
	assert_string_equal(bv_error_last(),
			    "--timeout '0': expected a number greater than 0 and at most 10000000 seconds");
}

int test_options(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(numbers_with_garbage_are_refused),
	    cmocka_unit_test(sizes_and_durations_take_their_units),
	    cmocka_unit_test(both_spellings_of_a_value_work),
	    cmocka_unit_test(bad_values_name_the_option_the_value_and_what_was_expected),
	    cmocka_unit_test(help_comes_from_the_table),
	    cmocka_unit_test(a_callback_sees_each_value_and_a_minimum_can_be_refused),
		cmocka_unit_test(fewer_processes_than_an_interval_needs_are_refused),
	    cmocka_unit_test(filter_selects_cells_with_their_runner_index),
	};
	return test_run_group("options", tests, NULL, NULL);
}
