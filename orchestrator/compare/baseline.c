/*
 * baseline.c - saved baselines (results/baselines/NAME/) and results/latest,
 * the two names by which a later command finds an earlier run without its
 * timestamp: `run --save-baseline main` on the main branch, then on a pull
 * request `run ...` and `compare --baseline main` (latest by default), as
 * Criterion's --save-baseline/--baseline and critcmp work.
 *
 * Both are replaced atomically, so a reader (a CI job comparing while
 * another saves) sees the old set of logs or the new, never half of each:
 * a baseline is written into a temporary directory beside it and swapped in
 * with one renameat2(RENAME_EXCHANGE); latest is a symlink made under a
 * temporary name and renamed over the old one.
 *
 * A baseline is a copy of a run's logs, run block and run id included, so
 * comparing against it is a comparison across runs (merge.c): its ratios
 * are unpaired and inconclusive by rule, exactly as comparing the two run
 * directories would be.
 */
/* renameat2 needs _GNU_SOURCE, which the Makefile defines */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "baseline.h"
#include "common.h"
#include "fs.h"
#include "locate.h"

int bv_baseline_name_check(const char *name)
{
	/* A name becomes a directory under results/baselines/: no slash, no
	 * "..", no hidden name (the temporary directories are hidden). */
	size_t n = strlen(name);
	int ok = n > 0 && n <= 64 && name[0] != '.' && strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
								"0123456789._-") == n;
	if (ok)
		return 0;
	char *shown = bv_escape(name);
	int rc = bv_fail(BV_EINPUT,
			 "baseline name '%.80s': expected 1 to 64 letters, digits, '.', '_' or '-', not starting with "
			 "'.' (e.g. main, v0.2.0, pr-123)",
			 shown);
	free(shown);
	return rc;
}

/* A run's directory as a real path: `--resume .` or `--resume
 * results/latest` then still name the run itself (latest pointing at
 * "latest" would be a loop). */
static char *real_dir(const char *dir)
{
	char *real = realpath(dir, NULL);
	char *p = bv_strdup(real ? real : dir);
	free(real);
	return p;
}

/* The directory a run's directory lies in: the results root. */
static char *parent_of(const char *dir)
{
	char *p = real_dir(dir);
	size_t k = strlen(p);
	while (k > 1 && p[k - 1] == '/')
		p[--k] = '\0';
	char *slash = strrchr(p, '/');
	if (!slash) {
		free(p);
		return bv_strdup(".");
	}
	if (slash == p)
		slash[1] = '\0';
	else
		*slash = '\0';
	return p;
}

static const char *last_part(const char *dir, char *buf, size_t len)
{
	char *real = real_dir(dir);
	snprintf(buf, len, "%s", real);
	free(real);
	size_t k = strlen(buf);
	while (k > 1 && buf[k - 1] == '/')
		buf[--k] = '\0';
	const char *slash = strrchr(buf, '/');
	return slash ? slash + 1 : buf;
}

/* Only a run's logs make a baseline: raw/ and anything else stay behind. */
static int not_a_log(const char *name)
{
	size_t n = strlen(name);
	return name[0] == '.' || n < 6 || strcmp(name + n - 5, ".json") != 0;
}

/* fsync of each file in dir and of dir itself (as bv_write_file_atomic
 * does for one file). */
static int sync_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return bv_fail(BV_ERUN, "cannot read %s: %s", dir, strerror(errno));
	int rc = 0;
	struct dirent *de;
	while (rc == 0 && (de = readdir(d))) {
		if (de->d_name[0] == '.' && (!de->d_name[1] || !strcmp(de->d_name, "..")))
			continue;
		char *p = bv_asprintf("%s/%s", dir, de->d_name);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fsync(fd) != 0)
			rc = bv_fail(BV_ERUN, "cannot write %s: %s", p, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(p);
	}
	closedir(d);
	int fd = rc ? -1 : open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	return rc;
}

/* Where the filesystem cannot exchange two names (EINVAL: some network
 * and overlay filesystems): the old baseline is moved aside, then the new
 * one renamed in: a reader may find no baseline for that moment, never a
 * mixed one.  The old one ends at tmp, which the caller removes. */
static int swap_in(const char *tmp, const char *target)
{
	char *aside = bv_asprintf("%s.old.%ld", tmp, (long)getpid());
	int rc = 0;
	if (rename(target, aside) != 0)
		rc = bv_fail(BV_ERUN, "cannot replace %s: %s", target, strerror(errno));
	else if (rename(tmp, target) != 0) {
		rc = bv_fail(BV_ERUN, "cannot replace %s: %s", target, strerror(errno));
		rename(aside, target); /* the old one back */
	} else if (rename(aside, tmp) != 0)
		bv_rm_rf(aside);
	free(aside);
	return rc;
}

