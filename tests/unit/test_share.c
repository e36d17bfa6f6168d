/* test_share.c - share's pieces without a server: the packer (read back with
 * libarchive), the URL policy, tokens and the environments children get
 * without them, the sanitiser for server messages and the retry arithmetic. */
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd_share.h"
#include "common.h"
#include "env.h"
#include "fs.h"
#include "http.h"
#include "pack.h"
#include "tests.h"
#include "upload.h"

#define TOKEN "tok-0123456789abcdef"

static char *results_fixture(void)
{
	char *d = test_tmpdir();
	test_write(d, "main.json", "{\"schema\":\"bench-versions-results\"}\n");
	test_write(d, "base.json", "{\"schema\":\"bench-versions-results\"}\n");
	char *raw = bv_asprintf("%s/raw", d);
	assert_int_equal(mkdir(raw, 0755), 0);
	test_write(raw, "process-1.json", "{}\n");
	free(raw);
	return d;
}

static int anon_file(void)
{
	int fd = open("/tmp", O_RDWR | O_TMPFILE, 0600);
	assert_true(fd >= 0);
	return fd;
}

/* Every entry name, and the contents of the one called want, read back. */
static char *read_back(int fd, char *names, size_t n, const char *want)
{
	struct archive *a = archive_read_new();
	archive_read_support_filter_gzip(a);
	archive_read_support_format_tar(a);
	lseek(fd, 0, SEEK_SET);
	assert_int_equal(archive_read_open_fd(a, fd, 4096), ARCHIVE_OK);
	struct archive_entry *e;
	char *body = NULL;
	names[0] = '\0';
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		strncat(names, archive_entry_pathname(e), n - strlen(names) - 2);
		strcat(names, ",");
		assert_int_equal(archive_entry_uid(e), 0);
		if (want && !strcmp(archive_entry_pathname(e), want)) {
			body = calloc(1, (size_t)archive_entry_size(e) + 1);
			assert_int_equal(archive_read_data(a, body, (size_t)archive_entry_size(e)),
					 archive_entry_size(e));
		}
	}
	archive_read_free(a);
	return body;
}

static void pack_is_sorted_under_one_top_dir(void **state)
{
	(void)state;
	char *d = results_fixture();
	int fd = anon_file();
	bv_pack_info info;
	assert_int_equal(bv_pack_dir(d, "run-1", fd, NULL, &info), 0);
	assert_int_equal(info.files, 3);
	assert_int_equal(strlen(info.sha256), 64);
	char names[1024];
	char *body = read_back(fd, names, sizeof(names), "run-1/raw/process-1.json");
	assert_string_equal(names, "run-1/,run-1/base.json,run-1/main.json,run-1/raw/,run-1/raw/process-1.json,");
	assert_non_null(body);
	assert_string_equal(body, "{}\n");
	free(body);
	close(fd);
	bv_rm_rf(d);
	free(d);
}

static void pack_is_deterministic(void **state)
{
	(void)state;
	char *d = results_fixture();
	int a = anon_file(), b = anon_file();
	bv_pack_info ia, ib;
	assert_int_equal(bv_pack_dir(d, "r", a, NULL, &ia), 0);
	sleep(1); /* a time in the gzip header would now differ */
	assert_int_equal(bv_pack_dir(d, "r", b, NULL, &ib), 0);
	assert_string_equal(ia.sha256, ib.sha256);
	assert_true(ia.size == ib.size && ia.size > 0);
	close(a), close(b);
	bv_rm_rf(d);
	free(d);
}

static void refused_with(const char *d, const char *forbid, const char *want)
{
	int fd = anon_file();
	bv_pack_info info;
	assert_int_equal(bv_pack_dir(d, "r", fd, forbid, &info), BV_EINPUT);
	if (!strstr(bv_error_last(), want))
		fail_msg("message '%s' lacks '%s'", bv_error_last(), want);
	close(fd);
}

static void pack_refuses_links_fifos_and_the_token(void **state)
{
	(void)state;
	char *d = results_fixture();
	char *p = bv_asprintf("%s/raw/link", d);
	assert_int_equal(symlink("/etc/hostname", p), 0);
	refused_with(d, NULL, "raw/link is a symlink");
	unlink(p);
	assert_int_equal(mkfifo(p, 0600), 0);
	refused_with(d, NULL, "raw/link is a FIFO");
	unlink(p);
	free(p);

	/* The token straddling two 64 KiB reads is still found. */
	char *big = bv_xmalloc(65536 + 64);
	memset(big, 'a', 65536 - 5);
	strcpy(big + 65536 - 5, TOKEN "\n");
	test_write(d, "big.txt", big);
	free(big);
	refused_with(d, TOKEN, "big.txt holds the upload token");
	if (strstr(bv_error_last(), TOKEN))
		fail_msg("the message shows the token");
	int fd = anon_file();
	bv_pack_info info;
	assert_int_equal(bv_pack_dir(d, "r", fd, "another-token", &info), 0);
	close(fd);
	bv_rm_rf(d);
	free(d);
}

