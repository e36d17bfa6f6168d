/*
 * resolve_releases.c - release numbers and where they are: which tag,
 * commit (a project file's version file or regex, the library's VERSION)
 * or release index entry gives a release, and every release in reach
 * (bv_releases_in_reach: `list`, and the closest ones named when a number
 * is not found).  Apart from resolve.c, which holds the rules that turn a
 * name into a tree: these are the lookups the rules for release numbers
 * call, and the list that `list` prints.
 */
#include <ctype.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "git_util.h"
#include "project.h"
#include "releases.h"
#include "resolve.h"
#include "resolve_releases.h"

/* ---- a project file's versions (project.h) -------------------------------
 * The built-in default keeps its own code as it always was
 * (tree_version_builtin in resolve.c; bv_resolve_first_commit and
 * releases_in_history below); a project file's library goes through these. */

/* The project's version file in the repository: "<dir>/<file>". */
char *bv_resolve_version_path(const bv_repo *r)
{
	return bv_asprintf("%s%s%s", r->prefix, *r->prefix ? "/" : "", r->project->version_file);
}

/* The blob at path in tree, NUL-terminated (at most 1 MiB), or NULL. */
static char *blob_text(git_repository *repo, const git_tree *tree, const char *path, size_t *len)
{
	git_tree_entry *e = NULL;
	git_blob *b = NULL;
	char *out = NULL;
	if (git_tree_entry_bypath(&e, tree, path) == 0 && git_tree_entry_type(e) == GIT_OBJECT_BLOB &&
	    git_blob_lookup(&b, repo, git_tree_entry_id(e)) == 0 && git_blob_rawsize(b) <= (1 << 20)) {
		*len = (size_t)git_blob_rawsize(b);
		out = bv_xmalloc(*len + 1);
		memcpy(out, git_blob_rawcontent(b), *len);
		out[*len] = '\0';
	}
	git_blob_free(b);
	git_tree_entry_free(e);
	return out;
}

typedef struct {
	git_oid commit;
	char *tag, *number;
} release_tag;

static void release_tags_free(release_tag *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(t[i].tag), free(t[i].number);
	free(t);
}

/* Every tag a project's regex makes a release (versions: the "version"
 * "tag" regex, else "releases"), peeled to its commit, in name order. */
static size_t release_tags(bv_repo *r, int versions, release_tag **out)
{
	git_strarray tags = {0};
	size_t n = 0;
	*out = NULL;
	if (git_tag_list(&tags, r->repo) != 0)
		return 0;
	*out = bv_xcalloc(tags.count + 1, sizeof(**out));
	for (size_t i = 0; i < tags.count; i++) {
		char *number = versions ? bv_project_version_tag_number(r->project, tags.strings[i])
					: bv_project_tag_number(r->project, tags.strings[i]);
		git_object *obj = NULL;
		git_commit *c = NULL;
		char *spec = bv_asprintf("refs/tags/%s", tags.strings[i]);
		if (number && git_revparse_single(&obj, r->repo, spec) == 0 &&
		    git_object_peel((git_object **)&c, obj, GIT_OBJECT_COMMIT) == 0) {
			git_oid_cpy(&(*out)[n].commit, git_commit_id(c));
			(*out)[n].tag = bv_strdup(tags.strings[i]);
			(*out)[n++].number = number;
			number = NULL;
		}
		free(number);
		git_commit_free(c);
		git_object_free(obj);
		free(spec);
	}
	git_strarray_dispose(&tags);
	return n;
}

/* Two tags giving one number at different commits: which one a name means
 * would be a guess, so it is an error naming both (the same commit is no
 * ambiguity). */
static int duplicate_tags(const bv_repo *r, const release_tag *a, const release_tag *b)
{
	char *x = bv_escape(a->tag), *y = bv_escape(b->tag);
	int rc = bv_fail(BV_EINPUT,
			 "tags %s and %s both give release %s, at different commits, in %s: make \"releases\" in %s "
			 "match only one of them",
			 x, y, a->number, r->where, r->project->path);
	free(x), free(y);
	return rc;
}

