/*
 * cmd_cache.c - bench-versions cache [show|trim]: what the cache holds and
 * making it smaller.
 *
 * The cache (bv_cache_dir()) has seven areas: src/ (library trees by tree
 * id), builds/ (plugins by build key, and their logs), libs/ (built
 * libraries by library key, which builds differing only in the harness
 * side share: build.c), objs/ (the catalog's version-independent objects,
 * compiled once per harness and compiler: build.c), repos/, machine/ (this
 * machine's calibration) and bisect/ (each bisect's measurements).
 * Each top-level entry of an area is one unit: shown with its size and last
 * use, removed whole.  Last use is the entry's mtime: build.c touches a build
 * and its sources whenever a run uses them.
 *
 * Trim removes entries older than --older-than, then the least recently used
 * until the cache fits --max-size.  A ".tmp-" entry younger than an hour is
 * another process's build or fetch in progress and is never removed (nor
 * counted as removable); an older one is a crashed run's leftover, removed
 * by any trim.  Entries
 * appear by rename(), and trim renames one to a ".trash-" name before it
 * removes it, so a removal that fails midway never leaves a half entry
 * under its key for a later run to trust: what is left is trash, which the
 * next trim removes.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <dirent.h>
#include <unistd.h>

#include "build.h"
#include "cache_entry.h"
#include "cli.h"
#include "common.h"
#include "fs.h"
#include "json.h"
#include "options.h"

static const char *const areas[] = {"src", "builds", "libs", "objs", "repos", "machine", "bisect", NULL};

#define TMP_GRACE_S 3600.0

typedef struct entry {
	char *area, *name, *path;
	double size;  /* bytes */
	time_t mtime; /* last use */
	int busy;     /* a young .tmp-: being written now */
} entry;

static void usage(FILE *out, const bv_option *opts)
{
	fprintf(out, "usage: bench-versions cache [show|trim] [--older-than DAYS] [--max-size SIZE] [--dry-run]\n\n"
		     "  show          every entry of src/, builds/, libs/, objs/, repos/, machine/ and bisect/ with\n"
		     "                its size, last use and kernels version, and the total (the default)\n"
		     "  trim          remove entries unused for more than --older-than DAYS, then the\n"
		     "                least recently used until the cache is under --max-size SIZE\n\n");
	bv_options_help(opts, out);
	fprintf(out, "\nTemporary entries (.tmp-*) younger than an hour belong to a run in progress\n"
		     "and are kept; older ones are a crashed run's leftovers, removed by any trim.\n"
		     "cache: %s (BENCH_VERSIONS_CACHE, XDG_CACHE_HOME)\n",
		bv_cache_dir());
}

static double tree_bytes;
static int add_size(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)path, (void)flag, (void)ftw;
	if (S_ISREG(st->st_mode))
		tree_bytes += (double)st->st_size;
	return 0;
}

static double size_of(const char *path)
{
	tree_bytes = 0;
	nftw(path, add_size, 16, FTW_PHYS);
	return tree_bytes;
}

static const char *human(double bytes, char *buf, size_t n)
{
	const char *units = "BKMGT";
	int u = 0;
	while (bytes >= 1024 && u < 4)
		bytes /= 1024, u++;
	if (u == 0)
		snprintf(buf, n, "%.0fB", bytes);
	else
		snprintf(buf, n, "%.1f%c", bytes, units[u]);
	return buf;
}

static const char *ago(time_t t, time_t now, char *buf, size_t n)
{
	double s = difftime(now, t);
	if (s < 120)
		snprintf(buf, n, "%.0fs ago", s < 0 ? 0 : s);
	else if (s < 7200)
		snprintf(buf, n, "%.0f min ago", s / 60);
	else if (s < 2 * 86400)
		snprintf(buf, n, "%.0f h ago", s / 3600);
	else
		snprintf(buf, n, "%.0f days ago", s / 86400);
	return buf;
}

