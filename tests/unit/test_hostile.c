/* test_hostile.c - broken and hostile JSON through every loader (results
 * logs, compat.json, the release index): each is refused with a message
 * naming the file and the position or field, never a crash.  Inputs found
 * by the fuzzers (tests/fuzz/) are kept here as regressions too.  Names from
 * outside are shown escaped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "budgets.h"
#include "common.h"
#include "compat.h"
#include "fs.h"
#include "json.h"
#include "merge.h"
#include "releases.h"
#include "results.h"
#include "table.h"
#include "tests.h"

static void expect_error(int rc, const char *want1, const char *want2, const char *input)
{
	if (rc != BV_EINPUT)
		fail_msg("accepted (rc %d): %.200s", rc, input);
	if (!strstr(bv_error_last(), want1) || (want2 && !strstr(bv_error_last(), want2)))
		fail_msg("message '%s' lacks '%s'%s%s", bv_error_last(), want1, want2 ? " or " : "", want2 ? want2 : "");
}

static char *nested(int depth)
{
	bv_buf b = BV_BUF_INIT;
	bv_buf_puts(&b, "{\"a\":\n");
	for (int i = 0; i < depth; i++)
		bv_buf_puts(&b, "[");
	for (int i = 0; i < depth; i++)
		bv_buf_puts(&b, "]");
	bv_buf_puts(&b, "}");
	return bv_buf_detach(&b);
}

/* The shared loader: where parsing stopped, as file:line:column. */
static void json_errors_name_file_line_and_column(void **state)
{
	(void)state;
	static const struct {
		const char *text, *want;
	} cases[] = {
		{"", "x.json:1:1: malformed JSON (empty file)"},
		{"{\"a\": 1,\n \"b\": [1, 2,\n", "x.json:3:1: malformed JSON (truncated?)"},
		{"{\"a\": 1,\n  \"b\": [,]}", "x.json:2:9: malformed JSON"},
		{"{\"a\": tru}", "x.json:1:7: malformed JSON"},
		{"{\"a\": 1} trailing", "x.json:1:10: malformed JSON"},
		{"{\"a\": \"unterminated", "x.json:1:8: malformed JSON"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *doc = (cJSON *)1;
		expect_error(bv_json_parse("x.json", cases[i].text, strlen(cases[i].text), &doc), cases[i].want, NULL,
			     cases[i].text);
		assert_null(doc);
	}
	/* A NUL inside: said with its offset, not silently cut short. */
	cJSON *doc;
	expect_error(bv_json_parse("x.json", "{\"a\":1}\0{}", 10, &doc), "x.json: contains a NUL byte at offset 7",
		     NULL, "NUL");
	/* cJSON's nesting limit (1000): deeper is a clear error at the spot. */
	char *ok = nested(999), *deep = nested(1001), *deeper = nested(200000);
	assert_int_equal(bv_json_parse("x.json", ok, strlen(ok), &doc), 0);
	cJSON_Delete(doc);
	expect_error(bv_json_parse("x.json", deep, strlen(deep), &doc), "x.json:2:1000: malformed JSON (nested more than 1000 levels deep)", NULL, "deep");
	expect_error(bv_json_parse("x.json", deeper, strlen(deeper), &doc), "nested more than 1000 levels deep", NULL, "deeper");
	free(ok), free(deep), free(deeper);
}

/* Files over a loader's size cap are refused before parsing. */
static void huge_files_are_refused_by_size(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	char *path = bv_asprintf("%s/compat.json", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"schema_version\": 1, \"rules\": [], \"pad\": \"", f);
	for (size_t i = 0; i < BV_COMPAT_MAX; i += 64)
		fputs("0123456789012345678901234567890123456789012345678901234567890123", f);
	fputs("\"}", f);
	fclose(f);
	bv_compat *c = NULL;
	expect_error(bv_compat_load(path, &c), path, "is larger than 1048576 bytes", "huge compat.json");
	assert_null(c);
	cJSON *doc;
	expect_error(bv_json_load(path, 4096, &doc), "is larger than 4096 bytes", NULL, "huge");
	bv_rm_rf(dir);
	free(dir), free(path);
}

#define LOG_HEAD "{\"schema\": \"bench-versions-results\", \"schema_version\": \"1.1\", \"run\": {\"id\": \"r\"}, " \
		 "\"version\": {\"label\": \"a\"}, \"machine\": {}, "
#define CELL(x) LOG_HEAD "\"cells\": [{\"bench\": \"unary\", \"op\": \"abs\", \"backend\": \"scalar\", " x "}]}"
#define OK_CELL "\"size\": 64, \"status\": \"ok\", \"median_ns\": 5, \"median_ns_ci_low\": 4, \"median_ns_ci_high\": 6"
#define CHANGE(r, lo, hi) "{\"baseline\": \"a\", \"mode\": \"paired\", \"ratio\": " r ", \"ratio_ci_low\": " lo \
			  ", \"ratio_ci_high\": " hi ", \"coverage\": 0.96, \"processes\": 6}"
#define CELL1(size, status) "{\"bench\": \"unary\", \"op\": \"abs\", \"backend\": \"scalar\", \"size\": " size \
			    ", \"status\": \"" status "\", \"median_ns\": 5, \"median_ns_ci_low\": 4, \"median_ns_ci_high\": 6}"

/* Results logs: wrong types and schema versions name the file and the field. */
static void broken_results_logs_are_refused(void **state)
{
	(void)state;
	static const struct {
		const char *text, *want;
	} cases[] = {
		{"{\"schema\": \"bench-versions-results\",\n \"cells\": [", "log.json:2:12: malformed JSON"},
		{"[1, 2]", "not a bench-versions results log"},
		{"{\"schema\": \"bench-versions-results\", \"schema_version\": 1.1}", "not a bench-versions results log"},
		{"{\"schema\": \"bench-versions-results\", \"schema_version\": \"2.0\"}", "results schema 2.0 is newer than this bench-versions reads (1.x)"},
		{"{\"schema\": \"bench-versions-results\", \"schema_version\": \"0.9\"}", "results schema 0.9 is older"},
		{"{\"schema\": \"bench-versions-results\", \"schema_version\": \"1garbage\"}", "schema_version: expected \"MAJOR.MINOR\""},
		{"{\"schema\": \"bench-versions-results\", \"schema_version\": \"1.1\", \"cells\": {}}", "missing \"version\" or \"cells\""},
		{LOG_HEAD "\"cells\": [7]}", "cells[0]: expected an object"},
		{LOG_HEAD "\"cells\": [{\"bench\": 1}]}", "cells[0]: \"bench\": expected a string"},
		{CELL("\"size\": \"1K\""), "cells[0]: \"size\": expected a whole number"},
		{CELL("\"size\": -1"), "cells[0]: \"size\": expected a whole number"},
		{CELL("\"size\": 1.5"), "cells[0]: \"size\": expected a whole number"},
		/* fuzz_results_log's first finding: casting 1e300 to size_t is undefined */
		{CELL("\"size\": 1e300"), "cells[0]: \"size\": expected a whole number"},
		{CELL("\"size\": 1e999"), "cells[0]: \"size\": expected a whole number"},
		{CELL("\"size\": 64, \"processes\": 1e30"), "cells[0] (unary abs scalar 64): \"processes\": expected a whole number"},
		{CELL("\"size\": 64, \"status\": \"ok\", \"median_ns\": \"fast\""), "cells[0] (unary abs scalar 64): an ok cell lacks median_ns"},
		/* Numbers a verdict would take at face value: report --from
		 * once said READY for a candidate 5x slower whose log
		 * said ratio_ci_low -1e308 (an interval reaching below 1 is "same"). */
		{CELL(OK_CELL ", \"change\": " CHANGE("5", "-1e308", "6")), "cells[0] (unary abs scalar 64): change.ratio_ci_low -1e+308: expected a finite number > 0"},
		{CELL(OK_CELL ", \"change\": " CHANGE("1e999", "1", "2")), "change.ratio inf: expected a finite number > 0"},
		{CELL(OK_CELL ", \"change\": " CHANGE("5", "4", "1e999")), "change.ratio_ci_high inf: expected a finite number > 0"},
		{CELL(OK_CELL ", \"change\": " CHANGE("0", "0", "1")), "change.ratio 0: expected a finite number > 0"},
		{CELL(OK_CELL ", \"change\": " CHANGE("1.5", "2", "1")), "change.ratio 1.5 lies outside its interval [2, 1]"},
		{CELL(OK_CELL ", \"change\": " CHANGE("5", "1", "2")), "change.ratio 5 lies outside its interval [1, 2]"},
		{CELL(OK_CELL ", \"change\": {\"ratio\": 5}"), "change lacks ratio, ratio_ci_low or ratio_ci_high"},
		{CELL(OK_CELL ", \"change\": {\"ratio\": 1, \"ratio_ci_low\": 1, \"ratio_ci_high\": 1, \"process_ratios\": [1, -1]}"),
		 "change.process_ratios[1]: expected a finite number > 0"},
		/* A change contradicting its own processes: the ratio
		 * is their median (measure.c), so it lies between the lowest and
		 * the highest of them; a verdict was taken from 5 over 1s. */
		{CELL(OK_CELL ", \"change\": {\"ratio\": 5, \"ratio_ci_low\": 4, \"ratio_ci_high\": 6, \"process_ratios\": [1, 0.98, 1.02]}"),
		 "cells[0] (unary abs scalar 64): change.ratio 5 lies outside its process_ratios [0.98, 1.02] (it is their "
		 "median)"},
		{CELL(OK_CELL ", \"change\": {\"ratio\": 0.5, \"ratio_ci_low\": 0.4, \"ratio_ci_high\": 0.6, \"process_ratios\": [1]}"),
		 "change.ratio 0.5 lies outside its process_ratios [1, 1]"},
		/* The machine's state per process decides the state split
		 * (verdict.c): misaligned or out-of-range values would move a
		 * verdict, so they are refused as the ratios are. */
		{CELL(OK_CELL ", \"change\": {\"ratio\": 1, \"ratio_ci_low\": 1, \"ratio_ci_high\": 1, \"process_ratios\": [1, 1], \"process_state\": [{}]}"),
		 "change.process_state: expected an array of 2 (one per process ratio)"},
		{CELL(OK_CELL ", \"change\": {\"ratio\": 1, \"ratio_ci_low\": 1, \"ratio_ci_high\": 1, \"process_ratios\": [1], \"process_state\": [7]}"),
		 "change.process_state[0]: expected an object"},
		{CELL(OK_CELL ", \"change\": {\"ratio\": 1, \"ratio_ci_low\": 1, \"ratio_ci_high\": 1, \"process_ratios\": [1, 1], \"process_state\": [{\"running\": [1, 1]}, {\"running\": [-3, 1]}]}"),
		 "change.process_state[1].running: expected [before, after], each a finite number >= 0 or null"},
		{CELL(OK_CELL ", \"change\": {\"ratio\": 1, \"ratio_ci_low\": 1, \"ratio_ci_high\": 1, \"process_ratios\": [1], \"process_state\": [{\"probe_gbps\": [1]}]}"),
		 "change.process_state[0].probe_gbps: expected [before, after]"},
		{CELL(OK_CELL ", \"change\": {\"ratio\": 1, \"ratio_ci_low\": 1, \"ratio_ci_high\": 1, \"coverage\": 7}"),
		 "change.coverage: expected a number from 0 to 1"},
		{CELL(OK_CELL ", \"change\": {\"ratio\": 1, \"ratio_ci_low\": 1, \"ratio_ci_high\": 1, \"mode\": \"guessed\"}"),
		 "change.mode: expected \"paired\" or \"isolated\""},
		{CELL("\"size\": 64, \"status\": \"ok\", \"median_ns\": 0, \"median_ns_ci_low\": 0, \"median_ns_ci_high\": 1"),
		 "cells[0] (unary abs scalar 64): median_ns 0: expected a finite number > 0"},
		{CELL("\"size\": 64, \"status\": \"ok\", \"median_ns\": -5, \"median_ns_ci_low\": -6, \"median_ns_ci_high\": -4"),
		 "median_ns -5: expected a finite number > 0"},
		{CELL("\"size\": 64, \"status\": \"ok\", \"median_ns\": 5, \"median_ns_ci_low\": 6, \"median_ns_ci_high\": 4"),
		 "median_ns 5 lies outside its interval [6, 4]"},
		{CELL(OK_CELL ", \"gbps\": -1"), "cells[0] (unary abs scalar 64): gbps -1: expected a finite number >= 0"},
		{CELL(OK_CELL ", \"footprint\": {\"host_bytes\": 1e999}"), "host_bytes inf: expected a finite number >= 0"},
		{CELL(OK_CELL ", \"footprint\": {\"library_host_bytes\": -1}"),
		 "library_host_bytes -1: expected a finite number >= 0"},
		{CELL(OK_CELL ", \"footprint\": {\"library_device_bytes\": \"lots\"}"),
		 "\"library_device_bytes\": expected a number"},
		/* A status nobody writes falls through every comparison. */
		{CELL("\"size\": 64, \"status\": \"fast\""), "cells[0] (unary abs scalar 64): \"status\": unknown status 'fast' (known: ok, n/a, skipped"},
		{CELL("\"size\": 64"), "cells[0] (unary abs scalar 64): \"status\": expected a string"},
		{CELL("\"size\": 64, \"status\": \"\\u001b[2Jok\""), "unknown status '\\x1b[2Jok'"},
		/* One process twice in a cell: the backend
		 * view pairs cells by process id, and paired the wrong ones. */
		{CELL(OK_CELL ", \"process_medians_ns\": [5, 5, 6], \"process_ids\": [1, 3, 1]"),
		 "cells[0] (unary abs scalar 64): \"process_ids\": process 1 twice (process_ids[0] and process_ids[2]); a "
		 "process measures a cell once"},
		/* The same cell twice: the table took whichever came last. */
		{LOG_HEAD "\"cells\": [" CELL1("1024", "ok") ", " CELL1("64", "ok") ", " CELL1("1024", "failed") "]}",
		 "cells[2] (unary abs scalar 1K): the same cell as cells[0]; a log holds each cell once"},
	};
	char *dir = test_tmpdir();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		test_write(dir, "log.json", cases[i].text);
		char *path = bv_asprintf("%s/log.json", dir);
		bv_table t;
		bv_merge_opts o = {-1, 0};
		expect_error(bv_merge(&path, 1, &o, &t), path, cases[i].want, cases[i].text);
		free(path);
	}
	bv_rm_rf(dir);
	free(dir);
}

