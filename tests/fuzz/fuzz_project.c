/* fuzz_project.c - bench-versions.json (project.c): validated at load, then
 * its regexes run over tag names and a version file's text.  The file sits
 * in a scratch repository root holding one compat.json, so "compat" and
 * "ops" naming it can load. */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "project.h"
#include "semver.h"

static char *root, *project_json;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	root = fuzz_tmpdir("project");
	char *f = bv_asprintf("%s/compat.json", root);
	fuzz_write(f, "{}", 2);
	free(f);
	project_json = bv_asprintf("%s/bench-versions.json", root);
	return 0;
}

/* Whether a path has a component "..". */
static int has_dotdot(const char *path)
{
	for (const char *c = path; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return 1;
		c += n;
		c += *c == '/';
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	bv_project *p = NULL;
	int rc = bv_project_parse(project_json, s, size, root, &p);
	FUZZ_ERROR_SAYS_WHY(rc);
	FUZZ_ASSERT((rc == 0) == (p != NULL));
	if (p) {
		/* "dir" and the paths stay inside the repository: relative, no
		 * component "..". (A name that only begins with "..", such as
		 * "..v2", is a directory inside it: the fuzzer found one, and the
		 * check was this target's, not project.c's.) */
		FUZZ_ASSERT(p->dir[0] != '/' && !has_dotdot(p->dir));
		FUZZ_ASSERT(!p->compat || !strncmp(p->compat, root, strlen(root)));
		FUZZ_ASSERT(!p->ops || !strncmp(p->ops, root, strlen(root)));
		static const char *const tags[] = {"v1.2.3", "release-1.2", "2.0", "x", ""};
		for (size_t i = 0; i < sizeof(tags) / sizeof(*tags); i++) {
			char *n = bv_project_tag_number(p, tags[i]);
			bv_semver sv;
			FUZZ_ASSERT(!n || bv_semver_parse(n, &sv) == 0); /* always X.Y.Z */
			free(n);
		}
		char *v = NULL;
		static const char text[] = "project(fm VERSION 3.6)\n3.6\n";
		if (p->kind != BV_PROJECT_VERSION_TAG) {
			int vr = bv_project_version_of(p, text, sizeof(text) - 1, "f", "commit 1", &v);
			FUZZ_ERROR_SAYS_WHY(vr);
			bv_semver sv;
			FUZZ_ASSERT((vr == 0) == (v != NULL));
			FUZZ_ASSERT(!v || bv_semver_parse(v, &sv) == 0);
			free(v);
		}
		bv_project_free(p);
	}
	free(s);
	return 0;
}
