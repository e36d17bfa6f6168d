/*
 * cmd_share.c - bench-versions share RESULTS_DIR --url URL: one run's
 * results packed into a tar.gz (pack.c) and PUT to a server (upload.c).
 *
 * The results directory is only ever read: the archive is built in an
 * unlinked temporary file (so nothing is left behind however we end), or,
 * with --output, in a temporary file beside FILE renamed into place once
 * complete.  Whatever the server does, the local results are as they were.
 *
 * The token comes from --token-file, BENCH_VERSIONS_TOKEN or
 * ~/.config/bench-versions/token, never from the command line (every user
 * of the machine can read a process's arguments, and shells keep them in
 * their history).  It is never printed: messages say where it came from,
 * not what it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "json.h"
#include "results.h"
#include "options.h"
#include "share.h"

#define TOKEN_MAX 4096

static void usage(FILE *out, const bv_option *opts)
{
	fprintf(out, "usage: bench-versions share RESULTS_DIR [--url URL] [--output FILE] [--token-file PATH]\n"
		     "                            [--no-token] [--insecure-http] [--retries N] [--timeout S]\n"
		     "                            [--backoff S]\n\n"
		     "Packs one run's results directory (results/<timestamp>/: its logs, raw/ and any\n"
		     "report) into one .tar.gz and uploads it with an HTTP PUT.  The results are only read.\n\n");
	bv_options_help(opts, out);
	fprintf(out, "\nThere is no --token option: a token on the command line is visible to every\n"
		     "user of the machine (ps) and stays in shell history.\n"
		     "exit codes: 0 uploaded (or packed), 2 usage or input error, or the server refused\n"
		     "(4xx), 3 the upload failed (unreachable, timeouts, 5xx after the retries)\n");
}

int bv_token_clean(char *token, const char *source)
{
	size_t n = strlen(token);
	while (n && (token[n - 1] == '\n' || token[n - 1] == '\r' || token[n - 1] == ' ' || token[n - 1] == '\t'))
		token[--n] = '\0';
	if (n == 0)
		return bv_fail(BV_EINPUT, "%s: the token is empty", source);
	if (n > TOKEN_MAX)
		return bv_fail(BV_EINPUT, "%s: the token is longer than %d characters", source, TOKEN_MAX);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)token[i] <= 0x20 || (unsigned char)token[i] >= 0x7f)
			/* Where, not what: the message must not show the token. */
			return bv_fail(BV_EINPUT,
				       "%s: the token has a space, control or non-ASCII character at "
				       "position %zu; a bearer token is one word of visible ASCII",
				       source, i + 1);
	return 0;
}

int bv_token_read_file(const char *path, char **token)
{
	*token = NULL;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return bv_fail(BV_EINPUT, "token file %s: %s", path, strerror(errno));
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) != 0)
		rc = bv_fail(BV_EINPUT, "token file %s: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		rc = bv_fail(BV_EINPUT, "token file %s is not a regular file", path);
	else if (st.st_uid != geteuid())
		rc = bv_fail(BV_EINPUT, "token file %s belongs to another user (uid %ld): refused", path,
			     (long)st.st_uid);
	else if (st.st_mode & 077)
		rc = bv_fail(BV_EINPUT,
			     "token file %s: permissions %04o are too open: others on this machine can read "
			     "the token; run chmod 600 %s (and consider the token leaked)",
			     path, (unsigned)(st.st_mode & 07777), path);
	else if (st.st_size > TOKEN_MAX + 2)
		rc = bv_fail(BV_EINPUT, "token file %s is larger than %d bytes: not a token", path, TOKEN_MAX);
	if (rc == 0) {
		char buf[TOKEN_MAX + 3];
		ssize_t n;
		while ((n = read(fd, buf, sizeof(buf) - 1)) < 0 && errno == EINTR)
			;
		if (n < 0)
			rc = bv_fail(BV_EINPUT, "token file %s: %s", path, strerror(errno));
		else {
			buf[n] = '\0';
			if (memchr(buf, '\0', (size_t)n))
				rc = bv_fail(BV_EINPUT, "token file %s holds a NUL byte: not a token", path);
			else {
				char *t = bv_strdup(buf);
				char *what = bv_asprintf("token file %s", path);
				rc = bv_token_clean(t, what);
				free(what);
				if (rc == 0)
					*token = t;
				else {
					explicit_bzero(t, strlen(t));
					free(t);
				}
			}
			explicit_bzero(buf, sizeof(buf));
		}
	}
	close(fd);
	return rc;
}

