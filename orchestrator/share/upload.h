/*
 * upload.h - PUTting a packed run to a server with libcurl (upload.c), for
 * `bench-versions share`; docs/cli/share.md has the protocol.  The token
 * never appears in a message.
 */
#ifndef BV_UPLOAD_H
#define BV_UPLOAD_H

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

#endif
