/* test_shard.c - the matrix cut into shards (plan.c, planner.c, shard.c): deterministic,
 * balanced, every cell in exactly one shard, more shards than cells; the
 * I/N parser; and the join of shard logs refusing what is not one plan. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "fs.h"
#include "json.h"
#include "merge.h"
#include "plan.h"
#include "planner.h"
#include "results.h"
#include "run_options.h"
#include "shard.h"
#include "table.h"
#include "tests.h"

/* A fixed pseudo-random sequence: the same costs on every run. */
static unsigned long long rng = 88172645463325252ull;
static long long next_cost(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (long long)(rng % 20000) + 1;
}

static void partition_is_deterministic(void **state)
{
	(void)state;
	long long cost[97];
	for (int k = 0; k < 97; k++)
		cost[k] = next_cost();
	int a[97], b[97];
	for (int count = 1; count <= 12; count++) {
		bv_shard_partition(cost, 97, count, a);
		bv_shard_partition(cost, 97, count, b);
		assert_memory_equal(a, b, sizeof(a));
	}
}

static void every_cell_is_in_exactly_one_shard(void **state)
{
	(void)state;
	long long cost[60];
	for (int k = 0; k < 60; k++)
		cost[k] = next_cost();
	for (int count = 1; count <= 70; count++) {
		int shard[60];
		memset(shard, 0xff, sizeof(shard));
		bv_shard_partition(cost, 60, count, shard);
		long long seen = 0;
		for (int k = 0; k < 60; k++) {
			assert_true(shard[k] >= 0 && shard[k] < count);
			seen += cost[k];
		}
		/* the loads add up to every cell once */
		long long sum = 0;
		for (int s = 0; s < count; s++)
			for (int k = 0; k < 60; k++)
				sum += shard[k] == s ? cost[k] : 0;
		assert_int_equal(sum, seen);
	}
}

/* Longest first onto the emptiest shard: no shard exceeds the mean load by
 * more than one cell (the greedy bound), and equal cells differ by at most
 * one cell between shards. */
static void partition_is_balanced(void **state)
{
	(void)state;
	long long cost[200], max = 0, total = 0;
	for (int k = 0; k < 200; k++) {
		cost[k] = next_cost();
		total += cost[k];
		max = cost[k] > max ? cost[k] : max;
	}
	for (int count = 2; count <= 16; count++) {
		int shard[200];
		long long load[16] = {0};
		bv_shard_partition(cost, 200, count, shard);
		for (int k = 0; k < 200; k++)
			load[shard[k]] += cost[k];
		for (int s = 0; s < count; s++)
			assert_true(load[s] * count <= total + (long long)count * max);
	}
	long long same[10];
	for (int k = 0; k < 10; k++)
		same[k] = 1000;
	int shard[10], per[3] = {0};
	bv_shard_partition(same, 10, 3, shard);
	for (int k = 0; k < 10; k++)
		per[shard[k]]++;
	assert_int_equal(per[0], 4);
	assert_int_equal(per[1], 3);
	assert_int_equal(per[2], 3);
	/* one long cell and many short ones: the long one alone */
	long long skew[7] = {1, 1, 1, 60, 1, 1, 1};
	int s7[7];
	bv_shard_partition(skew, 7, 2, s7);
	for (int k = 0; k < 7; k++)
		assert_int_equal(s7[k], k == 3 ? 0 : 1);
}

static void more_shards_than_cells_leaves_the_last_empty(void **state)
{
	(void)state;
	long long cost[3] = {5, 7, 6};
	int shard[3];
	bv_shard_partition(cost, 3, 5, shard);
	assert_int_equal(shard[1], 0); /* longest first, lowest shard */
	assert_int_equal(shard[2], 1);
	assert_int_equal(shard[0], 2);
	bv_shard_partition(cost, 0, 4, shard); /* no cells: nothing to do, no crash */
}

/* bv_plan_cells with --shard: the shards of the real matrix are disjoint,
 * cover it, and keep its order, whatever N. */
