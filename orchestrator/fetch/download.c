/*
 * download.c - fetching release indexes and tarballs with libcurl.
 *
 * The server is not trusted: every transfer has a connect timeout, a floor
 * on the transfer rate (so a stalled server cannot hang a run; both are
 * BENCH_VERSIONS_NET_TIMEOUT seconds, default 30), a maximum
 * size checked both against what the server announces and against what
 * actually arrives, and at most a few redirects, which may only lead to
 * http(s) (never from a web server to file://).  Transient failures
 * (timeouts, 5xx, dropped connections) are retried twice with backoff (http.c); an
 * HTTP error below 500 other than 408 and 429 is final and its status is in the message.  The
 * sha256 of what was written is computed on the way, with libcrypto's EVP
 * interface, so the caller can verify without reading the file again.
 */
#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "download.h"
#include "http.h"
#include "proc.h"

enum {
	NET_TIMEOUT_S = 30,	/* default: connecting, or below ... */
	LOW_SPEED_BYTES = 1024, /* ... this many bytes a second, for this long is a timeout */
	MAX_REDIRECTS = 5,
	ATTEMPTS = 3,
	MAX_WAIT_S = 30, /* the longest a Retry-After may hold us */
};

int bv_net_timeout_s(void)
{
	const char *env = getenv("BENCH_VERSIONS_NET_TIMEOUT");
	char *end;
	long v = env && *env ? strtol(env, &end, 10) : 0;
	return env && *env && !*end && v >= 1 && v <= 3600 ? (int)v : NET_TIMEOUT_S;
}

typedef struct sink {
	FILE *f;   /* a file, or ... */
	bv_buf *b; /* ... memory */
	size_t max, written;
	int too_big;
	EVP_MD_CTX *md;
} sink;

static size_t on_data(char *data, size_t size, size_t n, void *payload)
{
	sink *s = payload;
	size_t len = size * n;
	/* The announced size may lie (or be absent): count what arrives. */
	if (len > s->max - s->written) {
		s->too_big = 1;
		return 0; /* aborts the transfer with CURLE_WRITE_ERROR */
	}
	if (s->f && fwrite(data, 1, len, s->f) != len)
		return 0;
	if (s->b)
		bv_buf_putn(s->b, data, len);
	if (s->md)
		EVP_DigestUpdate(s->md, data, len);
	s->written += len;
	return len;
}

/* Back to empty before another attempt. */
static int sink_reset(sink *s)
{
	s->written = 0;
	s->too_big = 0;
	if (s->b) {
		s->b->len = 0;
		if (s->b->s)
			s->b->s[0] = '\0';
	}
	if (s->f && (fflush(s->f) != 0 || ftruncate(fileno(s->f), 0) != 0 || fseek(s->f, 0, SEEK_SET) != 0))
		return -1;
	if (s->md && !EVP_DigestInit_ex(s->md, EVP_sha256(), NULL))
		return -1;
	return 0;
}

static int reset_sink(void *payload)
{
	return sink_reset(payload) == 0 ? 0 : BV_ERUN;
}

/* url goes to libcurl as it is; every message names it without any
 * user:password@ (shown). */
static int transfer(const char *url, sink *s)
{
	char scheme[16];
	bv_url_scheme(url, scheme);
	char *shown = bv_url_redact(url);
	int rc = 0;
	CURL *c = NULL;
	if (strcmp(scheme, "http") && strcmp(scheme, "https") && strcmp(scheme, "file"))
		rc = bv_fail(BV_EINPUT, "%s: only http://, https:// and file:// URLs can be downloaded", shown);
	else {
		bv_http_global_init();
		if (!(c = curl_easy_init()))
			rc = bv_fail(BV_ERUN, "%s: cannot start libcurl", shown);
	}
	if (rc) {
		free(shown);
		return rc;
	}
	char errbuf[CURL_ERROR_SIZE];
	bv_http_setup(c, url, errbuf, bv_net_timeout_s(), bv_net_timeout_s(), LOW_SPEED_BYTES);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https,file");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, (long)MAX_REDIRECTS);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)s->max);
	curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, s);

	char *what = bv_asprintf("download: %s", shown);
	bv_http_retry retry = {.attempts = ATTEMPTS, .backoff_s = 1.0, .cap_s = MAX_WAIT_S, .what = what,
			       .errbuf = errbuf, .reset = reset_sink, .payload = s, .stall_s = bv_net_timeout_s()};
	bv_http_result res = bv_http_perform(c, &retry);
	free(what);
	CURLcode cc = res.cc;
	long status = res.status;
	const char *tries = res.tries > 1 ? " (gave up after retries)" : "";
	if (res.interrupted)
		rc = bv_fail_interrupted();
	else if (res.reset_rc)
		rc = bv_fail(BV_ERUN, "%s: cannot reset the download: %s", shown, strerror(errno));
	else if (cc == CURLE_OK)
		rc = 0;
	else if (s->too_big || cc == CURLE_FILESIZE_EXCEEDED)
		rc = bv_fail(BV_EINPUT, "%s: larger than the limit of %zu bytes", shown, s->max);
	else if (cc == CURLE_HTTP_RETURNED_ERROR)
		rc = bv_fail(status >= 500 ? BV_ERUN : BV_EINPUT, "%s: HTTP status %ld%s%s", shown, status,
			     status == 404 ? " (not found)" : "", tries);
	else
		rc = bv_fail(cc == CURLE_FILE_COULDNT_READ_FILE ? BV_EINPUT : BV_ERUN, "%s: %s%s%s", shown,
			     errbuf[0] ? errbuf : curl_easy_strerror(cc), tries,
			     cc == CURLE_OPERATION_TIMEDOUT ? " (BENCH_VERSIONS_NET_TIMEOUT sets how long a "
							      "silent server is waited for)"
							    : "");
	curl_easy_cleanup(c);
	free(shown);
	return rc;
}

