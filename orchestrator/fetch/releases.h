/*
 * releases.h - published releases: a release index (JSON) names tarballs by
 * URL and sha256; download.c fetches them with libcurl (download.h),
 * unpack.c unpacks them with libarchive (unpack.h), releases.c ties the two
 * together behind the cache.
 * Everything here treats its input as hostile: the index, the server and the
 * tarball may all be wrong or malicious.  See docs/releases.md.
 */
#ifndef BV_RELEASES_H
#define BV_RELEASES_H

#include <stddef.h>

typedef struct bv_release {
	char *version; /* X.Y.Z */
	char *url;     /* absolute: resolved against the index's URL; may hold credentials */
	char *shown;   /* url without them (bv_url_redact): for messages and logs */
	char sha256[65];
} bv_release;

typedef struct bv_release_index {
	char *source; /* the index's URL without credentials, for messages and logs */
	bv_release *releases;
	size_t n;
} bv_release_index;

/* Parses and validates an index read from url (used for resolving relative
 * tarball URLs, and in messages without its credentials). */
int bv_release_index_parse(const char *url, const char *text, size_t len, bv_release_index *out);
/* Downloads and parses the index at url. */
int bv_release_index_load(const char *url, bv_release_index *out);
const bv_release *bv_release_find(const bv_release_index *idx, const char *version);
void bv_release_index_free(bv_release_index *idx);
/* Makes sure <cache>/src/release-<sha256>/ holds the release (downloading,
 * verifying and unpacking it when it does not) and returns the library's
 * root inside it (the tarball's one top-level directory) in *root and the
 * VERSION found there in *kernel_version, which must read rel->version. */
int bv_release_fetch(const bv_release *rel, char **root, char **kernel_version);

#endif
