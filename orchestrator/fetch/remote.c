/*
 * remote.c - KERNEL_REPO as a URL: a bare clone in the cache, through libgit2.
 *
 * The clone lives in <cache>/repos/<sanitised URL>-<hash>/ and is made in a
 * temporary directory renamed into place when complete, so an interrupted
 * clone leaves no half repository that a later run would trust.  Its remote
 * maps the server's branches onto local branches (under refs/heads/), as a mirror
 * does, so `main` or `feature/x` resolve exactly as they do on the server; a
 * later run fetches instead of cloning again.  Progress goes to stderr.
 *
 * libgit2 (1.5) has no network timeouts: a server that accepts and then says
 * nothing would hang the run.  So its plain sockets (http://, git://, and
 * the TCP under https://) are ours: a stream whose connect, reads and writes
 * give up after BENCH_VERSIONS_NET_TIMEOUT seconds of silence, and stop on
 * Ctrl-C.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <git2/sys/stream.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "download.h"
#include "fs.h"
#include "git_util.h"
#include "hash.h"
#include "proc.h"
#include "remote.h"

/* ---- a socket stream with timeouts, for libgit2 ------------------------ */

typedef struct tstream {
	git_stream parent;
	char *host, *port;
	int fd;
} tstream;

static int net_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int net_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bv_buf b = BV_BUF_INIT;
	bv_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	git_error_set_str(GIT_ERROR_NET, b.s);
	bv_buf_free(&b);
	return -1;
}

/* Waits until fd is ready for events; -1 with libgit2's error set on a
 * timeout, an interruption or a poll error. */
static int ts_wait(tstream *t, short events, const char *doing)
{
	int ms = bv_net_timeout_s() * 1000;
	for (;;) {
		struct pollfd p = {t->fd, events, 0};
		int r = poll(&p, 1, ms);
		if (r > 0)
			return 0;
		if (bv_interrupted())
			return net_error("interrupted");
		if (r == 0)
			return net_error("%s:%s: nothing for %d s while %s (BENCH_VERSIONS_NET_TIMEOUT)", t->host, t->port,
					 bv_net_timeout_s(), doing);
		if (errno != EINTR)
			return net_error("%s:%s: poll: %s", t->host, t->port, strerror(errno));
	}
}

static int ts_close(git_stream *st)
{
	tstream *t = (tstream *)st;
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	return 0;
}

static int ts_connect(git_stream *st)
{
	tstream *t = (tstream *)st;
	struct addrinfo hints = {0}, *res = NULL;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	int gai = getaddrinfo(t->host, t->port, &hints, &res);
	if (gai != 0)
		return net_error("%s: %s", t->host, gai_strerror(gai));
	int err = ECONNREFUSED;
	for (struct addrinfo *a = res; a; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		t->fd = fd;
		if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
			if (errno != EINPROGRESS) {
				err = errno;
				ts_close(st);
				continue;
			}
			if (ts_wait(t, POLLOUT, "connecting") != 0) { /* a timeout: the next address would wait as long */
				ts_close(st);
				freeaddrinfo(res);
				return -1;
			}
			socklen_t len = sizeof(err);
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
				err = errno;
			if (err) {
				ts_close(st);
				continue;
			}
		}
		freeaddrinfo(res);
		return 0;
	}
	freeaddrinfo(res);
	return net_error("cannot connect to %s:%s: %s", t->host, t->port, strerror(err));
}

static ssize_t ts_read(git_stream *st, void *buf, size_t len)
{
	tstream *t = (tstream *)st;
	for (;;) {
		ssize_t r = recv(t->fd, buf, len, 0);
		if (r >= 0)
			return r;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return net_error("%s:%s: %s", t->host, t->port, strerror(errno));
		if (ts_wait(t, POLLIN, "waiting for data") != 0)
			return -1;
	}
}