static void shards_of_the_registry_cover_the_matrix(void **state)
{
	(void)state;
	bv_measure_opts o;
	bv_measure_opts_init(&o);
	o.benches = "unary,binary";
	o.backends = "scalar,simd";
	assert_int_equal(bv_measure_opts_settle(&o), 0);
	bv_cell *all = NULL;
	char err[256];
	long n = bv_plan_cells(&o, &all, NULL, err, sizeof(err));
	assert_true(n > 20);
	for (int count = 1; count <= 9; count++) {
		int *hits = bv_xcalloc((size_t)n, sizeof(int));
		for (int i = 1; i <= count; i++) {
			bv_measure_opts s = o;
			s.shard_index = i, s.shard_count = count;
			bv_cell *mine = NULL;
			long *pos = NULL;
			long m = bv_plan_cells(&s, &mine, &pos, err, sizeof(err));
			assert_true(m >= 0);
			for (long k = 0; k < m; k++) {
				assert_true(pos[k] >= 0 && pos[k] < n);
				assert_true(k == 0 || pos[k] > pos[k - 1]); /* the plan's order */
				assert_ptr_equal(mine[k].op, all[pos[k]].op);
				hits[pos[k]]++;
			}
			free(mine), free(pos);
		}
		for (long k = 0; k < n; k++)
			assert_int_equal(hits[k], 1);
		free(hits);
	}
	/* The plan (bv_plan_build) agrees with bv_plan_cells on which cell is
	 * whose: shard 3/4's cells and positions are bv_plan_cells's for 3/4,
	 * every shard's are the whole matrix, and the cut is balanced. */
	bv_measure_opts s = o;
	s.shard_index = 3, s.shard_count = 4;
	bv_plan p;
	assert_int_equal(bv_plan_build(&s, NULL, 0, &p), 0);
	assert_int_equal(p.nall, n);
	assert_null(p.block); /* no versions: no plan block */
	bv_cell *mine = NULL;
	long *pos = NULL;
	long m = bv_plan_cells(&s, &mine, &pos, err, sizeof(err));
	assert_int_equal(p.ncells, m);
	for (long k = 0; k < m; k++) {
		assert_int_equal(p.pos[k], pos[k]);
		assert_ptr_equal(p.cells[k].op, mine[k].op);
		assert_int_equal(p.cells[k].size, mine[k].size);
	}
	long mine_in_all = 0;
	for (long k = 0; k < n; k++) {
		assert_int_equal(p.all_pos[k], k);
		mine_in_all += p.shard_of[k] == 2;
	}
	assert_int_equal(mine_in_all, m);
	long long longest = 0, sum = 0;
	for (int sh = 0; sh < 4; sh++) {
		sum += p.shard_ms[sh];
		longest = p.shard_ms[sh] > longest ? p.shard_ms[sh] : longest;
	}
	assert_true(longest * 4 <= sum * 5 / 4 + 4000); /* within a quarter of the mean, plus a cell */
	bv_plan_free(&p);
	free(mine), free(pos), free(all);
}

static void expected_time_grows_with_size_and_budget(void **state)
{
	(void)state;
	bv_measure_opts o;
	bv_measure_opts_init(&o);
	o.quick = 1;
	assert_int_equal(bv_measure_opts_settle(&o), 0);
	const bv_bench *b = bv_bench_find("unary");
	assert_non_null(b);
	bv_cell small = {b, &b->ops[0], "scalar", 1024}, big = {b, &b->ops[0], "scalar", 16u << 20};
	double s = bv_cell_expected_s(&small, &o), l = bv_cell_expected_s(&big, &o);
	assert_true(s > 0 && isfinite(s));
	assert_true(l > s);
	o.budget_s *= 2;
	assert_true(bv_cell_expected_s(&small, &o) > s);
}

static void shard_option_is_checked(void **state)
{
	(void)state;
	int i = 0, n = 0;
	assert_int_equal(bv_shard_parse("2/5", &i, &n), 0);
	assert_int_equal(i, 2);
	assert_int_equal(n, 5);
	assert_int_equal(bv_shard_parse("1/1", &i, &n), 0);
	const char *bad[] = {"0/3", "4/3", "x", "", "1/", "/3", "1/3x", " 1/3", "-1/3", "+1/3", "1/0", "1/-3",
			     "1//3", "1/3/", "0x1/3", "99999999999999999999/3", "1/10001", "3", "1.0/3", NULL};
	for (int k = 0; bad[k]; k++) {
		i = n = 77;
		assert_int_equal(bv_shard_parse(bad[k], &i, &n), BV_EINPUT);
		assert_int_equal(i, 77); /* nothing taken from a refused value */
		assert_non_null(strstr(bv_error_last(), "--shard"));
	}
	assert_int_equal(bv_shard_parse("4/3", &i, &n), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "I must be 1 to 3"));
}

