/*
 * build_key.h - within the build stage (build.c and its build_*.c): what a
 * build is made of, the parts of it every file of the stage reads (the
 * harness sources, the plugin's flags, the compiler), and its keys
 * (build_key.c).  build.h is the stage's interface to the rest of the tool.
 *
 * The lists of harness sources are here, in the header, because two files
 * read them: the key hashes them by content (build_key.c) and the harness
 * side compiles them (build_plugin.c).  They are one list in one place.
 */
#ifndef BV_BUILD_KEY_H
#define BV_BUILD_KEY_H

#include "common.h"
#include "resolve.h"

/* 2: the harness object (lib/plugin.o) and its link flags stay in the build,
 * so layouts (bv_build_layouts) link without the sources.  3: a build whose
 * library links the CUDA libraries also holds plugin-host.so
 * (build_link.c).  4: the build environment's values (CC, CFLAGS, CUDA,
 * BLAS, ...) in the key.
 * 5: the library's code starts on a page of its own (link_with's anchor).
 * 6: the catalog's version-independent objects, compiled once
 * (catalog_fixed_object), come before plugin.c's in plugin.o.  7: libs/
 * and objs/ entries are sealed (cache_entry.h), objs/ entries directories. */
#define BUILD_SCHEMA "bv-build/7"

static const char *const harness_files[] = {"harness/plugin/plugin.c", "harness/plugin/plugin.h", "harness/common/ops.def", NULL};
/* The bundled catalog is built as a suite (harness/plugin/catalog.c;
 * docs/suites-design.md, "Item 3: the plan"): compiled with the suite
 * runtime and the host harness code it calls (the registry, inputs,
 * reference and check: benches.c, expr.c) beside plugin.c's calls, each
 * with -DBV_CATALOG_SUITE.
 *
 * Of the catalog's sources, the files that include the harness's own
 * headers only, never the library's (CATALOG_VERSIONED, plugin.c, alone
 * calls into it), are the same object for every version.  They are compiled once per harness and compiler into the
 * cache's objs/ (catalog_fixed_object), not once per version: 2 of a
 * catalog build's 2.5 s of harness compiling (benches.c alone is 1.3 s). */
static const char *const catalog_fixed[] = {"harness/plugin/suite_plugin.c", "harness/plugin/catalog.c", "harness/common/benches.c",
					    "harness/common/bench_inputs.c", "harness/common/bench_reference.c", "harness/common/expr.c", NULL};
#define CATALOG_VERSIONED "harness/plugin/plugin.c"
static const char *const catalog_files[] = {"harness/plugin/suite_plugin.c", "harness/plugin/suite_declarations.c",
					    "harness/plugin/suite_api.c", "harness/plugin/catalog.c", "harness/common/benches.c",
					    "harness/common/bench_inputs.c", "harness/common/bench_reference.c", "harness/common/expr.c",
					    "harness/plugin/bv_suite.h", "harness/common/benches.h", "harness/common/bench_internal.h",
					    "harness/common/expr.h", "harness/common/ops_table.h", "harness/common/ops_file.h", NULL};
static const char *const plugin_cflags[] = {"-std=c11", "-O2", "-fPIC", "-shared", NULL};

/* $CC, else cc. */
const char *bv_build_cc(void);
/* `cc -dumpfullversion`, once per run: part of every key. */
const char *bv_build_cc_version(void);
/* Appends a file's part of a key to b: its label and its bytes. */
int bv_build_key_file(bv_buf *b, const char *label, const char *path);
/* The library's part of a build (libs/KEY): the tree, patches, recipe,
 * compiler, environment and tools. */
int bv_build_library_key(const bv_version *v, char out[41]);

#endif
