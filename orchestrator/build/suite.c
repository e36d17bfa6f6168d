/*
 * suite.c - a project's benchmark suite on the orchestrator's side (suite.h;
 * docs/suites-design.md, "The orchestrator").
 */
#include "suite.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backends.h"
#include "common.h"
#include "env.h"
#include "fs.h"
#include "json.h"
#include "locate.h"
#include "plan.h"
#include "proc.h"
#include "project.h"
#include "suite_file.h"

const char *bv_suite_dir(void)
{
	/* The repository's project, once it is open (resolve.c sets it). */
	const char *opened = bv_project_suite_path();
	if (opened)
		return opened;
	static char *here;
	static int looked;
	if (!looked) {
		/* A project file that cannot be read names no suite here: the
		 * command that opens the repository says what is wrong with it. */
		looked = 1;
		bv_project *p = NULL;
		if (bv_project_here(&p) == 0 && p->suite)
			here = bv_strdup(p->suite);
		bv_project_free(p);
	}
	return here;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Every regular file under dir/rel, sorted, each as "file suite/REL LEN"
 * and its bytes: the suite's headers change what its .c files compile to as
 * much as they do.  Symlinks are followed (project.c checked the directory
 * itself stays inside the repository). */
static int append_tree(bv_buf *b, const char *dir, const char *rel, int depth)
{
	char *path = rel ? bv_asprintf("%s/%s", dir, rel) : bv_strdup(dir);
	struct dirent **names = NULL;
	int n = scandir(path, &names, NULL, by_name), rc = 0;
	if (n < 0)
		rc = bv_fail(BV_EINPUT, "cannot read the suite directory %s: %s", path, strerror(errno));
	else if (depth > 16)
		rc = bv_fail(BV_EINPUT, "the suite directory %s nests more than 16 directories deep", dir);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		if (rc == 0 && strcmp(name, ".") && strcmp(name, "..")) {
			char *sub = rel ? bv_asprintf("%s/%s", rel, name) : bv_strdup(name);
			char *full = bv_asprintf("%s/%s", dir, sub);
			struct stat st;
			if (stat(full, &st) == 0 && S_ISDIR(st.st_mode))
				rc = append_tree(b, dir, sub, depth + 1);
			else if (stat(full, &st) == 0 && S_ISREG(st.st_mode)) {
				char *text = NULL;
				size_t len = 0;
				rc = bv_read_file(full, 1 << 24, &text, &len);
				if (rc == 0) {
					bv_buf_printf(b, "file suite/%s %zu\n", sub, len);
					bv_buf_putn(b, text, len);
				}
				free(text);
			}
			free(sub), free(full);
		}
		free(names[i]);
	}
	free(names);
	free(path);
	return rc;
}

int bv_suite_key(bv_buf *b)
{
	static const char *const harness[] = {"harness/plugin/bv_suite.h", "harness/plugin/suite_plugin.c",
					      "harness/plugin/suite_declarations.c", "harness/plugin/suite_api.c", NULL};
	const char *dir = bv_suite_dir();
	if (!dir)
		return 0;
	int rc = 0;
	for (const char *const *f = harness; *f && rc == 0; f++) {
		char *path = bv_asprintf("%s/%s", bv_home(), *f), *text = NULL;
		size_t len = 0;
		rc = bv_read_file(path, 1 << 24, &text, &len);
		if (rc == 0) {
			bv_buf_printf(b, "file %s %zu\n", *f, len);
			bv_buf_putn(b, text, len);
		}
		free(path), free(text);
	}
	return rc ? rc : append_tree(b, dir, NULL, 0);
}

int bv_suite_sources(bv_strv *out)
{
	const char *dir = bv_suite_dir();
	struct dirent **names = NULL;
	int n = dir ? scandir(dir, &names, NULL, by_name) : -1;
	if (n < 0)
		return bv_fail(BV_EINPUT, "cannot read the suite directory %s: %s", dir ? dir : "(none)",
		               dir ? strerror(errno) : "the project names no suite");
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		char *full = bv_asprintf("%s/%s", dir, name);
		struct stat st;
		if (len > 2 && !strcmp(name + len - 2, ".c") && stat(full, &st) == 0 && S_ISREG(st.st_mode))
			bv_strv_push(out, full);
		free(full);
		free(names[i]);
	}
	free(names);
	if (!out->n)
		return bv_fail(BV_EINPUT, "the suite directory %s holds no .c file (the project file's \"suite\")",
		               dir);
	return 0;
}