static void pack_refuses_bad_top_names(void **state)
{
	(void)state;
	char *d = results_fixture();
	int fd = anon_file();
	bv_pack_info info;
	assert_int_equal(bv_pack_dir(d, "..", fd, NULL, &info), BV_EINPUT);
	assert_int_equal(bv_pack_dir(d, "a/b", fd, NULL, &info), BV_EINPUT);
	assert_int_equal(bv_pack_dir(d, "", fd, NULL, &info), BV_EINPUT);
	char *missing = bv_asprintf("%s/none", d);
	assert_int_equal(bv_pack_dir(missing, "r", fd, NULL, &info), BV_EINPUT);
	free(missing);
	close(fd);
	bv_rm_rf(d);
	free(d);
}

static void url_policy(void **state)
{
	(void)state;
	char *t = NULL;
	assert_int_equal(bv_upload_check_url("http://127.0.0.1:8080/up/", "20260101T000000Z", 0, &t), 0);
	assert_string_equal(t, "http://127.0.0.1:8080/up/20260101T000000Z.tar.gz");
	free(t);
	assert_int_equal(bv_upload_check_url("https://example.invalid/x/", "my run", 0, &t), 0);
	assert_string_equal(t, "https://example.invalid/x/my%20run.tar.gz");
	free(t);
	assert_int_equal(bv_upload_check_url("https://example.invalid/put/here.tgz", "r", 0, &t), 0);
	assert_string_equal(t, "https://example.invalid/put/here.tgz");
	free(t);
	assert_int_equal(bv_upload_check_url("http://localhost/", "r", 0, &t), 0);
	free(t);
	assert_int_equal(bv_upload_check_url("http://127.3.2.1/", "r", 0, &t), 0);
	free(t);
	assert_int_equal(bv_upload_check_url("http://[::1]:9/", "r", 0, &t), 0);
	free(t);
	assert_int_equal(bv_upload_check_url("http://example.invalid/", "r", 0, &t), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "--insecure-http"));
	assert_null(t);
	assert_int_equal(bv_upload_check_url("http://128.0.0.1/", "r", 0, &t), BV_EINPUT);
	assert_int_equal(bv_upload_check_url("http://example.invalid/", "r", 1, &t), 0);
	free(t);
	assert_int_equal(bv_upload_check_url("https://me:s3cret@example.invalid/", "r", 0, &t), BV_EINPUT);
	assert_null(strstr(bv_error_last(), "s3cret"));
	assert_int_equal(bv_upload_check_url("ftp://example.invalid/", "r", 0, &t), BV_EINPUT);
	assert_int_equal(bv_upload_check_url("not a url", "r", 0, &t), BV_EINPUT);
}

static void tokens(void **state)
{
	(void)state;
	char ok[] = TOKEN "\r\n";
	assert_int_equal(bv_token_clean(ok, "env"), 0);
	assert_string_equal(ok, TOKEN);
	char spaced[] = "abc def";
	assert_int_equal(bv_token_clean(spaced, "env"), BV_EINPUT);
	assert_null(strstr(bv_error_last(), "abc"));
	assert_non_null(strstr(bv_error_last(), "position 4"));
	char empty[] = "\n";
	assert_int_equal(bv_token_clean(empty, "env"), BV_EINPUT);

	char *d = test_tmpdir();
	test_write(d, "token", TOKEN "\n");
	char *path = bv_asprintf("%s/token", d), *tok = NULL;
	chmod(path, 0644);
	assert_int_equal(bv_token_read_file(path, &tok), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "chmod 600"));
	assert_null(strstr(bv_error_last(), TOKEN));
	chmod(path, 0640);
	assert_int_equal(bv_token_read_file(path, &tok), BV_EINPUT);
	chmod(path, 0600);
	assert_int_equal(bv_token_read_file(path, &tok), 0);
	assert_string_equal(tok, TOKEN);
	free(tok);
	assert_int_equal(bv_token_read_file(d, &tok), BV_EINPUT); /* a directory */
	free(path);
	bv_rm_rf(d);
	free(d);
}

