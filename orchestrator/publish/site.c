/* temporary: the site writer is being written */
#include "site.h"
int bv_site_write(sqlite3 *db, const char *site_dir, const char *publisher)
{
	(void)db, (void)site_dir, (void)publisher;
	return 0;
}