/* --token-file, else the environment, else the default file if it exists. */
static int find_token(const char *token_file, char **token, char **source)
{
	*token = NULL;
	*source = NULL;
	/* Whichever way it comes, the token will be in our memory: no process
	 * of ours may read that (env.c). */
	bv_secrets_guard();
	if (token_file) {
		*source = bv_asprintf("--token-file %s", token_file);
		return bv_token_read_file(token_file, token);
	}
	const char *env = bv_secret_token(); /* taken out of the environment at start */
	if (env) {
		*source = bv_strdup("BENCH_VERSIONS_TOKEN");
		if (!env[0])
			return bv_fail(BV_EINPUT, "BENCH_VERSIONS_TOKEN is set but empty (a CI secret that is not "
						  "available here?); unset it to use a token file, or give --no-token");
		char *t = bv_strdup(env);
		bv_secret_token_drop(); /* one copy is enough */
		int rc = bv_token_clean(t, "BENCH_VERSIONS_TOKEN");
		if (rc) {
			explicit_bzero(t, strlen(t));
			free(t);
			return rc;
		}
		*token = t;
		return 0;
	}
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *dflt = xdg && xdg[0] ? bv_asprintf("%s/bench-versions/token", xdg)
		     : home && home[0] ? bv_asprintf("%s/.config/bench-versions/token", home)
				       : NULL;
	if (dflt && bv_exists(dflt)) {
		*source = dflt;
		return bv_token_read_file(dflt, token);
	}
	free(dflt);
	return bv_fail(BV_EINPUT, "no token: set BENCH_VERSIONS_TOKEN, give --token-file PATH (a file only you can "
				  "read) or create ~/.config/bench-versions/token; --no-token uploads without one");
}

/* A results directory has at least one results log at its top: this
 * catches `share results/` (every run) or a typo'd path before anything
 * is packed. */
static int check_results_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return bv_fail(BV_EINPUT, "cannot open results directory %s: %s", dir, strerror(errno));
	struct dirent *de;
	int found = 0, subruns = 0;
	while ((de = readdir(d))) { /* every log: a broken one is refused even beside good ones */
		size_t n = strlen(de->d_name);
		char *path = bv_asprintf("%s/%s", dir, de->d_name);
		struct stat st;
		if (n > 5 && !strcmp(de->d_name + n - 5, ".json") && lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			/* Other JSON is not ours to judge; a log compare would
			 * refuse is not shared (results.c says why). */
			cJSON *doc = NULL;
			if (bv_json_load(path, BV_RESULTS_MAX, &doc) == 0 && bv_log_claims(doc)) {
				int rc = bv_log_check(path, doc);
				if (rc) {
					cJSON_Delete(doc);
					free(path);
					closedir(d);
					return rc;
				}
				found = 1;
			}
			cJSON_Delete(doc);
		} else if (de->d_name[0] != '.' && lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
			   strcmp(de->d_name, "raw")) {
			subruns++;
		}
		free(path);
	}
	closedir(d);
	if (found)
		return 0;
	return bv_fail(BV_EINPUT, "%s holds no results log (<label>.json with schema " BV_RESULTS_SCHEMA ")%s", dir,
		       subruns ? ": name one run's directory, e.g. results/<timestamp>/" : "");
}

