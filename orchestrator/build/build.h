/*
 * build.h - source + shims + harness to a bench plugin, cached (build.c).
 */
#ifndef BV_BUILD_H
#define BV_BUILD_H

#include <stddef.h>

#include "resolve.h"

/* Marks v's build (its cache entry) in use until this process exits, so
 * that `cache trim` keeps it while this command measures it (a shared
 * lock, cache_entry.h).  Nothing when v did not build. */
void bv_build_hold(const bv_version *v);

/* Builds (or finds in the cache) v's bench plugin.  A build failure is not
 * returned as an error: it sets v->build_error and returns 0, so the other
 * versions still run.  Errors are for when nothing can be built at all. */
int bv_build(bv_version *v);
/* --build-timeout: seconds one version's build may take (patches, recipe or
 * make, the harness side, link), 0 for no limit.  The option table writes it; the
 * build workers, forked later, read it.  Past it the build is stopped, its
 * processes are killed and it is that version's failure. */
#define BV_BUILD_TIMEOUT_DEFAULT 1800.0
extern double bv_build_timeout_s;
/* In each build's cache directory: {"kernel_version", "name"} of the version
 * it was first built for (builds before this file have none). */
#define BV_BUILD_VERSION_FILE "version.json"
/* Layouts: the same build linked again with k pads of never-run code before
 * the library (k = 1..n-1; layout 0 is the plugin itself), linked into the
 * build's cache directory on first use.  Code placement alone moves
 * unchanged loops by up to 1.8x here (docs/measurement.md); measuring a
 * random layout per process makes that part of the noise, not a verdict. */
int bv_build_layouts(const bv_version *v, int n);
/* Whether v's build (shims matched) is in the cache already, so --dry-run
 * can say what a run would build; builds nothing. */
int bv_build_is_cached(const bv_version *v, int *cached);
/* v's build key (40 hex digits): what its cached build is found by, and what
 * a shard's plan records of it (shard.h); needs only the resolved tree and
 * the matched shims, nothing built or fetched. */
int bv_build_key(const bv_version *v, char out[41]);
/* The path of layout k's plugin (k = 0: v->plugin) in buf. */
const char *bv_layout_plugin(const bv_version *v, int k, char *buf, size_t len);
/* The plugin a process loads for layout k: host 1, one that runs host cells
 * only, gets the build's host-only variant (plugin-host.so, -host-Lk.so:
 * linked without the CUDA libraries, whose loading costs 120-230 ms) where
 * the build has one, else the same as bv_layout_plugin. */
const char *bv_plugin_variant(const bv_version *v, int k, int host, char *buf, size_t len);

#endif
