/* json.c - cJSON with file names and positions in every error, and no key
 * twice in one object. */
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "fs.h"

int bv_json_load(const char *path, size_t max, cJSON **out)
{
	*out = NULL;
	char *text;
	size_t len;
	int rc = bv_read_file(path, max, &text, &len);
	if (rc)
		return rc;
	rc = bv_json_parse(path, text, len, out);
	free(text);
	return rc;
}

/* How deeply nested the text is at `at` (strings skipped), to tell a
 * document past cJSON's nesting limit from a malformed one. */
static size_t depth_at(const char *text, const char *at)
{
	size_t depth = 0;
	int in_string = 0;
	for (const char *p = text; p < at; p++) {
		if (in_string) {
			if (*p == '\\' && p + 1 < at)
				p++;
			else if (*p == '"')
				in_string = 0;
		} else if (*p == '"')
			in_string = 1;
		else if (*p == '[' || *p == '{')
			depth++;
		else if ((*p == ']' || *p == '}') && depth)
			depth--;
	}
	return depth;
}

/* cJSON stops just inside a string that never closes: the text was cut
 * short there (or lost a quote). */
static int open_string_to_end(const char *text, const char *at, const char *end)
{
	if (at <= text || at > end || at[-1] != '"')
		return 0;
	for (const char *p = at; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return 0;
	}
	return 1;
}

/* ---- duplicate keys ------------------------------------------------------
 * cJSON keeps every member of an object and its lookups find the first, so a
 * second "releases" in an index, "rules" in compat.json or "ratio" in a log
 * would be silently ignored here while another JSON reader (Python's, jq)
 * takes the last: two programs would read two different files.  A key twice
 * in one object is refused, with where both are. */

typedef struct member_ref {
	const char *key;
	size_t index;
} member_ref;

static int member_cmp(const void *a, const void *b)
{
	const member_ref *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : x->index < y->index ? -1 : x->index > y->index;
}

/* The first object (in document order) that holds a key twice: its ordinal
 * among the document's objects, and the indices of the two members (the
 * earliest second occurrence).  Returns the key, or NULL when none. */
static const char *duplicate_key(const cJSON *node, size_t *ordinal, size_t *first, size_t *second)
{
	if (cJSON_IsObject(node)) {
		size_t n = 0;
		for (const cJSON *m = node->child; m; m = m->next)
			n++;
		const char *dup = NULL;
		if (n <= 16) {
			/* Small objects (nearly all): no allocation. */
			size_t j = 0;
			for (const cJSON *b = node->child; b && !dup; b = b->next, j++) {
				size_t i = 0;
				for (const cJSON *a = node->child; a != b; a = a->next, i++)
					if (a->string && b->string && !strcmp(a->string, b->string)) {
						dup = b->string, *first = i, *second = j;
						break;
					}
			}
		} else {
			/* Sorted, equal keys lie together in member order. */
			member_ref *refs = bv_xmalloc(n * sizeof(*refs));
			size_t k = 0;
			for (const cJSON *m = node->child; m; m = m->next, k++)
				refs[k].key = m->string ? m->string : "", refs[k].index = k;
			qsort(refs, n, sizeof(*refs), member_cmp);
			for (k = 1; k < n; k++)
				if (!strcmp(refs[k - 1].key, refs[k].key) && (!dup || refs[k].index < *second))
					dup = refs[k].key, *first = refs[k - 1].index, *second = refs[k].index;
			/* Its first occurrence, for "first at". */
			for (k = 0; dup && k < n; k++)
				if (!strcmp(refs[k].key, dup)) {
					*first = refs[k].index;
					break;
				}
			free(refs);
		}
		if (dup)
			return dup;
		(*ordinal)++;
	}
	for (const cJSON *c = node->child; c; c = c->next) {
		const char *dup = duplicate_key(c, ordinal, first, second);
		if (dup)
			return dup;
	}
	return NULL;
}

static void line_col(const char *text, const char *at, size_t *line, size_t *col)
{
	*line = 1, *col = 1;
	for (const char *p = text; p < at; p++) {
		if (*p == '\n')
			(*line)++, *col = 1;
		else
			(*col)++;
	}
}

