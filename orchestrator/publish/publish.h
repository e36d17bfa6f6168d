/*
 * publish.h - importing shared runs into the site's store (publish.c): each
 * upload in an incoming directory, or a local results directory, checked as
 * any log is and recorded once.
 */
#ifndef BV_PUBLISH_H
#define BV_PUBLISH_H

#include "site_store.h"

/* Uploads larger than this are refused before a byte is read (the server's
 * own limit, server/bv-server --max-upload, is the same by default). */
#define BV_PUBLISH_MAX_ARCHIVE ((unsigned long long)64 << 20)

typedef struct bv_publish {
	bv_site_store *store;
	const char *site;               /* the site's directory: runs/ is written there */
	unsigned long long max_archive; /* bytes */
	size_t imported, duplicates, quarantined, known, failed;
} bv_publish;

/* Every *.tar.gz at the top of incoming, in name order (the server names
 * them by arrival time).  One already in the store is skipped; a new one is
 * imported, or recognised as a run already imported from another archive,
 * or moved to incoming/quarantine/ with a .reason file beside it and the
 * reason on stderr.  A bad upload never stops the others.  Returns non-zero
 * only when the store or incoming itself fails. */
int bv_publish_incoming(bv_publish *p, const char *incoming);
/* One local results directory (results/<run>/): the same checks; a bad one
 * is an error (BV_EINPUT), counted in failed, and publishing goes on. */
int bv_publish_dir(bv_publish *p, const char *dir);

#endif
