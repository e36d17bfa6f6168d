/* json.h - loading JSON files with errors that name the file and position. */
#ifndef BV_JSON_H
#define BV_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* Parses path (at most max bytes, checked before reading; nesting at most
 * cJSON's limit; no key twice in one object).  On error the message names
 * the file and the line and column where parsing stopped, or of the second
 * key. */
int bv_json_load(const char *path, size_t max, cJSON **out);
/* The same for text already in memory (NUL-terminated, len bytes) that came
 * from name (a path or URL, for messages). */
int bv_json_parse(const char *name, const char *text, size_t len, cJSON **out);
/* Writes doc to path atomically, pretty-printed. */
int bv_json_save(const char *path, const cJSON *doc);

/* Typed getters: return the member, or NULL when it is missing or of another
 * type (callers then report "file: field: expected ..."). */
const char *bv_json_str(const cJSON *o, const char *key);
int bv_json_num(const cJSON *o, const char *key, double *out);

#endif