/* ---- the join ------------------------------------------------------------ */

static const char *const join_cells[] = {"unary/abs/scalar/1K", "unary/relu/scalar/1K", "unary/neg/scalar/1K"};

/* A plan block for shard index/count, its id computed as run computes it;
 * tweak (or NULL) changes a field first. */
static cJSON *plan_for(int index, int count, const char *key_new, int quick)
{
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "id", "");
	cJSON_AddNumberToObject(p, "index", index);
	cJSON_AddNumberToObject(p, "count", count);
	cJSON *vs = cJSON_AddArrayToObject(p, "versions");
	const char *labels[] = {"base", "new"};
	for (int k = 0; k < 2; k++) {
		cJSON *v = cJSON_CreateObject();
		cJSON_AddStringToObject(v, "label", labels[k]);
		cJSON_AddStringToObject(v, "name", labels[k]);
		cJSON_AddStringToObject(v, "build_key", k ? key_new : "aaaa");
		cJSON_AddItemToArray(vs, v);
	}
	cJSON *cs = cJSON_AddArrayToObject(p, "cells");
	for (int k = 0; k < 3; k++)
		cJSON_AddItemToArray(cs, cJSON_CreateString(join_cells[k]));
	cJSON *m = cJSON_AddObjectToObject(p, "method");
	cJSON_AddBoolToObject(m, "quick", quick);
	char id[17];
	bv_plan_id(p, id);
	cJSON_ReplaceItemInObjectCaseSensitive(p, "id", cJSON_CreateString(id));
	return p;
}

/* root/sI: shard index/count's logs, holding the cells k with k % count ==
 * index - 1 (any cut will do for the join). */
static char *write_shard(const char *root, int index, int count, const char *key_new, int quick)
{
	char *dir = bv_asprintf("%s/s%d-%d-%s-%d", root, index, count, key_new, quick);
	assert_int_equal(bv_mkdir_p(dir), 0);
	const char *labels[] = {"base", "new"};
	for (int v = 0; v < 2; v++) {
		bv_buf cells = BV_BUF_INIT;
		int first = 1;
		for (int k = 0; k < 3; k++) {
			if (k % count != index - 1)
				continue;
			char b[32], o[32], be[32], sz[32];
			sscanf(join_cells[k], "%31[^/]/%31[^/]/%31[^/]/%31s", b, o, be, sz);
			bv_buf_printf(&cells,
				      "%s{\"bench\": \"%s\", \"op\": \"%s\", \"backend\": \"%s\", \"size\": 1024, "
				      "\"status\": \"ok\", \"median_ns\": %d, \"median_ns_ci_low\": %d, "
				      "\"median_ns_ci_high\": %d}",
				      first ? "" : ", ", b, o, be, 100 + k, 99 + k, 101 + k);
			first = 0;
		}
		cJSON *plan = plan_for(index, count, key_new, quick);
		char *ptext = cJSON_PrintUnformatted(plan);
		cJSON_Delete(plan);
		char *text = bv_asprintf(
		    "{\"schema\": \"bench-versions-results\", \"schema_version\": \"1.5\",\n"
		    " \"run\": {\"id\": \"run%d\", \"status\": \"complete\", \"baseline\": \"base\", \"versions\": "
		    "[\"base\", \"new\"]},\n"
		    " \"version\": {\"label\": \"%s\", \"kernel_version\": \"0.1.0\"},\n"
		    " \"machine\": {\"hostname\": \"node%d\", \"cpu\": \"cpu0\"},\n"
		    " \"method\": {\"mode\": \"paired\", \"threshold\": 0.01, \"processes_started\": 6},\n"
		    " \"shard\": %s,\n \"cells\": [%s]}\n",
		    index, labels[v], index, ptext, cells.s ? cells.s : "");
		char *name = bv_asprintf("%s.json", labels[v]);
		test_write(dir, name, text);
		free(name), free(text), free(ptext);
		bv_buf_free(&cells);
	}
	return dir;
}

