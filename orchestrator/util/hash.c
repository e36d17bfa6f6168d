/* hash.c - content ids (see hash.h). */
#include "hash.h"

#include <dirent.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"

void bv_hash_bytes(const void *data, size_t len, char out[41])
{
	git_oid oid;
	git_odb_hash(&oid, data, len, GIT_OBJECT_BLOB);
	git_oid_tostr(out, 41, &oid);
}

int bv_local_skip(const char *name)
{
	size_t n = strlen(name);
	if (name[0] == '.' || strcmp(name, "build") == 0)
		return 1;
	if (n > 2 && (strcmp(name + n - 2, ".o") == 0 || strcmp(name + n - 2, ".a") == 0))
		return 1;
	if (n > 3 && strcmp(name + n - 3, ".so") == 0)
		return 1;
	return n > 7 && strcmp(name + n - 7, ".tar.gz") == 0;
}

static int walk(const char *dir, const char *rel, bv_buf *manifest)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return bv_fail(BV_ERUN, "cannot read directory %s", dir);
	int rc = 0;
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		if (rc == 0 && strcmp(name, ".") && strcmp(name, "..") && !bv_local_skip(name)) {
			char *path = bv_asprintf("%s/%s", dir, name);
			char *sub = bv_asprintf("%s%s%s", rel, *rel ? "/" : "", name);
			struct stat st;
			if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
				rc = walk(path, sub, manifest);
			else if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
				git_oid oid;
				if (git_odb_hashfile(&oid, path, GIT_OBJECT_BLOB) < 0)
					rc = bv_fail(BV_ERUN, "cannot read %s", path);
				else
					bv_buf_printf(manifest, "%o %s %s\n", (unsigned)(st.st_mode & 0111 ? 0755 : 0644),
						      git_oid_tostr_s(&oid), sub);
			}
			free(path);
			free(sub);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int bv_hash_tree(const char *dir, char out[41])
{
	bv_buf manifest = BV_BUF_INIT;
	int rc = walk(dir, "", &manifest);
	if (rc == 0)
		bv_hash_bytes(manifest.s ? manifest.s : "", manifest.len, out);
	bv_buf_free(&manifest);
	return rc;
}
