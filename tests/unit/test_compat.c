/* test_compat.c - compat.json: rules that apply, and files that are refused. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "compat.h"
#include "fs.h"
#include "semver.h"
#include "tests.h"

static int load(const char *json, bv_compat **c, char **dir)
{
	*dir = test_tmpdir();
	char *shims = bv_asprintf("%s/shims", *dir);
	bv_mkdir_p(shims);
	test_write(shims, "old.h", "#define X 1\n");
	free(shims);
	char *patches = bv_asprintf("%s/patches", *dir);
	bv_mkdir_p(patches);
	test_write(patches, "fix.patch", "--- a/x\n+++ b/x\n");
	/* A link out of compat/ must be refused like a path that says so. */
	char *link = bv_asprintf("%s/escape.patch", patches);
	assert_int_equal(symlink("/etc/hostname", link), 0);
	free(link);
	free(patches);
	/* An adapter directory as rules named one before adapters were
	 * retired: a source in it, which such a rule needed to be accepted. */
	char *adapter = bv_asprintf("%s/adapters/fm", *dir);
	bv_mkdir_p(adapter);
	test_write(adapter, "adapter.c", "int x;\n");
	free(adapter);
	test_write(*dir, "build.sh", "cmake --build .\n");
	test_write(*dir, "compat.json", json);
	char *path = bv_asprintf("%s/compat.json", *dir);
	int rc = bv_compat_load(path, c);
	free(path);
	return rc;
}

static void matching_rules_give_includes_and_flags(void **state)
{
	(void)state;
	bv_compat *c;
	char *dir;
	assert_int_equal(load("{\"schema_version\":1,\"rules\":["
			      "{\"id\":\"old\",\"versions\":\"<0.2.0\",\"include\":\"shims/old.h\","
			      "\"defines\":{\"KN_OLD\":\"1\"},\"cflags\":[\"-O3\"]},"
			      "{\"id\":\"new\",\"versions\":\">=0.2.0\",\"defines\":{\"KN_NEW\":\"\"}}]}",
			      &c, &dir),
			 0);
	bv_semver v;
	bv_shims s;
	bv_semver_parse("0.1.3", &v);
	assert_int_equal(bv_compat_match(c, &v, &s), 0);
	assert_int_equal(s.nrules, 1);
	assert_string_equal(s.rules[0], "old");
	assert_int_equal(s.nincludes, 1);
	assert_non_null(strstr(s.includes[0], "/shims/old.h"));
	assert_int_equal(s.ncflags, 2);
	assert_string_equal(s.cflags[0], "-DKN_OLD=1");
	assert_string_equal(s.cflags[1], "-O3");
	bv_shims_free(&s);
	bv_semver_parse("0.2.0", &v);
	bv_compat_match(c, &v, &s);
	assert_int_equal(s.nrules, 1);
	assert_string_equal(s.cflags[0], "-DKN_NEW");
	bv_shims_free(&s);
	bv_compat_free(c);
	bv_rm_rf(dir);
	free(dir);
}

static void patches_and_recipes_apply_to_their_range(void **state)
{
	(void)state;
	bv_compat *c;
	char *dir;
	assert_int_equal(load("{\"schema_version\":1,\"rules\":["
			      "{\"id\":\"fix\",\"versions\":\"0.1.x\",\"patches\":[\"patches/fix.patch\"],"
			      "\"build\":[\"make\",\"-C\",\"{src}\",\"BUILD={build}\",\"CUDA=0\",\"lib\"]},"
			      "{\"id\":\"late\",\"versions\":\"0.1.2\",\"build\":[\"sh\",\"{src}/b.sh\",\"{build}\"]}]}",
			      &c, &dir),
			 0);
	bv_semver v;
	bv_shims s;
	bv_semver_parse("0.1.0", &v);
	assert_int_equal(bv_compat_match(c, &v, &s), 0);
	assert_int_equal(s.npatches, 1);
	assert_non_null(strstr(s.patches[0], "/patches/fix.patch"));
	assert_int_equal(s.nrecipe, 6);
	assert_string_equal(s.recipe[2], "{src}"); /* expanded by build.c, per build */
	assert_string_equal(s.recipe_rule, "fix");
	bv_shims_free(&s);
	/* Two rules with a recipe: the last one that matches builds. */
	bv_semver_parse("0.1.2", &v);
	bv_compat_match(c, &v, &s);
	assert_int_equal(s.nrules, 2);
	assert_int_equal(s.npatches, 1);
	assert_int_equal(s.nrecipe, 3);
	assert_string_equal(s.recipe[0], "sh");
	assert_string_equal(s.recipe_rule, "late");
	bv_shims_free(&s);
	bv_semver_parse("0.2.0", &v);
	bv_compat_match(c, &v, &s);
	assert_int_equal(s.nrules, 0);
	assert_int_equal(s.npatches, 0);
	assert_null(s.recipe);
	bv_shims_free(&s);
	bv_compat_free(c);
	bv_rm_rf(dir);
	free(dir);
}

