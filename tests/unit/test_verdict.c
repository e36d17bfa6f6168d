/* test_verdict.c - the run-wide error control (verdict.c, stats.h): the sign
 * evidence is a real martingale, Benjamini-Hochberg picks what it should, and
 * a synthetic run of 300 null cells, some of which each cell's own interval
 * would call changed, gets no verdict other than `same` through the real
 * merge of real log files, while planted changes among them are still found. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "export.h"
#include "fs.h"
#include "merge.h"
#include "stats.h"
#include "table.h"
#include "tests.h"
#include "verdict.h"

/* Under "a sign beyond the edge has probability 1/2" the mixture's mean is
 * exactly 1 at every n: that is what makes 1 / its maximum a p-value. */
static void mixture_has_mean_one_under_the_null(void **state)
{
	(void)state;
	for (size_t n = 1; n <= 40; n += 3) {
		double mean = 0;
		for (size_t k = 0; k <= n; k++)
			mean += exp(lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) -
				    (double)n * log(2.0) + bv_sign_log_mixture(n, k));
		assert_true(fabs(mean - 1.0) < 1e-6);
	}
	/* and it grows with evidence: all beyond beats all but one */
	assert_true(bv_sign_log_mixture(12, 12) > bv_sign_log_mixture(12, 11));
}

static void sign_evidence_reads_the_signs_in_order(void **state)
{
	(void)state;
	double up[16], mixed[16];
	for (int i = 0; i < 16; i++)
		up[i] = 1.05 + 0.001 * i, mixed[i] = i % 2 ? 1.05 : 0.95;
	double p = bv_sign_evidence(up, 16, 1.01, +1);
	assert_true(p > 4e-5 && p < 7e-5); /* 16 of 16 beyond: about 5.4e-5 */
	assert_true(bv_sign_evidence(up, 16, 1 / 1.01, -1) == 1.0);
	assert_true(bv_sign_evidence(mixed, 16, 1.01, +1) > 0.5);
	/* six processes can never make a cell significant on their own at 5 %
	 * two-sided: the [min, max] interval of six is a 97 % one, the
	 * evidence is not */
	assert_true(2 * bv_sign_evidence(up, 6, 1.01, +1) > 0.05);
	/* non-finite ratios and ties carry no sign */
	double odd[4] = {NAN, 1.01, INFINITY, 1.2};
	assert_true(bv_sign_evidence(odd, 4, 1.01, +1) == bv_sign_evidence(odd + 3, 1, 1.01, +1));
	assert_true(bv_sign_evidence(NULL, 0, 1.01, +1) == 1.0);
}

static void bh_steps_up(void **state)
{
	(void)state;
	/* m = 5, q = 0.05: thresholds 0.01 0.02 0.03 0.04 0.05.  The third
	 * smallest (0.025) passes its 0.03, so the two below it are in too,
	 * although 0.015 alone would pass only its own 0.02. */
	double p[6] = {0.9, 0.015, 0.025, 0.001, 0.2, NAN};
	int d[6];
	assert_int_equal(bv_bh(p, 6, 0.05, d), 3);
	assert_int_equal(d[0], 0);
	assert_int_equal(d[1], 1);
	assert_int_equal(d[2], 1);
	assert_int_equal(d[3], 1);
	assert_int_equal(d[4], 0);
	assert_int_equal(d[5], 0);
	double none[3] = {0.2, 0.3, 0.04};
	assert_int_equal(bv_bh(none, 3, 0.05, d), 0);
}

/* ---- a synthetic run through the real merge ---------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double uniform(void)
{
	rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
	return (double)((rng * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
}

/* A per-process ratio on identical code, as these machines give them: most
 * processes near 1, some at another level (placement), an occasional wild
 * one; symmetric in log, as swapping the two names must be. */