static ssize_t ts_write(git_stream *st, const char *data, size_t len, int flags)
{
	(void)flags;
	tstream *t = (tstream *)st;
	for (;;) {
		ssize_t w = send(t->fd, data, len, MSG_NOSIGNAL);
		if (w >= 0)
			return w;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return net_error("%s:%s: %s", t->host, t->port, strerror(errno));
		if (ts_wait(t, POLLOUT, "sending") != 0)
			return -1;
	}
}

static void ts_free(git_stream *st)
{
	tstream *t = (tstream *)st;
	ts_close(st);
	free(t->host), free(t->port), free(t);
}

static int ts_new(git_stream **out, const char *host, const char *port)
{
	tstream *t = bv_xcalloc(1, sizeof(*t));
	t->parent.version = GIT_STREAM_VERSION;
	t->parent.connect = ts_connect;
	t->parent.read = ts_read;
	t->parent.write = ts_write;
	t->parent.close = ts_close;
	t->parent.free = ts_free;
	t->host = bv_strdup(host);
	t->port = bv_strdup(port);
	t->fd = -1;
	*out = &t->parent;
	return 0;
}

static void register_stream(void)
{
	static int done;
	if (done++)
		return;
	git_stream_registration reg = {GIT_STREAM_VERSION, ts_new, NULL};
	git_stream_register(GIT_STREAM_STANDARD, &reg);
}

#define MIRROR_REFSPEC "+refs/heads/*:refs/heads/*"


int bv_repo_is_url(const char *s)
{
	if (strstr(s, "://"))
		return 1;
	/* scp-like user@host:path, as git accepts: a colon before any slash. */
	const char *colon = strchr(s, ':'), *slash = strchr(s, '/');
	return colon && colon != s && (!slash || colon < slash) && !bv_exists(s);
}

typedef struct progress {
	const char *url;
	unsigned shown; /* tenths of the objects already reported */
	int creds_tried;
} progress;

static int on_progress(const git_indexer_progress *st, void *payload)
{
	progress *p = payload;
	if (st->total_objects == 0)
		return 0;
	/* One line per tenth: readable in a log, not a flood on a big repository. */
	unsigned tenth = (unsigned)(10ull * st->received_objects / st->total_objects);
	if (tenth > p->shown || (st->received_objects == st->total_objects && p->shown < 10)) {
		p->shown = tenth;
		fprintf(stderr, "clone: %s: received %u/%u objects (%zu KiB)\n", p->url, st->received_objects,
			st->total_objects, st->received_bytes / 1024);
	}
	return 0;
}

/* ssh: whatever key the agent offers, once; other transports ask nobody. */
static int on_credentials(git_credential **out, const char *url, const char *user, unsigned int allowed,
			  void *payload)
{
	(void)url;
	progress *p = payload;
	if ((allowed & GIT_CREDENTIAL_SSH_KEY) && !p->creds_tried++)
		return git_credential_ssh_key_from_agent(out, user ? user : "git");
	return GIT_PASSTHROUGH;
}

static int create_remote(git_remote **out, git_repository *repo, const char *name, const char *url, void *payload)
{
	(void)payload;
	return git_remote_create_with_fetchspec(out, repo, name, url, MIRROR_REFSPEC);
}

static void fetch_options(git_fetch_options *fo, progress *p)
{
	fo->callbacks.transfer_progress = on_progress;
	fo->callbacks.credentials = on_credentials;
	fo->callbacks.payload = p;
	fo->download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
	fo->prune = GIT_FETCH_PRUNE;
}

/* HEAD of the clone names the server's default branch.  libgit2 records it
 * as refs/remotes/origin/HEAD but, with our mirror refspec, leaves HEAD at
 * the init default, which may not exist; the VERSION rule walks from HEAD. */
static int follow_remote_head(git_repository *repo, const char *what)
{
	git_reference *ref = NULL;
	int rc = 0;
	if (git_reference_lookup(&ref, repo, "refs/remotes/origin/HEAD") == 0 &&
	    git_reference_type(ref) == GIT_REFERENCE_SYMBOLIC &&
	    git_repository_set_head(repo, git_reference_symbolic_target(ref)) < 0)
		rc = bv_git_fail(BV_ERUN, what);
	git_reference_free(ref);
	return rc;
}

