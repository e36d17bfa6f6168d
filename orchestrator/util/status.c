/* status.c - see status.h. */
#include <string.h>

#include "status.h"

static const char *const names[] = {
	[BV_ST_OK] = "ok",           [BV_ST_NA] = "n/a",         [BV_ST_SKIPPED] = "skipped",
	[BV_ST_WRONG] = "wrong result", [BV_ST_CRASHED] = "crashed", [BV_ST_TIMEOUT] = "timeout",
	[BV_ST_FAILED] = "failed",   [BV_ST_UNFINISHED] = "unfinished", [BV_ST_OOM] = "out of memory",
	[BV_ST_BUILD_FAILED] = "build failed", [BV_ST_NOT_RUN] = "not run",
};

#define NNAMES (sizeof(names) / sizeof(names[0]))

const char *bv_status_name(bv_status s)
{
	return (unsigned)s < NNAMES ? names[s] : NULL;
}

bv_status bv_status_parse(const char *text)
{
	for (bv_status s = BV_ST_OK; text && s <= BV_ST_LAST_LOGGED; s++)
		if (!strcmp(text, names[s]))
			return s;
	return BV_ST_NONE;
}

bv_status bv_status_parse_any(const char *text)
{
	for (bv_status s = BV_ST_OK; text && s < NNAMES; s++)
		if (!strcmp(text, names[s]))
			return s;
	return BV_ST_NONE;
}

int bv_status_ran(bv_status s)
{
	switch (s) {
	case BV_ST_OK:
	case BV_ST_WRONG:
	case BV_ST_CRASHED:
	case BV_ST_TIMEOUT:
	case BV_ST_OOM:
	case BV_ST_FAILED: return 1;
	default: return 0;
	}
}

bv_gap bv_status_gap(bv_status base, bv_status cand)
{
	if (cand == BV_ST_OK && (base == BV_ST_NA || base == BV_ST_SKIPPED))
		return BV_GAP_NEW;
	if (cand == BV_ST_NA && bv_status_ran(base))
		return BV_GAP_VANISHED;
	return BV_GAP_NONE;
}

const char *bv_gap_name(bv_gap g)
{
	switch (g) {
	case BV_GAP_NEW: return "new";
	case BV_GAP_VANISHED: return "vanished";
	case BV_GAP_NONE: break;
	}
	return NULL;
}