int bv_baseline_save(const char *run_dir, const char *name, char **saved)
{
	*saved = NULL;
	int rc = bv_baseline_name_check(name);
	if (rc)
		return rc;
	char *root = parent_of(run_dir);
	char *bases = bv_asprintf("%s/baselines", root);
	char *target = bv_asprintf("%s/%s", bases, name);
	char *prefix = bv_asprintf(".%s.tmp.", name);
	char *tmp = bv_mkdtemp_in(bases, prefix);
	struct stat st;
	if (!tmp)
		rc = BV_ERUN;
	if (rc == 0 && chmod(tmp, 0755) != 0)
		rc = bv_fail(BV_ERUN, "cannot set the mode of %s: %s", tmp, strerror(errno));
	if (rc == 0)
		rc = bv_copy_tree(run_dir, tmp, not_a_log);
	/* Written through before it is swapped in: a crash must not leave a
	 * baseline of empty files under the name. */
	if (rc == 0)
		rc = sync_dir(tmp);
	if (rc == 0 && lstat(target, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			rc = bv_fail(BV_ERUN, "%s exists and is not a directory; not replaced", target);
		/* The old baseline and the new swap places in one step; the old
		 * one, now at the temporary name, is removed after. */
		else if (renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_EXCHANGE) != 0)
			rc = errno == EINVAL || errno == ENOSYS ? swap_in(tmp, target)
								: bv_fail(BV_ERUN, "cannot replace %s: %s", target,
									  strerror(errno));
	} else if (rc == 0 && rename(tmp, target) != 0)
		rc = bv_fail(BV_ERUN, "cannot save %s: %s", target, strerror(errno));
	if (tmp)
		bv_rm_rf(tmp); /* the old baseline, or the unfinished new one */
	if (rc == 0)
		*saved = target;
	else
		free(target);
	free(tmp), free(prefix), free(bases), free(root);
	return rc;
}

static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void bv_baseline_names(const char *root, bv_strv *names)
{
	char *bases = bv_asprintf("%s/baselines", root);
	DIR *d = opendir(bases);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		/* What bv_baseline_save makes: a valid name, a directory (its
		 * temporaries start with '.') */
		char *p = bv_asprintf("%s/%s", bases, de->d_name);
		if (de->d_name[0] != '.' && strlen(de->d_name) <= 64 && bv_is_dir(p))
			bv_strv_push(names, de->d_name);
		free(p);
	}
	if (d)
		closedir(d);
	if (names->n)
		qsort(names->v, names->n, sizeof(char *), str_cmp);
	free(bases);
}

int bv_baseline_find(const char *root, const char *name, char **dir)
{
	*dir = NULL;
	int rc = bv_baseline_name_check(name);
	if (rc)
		return rc;
	char *bases = bv_asprintf("%s/baselines", root);
	char *path = bv_asprintf("%s/%s", bases, name);
	if (bv_is_dir(path)) {
		free(bases);
		*dir = path;
		return 0;
	}
	free(path);
	/* Say which names there are: a typo is then one look away. */
	bv_strv names = BV_STRV_INIT;
	bv_baseline_names(root, &names);
	bv_buf list = BV_BUF_INIT;
	for (size_t i = 0; i < names.n; i++)
		bv_buf_printf(&list, "%s%s", i ? ", " : "", names.v[i]);
	rc = bv_fail(BV_EINPUT, "no baseline '%s' in %s (%s%s)", name, bases,
		     names.n ? "saved: " : "none saved yet; save one with: bench-versions run VERSION... --save-baseline ",
		     names.n ? list.s : name);
	bv_buf_free(&list);
	bv_strv_free(&names);
	free(bases);
	return rc;
}

void bv_results_mark_latest(const char *run_dir)
{
	char *root = parent_of(run_dir);
	char base[4096];
	const char *target = last_part(run_dir, base, sizeof(base));
	char *link = bv_asprintf("%s/latest", root);
	struct stat st;
	/* A directory or file a person put there is theirs: left alone. */
	if (lstat(link, &st) == 0 && !S_ISLNK(st.st_mode)) {
		fprintf(stderr, "warning: %s is not a symlink; not pointed at the newest run\n", link);
		free(link), free(root);
		return;
	}
	/* Relative, so the results directory can be moved or copied whole. */
	char *tmp = NULL;
	int made = 0;
	for (int i = 0; i < 100 && !made; i++) {
		free(tmp);
		tmp = bv_asprintf("%s/.latest.tmp.%ld.%d", root, (long)getpid(), i);
		made = symlink(target, tmp) == 0;
		if (!made && errno != EEXIST)
			break;
	}
	if (!made || rename(tmp, link) != 0) {
		fprintf(stderr, "warning: cannot point %s at %s: %s\n", link, target, strerror(errno));
		if (made)
			unlink(tmp);
	}
	free(tmp), free(link), free(root);
}

int bv_results_resolve(const char *root_opt, const char *arg, char **path)
{
	*path = NULL;
	/* A path that exists is that path: a directory named latest in the
	 * current directory is not overridden.  The results directory is only
	 * looked for when the name needs it, so plain paths work without a
	 * library around. */
	if (strcmp(arg, "latest") || bv_exists(arg)) {
		*path = bv_strdup(arg);
		return 0;
	}
	char *root = NULL;
	int rc = root_opt ? (root = bv_strdup(root_opt), 0) : bv_results_default(&root);
	if (rc == 0)
		*path = bv_asprintf("%s/latest", root);
	if (rc == 0 && !bv_exists(*path)) {
		rc = bv_fail(BV_EINPUT, "%s: %s does not exist: no run has finished in %s yet", arg, *path, root);
		free(*path);
		*path = NULL;
	}
	free(root);
	return rc;
}
