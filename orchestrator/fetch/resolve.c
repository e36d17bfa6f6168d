/*
 * resolve.c - the resolve stage: a version name to an exact tree.
 *
 * Rules, in order; the one that matched is reported to the user:
 *   local          the working tree at KERNEL_DIR, uncommitted changes included
 *   X.Y.Z          a tag vX.Y.Z or X.Y.Z, else the release index named by
 *                  KERNEL_RELEASES (a tarball, releases.c), else the first
 *                  commit (oldest first, from HEAD) whose <prefix>/VERSION
 *                  reads X.Y.Z; none of them: an error listing the releases
 *                  in reach (bv_releases_in_reach)
 *   vX.Y.Z         a tag or branch of that name, else release X.Y.Z as above
 *   anything else  a git revision: branch, tag, commit, HEAD~3, v0.2.0^ ...
 * All through libgit2: no git command and no shell ever sees a name.
 * KERNEL_REPO may be a URL; remote.c then keeps a bare clone in the cache.
 * This file holds the repository and the rules; where a release number
 * leads (a tag, a commit, the index) and the releases in reach are
 * resolve_releases.c's.
 */
#include <ctype.h>
#include <git2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "compat.h"
#include "download.h"
#include "fs.h"
#include "git_util.h"
#include "hash.h"
#include "locate.h"
#include "project.h"
#include "releases.h"
#include "remote.h"
#include "resolve.h"
#include "resolve_releases.h"

const char *bv_repo_kernel_dir(const bv_repo *r) { return r->kernel_dir; }
const char *bv_repo_describe(const bv_repo *r) { return r->where; }

/* The project: BENCH_VERSIONS_PROJECT, else bench-versions.json at the root
 * of the working tree, else (a bare repository, a URL's clone) the one in
 * HEAD's tree, else the built-in default.  A project file read from a tree
 * is checked as any other, but its "compat" and "ops" are files of that
 * tree, not on disk: they are not used (BENCH_VERSIONS_COMPAT is). */
static int open_project(bv_repo *r, const char *workdir)
{
	int rc = bv_project_find(workdir, &r->project);
	const char *env = getenv("BENCH_VERSIONS_PROJECT");
	if (rc || workdir || (env && *env))
		return rc;
	git_object *obj = NULL;
	if (git_revparse_single(&obj, r->repo, "HEAD:" BV_PROJECT_FILE) == 0 &&
	    git_object_type(obj) == GIT_OBJECT_BLOB) {
		const git_blob *b = (const git_blob *)obj;
		size_t n = (size_t)git_blob_rawsize(b);
		char *shown = bv_asprintf("%s (HEAD:%s)", git_repository_path(r->repo), BV_PROJECT_FILE);
		if (n > BV_PROJECT_MAX)
			rc = bv_fail(BV_EINPUT, "%s is larger than %d bytes", shown, BV_PROJECT_MAX);
		else {
			char *text = bv_xmalloc(n + 1);
			memcpy(text, git_blob_rawcontent(b), n);
			text[n] = '\0';
			bv_project *p = NULL;
			rc = bv_project_parse(shown, text, n, NULL, &p);
			if (rc == 0) {
				bv_project_free(r->project);
				r->project = p;
			}
			free(text);
		}
		free(shown);
	}
	git_object_free(obj);
	return rc;
}

