/*
 * suite_file.c - a benchmark suite's description (suite_file.h):
 *
 *   {"schema": "bench-versions-suite/1", "suite": "mylib",
 *    "benchmarks": [
 *      {"name": "compress",
 *       "params": [{"name": "level", "values": ["1", "9"]},
 *                  {"name": "size", "values": ["64K", "1M"]}],
 *       "variant": null, "max_ulp": 0, "rel_tol": 0, "runs": true}]}
 *
 * validated against every limit of bv_suite.h, then registered as one group
 * of BV_K_SUITE ops (docs/suites-design.md, Cell identity): one op per
 * combination of a benchmark's other parameters (not "size", not the
 * variant), named compress[level=9]; the variant's values are the op's
 * backends ("default" without one), the size values its sizes (1 without).
 *
 * The text comes from plugins built out of the user's code (a suite's
 * names and values are compiled into them), so it is hostile input here
 * like an ops file: unknown and repeated keys are refused, every name and
 * value has its alphabet and length, every count its limit.
 */
#include "ops_file.h"
#include "suite_file.h"
#include "benches.h"
#include "bv_suite.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char loaded_hash[17];
static char *loaded_path, *loaded_suite;
/* The registered group as made here (what the registry's copy points to),
 * kept for bv_suite_file_reset. */
static bv_bench loaded_group;

const char *bv_suite_file_hash(void)
{
	return loaded_hash[0] ? loaded_hash : NULL;
}
const char *bv_suite_file_path(void)
{
	return loaded_path;
}
const char *bv_suite_file_suite(void)
{
	return loaded_suite;
}

/* A suite's, benchmark's or parameter's name: [a-z0-9_]+, at most 32. */
static int name_ok(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && n <= BV_SUITE_NAME_MAX && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

/* A parameter's value: [A-Za-z0-9_.+-]{1,32} (bv_suite.h). */
static int value_ok(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && n <= BV_SUITE_VALUE_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-") == n;
}

/* Duplicate keys would be silently ignored by cJSON (the first wins):
 * refused, as unknown ones are. */
static const char *duplicate_key(const cJSON *obj)
{
	for (const cJSON *a = obj->child; a; a = a->next)
		for (const cJSON *b = a->next; b; b = b->next)
			if (a->string && b->string && !strcmp(a->string, b->string))
				return a->string;
	return NULL;
}

/* A key of obj that is not in keys (NULL-terminated), or NULL. */
static const char *unknown_key(const cJSON *obj, const char *const *keys)
{
	for (const cJSON *k = obj->child; k; k = k->next) {
		size_t i;
		for (i = 0; keys[i] && strcmp(keys[i], k->string); i++)
			;
		if (!keys[i])
			return k->string;
	}
	return NULL;
}

/* Where a message is about: "suite file F: benchmark 'exp'" or, before the
 * name is known to be one, "... benchmarks[2]". */
static void where(char *buf, size_t len, const char *path, const char *name, size_t index)
{
	if (name)
		snprintf(buf, len, "suite file %s: benchmark '%s'", path, name);
	else
		snprintf(buf, len, "suite file %s: benchmarks[%zu]", path, index);
}

/* A tolerance key: absent (0), or a finite number in [0, 1e18]. */
static int tolerance_key(const cJSON *b, const char *key, const char *at, char *err, size_t errlen)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(b, key);
	if (!j)
		return 0;
	if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble) || j->valuedouble < 0 || j->valuedouble > 1e18) {
		snprintf(err, errlen, "%s: key '%s' must be a number in [0, 1e18]", at, key);
		return -1;
	}
	return 0;
}

