/* test_project.c - the project file (project.c): strict validation, version
 * numbers padded, regex captures, release tag patterns, and two tags giving
 * one number refused (resolve.c, on a real repository). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "compat.h"
#include "fs.h"
#include "project.h"
#include "resolve.h"
#include "tests.h"

static int parse(const char *text, const char *root, bv_project **p)
{
	return bv_project_parse("t/bench-versions.json", text, strlen(text), root, p);
}

/* text is refused with a message holding every one of want (NULL-ended). */
static void refused(const char *text, const char *root, const char *const *want)
{
	bv_project *p = NULL;
	int rc = parse(text, root, &p);
	if (rc != BV_EINPUT)
		fail_msg("accepted: %s", text);
	assert_null(p);
	assert_non_null(strstr(bv_error_last(), "t/bench-versions.json"));
	for (; *want; want++)
		if (!strstr(bv_error_last(), *want))
			fail_msg("\"%s\" not in: %s", *want, bv_error_last());
}

#define REFUSED(text, ...) refused(text, NULL, (const char *const[]){__VA_ARGS__, NULL})

static void every_validation_error_names_file_and_key(void **state)
{
	(void)state;
	REFUSED("[]", "expected an object");
	REFUSED("{\"schema_version\": 1, \"nmae\": \"x\"}", "unknown key \"nmae\"");
	REFUSED("{\"name\": \"x\"}", "\"schema_version\"");
	REFUSED("{\"schema_version\": 2}", "schema_version 2");
	REFUSED("{\"schema_version\": \"1\"}", "\"schema_version\"");
	REFUSED("{\"schema_version\": 1, \"name\": 3}", "\"name\"");
	REFUSED("{\"schema_version\": 1, \"name\": \"a b\"}", "\"name\"");
	REFUSED("{\"schema_version\": 1, \"dir\": 1}", "\"dir\"");
	REFUSED("{\"schema_version\": 1, \"dir\": \"/abs\"}", "\"dir\" must stay inside the repository");
	REFUSED("{\"schema_version\": 1, \"dir\": \"..\"}", "\"dir\" must stay inside the repository");
	REFUSED("{\"schema_version\": 1, \"dir\": \"a/../../b\"}", "\"dir\" must stay inside");
	REFUSED("{\"schema_version\": 1, \"version\": \"VERSION\"}", "\"version\" must be an object");
	REFUSED("{\"schema_version\": 1, \"version\": {\"fiel\": \"V\"}}",
	        "unknown key \"fiel\" in \"version\"");
	REFUSED("{\"schema_version\": 1, \"version\": {}}", "\"version\" needs \"file\"");
	REFUSED("{\"schema_version\": 1, \"version\": {\"file\": \"V\", \"tag\": \"\"}}", "not both");
	REFUSED("{\"schema_version\": 1, \"version\": {\"file\": \"../V\"}}", "\"version\".\"file\"");
	REFUSED("{\"schema_version\": 1, \"version\": {\"file\": 7}}", "\"version\".\"file\"");
	REFUSED("{\"schema_version\": 1, \"version\": {\"file\": \"V\", \"regex\": 1}}",
	        "\"version\".\"regex\"");
	REFUSED("{\"schema_version\": 1, \"version\": {\"file\": \"V\", \"regex\": \"(\"}}",
	        "\"version\".\"regex\" is not a valid POSIX extended regular expression");
	REFUSED("{\"schema_version\": 1, \"version\": {\"file\": \"V\", \"regex\": \"VERSION [0-9.]+\"}}",
	        "\"version\".\"regex\" needs a capture group");
	REFUSED("{\"schema_version\": 1, \"version\": {\"file\": \"V\", \"regex\": \"\"}}",
	        "\"version\".\"regex\"");
	REFUSED("{\"schema_version\": 1, \"version\": {\"tag\": 1}}", "\"version\".\"tag\"");
	REFUSED("{\"schema_version\": 1, \"version\": {\"tag\": \"[\"}}",
	        "\"version\".\"tag\" is not a valid");
	REFUSED("{\"schema_version\": 1, \"releases\": [\"x\"]}", "\"releases\" must be a string");
	REFUSED("{\"schema_version\": 1, \"releases\": \"a{2,1}\"}", "\"releases\" is not a valid");
	REFUSED("{\"schema_version\": 1, \"releases\": \"((a{30}){99})\"}", "\"releases\" repeats more than");
	char big[400];
	snprintf(big, sizeof(big), "{\"schema_version\": 1, \"releases\": \"%0300d\"}", 0);
	REFUSED(big, "\"releases\" is longer than 256");
	/* back-references: glibc matches them by
	 * backtracking, exponentially: a 100-letter tag took over a minute */
	REFUSED("{\"schema_version\": 1, \"releases\": \"^(a*)(a*)(a*)\\\\3\\\\2\\\\1b$\"}",
	        "\"releases\" has a back-reference (\\3)");
	REFUSED("{\"schema_version\": 1, \"version\": {\"file\": \"V\", \"regex\": \"(v)([0-9.]+)\\\\1\"}}",
	        "\"version\".\"regex\" has a back-reference (\\1)");
	REFUSED("{\"schema_version\": 1, \"version\": {\"tag\": \"^(x)\\\\9\"}}",
	        "\"version\".\"tag\" has a back-reference (\\9)");
	REFUSED("{\"schema_version\": 1, \"compat\": \"/etc/passwd\"}", "\"compat\" must be a path inside");
	REFUSED("{\"schema_version\": 1, \"compat\": \"../c.json\"}", "\"compat\" must be a path inside");
	REFUSED("{\"schema_version\": 1, \"ops\": 3}", "\"ops\" must be a path inside");
	REFUSED("{\"schema_version\": 1, \"suite\": \"../bench\"}", "\"suite\" must be a path inside");
	REFUSED("{\"schema_version\": 1, \"suite\": [\"bench\"]}", "\"suite\" must be a path inside");
	REFUSED("{\"schema_version\": 1, \"siute\": \"bench\"}", "unknown key \"siute\"", "suite)");
	REFUSED("{\"schema_version\": 1, \"schema_version\": 1}", "duplicate key \"schema_version\"");
}

