/*
 * fetch.h - a resolved tree to a source directory in the cache (fetch.c).
 */
#ifndef BV_FETCH_H
#define BV_FETCH_H

#include "resolve.h"

/* A release was fetched while resolving (its VERSION had to be read): its
 * src_dir is already set and this does nothing more. */
int bv_fetch(bv_repo *r, bv_version *v);

#endif
