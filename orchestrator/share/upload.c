/*
 * upload.c - PUTting a packed run to a server with libcurl.
 *
 * PUT, not POST: the request names where the archive goes, so sending it
 * twice stores it once.  That makes every retry safe, including the one
 * after a timeout where the server may well have stored the first copy
 * before going quiet.
 *
 * The token only ever travels in libcurl's own bearer option (which libcurl
 * keeps to the host it was given; we follow no redirects anyway) and is
 * never in a message: the server's answer is cut down, made printable and
 * has the token removed before any of it is shown, since a careless server
 * may echo the request's headers back in an error page.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "http.h"
#include "json.h"
#include "proc.h"
#include "upload.h"

enum {
	REPLY_KEEP = 64 << 10, /* of the server's answer, for its message */
	REPLY_MAX = 1 << 20,   /* a longer answer is a broken server */
	LOW_SPEED_BYTES = 1024,
	MESSAGE_MAX = 200,
};

char *bv_upload_sanitize(const char *text, size_t len, const char *token, size_t max)
{
	bv_buf b = BV_BUF_INIT;
	size_t tlen = token ? strlen(token) : 0;
	int space = 0;
	bv_buf_puts(&b, "");
	for (size_t i = 0; i < len && b.len < max;) {
		if (tlen && len - i >= tlen && !memcmp(text + i, token, tlen)) {
			bv_buf_puts(&b, space ? " [token]" : "[token]");
			i += tlen;
			space = 0;
			continue;
		}
		unsigned char ch = (unsigned char)text[i++];
		if (isspace(ch)) {
			space = b.len > 0;
			continue;
		}
		if (space)
			bv_buf_putn(&b, " ", 1);
		space = 0;
		bv_buf_putn(&b, (const char *)&ch, 1);
	}
	int cut = b.len >= max;
	if (cut)
		b.len = max;
	/* The server's words, escaped as every name from outside is: no
	 * terminal control, no byte that is not UTF-8 (NULs included). */
	bv_buf out = BV_BUF_INIT;
	bv_buf_put_escaped(&out, b.s, b.len, 0);
	if (cut)
		bv_buf_puts(&out, "...");
	bv_buf_free(&b);
	return bv_buf_detach(&out);
}

static int is_loopback(const char *host)
{
	if (!strcasecmp(host, "localhost") || !strcasecmp(host, "localhost.") || !strcmp(host, "[::1]"))
		return 1;
	struct in_addr a4;
	return inet_pton(AF_INET, host, &a4) == 1 && (ntohl(a4.s_addr) >> 24) == 127;
}

int bv_upload_check_url(const char *url, const char *name, int insecure_http, char **target)
{
	*target = NULL;
	CURLU *u = curl_url();
	char *scheme = NULL, *user = NULL, *pass = NULL, *host = NULL, *path = NULL, *out = NULL;
	int rc = 0;
	CURLUcode uc;
	if (!u)
		return bv_fail(BV_ERUN, "cannot start libcurl's URL parser");
	if ((uc = curl_url_set(u, CURLUPART_URL, url, 0)) != CURLUE_OK)
		rc = bv_fail(BV_EINPUT, "--url '%s' is not a URL: %s", url, curl_url_strerror(uc));
	else if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
		 (strcmp(scheme, "https") && strcmp(scheme, "http")))
		rc = bv_fail(BV_EINPUT, "--url '%s': only https:// (or http:// to this machine) can take an upload",
			     url);
	else if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK ||
		 curl_url_get(u, CURLUPART_PASSWORD, &pass, 0) == CURLUE_OK)
		/* Not even echoed back: the part before '@' may be a password. */
		rc = bv_fail(BV_EINPUT, "--url: a user or password in the URL is refused: a secret on the command line "
					"is visible to every user of this machine (ps) and lands in shell "
					"history; put the token in BENCH_VERSIONS_TOKEN or a --token-file");
	else if (curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host[0])
		rc = bv_fail(BV_EINPUT, "--url '%s' names no host", url);
	else if (!strcmp(scheme, "http") && !insecure_http && !is_loopback(host))
		rc = bv_fail(BV_EINPUT,
			     "--url '%s': plain http would send the token and the results over the network "
			     "unencrypted; use https://, or --insecure-http if this network is trusted",
			     url);
	else if (curl_url_get(u, CURLUPART_PATH, &path, 0) == CURLUE_OK && path[strlen(path) - 1] == '/') {
		char *esc = curl_easy_escape(NULL, name, 0);
		char *full = bv_asprintf("%s%s.tar.gz", path, esc ? esc : "run");
		curl_free(esc);
		if ((uc = curl_url_set(u, CURLUPART_PATH, full, 0)) != CURLUE_OK)
			rc = bv_fail(BV_EINPUT, "--url '%s': cannot add the run's name: %s", url, curl_url_strerror(uc));
		free(full);
	}
	if (rc == 0 && (uc = curl_url_get(u, CURLUPART_URL, &out, 0)) != CURLUE_OK)
		rc = bv_fail(BV_EINPUT, "--url '%s': %s", url, curl_url_strerror(uc));
	if (rc == 0)
		*target = bv_strdup(out);
	curl_free(scheme), curl_free(user), curl_free(pass), curl_free(host), curl_free(path), curl_free(out);
	curl_url_cleanup(u);
	return rc;
}

