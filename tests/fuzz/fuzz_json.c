/* fuzz_json.c - the one JSON loader every file goes through (json.c):
 * cJSON plus file:line:column in every error.  Checks that an error always
 * names the file and a position inside the text. */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "json.h"

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