/* The release tag giving number, or *out NULL; two of them: an error. */
int bv_resolve_project_tag(bv_repo *r, const char *number, git_commit **out, char **tag)
{
	release_tag *t = NULL;
	size_t n = release_tags(r, 0, &t);
	const release_tag *found = NULL;
	int rc = 0;
	*out = NULL;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (!strcmp(t[i].number, number)) {
			if (found && !git_oid_equal(&found->commit, &t[i].commit))
				rc = duplicate_tags(r, found, &t[i]);
			else if (!found)
				found = &t[i];
		}
	if (rc == 0 && found) {
		if (git_commit_lookup(out, r->repo, &found->commit) != 0)
			rc = bv_git_fail(BV_ERUN, found->tag);
		else
			*tag = bv_strdup(found->tag);
	}
	release_tags_free(t, n);
	return rc;
}

/* "version": {"tag": R}: the nearest tag R makes a release, reachable from
 * the commit (children before parents, newest first, as git describe). */
int bv_resolve_nearest_tag(bv_repo *r, const git_oid *from, const char *what, char **out)
{
	*out = NULL;
	release_tag *t = NULL;
	size_t n = release_tags(r, 1, &t);
	git_revwalk *walk = NULL;
	git_oid oid;
	if (n && git_revwalk_new(&walk, r->repo) == 0 && git_revwalk_push(walk, from) == 0) {
		git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
		while (!*out && git_revwalk_next(&oid, walk) == 0)
			for (size_t i = 0; i < n && !*out; i++)
				if (git_oid_equal(&oid, &t[i].commit))
					*out = bv_strdup(t[i].number);
	}
	git_revwalk_free(walk);
	release_tags_free(t, n);
	if (!*out)
		return bv_fail(BV_EINPUT,
			       "%s: no tag matching \"version\".\"tag\" (%s) is reachable from it, so it has no "
			       "version; tag a release, or fix \"version\" in %s",
			       what, r->project->version_regex, r->project->path);
	return 0;
}

/* The version of a commit's tree by the project file; NULL with a message. */
char *bv_resolve_project_version(bv_repo *r, git_commit *c, const git_tree *tree, const char *what)
{
	char *out = NULL;
	if (r->project->kind == BV_PROJECT_VERSION_TAG) {
		bv_resolve_nearest_tag(r, git_commit_id(c), what, &out);
		return out;
	}
	char *path = bv_resolve_version_path(r);
	size_t len = 0;
	char *text = blob_text(r->repo, tree, path, &len);
	if (!text)
		bv_fail(BV_EINPUT, "%s has no file %s (at most 1 MiB): fix \"version\".\"file\" in %s", what, path,
			r->project->path);
	else
		bv_project_version_of(r->project, text, len, path, what, &out);
	free(text);
	free(path);
	return out;
}

/* The same, quietly, for history walks: NULL where a commit gives none. */
static char *project_version_quiet(bv_repo *r, const git_oid *oid)
{
	if (r->project->kind == BV_PROJECT_VERSION_TAG)
		return NULL; /* versions are tags: the history adds none */
	git_commit *c = NULL;
	git_tree *t = NULL;
	char *out = NULL;
	if (git_commit_lookup(&c, r->repo, oid) == 0 && git_commit_tree(&t, c) == 0) {
		char *path = bv_resolve_version_path(r);
		size_t len = 0;
		char *text = blob_text(r->repo, t, path, &len);
		if (text && bv_project_version_of(r->project, text, len, path, "", &out) != 0)
			out = NULL;
		free(text);
		free(path);
	}
	git_tree_free(t);
	git_commit_free(c);
	return out;
}