/* Each bad file must be refused with a message naming the file and the fault. */
static void hostile_files_are_refused_with_reasons(void **state)
{
	(void)state;
	static const struct {
		const char *json, *expect;
	} cases[] = {
		{"", "(empty file)"},
		{"{\"schema_version\":1,\"rules\":[", ":1:"},
		{"{\"schema_version\":1,\n\"rules\":[}]}", ":2:"},
		{"[]", "expected an object"},
		{"{\"schema_version\":2,\"rules\":[]}", "schema_version 2"},
		{"{\"schema_version\":1,\"rules\":{}}", "must be an array"},
		{"{\"schema_version\":1,\"rules\":[{\"versions\":\"*\"}]}", "\"id\""},
		{"{\"schema_version\":1,\"rules\":[{\"id\":\"a\"}]}", "\"versions\""},
		{"{\"schema_version\":1,\"rules\":[{\"id\":\"a\",\"versions\":\">=1.x.2\"}]}", "bad version"},
		{"{\"schema_version\":1,\"rules\":[{\"id\":\"a\",\"versions\":\"*\",\"include\":\"../etc/passwd\"}]}", "inside compat/"},
		{"{\"schema_version\":1,\"rules\":[{\"id\":\"a\",\"versions\":\"*\",\"include\":\"/etc/passwd\"}]}", "inside compat/"},
		{"{\"schema_version\":1,\"rules\":[{\"id\":\"a\",\"versions\":\"*\",\"include\":\"shims/none.h\"}]}", "does not exist"},
		{"{\"schema_version\":1,\"rules\":[{\"id\":\"a\",\"versions\":\"*\",\"defines\":{\"1X\":\"1\"}}]}", "C identifier"},
		{"{\"schema_version\":1,\"rules\":[{\"id\":\"a\",\"versions\":\"*\",\"defines\":{\"X\":\"a b\"}}]}", "without spaces"},
		{"{\"schema_version\":1,\"rules\":[{\"id\":\"a\",\"versions\":\"*\",\"cflags\":[\"O2\"]}]}", "starting with '-'"},
		{"{\"schema_version\":1,\"rules\":[{\"id\":\"a\",\"versions\":\"*\",\"patchez\":[]}]}", "unknown key \"patchez\""},
#define R(x) "{\"schema_version\":1,\"rules\":[{\"id\":\"a\",\"versions\":\"*\"," x "}]}"
		{R("\"patches\":\"patches/fix.patch\""), "\"patches\" must be an array"},
		{R("\"patches\":[1]"), "\"patches\" must be an array"},
		{R("\"patches\":[\"patches/none.patch\"]"), "does not exist"},
		{R("\"patches\":[\"../patches/fix.patch\"]"), "inside compat/"},
		{R("\"patches\":[\"/etc/hostname\"]"), "inside compat/"},
		{R("\"patches\":[\"patches/escape.patch\"]"), "inside compat/"},
		{R("\"patches\":[\"patches\"]"), "directory"},
		{R("\"build\":\"make lib\""), "non-empty array"},
		{R("\"build\":[]"), "non-empty array"},
		{R("\"build\":[\"make\",2]"), "non-empty array"},
		{R("\"build\":[\"make\",\"\",\"{build}\"]"), "non-empty string"},
		{R("\"build\":[\"make\",\"-C\",\"{source}\",\"BUILD={build}\"]"), "unknown placeholder"},
		{R("\"build\":[\"make\",\"-C\",\"{src}\",\"lib\"]"), "must pass {build}"},
		{R("\"build\":[\"make\",\"a\\nb\",\"{build}\"]"), "control character"},
		{R("\"adaptor\":\"adapters/fm\""), "unknown key \"adaptor\""},
		{R("\"build\":[\"sh\",\"{compat}\",\"{build}\"]"), "followed by /PATH"},
		{R("\"build\":[\"sh\",\"{compat}/\",\"{build}\"]"), "followed by /PATH"},
		{R("\"build\":[\"sh\",\"{compat}/none.sh\",\"{build}\"]"), "{compat}/none.sh, which names a file that does not exist"},
		{R("\"build\":[\"sh\",\"{compat}/../x.sh\",\"{build}\"]"), "is not a path inside compat/"},
		{R("\"build\":[\"sh\",\"{compat}/adapters\",\"{build}\"]"), "names a directory"},
		{R("\"build\":[\"sh\",\"-c\",\"sh {compat}/build.sh; sh {compat}/gone.sh {build}\"]"), "gone.sh"},
#undef R
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bv_compat *c = NULL;
		char *dir;
		int rc = load(cases[i].json, &c, &dir);
		if (rc != BV_EINPUT || c != NULL)
			fail_msg("case %zu accepted: %s", i, cases[i].json);
		if (!strstr(bv_error_last(), "compat.json") || !strstr(bv_error_last(), cases[i].expect))
			fail_msg("case %zu: message '%s' lacks '%s'", i, bv_error_last(), cases[i].expect);
		bv_rm_rf(dir);
		free(dir);
	}
}

/* {compat} helpers: the recipe kept unexpanded with compat.json's
 * directory beside it. */