/* One parameter of a benchmark: {"name": "level", "values": ["1", "9"]}. */
static int check_param(const char *at, const cJSON *p, size_t index, char *err, size_t errlen)
{
	static const char *const keys[] = {"name", "values", NULL};
	if (!cJSON_IsObject(p)) {
		snprintf(err, errlen, "%s: key 'params': params[%zu] must be an object {\"name\", \"values\"}", at,
			 index);
		return -1;
	}
	const char *bad = unknown_key(p, keys);
	if (bad) {
		snprintf(err, errlen, "%s: key 'params': params[%zu]: unknown key '%.64s' (known: name, values)", at,
			 index, bad);
		return -1;
	}
	if ((bad = duplicate_key(p))) {
		snprintf(err, errlen, "%s: key 'params': params[%zu]: key '%s' given twice", at, index, bad);
		return -1;
	}
	const cJSON *jn = cJSON_GetObjectItemCaseSensitive(p, "name");
	if (!cJSON_IsString(jn) || !name_ok(jn->valuestring)) {
		snprintf(err, errlen,
			 "%s: key 'params': params[%zu]: its name %s%.64s%s is no parameter name ([a-z0-9_], 1 to %d)",
			 at, index, cJSON_IsString(jn) ? "'" : "", cJSON_IsString(jn) ? jn->valuestring : "(missing)",
			 cJSON_IsString(jn) ? "'" : "", BV_SUITE_NAME_MAX);
		return -1;
	}
	const char *name = jn->valuestring;
	const cJSON *vs = cJSON_GetObjectItemCaseSensitive(p, "values");
	int n = cJSON_IsArray(vs) ? cJSON_GetArraySize(vs) : -1;
	if (n < 1 || n > BVS_MAX_VALUES) {
		char has[32] = " (not an array)";
		if (n >= 0)
			snprintf(has, sizeof(has), " (it has %d)", n);
		snprintf(err, errlen, "%s: key 'params': parameter '%s': its values must be an array of 1 to %d%s", at,
			 name, BVS_MAX_VALUES, has);
		return -1;
	}
	int is_size = !strcmp(name, "size");
	size_t sizes[BVS_MAX_VALUES];
	int k = 0;
	for (const cJSON *v = vs->child; v; v = v->next, k++) {
		if (!cJSON_IsString(v) || !value_ok(v->valuestring)) {
			snprintf(err, errlen,
				 "%s: key 'params': parameter '%s': value %s%.64s%s is no value ([A-Za-z0-9_.+-], 1 to %d)",
				 at, name, cJSON_IsString(v) ? "'" : "", cJSON_IsString(v) ? v->valuestring : "(not a string)",
				 cJSON_IsString(v) ? "'" : "", BV_SUITE_VALUE_MAX);
			return -1;
		}
		for (const cJSON *w = vs->child; w != v; w = w->next)
			if (!strcmp(w->valuestring, v->valuestring)) {
				snprintf(err, errlen, "%s: key 'params': parameter '%s': value '%s' given twice", at, name,
					 v->valuestring);
				return -1;
			}
		if (is_size) {
			sizes[k] = bv_size_parse(v->valuestring);
			if (!sizes[k]) {
				snprintf(err, errlen,
					 "%s: key 'params': parameter 'size': '%s' is no size (a count of elements: 4096, "
					 "4K, 1M; or a shape: 64x64, 256x256x256)",
					 at, v->valuestring);
				return -1;
			}
			/* 1K and 1024 are one cell (the size is a number) */
			for (int i = 0; i < k; i++)
				if (sizes[i] == sizes[k]) {
					const cJSON *w = cJSON_GetArrayItem(vs, i);
					snprintf(err, errlen,
						 "%s: key 'params': parameter 'size': '%s' and '%s' are the same size", at,
						 w->valuestring, v->valuestring);
					return -1;
				}
		}
	}
	return 0;
}