/* Where members first and second of the ordinal-th object of text (valid
 * JSON: cJSON parsed it) begin: the opening quotes of their keys. */
static void member_positions(const char *text, size_t len, size_t ordinal, size_t first, size_t second,
			     const char **at_first, const char **at_second)
{
	/* 'o' or 'a' per open container; cJSON nests at most CJSON_NESTING_LIMIT. */
	char stack[CJSON_NESTING_LIMIT + 2];
	size_t depth = 0, objects = 0, target = 0, member = 0;
	int expect_key = 0;
	*at_first = *at_second = text;
	for (const char *p = text; p < text + len; p++) {
		if (*p == '"') {
			if (target && depth == target && expect_key) {
				if (member == first)
					*at_first = p;
				if (member == second) {
					*at_second = p;
					return;
				}
				member++;
			}
			expect_key = 0;
			for (p++; p < text + len && *p != '"'; p++)
				if (*p == '\\')
					p++;
		} else if (*p == '{' || *p == '[') {
			if (depth < sizeof(stack) - 1)
				stack[depth] = *p == '{' ? 'o' : 'a';
			depth++;
			expect_key = *p == '{';
			if (*p == '{' && objects++ == ordinal)
				target = depth;
		} else if (*p == '}' || *p == ']') {
			if (depth)
				depth--;
			expect_key = 0;
		} else if (*p == ',') {
			expect_key = depth && depth <= sizeof(stack) - 1 && stack[depth - 1] == 'o';
		}
	}
}

int bv_json_parse(const char *name, const char *text, size_t len, cJSON **out)
{
	*out = NULL;
	if (strlen(text) != len)
		return bv_fail(BV_EINPUT, "%s: contains a NUL byte at offset %zu: not JSON text", name, strlen(text));
	/* cJSON's "must end here" check reads the terminator, so it counts in the length. */
	const char *end = NULL;
	cJSON *doc = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
	int rc = 0;
	if (!doc) {
		/* cJSON points at where it stopped; turn that into line:column. */
		const char *at = end ? end : cJSON_GetErrorPtr();
		size_t line = 1, col = 1;
		if (at && at >= text && at <= text + len)
			line_col(text, at, &line, &col);
		char why[64] = "";
		if (len == 0)
			snprintf(why, sizeof(why), " (empty file)");
		else if (at && at >= text && at <= text + len && depth_at(text, at) >= CJSON_NESTING_LIMIT)
			snprintf(why, sizeof(why), " (nested more than %d levels deep)", CJSON_NESTING_LIMIT);
		else if (at && (at >= text + len || open_string_to_end(text, at, text + len)))
			snprintf(why, sizeof(why), " (truncated?)");
		rc = bv_fail(BV_EINPUT, "%s:%zu:%zu: malformed JSON%s", name, line, col, why);
	}
	size_t ordinal = 0, first = 0, second = 0;
	const char *dup = doc ? duplicate_key(doc, &ordinal, &first, &second) : NULL;
	if (dup) {
		const char *a, *b;
		size_t l1, c1, l2, c2;
		member_positions(text, len, ordinal, first, second, &a, &b);
		line_col(text, a, &l1, &c1);
		line_col(text, b, &l2, &c2);
		char *key = bv_escape(dup); /* the file's text: shown, never obeyed */
		rc = bv_fail(BV_EINPUT, "%s:%zu:%zu: duplicate key \"%.64s\" (first at %zu:%zu): JSON readers "
					"differ on which one counts", name, l2, c2, key, l1, c1);
		free(key);
		cJSON_Delete(doc);
		doc = NULL;
	}
	*out = doc;
	return rc;
}

int bv_json_save(const char *path, const cJSON *doc)
{
	char *text = cJSON_Print(doc);
	if (!text)
		return bv_fail(BV_ERUN, "cannot serialise %s", path);
	bv_buf b = BV_BUF_INIT;
	bv_buf_puts(&b, text);
	bv_buf_puts(&b, "\n");
	free(text);
	int rc = bv_write_file_atomic(path, b.s, b.len);
	bv_buf_free(&b);
	return rc;
}

const char *bv_json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int bv_json_num(const cJSON *o, const char *key, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsNumber(v))
		return -1;
	*out = v->valuedouble;
	return 0;
}
