/* fs.c - filesystem helpers: directories, whole files, atomic writes, copies. */
#include "common.h"
#include "fs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int bv_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

int bv_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int bv_mkdir_p(const char *path)
{
	char *p = bv_strdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST) {
			int e = errno;
			free(p);
			return bv_fail(BV_ERUN, "cannot create directory %s: %s", path, strerror(e));
		}
		*s = '/';
	}
	int rc = 0;
	if (mkdir(p, 0755) != 0 && errno != EEXIST)
		rc = bv_fail(BV_ERUN, "cannot create directory %s: %s", path, strerror(errno));
	else if (!bv_is_dir(p))
		rc = bv_fail(BV_ERUN, "%s exists and is not a directory", path);
	free(p);
	return rc;
}

int bv_mkdir_inside(const char *base, const char *rel)
{
	int rc = 0;
	char *p = bv_asprintf("%s/%s", base, rel);
	size_t start = strlen(base) + 1;
	for (size_t i = start; rc == 0; i++) {
		if (p[i] != '/' && p[i] != '\0')
			continue;
		char c = p[i];
		p[i] = '\0';
		struct stat st;
		if (mkdir(p, 0755) != 0 && errno != EEXIST)
			rc = bv_fail(BV_ERUN, "cannot create directory %s: %s", p, strerror(errno));
		else if (lstat(p, &st) != 0)
			rc = bv_fail(BV_ERUN, "cannot create directory %s: %s", p, strerror(errno));
		else if (S_ISLNK(st.st_mode))
			rc = bv_fail(BV_EINPUT,
				     "%s is a symbolic link: a run's files go only into its own directory, never "
				     "through a link to another (make it a directory)",
				     p);
		else if (!S_ISDIR(st.st_mode))
			rc = bv_fail(BV_ERUN, "%s exists and is not a directory", p);
		p[i] = c;
		if (c == '\0')
			break;
	}
	free(p);
	return rc;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

int bv_rm_rf(const char *path)
{
	if (!bv_exists(path))
		return 0;
	if (nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
		return bv_fail(BV_ERUN, "cannot remove %s: %s", path, strerror(errno));
	return 0;
}

const char *bv_file_kind(mode_t mode)
{
	if (S_ISREG(mode))
		return "a regular file";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISLNK(mode))
		return "a symlink";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a plain file";
}

int bv_open_regular(const char *path, int *fd, struct stat *st)
{
	/* O_NONBLOCK: opening a FIFO for reading waits for a writer, and a
	 * device's open may wait too; without it `compare FIFO` never returns. */
	*fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (*fd < 0)
		return bv_fail(BV_EINPUT, "cannot open %s: %s", path, strerror(errno));
	if (fstat(*fd, st) != 0) {
		int e = errno;
		close(*fd);
		*fd = -1;
		return bv_fail(BV_EINPUT, "cannot read %s: %s", path, strerror(e));
	}
	if (!S_ISREG(st->st_mode)) {
		close(*fd);
		*fd = -1;
		return bv_fail(BV_EINPUT, "%s is %s, not a regular file", path, bv_file_kind(st->st_mode));
	}
	/* A regular file never blocks, but reads should not see EAGAIN from a
	 * flag left on (some file systems, FUSE, honour it). */
	int flags = fcntl(*fd, F_GETFL);
	if (flags >= 0)
		fcntl(*fd, F_SETFL, flags & ~O_NONBLOCK);
	return 0;
}

int bv_read_file(const char *path, size_t max, char **out, size_t *len)
{
	*out = NULL;
	/* Only regular files: everything read by name (logs, budgets, compat
	 * rules and what they name) goes through here, and a FIFO or device in
	 * their place must be an error, not a hang. */
	int fd;
	struct stat st;
	int rc = bv_open_regular(path, &fd, &st);
	if (rc)
		return rc;
	/* Refuse an oversized file before reading (and holding) it all; the
	 * loop below still caps a file that grows while it is read. */
	if ((unsigned long long)st.st_size > max) {
		close(fd);
		return bv_fail(BV_EINPUT, "%s is larger than %zu bytes", path, max);
	}
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		int e = errno;
		close(fd);
		return bv_fail(BV_ERUN, "cannot read %s: %s", path, strerror(e));
	}
	bv_buf b = BV_BUF_INIT;
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (b.len + n > max) {
			fclose(f);
			bv_buf_free(&b);
			return bv_fail(BV_EINPUT, "%s is larger than %zu bytes", path, max);
		}
		bv_buf_putn(&b, chunk, n);
	}
	int err = ferror(f);
	fclose(f);
	if (err) {
		bv_buf_free(&b);
		return bv_fail(BV_EINPUT, "cannot read %s", path);
	}
	if (len)
		*len = b.len;
	*out = bv_buf_detach(&b);
	return 0;
}

int bv_write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		p += w, len -= (size_t)w;
	}
	return 0;
}