/* One benchmark: its keys, its parameters, their product, its variant. */
static int check_benchmark(const char *path, const cJSON *b, size_t index, char *err, size_t errlen)
{
	static const char *const keys[] = {"name", "params", "variant", "max_ulp", "rel_tol", "runs", NULL};
	char at[256];
	if (!cJSON_IsObject(b)) {
		where(at, sizeof(at), path, NULL, index);
		snprintf(err, errlen, "%s: must be an object", at);
		return -1;
	}
	const cJSON *jn = cJSON_GetObjectItemCaseSensitive(b, "name");
	const char *name = cJSON_IsString(jn) && name_ok(jn->valuestring) ? jn->valuestring : NULL;
	where(at, sizeof(at), path, name, index);
	const char *bad = unknown_key(b, keys);
	if (bad) {
		snprintf(err, errlen, "%s: unknown key '%.64s' (known: name, params, variant, max_ulp, rel_tol, runs)",
			 at, bad);
		return -1;
	}
	if ((bad = duplicate_key(b))) {
		snprintf(err, errlen, "%s: key '%s' given twice", at, bad);
		return -1;
	}
	if (!name) {
		snprintf(err, errlen, "%s: key 'name': %s%.64s%s is no benchmark name ([a-z0-9_], 1 to %d)", at,
			 cJSON_IsString(jn) ? "'" : "", cJSON_IsString(jn) ? jn->valuestring : "(missing or not a string)",
			 cJSON_IsString(jn) ? "'" : "", BV_SUITE_NAME_MAX);
		return -1;
	}
	const cJSON *ps = cJSON_GetObjectItemCaseSensitive(b, "params");
	if (!cJSON_IsArray(ps)) {
		snprintf(err, errlen, "%s: key 'params' must be an array of parameters%s", at,
			 ps ? "" : " (it is missing)");
		return -1;
	}
	int np = cJSON_GetArraySize(ps);
	if (np > BVS_MAX_PARAMS) {
		snprintf(err, errlen, "%s: key 'params': %d parameters, at most %d", at, np, BVS_MAX_PARAMS);
		return -1;
	}
	double cells = 1;
	size_t k = 0;
	for (const cJSON *p = ps->child; p; p = p->next, k++) {
		if (check_param(at, p, k, err, errlen))
			return -1;
		const char *pn = cJSON_GetObjectItemCaseSensitive(p, "name")->valuestring;
		for (const cJSON *q = ps->child; q != p; q = q->next)
			if (!strcmp(cJSON_GetObjectItemCaseSensitive(q, "name")->valuestring, pn)) {
				snprintf(err, errlen, "%s: key 'params': parameter '%s' declared twice", at, pn);
				return -1;
			}
		cells *= cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "values"));
	}
	if (cells > BVS_MAX_CELLS) {
		snprintf(err, errlen, "%s: key 'params': %.0f cells (the product of the values' counts), at most %d", at,
			 cells, BVS_MAX_CELLS);
		return -1;
	}
	const cJSON *jv = cJSON_GetObjectItemCaseSensitive(b, "variant");
	if (jv && !cJSON_IsNull(jv)) {
		const char *v = cJSON_IsString(jv) ? jv->valuestring : NULL;
		int declared = 0;
		for (const cJSON *p = ps->child; v && p; p = p->next)
			declared |= !strcmp(cJSON_GetObjectItemCaseSensitive(p, "name")->valuestring, v);
		if (!v || !declared || !strcmp(v, "size")) {
			snprintf(err, errlen,
				 "%s: key 'variant' must be null or the name of a declared parameter other than size%s%.64s%s",
				 at, v ? " (not '" : "", v ? v : "", v ? "')" : "");
			return -1;
		}
	}
	const cJSON *runs = cJSON_GetObjectItemCaseSensitive(b, "runs");
	if (runs && !cJSON_IsBool(runs)) {
		snprintf(err, errlen, "%s: key 'runs' must be true or false", at);
		return -1;
	}
	return tolerance_key(b, "max_ulp", at, err, errlen) || tolerance_key(b, "rel_tol", at, err, errlen) ? -1 : 0;
}

/* A description: the merged suite file needs one benchmark at least; one
 * version's may have none (min 0: a version before the suite's first
 * benchmark, every BVS_BENCHMARK compiled out of it; its cells are n/a). */