static double null_ratio(void)
{
	double u = uniform(), x;
	if (u < 0.7)
		x = 0.004 * (uniform() - 0.5);
	else if (u < 0.95)
		x = (uniform() < 0.5 ? -1 : 1) * (0.01 + 0.03 * uniform());
	else
		x = (uniform() < 0.5 ? -1 : 1) * (0.1 + 0.5 * uniform());
	return exp(x);
}

/* A results log of run R1 (baseline "base", threshold 1 %) for label,
 * its cells array in *cells. */
static cJSON *log_doc(const char *label, cJSON **cells)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", "bench-versions-results");
	cJSON_AddStringToObject(doc, "schema_version", "1.3");
	cJSON *run = cJSON_AddObjectToObject(doc, "run");
	cJSON_AddStringToObject(run, "id", "R1");
	cJSON_AddStringToObject(run, "baseline", "base");
	cJSON *ver = cJSON_AddObjectToObject(doc, "version");
	cJSON_AddStringToObject(ver, "label", label);
	cJSON *m = cJSON_AddObjectToObject(doc, "machine");
	cJSON_AddStringToObject(m, "hostname", "h");
	cJSON_AddStringToObject(m, "cpu", "c");
	cJSON *meth = cJSON_AddObjectToObject(doc, "method");
	cJSON_AddStringToObject(meth, "mode", "paired");
	cJSON_AddNumberToObject(meth, "threshold", 0.01);
	*cells = cJSON_AddArrayToObject(doc, "cells");
	return doc;
}

/* Writes a baseline and a candidate log of ncells unary cells; cell c has
 * n[c] processes whose ratios are shift[c] times null ratios, except the
 * cells listed in `rigged` whose six ratios all lie above 1.02: the chance
 * 1/64 case that each cell's own [min, max] interval calls slower. */
static void write_run(const char *dir, size_t ncells, const int *n, const double *shift, const int *rigged)
{
	for (int v = 0; v < 2; v++) {
		cJSON *cells, *doc = log_doc(v ? "cand" : "base", &cells);
		for (size_t c = 0; c < ncells; c++) {
			cJSON *cell = cJSON_CreateObject();
			cJSON_AddStringToObject(cell, "bench", "unary");
			char op[32];
			snprintf(op, sizeof(op), "op%zu", c);
			cJSON_AddStringToObject(cell, "op", op);
			cJSON_AddStringToObject(cell, "backend", "scalar");
			cJSON_AddNumberToObject(cell, "size", 1024);
			cJSON_AddStringToObject(cell, "status", "ok");
			cJSON_AddNumberToObject(cell, "median_ns", 1000);
			cJSON_AddNumberToObject(cell, "median_ns_ci_low", 990);
			cJSON_AddNumberToObject(cell, "median_ns_ci_high", 1010);
			if (v) {
				double r[64];
				for (int k = 0; k < n[c]; k++)
					r[k] = rigged[c] ? 1.02 + 0.01 * uniform() : shift[c] * null_ratio();
				bv_interval iv;
				bv_median_interval(r, (size_t)n[c], 0.95, &iv);
				cJSON *ch = cJSON_AddObjectToObject(cell, "change");
				cJSON_AddStringToObject(ch, "baseline", "base");
				cJSON_AddStringToObject(ch, "mode", "paired");
				cJSON_AddNumberToObject(ch, "ratio", iv.est);
				cJSON_AddNumberToObject(ch, "ratio_ci_low", iv.lo);
				cJSON_AddNumberToObject(ch, "ratio_ci_high", iv.hi);
				cJSON_AddNumberToObject(ch, "coverage", iv.coverage);
				cJSON_AddNumberToObject(ch, "processes", n[c]);
				cJSON_AddItemToObject(ch, "process_ratios", cJSON_CreateDoubleArray(r, n[c]));
			}
			cJSON_AddItemToArray(cells, cell);
		}
		char *text = cJSON_Print(doc);
		test_write(dir, v ? "cand.json" : "base.json", text);
		free(text);
		cJSON_Delete(doc);
	}
}