/* A key twice in one object: cJSON keeps both and finds the first, Python
 * and jq take the last, so two readers would read two files.  Refused by
 * the one JSON loader, at the second key, in every kind of file. */
static void duplicate_keys_are_refused_in_every_file(void **state)
{
	(void)state;
	cJSON *doc = (cJSON *)1;
	const char *top = "{\"a\": 1,\n \"b\": 2,\n \"a\": 3}";
	expect_error(bv_json_parse("x.json", top, strlen(top), &doc),
		     "x.json:3:2: duplicate key \"a\" (first at 1:2)", NULL, "top level");
	assert_null(doc);
	/* Nested, after strings holding braces, quotes and commas, and a key
	 * spelled with an escape ("\u0061" is "a"): the position is the key's. */
	const char *nested = "{\"s\": \"{\\\"a\\\": 1, \", \"o\": [{}, {\"a\": {\"x\": 1},\n\t\"\\u0061\": 2}]}";
	expect_error(bv_json_parse("x.json", nested, strlen(nested), &doc), "x.json:2:2: duplicate key \"a\" (first at 1:33)",
		     NULL, nested);
	/* Many keys (the sorted path): the earliest repeat is named. */
	bv_buf big = BV_BUF_INIT;
	bv_buf_puts(&big, "{");
	for (int i = 0; i < 40; i++)
		bv_buf_printf(&big, "\"k%d\": %d, ", i, i);
	bv_buf_puts(&big, "\"k30\": 0, \"k7\": 0}");
	expect_error(bv_json_parse("x.json", big.s, big.len, &doc), "duplicate key \"k30\"", NULL, "40 keys");
	bv_buf_free(&big);
	/* Same-looking keys that differ are fine; so are equal keys in two objects. */
	const char *fine = "{\"a\": {\"a\": 1}, \"A\": [{\"b\": 1}, {\"b\": 2}]}";
	assert_int_equal(bv_json_parse("x.json", fine, strlen(fine), &doc), 0);
	cJSON_Delete(doc);

	char *dir = test_tmpdir();
	char *path = bv_asprintf("%s/log.json", dir);
	bv_table t;
	bv_merge_opts o = {-1, 0};
	/* A results log: a second "cells", and a second "ratio" in a change. */
	test_write(dir, "log.json", LOG_HEAD "\"cells\": [],\n \"cells\": [" CELL1("64", "ok") "]}");
	expect_error(bv_merge(&path, 1, &o, &t), "log.json:2:2: duplicate key \"cells\" (first at 1:125)", NULL, "log: cells twice");
	test_write(dir, "log.json", CELL(OK_CELL ", \"change\": {\"ratio\": 1, \"ratio_ci_low\": 1, \"ratio_ci_high\": 1, \"ratio\": 9}"));
	expect_error(bv_merge(&path, 1, &o, &t), "log.json:1:", "duplicate key \"ratio\"", "log: ratio twice");
	/* compat.json: a second "rules" would drop every rule of the first. */
	const char *compat = "{\"schema_version\": 1,\n \"rules\": [],\n \"rules\": []}";
	bv_compat *c = NULL;
	expect_error(bv_compat_parse("compat.json", compat, strlen(compat), &c), "compat.json:3:2: duplicate key \"rules\"",
		     NULL, "compat.json");
	bv_compat_free(c);
	/* A release index: a second "releases" from a web server. */
	const char *index = "{\"schema\":\"bench-versions-releases\",\"schema_version\":\"1.0\",\"releases\":[],\"releases\":[]}";
	bv_release_index idx;
	expect_error(bv_release_index_parse("http://h/index.json", index, strlen(index), &idx),
		     "http://h/index.json:1:74: duplicate key \"releases\" (first at 1:60)", NULL, "index");
	/* A budgets file: the second default would be ignored. */
	test_write(dir, "budgets.json", "{\"default_slowdown_pct\": 5,\n \"default_slowdown_pct\": 50}");
	char *budgets = bv_asprintf("%s/budgets.json", dir);
	bv_budgets b;
	expect_error(bv_budgets_load(budgets, 5, &b), "budgets.json:2:2: duplicate key \"default_slowdown_pct\"", NULL,
		     "budgets");
	bv_budgets_free(&b);
	bv_rm_rf(dir);
	free(dir), free(path), free(budgets);
}