static int desc_check(const char *path, const cJSON *doc, int min, char *err, size_t errlen)
{
	static const char *const keys[] = {"schema", "suite", "benchmarks", NULL};
	if (!cJSON_IsObject(doc)) {
		snprintf(err, errlen, "suite file %s: not a JSON object", path);
		return -1;
	}
	const char *bad = unknown_key(doc, keys);
	if (bad) {
		snprintf(err, errlen, "suite file %s: unknown key '%.64s' (known: schema, suite, benchmarks)", path, bad);
		return -1;
	}
	if ((bad = duplicate_key(doc))) {
		snprintf(err, errlen, "suite file %s: key '%s' given twice", path, bad);
		return -1;
	}
	const cJSON *sc = cJSON_GetObjectItemCaseSensitive(doc, "schema");
	if (!cJSON_IsString(sc) || strcmp(sc->valuestring, BV_SUITE_SCHEMA)) {
		snprintf(err, errlen, "suite file %s: key 'schema' must be \"%s\"%s", path, BV_SUITE_SCHEMA,
			 sc ? "" : " (it is missing)");
		return -1;
	}
	const cJSON *su = cJSON_GetObjectItemCaseSensitive(doc, "suite");
	if (!cJSON_IsString(su) || !name_ok(su->valuestring)) {
		snprintf(err, errlen, "suite file %s: key 'suite': %s%.64s%s is no suite name ([a-z0-9_], 1 to %d)", path,
			 cJSON_IsString(su) ? "'" : "", cJSON_IsString(su) ? su->valuestring : "(missing or not a string)",
			 cJSON_IsString(su) ? "'" : "", BV_SUITE_NAME_MAX);
		return -1;
	}
	const cJSON *bs = cJSON_GetObjectItemCaseSensitive(doc, "benchmarks");
	if (!cJSON_IsArray(bs)) {
		snprintf(err, errlen, "suite file %s: key 'benchmarks' must be an array of benchmarks%s", path,
			 bs ? "" : " (it is missing)");
		return -1;
	}
	int nb = cJSON_GetArraySize(bs);
	if (nb < min || nb > BVS_MAX_BENCHMARKS) {
		snprintf(err, errlen, "suite file %s: key 'benchmarks': %d benchmarks, %d to %d", path, nb, min,
			 BVS_MAX_BENCHMARKS);
		return -1;
	}
	size_t k = 0;
	for (const cJSON *b = bs->child; b; b = b->next, k++) {
		if (check_benchmark(path, b, k, err, errlen))
			return -1;
		const char *name = cJSON_GetObjectItemCaseSensitive(b, "name")->valuestring;
		for (const cJSON *c = bs->child; c != b; c = c->next)
			if (!strcmp(cJSON_GetObjectItemCaseSensitive(c, "name")->valuestring, name)) {
				snprintf(err, errlen, "suite file %s: benchmark '%s': key 'name': declared twice", path, name);
				return -1;
			}
	}
	return 0;
}

/* ---- registering ------------------------------------------------------ */

/* A NULL-terminated list of copies of strs, or NULL when out of memory. */
static const char **strings(const char *const *strs, size_t n)
{
	const char **out = calloc(n + 1, sizeof(*out));
	for (size_t i = 0; out && i < n; i++)
		if (!(out[i] = strdup(strs[i])))
			return NULL; /* the process stops on this error: nothing to free */
	return out;
}

/* Appends to buf (of len) at *at, as snprintf does; 0, or -1 when it did
 * not fit. */
static int append(char *buf, size_t len, size_t *at, const char *a, const char *b, const char *c)
{
	int n = snprintf(buf + *at, len - *at, "%s%s%s", a, b, c);
	if (n < 0 || (size_t)n >= len - *at)
		return -1;
	*at += (size_t)n;
	return 0;
}