typedef struct transfer {
	int fd;
	unsigned long long size, off;
	bv_buf reply;
	size_t reply_total;
	int reply_too_big;
	int headers_done; /* the final answer's headers ended with their blank line */
	char *errbuf;
} transfer;

static size_t on_read(char *buf, size_t size, size_t n, void *payload)
{
	transfer *t = payload;
	size_t want = size * n;
	if ((unsigned long long)want > t->size - t->off)
		want = (size_t)(t->size - t->off);
	if (want == 0)
		return 0;
	ssize_t got;
	while ((got = pread(t->fd, buf, want, (off_t)t->off)) < 0 && errno == EINTR)
		;
	if (got <= 0)
		return CURL_READFUNC_ABORT;
	t->off += (unsigned long long)got;
	return (size_t)got;
}

/* libcurl rewinds the body itself when it must send it again within one
 * attempt (a connection it reused went away). */
static int on_seek(void *payload, curl_off_t offset, int origin)
{
	transfer *t = payload;
	if (origin != SEEK_SET || offset < 0 || (unsigned long long)offset > t->size)
		return CURL_SEEKFUNC_CANTSEEK;
	t->off = (unsigned long long)offset;
	return CURL_SEEKFUNC_OK;
}

static size_t on_reply(char *data, size_t size, size_t n, void *payload)
{
	transfer *t = payload;
	size_t len = size * n;
	t->reply_total += len;
	if (t->reply_total > REPLY_MAX) {
		t->reply_too_big = 1;
		return 0;
	}
	if (t->reply.len < REPLY_KEEP)
		bv_buf_putn(&t->reply, data, len < REPLY_KEEP - t->reply.len ? len : REPLY_KEEP - t->reply.len);
	return len;
}

static size_t on_header(char *line, size_t size, size_t n, void *payload)
{
	transfer *t = payload;
	size_t len = size * n;
	if (len >= 5 && !memcmp(line, "HTTP/", 5))
		t->headers_done = 0; /* a status line: 100 Continue's, then the real one */
	else if ((len == 2 && line[0] == '\r' && line[1] == '\n') || (len == 1 && line[0] == '\n'))
		t->headers_done = 1;
	return len;
}

/* libcurl 7.88 takes a status line whose headers were cut off by a closed
 * connection for a whole answer; a "200" we never heard the end of may
 * still be a server that crashed while storing, so it is tried again. */
static CURLcode on_check(void *payload, CURLcode cc, long status)
{
	transfer *t = payload;
	if (cc == CURLE_OK && status && !t->headers_done) {
		snprintf(t->errbuf, CURL_ERROR_SIZE,
			 "the connection closed in the middle of the server's answer (HTTP %ld, headers cut off)", status);
		return CURLE_PARTIAL_FILE;
	}
	return cc;
}

static int on_reset(void *payload)
{
	transfer *t = payload;
	t->off = 0;
	t->reply.len = 0;
	if (t->reply.s)
		t->reply.s[0] = '\0';
	t->reply_total = 0;
	t->reply_too_big = 0;
	t->headers_done = 0;
	return 0;
}

static const char *reason(long status)
{
	switch (status) {
	case 400: return " Bad Request";
	case 401: return " Unauthorized";
	case 403: return " Forbidden";
	case 404: return " Not Found";
	case 405: return " Method Not Allowed";
	case 408: return " Request Timeout";
	case 409: return " Conflict";
	case 411: return " Length Required";
	case 413: return " Content Too Large";
	case 415: return " Unsupported Media Type";
	case 422: return " Unprocessable Content";
	case 429: return " Too Many Requests";
	case 500: return " Internal Server Error";
	case 502: return " Bad Gateway";
	case 503: return " Service Unavailable";
	case 504: return " Gateway Timeout";
	default: return "";
	}
}

/* The server's answer as one short printable line: the "error" or
 * "message" of a JSON object, else the text itself. */
static char *server_message(const transfer *t, const char *token)
{
	const char *text = t->reply.s ? t->reply.s : "";
	size_t len = t->reply.len;
	cJSON *doc = cJSON_ParseWithLength(text, len);
	const char *m = NULL;
	if (cJSON_IsObject(doc) && !(m = bv_json_str(doc, "error")))
		m = bv_json_str(doc, "message");
	char *out = m ? bv_upload_sanitize(m, strlen(m), token, MESSAGE_MAX)
		      : bv_upload_sanitize(text, len, token, MESSAGE_MAX);
	cJSON_Delete(doc);
	return out;
}

/* Where the stored upload is, from a JSON answer's "url" or "id". */
static char *server_location(const transfer *t, const char *token)
{
	cJSON *doc = t->reply.s ? cJSON_ParseWithLength(t->reply.s, t->reply.len) : NULL;
	const char *v = NULL;
	if (cJSON_IsObject(doc) && !(v = bv_json_str(doc, "url")))
		v = bv_json_str(doc, "id");
	char *out = v ? bv_upload_sanitize(v, strlen(v), token, 1000) : NULL;
	cJSON_Delete(doc);
	return out;
}

