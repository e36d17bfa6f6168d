/*
 * download.h - fetching release indexes and tarballs with libcurl, and the
 * URLs they are named by (download.c; docs/releases.md).
 *
 * The server is not trusted: every transfer has bounded timeouts, a size
 * limit checked against what arrives, and few redirects, only to http(s).
 */
#ifndef BV_DOWNLOAD_H
#define BV_DOWNLOAD_H

#include <stddef.h>

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

#endif