static int by_mtime(const void *a, const void *b)
{
	const entry *x = a, *y = b;
	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

/* Every top-level entry of every area, least recently used first. */
static entry *scan(size_t *n, time_t now)
{
	entry *es = NULL;
	*n = 0;
	for (const char *const *a = areas; *a; a++) {
		char *dir = bv_asprintf("%s/%s", bv_cache_dir(), *a);
		DIR *d = opendir(dir);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			char *path = bv_asprintf("%s/%s", dir, de->d_name);
			struct stat st;
			if (lstat(path, &st) != 0) {
				free(path); /* removed meanwhile */
				continue;
			}
			es = bv_xrealloc(es, (*n + 1) * sizeof(entry));
			entry *e = &es[(*n)++];
			e->area = bv_strdup(*a);
			e->name = bv_strdup(de->d_name);
			e->path = path;
			e->mtime = st.st_mtime;
			e->size = S_ISDIR(st.st_mode) ? size_of(path) : (double)st.st_size;
			e->busy = !strncmp(de->d_name, ".tmp-", 5) && difftime(now, st.st_mtime) < TMP_GRACE_S;
		}
		if (d)
			closedir(d);
		free(dir);
	}
	if (*n)
		qsort(es, *n, sizeof(entry), by_mtime);
	return es;
}

/* Moves the entry out of its key's name, then removes it (the comment at
 * the top says why). */
static int remove_entry(const entry *e)
{
	if (!strncmp(e->name, ".trash-", 7) || !strncmp(e->name, ".tmp-", 5))
		return bv_rm_rf(e->path);
	char *trash = bv_asprintf("%s/%s/.trash-%ld-%s", bv_cache_dir(), e->area, (long)getpid(), e->name);
	int rc = 0;
	if (rename(e->path, trash) != 0)
		rc = bv_fail(BV_ERUN, "cannot move %s aside: %s", e->path, strerror(errno));
	else
		rc = bv_rm_rf(trash);
	free(trash);
	return rc;
}

/* What an entry is, for people (keys are hashes): a build's version.json
 * (build.c), a source tree's VERSION; "unknown" for a build from before
 * version.json, "" where an area has no version (repos, machine, bisect).
 * The files are the cache's, but shown escaped like anything read. */
static char *entry_version(const entry *e)
{
	char *key = bv_strdup(e->name), *out = NULL;
	size_t n = strlen(key);
	if (!strcmp(e->area, "builds") && n > 4 && !strcmp(key + n - 4, ".log"))
		key[n - 4] = '\0'; /* a build's log says what its build is */
	if (!strcmp(e->area, "builds")) {
		char *path = bv_asprintf("%s/builds/%s/" BV_BUILD_VERSION_FILE, bv_cache_dir(), key);
		cJSON *doc = NULL;
		const char *kv = NULL, *name = NULL;
		if (bv_exists(path) && bv_json_load(path, 4096, &doc) == 0) {
			kv = bv_json_str(doc, "kernel_version");
			name = bv_json_str(doc, "name");
		}
		if (kv && name) {
			char *k = bv_escape(kv), *nm = bv_escape(name);
			out = bv_asprintf("kernels %s, built as %s", k, nm);
			free(k), free(nm);
		} else
			out = bv_strdup("unknown");
		cJSON_Delete(doc);
		free(path);
	} else if (!strcmp(e->area, "src")) {
		char *path = bv_asprintf("%s/src/%s/VERSION", bv_cache_dir(), key), *text = NULL;
		if (bv_read_file(path, 256, &text, NULL) == 0) {
			text[strcspn(text, "\r\n")] = '\0';
			char *k = bv_escape(text);
			out = bv_asprintf("kernels %s", k);
			free(k);
		} else
			out = bv_strdup("unknown");
		free(text);
		free(path);
	}
	free(key);
	return out ? out : bv_strdup("");
}

static void free_entries(entry *es, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(es[i].area), free(es[i].name), free(es[i].path);
	free(es);
}

/* Trim's loop over the entries, least recently used first: removes those
 * older than older_days (< 0: none by age), then until what is left fits
 * max_size (< 0: no size); dry says what it would remove instead.  0, or
 * BV_ERUN when an entry could not be removed. */
