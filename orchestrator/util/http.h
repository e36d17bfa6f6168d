/*
 * http.h - what download.c and upload.c share about talking to a server with
 * libcurl: one global init, the same guards on every transfer (connect
 * timeout, a floor on the transfer rate so a stalled server cannot hang us,
 * http(s) only) and one retry loop (which failures are worth another try,
 * exponential backoff, Retry-After honoured within a cap).
 */
#ifndef BV_HTTP_H
#define BV_HTTP_H

#include <curl/curl.h>

void bv_http_global_init(void);

/* The guards every transfer gets: connect timeout and stall timeout (less
 * than low_speed_bytes per second for stall_s seconds) in seconds, no
 * signals, our user agent, the error buffer. */
void bv_http_setup(CURL *c, const char *url, char errbuf[CURL_ERROR_SIZE], long connect_s, long stall_s,
		   long low_speed_bytes);

/* Whether an attempt that ended with cc and HTTP status (0 when none came)
 * may succeed if tried again: timeouts, refused or dropped connections, a
 * truncated response, 5xx, 408 and 429.  Other 4xx are final. */
int bv_http_transient(CURLcode cc, long status);

/* Seconds to wait before attempt `next` (2, 3, ...): backoff_s doubling per
 * attempt, or the server's Retry-After when it asked for longer, never more
 * than cap_s. */
double bv_http_wait(int next, double backoff_s, long retry_after_s, double cap_s);

typedef struct bv_http_retry {
	int attempts;     /* tries in all, at least 1 */
	double backoff_s; /* the first wait; doubles each time */
	double cap_s;     /* the longest one wait, Retry-After included */
	const char *what; /* prefix of the "retrying" lines on stderr */
	char *errbuf;     /* the transfer's CURLOPT_ERRORBUFFER, for those lines */
	/* Called before every attempt (rewind the upload, empty the sink);
	 * nonzero stops with that code. */
	int (*reset)(void *payload);
	/* Called after every attempt (may be NULL): returns cc, or another
	 * code when the transfer is worse than libcurl thinks (and then says
	 * why in errbuf). */
	CURLcode (*check)(void *payload, CURLcode cc, long status);
	void *payload;
	/* When nonzero, an attempt in which no byte moves either way for this
	 * many seconds ends as CURLE_OPERATION_TIMEDOUT.  Sharper than libcurl's
	 * low-speed limit, whose rate is averaged over several seconds and so
	 * trips late after a quick burst (an upload, then a server that never
	 * answers). */
	long stall_s;
} bv_http_retry;

typedef struct bv_http_result {
	CURLcode cc;
	long status; /* the last HTTP status, 0 when none came */
	int tries;   /* attempts made */
	int reset_rc; /* nonzero when reset() stopped the loop */
	int interrupted; /* a SIGINT/SIGTERM (bv_interrupted) ended it */
} bv_http_result;

/* curl_easy_perform until it succeeds with a status below 500 (and not
 * 408/429), fails for good, or the attempts are spent.  Each retry is one
 * line on stderr naming what failed and the wait. */
bv_http_result bv_http_perform(CURL *c, const bv_http_retry *r);
/* A Ctrl-C or SIGTERM (bv_interrupted) aborts the transfer within about a
 * second and ends the loop with .interrupted set: no retry, no backoff. */

/* A short description of a failed attempt: curl's message or "HTTP 503". */
const char *bv_http_describe(CURLcode cc, long status, const char *errbuf, char *out, size_t n);

#endif