enum { NCELLS = 300 };

static void merge_run(const char *dir, bv_table *t)
{
	char *paths[2] = {bv_asprintf("%s/base.json", dir), bv_asprintf("%s/cand.json", dir)};
	bv_merge_opts o = {-1, 0};
	assert_int_equal(bv_merge(paths, 2, &o, t), 0);
	free(paths[0]), free(paths[1]);
}

static int called(bv_verdict verdict) { return verdict == BV_SLOWER || verdict == BV_FASTER; }

/* changed: slower or faster; unsure: inconclusive, each of which must have
 * its estimate past the band (or no interval), and every held change must
 * be one of them. */
static void count(const bv_table *t, size_t *changed, size_t *held, size_t *per_cell, size_t *unsure)
{
	*changed = *held = *per_cell = *unsure = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		const bv_change *ch = &t->rows[r].changes[1];
		assert_true(ch->valid && ch->controlled);
		*changed += called(ch->verdict);
		*held += ch->held;
		int past = ch->ratio > 1 + t->threshold || ch->ratio < 1 / (1 + t->threshold) || ch->coverage < 0.95;
		assert_int_equal(ch->verdict == BV_INCONCLUSIVE, past && !called(ch->verdict));
		if (ch->held)
			assert_int_equal(ch->verdict, BV_INCONCLUSIVE);
		*unsure += ch->verdict == BV_INCONCLUSIVE;
		bv_interval iv = {ch->ratio, ch->ci_low, ch->ci_high, ch->coverage, (size_t)ch->processes};
		*per_cell += bv_verdict_of(&iv, t->threshold) != BV_SAME;
	}
}

static void three_hundred_null_cells_flip_no_verdict(void **state)
{
	(void)state;
	int n[NCELLS], rigged[NCELLS] = {0};
	double shift[NCELLS];
	size_t unsure_all = 0;
	for (int trial = 0; trial < 20; trial++) {
		char *dir = test_tmpdir();
		for (int c = 0; c < NCELLS; c++) {
			/* six per run: the bad luck a big run meets */
			rigged[c] = c % 50 == 7;
			n[c] = rigged[c] || c % 3 == 0 ? 6 : c % 3 == 1 ? 12 : 6 + (int)(uniform() * 55);
			shift[c] = 1.0;
		}
		write_run(dir, NCELLS, n, shift, rigged);
		bv_table t;
		merge_run(dir, &t);
		size_t changed, held, per_cell, unsure;
		count(&t, &changed, &held, &per_cell, &unsure);
		unsure_all += unsure;
		assert_int_equal(t.inconclusive, unsure);
		assert_int_equal(t.tested, NCELLS);
		assert_int_equal(changed, 0);
		assert_int_equal(t.called, 0);
		/* The control did something: each cell alone would have flipped. */
		assert_true(per_cell >= 6 && held == per_cell);
		assert_non_null(strstr(t.control, "300 comparisons"));
		assert_non_null(strstr(t.control, "no change called"));
		assert_false(bv_table_has_slower(&t));
		bv_table_free(&t);
		bv_rm_rf(dir);
		free(dir);
	}
	fprintf(stderr, "null cells inconclusive: %zu of %d (20 runs of %d)\n", unsure_all, 20 * NCELLS, NCELLS);
	/* No flood on identical code: the six rigged cells per run (held) and
	 * a few estimates past the band (220 of 6000 with this seed); calling
	 * every interval past both edges inconclusive would give 771 more. */
	assert_true(unsure_all >= 20 * 6 && unsure_all <= 20 * 16);
}

