/* fuzz_json.c - the one JSON loader every file goes through (json.c):
 * cJSON plus file:line:column in every error, and no key twice in an
 * object.  Checks that an error always names the file and a position inside
 * the text, and that a duplicate key's two positions are where its two keys
 * begin. */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "json.h"

/* The byte offset of 1-based line:column (size when past the end). */
static size_t offset_of(const char *s, size_t size, size_t line, size_t col)
{
	size_t i = 0;
	for (size_t l = 1; l < line && i < size; i++)
		l += s[i] == '\n';
	return i + col - 1 < size ? i + col - 1 : size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	cJSON *doc = NULL;
	int rc = bv_json_parse("input.json", s, size, &doc);
	FUZZ_ERROR_SAYS_WHY(rc);
	if (rc) {
		FUZZ_ASSERT(doc == NULL);
		const char *msg = bv_error_last();
		FUZZ_ASSERT(strncmp(msg, "input.json:", 11) == 0);
		if (memchr(data, 0, size) == NULL) {
			/* file:LINE:COLUMN, both within the text */
			size_t line = 0, col = 0, lines = 1;
			FUZZ_ASSERT(sscanf(msg + 11, "%zu:%zu", &line, &col) == 2);
			for (size_t i = 0; i < size; i++)
				lines += s[i] == '\n';
			FUZZ_ASSERT(line >= 1 && line <= lines && col >= 1 && col <= size + 1);
			size_t l1 = 0, c1 = 0;
			/* The last: the key, shown before it, may hold the words. */
			const char *first = NULL;
			for (const char *p = msg; (p = strstr(p, " (first at ")); p++)
				first = p;
			if (strstr(msg, ": duplicate key \"")) {
				FUZZ_ASSERT(first && sscanf(first + 11, "%zu:%zu", &l1, &c1) == 2);
				size_t at = offset_of(s, size, line, col), at1 = offset_of(s, size, l1, c1);
				FUZZ_ASSERT(at < size && at1 < at && s[at] == '"' && s[at1] == '"');
			}
		}
	} else {
		FUZZ_ASSERT(doc != NULL);
		/* What parsed prints and parses again. */
		char *text = cJSON_PrintUnformatted(doc);
		FUZZ_ASSERT(text != NULL);
		cJSON *again = NULL;
		FUZZ_ASSERT(bv_json_parse("printed", text, strlen(text), &again) == 0);
		cJSON_Delete(again);
		free(text);
	}
	cJSON_Delete(doc);
	free(s);
	return 0;
}
