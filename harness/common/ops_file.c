/*
 * ops_file.c - reading and validating an ops file (ops_file.h):
 *
 *   { "schema_version": 1,
 *     "ops": [ { "name": "sin", "group": "unary", "function": "fm_bench_sin",
 *                "lo": -3.14159, "hi": 3.14159, "max_ulp": 4, "flops": 10,
 *                "reference": "sin(x)", "note": "why" }, ... ] }
 *
 * The file is the user's, and its function names go into generated C
 * (orchestrator/build/user_ops.c): every key is checked, unknown ones refused.
 */
#include "ops_file.h"
#include "benches.h"
#include "expr.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char loaded_hash[17];
static char *loaded_path;
/* The registered ops' own copies (their strings and exprs, which the
 * registry's copies point to), kept for bv_ops_file_reset. */
static bv_op_def *loaded_ops;
static size_t nloaded_ops;

const char *bv_ops_file_hash(void)
{
	return loaded_hash[0] ? loaded_hash : NULL;
}
const char *bv_ops_file_path(void)
{
	return loaded_path;
}

static const char *const groups[] = {"unary", "binary"};
static const char *const unary_vars[] = {"x"};
static const char *const binary_vars[] = {"a", "b"};

/* A C identifier, not one of the generated file's own names (bv_*). */
static int c_identifier(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 128 || (s[0] >= '0' && s[0] <= '9') || !strncmp(s, "bv_", 3))
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == n;
}

/* An op's name: what --ops lists name and the results log records. */
static int op_name_ok(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && n <= 48 && ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')) &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == n;
}

/* Where a message is about: "ops file F: op 'sin': " or "... ops[2]: ". */
static void where(char *buf, size_t len, const char *path, const char *name, size_t index)
{
	if (name)
		snprintf(buf, len, "ops file %s: op '%s'", path, name);
	else
		snprintf(buf, len, "ops file %s: ops[%zu]", path, index);
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

/* A number key: required or not (*v keeps its default), finite. */
static int number_key(const cJSON *op, const char *key, int required, double *v, const char *at, char *err,
                      size_t errlen)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(op, key);
	if (!j) {
		if (required)
			snprintf(err, errlen, "%s: key '%s' is missing (a number)", at, key);
		return required ? -1 : 0;
	}
	if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble)) {
		snprintf(err, errlen, "%s: key '%s' must be a finite number", at, key);
		return -1;
	}
	*v = j->valuedouble;
	return 0;
}

static int string_key(const cJSON *op, const char *key, int required, const char **v, const char *at,
                      char *err, size_t errlen)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(op, key);
	if (!j) {
		if (required)
			snprintf(err, errlen, "%s: key '%s' is missing (a string)", at, key);
		return required ? -1 : 0;
	}
	if (!cJSON_IsString(j)) {
		snprintf(err, errlen, "%s: key '%s' must be a string", at, key);
		return -1;
	}
	*v = j->valuestring;
	return 0;
}

static void free_ops(bv_op_def *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)ops[i].name);
		free((char *)ops[i].function);
		bv_expr_free((bv_expr *)ops[i].expr);
	}
	free(ops);
}

/* Every key of op is one an op may have, and none is given twice: 0, or
 * -1 with the first bad key in err. */
static int keys_known(const cJSON *op, const char *at, char *err, size_t errlen)
{
	static const char *const keys[] = {"name",  "group",     "function", "lo",  "hi", "max_ulp",
	                                   "flops", "reference", "note",     "tol", NULL};
	for (const cJSON *k = op->child; k; k = k->next) {
		size_t i;
		for (i = 0; keys[i] && strcmp(keys[i], k->string); i++)
			;
		if (!keys[i]) {
			snprintf(err, errlen,
			         "%s: unknown key '%.64s' (known: name, group, function, lo, hi, max_ulp, "
			         "flops, reference, note)",
			         at, k->string);
			return -1;
		}
	}
	const char *dup = duplicate_key(op);
	if (dup) {
		snprintf(err, errlen, "%s: key '%s' given twice", at, dup);
		return -1;
	}
	return 0;
}