/* Sizes are checked with fstat before a byte is read: one log over its cap,
 * logs over the cap together, a device behind a symlink.  Each test file is
 * sparse, so reading it would give NUL bytes: the message shows whether it
 * was read. */
static void logs_are_refused_by_size_before_reading(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	char *paths[5];
	bv_table t;
	bv_merge_opts o = {-1, 0};
	for (int i = 0; i < 5; i++) {
		paths[i] = bv_asprintf("%s/log%d.json", dir, i);
		FILE *f = fopen(paths[i], "w");
		assert_non_null(f);
		assert_int_equal(ftruncate(fileno(f), 250000000), 0); /* under one log's cap */
		fclose(f);
	}
	expect_error(bv_merge(paths, 5, &o, &t), "the 5 logs up to", "hold more than 1073741824 bytes together", "total");
	assert_int_equal(truncate(paths[0], 300000000), 0);
	expect_error(bv_merge(paths, 1, &o, &t), paths[0], "is larger than 268435456 bytes", "one log");
	char *zero = bv_asprintf("%s/zero.json", dir);
	assert_int_equal(symlink("/dev/zero", zero), 0);
	expect_error(bv_merge(&zero, 1, &o, &t), zero, "is a character device, not a regular file", "/dev/zero");
	cJSON *doc;
	expect_error(bv_log_load(zero, &doc), zero, "is a character device, not a regular file", "/dev/zero");
	for (int i = 0; i < 5; i++)
		free(paths[i]);
	bv_rm_rf(dir);
	free(dir), free(zero);
}

