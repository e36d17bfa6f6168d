/*
 * fs.h - filesystem helpers: directories, whole files, atomic writes, copies,
 * and paths that must stay inside a directory (fs.c).
 *
 * Everything here returns 0 or a BV_E* code with the message set
 * (common.h), so a stage passes a failure on without saying it again.
 */
#ifndef BV_FS_H
#define BV_FS_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

int bv_mkdir_p(const char *path);
/* Makes base/rel (base must exist), each component of rel a directory of its
 * own: a symbolic link there is an input error, never written through (a
 * run's raw/ linked elsewhere carried its documents out of the run). */
int bv_mkdir_inside(const char *base, const char *rel);
int bv_rm_rf(const char *path);
int bv_exists(const char *path);
int bv_is_dir(const char *path);
/* Opens a file named by the user or a compat rule for reading: a regular
 * file only (a FIFO, device, socket or directory is an input error naming
 * the path and what it is, found without blocking), close-on-exec. */
int bv_open_regular(const char *path, int *fd, struct stat *st);
/* What a file is, for a message: "a FIFO", "a symlink", "a character
 * device", ... (lstat's or fstat's st_mode). */
const char *bv_file_kind(mode_t mode);
/* Reads a whole regular file (at most max bytes) into *out, NUL-terminated
 * (bv_open_regular's checks). */
int bv_read_file(const char *path, size_t max, char **out, size_t *len);
/* Writes via a temporary dot-file beside path and rename(), so readers never
 * see half a file. */
int bv_write_file_atomic(const char *path, const char *data, size_t len);
/* write(2) until all of data is written (short writes and EINTR go on);
 * 0, or -1 with errno set. */
int bv_write_all(int fd, const void *data, size_t len);
/* Copies a directory tree of regular files, skipping names for which
 * skip(name) is true (NULL: skip nothing). */
int bv_copy_tree(const char *from, const char *to, int (*skip)(const char *name));
/* The same, each regular file a hard link where the file system allows
 * (else a copy): for trees nobody writes into afterwards, only adds to or
 * replaces files in (the library cache: build.c). */
int bv_link_tree(const char *from, const char *to);
/* mkdtemp under dir with the given prefix; returns a malloc'd path. */
char *bv_mkdtemp_in(const char *dir, const char *prefix);
/* A relative path that cannot leave where it starts by its spelling: not
 * empty, not absolute, no ".." component, no control characters or spaces. */
int bv_path_lexically_inside(const char *rel);
/* Whether FULL, resolved through symlinks, lies strictly inside ROOT
 * (resolved too): 1 with its real path in real (PATH_MAX bytes), else 0
 * (also when either cannot be resolved).  What compat rules and project
 * files name must not lead out of their directory by a link. */
int bv_path_inside(const char *root, const char *full, char *real);
/* The last n bytes of a file, for showing the end of a build log. */
char *bv_file_tail(const char *path, size_t n);

#endif