static void helpers_apply(void **state)
{
	(void)state;
	bv_compat *c;
	char *dir;
	assert_int_equal(load("{\"schema_version\":1,\"rules\":["
			      "{\"id\":\"all\",\"versions\":\"*\","
			      "\"build\":[\"sh\",\"{compat}/build.sh\",\"{src}\",\"{build}\"]},"
			      "{\"id\":\"late\",\"versions\":\">=2.0.0\"}]}",
			      &c, &dir),
			 0);
	bv_semver v;
	bv_shims s;
	bv_semver_parse("1.0.0", &v);
	assert_int_equal(bv_compat_match(c, &v, &s), 0);
	assert_string_equal(s.compat_dir, dir);
	assert_string_equal(s.recipe[1], "{compat}/build.sh");
	bv_shims_free(&s);
	bv_semver_parse("2.0.0", &v);
	bv_compat_match(c, &v, &s);
	assert_int_equal(s.nrules, 2);
	assert_string_equal(s.recipe_rule, "all");
	bv_shims_free(&s);
	bv_compat_free(c);
	bv_rm_rf(dir);
	free(dir);
}

/* Adapters are retired: a rule that names one, even a directory that a
 * rule of old could name (a source in it), is refused when the file is
 * loaded, before anything builds, saying what replaced it; never ignored
 * (the bundled catalog would then be built against a library it does not
 * fit).  Told first, whatever else the rule holds or lacks. */
static void a_retired_adapter_is_refused_saying_what_replaced_it(void **state)
{
	(void)state;
	static const char *const rules[] = {
		"{\"id\":\"fastmath\",\"versions\":\"*\",\"adapter\":\"adapters/fm\","
		"\"build\":[\"sh\",\"{compat}/build.sh\",\"{src}\",\"{build}\"]}",
		"{\"id\":\"fastmath\",\"adapter\":\"adapters/none\",\"cflagz\":1}",
	};
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		char *json = bv_asprintf("{\"schema_version\":1,\"rules\":[{\"id\":\"ok\",\"versions\":\"*\"},%s]}",
					 rules[i]);
		bv_compat *c = NULL;
		char *dir;
		assert_int_equal(load(json, &c, &dir), BV_EINPUT);
		assert_null(c);
		const char *msg = bv_error_last();
		if (!strstr(msg, "/compat.json: rule 1 ('fastmath'): \"adapter\" is retired: describe the library's "
				 "benchmarks as a suite instead") ||
		    !strstr(msg, "docs/adapters.md shows how to move an adapter to a suite"))
			fail_msg("rule %zu: message '%s'", i, msg);
		free(json);
		bv_rm_rf(dir);
		free(dir);
	}
}

static void deep_nesting_is_refused_not_a_crash(void **state)
{
	(void)state;
	bv_buf b = BV_BUF_INIT;
	for (int i = 0; i < 100000; i++)
		bv_buf_puts(&b, "[");
	bv_compat *c = NULL;
	char *dir;
	assert_int_equal(load(b.s, &c, &dir), BV_EINPUT);
	assert_null(c);
	bv_buf_free(&b);
	bv_rm_rf(dir);
	free(dir);
}

/* The path checks compat rules and project files share (fs.c). */
static void paths_inside_by_spelling_and_through_links(void **state)
{
	(void)state;
	assert_true(bv_path_lexically_inside("a/b.patch"));
	assert_true(bv_path_lexically_inside("a..b/c")); /* ".." only as a component */
	const char *bad[] = {"", "/etc/passwd", "..", "../x", "a/../../x", "a/..", "a b", "a\tb", "a\nb"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(bv_path_lexically_inside(bad[i]));
	char *dir = test_tmpdir();
	char real[PATH_MAX];
	test_write(dir, "in.txt", "x\n");
	char *in = bv_asprintf("%s/in.txt", dir), *link = bv_asprintf("%s/out", dir);
	char *self = bv_asprintf("%s/.", dir), *sib = bv_asprintf("%s-sibling", dir);
	assert_int_equal(symlink("/etc/hostname", link), 0);
	assert_true(bv_path_inside(dir, in, real));
	assert_non_null(strstr(real, "/in.txt"));
	assert_false(bv_path_inside(dir, link, real));  /* a link leading out */
	assert_false(bv_path_inside(dir, self, real));  /* the root itself */
	assert_false(bv_path_inside(dir, sib, real));   /* does not exist */
	bv_mkdir_p(sib);                                 /* a prefix, not a parent */
	assert_false(bv_path_inside(dir, sib, real));
	bv_rm_rf(sib);
	free(in), free(link), free(self), free(sib);
	bv_rm_rf(dir);
	free(dir);
}

int test_compat(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(matching_rules_give_includes_and_flags),
		cmocka_unit_test(patches_and_recipes_apply_to_their_range),
		cmocka_unit_test(hostile_files_are_refused_with_reasons),
		cmocka_unit_test(helpers_apply),
		cmocka_unit_test(a_retired_adapter_is_refused_saying_what_replaced_it),
		cmocka_unit_test(deep_nesting_is_refused_not_a_crash),
		cmocka_unit_test(paths_inside_by_spelling_and_through_links),
	};
	return test_run_group("compat", tests, NULL, NULL);
}