/* The ops of one benchmark (already checked), appended to ops[*nops]. */
static int register_benchmark(const cJSON *b, bv_op_def *ops, size_t *nops, const char **backends, size_t *nbe,
			      size_t *sizes, size_t *nsizes)
{
	const char *name = cJSON_GetObjectItemCaseSensitive(b, "name")->valuestring;
	const cJSON *jv = cJSON_GetObjectItemCaseSensitive(b, "variant");
	const char *variant = cJSON_IsString(jv) ? jv->valuestring : NULL;
	const cJSON *ps = cJSON_GetObjectItemCaseSensitive(b, "params");
	const cJSON *other[BVS_MAX_PARAMS], *vvals = NULL, *svals = NULL;
	int nother = 0;
	for (const cJSON *p = ps->child; p; p = p->next) {
		const char *pn = cJSON_GetObjectItemCaseSensitive(p, "name")->valuestring;
		const cJSON *vals = cJSON_GetObjectItemCaseSensitive(p, "values");
		if (!strcmp(pn, "size"))
			svals = vals;
		else if (variant && !strcmp(pn, variant))
			vvals = vals;
		else
			other[nother++] = p;
	}
	/* The op's backends and sizes, shared by its ops (and put into the
	 * group's unions). */
	const char *be[BVS_MAX_VALUES + 1];
	size_t nb = 0;
	for (const cJSON *v = vvals ? vvals->child : NULL; v; v = v->next)
		be[nb++] = v->valuestring;
	if (!vvals)
		be[nb++] = "default";
	const char **own_be = strings(be, nb);
	size_t *own_sizes = calloc(BVS_MAX_VALUES + 1, sizeof(size_t));
	const cJSON *ju = cJSON_GetObjectItemCaseSensitive(b, "max_ulp"), *jr = cJSON_GetObjectItemCaseSensitive(b, "rel_tol");
	if (!own_be || !own_sizes)
		return -1;
	size_t ns = 0;
	for (const cJSON *v = svals ? svals->child : NULL; v; v = v->next)
		own_sizes[ns++] = bv_size_parse(v->valuestring);
	if (!svals)
		own_sizes[ns++] = 1;
	for (size_t i = 0; i < nb; i++) {
		size_t j;
		for (j = 0; j < *nbe && strcmp(backends[j], own_be[i]); j++)
			;
		if (j == *nbe)
			backends[(*nbe)++] = own_be[i];
	}
	for (size_t i = 0; i < ns; i++) {
		size_t j;
		for (j = 0; j < *nsizes && sizes[j] != own_sizes[i]; j++)
			;
		if (j == *nsizes)
			sizes[(*nsizes)++] = own_sizes[i];
	}
	/* Every combination of the other parameters, the first one's values
	 * outermost, as declared (an odometer). */
	int at[BVS_MAX_PARAMS] = {0};
	for (;;) {
		char opname[1024], params[1024];
		size_t on = 0, pn = 0;
		if (append(opname, sizeof(opname), &on, name, "", ""))
			return -1;
		params[0] = '\0';
		for (int i = 0; i < nother; i++) {
			const char *key = cJSON_GetObjectItemCaseSensitive(other[i], "name")->valuestring;
			const char *val =
			    cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(other[i], "values"), at[i])->valuestring;
			if (append(opname, sizeof(opname), &on, "[", key, "=") ||
			    append(opname, sizeof(opname), &on, val, "]", "") ||
			    append(params, sizeof(params), &pn, i ? " " : "", key, "=") ||
			    append(params, sizeof(params), &pn, val, "", ""))
				return -1;
		}
		bv_suite_op *so = calloc(1, sizeof(*so));
		if (!so)
			return -1;
		*so = (bv_suite_op){strdup(name),
				    strdup(params),
				    variant ? strdup(variant) : NULL,
				    svals != NULL,
				    cJSON_IsNumber(ju) ? ju->valuedouble : 0,
				    cJSON_IsNumber(jr) ? jr->valuedouble : 0,
				    own_be,
				    own_sizes};
		bv_op_def *d = &ops[(*nops)++];
		*d = (bv_op_def){0};
		d->name = strdup(opname);
		d->kind = BV_K_SUITE;
		d->suite = so;
		if (!so->bench || !so->params || (variant && !so->variant) || !d->name)
			return -1;
		int i = nother - 1;
		for (; i >= 0; i--) {
			if (++at[i] < cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(other[i], "values")))
				break;
			at[i] = 0;
		}
		if (i < 0)
			return 0;
	}
}

/* A NUL inside a string: cJSON decodes "\u0000" into one, and every C
 * reader of the string stops there ("exp\u0000x" would be exp).  No name or
 * value may hold one, so any such escape is refused (its line said). */
static int nul_escape(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	const char *nul = memchr(text, '\0', len);
	if (nul) {
		snprintf(err, errlen, "suite file %s: holds a NUL byte at offset %zu: not JSON text", path,
			 (size_t)(nul - text));
		return -1;
	}
	size_t line = 1;
	for (size_t i = 0; i + 5 < len; i++) {
		line += text[i] == '\n';
		if (text[i] == '\\' && text[i + 1] == 'u' && !memcmp(text + i + 2, "0000", 4)) {
			snprintf(err, errlen, "suite file %s: line %zu holds \\u0000 (a NUL character), which no name or "
					      "value may hold",
				 path, line);
			return -1;
		}
		if (text[i] == '\\')
			i++; /* \\u0000 is a backslash, then text (refused as a name anyway) */
	}
	return 0;
}

