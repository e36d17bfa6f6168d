/*
 * releases.c - the release index and the release cache.
 *
 * An index (docs/releases.md) maps version numbers to tarball URLs and their
 * sha256.  It is validated field by field before anything uses it: a wrong
 * type, a missing field, a digest that is not 64 hex digits or a version
 * listed twice is an error naming the index and the field.  A release is
 * kept in <cache>/src/release-<sha256>/, content-addressed, so a tarball is
 * downloaded and unpacked once; the entry appears by rename() of a complete
 * temporary directory only after the digest matched, the tarball unpacked
 * cleanly and its VERSION read what the index promised.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "download.h"
#include "fs.h"
#include "json.h"
#include "releases.h"
#include "semver.h"
#include "unpack.h"

#define INDEX_SCHEMA "bench-versions-releases"
#define INDEX_MAJOR 1
#define MAX_RELEASES 100000
#define MAX_URL 2048

void bv_release_index_free(bv_release_index *idx)
{
	for (size_t i = 0; i < idx->n; i++) {
		free(idx->releases[i].version);
		free(idx->releases[i].url);
		free(idx->releases[i].shown);
	}
	free(idx->releases);
	free(idx->source);
	memset(idx, 0, sizeof(*idx));
}

/* "1.0", "1.12": major.minor, digits only. */
static int parse_schema_version(const char *s, long *major)
{
	char *end;
	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	*major = strtol(s, &end, 10);
	if (errno || *end != '.' || !isdigit((unsigned char)end[1]))
		return -1;
	for (end++; *end; end++)
		if (!isdigit((unsigned char)*end))
			return -1;
	return 0;
}

static int check_sha256(const char *s, char out[65])
{
	if (strlen(s) != 64)
		return -1;
	for (int i = 0; i < 64; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return -1;
		out[i] = (char)tolower((unsigned char)s[i]);
	}
	out[64] = '\0';
	return 0;
}

/* base: the index's URL, which relative URLs are resolved against; src: the
 * same without credentials, for messages. */
static int one_release(const char *base, const char *src, const char *scheme, const cJSON *o, size_t i,
		       bv_release *r)
{
	if (!cJSON_IsObject(o))
		return bv_fail(BV_EINPUT, "%s: releases[%zu]: expected an object", src, i);
	const char *version = bv_json_str(o, "version");
	const char *url = bv_json_str(o, "url");
	const char *sha = bv_json_str(o, "sha256");
	bv_semver sv;
	if (!version)
		return bv_fail(BV_EINPUT, "%s: releases[%zu].version: %s", src, i,
			       cJSON_HasObjectItem(o, "version") ? "expected a string" : "missing");
	if (strlen(version) > 64 || bv_semver_parse(version, &sv) != 0) {
		char *shown = bv_escape(version); /* the index's text: shown, never obeyed */
		int rc = bv_fail(BV_EINPUT, "%s: releases[%zu].version: '%.64s' is not a version number (X.Y.Z)",
				 src, i, shown);
		free(shown);
		return rc;
	}
	if (!url)
		return bv_fail(BV_EINPUT, "%s: releases[%zu].url: %s", src, i,
			       cJSON_HasObjectItem(o, "url") ? "expected a string" : "missing");
	size_t ul = strlen(url);
	if (ul == 0 || ul > MAX_URL)
		return bv_fail(BV_EINPUT, "%s: releases[%zu].url: expected 1 to %d characters", src, i, MAX_URL);
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return bv_fail(BV_EINPUT, "%s: releases[%zu].url: contains a space or control character", src,
				       i);
	if (!sha)
		return bv_fail(BV_EINPUT, "%s: releases[%zu].sha256: %s", src, i,
			       cJSON_HasObjectItem(o, "sha256") ? "expected a string" : "missing");
	if (check_sha256(sha, r->sha256) != 0) {
		char *shown = bv_escape(sha);
		int rc = bv_fail(BV_EINPUT, "%s: releases[%zu].sha256: expected 64 hex digits, got '%.80s'", src, i,
				 shown);
		free(shown);
		return rc;
	}
	char *abs = bv_url_join(base, url);
	if (!abs)
		return bv_fail_context(BV_EINPUT, "%s: releases[%zu].url", src, i);
	/* An index on a web server must not point into this machine's files. */
	char s[16];
	bv_url_scheme(abs, s);
	int allowed = !strcmp(s, "http") || !strcmp(s, "https") || (!strcmp(s, "file") && !strcmp(scheme, "file"));
	if (!allowed) {
		char *shown = bv_url_redact(abs);
		int rc = bv_fail(BV_EINPUT, "%s: releases[%zu].url: %s: scheme '%s' is not allowed here (http, https%s)",
				 src, i, shown, s, strcmp(scheme, "file") ? "" : ", file");
		free(shown);
		free(abs);
		return rc;
	}
	r->version = bv_strdup(version);
	r->url = abs;
	r->shown = bv_url_redact(abs);
	return 0;
}