void bv_suite_runner_args(bv_strv *argv)
{
	if (!bv_suite_file_hash())
		return;
	bv_strv_push(argv, "--suite-file");
	bv_strv_push(argv, bv_suite_file_path());
	bv_strv_push(argv, "--suite-hash");
	bv_strv_push(argv, bv_suite_file_hash());
}

/* The versions' descriptions (bv-runner --describe) in *doc. */
static int describe(const bv_version *vs, size_t n, const char *dir, cJSON **doc)
{
	*doc = NULL;
	int rc = bv_mkdir_inside(dir, "raw");
	if (rc)
		return rc;
	char *out = bv_asprintf("%s/raw/describe.json", dir), *log = bv_asprintf("%s/raw/runner.log", dir);
	bv_strv argv = BV_STRV_INIT;
	bv_strv_pushf(&argv, "%s/bv-runner", bv_libexec());
	bv_strv_push(&argv, "--describe");
	bv_strv_push(&argv, "--out");
	bv_strv_push(&argv, out);
	for (size_t i = 0; i < n; i++)
		if (vs[i].plugin && !vs[i].build_error)
			bv_strv_pushf(&argv, "%s=%s", vs[i].label, vs[i].plugin);
	char *tail = NULL;
	int status = bv_run_tail(argv.v, log, 1500, &tail, BV_ENV_RUNNER);
	bv_strv_free(&argv);
	if (status < 0)
		rc = status;
	else if (status > 0)
		/* Its log is in the run's directory, which goes when nothing
		 * was measured: the message holds its end. */
		rc = bv_fail(BV_ERUN, "describing the suite (bv-runner --describe) exited with status %d; its last "
		                      "output:\n%s",
		             status, tail && *tail ? tail : "(none)\n");
	char *text = NULL;
	size_t len = 0;
	if (rc == 0)
		rc = bv_read_file(out, 64u << 20, &text, &len);
	if (rc == 0)
		rc = bv_json_parse(out, text, len, doc);
	free(text), free(tail), free(out), free(log);
	return rc;
}

/* Every item of a comma list is name. */
static int only_names(const char *list, const char *name)
{
	for (const char *p = list; p && *p;) {
		size_t k = strcspn(p, ",");
		if (k != strlen(name) || strncmp(p, name, k))
			return 0;
		p += k + (p[k] == ',');
	}
	return 1;
}

/* Every version this command has described (labels and their own
 * descriptions, in order) and the union of them: a command that builds
 * more versions after the suite is registered (bisect's probes, report's
 * second run) describes those too, and they must agree with every one
 * before them. */
typedef struct seen_one {
	char *label;
	cJSON *desc;
} seen_one;
static seen_one *seen;
static size_t nseen;
static cJSON *seen_union;

/* one (label's description) into the union.  A benchmark declared
 * differently is named with the first version before it that declares it
 * otherwise, pairwise: "in a and b", not "in a, b, c, d and e". */
static int note_description(const char *label, const cJSON *one)
{
	char err[1024];
	for (size_t k = 0; k < nseen; k++)
		if (!strcmp(seen[k].label, label)) {
			if (cJSON_Compare(seen[k].desc, one, 1))
				return 0; /* the same version again (report's second run) */
			return bv_fail(BV_EINPUT, "%s's description of the suite differs from the one it gave earlier in "
			                          "this command: was the suite edited meanwhile?",
			               label);
		}
	if (bv_suite_desc_merge(&seen_union, nseen ? seen[0].label : label, one, label, err, sizeof(err)) != 0) {
		/* The union named its first label; name the version that
		 * disagrees instead. */
		for (size_t k = 0; k < nseen; k++) {
			cJSON *pair = cJSON_Duplicate(seen[k].desc, 1);
			int bad = bv_suite_desc_merge(&pair, seen[k].label, one, label, err, sizeof(err));
			cJSON_Delete(pair);
			if (bad)
				break;
		}
		return bv_fail(BV_EINPUT, "the suite's benchmarks differ between versions: %s", err);
	}
	seen = bv_xrealloc(seen, (nseen + 1) * sizeof(*seen));
	seen[nseen].label = bv_strdup(label);
	seen[nseen++].desc = cJSON_Duplicate(one, 1);
	return 0;
}

char *bv_suite_description_path(const bv_version *vs, size_t n, const char *dir)
{
	int taken = 0;
	for (size_t i = 0; i < n; i++)
		taken |= !strcmp(vs[i].label, "suite");
	return bv_asprintf(taken ? "%s/raw/suite.json" : "%s/suite.json", dir);
}