/* An op's numbers in their ranges: the inputs' range [lo, hi) as floats,
 * a whole number of ulps, a flop count.  0, or -1 with why in err. */
static int numbers_ok(double lo, double hi, double ulp, double flops, const char *at, char *err, size_t errlen)
{
	if (fabs(lo) > FLT_MAX || fabs(hi) > FLT_MAX) {
		snprintf(err, errlen, "%s: keys 'lo', 'hi': the range must fit a float (|value| <= %g)", at,
		         (double)FLT_MAX);
		return -1;
	}
	if (!((float)lo < (float)hi)) {
		snprintf(err, errlen, "%s: keys 'lo', 'hi': lo (%g) must be below hi (%g), as floats", at, lo,
		         hi);
		return -1;
	}
	if (ulp < 0 || ulp > 1e9 || ulp != floor(ulp)) {
		snprintf(err, errlen, "%s: key 'max_ulp': %g is no whole number of ulps in [0, 1e9]", at,
		         ulp);
		return -1;
	}
	if (flops < 0 || flops > 1e9) {
		snprintf(err, errlen, "%s: key 'flops': %g is not in [0, 1e9]", at, flops);
		return -1;
	}
	return 0;
}

/* One op of the file into *d; its group's index into *group. */
static int parse_op(const char *path, const cJSON *op, size_t index, bv_op_def *d, int *group, char *err,
                    size_t errlen)
{
	char at[512];
	if (!cJSON_IsObject(op)) {
		where(at, sizeof(at), path, NULL, index);
		snprintf(err, errlen, "%s: must be an object", at);
		return -1;
	}
	const cJSON *jn = cJSON_GetObjectItemCaseSensitive(op, "name");
	const char *name = cJSON_IsString(jn) && op_name_ok(jn->valuestring) ? jn->valuestring : NULL;
	where(at, sizeof(at), path, name, index);
	if (keys_known(op, at, err, errlen))
		return -1;
	if (!jn || !cJSON_IsString(jn)) {
		snprintf(err, errlen, "%s: key 'name' %s", at,
		         jn ? "must be a string" : "is missing (a string)");
		return -1;
	}
	if (!name) {
		snprintf(err, errlen,
		         "%s: key 'name': '%.64s' is no op name (a letter, then letters, digits or _; "
		         "at most 48)",
		         at, jn->valuestring);
		return -1;
	}
	const char *grp = NULL, *fn = NULL, *ref = NULL, *note = NULL;
	if (string_key(op, "group", 1, &grp, at, err, errlen) ||
	    string_key(op, "function", 1, &fn, at, err, errlen) ||
	    string_key(op, "reference", 1, &ref, at, err, errlen) ||
	    string_key(op, "note", 0, &note, at, err, errlen))
		return -1;
	*group = -1;
	for (int g = 0; g < 2; g++)
		if (!strcmp(grp, groups[g]))
			*group = g;
	if (*group < 0) {
		snprintf(err, errlen,
		         "%s: key 'group': '%.64s' is not a group ops can be added to (unary, binary)", at,
		         grp);
		return -1;
	}
	if (cJSON_GetObjectItemCaseSensitive(op, "tol")) {
		snprintf(err, errlen, "%s: key 'tol': the %s group's check is max_ulp alone (remove 'tol')",
		         at, grp);
		return -1;
	}
	if (!c_identifier(fn)) {
		snprintf(err, errlen,
		         "%s: key 'function': '%.64s' is no C identifier (letters, digits, _, not "
		         "starting with a digit or bv_; at most 128)",
		         at, fn);
		return -1;
	}
	double lo = 0, hi = 0, ulp = 0, flops = 1;
	if (number_key(op, "lo", 1, &lo, at, err, errlen) || number_key(op, "hi", 1, &hi, at, err, errlen) ||
	    number_key(op, "max_ulp", 1, &ulp, at, err, errlen) ||
	    number_key(op, "flops", 0, &flops, at, err, errlen))
		return -1;
	if (numbers_ok(lo, hi, ulp, flops, at, err, errlen))
		return -1;
	char why[512];
	bv_expr *e =
	    bv_expr_compile(ref, *group ? binary_vars : unary_vars, *group ? 2 : 1, why, sizeof(why));
	if (!e) {
		snprintf(err, errlen, "%s: key 'reference': reference of op '%s' %s", at, name, why);
		return -1;
	}
	*d = (bv_op_def){0};
	d->name = strdup(name);
	d->function = strdup(fn);
	d->expr = e;
	d->kind = *group ? BV_K_BINARY : BV_K_UNARY;
	d->lo = (float)lo, d->hi = (float)hi;
	d->max_ulp = (unsigned)ulp;
	d->flops = flops;
	if (!d->name || !d->function) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* A NUL inside a string: cJSON decodes "\u0000" into one (and copies a NUL
 * byte), and every C reader of the string stops there, so the function
 * "fm_bench_my\u0000; ..." was fm_bench_my and the key "lo\u0000x" was lo.
 * Found in the text (cJSON keeps no string's length), with the key the
 * string is the value of and where it is.  0, or -1 with the message. */
static int nul_in_strings(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	const char *nul = memchr(text, '\0', len);
	if (nul) {
		snprintf(err, errlen, "ops file %s: holds a NUL byte at offset %zu: not JSON text", path,
		         (size_t)(nul - text));
		return -1;
	}
	const char *key = NULL; /* the last key's text, between its quotes */
	size_t keylen = 0, line = 1, line_start = 0;
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n')
			line++, line_start = i + 1;
		if (text[i] != '"')
			continue;
		size_t start = ++i, at = 0; /* at: 1 when the string holds \u0000 */
		size_t at_line = 0, at_col = 0;
		for (; i < len && text[i] != '"'; i++) {
			if (text[i] == '\n') /* no JSON, but cJSON takes it */
				line++, line_start = i + 1;
			if (text[i] == '\\' && i + 1 < len) {
				if (!at && text[i + 1] == 'u' && i + 5 < len && !memcmp(text + i + 2, "0000", 4))
					at = 1, at_line = line, at_col = i + 1 - line_start;
				i++; /* the escaped character: \\u0000 is a backslash, then text */
			}
		}
		size_t next = i + 1;
		while (next < len &&
		       (text[next] == ' ' || text[next] == '\t' || text[next] == '\r' || text[next] == '\n'))
			next++;
		int is_key = next < len && text[next] == ':';
		if (at) {
			if (is_key)
				snprintf(err, errlen,
				         "ops file %s: a key at line %zu, column %zu holds \\u0000 (a NUL character), "
				         "which would cut it short",
				         path, at_line, at_col);
			else {
				/* the key as written, if it is plain text (what the file says is shown, not obeyed) */
				int plain = key && keylen <= 64;
				for (size_t k = 0; plain && k < keylen; k++)
					plain = key[k] >= ' ' && key[k] <= '~' && key[k] != '\\';
				snprintf(err, errlen,
				         "ops file %s: key '%.*s' at line %zu, column %zu: its string holds \\u0000 "
				         "(a NUL character), which would cut it short",
				         path, plain ? (int)keylen : 1, plain ? key : "?", at_line, at_col);
			}
			return -1;
		}
		if (is_key)
			key = text + start, keylen = i - start;
	}
	return 0;
}

/* The document's top level: only schema_version (1) and ops (an array
 * of at most BV_OPS_MAX), each once.  0, or -1 with err set. */
static int check_top(const char *path, const cJSON *doc, char *err, size_t errlen)
{
	const char *dup = duplicate_key(doc);
	const cJSON *sv = cJSON_GetObjectItemCaseSensitive(doc, "schema_version");
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "ops");
	for (const cJSON *k = doc->child; k; k = k->next)
		if (strcmp(k->string, "schema_version") && strcmp(k->string, "ops")) {
			snprintf(err, errlen, "ops file %s: unknown key '%.64s' (known: schema_version, ops)",
			         path, k->string);
			return -1;
		}
	if (dup) {
		snprintf(err, errlen, "ops file %s: key '%s' given twice", path, dup);
		return -1;
	}
	if (!cJSON_IsNumber(sv) || sv->valuedouble != 1) {
		snprintf(err, errlen, "ops file %s: key 'schema_version' must be 1%s", path,
		         sv ? "" : " (it is missing)");
		return -1;
	}
	if (!cJSON_IsArray(list)) {
		snprintf(err, errlen, "ops file %s: key 'ops' must be an array of ops%s", path,
		         list ? "" : " (it is missing)");
		return -1;
	}
	size_t count = (size_t)cJSON_GetArraySize(list);
	if (count > BV_OPS_MAX) {
		snprintf(err, errlen, "ops file %s: key 'ops': %zu ops, at most %d", path, count, BV_OPS_MAX);
		return -1;
	}
	return 0;
}

