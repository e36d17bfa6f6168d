/*
 * releases.h - published releases: a release index (JSON) names tarballs by
 * URL and sha256; download.c fetches them with libcurl, archive.c unpacks
 * them with libarchive, releases.c ties the two together behind the cache.
 * Everything here treats its input as hostile: the index, the server and the
 * tarball may all be wrong or malicious.  See docs/releases.md.
 */
#ifndef BV_RELEASES_H
#define BV_RELEASES_H

#include <stddef.h>

/* ---- download.c ------------------------------------------------------- */
/* Limits on one download; a server that breaks them is an error. */
#define BV_INDEX_MAX ((size_t)4 << 20)     /* a release index */
#define BV_TARBALL_MAX ((size_t)256 << 20) /* one release tarball */

/* Fetches url (http, https or file) into path, at most max bytes, with
 * bounded timeouts, a few redirects (http(s) only) and retries on timeouts
 * and 5xx.  sha256 (65 chars) receives the digest of what was written.  On
 * error path does not exist. */
int bv_download(const char *url, const char *path, size_t max, char sha256[65]);
/* The same into memory (NUL-terminated; *len without the NUL). */
int bv_download_mem(const char *url, size_t max, char **out, size_t *len);
/* Seconds a network peer may stay silent (connecting, or mid-transfer)
 * before the attempt is a timeout: BENCH_VERSIONS_NET_TIMEOUT, default 30.
 * Downloads (libcurl) and KERNEL_REPO clones and fetches (libgit2) obey it. */
int bv_net_timeout_s(void);
/* base and a relative (or absolute) reference -> an absolute URL, as a
 * browser would; NULL with a message when either is not a URL. */
char *bv_url_join(const char *base, const char *ref);
/* The scheme of url, lower case ("" when it has none), into out. */
void bv_url_scheme(const char *url, char out[16]);
/* url as it may be shown or stored: any user:password@ (a credential in
 * KERNEL_RELEASES or KERNEL_REPO) becomes ***@, and it is escaped
 * (bv_escape).  Malloc'd, never NULL. */
char *bv_url_redact(const char *url);

/* ---- archive.c -------------------------------------------------------- */
#define BV_ARCHIVE_MAX_BYTES ((unsigned long long)1 << 30) /* uncompressed, in all */
#define BV_ARCHIVE_MAX_ENTRIES 20000

/* Unpacks the tarball at path into dir (existing, empty).  Only regular
 * files and directories with relative names and no `..` are accepted; links,
 * devices and fifos are refused, as is more than the limits above.  what
 * names the tarball in messages.  On error dir may hold part of the tree:
 * the caller removes it. */
int bv_archive_extract(const char *path, const char *dir, const char *what);

/* ---- releases.c ------------------------------------------------------- */
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
