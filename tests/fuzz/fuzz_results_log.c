/* fuzz_results_log.c - results logs (merge.c) and everything that shows
 * them (export_*.c): `compare` reads logs anyone may hand it.  The input is
 * merged alone, against itself and against a valid baseline log, and each
 * merged table goes through every exporter. */
#include <regex.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "stages.h"

static char *dir, *input, *baseline;
static FILE *sink;

static const char baseline_log[] =
	"{\"schema\":\"bench-versions-results\",\"schema_version\":\"1.1\","
	"\"run\":{\"id\":\"r1\",\"baseline\":\"a\",\"versions\":[\"a\",\"b\"]},"
	"\"version\":{\"label\":\"a\",\"name\":\"a\",\"kind\":\"git\",\"kernel_version\":\"0.1.0\",\"build\":{\"status\":\"ok\"}},"
	"\"machine\":{\"hostname\":\"h\",\"cpu\":\"c\"},"
	"\"method\":{\"mode\":\"paired\",\"min_processes\":2,\"max_processes\":4,\"rounds\":3,\"sample_us\":300,\"threshold\":0.01},"
	"\"cells\":[{\"bench\":\"unary\",\"op\":\"abs\",\"backend\":\"scalar\",\"size\":1024,\"status\":\"ok\","
	"\"median_ns\":100,\"median_ns_ci_low\":90,\"median_ns_ci_high\":110,\"processes\":2}]}";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	dir = fuzz_tmpdir("results");
	input = bv_asprintf("%s/b.json", dir);
	baseline = bv_asprintf("%s/a.json", dir);
	fuzz_write(baseline, baseline_log, strlen(baseline_log));
	sink = fopen("/dev/null", "w");
	return sink ? 0 : -1;
}

static void show(bv_table *t)
{
	static const char *const formats[] = {"table", "markdown", "csv", "json", "html"};
	static const char *const units[] = {"time", "rate", "peak"};
	for (size_t f = 0; f < sizeof(formats) / sizeof(*formats); f++) {
		const bv_exporter *e = bv_exporter_find(formats[f]);
		FUZZ_ASSERT(e != NULL);
		t->units = units[f % 3];
		e->write(t, sink);
	}
	size_t n;
	for (size_t v = 0; v < t->nversions; v++)
		for (size_t k = 0; k < t->nrows; k++)
			bv_table_geomean(t, v, t->rows[k].bench, &n);
	bv_table_has_slower(t);
	regex_t re;
	FUZZ_ASSERT(bv_filter_compile("^unary/", &re) == 0);
	bv_table_filter(t, &re);
	regfree(&re);
	t->units = NULL;
	bv_exporter_find("table")->write(t, sink);
}

static void merge(char *const *paths, size_t n, int across)
{
	bv_table t;
	bv_merge_opts o = {-1, across};
	int rc = bv_merge(paths, n, &o, &t);
	FUZZ_ERROR_SAYS_WHY(rc);
	if (rc == 0) {
		FUZZ_ASSERT(t.nversions == n);
		for (size_t i = 0; i < n; i++)
			FUZZ_ASSERT(t.labels[i] && t.descriptions[i]);
		show(&t);
		bv_table_free(&t);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_write(input, data, size);
	char *one[] = {input};
	char *two[] = {input, input};
	char *pair[] = {baseline, input};
	merge(one, 1, 0);
	merge(two, 2, 0);
	merge(pair, 2, size & 1);
	return 0;
}
