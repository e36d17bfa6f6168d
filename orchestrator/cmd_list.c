/* cmd_list.c - bench-versions list benches|backends|versions. */
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "cli.h"
#include "common.h"
#include "stages.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: bench-versions list benches|backends|versions\n\n"
		     "  benches    groups with their ops, default sizes and backends\n"
		     "  backends   every backend a bench can run on\n"
		     "  versions   what resolves: local, and the repository's branches and tags\n\n"
		     "exit codes: 0 success, 2 usage error or KERNEL_DIR does not exist\n");
}

int bv_cmd_list(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
	if (argc != 2) {
		usage(stderr);
		return BV_EXIT_USAGE;
	}
	size_t nb;
	const bv_bench *all = bv_bench_all(&nb);
	if (!strcmp(argv[1], "benches")) {
		for (size_t b = 0; b < nb; b++) {
			char buf[32];
			printf("%s\n  ops:", all[b].name);
			for (size_t o = 0; o < all[b].nops; o++)
				printf(" %s", all[b].ops[o].name);
			printf("\n  sizes:");
			for (const size_t *s = all[b].sizes; *s; s++)
				printf(" %s", bv_size_format(*s, buf, sizeof(buf)));
			printf("\n  backends:");
			for (const char *const *be = all[b].backends; *be; be++)
				printf(" %s", *be);
			printf("\n");
		}
		return 0;
	}
	if (!strcmp(argv[1], "backends")) {
		const char *seen[32];
		size_t n = 0;
		for (size_t b = 0; b < nb; b++)
			for (const char *const *be = all[b].backends; *be; be++) {
				size_t k;
				for (k = 0; k < n && strcmp(seen[k], *be); k++)
					;
				if (k == n && n < 32)
					seen[n++] = *be, printf("%s\n", *be);
			}
		return 0;
	}
	if (!strcmp(argv[1], "versions")) {
		bv_repo *repo;
		int rc = bv_repo_open(&repo);
		if (rc) {
			fprintf(stderr, "bench-versions: %s\n", bv_error_last());
			return bv_exit_code(rc);
		}
		printf("local\t(working tree at %s)\n", bv_repo_kernel_dir(repo));
		printf("repository: %s\n", bv_repo_describe(repo));
		git_repository *g = bv_repo_git(repo);
		git_reference_iterator *it = NULL;
		git_reference *ref;
		if (g && git_reference_iterator_new(&it, g) == 0) {
			while (git_reference_next(&ref, it) == 0) {
				if (git_reference_is_branch(ref) || git_reference_is_tag(ref)) {
					/* the repository's names, escaped as every name from outside */
					char *name = bv_escape(git_reference_shorthand(ref));
					printf("%s\t(%s)\n", name, git_reference_is_tag(ref) ? "tag" : "branch");
					free(name);
				}
				git_reference_free(ref);
			}
			git_reference_iterator_free(it);
		}
		bv_repo_free(repo);
		return 0;
	}
	usage(stderr);
	return BV_EXIT_USAGE;
}
