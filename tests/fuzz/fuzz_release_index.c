/* fuzz_release_index.c - the release index (releases.c): JSON from a web
 * server, validated field by field.  The first byte picks where the index
 * claims to come from (relative tarball URLs resolve against it; a web index
 * may not name file:// tarballs). */
#include <stdint.h>
#include <string.h>

#include "download.h"
#include "fuzz.h"
#include "releases.h"
#include "semver.h"

static const char *const sources[] = {
	"http://127.0.0.1:8000/index.json",
	"https://ci:secret@example.invalid/releases/v1/index.json?x=1", /* credentials: never shown */
	"file:///tmp/bv-fuzz-index/index.json",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	const char *source = sources[data[0] % 3];
	char *s = fuzz_str(data + 1, size - 1);
	bv_release_index idx;
	int rc = bv_release_index_parse(source, s, size - 1, &idx);
	FUZZ_ERROR_SAYS_WHY(rc);
	if (rc == 0) {
		for (size_t i = 0; i < idx.n; i++) {
			const bv_release *r = &idx.releases[i];
			bv_semver v;
			FUZZ_ASSERT(bv_semver_parse(r->version, &v) == 0);
			FUZZ_ASSERT(strlen(r->sha256) == 64);
			FUZZ_ASSERT(bv_release_find(&idx, r->version) == r); /* no duplicates */
			char scheme[16];
			bv_url_scheme(r->url, scheme);
			FUZZ_ASSERT(!strcmp(scheme, "http") || !strcmp(scheme, "https") ||
				    (!strcmp(scheme, "file") && source[0] == 'f'));
			/* what is shown holds no user:password@, only ***@ */
			const char *auth = strstr(r->shown, "://");
			FUZZ_ASSERT(auth != NULL);
			auth += 3;
			size_t n = strcspn(auth, "/?#");
			const char *at = memchr(auth, '@', n);
			FUZZ_ASSERT(!at || (at - auth == 3 && !strncmp(auth, "***", 3)));
		}
		bv_release_index_free(&idx);
	} else
		FUZZ_ASSERT(idx.n == 0 && idx.releases == NULL);
	free(s);
	return 0;
}
