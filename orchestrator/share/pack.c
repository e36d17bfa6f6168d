/*
 * pack.c - a results directory as one deterministic tar.gz, with libarchive.
 *
 * What we pack leaves this machine, so it is exactly the directory's
 * regular files and nothing else: a symlink could pull in any file the user
 * can read (~/.ssh/...), a fifo would block us forever and a device means
 * the path is not what the user thinks.  Those are refused, not skipped, so
 * the user learns what was left out.  The whole list is collected and
 * checked (types, names, limits) before a byte is written, then each file
 * is opened without following links and checked again against what was
 * listed, so a file swapped for a link meanwhile is caught too.
 *
 * Determinism (one directory, one archive, byte for byte) lets a server or
 * a person compare two uploads by their sha256: names in byte order,
 * normalised owners and modes, plain ustar headers holding only what we set,
 * and no time in the gzip header.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "fs.h"
#include "pack.h"

typedef struct item {
	char *rel; /* relative to the results directory */
	struct stat st;
} item;

typedef struct walk {
	const char *root;
	item *items;
	size_t n, cap;
	unsigned long long bytes;
} walk;

static int bad_component(const char *name)
{
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return 1;
	return 0;
}

static int collect(walk *w, const char *rel)
{
	char *path = rel[0] ? bv_asprintf("%s/%s", w->root, rel) : bv_strdup(w->root);
	DIR *d = opendir(path);
	if (!d) {
		int e = errno;
		int rc = bv_fail(BV_EINPUT, "cannot read %s: %s", path, strerror(e));
		free(path);
		return rc;
	}
	int rc = 0;
	struct dirent *de;
	while (rc == 0 && (errno = 0, de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *sub = rel[0] ? bv_asprintf("%s/%s", rel, de->d_name) : bv_strdup(de->d_name);
		char *full = bv_asprintf("%s/%s", w->root, sub);
		struct stat st;
		if (bad_component(de->d_name)) {
			char *shown = bv_escape(full); /* the name is the reason: shown, escaped */
			rc = bv_fail(BV_EINPUT, "%s: refused: a control character in the name", shown);
			free(shown);
		} else if (lstat(full, &st) != 0)
			rc = bv_fail(BV_EINPUT, "cannot read %s: %s", full, strerror(errno));
		else if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			rc = bv_fail(BV_EINPUT,
				     "%s is %s: share packs regular files only (remove it, or copy the run "
				     "without it)",
				     full, bv_file_kind(st.st_mode));
		else if (w->n >= BV_PACK_MAX_ENTRIES)
			rc = bv_fail(BV_EINPUT, "%s: refused: more than %d entries", w->root, BV_PACK_MAX_ENTRIES);
		else if (S_ISREG(st.st_mode) && (st.st_size < 0 || (unsigned long long)st.st_size >
									   BV_PACK_MAX_BYTES - w->bytes))
			rc = bv_fail(BV_EINPUT, "%s: refused: with it the results hold more than %llu MiB (share's limit)",
				     full, BV_PACK_MAX_BYTES >> 20);
		if (rc == 0) {
			if (w->n == w->cap) {
				w->cap = w->cap ? 2 * w->cap : 64;
				w->items = bv_xrealloc(w->items, w->cap * sizeof(item));
			}
			w->items[w->n++] = (item){bv_strdup(sub), st};
			if (S_ISREG(st.st_mode))
				w->bytes += (unsigned long long)st.st_size;
			else
				rc = collect(w, sub);
		}
		free(sub);
		free(full);
	}
	if (rc == 0 && errno != 0)
		rc = bv_fail(BV_EINPUT, "cannot read %s: %s", path, strerror(errno));
	closedir(d);
	free(path);
	return rc;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const item *)a)->rel, ((const item *)b)->rel);
}

typedef struct sink {
	int fd;
	unsigned long long size;
	EVP_MD_CTX *md;
} sink;

static la_ssize_t on_write(struct archive *a, void *payload, const void *buf, size_t len)
{
	sink *s = payload;
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(s->fd, (const char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			archive_set_error(a, errno ? errno : EIO, "cannot write the archive: %s",
					  strerror(errno ? errno : EIO));
			return -1;
		}
		done += (size_t)n;
	}
	EVP_DigestUpdate(s->md, buf, len);
	s->size += len;
	return (la_ssize_t)len;
}

/* Copies one file into the archive, checking it is still what was listed
 * and, with forbid, that it does not hold that string anywhere (also across
 * the boundary of two reads). */
