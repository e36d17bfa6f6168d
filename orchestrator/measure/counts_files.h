/*
 * counts_files.h - a count as JSON (counts_files.c), for the two places
 * counts are kept: the run's counts/counts.json (counts.c) and the cache's
 * entries (counts_make.c).  Private to the counts files (counts.c,
 * counts_files.c, counts_make.c): every other module sees counts.h.
 */
#ifndef BV_COUNTS_FILES_H
#define BV_COUNTS_FILES_H

#include <cjson/cJSON.h>

#include "counts.h"

#define BV_COUNT_MAX_FNS 64 /* functions kept per count (the most expensive first) */

/* The count c as JSON, its digest included (counts.json's entries; the
 * cache adds what it is the count of). */
cJSON *bv_count_json(const bv_count *c);
/* A count from counts.json or the cache into c; -1 when o is not one (a
 * damaged or hostile file is no count: it is made again). */
int bv_count_read(const cJSON *o, bv_count *c);
/* NULL when the count c, read from o, is what o's digest says it is; else
 * why not.  An entry without one is taken only when !required (a run's
 * counts.json from before digests). */
const char *bv_count_unsound(const cJSON *o, const bv_count *c, int required);

#endif
