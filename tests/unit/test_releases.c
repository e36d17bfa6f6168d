/* test_releases.c - the release index parser: hostile input is refused with
 * a message naming the index and the field; good input resolves URLs. */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "download.h"
#include "releases.h"
#include "remote.h"
#include "tests.h"

#define SRC "https://example.invalid/rel/index.json"
#define SHA "ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12"
#define HEAD "{\"schema\":\"bench-versions-releases\",\"schema_version\":\"1.0\",\"releases\":"

static int parse(const char *text, bv_release_index *idx)
{
	return bv_release_index_parse(SRC, text, strlen(text), idx);
}

/* text is refused with a message containing want. */
static void refused(const char *text, const char *want)
{
	bv_release_index idx;
	assert_int_equal(parse(text, &idx), BV_EINPUT);
	if (!strstr(bv_error_last(), want) || !strstr(bv_error_last(), SRC))
		fail_msg("message '%s' lacks '%s' or the index URL", bv_error_last(), want);
	assert_int_equal(idx.n, 0);
}

static void a_good_index_resolves_urls(void **state)
{
	(void)state;
	bv_release_index idx;
	const char *text = HEAD "[{\"version\":\"0.1.0\",\"url\":\"kernels-0.1.0.tar.gz\",\"sha256\":\"" SHA "\"},"
			       "{\"version\":\"0.2.0\",\"url\":\"../up/k.tar.gz\",\"sha256\":\"" SHA "\",\"note\":1},"
			       "{\"version\":\"1.0.0\",\"url\":\"https://cdn.invalid/k.tgz\",\"sha256\":\""
			       "AB12AB12AB12AB12AB12AB12AB12AB12AB12AB12AB12AB12AB12AB12AB12AB12\"}]}";
	assert_int_equal(parse(text, &idx), 0);
	assert_int_equal(idx.n, 3);
	assert_string_equal(bv_release_find(&idx, "0.1.0")->url, "https://example.invalid/rel/kernels-0.1.0.tar.gz");
	assert_string_equal(bv_release_find(&idx, "0.2.0")->url, "https://example.invalid/up/k.tar.gz");
	assert_string_equal(bv_release_find(&idx, "1.0.0")->url, "https://cdn.invalid/k.tgz");
	assert_string_equal(bv_release_find(&idx, "1.0.0")->sha256, SHA); /* lower-cased */
	assert_null(bv_release_find(&idx, "0.3.0"));
	bv_release_index_free(&idx);

	/* A later minor schema version still reads; an empty list is fine. */
	assert_int_equal(parse("{\"schema\":\"bench-versions-releases\",\"schema_version\":\"1.7\",\"releases\":[]}", &idx),
			 0);
	assert_int_equal(idx.n, 0);
	bv_release_index_free(&idx);
}

static void file_urls_only_from_a_file_index(void **state)
{
	(void)state;
	bv_release_index idx;
	const char *text = HEAD "[{\"version\":\"0.1.0\",\"url\":\"k.tar.gz\",\"sha256\":\"" SHA "\"}]}";
	assert_int_equal(bv_release_index_parse("file:///srv/rel/index.json", text, strlen(text), &idx), 0);
	assert_string_equal(idx.releases[0].url, "file:///srv/rel/k.tar.gz");
	bv_release_index_free(&idx);
	refused(HEAD "[{\"version\":\"0.1.0\",\"url\":\"file:///etc/passwd\",\"sha256\":\"" SHA "\"}]}",
		"releases[0].url");
	refused(HEAD "[{\"version\":\"0.1.0\",\"url\":\"ftp://x.invalid/k.tgz\",\"sha256\":\"" SHA "\"}]}",
		"scheme 'ftp' is not allowed");
}

static void hostile_indexes_are_refused(void **state)
{
	(void)state;
	refused("{\"schema\":", "malformed JSON");
	refused("[]", "expected a JSON object");
	refused("{\"schema_version\":\"1.0\",\"releases\":[]}", "schema: expected");
	refused("{\"schema\":\"other\",\"schema_version\":\"1.0\",\"releases\":[]}", "schema: expected");
	refused("{\"schema\":\"bench-versions-releases\",\"releases\":[]}", "schema_version: expected");
	refused("{\"schema\":\"bench-versions-releases\",\"schema_version\":1.0,\"releases\":[]}", "schema_version: expected");
	refused("{\"schema\":\"bench-versions-releases\",\"schema_version\":\"2.0\",\"releases\":[]}",
		"schema_version: 2.0 is not supported");
	refused("{\"schema\":\"bench-versions-releases\",\"schema_version\":\"1.0\"}", "releases: missing");
	refused(HEAD "{}}", "releases: expected an array");
	refused(HEAD "[7]}", "releases[0]: expected an object");
	refused(HEAD "[{\"url\":\"k.tgz\",\"sha256\":\"" SHA "\"}]}", "releases[0].version: missing");
	refused(HEAD "[{\"version\":1,\"url\":\"k.tgz\",\"sha256\":\"" SHA "\"}]}", "releases[0].version: expected a string");
	refused(HEAD "[{\"version\":\"latest\",\"url\":\"k.tgz\",\"sha256\":\"" SHA "\"}]}",
		"releases[0].version: 'latest' is not a version number");
	refused(HEAD "[{\"version\":\"0.1.0\",\"sha256\":\"" SHA "\"}]}", "releases[0].url: missing");
	refused(HEAD "[{\"version\":\"0.1.0\",\"url\":[],\"sha256\":\"" SHA "\"}]}", "releases[0].url: expected a string");
	refused(HEAD "[{\"version\":\"0.1.0\",\"url\":\"\",\"sha256\":\"" SHA "\"}]}", "releases[0].url: expected 1 to");
	refused(HEAD "[{\"version\":\"0.1.0\",\"url\":\"a b\",\"sha256\":\"" SHA "\"}]}", "releases[0].url: contains a space");
	refused(HEAD "[{\"version\":\"0.1.0\",\"url\":\"k.tgz\"}]}", "releases[0].sha256: missing");
	refused(HEAD "[{\"version\":\"0.1.0\",\"url\":\"k.tgz\",\"sha256\":null}]}", "releases[0].sha256: expected a string");
	refused(HEAD "[{\"version\":\"0.1.0\",\"url\":\"k.tgz\",\"sha256\":\"ab12\"}]}", "releases[0].sha256: expected 64 hex");
	refused(HEAD "[{\"version\":\"0.1.0\",\"url\":\"k.tgz\",\"sha256\":\"" SHA "00\"}]}", "releases[0].sha256: expected 64 hex");
	refused(HEAD "[{\"version\":\"0.1.0\",\"url\":\"k.tgz\",\"sha256\":\"zz12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12\"}]}",
		"releases[0].sha256: expected 64 hex");
	refused(HEAD "[{\"version\":\"0.1.0\",\"url\":\"a.tgz\",\"sha256\":\"" SHA "\"},"
		     "{\"version\":\"0.1.0\",\"url\":\"b.tgz\",\"sha256\":\"" SHA "\"}]}",
		"releases[1].version: 0.1.0 is listed twice (also releases[0])");
	/* Positions name line and column. */
	refused("{\"schema\": \"bench-versions-releases\",\n \"releases\": [,]}", SRC ":2:15: malformed JSON");
}