static int file_parse(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	if (loaded_hash[0]) {
		snprintf(err, errlen, "suite file %s: a suite file is loaded already (%s)", path, loaded_path);
		return -1;
	}
	if (len > BV_SUITE_FILE_MAX) {
		snprintf(err, errlen, "suite file %s: larger than %u bytes", path, BV_SUITE_FILE_MAX);
		return -1;
	}
	if (nul_escape(path, text, len, err, errlen))
		return -1;
	cJSON *doc = cJSON_ParseWithLength(text, len);
	if (!doc || !cJSON_IsObject(doc)) {
		snprintf(err, errlen, "suite file %s: not a JSON object%s", path, doc ? "" : " (a syntax error)");
		cJSON_Delete(doc);
		return -1;
	}
	int rc = -1;
	if (desc_check(path, doc, 1, err, errlen))
		goto out;
	const char *suite = cJSON_GetObjectItemCaseSensitive(doc, "suite")->valuestring;
	if (bv_bench_find(suite)) {
		snprintf(err, errlen,
			 "suite file %s: key 'suite': '%s' is the name of a group of bench-versions' own (see: "
			 "bench-versions list benches); rename the suite",
			 path, suite);
		goto out;
	}
	/* Counted first: the ops of every benchmark are one array. */
	const cJSON *bs = cJSON_GetObjectItemCaseSensitive(doc, "benchmarks");
	size_t total = 0;
	for (const cJSON *b = bs->child; b; b = b->next) {
		size_t n = 1;
		for (const cJSON *p = cJSON_GetObjectItemCaseSensitive(b, "params")->child; p; p = p->next) {
			const char *pn = cJSON_GetObjectItemCaseSensitive(p, "name")->valuestring;
			const cJSON *jv = cJSON_GetObjectItemCaseSensitive(b, "variant");
			if (strcmp(pn, "size") && !(cJSON_IsString(jv) && !strcmp(jv->valuestring, pn)))
				n *= (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "values"));
		}
		total += n;
	}
	bv_op_def *ops = calloc(total, sizeof(*ops));
	const char **backends = calloc(BVS_MAX_BENCHMARKS * BVS_MAX_VALUES + 2, sizeof(*backends));
	size_t *sizes = calloc(BVS_MAX_BENCHMARKS * BVS_MAX_VALUES + 2, sizeof(*sizes));
	size_t nops = 0, nbe = 0, nsizes = 0;
	int bad = !ops || !backends || !sizes;
	for (const cJSON *b = bs->child; b && !bad; b = b->next)
		bad = register_benchmark(b, ops, &nops, backends, &nbe, sizes, &nsizes) != 0;
	bv_bench group = {strdup(suite), ops, nops, backends, sizes};
	char why[256];
	if (bad || !group.name) {
		/* Only memory runs out here (or a name past 1 KiB, which the
		 * limits rule out): what was made stays, the process is ending. */
		snprintf(err, errlen, "suite file %s: out of memory", path);
		goto out;
	}
	if (bv_bench_add_group(&group, why, sizeof(why))) {
		snprintf(err, errlen, "suite file %s: %s", path, why);
		goto out;
	}
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
	snprintf(loaded_hash, sizeof(loaded_hash), "%016llx", (unsigned long long)h);
	free(loaded_path);
	loaded_path = strdup(path);
	loaded_suite = (char *)group.name;
	loaded_group = group;
	rc = 0;
out:
	cJSON_Delete(doc);
	return rc;
}

void bv_suite_file_reset(void)
{
	const bv_bench *g = &loaded_group;
	const void *backends = NULL, *sizes = NULL; /* the previous op's */
	for (size_t i = 0; i < g->nops; i++) {
		const bv_suite_op *so = g->ops[i].suite;
		/* The ops of one benchmark (consecutive) share its backends and
		 * sizes: freed with its first op. */
		if (so->backends != backends) {
			for (size_t k = 0; so->backends[k]; k++)
				free((char *)so->backends[k]);
			free((void *)so->backends);
		}
		if (so->sizes != sizes)
			free((void *)so->sizes);
		backends = so->backends, sizes = so->sizes;
		free((char *)so->bench), free((char *)so->params), free((char *)so->variant);
		free((void *)so);
		free((char *)g->ops[i].name);
	}
	free((void *)g->ops), free((void *)g->backends), free((void *)g->sizes), free((char *)g->name);
	loaded_group = (bv_bench){0};
	free(loaded_path);
	loaded_path = loaded_suite = NULL;
	loaded_hash[0] = '\0';
}

