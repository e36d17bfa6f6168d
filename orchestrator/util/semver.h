/*
 * semver.h - semantic versions ("1.2.3", "1.2.3-rc.1") and ranges over them
 * (">=0.1.0 <0.3.0", "^0.2", "~1.4.2", "0.1.x", "<0.2.0 || >=1.0.0"), as used
 * by compat/compat.json and release lookups.
 */
#ifndef BV_SEMVER_H
#define BV_SEMVER_H

#include <stddef.h>

typedef struct bv_semver {
	unsigned long major, minor, patch;
	char pre[64]; /* pre-release identifiers, "" for a release */
} bv_semver;

/* 0 on success; -1 when s is not a full X.Y.Z[-pre][+build] version. */
int bv_semver_parse(const char *s, bv_semver *out);
int bv_semver_cmp(const bv_semver *a, const bv_semver *b);
/* 1 when v satisfies range, 0 when not, -1 when range is malformed (err says why). */
int bv_semver_satisfies(const bv_semver *v, const char *range, char *err, size_t errlen);

#endif