/* The oldest commit reachable from HEAD whose version reads number. */
int bv_resolve_project_first_commit(bv_repo *r, const char *number, git_commit **out)
{
	git_revwalk *walk = NULL;
	git_oid oid;
	*out = NULL;
	if (r->project->kind == BV_PROJECT_VERSION_TAG)
		return 0;
	if (git_revwalk_new(&walk, r->repo) < 0 || git_revwalk_push_head(walk) < 0) {
		git_revwalk_free(walk);
		return bv_git_fail(BV_ERUN, "walking history");
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	while (!*out && git_revwalk_next(&oid, walk) == 0) {
		char *got = project_version_quiet(r, &oid);
		if (got && !strcmp(got, number) && git_commit_lookup(out, r->repo, &oid) != 0)
			*out = NULL;
		free(got);
	}
	git_revwalk_free(walk);
	return 0;
}

int bv_resolve_is_release(const char *name)
{
	bv_semver sv;
	return bv_semver_parse(name, &sv) == 0;
}

/* The oldest commit reachable from HEAD whose VERSION reads `number`. */
int bv_resolve_first_commit(bv_repo *r, const char *number, git_commit **out)
{
	git_revwalk *walk = NULL;
	git_oid oid;
	*out = NULL;
	char *path = bv_asprintf("%s%sVERSION", r->prefix, *r->prefix ? "/" : "");
	int rc = 0;
	if (git_revwalk_new(&walk, r->repo) < 0 || git_revwalk_push_head(walk) < 0)
		rc = bv_git_fail(BV_ERUN, "walking history");
	else
		git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	int step = 0;
	while (rc == 0 && !*out && (step = git_revwalk_next(&oid, walk)) == 0) {
		git_commit *c = NULL;
		git_tree *t = NULL;
		git_tree_entry *e = NULL;
		git_blob *b = NULL;
		if (git_commit_lookup(&c, r->repo, &oid) == 0 && git_commit_tree(&t, c) == 0 &&
		    git_tree_entry_bypath(&e, t, path) == 0 &&
		    git_blob_lookup(&b, r->repo, git_tree_entry_id(e)) == 0) {
			size_t n = (size_t)git_blob_rawsize(b);
			const char *s = git_blob_rawcontent(b);
			while (n && isspace((unsigned char)s[n - 1]))
				n--;
			if (n == strlen(number) && memcmp(s, number, n) == 0) {
				*out = c;
				c = NULL;
			}
		}
		git_blob_free(b);
		git_tree_entry_free(e);
		git_tree_free(t);
		git_commit_free(c);
	}
	/* A walk that stops short (a missing parent: shallow or damaged
	 * history) must not read as "no such version". */
	if (rc == 0 && !*out && step < 0 && step != GIT_ITEROVER)
	{
		char *what = bv_asprintf("looking for the first commit whose %s reads %s", path, number);
		rc = bv_git_fail(BV_EINPUT, what);
		free(what);
	}
	if (rc && git_repository_is_shallow(r->repo))
		bv_fail_context(rc, "%s is a shallow clone, its older history is missing (git fetch --unshallow)",
				r->where);
	git_revwalk_free(walk);
	free(path);
	return rc;
}

/* ---- releases in reach --------------------------------------------------- */

void bv_known_releases_free(bv_known_release *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].version);
		free(v[i].source);
	}
	free(v);
}

typedef struct {
	bv_known_release *v;
	size_t n, cap;
} known_list;

/* The entry for `number`, added (with no source yet) when missing. */
static bv_known_release *known_slot(known_list *l, const char *number)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].version, number))
			return &l->v[i];
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = bv_xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	bv_known_release *k = &l->v[l->n++];
	memset(k, 0, sizeof(*k));
	k->version = bv_strdup(number);
	return k;
}

/* The release number a tag stands for (vX.Y.Z or X.Y.Z), else NULL. */
const char *bv_resolve_tag_number(const char *tag)
{
	if (bv_resolve_is_release(tag))
		return tag;
	if (tag[0] == 'v' && bv_resolve_is_release(tag + 1))
		return tag + 1;
	return NULL;
}

/* A project file's releases: the first commit giving each number (version
 * file or regex), then its release tags, which replace it; two tags giving
 * one number at different commits are an error naming both. */
