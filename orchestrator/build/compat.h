/*
 * compat.h - the compat rules (compat.c): which shims from compat/compat.json
 * apply to a kernel version (docs/compat.md).  bv_shims is compat's: the
 * version (resolve.h) holds the shims matched for it.
 */
#ifndef BV_COMPAT_H
#define BV_COMPAT_H

#include <stddef.h>

#include "semver.h"

typedef struct bv_shims {
	char **rules;   /* ids of the compat rules that matched */
	size_t nrules;
	char **includes; /* headers force-included into the harness (absolute) */
	size_t nincludes;
	char **cflags;   /* extra flags, defines as -DNAME=VALUE */
	size_t ncflags;
	char **patches;  /* unified diffs applied (-p1) to a copy of the sources (absolute) */
	size_t npatches;
	char **recipe;   /* the library's build command, {src} and {build} unexpanded;
			  * NULL: make -C {src} BUILD={build} lib */
	size_t nrecipe;
	char *recipe_rule; /* id of the rule whose "build" applies */
	char *compat_dir; /* compat.json's directory: {compat} in the recipe */
} bv_shims;
/* A recipe's helper file is "{compat}/PATH": PATH ends at the argument's end
 * or at one of these (a shell command line, a search path, a list). */
#define BV_COMPAT_PATH_END " \t:;,&|'\"()<>`$"

typedef struct bv_compat bv_compat;
/* $BENCH_VERSIONS_COMPAT, else the project file's "compat" (project.h):
 * NULL for a project file naming none (no rules), compat/compat.json under
 * bv_home() for the built-in default. */
const char *bv_compat_path(void);
#define BV_COMPAT_MAX ((size_t)1 << 20) /* bytes of compat.json */
/* path NULL: no rules. */
int bv_compat_load(const char *path, bv_compat **out);
/* The same for text already in memory (NUL-terminated, len bytes) read from
 * path: rules' files are looked up beside it (also the fuzzer's entry). */
int bv_compat_parse(const char *path, const char *text, size_t len, bv_compat **out);
/* Everything that applies to a tree whose VERSION reads kernel_version. */
int bv_compat_match(const bv_compat *c, const bv_semver *kernel_version, bv_shims *out);
void bv_compat_free(bv_compat *c);
void bv_shims_free(bv_shims *s);

#endif
