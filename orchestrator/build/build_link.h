/*
 * build_link.h - within the build stage: linking a build's plugin from its
 * harness object and library (build_link.c).
 */
#ifndef BV_BUILD_LINK_H
#define BV_BUILD_LINK_H

#include "common.h"

/* The archives (*.a, regular files) directly in lib, sorted by name. */
void bv_build_archives(const char *lib, bv_strv *out);
/* s with every occurrence of from replaced by to. */
char *bv_build_replace_all(const char *s, const char *from, const char *to);
/* Links lib/plugin.o and the library into out with `pad` bytes of code
 * before the library; the compiler's exit status, or < 0 with an error. */
int bv_build_link_plugin(const char *lib, int pad, const char *out, const char *log);
/* plugin-host.so in dir, when its library links CUDA; never a failure. */
void bv_build_host_variant(const char *dir, const char *log);

#endif
