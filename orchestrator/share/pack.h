/*
 * pack.h - a results directory as one deterministic tar.gz, with libarchive
 * (pack.c), for `bench-versions share`: exactly the directory's regular
 * files, refused rather than skipped when anything else is there.
 */
#ifndef BV_PACK_H
#define BV_PACK_H

#include <stddef.h>

/* The same limits the unpacking side (unpack.c) enforces, so whatever we
 * pack our own tooling would also accept. */
#define BV_PACK_MAX_BYTES ((unsigned long long)1 << 30) /* file contents, in all */
#define BV_PACK_MAX_ENTRIES 20000

typedef struct bv_pack_info {
	size_t files;             /* regular files packed */
	unsigned long long bytes; /* their contents */
	unsigned long long size;  /* of the archive */
	char sha256[65];          /* of the archive */
} bv_pack_info;

/* Writes a gzip-compressed ustar archive of dir to the open file fd (at
 * its start; truncated first): every regular file under dir, in byte order
 * of their paths, under one top-level directory named top.  Entries carry
 * the file's mtime (whole seconds) and normalised metadata (owner 0:0 with
 * no names, mode 0644, or 0755 where any x bit is set; directories 0755),
 * and the gzip header no time, so one directory always packs to the same
 * bytes.  Refused with a message naming the path: symlinks, devices, fifos,
 * sockets, names with control characters, paths ustar cannot hold, more than
 * the limits above, a file that changes while it is read, and, when forbid
 * is not NULL, a file whose contents hold that string (the upload token).
 * dir is only read. */
int bv_pack_dir(const char *dir, const char *top, int fd, const char *forbid, bv_pack_info *info);

#endif
