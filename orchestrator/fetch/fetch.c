/*
 * fetch.c - the fetch stage: a resolved tree to a source directory in the
 * cache, <cache>/src/<tree id>/.  Releases from an index are downloaded and
 * unpacked by releases.c while resolving, into <cache>/src/release-<sha256>/.
 *
 * Entries appear atomically: a tree is written into a temporary directory and
 * renamed into place, so a reader never sees half a tree and two runs at once
 * at worst both write it and one rename wins.
 */
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "fetch.h"
#include "fs.h"
#include "hash.h"
#include "proc.h"
#include "resolve.h"

typedef struct export_ctx {
	git_repository *repo;
	const char *root;
	int rc;
} export_ctx;

/* A tree entry name may come from anyone's repository: refuse anything that
 * could step outside the directory being written. */
static int safe_name(const char *name)
{
	return *name && strcmp(name, ".") && strcmp(name, "..") && !strchr(name, '/') &&
	       strcmp(name, ".git") != 0;
}

static int export_entry(const char *dir, const git_tree_entry *e, void *payload)
{
	export_ctx *x = payload;
	const char *name = git_tree_entry_name(e);
	if (!safe_name(name)) {
		x->rc = bv_fail(BV_EINPUT, "tree entry '%s%s' has an unsafe name", dir, name);
		return -1;
	}
	char *path = bv_asprintf("%s/%s%s", x->root, dir, name);
	git_filemode_t mode = git_tree_entry_filemode(e);
	int rc = 0;
	if (mode == GIT_FILEMODE_TREE) {
		if (mkdir(path, 0755) != 0 && errno != EEXIST)
			rc = bv_fail(BV_ERUN, "cannot create %s: %s", path, strerror(errno));
	} else if (mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE) {
		git_blob *blob = NULL;
		if (git_blob_lookup(&blob, x->repo, git_tree_entry_id(e)) < 0) {
			rc = bv_fail(BV_ERUN, "cannot read blob %s%s", dir, name);
		} else {
			int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
				      mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644);
			size_t len = (size_t)git_blob_rawsize(blob);
			if (fd < 0 || bv_write_all(fd, git_blob_rawcontent(blob), len) != 0)
				rc = bv_fail(BV_ERUN, "cannot write %s: %s", path, strerror(errno));
			if (fd >= 0 && close(fd) != 0 && rc == 0)
				rc = bv_fail(BV_ERUN, "cannot write %s: %s", path, strerror(errno));
			git_blob_free(blob);
		}
	}
	/* Symlinks and submodules are not sources a build may follow: skipped. */
	free(path);
	if (rc) {
		x->rc = rc;
		return -1;
	}
	return 0;
}

static int export_tree(bv_repo *r, const char *tree_hex, const char *dest)
{
	git_repository *repo = bv_repo_git(r);
	git_oid oid;
	git_tree *tree = NULL;
	if (git_oid_fromstr(&oid, tree_hex) < 0 || git_tree_lookup(&tree, repo, &oid) < 0)
		return bv_fail(BV_ERUN, "cannot read tree %s", tree_hex);
	export_ctx x = {repo, dest, 0};
	int rc = git_tree_walk(tree, GIT_TREEWALK_PRE, export_entry, &x);
	git_tree_free(tree);
	if (x.rc)
		return x.rc;
	return rc < 0 ? bv_fail(BV_ERUN, "cannot export tree %s", tree_hex) : 0;
}

int bv_fetch(bv_repo *r, bv_version *v)
{
	if (bv_interrupted())
		return bv_fail_interrupted();
	if (v->kind == BV_VERSION_RELEASE)
		return v->src_dir ? 0 : bv_fail(BV_ERUN, "fetching %s: the release was not unpacked", v->name);
	char *srcroot = bv_asprintf("%s/src", bv_cache_dir());
	char *final = bv_asprintf("%s/%s%s", srcroot, v->kind == BV_VERSION_LOCAL ? "local-" : "", v->tree);
	int rc = 0;
	if (!bv_is_dir(final)) {
		char *tmp = bv_mkdtemp_in(srcroot, ".tmp-");
		if (!tmp) {
			rc = BV_ERUN;
		} else {
			if (v->kind == BV_VERSION_LOCAL)
				rc = bv_copy_tree(bv_repo_kernel_dir(r), tmp, bv_local_skip);
			else
				rc = export_tree(r, v->tree, tmp);
			/* A rename onto a non-empty directory fails (EEXIST or ENOTEMPTY):
			 * another process wrote the same tree first, and its copy is
			 * this one; use it.  Any other failure is an error. */
			if (rc == 0 && rename(tmp, final) != 0) {
				int e = errno;
				if (!((e == EEXIST || e == ENOTEMPTY) && bv_is_dir(final)))
					rc = bv_fail(BV_ERUN, "cannot move %s into place: %s", final, strerror(e));
			}
			bv_rm_rf(tmp); /* gone already after a rename; a loser's copy otherwise */
			free(tmp);
		}
	}
	free(srcroot);
	if (rc) {
		free(final);
		return bv_fail_context(rc, "fetching %s", v->name);
	}
	v->src_dir = final;
	return 0;
}