int bv_write_file_atomic(const char *path, const char *data, size_t len)
{
	/* The temporary file is a dot-file beside the target: a run cut short
	 * leaves nothing a directory listing, a glob for *.json or the site's
	 * server (which refuses dot-files) would take for a finished file. */
	const char *slash = strrchr(path, '/');
	char *tmp = slash ? bv_asprintf("%.*s/.%s.tmp.%ld", (int)(slash - path), path, slash + 1, (long)getpid())
	                  : bv_asprintf(".%s.tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;
		free(tmp);
		return bv_fail(BV_ERUN, "cannot write %s: %s", path, strerror(e));
	}
	int e = bv_write_all(fd, data, len) == 0 ? 0 : errno;
	if (fsync(fd) != 0 && !e)
		e = errno;
	if (close(fd) != 0 && !e)
		e = errno;
	if (!e && rename(tmp, path) != 0)
		e = errno;
	if (e) {
		unlink(tmp);
		free(tmp);
		return bv_fail(BV_ERUN, "cannot write %s: %s", path, strerror(e ? e : EIO));
	}
	free(tmp);
	return 0;
}

static int copy_file(const char *from, const char *to, mode_t mode)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return bv_fail(BV_ERUN, "cannot read %s: %s", from, strerror(errno));
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode & 0777);
	if (out < 0) {
		int e = errno;
		close(in);
		return bv_fail(BV_ERUN, "cannot write %s: %s", to, strerror(e));
	}
	char buf[65536];
	ssize_t n;
	int rc = 0;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (bv_write_all(out, buf, (size_t)n) != 0) {
			rc = bv_fail(BV_ERUN, "cannot write %s: %s", to, strerror(errno));
			break;
		}
	if (n < 0)
		rc = bv_fail(BV_ERUN, "cannot read %s: %s", from, strerror(errno));
	close(in);
	if (close(out) != 0 && rc == 0)
		rc = bv_fail(BV_ERUN, "cannot write %s: %s", to, strerror(errno));
	return rc;
}

/* bv_copy_tree and bv_link_tree: one walk, each regular file copied, or
 * hard-linked where link says so and the file system allows. */
static int tree_walk(const char *from, const char *to, int (*skip)(const char *name), int link_files)
{
	int rc = bv_mkdir_p(to);
	if (rc)
		return rc;
	DIR *d = opendir(from);
	if (!d)
		return bv_fail(BV_ERUN, "cannot read directory %s: %s", from, strerror(errno));
	struct dirent *e;
	while (rc == 0 && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (skip && skip(e->d_name))
			continue;
		char *src = bv_asprintf("%s/%s", from, e->d_name);
		char *dst = bv_asprintf("%s/%s", to, e->d_name);
		struct stat st;
		if (lstat(src, &st) != 0)
			rc = bv_fail(BV_ERUN, "cannot stat %s: %s", src, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			rc = tree_walk(src, dst, skip, link_files);
		else if (S_ISREG(st.st_mode) && !(link_files && link(src, dst) == 0))
			rc = copy_file(src, dst, st.st_mode);
		/* symlinks and special files are not part of a source tree we build */
		free(src);
		free(dst);
	}
	closedir(d);
	return rc;
}

int bv_copy_tree(const char *from, const char *to, int (*skip)(const char *name))
{
	return tree_walk(from, to, skip, 0);
}

int bv_link_tree(const char *from, const char *to)
{
	return tree_walk(from, to, NULL, 1);
}

char *bv_mkdtemp_in(const char *dir, const char *prefix)
{
	if (bv_mkdir_p(dir))
		return NULL;
	char *tmpl = bv_asprintf("%s/%sXXXXXX", dir, prefix);
	if (!mkdtemp(tmpl)) {
		bv_fail(BV_ERUN, "cannot create a temporary directory in %s: %s", dir, strerror(errno));
		free(tmpl);
		return NULL;
	}
	return tmpl;
}

char *bv_file_tail(const char *path, size_t n)
{
	char *all = NULL;
	size_t len = 0;
	if (bv_read_file(path, (size_t)1 << 30, &all, &len))
		return bv_strdup("(no log)");
	if (len <= n)
		return all;
	char *tail = bv_strdup(all + len - n);
	free(all);
	return tail;
}

int bv_path_lexically_inside(const char *rel)
{
	if (!*rel || rel[0] == '/')
		return 0;
	for (const char *s = rel; *s; s++)
		if (!isgraph((unsigned char)*s))
			return 0;
	for (const char *c = rel; c;) {
		if (c[0] == '.' && c[1] == '.' && (c[2] == '/' || c[2] == '\0'))
			return 0;
		c = strchr(c, '/');
		if (c)
			c++;
	}
	return 1;
}

int bv_path_inside(const char *root, const char *full, char *real)
{
	char rreal[PATH_MAX];
	if (!realpath(full, real) || !realpath(root, rreal))
		return 0;
	size_t n = strlen(rreal);
	if (n == 1) /* root is "/": everything is inside */
		n = 0;
	return strncmp(real, rreal, n) == 0 && real[n] == '/' && real[n + 1] != '\0';
}