/* Op n against the ones before it: one function, one signature (the
 * generated file declares it once), and one op of each name.  0, or -1
 * with err set. */
static int clashes_before(const char *path, const bv_op_def *ops, const int *group, size_t n, char *err,
			  size_t errlen)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ops[i].function, ops[n].function) && group[i] != group[n]) {
			snprintf(err, errlen,
			         "ops file %s: op '%s': key 'function': %s is op '%s''s function too, in "
			         "group %s (a unary and a binary function differ in signature)",
			         path, ops[n].name, ops[n].function, ops[i].name, groups[group[i]]);
			return -1;
		}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ops[i].name, ops[n].name)) {
			snprintf(err, errlen, "ops file %s: op '%s': key 'name': defined twice (ops[%zu] and ops[%zu])",
			         path, ops[n].name, i, n);
			return -1;
		}
	return 0;
}

/* The built-in ops of the group keep their names: a clash is the user's
 * to rename (bv_bench_add_ops refuses it too; checked first so nothing is
 * half registered). */
static int clashes_builtin(const char *path, const bv_op_def *ops, const int *group, size_t n, char *err,
			   size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		const bv_bench *b = bv_bench_find(groups[group[i]]);
		for (size_t o = 0; b && o < b->nops; o++)
			if (!strcmp(b->ops[o].name, ops[i].name)) {
				snprintf(err, errlen,
				         "ops file %s: op '%s': key 'name': the %s group has a built-in op of "
				         "that name (rename it)",
				         path, ops[i].name, groups[group[i]]);
				return -1;
			}
	}
	return 0;
}