/* Every child runs code from the versions under test: the build tools get
 * our environment less the secrets, bv-runner an allow-list. */
static void children_get_no_secret(void **state)
{
	(void)state;
	assert_true(bv_env_is_secret("BENCH_VERSIONS_TOKEN=" TOKEN));
	assert_true(bv_env_is_secret("GITHUB_TOKEN=x"));
	assert_true(bv_env_is_secret("CI_JOB_TOKEN=x"));
	assert_true(bv_env_is_secret("AWS_SECRET_ACCESS_KEY=x"));
	assert_true(bv_env_is_secret("docker_password=x"));
	assert_true(bv_env_is_secret("OPENAI_API_KEY=x"));
	assert_true(bv_env_is_secret("SSH_AUTH_SOCK=/run/agent"));
	assert_true(bv_env_is_secret("KERNEL_RELEASES=https://ci:hunter2@example.com/index.json"));
	assert_true(bv_env_is_secret("https_proxy=http://me:pw@proxy:3128"));
	assert_false(bv_env_is_secret("KERNEL_RELEASES=https://example.com/index.json"));
	assert_false(bv_env_is_secret("KERNEL_REPO=ssh://git@example.com/k.git")); /* a user, no password */
	assert_false(bv_env_is_secret("PATH=/usr/bin:/bin"));
	assert_false(bv_env_is_secret("GIT_AUTHOR_NAME=fixture"));
	assert_false(bv_env_is_secret("KEYBOARD=us"));

	char *env[] = {"PATH=/usr/bin", "HOME=/home/u", "CC=clang", "CFLAGS=-O3", "GITHUB_TOKEN=ghp",
		       "BENCH_VERSIONS_TOKEN=" TOKEN, "LC_ALL=C", "OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1",
		       "KN_BLAS_THREADS=2", "CUDA_VISIBLE_DEVICES=0", "ASAN_OPTIONS=log_path=/tmp/a",
		       "UBSAN_OPTIONS=halt_on_error=1", "KERNEL_DIR=/k", "BENCH_VERSIONS_CACHE=/c", NULL};
	char **build = bv_child_environ(env, BV_ENV_BUILD);
	size_t n = 0;
	for (; build[n]; n++)
		assert_false(strstr(build[n], "TOKEN"));
	assert_int_equal(n, 11); /* all but the two tokens, KERNEL_DIR and BENCH_VERSIONS_CACHE */
	free(build);
	char **runner = bv_child_environ(env, BV_ENV_RUNNER);
	const char *want[] = {"PATH=/usr/bin", "HOME=/home/u", "LC_ALL=C", "OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1",
			      "KN_BLAS_THREADS=2", "CUDA_VISIBLE_DEVICES=0", "ASAN_OPTIONS=log_path=/tmp/a",
			      "UBSAN_OPTIONS=halt_on_error=1", NULL};
	for (n = 0; want[n]; n++) {
		assert_non_null(runner[n]);
		assert_string_equal(runner[n], want[n]);
	}
	assert_null(runner[n]);
	free(runner);
}

/* bv_secrets_take over an environment of the test's own (writable strings,
 * as the kernel's block is), the process's left alone; what it leaves in
 * env is checked by the caller, then take_end frees its copies (the
 * entries that are not env's strings any more) and restores environ. */
extern char **environ;
static char **saved_environ;

static void take_in(char **env, int keep_token)
{
	saved_environ = environ;
	environ = env;
	bv_secrets_take(keep_token);
}