/* compat and ops against a real directory: existing regular files inside
 * the repository root, through symlinks too. */
static void compat_and_ops_must_be_files_inside(void **state)
{
	(void)state;
	char *root = test_tmpdir();
	char *t = bv_asprintf("%s/t", root);
	assert_int_equal(bv_mkdir_p(t), 0);
	test_write(t, "c.json", "{}");
	test_write(root, "outside.json", "{}");
	char *sub = bv_asprintf("%s/sub", t);
	assert_int_equal(bv_mkdir_p(sub), 0);
	free(sub);
	char *link = bv_asprintf("%s/link.json", t), *target = bv_asprintf("%s/outside.json", root);
	assert_int_equal(symlink(target, link), 0);
	char *linkdir = bv_asprintf("%s/linkdir", t);
	assert_int_equal(symlink(root, linkdir), 0);
	char *proj = bv_asprintf("%s/bench-versions.json", t);
	const char *const cases[][2] = {
	    {"{\"schema_version\": 1, \"compat\": \"nothere.json\"}", "does not exist"},
	    {"{\"schema_version\": 1, \"compat\": \"link.json\"}", "outside the repository"},
	    {"{\"schema_version\": 1, \"ops\": \"sub\"}", "not a regular file"},
	    /* the suite is a directory of .c files */
	    {"{\"schema_version\": 1, \"suite\": \"c.json\"}", "not a directory"},
	    {"{\"schema_version\": 1, \"suite\": \"nosuite\"}", "does not exist"},
	    {"{\"schema_version\": 1, \"suite\": \"linkdir\"}", "outside the repository"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bv_project *p = NULL;
		/* the repository is t/: outside.json beside it is outside */
		assert_int_equal(bv_project_parse(proj, cases[i][0], strlen(cases[i][0]), t, &p), BV_EINPUT);
		if (!strstr(bv_error_last(), cases[i][1]) || !strstr(bv_error_last(), proj))
			fail_msg("case %zu: %s", i, bv_error_last());
	}
	const char *good = "{\"schema_version\": 1, \"compat\": \"c.json\", \"ops\": \"c.json\", \"dir\": \"./\", "
	                   "\"suite\": \"sub\"}";
	bv_project *p = NULL;
	assert_int_equal(bv_project_parse(proj, good, strlen(good), t, &p), 0);
	assert_non_null(strstr(p->compat, "/t/c.json"));
	assert_string_equal(p->compat, p->ops);
	assert_non_null(strstr(p->suite, "/t/sub"));
	assert_string_equal(p->dir, "");
	assert_false(p->builtin);
	bv_project_set_current(p);
	assert_string_equal(bv_project_ops_path(), p->ops);
	assert_string_equal(bv_compat_path(), p->compat);
	assert_string_equal(bv_project_suite_path(), p->suite);
	bv_project_free(p); /* no longer current */
	assert_true(bv_project_current()->builtin);
	assert_null(bv_project_ops_path());
	assert_null(bv_project_suite_path());
	/* read from a bare repository's tree: lexical checks only, unset */
	assert_int_equal(bv_project_parse(proj, good, strlen(good), NULL, &p), 0);
	assert_null(p->compat);
	assert_null(p->ops);
	assert_null(p->suite);
	bv_project_free(p);
	bv_rm_rf(root);
	free(root), free(t), free(link), free(target), free(proj), free(linkdir);
}

/* What only looks like a back-reference is no error: an escaped backslash
 * before a digit, a backslash inside a bracket expression. */
static void literal_backslashes_are_no_back_references(void **state)
{
	(void)state;
	const char *const ok[] = {
	    "{\"schema_version\": 1, \"releases\": \"^r\\\\\\\\1-([0-9.]+)$\"}",
	    "{\"schema_version\": 1, \"releases\": \"^[\\\\1]?([0-9.]+)$\"}",
	    NULL,
	};
	for (int i = 0; ok[i]; i++) {
		bv_project *p = NULL;
		if (parse(ok[i], NULL, &p) != 0)
			fail_msg("%s: %s", ok[i], bv_error_last());
		bv_project_free(p);
	}
}

static void two_part_numbers_are_padded(void **state)
{
	(void)state;
	const char *in[][2] = {{"3.6", "3.6.0"},
	                       {"3.6.1", "3.6.1"},
	                       {"0.14", "0.14.0"},
	                       {"1.2.3-rc1", "1.2.3-rc1"},
	                       {"10.20", "10.20.0"}};
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		char *n = bv_project_pad(in[i][0], strlen(in[i][0]));
		assert_non_null(n);
		assert_string_equal(n, in[i][1]);
		free(n);
	}
	const char *bad[] = {"3", "3.", ".6", "3..6", "3.6.", "v3.6", "3.6x", "a.b", "", "3.6.1.2", NULL};
	for (int i = 0; bad[i]; i++) {
		char *n = bv_project_pad(bad[i], strlen(bad[i]));
		if (n)
			fail_msg("\"%s\" padded to %s", bad[i], n);
	}
}