static void planted_changes_among_null_cells_are_found(void **state)
{
	(void)state;
	int n[NCELLS], rigged[NCELLS] = {0};
	double shift[NCELLS];
	char *dir = test_tmpdir();
	for (int c = 0; c < NCELLS; c++) {
		/* 30 cells 5 % slower with the processes adaptive sampling gives
		 * a cell that looks changed (quick: up to 24); the rest null. */
		int planted = c % 10 == 3;
		n[c] = planted ? 24 : c % 2 ? 6 : 12;
		shift[c] = planted ? 1.05 : 1.0;
	}
	write_run(dir, NCELLS, n, shift, rigged);
	bv_table t;
	merge_run(dir, &t);
	size_t found = 0, false_calls = 0;
	for (size_t r = 0; r < t.nrows; r++) {
		int planted = r % 10 == 3;
		bv_verdict v = t.rows[r].changes[1].verdict;
		found += planted && v == BV_SLOWER;
		false_calls += !planted && called(v);
	}
	/* a planted cell misses only when several of its 24 processes landed
	 * on a wild level below 1.01: rare, not never */
	assert_true(found >= 27);
	assert_int_equal(false_calls, 0);
	assert_int_equal(t.called, found);
	assert_non_null(strstr(t.control, "changes called"));
	assert_true(bv_table_has_slower(&t));
	bv_table_free(&t);
	bv_rm_rf(dir);
	free(dir);
}

/* ---- the machine changed under a cell --------------------------------- */

/* One change whose processes had ratios r[] and probe bandwidths gbps[]
 * (compute steady), as a log's change block. */
static cJSON *state_cell(const char *op, const double *r, const double *gbps, const int *running, int n)
{
	cJSON *cell = cJSON_CreateObject();
	cJSON_AddStringToObject(cell, "bench", "softmax");
	cJSON_AddStringToObject(cell, "op", op);
	cJSON_AddStringToObject(cell, "backend", "simd");
	cJSON_AddNumberToObject(cell, "size", 1024);
	cJSON_AddStringToObject(cell, "status", "ok");
	cJSON_AddNumberToObject(cell, "median_ns", 1000);
	cJSON_AddNumberToObject(cell, "median_ns_ci_low", 990);
	cJSON_AddNumberToObject(cell, "median_ns_ci_high", 1010);
	bv_interval iv;
	bv_median_interval(r, (size_t)n, 0.95, &iv);
	cJSON *ch = cJSON_AddObjectToObject(cell, "change");
	cJSON_AddStringToObject(ch, "baseline", "base");
	cJSON_AddStringToObject(ch, "mode", "paired");
	cJSON_AddNumberToObject(ch, "ratio", iv.est);
	cJSON_AddNumberToObject(ch, "ratio_ci_low", iv.lo);
	cJSON_AddNumberToObject(ch, "ratio_ci_high", iv.hi);
	cJSON_AddNumberToObject(ch, "coverage", iv.coverage);
	cJSON_AddNumberToObject(ch, "processes", n);
	cJSON_AddItemToObject(ch, "process_ratios", cJSON_CreateDoubleArray(r, n));
	cJSON *states = cJSON_AddArrayToObject(ch, "process_state");
	for (int k = 0; k < n; k++) {
		cJSON *st = cJSON_CreateObject();
		double g[2] = {gbps[k], gbps[k] * 1.02}, c[2] = {1.0, 1.01};
		cJSON_AddItemToObject(st, "probe_gbps", cJSON_CreateDoubleArray(g, 2));
		cJSON_AddItemToObject(st, "probe_compute_ns", cJSON_CreateDoubleArray(c, 2));
		if (running) {
			int w[2] = {running[k], running[k]};
			cJSON_AddItemToObject(st, "running", cJSON_CreateIntArray(w, 2));
		}
		cJSON_AddItemToArray(states, st);
	}
	return cell;
}

