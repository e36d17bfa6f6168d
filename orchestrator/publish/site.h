/*
 * site.h - the static site `bench-versions publish` writes from its store
 * (docs: /work design "The site"; the store's schema is site_store.c's).
 *
 * One entry point, called after the import: every page and data file is
 * rewritten from the db alone, so the site is a function of the store and a
 * second publish of the same store changes no file.  The pages are split by
 * kind into the family site_*.c (site_page.h holds what they share).
 */
#ifndef BV_SITE_H
#define BV_SITE_H

#include <sqlite3.h>

/* Writes every page and data file of the site into site_dir (existing) from
 * the store db.  Files are written to a temporary name and renamed, and left
 * alone when their bytes are unchanged.  publisher: "bench-versions 0.1.0-dev
 * (commit ...)", shown in each page's footer.  0, or BV_ERUN (a file could
 * not be written) / BV_EINPUT (the db does not hold the schema) via bv_fail. */
int bv_site_write(sqlite3 *db, const char *site_dir, const char *publisher);

#endif