static void take_end(char **env, char *const *strings, size_t n)
{
	for (char **e = env; *e; e++) {
		int ours = 0;
		for (size_t k = 0; k < n; k++)
			ours |= *e == strings[k];
		if (!ours)
			free(*e);
	}
	environ = saved_environ;
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

/* What a process of the same user can read of ours (/proc/PID/mem while we
 * are dumpable) holds no secret we do not need: the token only in share,
 * other secret-looking variables only when code here reads them (a proxy's
 * password), and then the process is not dumpable. */
static void secrets_are_dropped_or_guarded(void **state)
{
	(void)state;
	char gh[] = "GITHUB_TOKEN=ghp-unit", pw[] = "DEPLOY_PASSWORD=pw-unit", tok[] = "BENCH_VERSIONS_TOKEN=" TOKEN,
	     sock[] = "SSH_AUTH_SOCK=/tmp/ssh-unit/agent.1", path[] = "PATH=/usr/bin",
	     proxy[] = "https_proxy=http://me:pw@proxy:3128";
	char *strings[] = {gh, pw, tok, sock, path, proxy};
	size_t n = sizeof(strings) / sizeof(strings[0]);
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);

	char *env[] = {gh, pw, tok, sock, path, NULL};
	take_in(env, 0);
	assert_null(getenv("GITHUB_TOKEN"));
	assert_null(getenv("DEPLOY_PASSWORD"));
	assert_null(getenv("BENCH_VERSIONS_TOKEN"));
	assert_null(bv_secret_token());
	assert_string_equal(getenv("SSH_AUTH_SOCK"), "/tmp/ssh-unit/agent.1"); /* libssh2's; a path, no value */
	assert_string_equal(getenv("PATH"), "/usr/bin");
	assert_null(strstr(gh, "ghp-unit")); /* overwritten where /proc/PID/environ shows it */
	assert_null(strstr(tok, TOKEN));
	assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 1); /* it holds nothing to hide */
	take_end(env, strings, n);

	char *env2[] = {proxy, path, NULL};
	take_in(env2, 0);
	assert_string_equal(getenv("https_proxy"), "http://me:pw@proxy:3128"); /* libcurl reads it */
	assert_null(strstr(proxy, "me:pw")); /* the copy is on the heap */
	assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 0);
	take_end(env2, strings, n);

	char tok2[] = "BENCH_VERSIONS_TOKEN=" TOKEN;
	char *env3[] = {tok2, path, NULL};
	take_in(env3, 1); /* share */
	assert_null(getenv("BENCH_VERSIONS_TOKEN"));
	assert_string_equal(bv_secret_token(), TOKEN);
	assert_int_equal(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 0);
	bv_secret_token_drop();
	assert_null(bv_secret_token());
	take_end(env3, strings, n);
}

/* A build gets an allow-list, and the values in it that change what is
 * built are in the build key: an outer make's MAKEFLAGS (its command-line
 * CUDA=0 would reach the library's make) never reaches it, CUDA=0 does and
 * changes the key. */
static void builds_get_an_allow_list_and_its_values_are_keyed(void **state)
{
	(void)state;
	char *env[] = {"PATH=/usr/bin", "MAKEFLAGS= -- CUDA=0", "MAKELEVEL=1", "CUDA=0", "CFLAGS=-O3",
		       "CMAKE_BUILD_TYPE=Debug", "CMAKE_BUILD_PARALLEL_LEVEL=8", "CCACHE_DIR=/c", "PIC=-fno-pic",
		       "KERNEL_DIR=/k", "DISPLAY=:0", "CI_JOB_TOKEN=x", NULL};
	unsetenv("BENCH_VERSIONS_BUILD_ENV");
	char **build = bv_child_environ(env, BV_ENV_BUILD);
	const char *want[] = {"PATH=/usr/bin",           "CUDA=0",        "CFLAGS=-O3", "CMAKE_BUILD_TYPE=Debug",
			      "CMAKE_BUILD_PARALLEL_LEVEL=8", "CCACHE_DIR=/c", NULL};
	size_t n = 0;
	for (; want[n]; n++) {
		assert_non_null(build[n]);
		assert_string_equal(build[n], want[n]);
	}
	assert_null(build[n]);
	free(build);
	assert_true(bv_env_build_keyed("CUDA=0"));
	assert_true(bv_env_build_keyed("CMAKE_C_FLAGS=-O1"));
	assert_false(bv_env_build_keyed("CMAKE_BUILD_PARALLEL_LEVEL=8")); /* how fast, not what */
	assert_false(bv_env_build_keyed("PATH=/usr/bin"));
	assert_false(bv_env_build_keyed("PIC=-fno-pic"));
	assert_false(bv_env_build_keyed("CFLAGS")); /* no value: no entry */

	/* the user's own variable, named in BENCH_VERSIONS_BUILD_ENV */
	setenv("BENCH_VERSIONS_BUILD_ENV", "FOO, PIC", 1);
	assert_int_equal(bv_build_env_check(), 0);
	assert_true(bv_env_build_keyed("PIC=-fno-pic"));
	assert_false(bv_env_build_keyed("PI=-fno-pic")); /* whole names only */
	build = bv_child_environ(env, BV_ENV_BUILD);
	int seen = 0;
	for (n = 0; build[n]; n++)
		seen |= !strcmp(build[n], "PIC=-fno-pic");
	assert_true(seen);
	free(build);

	/* the key's lines: sorted by name, each value whole; a value changes it */
	unsetenv("CUDA"), unsetenv("CFLAGS"), unsetenv("PIC");
	char *before = bv_build_env_key();
	setenv("PIC", "-fno-pic", 1);
	setenv("CUDA", "0", 1);
	char *after = bv_build_env_key();
	assert_string_not_equal(before, after);
	char *cuda = strstr(after, "env 6 CUDA=0\n"), *pic = strstr(after, "env 12 PIC=-fno-pic\n");
	assert_non_null(cuda);
	assert_non_null(pic);
	assert_true(cuda < pic);
	setenv("CUDA", "1", 1);
	char *other = bv_build_env_key();
	assert_string_not_equal(after, other);
	free(before), free(after), free(other);
	unsetenv("CUDA"), unsetenv("PIC");

	/* names only, and no secret */
	setenv("BENCH_VERSIONS_BUILD_ENV", "PIC,9LIVES", 1);
	assert_int_equal(bv_build_env_check(), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "\"9LIVES\" is not a variable's name"));
	setenv("BENCH_VERSIONS_BUILD_ENV", "PIC,CFLAGS=-O0", 1);
	assert_int_equal(bv_build_env_check(), BV_EINPUT);
	setenv("BENCH_VERSIONS_BUILD_ENV", "DEPLOY_TOKEN", 1);
	assert_int_equal(bv_build_env_check(), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "looks like a secret"));
	assert_false(bv_env_build_keyed("DEPLOY_TOKEN=x"));
	unsetenv("BENCH_VERSIONS_BUILD_ENV");
	assert_int_equal(bv_build_env_check(), 0);
}