static void a_ratio_that_follows_the_machine_is_never_a_confident_verdict(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	/* The case: one process on a quiet machine at 0.79, then eight
	 * while another job took the memory bandwidth, tight at 1.39. */
	double r1[9] = {0.792, 1.378, 1.39, 1.365, 1.415, 1.406, 1.449, 1.392, 1.386};
	double g1[9] = {40, 21, 20, 22, 19, 21, 20, 22, 21};
	/* Eight quiet processes at 0.68, three disturbed at 1.3: judged on the eight. */
	double r2[11] = {0.68, 0.67, 1.31, 0.69, 0.68, 1.29, 0.67, 0.68, 1.30, 0.69, 0.68};
	double g2[11] = {41, 40, 20, 42, 40, 21, 39, 41, 19, 40, 42};
	/* Disturbed processes at the same level: nothing to set aside. */
	double r3[8] = {1.0, 1.001, 0.999, 1.0, 1.002, 0.998, 1.0, 1.001};
	double g3[8] = {40, 20, 41, 21, 40, 42, 20, 41};
	/* tests/e2e/test_contention.sh, one run: a copy loop on the measuring
	 * CPU from the 12th process to the 24th, seen only in the runnable
	 * tasks (the probes read as quiet), one process at each end measured
	 * partly beside it. */
	double r4[24] = {2.679, 2.618, 2.749, 2.792, 2.639, 2.659, 2.756, 2.897, 2.702, 2.818, 2.917, 4.921,
			 4.539, 4.628, 4.635, 4.592, 4.528, 4.674, 4.686, 4.742, 4.625, 4.628, 4.624, 2.971};
	double g4[24];
	int n4[24];
	for (int k = 0; k < 24; k++)
		g4[k] = 40, n4[k] = k < 12 ? 1 : 2; /* bandwidth as usual */
	for (int v = 0; v < 2; v++) {
		cJSON *cells, *doc = log_doc(v ? "cand" : "base", &cells);
		cJSON *c1 = state_cell("softmax", r1, g1, NULL, 9), *c2 = state_cell("log_softmax", r2, g2, NULL, 11),
		      *c3 = state_cell("other", r3, g3, NULL, 8), *c4 = state_cell("shared_cpu", r4, g4, n4, 24);
		if (!v) /* the baseline's cells carry no change */
			cJSON_DeleteItemFromObject(c1, "change"), cJSON_DeleteItemFromObject(c2, "change"),
			    cJSON_DeleteItemFromObject(c3, "change"), cJSON_DeleteItemFromObject(c4, "change");
		cJSON_AddItemToArray(cells, c1), cJSON_AddItemToArray(cells, c2), cJSON_AddItemToArray(cells, c3);
		cJSON_AddItemToArray(cells, c4);
		char *text = cJSON_Print(doc);
		test_write(dir, v ? "cand.json" : "base.json", text);
		free(text);
		cJSON_Delete(doc);
	}
	bv_table t;
	merge_run(dir, &t);
	const bv_change *a = &t.rows[0].changes[1], *b = &t.rows[1].changes[1], *c = &t.rows[2].changes[1];
	/* without the split, the first would be slower 1.39 with a tight interval */
	assert_true(a->state_dependent && a->unstable);
	assert_int_equal(a->verdict, BV_UNSTABLE);
	assert_int_equal(a->n_usual, 1);
	assert_int_equal(a->n_disturbed, 8);
	assert_true(fabs(a->level_usual - 0.792) < 1e-9 && fabs(a->level_disturbed - 1.391) < 1e-9);
	for (size_t r = 0; r < 3; r++) /* the fourth is slower in truth */
		assert_int_not_equal(t.rows[r].changes[1].verdict, BV_SLOWER);
	/* the second: judged on its eight usual processes, faster */
	assert_true(b->state_dependent && !b->unstable);
	assert_int_equal(b->n_usual, 8);
	assert_true(b->ratio < 0.7 && b->ci_high < 0.7);
	assert_int_equal(b->verdict, BV_FASTER);
	/* the third: same, nothing set aside */
	assert_false(c->state_dependent);
	assert_int_equal(c->verdict, BV_SAME);
	/* the fourth: the runnable tasks mark the twelve beside the copy loop;
	 * one process at each end on the wrong side does not hide the split;
	 * judged on the twelve before it (median 2.75, not the blend's 3.7) */
	const bv_change *d = &t.rows[3].changes[1];
	assert_string_equal(t.rows[3].op, "shared_cpu");
	assert_true(d->state_dependent && !d->unstable);
	assert_int_equal(d->n_usual, 12);
	assert_int_equal(d->n_disturbed, 12);
	assert_true(d->ratio > 2.6 && d->ratio < 2.9);
	assert_int_equal(d->verdict, BV_SLOWER);
	assert_int_equal(t.unstable, 1);
	assert_non_null(strstr(t.control, "1 cell unstable (the machine changed under it: not judged)"));
	char q[128];
	bv_format_qualifiers(&t, a, q, sizeof(q));
	assert_string_equal(q, " (usual 0.792 x1, disturbed 1.391 x8)");
	bv_table_free(&t);
	bv_rm_rf(dir);
	free(dir);
}