static void version_regex_captures_the_number(void **state)
{
	(void)state;
	const char *text = "{\"schema_version\": 1, \"version\": {\"file\": \"CMakeLists.txt\", \"regex\": "
	                   "\"project\\\\(fm VERSION ([0-9]+\\\\.[0-9]+(\\\\.[0-9]+)?)\"}}";
	bv_project *p = NULL;
	assert_int_equal(parse(text, NULL, &p), 0);
	assert_int_equal(p->kind, BV_PROJECT_VERSION_REGEX);
	assert_string_equal(p->version_file, "CMakeLists.txt");
	char *v = NULL;
	const char *cm = "cmake_minimum_required(VERSION 3.10)\nproject(fm VERSION 3.6 LANGUAGES C)\n";
	assert_int_equal(bv_project_version_of(p, cm, strlen(cm), "CMakeLists.txt", "commit abc1234", &v), 0);
	assert_string_equal(v, "3.6.0");
	free(v);
	cm = "project(fm VERSION 3.5.1)";
	assert_int_equal(bv_project_version_of(p, cm, strlen(cm), "CMakeLists.txt", "commit abc1234", &v), 0);
	assert_string_equal(v, "3.5.1");
	free(v);
	cm = "project(other VERSION 3.5.1)";
	assert_int_equal(bv_project_version_of(p, cm, strlen(cm), "CMakeLists.txt", "commit abc1234", &v),
	                 BV_EINPUT);
	assert_null(v);
	const char *want[] = {"matched nothing in CMakeLists.txt at commit abc1234",
	                      "fix \"version\".\"regex\" in t/bench-versions.json", NULL};
	for (int i = 0; want[i]; i++)
		if (!strstr(bv_error_last(), want[i]))
			fail_msg("\"%s\" not in: %s", want[i], bv_error_last());
	bv_project_free(p);

	/* a match whose groups hold no number is said as such */
	text = "{\"schema_version\": 1, \"version\": {\"file\": \"V\", \"regex\": \"VERSION ([a-z]+)\"}}";
	assert_int_equal(parse(text, NULL, &p), 0);
	cm = "VERSION abc";
	assert_int_equal(bv_project_version_of(p, cm, strlen(cm), "V", "the working tree", &v), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "no capture group holds a version number"));
	bv_project_free(p);

	/* the regex reads the first BV_PROJECT_REGEX_TEXT_MAX bytes of the file
	 * (its cost grows with the square of the text), and says so */
	text = "{\"schema_version\": 1, \"version\": {\"file\": \"V\", \"regex\": \"VERSION ([0-9.]+)\"}}";
	assert_int_equal(parse(text, NULL, &p), 0);
	size_t big = BV_PROJECT_REGEX_TEXT_MAX + 64;
	char *long_text = bv_xmalloc(big + 1);
	memset(long_text, '#', big);
	memcpy(long_text + BV_PROJECT_REGEX_TEXT_MAX - 20, "VERSION 4.5\n", 12);
	long_text[big] = '\0';
	assert_int_equal(bv_project_version_of(p, long_text, big, "V", "the working tree", &v), 0);
	assert_string_equal(v, "4.5.0");
	free(v);
	memset(long_text, '#', big);
	memcpy(long_text + BV_PROJECT_REGEX_TEXT_MAX + 8, "VERSION 4.5\n", 12);
	assert_int_equal(bv_project_version_of(p, long_text, big, "V", "the working tree", &v), BV_EINPUT);
	assert_null(v);
	if (!strstr(bv_error_last(), "matched nothing in the first 16 KiB of V at the working tree"))
		fail_msg("%s", bv_error_last());
	free(long_text);
	bv_project_free(p);

	/* a VERSION-like file: trimmed and padded; garbage names the file */
	text = "{\"schema_version\": 1, \"version\": {\"file\": \"VERSION.txt\"}}";
	assert_int_equal(parse(text, NULL, &p), 0);
	assert_int_equal(p->kind, BV_PROJECT_VERSION_FILE);
	cm = "  2.0\n";
	assert_int_equal(bv_project_version_of(p, cm, strlen(cm), "VERSION.txt", "commit 1", &v), 0);
	assert_string_equal(v, "2.0.0");
	free(v);
	cm = "two";
	assert_int_equal(bv_project_version_of(p, cm, strlen(cm), "VERSION.txt", "commit 1", &v), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "VERSION.txt does not hold a version number"));
	bv_project_free(p);
}

