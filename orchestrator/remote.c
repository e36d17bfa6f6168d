/*
 * remote.c - KERNEL_REPO as a URL: a bare clone in the cache, through libgit2.
 *
 * The clone lives in <cache>/repos/<sanitised URL>-<hash>/ and is made in a
 * temporary directory renamed into place when complete, so an interrupted
 * clone leaves no half repository that a later run would trust.  Its remote
 * maps the server's branches onto local branches (under refs/heads/), as a mirror
 * does, so `main` or `feature/x` resolve exactly as they do on the server; a
 * later run fetches instead of cloning again.  Progress goes to stderr.
 */
#include <ctype.h>
#include <errno.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "hash.h"
#include "stages.h"

#define MIRROR_REFSPEC "+refs/heads/*:refs/heads/*"

static int git_fail(int code, const char *what)
{
	const git_error *e = git_error_last();
	return bv_fail(code, "%s: %s", what, e && e->message ? e->message : "unknown libgit2 error");
}

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
		rc = git_fail(BV_ERUN, what);
	git_reference_free(ref);
	return rc;
}

/* A directory name for url: readable, and unique through the hash. */
static char *mirror_name(const char *url)
{
	char id[41];
	bv_hash_bytes(url, strlen(url), id);
	const char *p = strstr(url, "://");
	p = p ? p + 3 : url;
	bv_buf b = BV_BUF_INIT;
	for (size_t i = 0; p[i] && i < 64; i++)
		bv_buf_putn(&b, isalnum((unsigned char)p[i]) || p[i] == '.' || p[i] == '-' ? &p[i] : "_", 1);
	bv_buf_printf(&b, "-%.12s", id);
	return bv_buf_detach(&b);
}

static int clone_into(const char *url, const char *root, const char *final)
{
	char *tmp = bv_mkdtemp_in(root, ".tmp-clone-");
	if (!tmp)
		return BV_ERUN;
	progress p = {url, 0, 0};
	git_clone_options opts;
	git_clone_options_init(&opts, GIT_CLONE_OPTIONS_VERSION); /* the macro trips -Wextra */
	opts.bare = 1;
	opts.remote_cb = create_remote;
	fetch_options(&opts.fetch_opts, &p);
	git_repository *repo = NULL;
	fprintf(stderr, "clone: %s -> %s\n", url, final);
	int rc = 0;
	if (git_clone(&repo, url, tmp, &opts) < 0)
		rc = git_fail(BV_EINPUT, "cloning KERNEL_REPO");
	else
		rc = follow_remote_head(repo, "cloning KERNEL_REPO");
	git_repository_free(repo);
	if (rc == 0 && rename(tmp, final) != 0 && !bv_is_dir(final))
		rc = bv_fail(BV_ERUN, "cannot move %s into place: %s", final, strerror(errno));
	bv_rm_rf(tmp); /* gone after a rename; a failed or losing clone otherwise */
	free(tmp);
	return rc;
}

static int fetch_into(const char *url, const char *gitdir)
{
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	progress p = {url, 0, 0};
	git_fetch_options fo;
	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fetch_options(&fo, &p);
	fprintf(stderr, "fetch: %s -> %s\n", url, gitdir);
	int rc = 0;
	if (git_repository_open_bare(&repo, gitdir) < 0)
		rc = git_fail(BV_ERUN, gitdir);
	else if (git_remote_lookup(&remote, repo, "origin") < 0)
		rc = git_fail(BV_ERUN, gitdir);
	else if (strcmp(git_remote_url(remote), url) != 0)
		rc = bv_fail(BV_ERUN, "%s: its origin is %s, not %s", gitdir, git_remote_url(remote), url);
	else if (git_remote_fetch(remote, NULL, &fo, "fetch") < 0)
		rc = git_fail(BV_EINPUT, "fetching KERNEL_REPO");
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
	char *name = mirror_name(url);
	char *final = bv_asprintf("%s/%s", root, name);
	int rc = bv_mkdir_p(root);
	if (rc == 0)
		rc = bv_is_dir(final) ? fetch_into(url, final) : clone_into(url, root, final);
	free(root);
	free(name);
	if (rc) {
		free(final);
		return rc;
	}
	*gitdir = final;
	return 0;
}
