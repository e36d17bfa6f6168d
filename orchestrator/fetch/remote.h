/*
 * remote.h - KERNEL_REPO as a URL (remote.c): a bare mirror in the cache.
 */
#ifndef BV_REMOTE_H
#define BV_REMOTE_H

/* remote.c: a bare clone of url in <cache>/repos/, made (or brought up to
 * date with a fetch) through libgit2; its path in *gitdir. */
int bv_repo_mirror(const char *url, char **gitdir);
/* Whether KERNEL_REPO names a remote (scheme://... or scp-like host:path). */
int bv_repo_is_url(const char *s);

#endif
