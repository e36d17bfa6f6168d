#ifndef BV_SITE_H
#define BV_SITE_H
#include <sqlite3.h>
int bv_site_write(sqlite3 *db, const char *site_dir, const char *publisher);
#endif
