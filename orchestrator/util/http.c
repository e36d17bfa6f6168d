/*
 * http.c - the libcurl pieces download.c and upload.c share (http.h).
 *
 * One place decides what a retry is for: a server that is overloaded (5xx,
 * 429), timed out (408, or no bytes moving), or went away (refused, dropped
 * or truncated) may do better a moment later; one that answered "no" (other
 * 4xx) will say it again, and retrying would only hide the answer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "http.h"
#include "proc.h"

void bv_http_global_init(void)
{
	static int done;
	if (!done) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		done = 1;
	}
}

void bv_http_setup(CURL *c, const char *url, char errbuf[CURL_ERROR_SIZE], long connect_s, long stall_s,
		   long low_speed_bytes)
{
	errbuf[0] = '\0';
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, connect_s);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, low_speed_bytes);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, stall_s);
	/* Timeouts by alarm() would fight with our own children's signals. */
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "bench-versions");
	/* Never on: its trace would print request headers, a token among them. */
	curl_easy_setopt(c, CURLOPT_VERBOSE, 0L);
}

int bv_http_transient(CURLcode cc, long status)
{
	if (cc == CURLE_OK || cc == CURLE_HTTP_RETURNED_ERROR)
		return status >= 500 || status == 408 || status == 429;
	return cc == CURLE_OPERATION_TIMEDOUT || cc == CURLE_RECV_ERROR || cc == CURLE_SEND_ERROR ||
	       cc == CURLE_GOT_NOTHING || cc == CURLE_PARTIAL_FILE || cc == CURLE_COULDNT_CONNECT;
}

double bv_http_wait(int next, double backoff_s, long retry_after_s, double cap_s)
{
	double w = backoff_s;
	for (int i = 2; i < next && w < cap_s; i++)
		w *= 2;
	if (retry_after_s > 0 && (double)retry_after_s > w)
		w = (double)retry_after_s;
	return w > cap_s ? cap_s : w;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR && !bv_interrupted())
		;
}

const char *bv_http_describe(CURLcode cc, long status, const char *errbuf, char *out, size_t n)
{
	if ((cc == CURLE_OK || cc == CURLE_HTTP_RETURNED_ERROR) && status)
		snprintf(out, n, "HTTP status %ld", status);
	else {
		/* libcurl's words may quote the server's: printed, so escaped */
		char *shown = bv_escape(errbuf && errbuf[0] ? errbuf : curl_easy_strerror(cc));
		snprintf(out, n, "%s", shown);
		free(shown);
	}
	return out;
}

typedef struct watchdog {
	long stall_s;
	curl_off_t moved; /* bytes up and down so far */
	struct timespec last;
	int fired;
} watchdog;

static double since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* libcurl calls this about once a second even when nothing moves. */
static int on_progress(void *payload, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	(void)dltotal, (void)ultotal;
	watchdog *w = payload;
	if (bv_interrupted())
		return 1; /* CURLE_ABORTED_BY_CALLBACK, read as an interruption */
	if (dlnow + ulnow != w->moved) {
		w->moved = dlnow + ulnow;
		clock_gettime(CLOCK_MONOTONIC, &w->last);
		return 0;
	}
	if (w->stall_s > 0 && since(&w->last) >= (double)w->stall_s) {
		w->fired = 1;
		return 1; /* CURLE_ABORTED_BY_CALLBACK */
	}
	return 0;
}

bv_http_result bv_http_perform(CURL *c, const bv_http_retry *r)
{
	bv_http_result res = {CURLE_OK, 0, 0, 0, 0};
	watchdog w = {r->stall_s, 0, {0, 0}, 0};
	/* The callback runs for every transfer: it is also how a Ctrl-C ends one. */
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, &w);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	for (;;) {
		res.tries++;
		if (r->reset && (res.reset_rc = r->reset(r->payload)) != 0)
			break;
		w.moved = 0;
		w.fired = 0;
		clock_gettime(CLOCK_MONOTONIC, &w.last);
		res.cc = curl_easy_perform(c);
		res.status = 0;
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res.status);
		if (bv_interrupted()) {
			res.interrupted = 1;
			break;
		}
		/* The watchdog, or libcurl's own low-speed limit when it looks
		 * first (a loaded machine runs the progress callback late): the
		 * same stall, said the same way, whenever nothing moved for the
		 * whole stall time, before or after some bytes had come, or when
		 * it timed out with no byte at all (the two clocks need not agree
		 * to the millisecond: one CI run under ASan and load said
		 * libcurl's words for a server that never answered).  A slow
		 * trickle keeps libcurl's own words. */
		if ((res.cc == CURLE_ABORTED_BY_CALLBACK && w.fired) ||
		    (res.cc == CURLE_OPERATION_TIMEDOUT && r->stall_s > 0 &&
		     (w.moved == 0 || since(&w.last) >= (double)r->stall_s))) {
			res.cc = CURLE_OPERATION_TIMEDOUT;
			if (r->errbuf)
				snprintf(r->errbuf, CURL_ERROR_SIZE, "nothing moved for %ld s", r->stall_s);
		}
		if (r->check)
			res.cc = r->check(r->payload, res.cc, res.status);
		if (!bv_http_transient(res.cc, res.status) || res.tries >= r->attempts)
			break;
		curl_off_t after = 0;
		if (curl_easy_getinfo(c, CURLINFO_RETRY_AFTER, &after) != CURLE_OK || after < 0)
			after = 0;
		double wait = bv_http_wait(res.tries + 1, r->backoff_s, (long)after, r->cap_s);
		char what[CURL_ERROR_SIZE + 32];
		fprintf(stderr, "%s: %s; retrying in %.3g s (attempt %d of %d)", r->what,
			bv_http_describe(res.cc, res.status, r->errbuf, what, sizeof(what)), wait, res.tries + 1,
			r->attempts);
		if (after > 0)
			fprintf(stderr, "; the server asked for %ld s (Retry-After)", (long)after);
		fputc('\n', stderr);
		sleep_s(wait);
		if (bv_interrupted()) {
			res.interrupted = 1;
			break;
		}
	}
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, NULL);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 1L);
	return res;
}