static void join_gives_every_cell_once_in_plan_order(void **state)
{
	(void)state;
	char *root = test_tmpdir();
	char *d[3];
	for (int i = 0; i < 3; i++)
		d[i] = write_shard(root, 3 - i, 3, "bbbb", 1); /* given in any order */
	cJSON **docs = NULL;
	size_t n = 0;
	assert_int_equal(bv_shards_join(d, 3, &docs, &n), 0);
	assert_int_equal(n, 2);
	for (size_t v = 0; v < n; v++) {
		const cJSON *cells = bv_log_cells(docs[v]);
		assert_int_equal(cJSON_GetArraySize(cells), 3);
		for (int k = 0; k < 3; k++)
			assert_int_equal(strncmp(bv_json_str(cJSON_GetArrayItem(cells, k), "op"), join_cells[k] + 6, 3), 0);
		assert_non_null(strstr(bv_json_str(cJSON_GetObjectItemCaseSensitive(docs[v], "run"), "id"), "plan-"));
		cJSON_Delete(docs[v]);
	}
	free(docs);
	/* the table merges them as one run: paired, one family */
	bv_merge_opts mo = {-1, 0};
	bv_table t;
	assert_int_equal(bv_merge_shards(d, 3, &mo, &t), 0);
	assert_int_equal(t.nrows, 3);
	assert_int_equal(t.nversions, 2);
	assert_int_equal(t.between_runs, 0);
	bv_table_free(&t);
	for (int i = 0; i < 3; i++)
		free(d[i]);
	bv_rm_rf(root);
	free(root);
}

static void join_refuses_what_is_not_one_plan(void **state)
{
	(void)state;
	char *root = test_tmpdir();
	char *s1 = write_shard(root, 1, 3, "bbbb", 1), *s2 = write_shard(root, 2, 3, "bbbb", 1);
	char *s3 = write_shard(root, 3, 3, "bbbb", 1);
	cJSON **docs = NULL;
	size_t n = 0;
	/* missing */
	char *two[] = {s1, s3};
	assert_int_equal(bv_shards_join(two, 2, &docs, &n), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "shard 2/3 missing"));
	assert_null(docs);
	/* twice */
	char *dup[] = {s1, s2, s2, s3};
	assert_int_equal(bv_shards_join(dup, 4, &docs, &n), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "shard 2/3 given twice"));
	/* another build of one version */
	char *other = write_shard(root, 2, 3, "cccc", 1);
	char *foreign[] = {s1, other, s3};
	assert_int_equal(bv_shards_join(foreign, 3, &docs, &n), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "build key"));
	assert_non_null(strstr(bv_error_last(), "'new'"));
	/* another method */
	char *slow = write_shard(root, 2, 3, "bbbb", 0);
	char *method[] = {s1, slow, s3};
	assert_int_equal(bv_shards_join(method, 3, &docs, &n), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "quick"));
	/* another shard count */
	char *of2 = write_shard(root, 2, 2, "bbbb", 1);
	char *counts[] = {s1, of2};
	assert_int_equal(bv_shards_join(counts, 2, &docs, &n), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "shard count"));
	/* a log cut short */
	char *cut = bv_asprintf("%s/new.json", s2);
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(bv_read_file(cut, 1 << 20, &text, &len), 0);
	FILE *f = fopen(cut, "w");
	fwrite(text, 1, len / 2, f);
	fclose(f);
	char *all[] = {s1, s2, s3};
	assert_int_equal(bv_shards_join(all, 3, &docs, &n), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "new.json"));
	/* a shard block edited by hand: its id no longer matches */
	char *edited = strstr(text, "\"quick\":true");
	assert_non_null(edited);
	memcpy(edited, "\"quick\":1   ", 12);
	test_write(s2, "new.json", text);
	assert_int_equal(bv_shards_join(all, 3, &docs, &n), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "plan id"));
	/* not a shard at all */
	char *plain = bv_asprintf("%s/plain", root);
	assert_int_equal(bv_mkdir_p(plain), 0);
	test_write(plain, "base.json",
		   "{\"schema\": \"bench-versions-results\", \"schema_version\": \"1.4\", \"run\": {\"id\": \"r\"}, "
		   "\"version\": {\"label\": \"base\"}, \"cells\": []}");
	char *mixed[] = {s1, plain};
	assert_int_equal(bv_shards_join(mixed, 2, &docs, &n), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "no shard block"));
	assert_false(bv_path_is_shard(plain));
	assert_true(bv_path_is_shard(s1));
	free(text), free(cut), free(plain);
	free(s1), free(s2), free(s3), free(other), free(slow), free(of2);
	bv_rm_rf(root);
	free(root);
}