/* An anonymous file for the archive: gone when we exit, however we exit. */
static int temp_archive(void)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || !tmp[0])
		tmp = "/tmp";
	int fd = open(tmp, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	char *path = bv_asprintf("%s/bv-share-XXXXXX", tmp);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	else
		bv_fail(BV_ERUN, "cannot create a temporary file in %s: %s", tmp, strerror(errno));
	free(path);
	return fd;
}

/* Whether path lies inside dir (both existing, compared by real paths). */
static int inside(const char *path, const char *dir_real)
{
	char *copy = bv_strdup(path);
	char *parent = realpath(dirname(copy), NULL);
	free(copy);
	if (!parent)
		return 0;
	size_t n = strlen(dir_real);
	int in = !strncmp(parent, dir_real, n) && (parent[n] == '\0' || parent[n] == '/');
	free(parent);
	return in;
}

static const char *human(unsigned long long b, char *buf, size_t n)
{
	if (b < 10240)
		snprintf(buf, n, "%llu bytes", b);
	else if (b < (10ull << 20))
		snprintf(buf, n, "%.0f KiB", (double)b / 1024);
	else
		snprintf(buf, n, "%.1f MiB", (double)b / (1 << 20));
	return buf;
}

int bv_cmd_share(int argc, char **argv)
{
	const char *dir = NULL, *url = NULL, *output = NULL, *token_file = NULL;
	int no_token = 0, insecure_http = 0, retries = 4;
	double timeout = 30, backoff_s = 1;
	const bv_option opts[] = {
	    BV_STRING("--url", &url, "URL",
		      "where to PUT the archive; a URL ending in '/' gets "
		      "<run>.tar.gz added.  https://, or http:// to this machine"),
	    BV_STRING("--output", &output, "FILE",
		      "also keep the archive at FILE (alone: pack, upload nothing)"),
	    BV_STRING("--token-file", &token_file, "PATH",
		      "the bearer token, in a file only you can read (chmod 600); "
		      "else BENCH_VERSIONS_TOKEN, else ~/.config/bench-versions/token"),
	    BV_FLAG("--no-token", &no_token, "send no Authorization header"),
	    BV_FLAG("--insecure-http", &insecure_http,
		    "allow http:// to another machine (the token goes unencrypted)"),
	    BV_INT("--retries", &retries, "N", 0, 20,
		   "tries after the first on timeouts, dropped connections, "
		   "5xx, 408 and 429 (default 4)"),
	    BV_DURATION("--timeout", &timeout, "S", 1, 3600,
			"connect timeout, and how long nothing may move (default 30)"),
	    BV_DURATION("--backoff", &backoff_s, "S", 0, 600,
			"the first wait between tries, doubling each time (default 1); "
			"a server's Retry-After is honoured up to 60 s"),
	    /* Refused by name, whatever follows: what follows may be the token,
	     * so nothing of it is echoed. */
	    BV_REFUSED("--token",
		       "there is no --token option: a token on the command line is visible to every "
		       "user of this machine (ps) and stays in shell history. "
		       "Put it in BENCH_VERSIONS_TOKEN, or in a file only you can read "
		       "(chmod 600) named by --token-file."),
	    BV_END,
	};
	char **pos = bv_xcalloc((size_t)argc, sizeof(char *));
	size_t npos = 0;
	int rc = bv_options_parse(opts, argc, argv, pos, &npos);
	if (rc == 0 && npos > 1)
		rc = bv_fail(BV_EINPUT, "one results directory at a time (given '%s' and '%s')", pos[0], pos[1]);
	dir = npos ? pos[0] : NULL;
	free(pos);
	if (rc == 1) {
		usage(stdout, opts);
		return 0;
	}
	if (rc) {
		fprintf(stderr, "bench-versions share: %s (see bench-versions share --help)\n", bv_error_last());
		return BV_EXIT_USAGE;
	}
	/* Whole seconds for libcurl; 1.5 is waited 2. */
	long timeout_s = (long)ceil(timeout);
	if (!dir) {
		fprintf(stderr, "bench-versions share: name one run's results directory (results/<timestamp>/)\n");
		return BV_EXIT_USAGE;
	}
	if (!url && !output) {
		fprintf(stderr, "bench-versions share: nothing to do: give --url URL to upload, --output FILE to keep "
				"the archive, or both\n");
		return BV_EXIT_USAGE;
	}
	if (token_file && no_token) {
		fprintf(stderr, "bench-versions share: --token-file and --no-token contradict each other\n");
		return BV_EXIT_USAGE;
	}

	char *real = realpath(dir, NULL), *target = NULL, *token = NULL, *source = NULL, *tmp_out = NULL;
	char *location = NULL;
	int fd = -1;
	rc = 0;
	const char *name = NULL;
	if (!real)
		rc = bv_fail(BV_EINPUT, "results directory %s: %s", dir, strerror(errno));
	else if ((name = strrchr(real, '/') + 1), !name[0])
		rc = bv_fail(BV_EINPUT, "%s: share packs one run's results directory, not /", dir);
	if (rc == 0)
		rc = check_results_dir(real);
	if (rc == 0 && url)
		rc = bv_upload_check_url(url, name, insecure_http, &target);
	if (rc == 0 && output && inside(output, real))
		rc = bv_fail(BV_EINPUT, "--output %s is inside the results directory: it would change the results "
					"(and be packed the next time); put it elsewhere",
			     output);
	if (rc == 0 && url && !no_token)
		rc = find_token(token_file, &token, &source);
	if (rc == 0 && output) {
		tmp_out = bv_asprintf("%s.tmp-XXXXXX", output);
		fd = mkostemp(tmp_out, O_CLOEXEC);
		if (fd < 0)
			rc = bv_fail(BV_EINPUT, "--output %s: cannot create %s: %s", output, tmp_out, strerror(errno));
		else {
			mode_t um = umask(0);
			umask(um);
			fchmod(fd, 0666 & ~um); /* an ordinary file, not mkstemp's 0600 */
		}
	} else if (rc == 0 && (fd = temp_archive()) < 0)
		rc = BV_ERUN;

	bv_pack_info info;
	if (rc == 0)
		rc = bv_pack_dir(real, name, fd, token, &info);
	if (rc == 0) {
		char b1[32], b2[32];
		fprintf(stderr, "share: packed %zu %s (%s) of %s into %s, sha256 %s\n", info.files,
			bv_plural((long long)info.files, "file", "files"),
			human(info.bytes, b1, sizeof(b1)), dir, human(info.size, b2, sizeof(b2)), info.sha256);
	}
	if (output && fd >= 0) {
		/* The archive is kept whatever the upload does. */
		if (rc == 0 && (fsync(fd) != 0 || rename(tmp_out, output) != 0))
			rc = bv_fail(BV_ERUN, "--output %s: %s", output, strerror(errno));
		if (rc != 0)
			unlink(tmp_out);
		else
			fprintf(stderr, "share: archive written to %s\n", output);
	}
	long status = 0;
	if (rc == 0 && url) {
		if (source)
			fprintf(stderr, "share: token from %s\n", source);
		bv_upload_opts o = {target, token, name, retries + 1, timeout_s, backoff_s, 60.0};
		rc = bv_upload(&o, fd, info.size, info.sha256, &location, &status);
		if (rc == 0)
			printf("uploaded: %s (HTTP %ld)\n", location ? location : target, status);
	}
	if (rc != 0) {
		fprintf(stderr, "bench-versions share: %s\n", bv_error_last());
		if (real)
			fprintf(stderr, "share: %s is unchanged\n", dir);
	}
	if (fd >= 0)
		close(fd);
	/* Not memset: a store before free() is dead to the compiler. */
	if (token) {
		explicit_bzero(token, strlen(token));
		free(token);
	}
	bv_secret_token_drop(); /* not used (--no-token, --output alone) */
	free(real), free(target), free(source), free(tmp_out), free(location);
	return rc == 0 ? 0 : bv_exit_code(rc);
}
