/*
 * share.h - `bench-versions share`: packing a run's results directory into
 * one tar.gz (pack.c) and uploading it (upload.c); cmd_share.c ties them
 * together.  docs/cli/share.md has the protocol.
 */
#ifndef BV_SHARE_H
#define BV_SHARE_H

#include <stddef.h>

/* ---- pack.c ----------------------------------------------------------- */
/* The same limits the unpacking side (archive.c) enforces, so whatever we
 * pack our own tooling would also accept. */
#define BV_PACK_MAX_BYTES ((unsigned long long)1 << 30) /* file contents, in all */
#define BV_PACK_MAX_ENTRIES 20000

typedef struct bv_pack_info {
	size_t files;             /* regular files packed */
	unsigned long long bytes; /* their contents */
	unsigned long long size;  /* of the archive */
	char sha256[65];          /* of the archive */
} bv_pack_info;

/* Writes a gzip-compressed ustar archive of dir to the open file fd (at
 * its start; truncated first): every regular file under dir, in byte order
 * of their paths, under one top-level directory named top.  Entries carry
 * the file's mtime (whole seconds) and normalised metadata (owner 0:0 with
 * no names, mode 0644, or 0755 where any x bit is set; directories 0755),
 * and the gzip header no time, so one directory always packs to the same
 * bytes.  Refused with a message naming the path: symlinks, devices, fifos,
 * sockets, names with control characters, paths ustar cannot hold, more than
 * the limits above, a file that changes while it is read, and, when forbid
 * is not NULL, a file whose contents hold that string (the upload token).
 * dir is only read. */
int bv_pack_dir(const char *dir, const char *top, int fd, const char *forbid, bv_pack_info *info);

/* ---- upload.c --------------------------------------------------------- */
typedef struct bv_upload_opts {
	const char *url;     /* PUT target, already checked by bv_upload_check_url */
	const char *token;   /* bearer token, or NULL to send none */
	const char *run_id;  /* X-Bench-Versions-Run */
	int attempts;        /* in all, >= 1 */
	long timeout_s;      /* connect timeout and stall timeout */
	double backoff_s;    /* first wait between attempts; doubles */
	double max_wait_s;   /* cap on one wait, Retry-After included */
} bv_upload_opts;

/* Checks url for upload: http or https, no user:password@ part (a secret
 * on the command line), and plain http only to a loopback host (localhost,
 * 127.0.0.0/8, ::1) unless insecure_http, since the token would cross the
 * network in the clear.  When url ends in '/', *target is url plus
 * <escaped name>.tar.gz; otherwise url itself. */
int bv_upload_check_url(const char *url, const char *name, int insecure_http, char **target);

/* PUTs the size bytes of fd (from its start) to opts->url as
 * application/gzip with Authorization: Bearer, Content-Length and
 * X-Bench-Versions-Sha256: sha256, retrying transient failures (http.c).
 * On success *location is what the server's answer names (the "url" or "id"
 * of a JSON object, else NULL) and *status its status.  A 4xx (other than 408
 * and 429) fails at once with BV_EINPUT and the server's short message; a
 * redirect is not followed (the token would go along) and is BV_EINPUT;
 * what still fails after the last attempt is BV_ERUN.  Messages never hold
 * the token: it is cut out of anything the server sends back. */
int bv_upload(const bv_upload_opts *opts, int fd, unsigned long long size, const char *sha256, char **location,
	      long *status);

/* The server's answer made printable: the token (when not NULL) becomes
 * "[token]", whitespace runs become one space, at most max bytes are kept
 * (then "..."), and control characters are escaped (bv_escape).  Always a
 * new string. */
char *bv_upload_sanitize(const char *text, size_t len, const char *token, size_t max);

/* ---- cmd_share.c (exposed for the unit tests) ------------------------- */
/* Checks a token's text: trims trailing whitespace (a newline from echo),
 * then it must be 1..4096 visible ASCII characters (RFC 6750's b64token
 * and a little more), no spaces.  Messages never include it. */
int bv_token_clean(char *token, const char *source);
/* Reads a token file: a regular file owned by us, readable by nobody else
 * (like ssh's keys: group or world bits are refused with the chmod that
 * fixes it), at most 4 KiB. */
int bv_token_read_file(const char *path, char **token);

#endif
