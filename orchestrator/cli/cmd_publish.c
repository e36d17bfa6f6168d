/*
 * cmd_publish.c - bench-versions publish --site DIR [--incoming DIR]...
 * [RESULTS_DIR]...: what people shared (the uploads a server received, and
 * local results directories) imported into the site's store
 * (publish/publish.c), then the static site written from the store
 * (publish/site.c).
 *
 * The store lives beside the site, not in it (SITE.sqlite), so the site
 * directory is exactly what a web server or a static host serves.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "common.h"
#include "fs.h"
#include "options.h"
#include "proc.h"
#include "publish.h"
#include "site.h"
#include "site_store.h"

typedef struct publish_cmd {
	const char *site, *store;
	const char **incoming;
	size_t nincoming;
	unsigned long long max_upload;
	bv_option opts[5];
} publish_cmd;

static void usage(FILE *out, const bv_option *opts)
{
	fprintf(out, "usage: bench-versions publish --site DIR [--incoming DIR]... [--store FILE]\n"
		     "                              [--max-upload SIZE] [RESULTS_DIR]...\n\n"
		     "Imports shared runs (the uploads in each --incoming directory, as server/bv-server\n"
		     "receives them, and local results directories) and writes a static site of them:\n"
		     "machine classes, each cell's time over the versions per class, the fastest backend\n"
		     "per workload and class, the newest version's regressions, each run's comparison.\n"
		     "An upload that fails a check is moved to INCOMING/quarantine/ with its reason;\n"
		     "the rest is published.  Publishing again imports only what is new.\n\n");
	bv_options_help(opts, out);
	fprintf(out, "\nexit codes: 0 published (refused uploads are listed, not failures), 2 usage or\n"
		     "input error (a results directory that is not a run), 3 the store or the site could\n"
		     "not be written\n");
}

static const char *add_incoming(const bv_option *o, const char *value)
{
	publish_cmd *k = o->dest;
	k->incoming = bv_xrealloc(k->incoming, (k->nincoming + 1) * sizeof(*k->incoming));
	k->incoming[k->nincoming++] = value;
	return NULL;
}

static void publish_table(publish_cmd *k)
{
	k->max_upload = BV_PUBLISH_MAX_ARCHIVE;
	const bv_option opts[] = {
	    BV_STRING("--site", &k->site, "DIR", "the site's directory (made when absent)"),
	    BV_CALLBACK("--incoming", k, "DIR", add_incoming,
			"a directory of uploads (*.tar.gz), as the server receives them; repeatable"),
	    BV_STRING("--store", &k->store, "FILE", "what was imported (SQLite); default: DIR.sqlite beside the site"),
	    BV_SIZE("--max-upload", &k->max_upload, "SIZE", 1024, 1e12,
		    "refuse an upload larger than this before reading it (default 64M, as the server's)"),
	    BV_END,
	};
	_Static_assert(sizeof(opts) == sizeof(k->opts), "publish_cmd.opts holds publish's table");
	memcpy(k->opts, opts, sizeof(opts));
}

/* The site's directory, without a trailing slash: the store's default
 * name is made from it. */
static char *site_dir(const char *site)
{
	char *s = bv_strdup(site);
	size_t n = strlen(s);
	while (n > 1 && s[n - 1] == '/')
		s[--n] = '\0';
	return s;
}

int bv_cmd_publish(int argc, char **argv)
{
	publish_cmd *k = bv_xcalloc(1, sizeof(*k));
	publish_table(k);
	char **pos = bv_xcalloc((size_t)argc, sizeof(char *));
	size_t npos = 0;
	int rc = bv_options_parse(k->opts, argc, argv, pos, &npos), code;
	char *site = NULL, *store_path = NULL;
	bv_site_store *store = NULL;
	if ((code = bv_options_done(rc, 0, "bench-versions publish", "publish", usage, k->opts)) >= 0)
		goto cleanup;
	if (!k->site || (!k->nincoming && !npos)) {
		fprintf(stderr, "bench-versions publish: %s\n",
			!k->site ? "give the site's directory: --site DIR"
				 : "nothing to publish: give --incoming DIR (uploads) or results directories");
		code = BV_EXIT_USAGE;
		goto cleanup;
	}
	site = site_dir(k->site);
	store_path = k->store ? bv_strdup(k->store) : bv_asprintf("%s.sqlite", site);
	rc = bv_mkdir_p(site);
	/* One publish at a time per store: a second waits (a cron job and a
	 * person at once would both import the same new upload). */
	char *lock_path = bv_asprintf("%s.lock", store_path);
	int lock = rc == 0 ? open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644) : -1;
	if (rc == 0 && (lock < 0 || flock(lock, LOCK_EX) != 0))
		rc = bv_fail(BV_ERUN, "cannot lock %s: %s", lock_path, strerror(errno));
	free(lock_path);
	if (rc == 0)
		rc = bv_site_store_open(store_path, &store);
	bv_publish p = {store, site, k->max_upload, 0, 0, 0, 0, 0};
	for (size_t i = 0; rc == 0 && i < k->nincoming; i++)
		rc = bv_publish_incoming(&p, k->incoming[i]);
	for (size_t i = 0; rc == 0 && i < npos; i++)
		rc = bv_publish_dir(&p, pos[i]);
	if (rc == 0)
		rc = bv_site_write(store->db, site, bv_tool_version());
	if (rc == 0) {
		fprintf(stderr,
			"publish: %zu new %s, %zu already published, %zu %s of a run already there, %zu "
			"quarantined\n",
			p.imported, bv_plural((long long)p.imported, "run", "runs"), p.known, p.duplicates,
			bv_plural((long long)p.duplicates, "copy", "copies"), p.quarantined);
		printf("site: %s/index.html\n", site);
	} else
		fprintf(stderr, "bench-versions publish: %s\n", bv_error_last());
	code = rc ? bv_exit_code(rc) : p.failed ? BV_EXIT_USAGE : 0;
	bv_site_store_close(store), store = NULL; /* before the lock is let go */
	if (lock >= 0)
		close(lock);
cleanup:
	bv_site_store_close(store);
	free(pos), free(site), free(store_path), free(k->incoming), free(k);
	return code;
}
