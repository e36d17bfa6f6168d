/* fuzz_semver.c - semantic versions and ranges (semver.c), as compat.json
 * rules and release lookups use them.  Input: "VERSION\nRANGE" (either part
 * may be anything). */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "semver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	char *nl = strchr(s, '\n');
	const char *range = nl ? nl + 1 : s;
	if (nl)
		*nl = '\0';
	bv_semver v, w;
	int parsed = bv_semver_parse(s, &v) == 0;
	if (parsed) {
		/* Reflexive, and a parse of the same text gives the same version. */
		FUZZ_ASSERT(bv_semver_cmp(&v, &v) == 0);
		FUZZ_ASSERT(bv_semver_parse(s, &w) == 0 && bv_semver_cmp(&v, &w) == 0);
		FUZZ_ASSERT(strlen(v.pre) < sizeof(v.pre));
	}
	/* Antisymmetric against whatever the range text parses to. */
	if (parsed && bv_semver_parse(range, &w) == 0)
		FUZZ_ASSERT(bv_semver_cmp(&v, &w) == -bv_semver_cmp(&w, &v));
	char err[200];
	err[0] = '\0';
	bv_semver probe = {0};
	int r = bv_semver_satisfies(parsed ? &v : &probe, range, err, sizeof(err));
	FUZZ_ASSERT(r == -1 || r == 0 || r == 1);
	if (r < 0)
		FUZZ_ASSERT(err[0] != '\0' && strlen(err) < sizeof(err));
	/* Whether a range is well-formed does not depend on the version tested. */
	int r2 = bv_semver_satisfies(&probe, range, err, sizeof(err));
	FUZZ_ASSERT((r < 0) == (r2 < 0));
	free(s);
	return 0;
}