/* Every loader says the same about nesting past the limit. */
static void every_loader_refuses_deep_nesting_with_its_name(void **state)
{
	(void)state;
	char *deep = nested(5000);
	char *dir = test_tmpdir();
	test_write(dir, "log.json", deep);
	test_write(dir, "compat.json", deep);
	char *log = bv_asprintf("%s/log.json", dir), *compat = bv_asprintf("%s/compat.json", dir);
	bv_table t;
	bv_merge_opts o = {-1, 0};
	expect_error(bv_merge(&log, 1, &o, &t), "log.json:2:1000: malformed JSON (nested more than 1000", NULL, "log");
	bv_compat *c;
	expect_error(bv_compat_load(compat, &c), "compat.json:2:1000: malformed JSON (nested more than 1000", NULL, "compat");
	bv_release_index idx;
	expect_error(bv_release_index_parse("http://h/index.json", deep, strlen(deep), &idx),
		     "http://h/index.json:2:1000: malformed JSON (nested more than 1000", NULL, "index");
	bv_rm_rf(dir);
	free(dir), free(deep), free(log), free(compat);
}

/* A FIFO, a directory or a device where a file is read is refused by what
 * it is, without blocking (a FIFO nobody writes to would wait forever):
 * every loader reads through bv_read_file. */
