/*
 * unpack.c - unpacking a release tarball with libarchive, refusing anything
 * a kernel library's sources have no use for.
 *
 * A tarball is hostile input until unpacked and checked: entries could name
 * absolute paths or climb out with `..`, plant a symlink and then write
 * through it, create devices, or expand to far more than they weigh (a
 * decompression bomb).  We check every entry ourselves (regular files and
 * directories with plain relative names only; a cap on the entry count and
 * on the bytes written) and let libarchive's SECURE_* options check the same
 * again as it writes, so one mistake in either is not enough.  The caller
 * unpacks into a fresh temporary directory and renames it into the cache
 * only when this succeeded, so a refused or truncated tarball leaves nothing.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "unpack.h"

/* Relative, non-empty, no `..` component, no control characters, and short
 * enough that the unpacked tree can be removed again: a name of 4 KiB
 * unpacks (libarchive walks it piecewise) but later fails every path-based
 * call, `cache trim`'s among them ("File name too long"). */
#define BV_ARCHIVE_MAX_NAME 1024
static const char *bad_name(const char *name)
{
	if (!name || !*name)
		return "an empty name";
	if (strlen(name) > BV_ARCHIVE_MAX_NAME)
		return "a path longer than 1024 bytes";
	if (name[0] == '/')
		return "an absolute path";
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "a control character in its name";
	for (const char *p = name; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return "a '..' component";
		p += n;
		while (*p == '/')
			p++;
	}
	return NULL;
}

static const char *type_name(mode_t t)
{
	switch (t) {
	case AE_IFLNK: return "a symlink";
	case AE_IFCHR: return "a character device";
	case AE_IFBLK: return "a block device";
	case AE_IFIFO: return "a fifo";
	case AE_IFSOCK: return "a socket";
	default: return "an entry of unknown type";
	}
}

/* One entry, checked and written.  name is the entry's name escaped
 * (bv_escape): it is the tarball's, and may hold terminal escapes or a
 * newline that would forge a line of the message. */
static int one_entry(struct archive *a, struct archive *w, struct archive_entry *e, const char *what,
		     const char *name, unsigned long long *total)
{
	const char *why = bad_name(archive_entry_pathname(e));
	mode_t type = archive_entry_filetype(e);
	if (why)
		return bv_fail(BV_EINPUT, "%s: refused: entry '%s' has %s", what, name, why);
	if (archive_entry_hardlink(e))
		return bv_fail(BV_EINPUT, "%s: refused: entry '%s' is a hard link", what, name);
	if (type != AE_IFREG && type != AE_IFDIR)
		return bv_fail(BV_EINPUT, "%s: refused: entry '%s' is %s (only files and directories)", what, name,
			       type_name(type));
	la_int64_t size = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
	if (size < 0 || (unsigned long long)size > BV_ARCHIVE_MAX_BYTES - *total)
		return bv_fail(BV_EINPUT, "%s: refused: unpacks to more than %llu bytes", what, BV_ARCHIVE_MAX_BYTES);
	/* No set-id bits, no odd owners: a source tree needs rw and maybe x. */
	mode_t perm = archive_entry_perm(e);
	archive_entry_set_perm(e, type == AE_IFDIR || (perm & 0100) ? 0755 : 0644);
	if (archive_write_header(w, e) != ARCHIVE_OK)
		return bv_fail(BV_EINPUT, "%s: cannot unpack '%s': %s", what, name, archive_error_string(w));
	const void *buf;
	size_t len;
	la_int64_t off, end = 0;
	int r;
	while ((r = archive_read_data_block(a, &buf, &len, &off)) == ARCHIVE_OK) {
		/* Count how far the file reaches, not what was stored: sparse
		 * entries could otherwise claim terabytes in a few bytes. */
		if (off < 0 || (unsigned long long)off + len > BV_ARCHIVE_MAX_BYTES - *total)
			return bv_fail(BV_EINPUT, "%s: refused: unpacks to more than %llu bytes", what,
				       BV_ARCHIVE_MAX_BYTES);
		if (off + (la_int64_t)len > end)
			end = off + (la_int64_t)len;
		if (archive_write_data_block(w, buf, len, off) != ARCHIVE_OK)
			return bv_fail(BV_ERUN, "%s: cannot write '%s': %s", what, name, archive_error_string(w));
	}
	if (r != ARCHIVE_EOF)
		return bv_fail(BV_EINPUT, "%s: corrupt or truncated at '%s': %s", what, name, archive_error_string(a));
	*total += (unsigned long long)(end > size ? end : size);
	if (archive_write_finish_entry(w) != ARCHIVE_OK)
		return bv_fail(BV_ERUN, "%s: cannot finish '%s': %s", what, name, archive_error_string(w));
	return 0;
}

static int unpack(struct archive *a, struct archive *w, const char *what)
{
	struct archive_entry *e;
	unsigned long long total = 0;
	size_t entries = 0;
	int r, rc = 0;
	while (rc == 0 && ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN)) {
		if (++entries > BV_ARCHIVE_MAX_ENTRIES)
			return bv_fail(BV_EINPUT, "%s: refused: more than %d entries", what, BV_ARCHIVE_MAX_ENTRIES);
		char *name = bv_escape(archive_entry_pathname(e));
		rc = one_entry(a, w, e, what, name, &total);
		free(name);
	}
	if (rc)
		return rc;
	if (r != ARCHIVE_EOF)
		return bv_fail(BV_EINPUT, "%s: corrupt or truncated: %s", what, archive_error_string(a));
	if (entries == 0)
		return bv_fail(BV_EINPUT, "%s: holds no files", what);
	return 0;
}

int bv_archive_extract(const char *path, const char *dir, const char *what)
{
	struct archive *a = archive_read_new();
	struct archive *w = archive_write_disk_new();
	if (!a || !w) {
		archive_read_free(a);
		archive_write_free(w);
		return bv_fail(BV_ERUN, "cannot start libarchive");
	}
	/* Compressions libarchive decodes itself (filter_all would fall back to
	 * running external programs for some), and tar in its dialects. */
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_format_tar(a);
	archive_read_support_format_gnutar(a);
	archive_write_disk_set_options(w, ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS |
						  ARCHIVE_EXTRACT_SECURE_SYMLINKS);
	int rc = 0;
	/* archive_write_disk writes relative to the working directory, and with
	 * SECURE_NOABSOLUTEPATHS our names must stay relative: work from inside
	 * dir and come back.  The tarball is opened first, by its own path. */
	int here = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (here < 0)
		rc = bv_fail(BV_ERUN, "cannot open the working directory: %s", strerror(errno));
	else if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK)
		rc = bv_fail(BV_EINPUT, "%s: cannot open: %s", what, archive_error_string(a));
	else if (chdir(dir) != 0)
		rc = bv_fail(BV_ERUN, "cannot enter %s: %s", dir, strerror(errno));
	else {
		rc = unpack(a, w, what);
		if (archive_write_close(w) != ARCHIVE_OK && rc == 0)
			rc = bv_fail(BV_ERUN, "%s: cannot finish unpacking: %s", what, archive_error_string(w));
		if (fchdir(here) != 0 && rc == 0)
			rc = bv_fail(BV_ERUN, "cannot return to the working directory: %s", strerror(errno));
	}
	if (here >= 0)
		close(here);
	archive_read_free(a);
	archive_write_free(w);
	return rc;
}