/* root/NAME holding base.json and new.json of one shard: plan (any shape,
 * serialised as given) and cells (a JSON list's inside) in each. */
static char *write_raw_shard(const char *root, const char *name, const char *plan, const char *cells)
{
	char *dir = bv_asprintf("%s/%s", root, name);
	assert_int_equal(bv_mkdir_p(dir), 0);
	const char *labels[] = {"base", "new"};
	for (int v = 0; v < 2; v++) {
		char *text = bv_asprintf(
		    "{\"schema\": \"bench-versions-results\", \"schema_version\": \"1.5\",\n"
		    " \"run\": {\"id\": \"%s\", \"baseline\": \"base\", \"versions\": [\"base\", \"new\"]},\n"
		    " \"version\": {\"label\": \"%s\"}, \"machine\": {\"cpu\": \"cpu0\"},\n"
		    " \"shard\": %s, \"cells\": [%s]}\n",
		    name, labels[v], plan, cells);
		char *file = bv_asprintf("%s.json", labels[v]);
		test_write(dir, file, text);
		free(file), free(text);
	}
	return dir;
}

static char *plan_text(cJSON *p, int fix_id)
{
	if (fix_id) {
		char id[17];
		bv_plan_id(p, id);
		cJSON_ReplaceItemInObjectCaseSensitive(p, "id", cJSON_CreateString(id));
	}
	char *t = cJSON_PrintUnformatted(p);
	cJSON_Delete(p);
	return t;
}

#define ABS_CELL                                                                                           \
	"{\"bench\": \"unary\", \"op\": \"abs\", \"backend\": \"scalar\", \"size\": 1024, \"status\": " \
	"\"ok\", \"median_ns\": 10, \"median_ns_ci_low\": 9, \"median_ns_ci_high\": 11}"
#define EXP_CELL                                                                                           \
	"{\"bench\": \"unary\", \"op\": \"exp\", \"backend\": \"scalar\", \"size\": 1024, \"status\": " \
	"\"ok\", \"median_ns\": 10, \"median_ns_ci_low\": 9, \"median_ns_ci_high\": 11}"

/* Shard blocks that are not what run writes: each refused, exit 2, with
 * the file and what is wrong, never a crash or a table. */