static int add_file(struct archive *a, const char *full, const item *it, const char *forbid)
{
	int fd = open(full, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return bv_fail(BV_EINPUT, "cannot read %s: %s", full, strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_ino != it->st.st_ino || st.st_dev != it->st.st_dev) {
		close(fd);
		return bv_fail(BV_EINPUT, "%s changed while being packed (is a run still writing here?)", full);
	}
	size_t flen = forbid ? strlen(forbid) : 0;
	size_t keep = flen ? flen - 1 : 0;
	char *buf = bv_xmalloc(keep + 65536);
	size_t carried = 0;
	unsigned long long total = 0;
	int rc = 0;
	for (;;) {
		ssize_t n = read(fd, buf + carried, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = bv_fail(BV_EINPUT, "cannot read %s: %s", full, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		total += (unsigned long long)n;
		if (total > (unsigned long long)it->st.st_size) {
			rc = bv_fail(BV_EINPUT, "%s grew while being packed (is a run still writing here?)", full);
			break;
		}
		if (flen && memmem(buf, carried + (size_t)n, forbid, flen)) {
			rc = bv_fail(BV_EINPUT,
				     "%s holds the upload token: refusing to pack it (remove the token from "
				     "the file, or use another token)",
				     full);
			break;
		}
		if (archive_write_data(a, buf + carried, (size_t)n) != n) {
			rc = bv_fail(BV_ERUN, "cannot pack %s: %s", full, archive_error_string(a));
			break;
		}
		size_t have = carried + (size_t)n;
		carried = have < keep ? have : keep;
		memmove(buf, buf + have - carried, carried);
	}
	if (rc == 0 && total != (unsigned long long)it->st.st_size)
		rc = bv_fail(BV_EINPUT, "%s shrank while being packed (is a run still writing here?)", full);
	free(buf);
	close(fd);
	return rc;
}

static int write_all(struct archive *a, const walk *w, const char *top, const char *forbid)
{
	struct archive_entry *e = archive_entry_new();
	if (!e)
		return bv_fail(BV_ERUN, "cannot start libarchive");
	int rc = 0;
	/* The top directory takes the results directory's own time. */
	struct stat root;
	if (stat(w->root, &root) != 0)
		rc = bv_fail(BV_EINPUT, "cannot read %s: %s", w->root, strerror(errno));
	for (size_t i = 0; rc == 0 && i <= w->n; i++) {
		const item *it = i ? &w->items[i - 1] : NULL;
		const struct stat *st = it ? &it->st : &root;
		char *name = it ? bv_asprintf("%s/%s", top, it->rel) : bv_strdup(top);
		archive_entry_clear(e);
		archive_entry_copy_pathname(e, name);
		archive_entry_set_uid(e, 0);
		archive_entry_set_gid(e, 0);
		archive_entry_set_mtime(e, st->st_mtime, 0);
		if (S_ISDIR(st->st_mode)) {
			archive_entry_set_filetype(e, AE_IFDIR);
			archive_entry_set_perm(e, 0755);
			archive_entry_set_size(e, 0);
		} else {
			archive_entry_set_filetype(e, AE_IFREG);
			archive_entry_set_perm(e, st->st_mode & 0111 ? 0755 : 0644);
			archive_entry_set_size(e, st->st_size);
		}
		if (archive_write_header(a, e) != ARCHIVE_OK)
			rc = bv_fail(BV_EINPUT, "cannot pack %s/%s: %s (a ustar path holds at most 255 bytes, 100 of "
						"them after its last '/')",
				     w->root, it ? it->rel : "", archive_error_string(a));
		else if (it && S_ISREG(st->st_mode)) {
			char *full = bv_asprintf("%s/%s", w->root, it->rel);
			rc = add_file(a, full, it, forbid);
			free(full);
		}
		free(name);
	}
	archive_entry_free(e);
	return rc;
}

int bv_pack_dir(const char *dir, const char *top, int fd, const char *forbid, bv_pack_info *info)
{
	memset(info, 0, sizeof(*info));
	if (!top[0] || !strcmp(top, ".") || !strcmp(top, "..") || strchr(top, '/') || bad_component(top))
		return bv_fail(BV_EINPUT, "'%s' cannot name the archive's top directory", top);
	if (forbid && !forbid[0])
		forbid = NULL;
	struct stat st;
	if (lstat(dir, &st) != 0)
		return bv_fail(BV_EINPUT, "cannot read %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return bv_fail(BV_EINPUT, "%s is not a directory (share packs one run's results directory)", dir);
	walk w = {dir, NULL, 0, 0, 0};
	int rc = collect(&w, "");
	if (rc == 0 && w.n)
		qsort(w.items, w.n, sizeof(item), by_name);

	sink s = {fd, 0, EVP_MD_CTX_new()};
	struct archive *a = NULL;
	if (rc == 0 && (!s.md || !EVP_DigestInit_ex(s.md, EVP_sha256(), NULL)))
		rc = bv_fail(BV_ERUN, "cannot start sha256");
	if (rc == 0 && (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0))
		rc = bv_fail(BV_ERUN, "cannot write the archive: %s", strerror(errno));
	if (rc == 0 && !(a = archive_write_new()))
		rc = bv_fail(BV_ERUN, "cannot start libarchive");
	if (rc == 0 && (archive_write_set_format_ustar(a) != ARCHIVE_OK || archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
			/* "!timestamp": the gzip header would otherwise hold the time of packing. */
			archive_write_set_filter_option(a, "gzip", "timestamp", NULL) != ARCHIVE_OK ||
			archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK))
		rc = bv_fail(BV_ERUN, "cannot set up the archive: %s", archive_error_string(a));
	if (rc == 0 && archive_write_open2(a, &s, NULL, on_write, NULL, NULL) != ARCHIVE_OK)
		rc = bv_fail(BV_ERUN, "cannot start the archive: %s", archive_error_string(a));
	if (rc == 0)
		rc = write_all(a, &w, top, forbid);
	if (rc == 0 && archive_write_close(a) != ARCHIVE_OK)
		rc = bv_fail(BV_ERUN, "cannot finish the archive: %s", archive_error_string(a));
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	if (rc == 0 && (!EVP_DigestFinal_ex(s.md, md, &mdlen) || mdlen != 32))
		rc = bv_fail(BV_ERUN, "cannot compute the archive's sha256");
	if (rc == 0) {
		for (unsigned i = 0; i < 32; i++)
			snprintf(info->sha256 + 2 * i, 3, "%02x", md[i]);
		info->size = s.size;
		info->bytes = w.bytes;
		for (size_t i = 0; i < w.n; i++)
			info->files += S_ISREG(w.items[i].st.st_mode);
	}
	if (a)
		archive_write_free(a); /* after a failure: closes without finishing */
	EVP_MD_CTX_free(s.md);
	for (size_t i = 0; i < w.n; i++)
		free(w.items[i].rel);
	free(w.items);
	return rc;
}