int bv_suite_file_load(const char *path, char *err, size_t errlen)
{
	char *text;
	size_t len;
	if (bv_host_file_read("suite file", path, BV_SUITE_FILE_MAX, &text, &len, err, errlen))
		return -1;
	int rc = bv_suite_file_parse(path, text, len, err, errlen);
	free(text);
	return rc;
}

/* ---- merging the versions' descriptions ------------------------------- */

/* A benchmark's params as its declaration would write them, for a message:
 * "level=1,9 size=64K,1M" (what there is of it, for any input). */
static void params_text(const cJSON *b, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	const cJSON *ps = cJSON_GetObjectItemCaseSensitive(b, "params");
	for (const cJSON *p = cJSON_IsArray(ps) ? ps->child : NULL; p && at < len; p = p->next) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(p, "name"), *vs = cJSON_GetObjectItemCaseSensitive(p, "values");
		at += (size_t)snprintf(buf + at, len - at, "%s%.32s=", at ? " " : "", cJSON_IsString(n) ? n->valuestring : "?");
		for (const cJSON *v = cJSON_IsArray(vs) ? vs->child : NULL; v && at < len; v = v->next)
			at += (size_t)snprintf(buf + at, len - at, "%s%.32s", v == vs->child ? "" : ",",
					       cJSON_IsString(v) ? v->valuestring : "?");
	}
	if (!buf[0] && len > 6)
		snprintf(buf, len, "(none)");
}

/* A key's value as text for a message: a number, a string, null. */
static void value_text(const cJSON *j, char *buf, size_t len)
{
	if (cJSON_IsNumber(j))
		snprintf(buf, len, "%.17g", j->valuedouble);
	else if (cJSON_IsString(j))
		snprintf(buf, len, "'%.32s'", j->valuestring);
	else
		snprintf(buf, len, "%s", j && !cJSON_IsNull(j) ? "(not a value)" : "null");
}

/* A missing tolerance is 0, a missing variant null: a description that
 * leaves them out declares the same as one that writes them. */
static int same_key(const cJSON *a, const cJSON *b, const char *key)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, key), *y = cJSON_GetObjectItemCaseSensitive(b, key);
	if (!strcmp(key, "variant")) {
		if ((!x || cJSON_IsNull(x)) && (!y || cJSON_IsNull(y)))
			return 1;
		return x && y && cJSON_Compare(x, y, 1);
	}
	if (!strcmp(key, "params"))
		return x && y && cJSON_Compare(x, y, 1);
	double u = cJSON_IsNumber(x) ? x->valuedouble : 0, v = cJSON_IsNumber(y) ? y->valuedouble : 0;
	return (!x || cJSON_IsNumber(x)) && (!y || cJSON_IsNumber(y)) && u == v;
}

