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
#include "cmd_share.h"
#include "common.h"
#include "env.h"
#include "fs.h"
#include "json.h"
#include "pack.h"
#include "proc.h"
#include "results.h"
#include "options.h"
#include "upload.h"

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

/* One share: what the command line asks, and what the steps below make
 * of it (each freed once, at the end of bv_cmd_share). */
typedef struct share_job {
	const char *dir, *url, *output, *token_file;
	int no_token, insecure_http, retries;
	double timeout, backoff_s;
	char *real;     /* the results directory's real path */
	const char *name; /* its last component: the run's name in the archive */
	char *target;   /* the URL the archive goes to */
	char *token, *source; /* the token and where it came from */
	char *tmp_out;  /* --output's temporary name, renamed into place */
	int fd;         /* the archive */
	bv_pack_info info;
	bv_option opts[10];
} share_job;

/* share's option table and its defaults. */
static void share_table(share_job *j)
{
	j->retries = 4, j->timeout = 30, j->backoff_s = 1;
	j->fd = -1;
	const bv_option opts[] = {
	    BV_STRING("--url", &j->url, "URL",
		      "where to PUT the archive; a URL ending in '/' gets "
		      "<run>.tar.gz added.  https://, or http:// to this machine"),
	    BV_STRING("--output", &j->output, "FILE",
		      "also keep the archive at FILE (alone: pack, upload nothing)"),
	    BV_STRING("--token-file", &j->token_file, "PATH",
		      "the bearer token, in a file only you can read (chmod 600); "
		      "else BENCH_VERSIONS_TOKEN, else ~/.config/bench-versions/token"),
	    BV_FLAG("--no-token", &j->no_token, "send no Authorization header"),
	    BV_FLAG("--insecure-http", &j->insecure_http,
		    "allow http:// to another machine (the token goes unencrypted)"),
	    BV_INT("--retries", &j->retries, "N", 0, 20,
		   "tries after the first on timeouts, dropped connections, "
		   "5xx, 408 and 429 (default 4)"),
	    BV_DURATION("--timeout", &j->timeout, "S", 1, 3600,
			"connect timeout, and how long nothing may move (default 30)"),
	    BV_DURATION("--backoff", &j->backoff_s, "S", 0, 600,
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
	_Static_assert(sizeof(opts) == sizeof(j->opts), "share_job.opts holds share's table");
	memcpy(j->opts, opts, sizeof(opts));
}

/* What share needs to do anything: a directory, somewhere for the archive
 * to go, and one answer about the token.  Said without the --help hint. */
static int check_args(const share_job *j)
{
	if (!j->dir)
		return bv_fail(BV_EINPUT, "name one run's results directory (results/<timestamp>/)");
	if (!j->url && !j->output)
		return bv_fail(BV_EINPUT, "nothing to do: give --url URL to upload, --output FILE to keep "
					  "the archive, or both");
	if (j->token_file && j->no_token)
		return bv_fail(BV_EINPUT, "--token-file and --no-token contradict each other");
	return 0;
}

/* Everything checked before a byte is packed: the directory is one run's
 * results, the URL is allowed, --output is not inside what it packs, the
 * token is found. */
static int share_check(share_job *j)
{
	int rc = 0;
	j->real = realpath(j->dir, NULL);
	if (!j->real)
		rc = bv_fail(BV_EINPUT, "results directory %s: %s", j->dir, strerror(errno));
	else if ((j->name = strrchr(j->real, '/') + 1), !j->name[0])
		rc = bv_fail(BV_EINPUT, "%s: share packs one run's results directory, not /", j->dir);
	if (rc == 0)
		rc = check_results_dir(j->real);
	if (rc == 0 && j->url)
		rc = bv_upload_check_url(j->url, j->name, j->insecure_http, &j->target);
	if (rc == 0 && j->output && inside(j->output, j->real))
		rc = bv_fail(BV_EINPUT, "--output %s is inside the results directory: it would change the results "
					"(and be packed the next time); put it elsewhere",
			     j->output);
	if (rc == 0 && j->url && !j->no_token)
		rc = find_token(j->token_file, &j->token, &j->source);
	return rc;
}

/* The file the archive is packed into: --output's temporary name beside
 * it (an ordinary file, not mkstemp's 0600), else an anonymous one. */
static int open_archive(share_job *j)
{
	if (!j->output)
		return (j->fd = temp_archive()) < 0 ? BV_ERUN : 0;
	j->tmp_out = bv_asprintf("%s.tmp-XXXXXX", j->output);
	j->fd = mkostemp(j->tmp_out, O_CLOEXEC);
	if (j->fd < 0)
		return bv_fail(BV_EINPUT, "--output %s: cannot create %s: %s", j->output, j->tmp_out, strerror(errno));
	mode_t um = umask(0);
	umask(um);
	fchmod(j->fd, 0666 & ~um);
	return 0;
}

/* The archive packed, and said. */
static int pack(share_job *j)
{
	int rc = bv_pack_dir(j->real, j->name, j->fd, j->token, &j->info);
	if (rc == 0) {
		char b1[32], b2[32];
		fprintf(stderr, "share: packed %zu %s (%s) of %s into %s, sha256 %s\n", j->info.files,
			bv_plural((long long)j->info.files, "file", "files"), human(j->info.bytes, b1, sizeof(b1)),
			j->dir, human(j->info.size, b2, sizeof(b2)), j->info.sha256);
	}
	return rc;
}

/* --output: the archive renamed into place once packed, whatever the
 * upload does; removed when anything before failed (rc). */
static int keep_output(share_job *j, int rc)
{
	if (rc == 0 && (fsync(j->fd) != 0 || rename(j->tmp_out, j->output) != 0))
		rc = bv_fail(BV_ERUN, "--output %s: %s", j->output, strerror(errno));
	if (rc != 0)
		unlink(j->tmp_out);
	else
		fprintf(stderr, "share: archive written to %s\n", j->output);
	return rc;
}

/* --url: the archive PUT (upload.c), and where it went on stdout. */
static int upload(const share_job *j)
{
	char *location = NULL;
	long status = 0;
	if (j->source)
		fprintf(stderr, "share: token from %s\n", j->source);
	/* Whole seconds for libcurl; 1.5 is waited 2. */
	long timeout_s = (long)ceil(j->timeout);
	bv_upload_opts o = {j->target, j->token, j->name, j->retries + 1, timeout_s, j->backoff_s, 60.0};
	int rc = bv_upload(&o, j->fd, j->info.size, j->info.sha256, &location, &status);
	if (rc == 0)
		printf("uploaded: %s (HTTP %ld)\n", location ? location : j->target, status);
	free(location);
	return rc;
}

int bv_cmd_share(int argc, char **argv)
{
	share_job *j = bv_xcalloc(1, sizeof(*j));
	share_table(j);
	char **pos = bv_xcalloc((size_t)argc, sizeof(char *));
	size_t npos = 0;
	int rc = bv_options_parse(j->opts, argc, argv, pos, &npos), code;
	if (rc == 0 && npos > 1)
		rc = bv_fail(BV_EINPUT, "one results directory at a time (given '%s' and '%s')", pos[0], pos[1]);
	j->dir = npos ? pos[0] : NULL;
	free(pos);
	if ((code = bv_options_done(rc, 0, "bench-versions share", "share", usage, j->opts)) >= 0)
		goto cleanup;
	if (check_args(j)) {
		fprintf(stderr, "bench-versions share: %s\n", bv_error_last());
		code = BV_EXIT_USAGE;
		goto cleanup;
	}
	rc = share_check(j);
	if (rc == 0)
		rc = open_archive(j);
	if (rc == 0)
		rc = pack(j);
	if (j->output && j->fd >= 0)
		rc = keep_output(j, rc);
	if (rc == 0 && j->url)
		rc = upload(j);
	if (rc != 0) {
		fprintf(stderr, "bench-versions share: %s\n", bv_error_last());
		if (j->real)
			fprintf(stderr, "share: %s is unchanged\n", j->dir);
	}
	code = rc == 0 ? 0 : bv_exit_code(rc);
cleanup:
	if (j->fd >= 0)
		close(j->fd);
	/* Not memset: a store before free() is dead to the compiler. */
	if (j->token) {
		explicit_bzero(j->token, strlen(j->token));
		free(j->token);
	}
	bv_secret_token_drop(); /* not used (--no-token, --output alone) */
	free(j->real), free(j->target), free(j->source), free(j->tmp_out);
	free(j);
	return code;
}