static int trim_entries(entry *es, size_t n, double total, time_t now, double older_days, double max_size, int dry)
{
	char b1[32], b2[32];
	int rc;
	size_t removed = 0;
	double freed = 0;
	rc = 0;
	for (size_t i = 0; i < n; i++) {
		entry *e = &es[i];
		if (e->busy)
			continue;
		/* An older .tmp- is a crashed run's leftover, a .trash- what
		 * an earlier trim could not finish: always garbage. */
		int old = (older_days >= 0 && difftime(now, e->mtime) > older_days * 86400) ||
			  !strncmp(e->name, ".tmp-", 5) || !strncmp(e->name, ".trash-", 7);
		int over = max_size >= 0 && total - freed > max_size;
		if (!old && !over)
			continue;
		/* A build a run is measuring (bv_build_hold), a library or
		 * objects a build is taking: kept, said, tried again next trim. */
		int claim = bv_entry_claim(e->path);
		if (claim < 0 && errno == EWOULDBLOCK) {
			printf("kept %s/%s: in use by a run in progress\n", e->area, e->name);
			continue;
		}
		int removed_it = dry || remove_entry(e) == 0;
		if (claim >= 0)
			close(claim);
		if (!removed_it) {
			fprintf(stderr, "bench-versions cache: cannot remove %s: %s\n", e->path, bv_error_last());
			rc = BV_ERUN;
			continue;
		}
		printf("%s %s/%s (%s, last used %s)\n", dry ? "would remove" : "removed", e->area, e->name,
		       human(e->size, b1, sizeof(b1)), ago(e->mtime, now, b2, sizeof(b2)));
		removed++;
		freed += e->size;
	}
	printf("trim: %s %zu of %zu %s, %s; %s left\n", dry ? "would remove" : "removed", removed, n,
	       bv_plural((long long)n, "entry", "entries"),
	       human(freed, b1, sizeof(b1)), human(total - freed, b2, sizeof(b2)));
	if (max_size >= 0 && total - freed > max_size)
		printf("trim: still over --max-size: what is left is in use by a run in progress\n");
	return rc;
}

int bv_cmd_cache(int argc, char **argv)
{
	const char *action = "show";
	double older_days = -1;
	unsigned long long max_bytes = 0;
	const char *size_given = NULL;
	int dry = 0;
	const bv_option opts[] = {
	    BV_DOUBLE("--older-than", &older_days, "DAYS", 0, 36500, "days",
		      "trim: remove entries unused for more than DAYS (1.5: a day and a half)"),
	    BV_SIZE("--max-size", &max_bytes, "SIZE", 0, 1e18,
		    "trim: then the least recently used until the cache is under SIZE "
		    "(bytes, or with K, M, G, T: 2G)",
		    .seen = &size_given),
	    BV_FLAG("--dry-run", &dry, "say what trim would remove, remove nothing"),
	    BV_END,
	};
	char **args = bv_xcalloc((size_t)argc, sizeof(char *));
	size_t nargs = 0;
	int rc = bv_options_parse(opts, argc, argv, args, &nargs);
	if (rc == 0 && nargs > 1)
		rc = bv_fail(BV_EINPUT, "one command at most: show or trim (given '%s' and '%s')", args[0], args[1]);
	else if (rc == 0 && nargs == 1 && strcmp(args[0], "show") && strcmp(args[0], "trim"))
		rc = bv_fail(BV_EINPUT, "unknown command '%s': show or trim", args[0]);
	else if (rc == 0 && nargs == 1)
		action = args[0];
	free(args);
	if (rc == 1) {
		usage(stdout, opts);
		return 0;
	}
	if (rc) {
		fprintf(stderr, "bench-versions cache: %s (see bench-versions cache --help)\n", bv_error_last());
		return BV_EXIT_USAGE;
	}
	double max_size = size_given ? (double)max_bytes : -1;
	int trim = !strcmp(action, "trim");
	if (trim && older_days < 0 && max_size < 0) {
		fprintf(stderr, "bench-versions cache: trim needs --older-than DAYS or --max-size SIZE\n");
		return BV_EXIT_USAGE;
	}
	if (!trim && (older_days >= 0 || max_size >= 0 || dry)) {
		fprintf(stderr, "bench-versions cache: --older-than, --max-size and --dry-run are for trim\n");
		return BV_EXIT_USAGE;
	}
	time_t now = time(NULL);
	size_t n;
	entry *es = scan(&n, now);
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += es[i].size;
	char b1[32], b2[32];
	if (!trim) {
		printf("cache: %s\n", bv_cache_dir());
		/* Most recently used last, next to the total. */
		for (size_t i = 0; i < n; i++) {
			char *version = es[i].busy ? bv_strdup("") : entry_version(&es[i]);
			/* the version last, in a column where there is one */
			printf("%-8s %-48s %8s  %-*s%s%s%s\n", es[i].area, es[i].name, human(es[i].size, b1, sizeof(b1)),
			       *version ? 12 : 0, ago(es[i].mtime, now, b2, sizeof(b2)), *version ? "  " : "", version,
			       es[i].busy ? "  (in progress)" : "");
			free(version);
		}
		printf("total: %zu %s, %s\n", n, bv_plural((long long)n, "entry", "entries"), human(total, b1, sizeof(b1)));
		free_entries(es, n);
		return 0;
	}
	rc = trim_entries(es, n, total, now, older_days, max_size, dry);
	free_entries(es, n);
	return rc ? BV_EXIT_FAILED : 0;
}