int bv_suite_benches_check(const bv_measure_opts *mo, const char *name)
{
	if (!mo->benches || only_names(mo->benches, name))
		return 0;
	return bv_fail(BV_EINPUT,
	               "--benches %s: this project's builds hold its suite '%s' only (the project file's "
	               "\"suite\"); its benchmarks are selected with --ops",
	               mo->benches, name);
}

int bv_suite_describe(const bv_version *vs, size_t n, const char *dir, bv_measure_opts *mo)
{
	if (!bv_suite_dir())
		return 0; /* no suite: the catalog's cells, registered already */
	size_t built = 0;
	for (size_t i = 0; i < n; i++)
		built += vs[i].plugin && !vs[i].build_error;
	if (!built)
		return bv_fail(BV_ERUN, "no version built, so the suite's benchmarks are unknown (each version's "
		                        "build describes the benchmarks it has)");
	cJSON *doc = NULL;
	int rc = describe(vs, n, dir, &doc);
	const cJSON *versions = cJSON_GetObjectItemCaseSensitive(doc, "versions");
	if (rc == 0 && !cJSON_IsObject(versions))
		rc = bv_fail(BV_ERUN, "%s/raw/describe.json: no \"versions\" object (bv-runner --describe)", dir);
	/* In the versions' order on the command line: the union keeps the
	 * benchmarks in the order they first appear, the baseline's first. */
	int any = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (!vs[i].plugin || vs[i].build_error)
			continue;
		const cJSON *one = cJSON_GetObjectItemCaseSensitive(versions, vs[i].label);
		if (!one || cJSON_IsNull(one))
			continue; /* no suite plugin: its cells are n/a */
		char err[1024], *where = bv_asprintf("%s's description (%s/raw/describe.json)", vs[i].label, dir);
		/* A bad description is named by its version's label here, not
		 * found later in the merge or the load. */
		if (bv_suite_desc_check(where, one, err, sizeof(err)) != 0)
			rc = bv_fail(BV_EINPUT, "%s", err);
		free(where);
		if (rc == 0)
			rc = note_description(vs[i].label, one);
		any = 1;
	}
	if (rc == 0 && !any)
		rc = bv_fail(BV_ERUN, "no version's plugin describes a suite (bv-runner --describe in %s/raw/runner.log)",
		             dir);
	/* DIR/suite.json, beside the versions' logs (DIR/LABEL.json): a
	 * version labelled "suite" has that name, and its log would replace
	 * the description the runners read, so then it goes into raw/. */
	char *path = bv_suite_description_path(vs, n, dir);
	if (rc == 0 && bv_suite_file_hash()) {
		/* Registered already, by this command's first builds: the
		 * registry holds those cells and measured cells point into them.
		 * These versions agreed with every one before (above); what
		 * their runners read is that description, kept here too. */
		if (strcmp(path, bv_suite_file_path())) {
			char *text = NULL;
			size_t len = 0;
			rc = bv_read_file(bv_suite_file_path(), BV_SUITE_FILE_MAX, &text, &len);
			if (rc == 0)
				rc = bv_write_file_atomic(path, text, len);
			free(text);
		}
	} else if (rc == 0) {
		char err[1024];
		rc = bv_json_save(path, seen_union);
		if (rc == 0 && bv_suite_file_load(path, err, sizeof(err)) != 0)
			rc = bv_fail(BV_EINPUT, "%s", err);
	}
	/* The selection: a suite build holds the suite's benchmarks only, so
	 * the catalog's groups have nothing to run in it. */
	const char *name = rc == 0 ? bv_suite_file_suite() : NULL;
	if (rc == 0 && !name)
		rc = bv_fail(BV_EINPUT, "%s: no \"suite\" name", path);
	if (rc == 0)
		rc = bv_suite_benches_check(mo, name);
	if (rc == 0 && !mo->benches) {
		static char *group; /* mo keeps the pointer for the run */
		free(group);
		mo->benches = group = bv_strdup(name);
	}
	/* --vs variant=B names the backend's place when variant is a
	 * benchmark's variant parameter (its value is the cell's backend). */
	if (rc == 0)
		bv_vs_settle_variant(mo->vs, seen_union);
	if (rc == 0)
		rc = bv_selection_check(mo, NULL);
	free(path);
	cJSON_Delete(doc);
	return rc;
}