static void release_tag_patterns(void **state)
{
	(void)state;
	const char *text =
	    "{\"schema_version\": 1, \"releases\": \"^(release-)?([0-9]+\\\\.[0-9]+(\\\\.[0-9]+)?)$\"}";
	bv_project *p = NULL;
	assert_int_equal(parse(text, NULL, &p), 0);
	const char *in[][2] = {{"release-1.2", "1.2.0"},   {"2.0", "2.0.0"}, {"3.5.1", "3.5.1"},
	                       {"release-3.5.1", "3.5.1"}, {"v2.0", NULL},   {"release-x", NULL},
	                       {"2.0-beta", NULL}};
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		char *n = bv_project_tag_number(p, in[i][0]);
		if (!in[i][1] ? n != NULL : !n || strcmp(n, in[i][1]))
			fail_msg("tag %s: %s, expected %s", in[i][0], n ? n : "none",
			         in[i][1] ? in[i][1] : "none");
		free(n);
	}
	/* the default of a project naming no releases: X.Y or X.Y.Z, a v allowed */
	bv_project_free(p);
	assert_int_equal(
	    parse("{\"schema_version\": 1, \"version\": {\"tag\": \"^fm-([0-9.]+)$\"}}", NULL, &p), 0);
	char *n = bv_project_tag_number(p, "v3.6");
	assert_string_equal(n, "3.6.0");
	free(n);
	assert_null(bv_project_tag_number(p, "fm-3.6"));
	n = bv_project_version_tag_number(p, "fm-3.6");
	assert_string_equal(n, "3.6.0");
	free(n);
	assert_int_equal(p->kind, BV_PROJECT_VERSION_TAG);
	bv_project_free(p);
	/* a tag longer than BV_PROJECT_TAG_MAX is matched by neither regex (a
	 * regex's cost grows with the square of its text) */
	assert_int_equal(
	    parse("{\"schema_version\": 1, \"version\": {\"tag\": \"^fm-+([0-9.]+)$\"}}", NULL, &p), 0);
	char longtag[BV_PROJECT_TAG_MAX + 8];
	memset(longtag, '-', sizeof(longtag));
	memcpy(longtag, "fm", 2);
	memcpy(longtag + sizeof(longtag) - 5, "3.6", 4);
	assert_int_equal(strlen(longtag), BV_PROJECT_TAG_MAX + 6);
	assert_null(bv_project_version_tag_number(p, longtag));
	memmove(longtag + 2, longtag + 2 + 7, strlen(longtag + 2 + 7) + 1); /* BV_PROJECT_TAG_MAX - 1 */
	n = bv_project_version_tag_number(p, longtag);
	assert_non_null(n);
	assert_string_equal(n, "3.6.0");
	free(n);
	bv_project_free(p);
	/* the built-in default: vX.Y.Z or X.Y.Z exactly, no padding */
	p = bv_project_default();
	assert_true(p->builtin);
	assert_string_equal(p->dir, "kernels");
	n = bv_project_tag_number(p, "v0.1.0");
	assert_string_equal(n, "0.1.0");
	free(n);
	assert_null(bv_project_tag_number(p, "0.1"));
	assert_null(bv_project_tag_number(p, "release-0.1.0"));
	bv_project_free(p);
}