static void sanitizing_server_messages(void **state)
{
	(void)state;
	const char *msg = "bad\x1b[31m token\n\n  " TOKEN " here";
	char *s = bv_upload_sanitize(msg, strlen(msg), TOKEN, 200);
	assert_string_equal(s, "bad\\x1b[31m token [token] here");
	free(s);
	s = bv_upload_sanitize("abcdefgh", 8, NULL, 4);
	assert_string_equal(s, "abcd...");
	free(s);
	s = bv_upload_sanitize("", 0, TOKEN, 10);
	assert_string_equal(s, "");
	free(s);
}

static void retry_arithmetic(void **state)
{
	(void)state;
	assert_true(bv_http_wait(2, 1, 0, 60) == 1);
	assert_true(bv_http_wait(3, 1, 0, 60) == 2);
	assert_true(bv_http_wait(5, 1, 0, 60) == 8);
	assert_true(bv_http_wait(20, 1, 0, 60) == 60);    /* capped */
	assert_true(bv_http_wait(2, 1, 7, 60) == 7);      /* Retry-After asks for longer */
	assert_true(bv_http_wait(4, 1, 2, 60) == 4);      /* ... but not shorter */
	assert_true(bv_http_wait(2, 1, 100000, 60) == 60); /* within the cap */
	assert_true(bv_http_wait(2, 0, 0, 60) == 0);
	assert_true(bv_http_transient(CURLE_OK, 503));
	assert_true(bv_http_transient(CURLE_OK, 429));
	assert_true(bv_http_transient(CURLE_OK, 408));
	assert_false(bv_http_transient(CURLE_OK, 401));
	assert_false(bv_http_transient(CURLE_OK, 413));
	assert_false(bv_http_transient(CURLE_OK, 201));
	assert_true(bv_http_transient(CURLE_HTTP_RETURNED_ERROR, 500));
	assert_false(bv_http_transient(CURLE_HTTP_RETURNED_ERROR, 404));
	assert_true(bv_http_transient(CURLE_OPERATION_TIMEDOUT, 0));
	assert_true(bv_http_transient(CURLE_COULDNT_CONNECT, 0));
	assert_true(bv_http_transient(CURLE_PARTIAL_FILE, 200));
	assert_false(bv_http_transient(CURLE_UNSUPPORTED_PROTOCOL, 0));
}

int test_share(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pack_is_sorted_under_one_top_dir),
		cmocka_unit_test(pack_is_deterministic),
		cmocka_unit_test(pack_refuses_links_fifos_and_the_token),
		cmocka_unit_test(pack_refuses_bad_top_names),
		cmocka_unit_test(url_policy),
		cmocka_unit_test(tokens),
		cmocka_unit_test(children_get_no_secret),
		cmocka_unit_test(secrets_are_dropped_or_guarded),
		cmocka_unit_test(builds_get_an_allow_list_and_its_values_are_keyed),
		cmocka_unit_test(sanitizing_server_messages),
		cmocka_unit_test(retry_arithmetic),
	};
	return test_run_group("share", tests, NULL, NULL);
}
