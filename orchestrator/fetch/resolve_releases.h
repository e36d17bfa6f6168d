/*
 * resolve_releases.h - within the resolve stage (resolve.c and
 * resolve_releases.c): the repository's insides, which both files read,
 * and the release lookups resolve.c's rules call.  resolve.h is the
 * stage's interface to the rest of the tool.
 */
#ifndef BV_RESOLVE_RELEASES_H
#define BV_RESOLVE_RELEASES_H

#include <git2.h>

#include "project.h"
#include "releases.h"
#include "resolve.h"

struct bv_repo {
	git_repository *repo; /* NULL when KERNEL_DIR is in no repository */
	char *kernel_dir;     /* absolute; NULL with KERNEL_REPO and no library around */
	char *no_local;       /* then: why `local` cannot resolve */
	char *prefix;         /* the library's directory inside the repository ("" = root) */
	char *where;          /* for messages */
	bv_release_index index; /* KERNEL_RELEASES, loaded when first needed */
	int index_loaded;
	bv_project *project; /* the project file, else the built-in default (project.h) */
};

/* The project's version file in the repository: "<dir>/<file>". */
char *bv_resolve_version_path(const bv_repo *r);
/* The release tag giving number, or *out NULL; two of them: an error. */
int bv_resolve_project_tag(bv_repo *r, const char *number, git_commit **out, char **tag);
/* "version": {"tag": R}: the nearest tag R makes a release, reachable from
 * the commit. */
int bv_resolve_nearest_tag(bv_repo *r, const git_oid *from, const char *what, char **out);
/* The version of a commit's tree by the project file; NULL with a message. */
char *bv_resolve_project_version(bv_repo *r, git_commit *c, const git_tree *tree, const char *what);
/* The oldest commit reachable from HEAD whose version reads number. */
int bv_resolve_project_first_commit(bv_repo *r, const char *number, git_commit **out);
/* Whether name is a release number (X.Y.Z). */
int bv_resolve_is_release(const char *name);
/* The oldest commit reachable from HEAD whose VERSION reads `number`. */
int bv_resolve_first_commit(bv_repo *r, const char *number, git_commit **out);
/* The known releases closest to number first, at most 8, for a message. */
char *bv_resolve_releases_near(bv_repo *r, const char *number);
/* The release number a tag stands for (vX.Y.Z or X.Y.Z), else NULL. */
const char *bv_resolve_tag_number(const char *tag);

#endif