int bv_release_index_parse(const char *url, const char *text, size_t len, bv_release_index *out)
{
	memset(out, 0, sizeof(*out));
	cJSON *doc = NULL;
	/* KERNEL_RELEASES may carry user:password@: every message and the
	 * logs (a version's rule) name the index without it. */
	char *source = bv_url_redact(url);
	int rc = bv_json_parse(source, text, len, &doc);
	if (rc) {
		free(source);
		return rc;
	}
	const char *schema = bv_json_str(doc, "schema");
	const char *sv = bv_json_str(doc, "schema_version");
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "releases");
	long major = 0;
	char scheme[16];
	bv_url_scheme(url, scheme);
	if (!cJSON_IsObject(doc))
		rc = bv_fail(BV_EINPUT, "%s: expected a JSON object at the top", source);
	else if (!schema || strcmp(schema, INDEX_SCHEMA) != 0)
		rc = bv_fail(BV_EINPUT, "%s: schema: expected \"%s\"%s", source, INDEX_SCHEMA,
			     cJSON_HasObjectItem(doc, "schema") ? "" : " (missing)");
	else if (!sv || parse_schema_version(sv, &major) != 0)
		rc = bv_fail(BV_EINPUT, "%s: schema_version: expected a string \"MAJOR.MINOR\"%s", source,
			     cJSON_HasObjectItem(doc, "schema_version") ? "" : " (missing)");
	else if (major != INDEX_MAJOR) /* digits and a dot: parse_schema_version checked */
		rc = bv_fail(BV_EINPUT, "%s: schema_version: %s is not supported (this bench-versions reads %d.x)",
			     source, sv, INDEX_MAJOR);
	else if (!cJSON_IsArray(list))
		rc = bv_fail(BV_EINPUT, "%s: releases: %s", source,
			     list ? "expected an array" : "missing");
	else if (cJSON_GetArraySize(list) > MAX_RELEASES)
		rc = bv_fail(BV_EINPUT, "%s: releases: more than %d entries", source, MAX_RELEASES);
	if (rc == 0) {
		out->source = source;
		source = NULL;
		size_t n = (size_t)cJSON_GetArraySize(list);
		out->releases = bv_xcalloc(n ? n : 1, sizeof(bv_release));
		const cJSON *o;
		cJSON_ArrayForEach(o, list)
		{
			bv_release *r = &out->releases[out->n];
			rc = one_release(url, out->source, scheme, o, out->n, r);
			if (rc)
				break;
			for (size_t k = 0; k < out->n && rc == 0; k++)
				if (!strcmp(out->releases[k].version, r->version))
					rc = bv_fail(BV_EINPUT, "%s: releases[%zu].version: %s is listed twice (also releases[%zu])",
						     out->source, out->n, r->version, k);
			out->n++; /* owned from here on, freed with the rest */
			if (rc)
				break;
		}
	}
	cJSON_Delete(doc);
	free(source);
	if (rc)
		bv_release_index_free(out);
	return rc;
}

int bv_release_index_load(const char *url, bv_release_index *out)
{
	char *text = NULL;
	size_t len = 0;
	memset(out, 0, sizeof(*out));
	int rc = bv_download_mem(url, BV_INDEX_MAX, &text, &len);
	if (rc)
		return bv_fail_context(rc, "release index (KERNEL_RELEASES)");
	rc = bv_release_index_parse(url, text, len, out);
	free(text);
	return rc;
}

const bv_release *bv_release_find(const bv_release_index *idx, const char *version)
{
	for (size_t i = 0; i < idx->n; i++)
		if (!strcmp(idx->releases[i].version, version))
			return &idx->releases[i];
	return NULL;
}

/* The library's root: the one top-level directory, holding VERSION and a
 * Makefile (the shape `make -C kernels dist` produces). */