/* The ops into their groups' registries (copies; their strings and
 * exprs live on). */
static int register_ops(const char *path, const bv_op_def *ops, const int *group, size_t n, char *err,
			size_t errlen)
{
	for (int g = 0; g < 2; g++) {
		bv_op_def mine[BV_OPS_MAX];
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (group[i] == g)
				mine[m++] = ops[i];
		char why[256];
		if (m && bv_bench_add_ops(groups[g], mine, m, why, sizeof(why))) {
			snprintf(err, errlen, "ops file %s: %s", path, why);
			return -1; /* not reached for the first group after the checks above */
		}
	}
	return 0;
}

int bv_ops_file_parse(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	if (loaded_hash[0]) {
		snprintf(err, errlen, "ops file %s: an ops file is loaded already (%s)", path, loaded_path);
		return -1;
	}
	cJSON *doc = cJSON_ParseWithLength(text, len);
	if (!doc || !cJSON_IsObject(doc)) {
		snprintf(err, errlen, "ops file %s: not a JSON object%s", path,
		         doc ? "" : " (a syntax error)");
		cJSON_Delete(doc);
		return -1;
	}
	if (nul_in_strings(path, text, len, err, errlen)) {
		cJSON_Delete(doc);
		return -1;
	}
	int rc = -1;
	bv_op_def *ops = NULL;
	int *group = NULL;
	size_t n = 0;
	if (check_top(path, doc, err, errlen))
		goto out;
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "ops");
	size_t count = (size_t)cJSON_GetArraySize(list);
	ops = calloc(count + 1, sizeof(*ops));
	group = calloc(count + 1, sizeof(*group));
	if (!ops || !group) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (const cJSON *op = list->child; op; op = op->next) {
		if (parse_op(path, op, n, &ops[n], &group[n], err, errlen)) {
			n += ops[n].name != NULL; /* freed below */
			goto out;
		}
		int clash = clashes_before(path, ops, group, n, err, errlen);
		n++;
		if (clash)
			goto out;
	}
	if (clashes_builtin(path, ops, group, n, err, errlen) ||
	    register_ops(path, ops, group, n, err, errlen))
		goto out;
	/* the registry holds copies; their strings and exprs live on, here,
	 * until bv_ops_file_reset */
	loaded_ops = ops, nloaded_ops = n;
	ops = NULL, n = 0;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
	snprintf(loaded_hash, sizeof(loaded_hash), "%016llx", (unsigned long long)h);
	free(loaded_path);
	loaded_path = strdup(path);
	rc = 0;