int bv_repo_open(bv_repo **out)
{
	*out = NULL;
	bv_repo *r = bv_xcalloc(1, sizeof(*r));
	const char *repo_env = getenv("KERNEL_REPO");
	/* KERNEL_DIR, else the library of the repository around the current
	 * directory, else the source tree's own (locate.c).  With KERNEL_REPO
	 * set none is needed: an installed tool run outside any checkout
	 * resolves every name but `local` from it (said when `local` is asked). */
	int lrc = bv_locate_library(&r->kernel_dir, NULL);
	if (lrc && !(repo_env && *repo_env)) {
		free(r);
		return lrc;
	}
	char *no_library = lrc ? bv_strdup(bv_error_last()) : NULL;

	char *mirror = NULL;
	int rc;
	if (repo_env && *repo_env && bv_repo_is_url(repo_env)) {
		rc = bv_repo_mirror(repo_env, &mirror);
		if (rc) {
			bv_repo_free(r);
			return rc;
		}
		rc = git_repository_open_bare(&r->repo, mirror);
	} else if (repo_env && *repo_env)
		rc = git_repository_open_ext(&r->repo, repo_env, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
	else
		rc = git_repository_open_ext(&r->repo, r->kernel_dir, 0, NULL);
	if (rc < 0) {
		if (repo_env && *repo_env) {
			rc = bv_git_fail(BV_EINPUT, "KERNEL_REPO");
			free(mirror);
			free(no_library);
			bv_repo_free(r);
			return rc;
		}
		r->repo = NULL; /* only `local` will resolve; said when another name is asked */
		rc = bv_project_find(NULL, &r->project);
		if (rc) {
			bv_repo_free(r);
			return rc;
		}
		bv_project_set_current(r->project);
		r->prefix = bv_strdup("");
		r->where = bv_asprintf("no repository (KERNEL_DIR %s is not in one)", r->kernel_dir);
		*out = r;
		return 0;
	}
	const char *workdir = git_repository_workdir(r->repo);
	char wreal[PATH_MAX];
	size_t wl = workdir && realpath(workdir, wreal) ? strlen(wreal) : 0;
	if (!r->kernel_dir) {
		/* KERNEL_REPO and no library around: a checkout's own library is
		 * its `local`; a bare repository or a URL has none. */
		char *lib = wl ? bv_library_in(wreal) : NULL;
		char real[PATH_MAX];
		if (lib && realpath(lib, real))
			r->kernel_dir = bv_strdup(real);
		else
			r->no_local = no_library, no_library = NULL;
		free(lib);
	}
	free(no_library);
	rc = open_project(r, wl ? wreal : NULL);
	if (rc) {
		free(mirror);
		bv_repo_free(r);
		return rc;
	}
	bv_project_set_current(r->project);
	if (!r->kernel_dir && !r->project->builtin)
		r->prefix = bv_strdup(r->project->dir); /* the project file's "dir" */
	else if (!r->kernel_dir)
		r->prefix = bv_strdup("kernels"); /* the usual layout */
	else if (wl && strncmp(r->kernel_dir, wreal, wl) == 0 &&
	    (r->kernel_dir[wl] == '/' || r->kernel_dir[wl] == '\0'))
		r->prefix = bv_strdup(r->kernel_dir[wl] ? r->kernel_dir + wl + 1 : "");
	else if (!r->project->builtin)
		r->prefix = bv_strdup(r->project->dir);
	else
		r->prefix = bv_strdup("kernels"); /* KERNEL_REPO elsewhere: the usual layout */
	if (mirror) {
		char *shown = bv_url_redact(repo_env); /* printed: never its user:password@ */
		r->where = bv_asprintf("%s (clone in %s)%s%s", shown, mirror, *r->prefix ? ", library in " : "",
				       r->prefix);
		free(shown);
	}
	else
		r->where = bv_asprintf("%s%s%s", workdir ? wreal : git_repository_path(r->repo),
				       *r->prefix ? ", library in " : "", r->prefix);
	free(mirror);
	if (!r->project->builtin) {
		char *w = bv_asprintf("%s (project %s, %s)", r->where, r->project->name, r->project->path);
		free(r->where);
		r->where = w;
	}
	*out = r;
	return 0;
}

void bv_repo_free(bv_repo *r)
{
	if (!r)
		return;
	git_repository_free(r->repo);
	free(r->kernel_dir);
	free(r->no_local);
	free(r->prefix);
	free(r->where);
	bv_release_index_free(&r->index);
	bv_project_free(r->project); /* no longer bv_project_current() */
	free(r);
}

void bv_version_free(bv_version *v)
{
	free(v->name);
	free(v->label);
	free(v->rule);
	free(v->summary);
	free(v->kernel_version);
	free(v->src_dir);
	bv_shims_free(&v->shims);
	free(v->build_key);
	free(v->plugin);
	free(v->build_error);
	memset(v, 0, sizeof(*v));
}

int bv_version_name_check(const char *name)
{
	size_t n = strlen(name);
	if (n == 0)
		return bv_fail(BV_EINPUT, "empty version name");
	if (n > 256)
		return bv_fail(BV_EINPUT, "version name of %zu characters is too long (at most 256)", n);
	if (name[0] == '-')
		return bv_fail(BV_EINPUT, "'%s' looks like an option, not a version (unknown option?)", name);
	for (const char *p = name; *p; p++)
		if (!isgraph((unsigned char)*p))
			return bv_fail(BV_EINPUT, "version name contains a space or control character");
	return 0;
}

/* Column label: the name with anything unsafe in a file name replaced. */
static char *make_label(const char *name)
{
	char *l = bv_strdup(name);
	for (char *p = l; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' && *p != '_')
			*p = '_';
	if (l[0] == '.')
		l[0] = '_';
	return l;
}

/* VERSION of the library in tree, trimmed; NULL with a message when absent. */
static char *tree_version_builtin(git_repository *repo, const git_tree *tree, const char *prefix, const char *what)
{
	char *path = bv_asprintf("%s%sVERSION", prefix, *prefix ? "/" : "");
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	char *out = NULL;
	if (git_tree_entry_bypath(&e, tree, path) < 0 || git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
		bv_fail(BV_EINPUT, "%s has no %s: not a kernels library tree", what, path);
	} else if (git_blob_lookup(&blob, repo, git_tree_entry_id(e)) < 0) {
		bv_git_fail(BV_ERUN, path);
	} else {
		size_t n = (size_t)git_blob_rawsize(blob);
		const char *s = git_blob_rawcontent(blob);
		while (n && isspace((unsigned char)s[n - 1]))
			n--;
		bv_semver sv;
		out = bv_xmalloc(n + 1);
		memcpy(out, s, n);
		out[n] = '\0';
		if (n > 64 || bv_semver_parse(out, &sv) != 0) {
			bv_fail(BV_EINPUT, "%s: %s does not hold a semantic version (X.Y.Z)", what, path);
			free(out);
			out = NULL;
		}
	}
	git_blob_free(blob);
	git_tree_entry_free(e);
	free(path);
	return out;
}

/* Fills the git fields of v from a commit. */
static int from_commit(bv_repo *r, git_commit *c, bv_version *v)
{
	git_tree *root = NULL;
	git_tree_entry *e = NULL;
	char shortid[8];
	git_oid_tostr(v->commit, sizeof(v->commit), git_commit_id(c));
	git_oid_tostr(shortid, sizeof(shortid), git_commit_id(c));
	char *what = bv_asprintf("commit %s", shortid);
	int rc = 0;
	if (git_commit_tree(&root, c) < 0)
		rc = bv_git_fail(BV_ERUN, what);
	else if (*r->prefix) {
		if (git_tree_entry_bypath(&e, root, r->prefix) < 0 || git_tree_entry_type(e) != GIT_OBJECT_TREE)
			rc = e && git_tree_entry_type(e) == GIT_OBJECT_COMMIT
				     /* a gitlink: the library's history lives in another repository */
				     ? bv_fail(BV_EINPUT, "%s: %s/ is a submodule; set KERNEL_DIR to its checkout "
							  "(and leave KERNEL_REPO unset) to compare its versions",
					       what, r->prefix)
				     : bv_fail(BV_EINPUT, "%s has no %s/ directory", what, r->prefix);
		else
			git_oid_tostr(v->tree, sizeof(v->tree), git_tree_entry_id(e));
	} else
		git_oid_tostr(v->tree, sizeof(v->tree), git_tree_id(root));
	if (rc == 0) {
		v->kernel_version = r->project->builtin ? tree_version_builtin(r->repo, root, r->prefix, what)
							: bv_resolve_project_version(r, c, root, what);
		if (!v->kernel_version)
			rc = BV_EINPUT;
	}
	if (rc == 0) {
		const char *msg = git_commit_summary(c);
		v->summary = bv_asprintf("%s %s", shortid, msg ? msg : "");
		v->kind = BV_VERSION_GIT;
	}
	git_tree_entry_free(e);
	git_tree_free(root);
	free(what);
	return rc;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return SIZE_MAX;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* "did you mean" candidates: branch and tag names near `name`. */
static char *nearest_refs(git_repository *repo, const char *name)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	bv_buf b = BV_BUF_INIT;
	size_t shown = 0;
	if (git_reference_iterator_new(&it, repo) < 0)
		return bv_strdup("");
	while (shown < 5 && git_reference_next(&ref, it) == 0) {
		const char *shorthand = git_reference_shorthand(ref);
		size_t d = edit_distance(name, shorthand);
		size_t limit = strlen(name) / 3 + 1;
		if (d <= limit || strstr(shorthand, name)) {
			bv_buf_puts(&b, shown ? ", " : "");
			bv_buf_put_escaped(&b, shorthand, strlen(shorthand), 0); /* the repository's name */
			shown++;
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	return bv_buf_detach(&b);
}

/* `local` by a project file: its version file in the working tree, or the
 * nearest release tag reachable from the checkout's HEAD. */
static int project_local(bv_repo *r, bv_version *v)
{
	char *number = NULL;
	int rc;
	if (r->project->kind == BV_PROJECT_VERSION_TAG) {
		git_oid head;
		if (!r->repo || git_reference_name_to_id(&head, r->repo, "HEAD") != 0)
			return bv_fail(BV_EINPUT, "the working tree %s has no git HEAD to find its release tag from "
						  "(\"version\".\"tag\" in %s)",
				       r->kernel_dir, r->project->path);
		rc = bv_resolve_nearest_tag(r, &head, "the working tree's HEAD", &number);
	} else {
		char *path = bv_asprintf("%s/%s", r->kernel_dir, r->project->version_file);
		char *text = NULL;
		size_t len = 0;
		char real[PATH_MAX];
		/* Spelt inside "dir" (project.c), but a symlink may lead out: the
		 * version came out as 12.11.0 from /etc/debian_version.  Refused
		 * as "dir", "compat" and "ops" are (a commit's tree holds the link
		 * as a blob of its target's name, no version). */
		if (bv_exists(path) && !bv_path_inside(r->kernel_dir, path, real))
			rc = bv_fail(BV_EINPUT, "%s: \"version\".\"file\" %s leads out of the library's directory %s "
						"by a symlink: fix \"version\".\"file\"",
				     r->project->path, r->project->version_file, r->kernel_dir);
		else
			rc = bv_read_file(path, 1 << 20, &text, &len);
		if (rc && !bv_exists(path))
			rc = bv_fail(BV_EINPUT, "the working tree has no %s: fix \"version\".\"file\" in %s", path,
				     r->project->path);
		if (rc == 0)
			rc = bv_project_version_of(r->project, text, len, path, "the working tree", &number);
		free(text);
		free(path);
	}
	if (rc)
		return rc;
	v->kind = BV_VERSION_LOCAL;
	v->kernel_version = number;
	v->rule = bv_strdup("working tree (KERNEL_DIR), uncommitted changes included");
	v->summary = bv_strdup(r->kernel_dir);
	return 0;
}

static int resolve_local(bv_repo *r, bv_version *v)
{
	if (!r->kernel_dir)
		return bv_fail(BV_EINPUT, "'local' is a working tree, and there is none: %s (KERNEL_REPO gives every other name: "
					  "releases, branches, tags, commits)",
			       r->no_local ? r->no_local : "no library found");
	int rc = bv_hash_tree(r->kernel_dir, v->tree);
	if (rc)
		return rc;
	if (!r->project->builtin)
		return project_local(r, v);
	char *path = bv_asprintf("%s/VERSION", r->kernel_dir);
	char *text = NULL;
	rc = bv_read_file(path, 256, &text, NULL);
	bv_semver sv;
	if (rc == 0) {
		size_t n = strlen(text);
		while (n && isspace((unsigned char)text[n - 1]))
			text[--n] = '\0';
		if (bv_semver_parse(text, &sv) != 0)
			rc = bv_fail(BV_EINPUT, "%s does not hold a semantic version (X.Y.Z)", path);
	} else if (!bv_exists(path))
		rc = bv_fail(BV_EINPUT, "%s: the working tree has no VERSION file", r->kernel_dir);
	/* else bv_read_file's reason: too large, unreadable */
	free(path);
	if (rc) {
		free(text);
		return rc;
	}
	v->kind = BV_VERSION_LOCAL;
	v->kernel_version = text;
	v->rule = bv_strdup("working tree (KERNEL_DIR), uncommitted changes included");
	v->summary = bv_strdup(r->kernel_dir);
	return 0;
}

/* The release named `number` in KERNEL_RELEASES: *found is 0 when there is
 * no index or it does not list the number (the next rule then applies); an
 * index that cannot be read or is malformed is an error, not a miss. */
static int resolve_release(bv_repo *r, const char *number, bv_version *v, int *found)
{
	*found = 0;
	const char *url = getenv("KERNEL_RELEASES");
	if (!url || !*url)
		return 0;
	if (!r->index_loaded) {
		int rc = bv_release_index_load(url, &r->index);
		if (rc)
			return rc;
		r->index_loaded = 1;
	}
	const bv_release *rel = bv_release_find(&r->index, number);
	if (!rel)
		return 0;
	char *root = NULL, *kv = NULL;
	int rc = bv_release_fetch(rel, &root, &kv);
	if (rc)
		return bv_fail_context(rc, "resolving %s", number);
	*found = 1;
	v->kind = BV_VERSION_RELEASE;
	snprintf(v->tree, sizeof(v->tree), "release-%s", rel->sha256);
	v->src_dir = root;
	v->kernel_version = kv;
	v->rule = bv_asprintf("release index %s: sha256 %.12s...", r->index.source, rel->sha256);
	v->summary = bv_strdup(rel->shown); /* the logs never hold credentials */
	return 0;
}

/* A name by a project file's rules: a release number (X.Y or X.Y.Z) is the
 * release tag giving it (two: an error), else the release index's, else the
 * first commit whose version reads it; a release tag's own name is that
 * tag.  *commit NULL and *done 0: try it as a git revision; *done 1: v is
 * complete (a release from the index). */
static int project_resolve(bv_repo *r, const char *name, bv_version *v, git_commit **commit, int *done)
{
	*commit = NULL;
	*done = 0;
	char *number = bv_project_pad(name, strlen(name));
	git_object *obj = NULL;
	int rc = 0;
	if (!number) {
		char *tagnum = bv_project_tag_number(r->project, name);
		char *spec = bv_asprintf("refs/tags/%s", name);
		if (tagnum && git_revparse_single(&obj, r->repo, spec) == 0 &&
		    git_object_peel((git_object **)commit, obj, GIT_OBJECT_COMMIT) == 0)
			v->rule = bv_asprintf("release tag %s (release %s)", name, tagnum);
		git_object_free(obj);
		free(spec);
		free(tagnum);
		return 0; /* else a revision */
	}
	char *tag = NULL;
	rc = bv_resolve_project_tag(r, number, commit, &tag);
	if (rc == 0 && *commit) {
		char *shown = bv_escape(tag);
		v->rule = bv_asprintf("release tag %s", shown);
		free(shown);
	}
	free(tag);
	if (rc == 0 && !*commit) {
		rc = resolve_release(r, number, v, done);
		if (rc == 0 && !*done) {
			rc = bv_resolve_project_first_commit(r, number, commit);
			char *path = r->project->kind == BV_PROJECT_VERSION_TAG ? NULL : bv_resolve_version_path(r);
			if (rc == 0 && *commit)
				v->rule = bv_asprintf("first commit whose %s gives %s", path, number);
			if (rc == 0 && !*commit) {
				/* a branch named like a release still gets its chance */
				git_reference *ref = NULL;
				int err = git_revparse_ext(&obj, &ref, r->repo, name);
				git_reference_free(ref);
				git_object_free(obj);
				if (err != 0) {
					char *known = bv_resolve_releases_near(r, number);
					rc = bv_fail(BV_EINPUT,
						     "unknown release '%s': no tag matching \"releases\" (%s) gives %s, "
						     "%s%s%s%sin %s; %s%s (bench-versions list versions)",
						     name, r->project->releases, number,
						     r->index_loaded ? "not in the release index, " : "",
						     path ? "no commit from HEAD whose " : "", path ? path : "",
						     path ? " gives it, " : "", r->where,
						     *known ? "known releases, closest first: " : "no releases in reach",
						     known);
					free(known);
				}
			}
			free(path);
		}
	}
	free(number);
	return rc;
}

/* The name the last bv_resolve found to be no version at all, for
 * bv_resolve_unknown; empty when it resolved or failed otherwise.  A name
 * too long for it is no subcommand's typo either. */
static char unknown_name[64];

int bv_resolve_unknown(const char *name)
{
	return *unknown_name && name && !strcmp(unknown_name, name);
}

/* Without a repository (none found, KERNEL_REPO unset): a release number
 * from the release index, or nothing but 'local'. */
static int resolve_without_repo(bv_repo *r, const char *name, bv_version *v)
{
	int found = 0, rc = 0;
	char *pnum = r->project->builtin ? NULL : bv_project_pad(name, strlen(name));
	if (!r->project->builtin && !pnum)
		pnum = bv_project_tag_number(r->project, name);
	const char *number = !r->project->builtin ? pnum : bv_resolve_is_release(name) ? name : bv_resolve_tag_number(name);
	if (number)
		rc = resolve_release(r, number, v, &found);
	free(pnum);
	if (rc || found)
		return rc;
	return bv_fail(BV_EINPUT,
		       "cannot resolve '%s': %s; only 'local' is available (set KERNEL_REPO to a repository, or KERNEL_RELEASES to a release index)",
		       name, r->where);
}

/* "no tag vX.Y.Z: release X.Y.Z, <the rule that found it>": vX.Y.Z
 * without a tag or branch of that name is release X.Y.Z, and says so. */
static void say_vform(const char *name, const char *number, bv_version *v)
{
	char *rule = bv_asprintf("no tag %s: release %s, %s", name, number, v->rule);
	free(v->rule);
	v->rule = rule;
}

/* A release number nothing knows: say which ones exist. */
static int unknown_release(bv_repo *r, const char *name, const char *number)
{
	char *known = bv_resolve_releases_near(r, number);
	int rc = bv_fail(BV_EINPUT,
			 "unknown release '%s': no tag v%s or %s, %sno commit from HEAD whose %s%sVERSION "
			 "reads %s, in %s; %s%s%s",
			 name, number, number, r->index_loaded ? "not in the release index, " : "", r->prefix,
			 *r->prefix ? "/" : "", number, r->where,
			 *known ? "known releases, closest first: " : "no releases in reach", known,
			 git_repository_is_shallow(r->repo)
				 ? " (a shallow clone: history before its oldest commit is missing; "
				   "git fetch --unshallow)"
				 : " (bench-versions list versions)");
	free(known);
	return rc;
}

/* A release number by the built-in rules, in order: a tag vX.Y.Z or
 * X.Y.Z, the release index, the first commit whose VERSION reads it.
 * *commit gets the commit, or stays NULL when the release index had it
 * (*done: v is resolved) or nothing did: a branch named like a release
 * still gets its chance as a revision, unless vX.Y.Z (vform), whose
 * revision lookup already failed. */
static int resolve_number(bv_repo *r, const char *name, const char *number, int vform, bv_version *v,
			  git_commit **commit, int *done)
{
	git_object *obj = NULL;
	const char *forms[] = {"refs/tags/v%s", "refs/tags/%s"};
	for (int i = 0; i < 2 && !*commit; i++) {
		char *spec = bv_asprintf(forms[i], number);
		if (git_revparse_single(&obj, r->repo, spec) == 0 &&
		    git_object_peel((git_object **)commit, obj, GIT_OBJECT_COMMIT) == 0)
			v->rule = bv_asprintf("release tag %s", spec + strlen("refs/tags/"));
		git_object_free(obj);
		obj = NULL;
		free(spec);
	}
	if (!*commit) {
		int found = 0;
		int rc = resolve_release(r, number, v, &found);
		if (found && !rc && vform)
			say_vform(name, number, v);
		if (rc || found) {
			*done = 1;
			return rc;
		}
		if ((rc = bv_resolve_first_commit(r, number, commit)) != 0)
			return rc;
		if (*commit)
			v->rule = bv_asprintf("first commit whose %s%sVERSION reads %s", r->prefix,
					      *r->prefix ? "/" : "", number);
	}
	if (*commit && vform)
		say_vform(name, number, v);
	if (!*commit) {
		git_reference *ref = NULL;
		int err = vform ? -1 : git_revparse_ext(&obj, &ref, r->repo, name);
		git_reference_free(ref);
		git_object_free(obj);
		if (err != 0)
			return unknown_release(r, name, number);
	}
	return 0;
}

/* Any git revision (branches, tags, commits, HEAD~3), with the rule that
 * names what it was; an unknown one names the nearest refs. */
static int resolve_revision(bv_repo *r, const char *name, bv_version *v, git_commit **commit)
{
	git_object *obj = NULL;
	git_reference *ref = NULL;
	int err = git_revparse_ext(&obj, &ref, r->repo, name);
	if (err == 0 && git_object_peel((git_object **)commit, obj, GIT_OBJECT_COMMIT) == 0) {
		if (ref && git_reference_is_branch(ref))
			v->rule = bv_strdup("branch");
		else if (ref && git_reference_is_tag(ref))
			v->rule = bv_strdup("tag");
		else if (strspn(name, "0123456789abcdef") == strlen(name))
			v->rule = bv_strdup("commit");
		else
			v->rule = bv_strdup("git revision");
	}
	git_reference_free(ref);
	git_object_free(obj);
	if (*commit)
		return 0;
	int rc;
	char *near = nearest_refs(r->repo, name);
	if (err == GIT_EAMBIGUOUS)
		rc = bv_fail(BV_EINPUT, "'%s' is ambiguous in %s: give more hex digits of the commit", name, r->where);
	else {
		if (strlen(name) < sizeof(unknown_name))
			strcpy(unknown_name, name);
		rc = bv_fail(BV_EINPUT,
			     "unknown version '%s': tried 'local', a release tag or VERSION number, "
			     "and a git revision in %s%s%s%s",
			     name, r->where, *near ? "; nearest: " : "", near,
			     git_repository_is_shallow(r->repo)
				     ? " (a shallow clone: history before its oldest commit is missing; "
				       "git fetch --unshallow)"
				     : "");
	}
	free(near);
	return rc;
}

int bv_resolve(bv_repo *r, const char *name, bv_version *v)
{
	memset(v, 0, sizeof(*v));
	*unknown_name = '\0';
	int rc = bv_version_name_check(name);
	if (rc)
		return rc;
	git_commit *commit = NULL;
	int done = 0;
	v->name = bv_strdup(name);
	v->label = make_label(name);
	if (strcmp(name, "local") == 0) {
		rc = resolve_local(r, v);
		goto cleanup;
	}
	if (!r->repo) {
		rc = resolve_without_repo(r, name, v);
		goto cleanup;
	}
	/* vX.Y.Z is how releases are usually written (the docs do): a tag or
	 * branch of that very name wins, as any revision would; without one it
	 * means release X.Y.Z, found by the rules below, and the rule says so. */
	const char *number = r->project->builtin && bv_resolve_is_release(name) ? name : NULL;
	int vform = 0;
	if (!r->project->builtin)
		rc = project_resolve(r, name, v, &commit, &done);
	else if (!number && bv_resolve_tag_number(name)) {
		git_object *obj = NULL;
		git_reference *ref = NULL;
		if (git_revparse_ext(&obj, &ref, r->repo, name) != 0) {
			number = bv_resolve_tag_number(name);
			vform = 1;
		}
		git_reference_free(ref);
		git_object_free(obj);
	}
	if (rc == 0 && !done && number)
		rc = resolve_number(r, name, number, vform, v, &commit, &done);
	if (rc == 0 && !done && !commit)
		rc = resolve_revision(r, name, v, &commit);
	if (rc == 0 && !done)
		rc = from_commit(r, commit, v);
cleanup:
	git_commit_free(commit);
	if (rc)
		bv_version_free(v);
	return rc;
}

git_repository *bv_repo_git(bv_repo *r) { return r->repo; }