static void only_regular_files_are_read(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	char *fifo = bv_asprintf("%s/log.json", dir), *sub = bv_asprintf("%s/sub.json", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(mkdir(sub, 0700), 0);
	bv_table t;
	bv_merge_opts o = {-1, 0};
	expect_error(bv_merge(&fifo, 1, &o, &t), fifo, "is a FIFO, not a regular file", "merge of a FIFO");
	bv_compat *c;
	expect_error(bv_compat_load(fifo, &c), fifo, "is a FIFO, not a regular file", "compat.json as a FIFO");
	bv_budgets b;
	expect_error(bv_budgets_load(fifo, 5, &b), fifo, "is a FIFO, not a regular file", "budgets as a FIFO");
	bv_budgets_free(&b);
	cJSON *doc;
	expect_error(bv_json_load(sub, 1 << 20, &doc), sub, "is a directory, not a regular file", "a directory");
	expect_error(bv_json_load("/dev/zero", 1 << 20, &doc), "/dev/zero is a character device, not a regular file", NULL, "a device");
	char *text;
	expect_error(bv_read_file(fifo, 1 << 20, &text, NULL), fifo, "is a FIFO", "bv_read_file");
	assert_null(text);
	bv_rm_rf(dir);
	free(dir), free(fifo), free(sub);
}

/* Names from outside reach the terminal escaped (bv_escape): no terminal
 * control, no forged line, no byte that is not UTF-8; printable text and
 * UTF-8 as they are.  bv_fail escapes whatever a site passed in. */
static void names_from_outside_are_escaped(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
	    {"kernels-0.2.0/src", "kernels-0.2.0/src"},
	    {"\x1b[2J\x1b]0;owned\x07", "\\x1b[2J\\x1b]0;owned\\x07"},
	    {"a\nb\r\tc\x7f", "a\\x0ab\\x0d\\x09c\\x7f"},
	    {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8d\xb0", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8d\xb0"}, /* UTF-8 */
	    {"\xc2\x9b" "2J", "\\xc2\\x9b2J"},				 /* C1 CSI, in UTF-8 */
	    {"\x9b" "2J \xff \xc3", "\\x9b2J \\xff \\xc3"},		 /* not UTF-8 */
	    {"\xc0\xaf \xed\xa0\x80", "\\xc0\\xaf \\xed\\xa0\\x80"},	 /* overlong, surrogate */
	    {"abc\xe2\x80\xae" "fdp.exe", "abc\\xe2\\x80\\xaefdp.exe"}, /* bidi override */
	    {"", ""},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *e = bv_escape(cases[i][0]);
		assert_string_equal(e, cases[i][1]);
		char *again = bv_escape(e); /* escaping twice changes nothing */
		assert_string_equal(again, e);
		free(again), free(e);
	}
	char *lines = bv_escape_lines("line 1\n\tline 2\x1b[0m\r\n");
	assert_string_equal(lines, "line 1\n\tline 2\\x1b[0m\\x0d\n");
	free(lines);
	assert_int_equal(bv_fail(BV_EINPUT, "entry '%s': tail:\n%s", "\x1b[31mx", "a\x07"), BV_EINPUT);
	assert_string_equal(bv_error_last(), "entry '\\x1b[31mx': tail:\na\\x07");
	bv_fail_context(BV_EINPUT, "release \x1b]0;t\x07");
	assert_string_equal(bv_error_last(), "release \\x1b]0;t\\x07: entry '\\x1b[31mx': tail:\na\\x07");
}