static int desc_merge(cJSON **into, const char *into_label, const cJSON *one, const char *one_label, char *err,
		      size_t errlen)
{
	const cJSON *bs = cJSON_GetObjectItemCaseSensitive(one, "benchmarks");
	const cJSON *su = cJSON_GetObjectItemCaseSensitive(one, "suite");
	if (!cJSON_IsObject(one) || !cJSON_IsArray(bs) || !cJSON_IsString(su)) {
		snprintf(err, errlen, "%s's suite description is not one (no suite name or no benchmarks)", one_label);
		return -1;
	}
	if (!*into) {
		*into = cJSON_Duplicate(one, 1);
		if (!*into) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		return 0;
	}
	const cJSON *isu = cJSON_GetObjectItemCaseSensitive(*into, "suite");
	if (!cJSON_IsString(isu) || strcmp(isu->valuestring, su->valuestring)) {
		snprintf(err, errlen, "the suite is '%.32s' in %s but '%.32s' in %s: one suite for every version", 
			 cJSON_IsString(isu) ? isu->valuestring : "?", into_label, su->valuestring, one_label);
		return -1;
	}
	/* On a copy: *into stays as it was when one does not fit. */
	cJSON *merged = cJSON_Duplicate(*into, 1);
	cJSON *mbs = merged ? cJSON_GetObjectItemCaseSensitive(merged, "benchmarks") : NULL;
	if (!merged || !cJSON_IsArray(mbs)) {
		snprintf(err, errlen, merged ? "%s's suite description has no benchmarks" : "out of memory", into_label);
		cJSON_Delete(merged);
		return -1;
	}
	for (const cJSON *b = bs->child; b; b = b->next) {
		const cJSON *jn = cJSON_GetObjectItemCaseSensitive(b, "name");
		if (!cJSON_IsString(jn)) {
			snprintf(err, errlen, "%s's suite description has a benchmark without a name", one_label);
			cJSON_Delete(merged);
			return -1;
		}
		cJSON *m = NULL;
		for (cJSON *c = mbs->child; c && !m; c = c->next) {
			const cJSON *cn = cJSON_GetObjectItemCaseSensitive(c, "name");
			if (cJSON_IsString(cn) && !strcmp(cn->valuestring, jn->valuestring))
				m = c;
		}
		if (!m) {
			cJSON *copy = cJSON_Duplicate(b, 1);
			if (!copy) {
				snprintf(err, errlen, "out of memory");
				cJSON_Delete(merged);
				return -1;
			}
			cJSON_AddItemToArray(mbs, copy);
			continue;
		}
		static const char *const keys[] = {"params", "variant", "max_ulp", "rel_tol"};
		for (int k = 0; k < 4; k++) {
			if (same_key(m, b, keys[k]))
				continue;
			char x[512], y[512];
			if (k == 0)
				params_text(m, x, sizeof(x)), params_text(b, y, sizeof(y));
			else
				value_text(cJSON_GetObjectItemCaseSensitive(m, keys[k]), x, sizeof(x)),
				    value_text(cJSON_GetObjectItemCaseSensitive(b, keys[k]), y, sizeof(y));
			snprintf(err, errlen,
				 "suite '%.32s': benchmark '%.32s' is declared differently in %s and %s: key '%s' (%s: %s; "
				 "%s: %s); declare it the same way in every version",
				 su->valuestring, jn->valuestring, into_label, one_label, keys[k], into_label, x, one_label,
				 y);
			cJSON_Delete(merged);
			return -1;
		}
		/* "runs" left out is true, as the loader reads it */
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(b, "runs");
		cJSON *mr = cJSON_GetObjectItemCaseSensitive(m, "runs");
		if ((!r || cJSON_IsTrue(r)) && mr && !cJSON_IsTrue(mr))
			cJSON_ReplaceItemInObjectCaseSensitive(m, "runs", cJSON_CreateTrue());
	}
	cJSON_Delete(*into);
	*into = merged;
	return 0;
}

/* ---- messages ----------------------------------------------------------- */

/* The messages quote what the file holds (an unknown key, a bad name), and
 * the file comes from a plugin built out of the user's code: a control
 * character in it is written \xNN, so a message cannot drive the terminal
 * it is printed on (found by tests/fuzz/fuzz_suite_desc.c). */
static int printable(int rc, char *err, size_t errlen)
{
	if (rc == 0 || !errlen)
		return rc;
	char out[1024];
	size_t o = 0;
	for (const unsigned char *c = (const unsigned char *)err; *c && o + 5 < sizeof(out); c++) {
		if ((*c < 0x20 && *c != '\n' && *c != '\t') || *c == 0x7f)
			o += (size_t)snprintf(out + o, sizeof(out) - o, "\\x%02x", *c);
		else
			out[o++] = (char)*c;
	}
	out[o] = '\0';
	snprintf(err, errlen, "%s", out);
	return rc;
}

int bv_suite_desc_check(const char *path, const cJSON *doc, char *err, size_t errlen)
{
	return printable(desc_check(path, doc, 0, err, errlen), err, errlen);
}

int bv_suite_file_parse(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	return printable(file_parse(path, text, len, err, errlen), err, errlen);
}

int bv_suite_desc_merge(cJSON **into, const char *into_label, const cJSON *one, const char *one_label, char *err,
			size_t errlen)
{
	return printable(desc_merge(into, into_label, one, one_label, err, errlen), err, errlen);
}
