/* fuzz_callgrind.c - callgrind's output files (counts.c), as a count reads
 * them: the file is written by a process that ran the code under test, so
 * it is hostile input like any other.  Invariants: a file read gives totals
 * that are finite and not negative, at most max functions, each named and
 * sorted by its instructions; a refusal says why; reading is repeatable. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "counts.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bv_count c, d;
	memset(&c, 0, sizeof(c));
	memset(&d, 0, sizeof(d));
	char why[200] = "";
	int rc = bv_callgrind_parse((const char *)data, size, 8, &c, why, sizeof(why));
	if (rc != 0) {
		FUZZ_ASSERT(why[0] != '\0' && strlen(why) < sizeof(why));
	} else {
		for (int k = 0; k < BV_EV_COUNT; k++)
			FUZZ_ASSERT(isfinite(c.ev[k]) && c.ev[k] >= 0);
		FUZZ_ASSERT(c.nfns <= 8);
		for (size_t i = 0; i < c.nfns; i++) {
			FUZZ_ASSERT(c.fns[i].name && c.fns[i].ir > 0 && isfinite(c.fns[i].ir));
			if (i)
				FUZZ_ASSERT(c.fns[i - 1].ir >= c.fns[i].ir);
		}
		FUZZ_ASSERT(bv_callgrind_parse((const char *)data, size, 8, &d, why, sizeof(why)) == 0);
		FUZZ_ASSERT(memcmp(c.ev, d.ev, sizeof(c.ev)) == 0 && c.nfns == d.nfns);
	}
	bv_count_free(&c);
	bv_count_free(&d);
	return 0;
}