static void urls_join_like_a_browser(void **state)
{
	(void)state;
	char *u = bv_url_join("http://h.invalid:8080/a/b/index.json?x=1", "c/k.tar.gz");
	assert_string_equal(u, "http://h.invalid:8080/a/b/c/k.tar.gz");
	free(u);
	u = bv_url_join("http://h.invalid/a/index.json", "/k.tar.gz");
	assert_string_equal(u, "http://h.invalid/k.tar.gz");
	free(u);
	char s[16];
	bv_url_scheme("HTTPS://x", s);
	assert_string_equal(s, "https");
	bv_url_scheme("/just/a/path", s);
	assert_string_equal(s, "");
	bv_url_scheme("C:", s);
	assert_string_equal(s, "c");
}

/* What is shown or stored of a URL never holds its user:password@; a URL
 * without them is shown exactly as given. */
static void credentials_in_urls_are_never_shown(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
	    {"http://ci:hunter2@h.invalid:8080/a/index.json", "http://***@h.invalid:8080/a/index.json"},
	    {"https://ghp_abc@github.invalid/org/k.git", "https://***@github.invalid/org/k.git"},
	    {"https://u:p%40ss@h.invalid/i.json?x=1#f", "https://***@h.invalid/i.json?x=1#f"},
	    {"ssh://git:pw@h.invalid/k.git", "ssh://***@h.invalid/k.git"},
	    {"http://u:p@[::1]:80/i.json", "http://***@[::1]:80/i.json"},
	    {"http://h.invalid/a/../i.json", "http://h.invalid/a/../i.json"}, /* untouched */
	    {"file:///srv/rel/index.json", "file:///srv/rel/index.json"},
	    {"git@github.invalid:org/k.git", "git@github.invalid:org/k.git"}, /* scp-like: no password */
	    {"bogus://a:b@c d/x", "bogus://***@c d/x"},			      /* not a URL libcurl takes */
	    {"not a url", "not a url"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *shown = bv_url_redact(cases[i][0]);
		assert_string_equal(shown, cases[i][1]);
		free(shown);
	}
	/* The index keeps the real URL for fetching, and only that. */
	bv_release_index idx;
	const char *text = "{\"schema\": \"bench-versions-releases\", \"schema_version\": \"1.0\", \"releases\": "
			   "[{\"version\": \"0.1.0\", \"url\": \"k.tar.gz\", \"sha256\": \"" SHA "\"}]}";
	assert_int_equal(bv_release_index_parse("https://ci:hunter2@h.invalid/r/index.json", text, strlen(text), &idx), 0);
	assert_string_equal(idx.source, "https://***@h.invalid/r/index.json");
	assert_string_equal(idx.releases[0].url, "https://ci:hunter2@h.invalid/r/k.tar.gz");
	assert_string_equal(idx.releases[0].shown, "https://***@h.invalid/r/k.tar.gz");
	bv_release_index_free(&idx);
	const char *bad = "{\"schema\": 1}";
	assert_int_equal(bv_release_index_parse("https://ci:hunter2@h.invalid/i.json", bad, strlen(bad), &idx), BV_EINPUT);
	assert_null(strstr(bv_error_last(), "hunter2"));
	assert_non_null(strstr(bv_error_last(), "https://***@h.invalid/i.json: schema"));
}

static void remote_names_are_told_from_paths(void **state)
{
	(void)state;
	assert_true(bv_repo_is_url("file:///srv/kernels.git"));
	assert_true(bv_repo_is_url("https://example.invalid/k.git"));
	assert_true(bv_repo_is_url("git@example.invalid:org/k.git"));
	assert_false(bv_repo_is_url("/srv/kernels"));
	assert_false(bv_repo_is_url("./a:b"));
}

int test_releases(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_good_index_resolves_urls),
		cmocka_unit_test(file_urls_only_from_a_file_index),
		cmocka_unit_test(hostile_indexes_are_refused),
		cmocka_unit_test(urls_join_like_a_browser),
		cmocka_unit_test(credentials_in_urls_are_never_shown),
		cmocka_unit_test(remote_names_are_told_from_paths),
	};
	return test_run_group("releases", tests, NULL, NULL);
}
