/* json.c - cJSON with file names and positions in every error. */
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

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
		if (at && at >= text && at <= text + len) {
			for (const char *p = text; p < at; p++) {
				if (*p == '\n')
					line++, col = 1;
				else
					col++;
			}
		}
		char why[64] = "";
		if (len == 0)
			snprintf(why, sizeof(why), " (empty file)");
		else if (at && at >= text && at <= text + len && depth_at(text, at) >= CJSON_NESTING_LIMIT)
			snprintf(why, sizeof(why), " (nested more than %d levels deep)", CJSON_NESTING_LIMIT);
		else if (at && (at >= text + len || open_string_to_end(text, at, text + len)))
			snprintf(why, sizeof(why), " (truncated?)");
		rc = bv_fail(BV_EINPUT, "%s:%zu:%zu: malformed JSON%s", name, line, col, why);
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
