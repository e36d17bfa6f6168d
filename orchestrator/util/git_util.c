/* git_util.c - see git_util.h. */
#include <git2.h>
#include <limits.h>
#include <stdlib.h>

#include "common.h"
#include "git_util.h"

int bv_git_fail(int code, const char *what)
{
	const git_error *e = git_error_last();
	return bv_fail(code, "%s: %s", what, e && e->message ? e->message : "unknown libgit2 error");
}

int bv_git_walk(git_repository *repo, const git_oid *tip, const git_oid *hide, size_t nhide, int first_parent,
		int oldest_first, git_oid **out, size_t *n)
{
	*out = NULL, *n = 0;
	git_revwalk *w = NULL;
	if (git_revwalk_new(&w, repo) < 0)
		return bv_git_fail(BV_ERUN, "revwalk");
	int rc = 0;
	unsigned sort = GIT_SORT_TOPOLOGICAL | (oldest_first ? GIT_SORT_REVERSE : 0);
	if (git_revwalk_sorting(w, sort) < 0 || git_revwalk_push(w, tip) < 0)
		rc = bv_git_fail(BV_ERUN, "revwalk from the newest commit");
	for (size_t i = 0; rc == 0 && i < nhide; i++)
		if (git_revwalk_hide(w, &hide[i]) < 0)
			rc = bv_git_fail(BV_ERUN, "revwalk: hiding a commit");
	if (rc == 0 && first_parent && git_revwalk_simplify_first_parent(w) < 0)
		rc = bv_git_fail(BV_ERUN, "revwalk --first-parent");
	size_t cap = 64;
	git_oid *ids = bv_xmalloc(cap * sizeof(git_oid)), id;
	int err = 0;
	while (rc == 0 && (err = git_revwalk_next(&id, w)) == 0) {
		if (*n == cap)
			ids = bv_xrealloc(ids, (cap *= 2) * sizeof(git_oid));
		ids[(*n)++] = id;
	}
	if (rc == 0 && err != GIT_ITEROVER)
		rc = bv_git_fail(BV_ERUN, "revwalk");
	git_revwalk_free(w);
	if (rc) {
		free(ids);
		*n = 0;
		return rc;
	}
	*out = ids;
	return 0;
}

char *bv_workdir_of(const char *path)
{
	git_buf found = {0};
	char *out = NULL;
	/* across_fs 0: stop at a filesystem boundary, as git does by default. */
	if (git_repository_discover(&found, path, 0, NULL) == 0) {
		git_repository *repo = NULL;
		if (git_repository_open_ext(&repo, found.ptr, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0) {
			const char *w = git_repository_workdir(repo);
			char real[PATH_MAX];
			if (w && realpath(w, real))
				out = bv_strdup(real);
			git_repository_free(repo);
		}
		git_buf_dispose(&found);
	}
	return out;
}