/* The one shell quoting function (bv_shell_word).  Each word, quoted, is read back by
 * a real POSIX shell (popen's sh reads the command as a person's paste
 * would be read) exactly as it was; ~ is never left to expand. */
static void shell_words_read_back_as_they_were(void **state)
{
	(void)state;
	const char *words[] = {"plain-1.2_x/y:z=w,@%+", "~", "~/x", "a=~b", "a b", "it's", "'", "\"q\"",
			       "line 1\nline 2", "", "$(id) `id` $HOME", "*", "pack[level=9]", "a\\b", "!x ^y",
			       "tab\there"};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		bv_buf b = BV_BUF_INIT;
		bv_buf_puts(&b, "printf '%s' ");
		bv_shell_word(&b, words[i]);
		char *cmd = bv_buf_detach(&b);
		FILE *f = popen(cmd, "r");
		assert_non_null(f);
		char got[256];
		size_t n = fread(got, 1, sizeof(got) - 1, f);
		got[n] = '\0';
		assert_int_equal(pclose(f), 0);
		if (strcmp(got, words[i]))
			fail_msg("%s read back as [%s], not [%s]", cmd, got, words[i]);
		free(cmd);
	}
	bv_buf b = BV_BUF_INIT;
	bv_shell_word(&b, "~");
	assert_string_equal(b.s, "'~'");
	bv_buf_free(&b);
}

int test_hostile(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_errors_name_file_line_and_column),
		cmocka_unit_test(huge_files_are_refused_by_size),
		cmocka_unit_test(broken_results_logs_are_refused),
		cmocka_unit_test(duplicate_keys_are_refused_in_every_file),
		cmocka_unit_test(logs_are_refused_by_size_before_reading),
		cmocka_unit_test(every_loader_refuses_deep_nesting_with_its_name),
		cmocka_unit_test(only_regular_files_are_read),
		cmocka_unit_test(names_from_outside_are_escaped),
		cmocka_unit_test(shell_words_read_back_as_they_were),
	};
	return test_run_group("hostile input", tests, NULL, NULL);
}
