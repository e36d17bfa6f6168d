/*
 * resolve.h - a version's name to an exact tree (resolve.c): a git
 * revision, a release number or `local`.  bv_version is resolve's: it is made
 * here, and the later stages (fetch, compat, build) fill in their fields.
 */
#ifndef BV_RESOLVE_H
#define BV_RESOLVE_H

#include <stddef.h>

#include "compat.h"

typedef struct bv_repo bv_repo;

typedef enum { BV_VERSION_GIT, BV_VERSION_LOCAL, BV_VERSION_RELEASE } bv_version_kind;

typedef struct bv_version {
	char *name;  /* as typed */
	char *label; /* safe for file names and column headers; unique in a run */
	bv_version_kind kind;
	char commit[41];      /* git: the resolved commit */
	/* the library's tree id (git), content hash (local) or "release-<sha256
	 * of the tarball>" (release): what the build cache is keyed on */
	char tree[80];
	char *rule;           /* how the name was resolved, said to the user */
	char *summary;        /* commit subject, the working tree's path or the tarball's URL */
	char *kernel_version; /* VERSION in the tree */
	/* filled by the later stages */
	char *src_dir;
	bv_shims shims;
	char *build_key;
	char *plugin;
	char *build_error; /* set when the build failed: message and log tail */
	int cached;
	int make_jobs;     /* make -j for the default recipe (bv_build_versions
			    * gives the CPUs its builds leave idle); 0 or 1: serial */
} bv_version;

/* Opens the kernel library's repository: KERNEL_REPO, else the repository
 * holding KERNEL_DIR (default: kernels/ of this checkout).  A missing
 * repository is not an error (only `local` and releases in KERNEL_RELEASES
 * then resolve).  KERNEL_REPO may be a URL: see bv_repo_mirror. */
int bv_repo_open(bv_repo **out);
void bv_repo_free(bv_repo *r);
/* The library's working tree (`local`), or NULL: KERNEL_REPO is set and
 * there is no checkout around (an installed tool run anywhere). */
const char *bv_repo_kernel_dir(const bv_repo *r);
const char *bv_repo_describe(const bv_repo *r);
int bv_resolve(bv_repo *r, const char *name, bv_version *out);
/* Whether the last bv_resolve failed because name is no version at all
 * (not found by any rule; not ambiguous, not a failure to read): main.c's
 * "did you mean the subcommand" hint asks this, not the message's text. */
int bv_resolve_unknown(const char *name);
/* A release in reach: what the number X.Y.Z resolves to, by the first rule
 * of bv_resolve that finds it (a tag, the release index, the history). */
typedef struct bv_known_release {
	char *version; /* X.Y.Z */
	char *source;  /* "tag v0.2.0", "release index URL", "first commit whose kernels/VERSION reads it" */
	char id[80];   /* the commit (tag, history) or "sha256 <digest>" (index) */
} bv_known_release;
/* Every release in reach, oldest version first: each value the library's
 * VERSION takes along HEAD's history, each tag vX.Y.Z/X.Y.Z, and with
 * with_index the releases listed in KERNEL_RELEASES (downloading the index,
 * not the tarballs).  `list versions`, `compat` and the unknown-release
 * message share it, so they never disagree on what a number means. */
int bv_releases_in_reach(bv_repo *r, int with_index, bv_known_release **out, size_t *n);
void bv_known_releases_free(bv_known_release *v, size_t n);
/* The libgit2 handle (NULL outside a repository), for fetch and list. */
struct git_repository *bv_repo_git(bv_repo *r);
void bv_version_free(bv_version *v);
/* Checks a user-supplied version name before anything uses it. */
int bv_version_name_check(const char *name);

#endif