/* ---- same only when the data show it ------------------------------------ */

static char *exported(const bv_table *t, int (*write)(const bv_table *, FILE *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(write(t, f), 0);
	fclose(f);
	return text;
}

static void an_estimate_past_the_band_that_is_not_called_is_inconclusive(void **state)
{
	(void)state;
	char *dir = test_tmpdir();
	double g[16];
	for (int k = 0; k < 16; k++)
		g[k] = 40; /* a steady machine: nothing set aside */
	/* A loaded machine, per-process ratios 0.3 to 5.4,
	 * median 3.24: its interval holds 1, so it is not called, and it is
	 * not `same` either. */
	double wild[7] = {0.3, 3.241, 0.982, 3.295, 5.4, 3.1, 3.25};
	/* In the band with a tight interval: same. */
	double same[8] = {1.0, 1.001, 0.999, 1.0, 1.002, 0.998, 1.0, 1.001};
	/* Sixteen processes all 10 % slower: a controlled change. */
	double slow[16];
	for (int k = 0; k < 16; k++)
		slow[k] = 1.10 + 0.001 * k;
	/* One process: an estimate and no interval. */
	double one[1] = {0.992};
	/* The estimate in the band, the interval past both edges: the common
	 * case of identical code on a loaded machine, kept `same, noisy`. */
	double wide[6] = {0.8, 0.999, 1.0, 1.0, 1.001, 1.25};
	for (int v = 0; v < 2; v++) {
		cJSON *cells, *doc = log_doc(v ? "cand" : "base", &cells);
		cJSON *c[5] = {state_cell("wild", wild, g, NULL, 7), state_cell("same", same, g, NULL, 8),
			       state_cell("slow", slow, g, NULL, 16), state_cell("one", one, g, NULL, 1),
			       state_cell("wide", wide, g, NULL, 6)};
		for (int k = 0; k < 5; k++) {
			if (!v)
				cJSON_DeleteItemFromObject(c[k], "change");
			cJSON_AddItemToArray(cells, c[k]);
		}
		char *text = cJSON_Print(doc);
		test_write(dir, v ? "cand.json" : "base.json", text);
		free(text);
		cJSON_Delete(doc);
	}
	bv_table t;
	merge_run(dir, &t);
	const char *want[5] = {"inconclusive", "same", "slower", "inconclusive", "same"};
	for (size_t r = 0; r < 5; r++)
		assert_string_equal(bv_verdict_name(t.rows[r].changes[1].verdict), want[r]);
	assert_false(t.rows[1].changes[1].noisy);
	assert_true(t.rows[4].changes[1].noisy);
	assert_int_equal(t.inconclusive, 2);
	assert_non_null(strstr(t.control, "; 2 inconclusive"));
	/* The table: the verdict, no "noisy" repeated, no one-point interval,
	 * and the time columns say which statistic they are. */
	char *table = exported(&t, bv_export_table);
	assert_non_null(strstr(table, "3.241 [0.300, 5.400] inconclusive\n"));
	assert_non_null(strstr(table, "0.992 [no 95% interval: 1 process] inconclusive\n"));
	assert_null(strstr(table, "[0.992, 0.992]"));
	assert_non_null(strstr(table, "1.000 [0.800, 1.250] same, noisy\n"));
	assert_non_null(strstr(table, "times = each version's own median"));
	free(table);
	/* JSON: the verdict, and null bounds without an interval. */
	char *json = exported(&t, bv_export_json);
	cJSON *doc = cJSON_Parse(json);
	assert_non_null(doc);
	assert_string_equal(cJSON_GetObjectItem(doc, "schema_version")->valuestring, "1.8");
	const cJSON *rows = cJSON_GetObjectItem(doc, "rows");
	const cJSON *w = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "changes"), 0);
	const cJSON *o = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 3), "changes"), 0);
	assert_string_equal(cJSON_GetObjectItem(w, "verdict")->valuestring, "inconclusive");
	assert_string_equal(cJSON_GetObjectItem(o, "verdict")->valuestring, "inconclusive");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "ci_low")) && cJSON_IsNull(cJSON_GetObjectItem(o, "ci_high")));
	assert_true(cJSON_IsNumber(cJSON_GetObjectItem(w, "ci_low")));
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "error_control"), "inconclusive")->valueint, 2);
	cJSON_Delete(doc);
	free(json);
	/* --fail-on-slower: the slower cell fails it, inconclusive ones do not. */
	assert_true(bv_table_has_slower(&t));
	regex_t re;
	assert_int_equal(bv_filter_compile("/(wild|one)/", &re), 0);
	bv_table_filter(&t, &re);
	regfree(&re);
	assert_int_equal(t.nrows, 2);
	assert_false(bv_table_has_slower(&t));
	bv_table_free(&t);
	bv_rm_rf(dir);
	free(dir);
}