out:
	if (ops)
		free_ops(ops, n);
	free(group);
	cJSON_Delete(doc);
	return rc;
}

void bv_ops_file_reset(void)
{
	if (loaded_ops)
		free_ops(loaded_ops, nloaded_ops);
	loaded_ops = NULL, nloaded_ops = 0;
	free(loaded_path);
	loaded_path = NULL;
	loaded_hash[0] = '\0';
}

int bv_host_file_read(const char *what, const char *path, size_t max, char **text, size_t *len, char *err,
		      size_t errlen)
{
	*text = NULL, *len = 0;
	/* A regular file only, found without blocking: opening a FIFO waits for
	 * a writer, and BENCH_VERSIONS_OPS naming one hung every command.  (The
	 * orchestrator's bv_open_regular does the same; harness/ links nothing
	 * of the orchestrator, and bv-runner reads these files too.) */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s %s: cannot read it: %s", what, path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s %s: it is %s, not a regular file", what, path,
		         S_ISFIFO(st.st_mode)  ? "a FIFO"
		         : S_ISDIR(st.st_mode) ? "a directory"
		         : S_ISCHR(st.st_mode) ? "a character device"
		         : S_ISBLK(st.st_mode) ? "a block device"
		         : S_ISSOCK(st.st_mode) ? "a socket"
		                                : "not a plain file");
		close(fd);
		return -1;
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		snprintf(err, errlen, "%s %s: cannot read it: %s", what, path, strerror(errno));
		close(fd);
		return -1;
	}
	char *buf = malloc(max + 1);
	size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
	int bad = ferror(f);
	fclose(f);
	if (!buf)
		snprintf(err, errlen, "out of memory");
	else if (bad)
		snprintf(err, errlen, "%s %s: cannot read it", what, path);
	else if (n > max)
		snprintf(err, errlen, "%s %s: larger than %zu bytes", what, path, max);
	else {
		*text = buf, *len = n;
		return 0;
	}
	free(buf);
	return -1;
}

int bv_ops_file_load(const char *path, char *err, size_t errlen)
{
	char *text;
	size_t len;
	if (bv_host_file_read("ops file", path, BV_OPS_FILE_MAX, &text, &len, err, errlen))
		return -1;
	int rc = bv_ops_file_parse(path, text, len, err, errlen);
	free(text);
	return rc;
}