static void join_refuses_hostile_shard_blocks(void **state)
{
	(void)state;
	char *root = test_tmpdir();
	struct {
		const char *name, *field, *json; /* field replaced by json (NULL: removed) */
		int fix_id;
		const char *want;
	} cases[] = {
	    {"id", "id", "\"ABCDEFGHIJKLMNOP\"", 0, "not a plan id"},
	    {"idnum", "id", "7", 0, "not a plan id"},
	    {"index0", "index", "0", 1, "shard.index"},
	    {"index4", "index", "4", 1, "shard.index"},
	    {"indexfrac", "index", "1.5", 1, "shard.index"},
	    {"count0", "count", "0", 1, "shard.count"},
	    {"countbig", "count", "10001", 1, "shard.count"},
	    {"countstr", "count", "\"3\"", 1, "shard.count"},
	    {"novers", "versions", "[]", 1, "shard.versions"},
	    {"nokey", "versions", "[{\"label\": \"base\"}]", 1, "build_key"},
	    {"cellsnum", "cells", "[1, 2]", 1, "shard.cells[]"},
	    {"cellsobj", "cells", "{}", 1, "shard.cells"},
	    {"method", "method", "[]", 1, "shard.method"},
	    {"edited", "count", "2", 0, "does not match its plan id"},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		cJSON *p = plan_for(1, 3, "bbbb", 1);
		cJSON *x = cJSON_Parse(cases[k].json);
		assert_non_null(x);
		cJSON_ReplaceItemInObjectCaseSensitive(p, cases[k].field, x);
		char *text = plan_text(p, cases[k].fix_id);
		char *dir = write_raw_shard(root, cases[k].name, text, ABS_CELL);
		char *dirs[] = {dir};
		cJSON **docs = NULL;
		size_t n = 0;
		int rc = bv_shards_join(dirs, 1, &docs, &n);
		if (rc != BV_EINPUT || !strstr(bv_error_last(), cases[k].want))
			fail_msg("%s: rc %d, %s", cases[k].name, rc, bv_error_last());
		assert_non_null(strstr(bv_error_last(), "base.json"));
		free(text), free(dir);
	}
	/* a plan naming one cell twice, its id made to match */
	cJSON *p = plan_for(1, 1, "bbbb", 1);
	cJSON_ReplaceItemInObjectCaseSensitive(p, "cells",
					      cJSON_Parse("[\"unary/abs/scalar/1K\", \"unary/abs/scalar/1K\"]"));
	char *text = plan_text(p, 1);
	char *dir = write_raw_shard(root, "twice", text, ABS_CELL);
	char *one[] = {dir};
	cJSON **docs = NULL;
	size_t n = 0;
	assert_int_equal(bv_shards_join(one, 1, &docs, &n), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "twice"));
	free(text), free(dir);
	/* a cell that is not the plan's, and a plan cell no shard has */
	text = plan_text(plan_for(1, 1, "bbbb", 1), 1);
	dir = write_raw_shard(root, "foreign-cell", text, EXP_CELL);
	one[0] = dir;
	assert_int_equal(bv_shards_join(one, 1, &docs, &n), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "is not a cell of its plan"));
	free(dir);
	dir = write_raw_shard(root, "short", text, ABS_CELL);
	one[0] = dir;
	assert_int_equal(bv_shards_join(one, 1, &docs, &n), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "in no shard's log"));
	free(dir), free(text);
	/* the same cell in two shards */
	char *t1 = plan_text(plan_for(1, 2, "bbbb", 1), 1), *t2 = plan_text(plan_for(2, 2, "bbbb", 1), 1);
	char *a = write_raw_shard(root, "a", t1, ABS_CELL), *b = write_raw_shard(root, "b", t2, ABS_CELL);
	char *both[] = {a, b};
	assert_int_equal(bv_shards_join(both, 2, &docs, &n), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "is also in shard 1/2"));
	free(t1), free(t2), free(a), free(b);
	bv_rm_rf(root);
	free(root);
}

/* A label read from a shard's log becomes a file name in the joined run's
 * directory: only plain names pass (bv_shards_write and the Slurm driver
 * refuse the rest). */
static void labels_that_become_file_names_are_plain(void **state)
{
	(void)state;
	const char *ok[] = {"0.1.0", "main", "local", "h-shard", "a1b2c3d4e5f6", "v0.2.0_rc1"};
	const char *bad[] = {NULL, "", "../x", "a/b", ".hidden", "..", "x y", "tab\t", "\xe2\x80\xae"};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		assert_true(bv_label_is_file_name(ok[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(bv_label_is_file_name(bad[i]));
	char longest[252];
	memset(longest, 'a', 251), longest[251] = '\0';
	assert_false(bv_label_is_file_name(longest)); /* 251: no room for ".json" */
	longest[250] = '\0';
	assert_true(bv_label_is_file_name(longest));
}

int test_shard(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(partition_is_deterministic),
	    cmocka_unit_test(every_cell_is_in_exactly_one_shard),
	    cmocka_unit_test(partition_is_balanced),
	    cmocka_unit_test(more_shards_than_cells_leaves_the_last_empty),
	    cmocka_unit_test(shards_of_the_registry_cover_the_matrix),
	    cmocka_unit_test(expected_time_grows_with_size_and_budget),
	    cmocka_unit_test(shard_option_is_checked),
	    cmocka_unit_test(join_gives_every_cell_once_in_plan_order),
	    cmocka_unit_test(join_refuses_what_is_not_one_plan),
	    cmocka_unit_test(join_refuses_hostile_shard_blocks),
	    cmocka_unit_test(labels_that_become_file_names_are_plain),
	};
	return test_run_group("shards", tests, NULL, NULL);
}