static int sh(const char *dir, const char *cmd)
{
	char *c = bv_asprintf("cd '%s' && (%s) > /dev/null 2>&1", dir, cmd);
	int rc = system(c);
	free(c);
	return rc;
}

/* Two tags giving 1.2.0 at different commits: listing and naming the
 * release are errors naming both tags; the same commit is no ambiguity. */
static void duplicate_number_tags_are_refused(void **state)
{
	(void)state;
	char *root = test_tmpdir();
	test_write(root, "bench-versions.json",
	           "{\"schema_version\": 1, \"name\": \"fm\", \"version\": {\"file\": \"V\"}, "
	           "\"releases\": \"^(release-)?([0-9]+\\\\.[0-9]+(\\\\.[0-9]+)?)$\"}");
	test_write(root, "V", "1.2\n");
	const char *ident =
	    "export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t "
	    "GIT_COMMITTER_EMAIL=t@example.invalid; ";
	char *cmd =
	    bv_asprintf("%sgit init -q -b main && git add -A && git commit -qm one && git tag release-1.2 && "
	                "git tag 1.2.0 && echo 1.3 > V && git commit -qam two",
	                ident);
	assert_int_equal(sh(root, cmd), 0);
	free(cmd);
	const char *saved_dir = getenv("KERNEL_DIR");
	char *kd = saved_dir ? bv_strdup(saved_dir) : NULL;
	setenv("KERNEL_DIR", root, 1);
	bv_repo *r = NULL;
	assert_int_equal(bv_repo_open(&r), 0);
	bv_known_release *k = NULL;
	size_t n = 0;
	assert_int_equal(bv_releases_in_reach(r, 0, &k, &n), 0); /* same commit: fine */
	assert_int_equal(n, 2);
	assert_string_equal(k[0].version, "1.2.0");
	assert_string_equal(k[1].version, "1.3.0");
	bv_known_releases_free(k, n);
	bv_version v;
	assert_int_equal(bv_resolve(r, "1.3", &v), 0);
	assert_string_equal(v.kernel_version, "1.3.0");
	assert_non_null(strstr(v.rule, "first commit whose V gives 1.3.0"));
	bv_version_free(&v);
	bv_repo_free(r);

	assert_int_equal(sh(root, "git tag 1.2 HEAD"), 0); /* 1.2.0 again, another commit */
	assert_int_equal(bv_repo_open(&r), 0);
	assert_int_equal(bv_releases_in_reach(r, 0, &k, &n), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "both give release 1.2.0"));
	assert_non_null(strstr(bv_error_last(), "tags 1.2 and"));
	assert_int_equal(bv_resolve(r, "1.2", &v), BV_EINPUT);
	assert_non_null(strstr(bv_error_last(), "both give release 1.2.0"));
	/* the tag's own name is no ambiguity */
	assert_int_equal(bv_resolve(r, "release-1.2", &v), 0);
	assert_string_equal(v.kernel_version, "1.2.0");
	bv_version_free(&v);
	bv_repo_free(r);
	if (kd)
		setenv("KERNEL_DIR", kd, 1);
	else
		unsetenv("KERNEL_DIR");
	free(kd);
	bv_rm_rf(root);
	free(root);
}

int test_project(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_validation_error_names_file_and_key),
	    cmocka_unit_test(compat_and_ops_must_be_files_inside),
	    cmocka_unit_test(literal_backslashes_are_no_back_references),
	    cmocka_unit_test(two_part_numbers_are_padded),
	    cmocka_unit_test(version_regex_captures_the_number),
	    cmocka_unit_test(release_tag_patterns),
	    cmocka_unit_test(duplicate_number_tags_are_refused),
	};
	return test_run_group("project", tests, NULL, NULL);
}