static int project_releases(bv_repo *r, known_list *l)
{
	git_revwalk *walk = NULL;
	git_oid oid;
	char *path = r->project->kind == BV_PROJECT_VERSION_TAG ? NULL : bv_resolve_version_path(r);
	if (path && git_revwalk_new(&walk, r->repo) == 0 && git_revwalk_push_head(walk) == 0) {
		git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
		while (git_revwalk_next(&oid, walk) == 0) {
			char *number = project_version_quiet(r, &oid);
			bv_known_release *k = number ? known_slot(l, number) : NULL;
			if (k && !k->source) {
				k->source = bv_asprintf("first commit whose %s gives it", path);
				git_oid_tostr(k->id, sizeof(k->id), &oid);
			}
			free(number);
		}
	}
	git_revwalk_free(walk);
	free(path);
	release_tag *t = NULL;
	size_t nt = release_tags(r, 0, &t);
	int rc = 0;
	for (size_t i = 0; i < nt && rc == 0; i++) {
		for (size_t j = 0; j < i && rc == 0; j++)
			if (!strcmp(t[i].number, t[j].number) && !git_oid_equal(&t[i].commit, &t[j].commit))
				rc = duplicate_tags(r, &t[j], &t[i]);
		bv_known_release *k = known_slot(l, t[i].number);
		if (rc == 0 && (!k->source || strncmp(k->source, "tag ", 4) != 0)) {
			free(k->source);
			char *shown = bv_escape(t[i].tag);
			k->source = bv_asprintf("tag %s", shown);
			free(shown);
			git_oid_tostr(k->id, sizeof(k->id), &t[i].commit);
		}
	}
	release_tags_free(t, nt);
	return rc;
}

static int known_cmp(const void *a, const void *b)
{
	bv_semver x, y;
	bv_semver_parse(((const bv_known_release *)a)->version, &x);
	bv_semver_parse(((const bv_known_release *)b)->version, &y);
	return bv_semver_cmp(&x, &y);
}

/* The release numbers in the history: one walk reading VERSION blobs
 * (not a resolve per commit); the first commit with each value is the
 * release, as bv_resolve_first_commit would find it. */
static void releases_in_history(bv_repo *r, known_list *l)
{
	char *path = bv_asprintf("%s%sVERSION", r->prefix, *r->prefix ? "/" : "");
	git_revwalk *walk = NULL;
	git_oid oid;
	if (git_revwalk_new(&walk, r->repo) == 0 && git_revwalk_push_head(walk) == 0) {
		git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
		while (git_revwalk_next(&oid, walk) == 0) {
			git_commit *c = NULL;
			git_tree *t = NULL;
			git_tree_entry *e = NULL;
			git_blob *b = NULL;
			if (git_commit_lookup(&c, r->repo, &oid) == 0 && git_commit_tree(&t, c) == 0 &&
			    git_tree_entry_bypath(&e, t, path) == 0 &&
			    git_blob_lookup(&b, r->repo, git_tree_entry_id(e)) == 0) {
				size_t len = (size_t)git_blob_rawsize(b);
				const char *s = git_blob_rawcontent(b);
				while (len && isspace((unsigned char)s[len - 1]))
					len--;
				char number[65];
				if (len < sizeof(number)) {
					memcpy(number, s, len);
					number[len] = '\0';
					bv_known_release *k = bv_resolve_is_release(number) ? known_slot(l, number) : NULL;
					if (k && !k->source) {
						k->source = bv_asprintf("first commit whose %s reads it", path);
						git_oid_tostr(k->id, sizeof(k->id), &oid);
					}
				}
			}
			git_blob_free(b);
			git_tree_entry_free(e);
			git_tree_free(t);
			git_commit_free(c);
		}
	}
	git_revwalk_free(walk);
	free(path);
}

/* The release tags.  Tags come first when resolving, so they replace the
 * history's commit; vX.Y.Z is tried before X.Y.Z, so it wins over it. */
static void releases_in_tags(bv_repo *r, known_list *l)
{
	git_strarray tags = {0};
	if (git_tag_list(&tags, r->repo) == 0) {
		for (size_t i = 0; i < tags.count; i++) {
			const char *number = bv_resolve_tag_number(tags.strings[i]);
			git_object *obj = NULL;
			git_commit *c = NULL;
			char *spec = bv_asprintf("refs/tags/%s", tags.strings[i]);
			if (number && git_revparse_single(&obj, r->repo, spec) == 0 &&
			    git_object_peel((git_object **)&c, obj, GIT_OBJECT_COMMIT) == 0) {
				bv_known_release *k = known_slot(l, number);
				if (!k->source || strncmp(k->source, "tag v", 5) != 0) {
					free(k->source);
					char *shown = bv_escape(tags.strings[i]); /* the repository's name */
					k->source = bv_asprintf("tag %s", shown);
					free(shown);
					git_oid_tostr(k->id, sizeof(k->id), git_commit_id(c));
				}
			}
			git_commit_free(c);
			git_object_free(obj);
			free(spec);
		}
		git_strarray_dispose(&tags);
	}
}