/* A directory name for url: readable (shown: without user:password@, as
 * the cache's path is printed), and unique through the hash of url. */
static char *mirror_name(const char *url, const char *shown)
{
	char id[41];
	bv_hash_bytes(url, strlen(url), id);
	const char *p = strstr(shown, "://");
	p = p ? p + 3 : shown;
	bv_buf b = BV_BUF_INIT;
	for (size_t i = 0; p[i] && i < 64; i++)
		bv_buf_putn(&b, isalnum((unsigned char)p[i]) || p[i] == '.' || p[i] == '-' ? &p[i] : "_", 1);
	bv_buf_printf(&b, "-%.12s", id);
	return bv_buf_detach(&b);
}

/* url goes to libgit2; shown (without user:password@) to the terminal. */
static int clone_into(const char *url, const char *shown, const char *root, const char *final)
{
	char *tmp = bv_mkdtemp_in(root, ".tmp-clone-");
	if (!tmp)
		return BV_ERUN;
	progress p = {shown, 0, 0};
	git_clone_options opts;
	git_clone_options_init(&opts, GIT_CLONE_OPTIONS_VERSION); /* the macro trips -Wextra */
	opts.bare = 1;
	opts.remote_cb = create_remote;
	fetch_options(&opts.fetch_opts, &p);
	git_repository *repo = NULL;
	fprintf(stderr, "clone: %s -> %s\n", shown, final);
	int rc = 0;
	if (git_clone(&repo, url, tmp, &opts) < 0)
		rc = bv_git_fail(BV_EINPUT, "cloning KERNEL_REPO");
	else
		rc = follow_remote_head(repo, "cloning KERNEL_REPO");
	git_repository_free(repo);
	if (rc == 0 && rename(tmp, final) != 0 && !bv_is_dir(final))
		rc = bv_fail(BV_ERUN, "cannot move %s into place: %s", final, strerror(errno));
	bv_rm_rf(tmp); /* gone after a rename; a failed or losing clone otherwise */
	free(tmp);
	return rc;
}

static int fetch_into(const char *url, const char *shown, const char *gitdir)
{
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	progress p = {shown, 0, 0};
	git_fetch_options fo;
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fetch_options(&fo, &p);
	fprintf(stderr, "fetch: %s -> %s\n", shown, gitdir);
	int rc = 0;
	if (git_repository_open_bare(&repo, gitdir) < 0)
		rc = bv_git_fail(BV_ERUN, gitdir);
	else if (git_remote_lookup(&remote, repo, "origin") < 0)
		rc = bv_git_fail(BV_ERUN, gitdir);
	else if (strcmp(git_remote_url(remote), url) != 0) {
		char *origin = bv_url_redact(git_remote_url(remote));
		rc = bv_fail(BV_ERUN, "%s: its origin is %s, not %s", gitdir, origin, shown);
		free(origin);
	}
	else if (git_remote_fetch(remote, NULL, &fo, "fetch") < 0)
		rc = bv_git_fail(BV_EINPUT, "fetching KERNEL_REPO");
	else
		rc = follow_remote_head(repo, "fetching KERNEL_REPO");
	git_remote_free(remote);
	git_repository_free(repo);
	return rc;
}

int bv_repo_mirror(const char *url, char **gitdir)
{
	*gitdir = NULL;
	char *root = bv_asprintf("%s/repos", bv_cache_dir());
	char *shown = bv_url_redact(url);
	char *name = mirror_name(url, shown);
	char *final = bv_asprintf("%s/%s", root, name);
	int rc = bv_mkdir_p(root);
	register_stream();
	if (rc == 0)
		rc = bv_is_dir(final) ? fetch_into(url, shown, final) : clone_into(url, shown, root, final);
	free(root);
	free(name);
	free(shown);
	if (rc) {
		free(final);
		return rc;
	}
	*gitdir = final;
	return 0;
}
