/* hash.h - content ids for cache keys, computed with libgit2's object hashing. */
#ifndef BV_HASH_H
#define BV_HASH_H

#include <stddef.h>

/* 40 hex digits + NUL of the bytes. */
void bv_hash_bytes(const void *data, size_t len, char out[41]);
/* Id of a working directory's contents: every regular file's path, mode and
 * blob id, skipping build products (see bv_local_skip).  Same files, same id. */
int bv_hash_tree(const char *dir, char out[41]);
/* Names that are not part of a library's sources: build dirs, objects,
 * dot-files. Used both for hashing and for copying a working tree. */
int bv_local_skip(const char *name);

#endif
