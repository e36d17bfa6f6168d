/* fuzz_compat.c - compat.json (compat.c): every rule validated at load, then
 * matched against a few kernel versions.  The file sits in a scratch compat/
 * holding one shim and one patch, so rules naming them can load. */
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "compat.h"
#include "fuzz.h"
#include "semver.h"

static char *compat_json;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	char *dir = fuzz_tmpdir("compat");
	char *shims = bv_asprintf("%s/shims", dir), *patches = bv_asprintf("%s/patches", dir);
	mkdir(shims, 0755);
	mkdir(patches, 0755);
	char *f = bv_asprintf("%s/kernels-0.1.h", shims);
	fuzz_write(f, "#define X 1\n", 12);
	free(f);
	f = bv_asprintf("%s/fix.patch", patches);
	fuzz_write(f, "", 0);
	free(f);
	free(shims), free(patches);
	compat_json = bv_asprintf("%s/compat.json", dir);
	free(dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	bv_compat *c = NULL;
	int rc = bv_compat_parse(compat_json, s, size, &c);
	FUZZ_ERROR_SAYS_WHY(rc);
	FUZZ_ASSERT((rc == 0) == (c != NULL));
	if (c) {
		static const char *const versions[] = {"0.0.0", "0.1.0", "0.1.9", "0.2.0-rc.1", "1.0.0", "99999.0.0"};
		for (size_t i = 0; i < sizeof(versions) / sizeof(*versions); i++) {
			bv_semver v;
			bv_shims sh;
			FUZZ_ASSERT(bv_semver_parse(versions[i], &v) == 0);
			FUZZ_ASSERT(bv_compat_match(c, &v, &sh) == 0);
			/* What a rule applies was checked at load: includes and
			 * patches stay in compat/, a recipe passes {build}. */
			for (size_t k = 0; k < sh.nincludes; k++)
				FUZZ_ASSERT(strstr(sh.includes[k], "..") == NULL);
			for (size_t k = 0; k < sh.npatches; k++)
				FUZZ_ASSERT(strstr(sh.patches[k], "..") == NULL);
			int has_build = 0;
			for (size_t k = 0; k < sh.nrecipe; k++)
				has_build |= strstr(sh.recipe[k], "{build}") != NULL;
			FUZZ_ASSERT(sh.nrecipe == 0 || has_build);
			for (size_t k = 0; k < sh.ncflags; k++)
				FUZZ_ASSERT(sh.cflags[k][0] == '-');
			bv_shims_free(&sh);
		}
		bv_compat_free(c);
	}
	free(s);
	return 0;
}
