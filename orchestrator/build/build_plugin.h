/*
 * build_plugin.h - within the build stage: the harness side of a build
 * (build_plugin.c), and how a failed step is told on the version.
 */
#ifndef BV_BUILD_PLUGIN_H
#define BV_BUILD_PLUGIN_H

#include "resolve.h"

/* Sets v->build_error: step failed, with the end of the log. */
void bv_build_failed(bv_version *v, const char *step, const char *log);
/* Sets v->build_error: why (no step's exit status), with the end of the log. */
void bv_build_failed_because(bv_version *v, const char *why, const char *log);
/* The harness side over the library in lib: plugin.o, plugin.so and its
 * host-only variant.  0 with v->build_error set when the version does not
 * build; < 0 on an error. */
int bv_build_harness(bv_version *v, const char *dir, const char *src, const char *lib, const char *log);

#endif