static char *header_value(const char *s)
{
	/* A header is one line of visible ASCII; anything else would let a
	 * name inject another header. */
	char *v = bv_strdup(s);
	for (char *p = v; *p; p++)
		if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
			*p = '_';
	return v;
}

int bv_upload(const bv_upload_opts *o, int fd, unsigned long long size, const char *sha256, char **location,
	      long *status_out)
{
	*location = NULL;
	*status_out = 0;
	bv_http_global_init();
	CURL *c = curl_easy_init();
	if (!c)
		return bv_fail(BV_ERUN, "cannot start libcurl");
	char errbuf[CURL_ERROR_SIZE];
	transfer t = {fd, size, 0, BV_BUF_INIT, 0, 0, 0, errbuf};
	struct curl_slist *hdrs = NULL;
	char *run = header_value(o->run_id);
	char *h_sha = bv_asprintf("X-Bench-Versions-Sha256: %s", sha256);
	char *h_run = bv_asprintf("X-Bench-Versions-Run: %s", run);
	hdrs = curl_slist_append(hdrs, "Content-Type: application/gzip");
	hdrs = curl_slist_append(hdrs, h_sha);
	hdrs = curl_slist_append(hdrs, h_run);

	bv_http_setup(c, o->url, errbuf, o->timeout_s, o->timeout_s, LOW_SPEED_BYTES);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)size);
	curl_easy_setopt(c, CURLOPT_READFUNCTION, on_read);
	curl_easy_setopt(c, CURLOPT_READDATA, &t);
	curl_easy_setopt(c, CURLOPT_SEEKFUNCTION, on_seek);
	curl_easy_setopt(c, CURLOPT_SEEKDATA, &t);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_reply);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &t);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	if (o->token) {
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BEARER);
		curl_easy_setopt(c, CURLOPT_XOAUTH2_BEARER, o->token);
	}

	char *what = bv_asprintf("upload: %s", o->url);
	bv_http_retry retry = {.attempts = o->attempts, .backoff_s = o->backoff_s, .cap_s = o->max_wait_s,
			       .what = what, .errbuf = errbuf, .reset = on_reset, .check = on_check,
			       .payload = &t, .stall_s = o->timeout_s};
	bv_http_result res = bv_http_perform(c, &retry);
	free(what);
	long st = res.status;
	*status_out = st;
	char tries[64] = "";
	if (res.tries > 1)
		snprintf(tries, sizeof(tries), " (gave up after %d attempts)", res.tries);
	int rc = 0;
	if (res.interrupted) {
		rc = bv_fail_interrupted();
	} else if (res.cc == CURLE_OK && st >= 200 && st < 300) {
		*location = server_location(&t, o->token);
	} else if (t.reply_too_big) {
		rc = bv_fail(BV_ERUN, "upload to %s: the server's answer is larger than %d KiB: not an upload server?",
			     o->url, REPLY_MAX >> 10);
	} else if (res.cc == CURLE_OK && st >= 300 && st < 400) {
		char *to = NULL;
		curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &to);
		char *where = to ? bv_upload_sanitize(to, strlen(to), o->token, 300) : bv_strdup("(no Location)");
		rc = bv_fail(BV_EINPUT,
			     "upload to %s: the server answered HTTP %ld, a redirect to %s; share follows no "
			     "redirects (the token would go along): give that URL to --url if you trust it",
			     o->url, st, where);
		free(where);
	} else if (res.cc == CURLE_OK) {
		char *msg = server_message(&t, o->token);
		const char *hint = "";
		if (st == 401 || st == 403)
			hint = " (check the token: BENCH_VERSIONS_TOKEN or --token-file)";
		else if (st == 413)
			hint = " (the archive is too large for this server)";
		/* The server's fault, or a moment's (5xx, 408, 429): a failure; its
		 * considered "no" (other 4xx): input to fix. */
		int final = st >= 400 && st < 500 && !bv_http_transient(res.cc, st);
		rc = bv_fail(final ? BV_EINPUT : BV_ERUN, "upload to %s %s: HTTP %ld%s%s%s%s%s", o->url,
			     final ? "refused" : "failed", st, reason(st), msg[0] ? ": " : "", msg, hint, tries);
		free(msg);
	} else if (res.cc == CURLE_OPERATION_TIMEDOUT) {
		rc = bv_fail(BV_ERUN, "upload to %s: timed out: %s (--timeout %ld)%s", o->url,
			     errbuf[0] ? errbuf : "no answer", o->timeout_s, tries);
	} else {
		char *msg = bv_upload_sanitize(errbuf[0] ? errbuf : curl_easy_strerror(res.cc),
					       strlen(errbuf[0] ? errbuf : curl_easy_strerror(res.cc)), o->token, 300);
		rc = bv_fail(BV_ERUN, "upload to %s: %s%s", o->url, msg, tries);
		free(msg);
	}
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(c);
	bv_buf_free(&t.reply);
	free(run), free(h_sha), free(h_run);
	return rc;
}
