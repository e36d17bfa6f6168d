/* fuzz_results_log.c - results logs (the one loader, results.c; merge.c)
 * and everything that shows them (export_*.c): `compare` reads logs anyone
 * may hand it.  The input goes through the loader, whose promises are
 * checked on whatever it accepts (results.h: finite, positive, ordered
 * numbers, known statuses), then is merged alone, against itself and
 * against a valid baseline log, and each merged table goes through every
 * exporter. */
#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <string.h>

#include "export.h"
#include "fuzz.h"
#include "merge.h"
#include "results.h"
#include "status.h"
#include "table.h"

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

static int ordered(double lo, double est, double hi)
{
	return isfinite(lo) && isfinite(hi) && lo > 0 && lo <= est && est <= hi;
}

/* What the loader promises every reader about a log it accepted. */
static void load(void)
{
	cJSON *doc = (cJSON *)1;
	int rc = bv_log_load(input, &doc);
	FUZZ_ERROR_SAYS_WHY(rc);
	if (rc) {
		FUZZ_ASSERT(doc == NULL);
		return;
	}
	const cJSON *cell;
	cJSON_ArrayForEach(cell, bv_log_cells(doc))
	{
		bv_log_cell c;
		FUZZ_ASSERT(bv_log_cell_read(cell, &c) == 0);
		FUZZ_ASSERT(c.bench && c.op && c.backend && c.status >= BV_ST_OK && c.status <= BV_ST_LAST_LOGGED);
		if (c.status == BV_ST_OK)
			FUZZ_ASSERT(ordered(c.ci_low_ns, c.median_ns, c.ci_high_ns));
		if (c.has_change) {
			FUZZ_ASSERT(ordered(c.change.ci_low, c.change.ratio, c.change.ci_high));
			FUZZ_ASSERT(c.change.coverage <= 1);
			const cJSON *r;
			cJSON_ArrayForEach(r, c.change.process_ratios)
			FUZZ_ASSERT(cJSON_IsNumber(r) && isfinite(r->valuedouble) && r->valuedouble > 0);
		}
		double amounts[] = {c.gbps, c.gflops, c.pct_copy_bw, c.pct_peak_flops, c.host_bytes, c.device_bytes};
		for (size_t k = 0; k < sizeof(amounts) / sizeof(*amounts); k++)
			FUZZ_ASSERT(isfinite(amounts[k]) && amounts[k] >= 0);
	}
	cJSON_Delete(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_write(input, data, size);
	load();
	char *one[] = {input};
	char *two[] = {input, input};
	char *pair[] = {baseline, input};
	merge(one, 1, 0);
	merge(two, 2, 0);
	merge(pair, 2, size & 1);
	return 0;
}
