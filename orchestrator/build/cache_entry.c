/*
 * cache_entry.c - sealed cache entries and entries in use (cache_entry.h).
 *
 * The digest is libgit2's blob id of a manifest: one line per directory and
 * regular file, sorted by name, with the file's executable bit, size and
 * blob id (hash.c's walk, but over every file: an entry holds archives and
 * objects, which a source tree's hash skips).  Anything else under an
 * entry (a symbolic link, a FIFO, a device) is damage: the tree copies that
 * make entries (fs.c) copy regular files and directories only.
 */
#include "cache_entry.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "fs.h"
#include "hash.h"

#define SEAL_MAGIC "bench-versions seal 1 "

/* Adds dir's tree to the manifest; read_only: make each file so.  Returns
 * 0, 1 with *why for damage, < 0 on an error. */
static int walk(const char *dir, const char *rel, int read_only, bv_buf *manifest, char **why)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	if (n < 0) {
		*why = bv_asprintf("%s cannot be read: %s", *rel ? rel : "the entry", strerror(errno));
		return 1;
	}
	int rc = 0;
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		if (rc || !strcmp(name, ".") || !strcmp(name, "..") || (!*rel && !strcmp(name, BV_SEAL_FILE))) {
			free(names[i]);
			continue;
		}
		char *path = bv_asprintf("%s/%s", dir, name);
		char *sub = bv_asprintf("%s%s%s", rel, *rel ? "/" : "", name);
		struct stat st;
		if (lstat(path, &st) != 0) {
			*why = bv_asprintf("%s vanished while it was read", sub);
			rc = 1;
		} else if (S_ISDIR(st.st_mode)) {
			bv_buf_printf(manifest, "d %s\n", sub);
			rc = walk(path, sub, read_only, manifest, why);
		} else if (S_ISREG(st.st_mode)) {
			git_oid oid;
			if (git_odb_hashfile(&oid, path, GIT_OBJECT_BLOB) < 0) {
				*why = bv_asprintf("%s cannot be read", sub);
				rc = 1;
			} else
				bv_buf_printf(manifest, "f %o %lld %s %s\n", (unsigned)(st.st_mode & 0100 ? 0755 : 0644),
					      (long long)st.st_size, git_oid_tostr_s(&oid), sub);
			if (rc == 0 && read_only && (st.st_mode & 0222) && chmod(path, st.st_mode & 07555) != 0)
				rc = bv_fail(BV_ERUN, "cannot make %s read-only: %s", path, strerror(errno));
		} else {
			*why = bv_asprintf("%s is %s, where a build leaves files", sub, bv_file_kind(st.st_mode));
			rc = 1;
		}
		free(path), free(sub), free(names[i]);
	}
	free(names);
	return rc;
}

/* The digest of dir's tree in out: 0, 1 with *why (damage), < 0. */
static int digest(const char *dir, int read_only, char out[41], char **why)
{
	bv_buf manifest = BV_BUF_INIT;
	bv_buf_puts(&manifest, "");
	int rc = walk(dir, "", read_only, &manifest, why);
	if (rc == 0)
		bv_hash_bytes(manifest.s, manifest.len, out);
	bv_buf_free(&manifest);
	return rc;
}

int bv_entry_seal(const char *dir)
{
	char id[41], *why = NULL;
	int rc = digest(dir, 1, id, &why);
	if (rc > 0) {
		rc = bv_fail(BV_ERUN, "cannot seal %s: %s", dir, why);
		free(why);
	}
	if (rc)
		return rc;
	char *path = bv_asprintf("%s/" BV_SEAL_FILE, dir), *text = bv_asprintf(SEAL_MAGIC "%s\n", id);
	rc = bv_write_file_atomic(path, text, strlen(text));
	if (rc == 0 && chmod(path, 0444) != 0)
		rc = bv_fail(BV_ERUN, "cannot make %s read-only: %s", path, strerror(errno));
	free(path), free(text);
	return rc;
}

int bv_entry_check(const char *dir, char **why)
{
	*why = NULL;
	struct stat st;
	if (lstat(dir, &st) != 0) {
		*why = bv_asprintf("it cannot be read: %s", strerror(errno));
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		*why = bv_asprintf("it is %s, not a directory", bv_file_kind(st.st_mode));
		return 0;
	}
	char *path = bv_asprintf("%s/" BV_SEAL_FILE, dir), *text = NULL;
	int rc = bv_read_file(path, 256, &text, NULL);
	free(path);
	if (rc != 0) {
		*why = bv_asprintf("its seal cannot be read: %s", bv_error_last());
		return 0;
	}
	size_t m = strlen(SEAL_MAGIC);
	if (strncmp(text, SEAL_MAGIC, m) || strlen(text) != m + 41 || text[m + 40] != '\n') {
		free(text);
		*why = bv_strdup("its seal is not one bench-versions writes");
		return 0;
	}
	char id[41], *damage = NULL;
	rc = digest(dir, 0, id, &damage);
	int intact = rc == 0 && !strncmp(id, text + m, 40);
	if (rc > 0)
		*why = damage;
	else if (rc < 0)
		*why = bv_strdup(bv_error_last());
	else if (!intact)
		*why = bv_strdup("its files differ from those it was sealed with (changed, added or removed)");
	free(text);
	return intact;
}

void bv_entry_discard(const char *dir)
{
	const char *slash = strrchr(dir, '/');
	char *aside = slash ? bv_asprintf("%.*s/.trash-%ld-%s", (int)(slash - dir), dir, (long)getpid(), slash + 1)
			    : bv_asprintf(".trash-%ld-%s", (long)getpid(), dir);
	/* rename() moves a symbolic link itself, never what it points to. */
	struct stat st;
	if (rename(dir, aside) != 0)
		unlink(dir);
	else if (lstat(aside, &st) == 0 && S_ISDIR(st.st_mode))
		bv_rm_rf(aside);
	else
		unlink(aside);
	free(aside);
}

/* flock() on the directory itself: no lock file shows as an entry, and a
 * lock dies with its process, so a crashed run holds nothing. */
int bv_entry_hold(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_SH) != 0)
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	return fd;
}

int bv_entry_claim(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}
