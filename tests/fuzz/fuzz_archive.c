/* fuzz_archive.c - release tarballs (unpack.c): the input is the tarball
 * (any compression libarchive reads for us), unpacked into a fresh directory
 * inside a sandbox.  Whatever happens, nothing may appear in the sandbox
 * outside that directory, and what is inside may only be regular files and
 * directories (no links, devices or fifos, even on error). */
#include <dirent.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"
#include "fuzz.h"
#include "unpack.h"

static char *sandbox, *tarball, *into;
static char start[4096];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	sandbox = fuzz_tmpdir("archive");
	tarball = bv_asprintf("%s/download", sandbox);
	into = bv_asprintf("%s/tree", sandbox);
	/* Unpacking chdirs into the target and back: it must come back here. */
	if (!getcwd(start, sizeof(start)))
		abort();
	return 0;
}

/* Only files and directories under path; *count gets how many. */
static void only_files_and_dirs(const char *path, size_t *count)
{
	DIR *d = opendir(path);
	FUZZ_ASSERT(d != NULL);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *p = bv_asprintf("%s/%s", path, e->d_name);
		struct stat st;
		FUZZ_ASSERT(lstat(p, &st) == 0);
		FUZZ_ASSERT(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode));
		FUZZ_ASSERT((st.st_mode & (S_ISUID | S_ISGID)) == 0);
		(*count)++;
		if (S_ISDIR(st.st_mode))
			only_files_and_dirs(p, count);
		free(p);
	}
	closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_write(tarball, data, size);
	FUZZ_ASSERT(mkdir(into, 0755) == 0);
	int rc = bv_archive_extract(tarball, into, "fuzz input");
	FUZZ_ERROR_SAYS_WHY(rc);
	size_t n = 0;
	only_files_and_dirs(into, &n);
	if (rc == 0)
		FUZZ_ASSERT(n > 0);
	/* The sandbox holds the tarball and the tree, nothing else. */
	DIR *d = opendir(sandbox);
	struct dirent *e;
	while ((e = readdir(d)))
		FUZZ_ASSERT(!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "download") ||
			    !strcmp(e->d_name, "tree"));
	closedir(d);
	/* And the working directory is where it was. */
	char cwd[4096];
	FUZZ_ASSERT(getcwd(cwd, sizeof(cwd)) && !strcmp(cwd, start));
	bv_rm_rf(into);
	return 0;
}