/* The releases of the index KERNEL_RELEASES names (loaded once), tried
 * after tags, before the history. */
static int releases_in_index(bv_repo *r, const char *url, known_list *l)
{
	if (!r->index_loaded) {
		int rc = bv_release_index_load(url, &r->index);
		if (rc)
			return rc;
		r->index_loaded = 1;
	}
	for (size_t i = 0; i < r->index.n; i++) {
		const bv_release *rel = &r->index.releases[i];
		bv_known_release *k = known_slot(l, rel->version);
		if (k->source && !strncmp(k->source, "tag ", 4))
			continue;
		free(k->source);
		k->source = bv_asprintf("release index %s", r->index.source);
		snprintf(k->id, sizeof(k->id), "sha256 %.64s", rel->sha256);
	}
	return 0;
}

int bv_releases_in_reach(bv_repo *r, int with_index, bv_known_release **out, size_t *n)
{
	known_list l = {0};
	*out = NULL;
	*n = 0;
	int rc = 0;
	if (r->repo && !r->project->builtin)
		rc = project_releases(r, &l);
	else if (r->repo) {
		releases_in_history(r, &l);
		releases_in_tags(r, &l);
	}
	const char *url = getenv("KERNEL_RELEASES");
	if (rc == 0 && with_index && url && *url)
		rc = releases_in_index(r, url, &l);
	if (rc) {
		bv_known_releases_free(l.v, l.n);
		return rc;
	}
	if (l.n > 1) /* qsort(NULL, 0, ...) is undefined (UBSan): none in reach */
		qsort(l.v, l.n, sizeof(*l.v), known_cmp);
	*out = l.v;
	*n = l.n;
	return 0;
}

/* How far release b is from a, for "closest first": the major difference
 * counts before the minor, the minor before the patch. */
static int release_farther(const bv_semver *a, const bv_known_release *x, const bv_known_release *y)
{
	bv_semver sx, sy;
	bv_semver_parse(x->version, &sx);
	bv_semver_parse(y->version, &sy);
	unsigned long dx[3] = {sx.major > a->major ? sx.major - a->major : a->major - sx.major,
			       sx.minor > a->minor ? sx.minor - a->minor : a->minor - sx.minor,
			       sx.patch > a->patch ? sx.patch - a->patch : a->patch - sx.patch};
	unsigned long dy[3] = {sy.major > a->major ? sy.major - a->major : a->major - sy.major,
			       sy.minor > a->minor ? sy.minor - a->minor : a->minor - sy.minor,
			       sy.patch > a->patch ? sy.patch - a->patch : a->patch - sy.patch};
	for (int i = 0; i < 3; i++)
		if (dx[i] != dy[i])
			return dx[i] > dy[i];
	return bv_semver_cmp(&sx, &sy) > 0;
}

/* "0.5.0, 0.4.0, 0.6.0, ..." : the known releases closest to number first,
 * at most 8, so that a typo (0.5.9) shows the right one near the front. */
char *bv_resolve_releases_near(bv_repo *r, const char *number)
{
	bv_known_release *k = NULL;
	size_t n = 0;
	bv_semver want;
	if (bv_semver_parse(number, &want) != 0 || bv_releases_in_reach(r, r->index_loaded, &k, &n) != 0)
		return bv_strdup("");
	for (size_t i = 1; i < n; i++) /* insertion sort: a handful of releases */
		for (size_t j = i; j > 0 && release_farther(&want, &k[j - 1], &k[j]); j--) {
			bv_known_release t = k[j];
			k[j] = k[j - 1];
			k[j - 1] = t;
		}
	bv_buf b = BV_BUF_INIT;
	for (size_t i = 0; i < n && i < 8; i++)
		bv_buf_printf(&b, "%s%s", i ? ", " : "", k[i].version);
	if (n > 8)
		bv_buf_printf(&b, " and %zu more", n - 8);
	bv_known_releases_free(k, n);
	return bv_buf_detach(&b);
}
