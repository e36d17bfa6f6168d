/* fuzz_version_spec.c - version names as typed on the command line
 * (resolve.c): the name check, then resolution through libgit2 against a
 * small real repository (branches, a tag, two commits), as `run` does.  The
 * input is cut at its first NUL, as argv would be. */
#include <git2.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "env.h"
#include "fuzz.h"
#include "proc.h"
#include "resolve.h"

static bv_repo *repo;

static void git(const char *dir, const char *a, const char *b, const char *c, const char *d)
{
	char *argv[] = {"git", "-C", (char *)dir, (char *)a, (char *)b, (char *)c, (char *)d, NULL};
	if (bv_run(argv, NULL, "/dev/null", BV_ENV_BUILD) != 0) {
		fprintf(stderr, "fuzz_version_spec: git %s failed\n", a);
		abort();
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	char *dir = fuzz_tmpdir("repo");
	char *kdir = bv_asprintf("%s/kernels", dir), *version = bv_asprintf("%s/VERSION", kdir);
	mkdir(kdir, 0755);
	setenv("GIT_AUTHOR_NAME", "fuzz", 1), setenv("GIT_AUTHOR_EMAIL", "fuzz@example.invalid", 1);
	setenv("GIT_COMMITTER_NAME", "fuzz", 1), setenv("GIT_COMMITTER_EMAIL", "fuzz@example.invalid", 1);
	git(dir, "init", "-q", "-b", "main");
	fuzz_write(version, "0.1.0\n", 6);
	git(dir, "add", "-A", NULL, NULL);
	git(dir, "commit", "-qm", "kernels 0.1.0", NULL);
	git(dir, "tag", "v0.1.0", NULL, NULL);
	git(dir, "branch", "feature/x", NULL, NULL);
	fuzz_write(version, "0.2.0-rc.1\n", 11);
	git(dir, "commit", "-qam", "kernels 0.2.0-rc.1", NULL);
	fuzz_write(version, "banana\n", 7); /* the working tree: `local` is refused */
	setenv("KERNEL_DIR", kdir, 1);
	unsetenv("KERNEL_REPO");
	unsetenv("KERNEL_RELEASES");
	char *cache = bv_asprintf("%s/cache", dir);
	setenv("BENCH_VERSIONS_CACHE", cache, 1);
	git_libgit2_init();
	if (bv_repo_open(&repo) != 0 || !bv_repo_git(repo)) {
		fprintf(stderr, "fuzz_version_spec: %s\n", bv_error_last());
		abort();
	}
	free(cache), free(version), free(kdir), free(dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = fuzz_str(data, size);
	int checked = bv_version_name_check(name);
	FUZZ_ERROR_SAYS_WHY(checked);
	bv_version v;
	int rc = bv_resolve(repo, name, &v);
	FUZZ_ERROR_SAYS_WHY(rc);
	/* Resolution starts with the same check: never more permissive. */
	FUZZ_ASSERT(checked == 0 || rc != 0);
	if (rc == 0) {
		FUZZ_ASSERT(name[0] != '-' && strlen(name) <= 256);
		FUZZ_ASSERT(v.kernel_version && v.label && v.rule && v.tree[0]);
		for (const char *p = v.label; *p; p++) /* labels become file names */
			FUZZ_ASSERT(*p != '/' && (unsigned char)*p > 0x20);
		FUZZ_ASSERT(v.label[0] != '.');
		bv_version_free(&v);
	}
	free(name);
	return 0;
}
