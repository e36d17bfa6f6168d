/*
 * unpack.h - unpacking a release tarball with libarchive (unpack.c; not
 * archive.h, which is libarchive's own).
 *
 * A tarball is hostile input until unpacked and checked: only regular files
 * and directories with plain relative names, within the limits below.
 */
#ifndef BV_UNPACK_H
#define BV_UNPACK_H

#define BV_ARCHIVE_MAX_BYTES ((unsigned long long)1 << 30) /* uncompressed, in all */
#define BV_ARCHIVE_MAX_ENTRIES 20000

/* Unpacks the tarball at path into dir (existing, empty).  Only regular
 * files and directories with relative names and no `..` are accepted; links,
 * devices and fifos are refused, as is more than the limits above.  what
 * names the tarball in messages.  On error dir may hold part of the tree:
 * the caller removes it. */
int bv_archive_extract(const char *path, const char *dir, const char *what);

#endif