static int find_root(const char *dir, const char *what, char **root)
{
	DIR *d = opendir(dir);
	if (!d)
		return bv_fail(BV_ERUN, "cannot read %s: %s", dir, strerror(errno));
	struct dirent *e;
	char *only = NULL;
	size_t n = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n++ == 0)
			only = bv_strdup(e->d_name);
	}
	closedir(d);
	int rc = 0;
	char *path = only ? bv_asprintf("%s/%s", dir, only) : NULL;
	char *shown = bv_escape(only); /* the tarball's name for it */
	struct stat st;
	if (n != 1 || lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		rc = bv_fail(BV_EINPUT, "%s: expected one top-level directory holding the library, found %zu entries%s%s",
			     what, n, n == 1 ? " (not a directory): " : "", n == 1 ? shown : "");
	else {
		char *v = bv_asprintf("%s/VERSION", path), *m = bv_asprintf("%s/Makefile", path);
		if (!bv_exists(v) || !bv_exists(m))
			rc = bv_fail(BV_EINPUT, "%s: %s/ has no VERSION and Makefile: not a kernels library release", what,
				     shown);
		free(v);
		free(m);
	}
	free(shown);
	free(only);
	if (rc)
		free(path);
	else
		*root = path;
	return rc;
}

/* VERSION under root, trimmed, checked against what the index promised. */
static int read_version(const char *root, const bv_release *rel, const char *what, char **out)
{
	char *path = bv_asprintf("%s/VERSION", root);
	char *text = NULL;
	int rc = bv_read_file(path, 256, &text, NULL);
	free(path);
	if (rc)
		return bv_fail_context(rc, "%s", what);
	size_t n = strlen(text);
	while (n && isspace((unsigned char)text[n - 1]))
		text[--n] = '\0';
	bv_semver sv;
	if (bv_semver_parse(text, &sv) != 0)
		rc = bv_fail(BV_EINPUT, "%s: VERSION does not hold a semantic version (X.Y.Z)", what);
	else if (strcmp(text, rel->version) != 0)
		rc = bv_fail(BV_EINPUT, "%s: its VERSION reads %s, but the index lists it as %s", what, text,
			     rel->version);
	if (rc)
		free(text);
	else
		*out = text;
	return rc;
}

/* Downloads, verifies and unpacks rel into tmp/tree; tmp is ours. */
static int populate(const bv_release *rel, const char *tmp, const char *what)
{
	char *tarball = bv_asprintf("%s/download", tmp);
	char *tree = bv_asprintf("%s/tree", tmp);
	char actual[65];
	fprintf(stderr, "download: %s\n", rel->shown);
	int rc = bv_download(rel->url, tarball, BV_TARBALL_MAX, actual);
	if (rc == 0 && strcmp(actual, rel->sha256) != 0)
		rc = bv_fail(BV_EINPUT, "%s: sha256 mismatch: expected %s, got %s (nothing kept)", what, rel->sha256,
			     actual);
	if (rc == 0 && mkdir(tree, 0755) != 0)
		rc = bv_fail(BV_ERUN, "cannot create %s: %s", tree, strerror(errno));
	if (rc == 0)
		rc = bv_archive_extract(tarball, tree, what);
	free(tarball);
	free(tree);
	return rc;
}

int bv_release_fetch(const bv_release *rel, char **root, char **kernel_version)
{
	*root = NULL;
	*kernel_version = NULL;
	char *srcroot = bv_asprintf("%s/src", bv_cache_dir());
	char *final = bv_asprintf("%s/release-%s", srcroot, rel->sha256);
	char *what = bv_asprintf("release %s (%s)", rel->version, rel->shown);
	int rc = 0;
	if (!bv_is_dir(final)) {
		char *tmp = bv_mkdtemp_in(srcroot, ".tmp-release-");
		if (!tmp)
			rc = BV_ERUN;
		else {
			char *tree = bv_asprintf("%s/tree", tmp), *r = NULL, *v = NULL;
			rc = populate(rel, tmp, what);
			/* Check the shape and VERSION before the entry exists at all. */
			if (rc == 0)
				rc = find_root(tree, what, &r);
			if (rc == 0)
				rc = read_version(r, rel, what, &v);
			if (rc == 0 && rename(tree, final) != 0 && !bv_is_dir(final))
				rc = bv_fail(BV_ERUN, "cannot move %s into place: %s", final, strerror(errno));
			bv_rm_rf(tmp);
			free(tree);
			free(r);
			free(v);
			free(tmp);
		}
	}
	if (rc == 0)
		rc = find_root(final, what, root);
	if (rc == 0)
		rc = read_version(*root, rel, what, kernel_version);
	if (rc) {
		free(*root);
		*root = NULL;
	}
	free(srcroot);
	free(final);
	free(what);
	return rc;
}
