/*
 * user_ops.h - user-defined ops on the orchestrator's side: where the ops
 * file comes from, loading it into the registry, and the C table each
 * build links into its plugin (harness/plugin/plugin.h: bv_user_op).
 */
#ifndef BV_USER_OPS_H
#define BV_USER_OPS_H

#include <stddef.h>

#include "common.h"

/* The ops file's path, or NULL for none.  The one place that decides it
 * (for now BENCH_VERSIONS_OPS; a project file's "ops" key later). */
const char *bv_ops_file(void);
/* Why bv_ops_file() has no ops of the project file: the project file that
 * could not be read (its message, *rc its BV_E* code), or NULL.  A command
 * that shows the registry without opening the repository (list benches)
 * refuses with it as run does, not listing the ops without the project's
 * (a FIFO as "ops" was refused by run and ignored by list benches). */
const char *bv_user_ops_project_error(int *rc);
/* Loads bv_ops_file() into the registry once; BV_EINPUT naming the file,
 * the op and the key on a bad one.  0 when there is none. */
int bv_user_ops_load(void);
/* What of the ops file a build depends on (part of its key): the ops'
 * groups, names and functions, hashed; not their ranges or references,
 * which only the host side reads.  NULL without an ops file. */
const char *bv_user_ops_key(void);
/* The generated table's C text for a build whose library lies in lib
 * (lib/libkernels.a and the files lib/plugin-link-flags names): a
 * function the library defines is referenced strongly (so the archive
 * member is linked), any other weakly (NULL at run time: n/a). */
char *bv_user_ops_source(const char *lib);
/* With an ops file loaded: lib/user-ops.c generated and compiled with the
 * flags cc->v[0..base) (the plugin's own) into lib/user-ops.o, which
 * link_with (build.c) links after plugin.o.  Returns the compiler's exit
 * status, or < 0 with an error; 0 without an ops file. */
int bv_user_ops_build(bv_strv *cc, size_t base, const char *lib, const char *log);

#endif