/* A cell that would end `inconclusive` (estimate or interval past the band,
 * evidence short) may spend three budgets; one inside the band, or already
 * called, one. */
static void a_cell_that_looks_changed_gets_more_budget(void **state)
{
	(void)state;
	double t = 0.01;
	/* The loaded 16M case: 1.02 [0.986, 1.113], not called. */
	assert_int_equal(bv_budget_scale(1.02, 0.986, 1.113, t, 0), 3);
	assert_int_equal(bv_budget_scale(0.97, 0.90, 1.004, t, 0), 3);
	/* Interval wholly past the band, evidence short. */
	assert_int_equal(bv_budget_scale(1.03, 1.02, 1.05, t, 0), 3);
	/* Evidence there: the cell is decided, no more budget. */
	assert_int_equal(bv_budget_scale(1.03, 1.02, 1.05, t, 1), 1);
	/* Estimate inside the band, however wide the interval. */
	assert_int_equal(bv_budget_scale(1.009, 0.95, 1.08, t, 0), 1);
	assert_int_equal(bv_budget_scale(1.0 / 1.0099, 0.95, 1.08, t, 0), 1);
	/* The edge itself is inside. */
	assert_int_equal(bv_budget_scale(1.01, 0.99, 1.03, t, 0), 1);
	/* A smaller threshold moves the edge. */
	assert_int_equal(bv_budget_scale(1.007, 0.99, 1.03, 0.005, 0), 3);
}

int test_verdict(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mixture_has_mean_one_under_the_null),
		cmocka_unit_test(sign_evidence_reads_the_signs_in_order),
		cmocka_unit_test(bh_steps_up),
		cmocka_unit_test(three_hundred_null_cells_flip_no_verdict),
		cmocka_unit_test(planted_changes_among_null_cells_are_found),
		cmocka_unit_test(a_ratio_that_follows_the_machine_is_never_a_confident_verdict),
		cmocka_unit_test(an_estimate_past_the_band_that_is_not_called_is_inconclusive),
		cmocka_unit_test(a_cell_that_looks_changed_gets_more_budget),
	};
	return test_run_group("verdict", tests, NULL, NULL);
}