int bv_download(const char *url, const char *path, size_t max, char sha256[65])
{
	FILE *f = fopen(path, "wbx"); /* x: never follow or reuse what is there */
	if (!f)
		return bv_fail(BV_ERUN, "cannot create %s: %s", path, strerror(errno));
	sink s = {.f = f, .max = max, .md = EVP_MD_CTX_new()};
	int rc = s.md ? transfer(url, &s) : bv_fail(BV_ERUN, "cannot start sha256");
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	if (rc == 0 && (!EVP_DigestFinal_ex(s.md, md, &mdlen) || mdlen != 32))
		rc = bv_fail(BV_ERUN, "cannot compute sha256 of %s", path);
	if (fclose(f) != 0 && rc == 0)
		rc = bv_fail(BV_ERUN, "cannot write %s: %s", path, strerror(errno));
	EVP_MD_CTX_free(s.md);
	if (rc) {
		unlink(path);
		return rc;
	}
	for (unsigned i = 0; i < 32; i++)
		snprintf(sha256 + 2 * i, 3, "%02x", md[i]);
	return 0;
}

int bv_download_mem(const char *url, size_t max, char **out, size_t *len)
{
	bv_buf b = BV_BUF_INIT;
	sink s = {.b = &b, .max = max};
	int rc = transfer(url, &s);
	if (rc) {
		bv_buf_free(&b);
		*out = NULL;
		return rc;
	}
	*len = b.len;
	*out = bv_buf_detach(&b);
	return 0;
}

void bv_url_scheme(const char *url, char out[16])
{
	size_t n = 0;
	out[0] = '\0';
	if (!isalpha((unsigned char)url[0]))
		return;
	while (n < 15 && (isalnum((unsigned char)url[n]) || url[n] == '+' || url[n] == '-' || url[n] == '.'))
		n++;
	if (url[n] != ':')
		return;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)url[i]);
	out[n] = '\0';
}

char *bv_url_redact(const char *url)
{
	/* libcurl's parser finds the userinfo exactly where libcurl will send
	 * it from, percent-encoding, IPv6 hosts and odd schemes included. */
	CURLU *u = curl_url();
	char *user = NULL, *password = NULL, *options = NULL, *shown = NULL, *out = NULL;
	if (u && curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK) {
		curl_url_get(u, CURLUPART_USER, &user, 0);
		curl_url_get(u, CURLUPART_PASSWORD, &password, 0);
		curl_url_get(u, CURLUPART_OPTIONS, &options, 0);
		if (!user && !password && !options)
			out = bv_escape(url); /* as given: nothing to hide */
		else if (curl_url_set(u, CURLUPART_USER, "***", 0) == CURLUE_OK &&
			 curl_url_set(u, CURLUPART_PASSWORD, NULL, 0) == CURLUE_OK &&
			 curl_url_set(u, CURLUPART_OPTIONS, NULL, 0) == CURLUE_OK &&
			 curl_url_get(u, CURLUPART_URL, &shown, 0) == CURLUE_OK)
			out = bv_escape(shown);
	}
	curl_free(user), curl_free(password), curl_free(options), curl_free(shown);
	curl_url_cleanup(u);
	if (out)
		return out;
	/* Not a URL libcurl takes (it will not be fetched either, but it is
	 * shown in the error): everything before an '@' in what follows the
	 * scheme is hidden.  Without "://" nothing is (git's user@host:path
	 * has no password). */
	const char *auth = strstr(url, "://");
	if (!auth)
		return bv_escape(url);
	auth += 3;
	size_t n = strcspn(auth, "/?#");
	const char *at = NULL;
	for (const char *p = auth; p < auth + n; p++)
		if (*p == '@')
			at = p;
	char *hidden = at ? bv_asprintf("%.*s***%s", (int)(auth - url), url, at) : bv_strdup(url);
	out = bv_escape(hidden);
	free(hidden);
	return out;
}

char *bv_url_join(const char *base, const char *ref)
{
	/* libcurl's URL parser resolves a reference against a base the way
	 * RFC 3986 says, so "kernels-0.1.0.tar.gz" next to an index works for
	 * http:// and file:// alike. */
	CURLU *u = curl_url();
	char *joined = NULL, *out = NULL;
	if (!u) {
		bv_fail(BV_ERUN, "cannot start libcurl's URL parser");
		return NULL;
	}
	char *sbase = bv_url_redact(base), *sref = bv_url_redact(ref); /* for messages */
	CURLUcode uc = curl_url_set(u, CURLUPART_URL, base, 0);
	if (uc != CURLUE_OK)
		bv_fail(BV_EINPUT, "'%s' is not a URL: %s", sbase, curl_url_strerror(uc));
	else if ((uc = curl_url_set(u, CURLUPART_URL, ref, 0)) != CURLUE_OK)
		bv_fail(BV_EINPUT, "'%s' is not a URL relative to %s: %s", sref, sbase, curl_url_strerror(uc));
	else if ((uc = curl_url_get(u, CURLUPART_URL, &joined, 0)) != CURLUE_OK)
		bv_fail(BV_EINPUT, "cannot join '%s' to %s: %s", sref, sbase, curl_url_strerror(uc));
	else
		out = bv_strdup(joined);
	free(sbase), free(sref);
	curl_free(joined);
	curl_url_cleanup(u);
	return out;
}
