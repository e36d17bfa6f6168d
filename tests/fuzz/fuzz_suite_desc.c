/* fuzz_suite_desc.c - a suite's description (harness/common/suite_file.c), as the
 * orchestrator reads each version's: the JSON comes from a plugin built out
 * of the user's code, so it is hostile input.  The entry is the check
 * without registering (bv_suite_file_parse registers a group for the life
 * of the process, once), then the merge the orchestrator makes over the
 * versions.  Invariants: a refusal says why, in printable text; a
 * description the check accepts merges into nothing, merges with itself
 * into the same document, and the merge is accepted by the check again. */
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "suite_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
	if (!doc)
		return 0;
	char err[512] = "";
	if (bv_suite_desc_check("fuzz.json", doc, err, sizeof(err)) != 0) {
		FUZZ_ASSERT(err[0] != '\0' && strlen(err) < sizeof(err));
		FUZZ_ASSERT(fuzz_printable(err));
		/* The merge is only ever given checked descriptions, but it
		 * must not crash on what it refuses either. */
		cJSON *into = NULL;
		if (bv_suite_desc_merge(&into, "a", doc, "b", err, sizeof(err)) != 0)
			FUZZ_ASSERT(err[0] != '\0' && fuzz_printable(err));
		cJSON_Delete(into);
		cJSON_Delete(doc);
		return 0;
	}
	cJSON *into = NULL;
	FUZZ_ASSERT(bv_suite_desc_merge(&into, "1.0.0", doc, "1.0.0", err, sizeof(err)) == 0 && into);
	cJSON *once = cJSON_Duplicate(into, 1);
	FUZZ_ASSERT(bv_suite_desc_merge(&into, "1.0.0", doc, "1.1.0", err, sizeof(err)) == 0);
	FUZZ_ASSERT(cJSON_Compare(once, into, 1));
	FUZZ_ASSERT(bv_suite_desc_check("merged.json", into, err, sizeof(err)) == 0);
	cJSON_Delete(once);
	cJSON_Delete(into);
	cJSON_Delete(doc);
	return 0;
}
