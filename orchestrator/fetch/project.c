/*
 * project.c - the project file, bench-versions.json (project.h,
 * docs/project.md):
 *
 *   { "schema_version": 1,
 *     "name": "fastmath",
 *     "dir": ".",
 *     "version": { "file": "CMakeLists.txt",
 *                  "regex": "project\\(fastmath VERSION ([0-9]+\\.[0-9]+(\\.[0-9]+)?)" },
 *     "releases": "^(release-)?([0-9]+\\.[0-9]+(\\.[0-9]+)?)$",
 *     "compat": "bench/compat.json",
 *     "ops": "bench/ops.json",
 *     "suite": "bench/suite" }
 *
 * It is trusted no more than compat.json: unknown keys, wrong types,
 * regexes that do not compile and paths leaving the repository are errors
 * naming the file and the key, found when it is loaded, not mid-run.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "fs.h"
#include "json.h"
#include "git_util.h"
#include "project.h"
#include "semver.h"

/* A foreign project's releases when it names none: X.Y or X.Y.Z, a v allowed. */
#define DEFAULT_RELEASES "^v?([0-9]+\\.[0-9]+(\\.[0-9]+)?)$"

static const bv_project *current;

const bv_project *bv_project_current(void)
{
	static bv_project *builtin;
	if (current)
		return current;
	if (!builtin)
		builtin = bv_project_default();
	return builtin;
}

void bv_project_set_current(const bv_project *p)
{
	current = p;
}

const char *bv_project_ops_path(void)
{
	return bv_project_current()->ops;
}

const char *bv_project_suite_path(void)
{
	return bv_project_current()->suite;
}

bv_project *bv_project_default(void)
{
	bv_project *p = bv_xcalloc(1, sizeof(*p));
	p->builtin = 1;
	p->path = bv_strdup("built-in default (no " BV_PROJECT_FILE ")");
	p->name = bv_strdup("kernels");
	p->dir = bv_strdup("kernels");
	p->kind = BV_PROJECT_VERSION_FILE;
	p->version_file = bv_strdup("VERSION");
	/* Only for messages: the built-in default matches tags with
	 * bv_semver_parse, vX.Y.Z before X.Y.Z (resolve.c), as it always did. */
	p->releases = bv_strdup("^v?([0-9]+\\.[0-9]+\\.[0-9]+)$");
	regcomp(&p->releases_re, p->releases, REG_EXTENDED);
	return p;
}

void bv_project_free(bv_project *p)
{
	if (!p)
		return;
	if (current == p)
		current = NULL;
	if (p->version_regex)
		regfree(&p->version_re);
	if (p->releases)
		regfree(&p->releases_re);
	free(p->path);
	free(p->name);
	free(p->dir);
	free(p->version_file);
	free(p->version_regex);
	free(p->releases);
	free(p->compat);
	free(p->ops);
	free(p->suite);
	free(p);
}

char *bv_project_pad(const char *s, size_t len)
{
	if (len == 0 || len > 64)
		return NULL;
	char *t = bv_xmalloc(len + 3);
	memcpy(t, s, len);
	t[len] = '\0';
	bv_semver sv;
	if (bv_semver_parse(t, &sv) == 0)
		return t;
	/* X.Y: digits, one dot, digits, nothing else */
	size_t i = 0, dots = 0;
	for (; i < len; i++) {
		if (t[i] == '.' && i > 0 && t[i - 1] != '.')
			dots++;
		else if (!isdigit((unsigned char)t[i]))
			break;
	}
	if (i == len && dots == 1 && t[len - 1] != '.') {
		memcpy(t + len, ".0", 3);
		if (bv_semver_parse(t, &sv) == 0)
			return t;
	}
	free(t);
	return NULL;
}

/* The first capture group of a match that holds a version number (a group
 * may match a prefix such as "release-"); with no groups, the whole match
 * when whole is set. */
static char *number_of_match(const regex_t *re, const char *s, int whole)
{
	regmatch_t m[10];
	if (regexec(re, s, 10, m, 0) != 0)
		return NULL;
	size_t groups = re->re_nsub < 9 ? re->re_nsub : 9;
	for (size_t g = 1; g <= groups; g++)
		if (m[g].rm_so >= 0) {
			char *n = bv_project_pad(s + m[g].rm_so, (size_t)(m[g].rm_eo - m[g].rm_so));
			if (n)
				return n;
		}
	if (groups == 0 && whole)
		return bv_project_pad(s + m[0].rm_so, (size_t)(m[0].rm_eo - m[0].rm_so));
	return NULL;
}

char *bv_project_tag_number(const bv_project *p, const char *tag)
{
	bv_semver sv;
	if (p->builtin) {
		/* vX.Y.Z or X.Y.Z, no padding: today's rule */
		const char *n = bv_semver_parse(tag, &sv) == 0                        ? tag
		                : tag[0] == 'v' && bv_semver_parse(tag + 1, &sv) == 0 ? tag + 1
		                                                                      : NULL;
		return n ? bv_strdup(n) : NULL;
	}
	if (strlen(tag) > BV_PROJECT_TAG_MAX)
		return NULL; /* the regex's cost is bounded by the text's length */
	return number_of_match(&p->releases_re, tag, 1);
}

char *bv_project_version_tag_number(const bv_project *p, const char *tag)
{
	if (p->kind != BV_PROJECT_VERSION_TAG)
		return bv_project_tag_number(p, tag);
	if (strlen(tag) > BV_PROJECT_TAG_MAX)
		return NULL;
	return number_of_match(&p->version_re, tag, 1);
}

int bv_project_version_of(const bv_project *p, const char *text, size_t len, const char *file_shown,
                          const char *where, char **out)
{
	*out = NULL;
	if (p->kind == BV_PROJECT_VERSION_REGEX) {
		/* The text up to its first NUL: a binary file holds no version line.
		 * At most its first BV_PROJECT_REGEX_TEXT_MAX bytes: what the match
		 * may cost (project.h). */
		size_t cut = len > BV_PROJECT_REGEX_TEXT_MAX ? BV_PROJECT_REGEX_TEXT_MAX : len;
		char *t = bv_xmalloc(cut + 1);
		memcpy(t, text, cut);
		t[cut] = '\0';
		regmatch_t m[1];
		int matched = regexec(&p->version_re, t, 1, m, 0) == 0;
		*out = matched ? number_of_match(&p->version_re, t, 0) : NULL;
		free(t);
		char part[64] = "";
		if (cut < len)
			snprintf(part, sizeof(part), "the first %d KiB of ", BV_PROJECT_REGEX_TEXT_MAX / 1024);
		if (!*out)
			return bv_fail(
			    BV_EINPUT, "version regex \"%s\" %s in %s%s at %s: fix \"version\".\"regex\" in %s",
			    p->version_regex,
			    matched ? "matched, but no capture group holds a version number (X.Y or X.Y.Z),"
			            : "matched nothing",
			    part, file_shown, where, p->path);
		return 0;
	}
	while (len && isspace((unsigned char)text[len - 1]))
		len--;
	while (len && isspace((unsigned char)*text))
		text++, len--;
	bv_semver sv;
	if (p->builtin) {
		char *t = len <= 64 ? bv_xmalloc(len + 1) : NULL;
		if (t) {
			memcpy(t, text, len);
			t[len] = '\0';
		}
		if (!t || bv_semver_parse(t, &sv) != 0) {
			free(t);
			return bv_fail(BV_EINPUT, "%s: %s does not hold a semantic version (X.Y.Z)", where,
			               file_shown);
		}
		*out = t;
		return 0;
	}
	*out = bv_project_pad(text, len);
	if (!*out)
		return bv_fail(BV_EINPUT,
		               "%s: %s does not hold a version number (X.Y or X.Y.Z); fix the file or "
		               "\"version\" in %s",
		               where, file_shown, p->path);
	return 0;
}

/* ---- parsing -------------------------------------------------------------- */

static int printable_word(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isgraph((unsigned char)*s))
			return 0;
	return 1;
}

static int key_error(const char *path, const char *key, const char *what)
{
	return bv_fail(BV_EINPUT, "%s: \"%s\" %s", path, key, what);
}

static int compile(const char *path, const char *key, const char *src, regex_t *re, size_t min_groups)
{
	if (!*src)
		return key_error(path, key, "must be a non-empty POSIX extended regular expression");
	/* A project file may come from anyone's repository: a regex whose
	 * compiled form would be huge ((a{999}){999}) is refused, not built. */
	if (strlen(src) > 256)
		return key_error(path, key, "is longer than 256 characters");
	for (const char *c = strchr(src, '{'); c; c = strchr(c + 1, '{'))
		if (c == src || c[-1] != '\\')
			for (const char *d = c + 1; *d && *d != '}'; d++)
				if (isdigit((unsigned char)*d) && strtol(d, NULL, 10) > 32)
					return key_error(path, key,
					                 "repeats more than {32} times; name the digits "
					                 "with + instead");
	/* Repetitions stacked (a++++...) or many of them nested ((a+)+)+...:
	 * glibc's regcomp copies the repeated tree for each, exponentially (the
	 * fuzzer's 35 '+' took over 2 GiB).  A version regex needs a few. */
	int quantifiers = 0, in_bracket = 0;
	char prev = 0;
	for (const char *c = src; *c; c++) {
		/* A back-reference (\1 .. \9, which glibc's ERE takes) makes glibc
		 * match by backtracking, exponentially in the text: one tag of 100
		 * letters against (a*)(a*)(a*)\3\2\1b ran for over a minute.
		 * Without them its matcher runs sets of states, polynomial in the
		 * text, and the texts are bounded (project.h). */
		if (*c == '\\' && c[1] >= '1' && c[1] <= '9' && !in_bracket) {
			char why[160];
			snprintf(why, sizeof(why),
			         "has a back-reference (\\%c), which can take for ever to match; write out what it "
			         "repeats",
			         c[1]);
			return key_error(path, key, why);
		}
		if (*c == '\\' && c[1] && !in_bracket) {
			c++, prev = 0;
			continue;
		}
		if (in_bracket) {
			in_bracket = *c != ']';
			continue;
		}
		if (*c == '[') {
			in_bracket = 1, prev = 0;
			if (c[1] == '^')
				c++;
			if (c[1] == ']')
				c++;
			continue;
		}
		int q = *c == '*' || *c == '+' || *c == '?' || *c == '{';
		if (q && prev)
			return key_error(path, key, "repeats a repetition (like a++ or a*?); write it once");
		if (q && ++quantifiers > 16)
			return key_error(path, key, "has more than 16 repetitions (* + ? {n}); a version regex needs a few");
		if (*c == '{')
			while (c[1] && *c != '}')
				c++;
		prev = q ? 1 : 0;
	}
	int e = regcomp(re, src, REG_EXTENDED);
	if (e) {
		char why[160];
		regerror(e, re, why, sizeof(why));
		return bv_fail(BV_EINPUT, "%s: \"%s\" is not a valid POSIX extended regular expression: %s",
		               path, key, why);
	}
	if (re->re_nsub < min_groups) {
		regfree(re);
		return key_error(path, key, "needs a capture group ( ... ) around the version number");
	}
	return 0;
}

/* "compat" or "ops": relative to the project file's directory, inside root,
 * an existing regular file ("suite": an existing directory, dir set); the
 * absolute path in *out. */
static int project_path(const char *path, const char *key, const cJSON *v, const char *root, int dir_wanted,
                        char **out)
{
	*out = NULL;
	if (!cJSON_IsString(v) || !bv_path_lexically_inside(v->valuestring))
		return key_error(path, key,
		                 "must be a path inside the repository, relative to the project file");
	if (!root)
		return 0;
	char *dir = bv_strdup(path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	char *full = bv_asprintf("%s/%s", dir, v->valuestring);
	free(dir);
	char real[PATH_MAX];
	struct stat st;
	int rc = 0;
	if (!bv_exists(full))
		rc = bv_fail(BV_EINPUT, "%s: \"%s\" names %s, which does not exist", path, key, full);
	else if (!bv_path_inside(root, full, real))
		rc = bv_fail(BV_EINPUT, "%s: \"%s\" names %s, which is outside the repository %s", path, key,
		             full, root);
	else if (dir_wanted && (stat(real, &st) != 0 || !S_ISDIR(st.st_mode)))
		rc = bv_fail(BV_EINPUT, "%s: \"%s\" names %s, which is not a directory", path, key, full);
	else if (!dir_wanted && (stat(real, &st) != 0 || !S_ISREG(st.st_mode)))
		rc = bv_fail(BV_EINPUT, "%s: \"%s\" names %s, which is not a regular file", path, key, full);
	else
		*out = bv_strdup(real);
	free(full);
	return rc;
}

static int check_keys(const char *path, const char *where, const cJSON *o, const char *const *known,
                      const char *shown)
{
	for (const cJSON *m = o->child; m; m = m->next) {
		int ok = 0;
		for (int k = 0; known[k]; k++)
			ok |= strcmp(m->string, known[k]) == 0;
		if (!ok) {
			char *name = bv_escape(m->string);
			int rc = bv_fail(BV_EINPUT, "%s: unknown key \"%.64s\"%s (known: %s)", path, name,
			                 where, shown);
			free(name);
			return rc;
		}
	}
	return 0;
}

static int parse_version(const char *path, const cJSON *v, bv_project *p)
{
	static const char *const known[] = {"file", "regex", "tag", NULL};
	if (!cJSON_IsObject(v))
		return key_error(
		    path, "version",
		    "must be an object: {\"file\": F}, {\"file\": F, \"regex\": R} or {\"tag\": R}");
	int rc = check_keys(path, " in \"version\"", v, known, "file, regex, tag");
	if (rc)
		return rc;
	const cJSON *file = cJSON_GetObjectItemCaseSensitive(v, "file");
	const cJSON *regex = cJSON_GetObjectItemCaseSensitive(v, "regex");
	const cJSON *tag = cJSON_GetObjectItemCaseSensitive(v, "tag");
	if (tag) {
		if (file || regex)
			return key_error(
			    path, "version",
			    "takes either \"file\" (with an optional \"regex\") or \"tag\", not both");
		if (!cJSON_IsString(tag) && !cJSON_IsTrue(tag))
			return key_error(
			    path, "version\".\"tag",
			    "must be a regex over tag names (\"\" or true: the \"releases\" regex)");
		p->kind = BV_PROJECT_VERSION_TAG;
		const char *src = cJSON_IsString(tag) && *tag->valuestring ? tag->valuestring : p->releases;
		p->version_regex = bv_strdup(src);
		rc = compile(path, "version\".\"tag", src, &p->version_re, 0);
		if (rc) {
			free(p->version_regex);
			p->version_regex = NULL;
		}
		return rc;
	}
	if (!file)
		return key_error(path, "version", "needs \"file\" (a path relative to \"dir\") or \"tag\"");
	if (!cJSON_IsString(file) || !bv_path_lexically_inside(file->valuestring))
		return key_error(path, "version\".\"file", "must be a path relative to \"dir\", inside it");
	p->version_file = bv_strdup(file->valuestring);
	p->kind = BV_PROJECT_VERSION_FILE;
	if (regex) {
		if (!cJSON_IsString(regex))
			return key_error(path, "version\".\"regex",
			                 "must be a string (a POSIX extended regex)");
		p->kind = BV_PROJECT_VERSION_REGEX;
		p->version_regex = bv_strdup(regex->valuestring);
		rc = compile(path, "version\".\"regex", regex->valuestring, &p->version_re, 1);
		if (rc) {
			free(p->version_regex);
			p->version_regex = NULL;
		}
	}
	return rc;
}

int bv_project_parse(const char *path, const char *text, size_t len, const char *root, bv_project **out)
{
	static const char *const known[] = {"schema_version", "name", "dir",   "version", "releases",
	                                    "compat",         "ops",  "suite", NULL};
	*out = NULL;
	cJSON *doc = NULL;
	int rc = bv_json_parse(path, text, len, &doc);
	if (rc)
		return rc;
	bv_project *p = bv_xcalloc(1, sizeof(*p));
	p->path = bv_strdup(path);
	double sv;
	if (!cJSON_IsObject(doc)) {
		rc = bv_fail(BV_EINPUT, "%s: expected an object with \"schema_version\": 1", path);
		goto done;
	}
	rc = check_keys(path, "", doc, known, "schema_version, name, dir, version, releases, compat, ops, suite");
	if (rc)
		goto done;
	if (bv_json_num(doc, "schema_version", &sv) != 0) {
		rc = key_error(path, "schema_version", "is required (a number: 1)");
		goto done;
	}
	if (sv != 1) {
		rc =
		    bv_fail(BV_EINPUT, "%s: schema_version %g is not supported (this bench-versions reads 1)",
		            path, sv);
		goto done;
	}
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(doc, "name");
	if (name && (!cJSON_IsString(name) || !printable_word(name->valuestring))) {
		rc = key_error(path, "name", "must be a non-empty word");
		goto done;
	}
	const cJSON *dir = cJSON_GetObjectItemCaseSensitive(doc, "dir");
	if (dir && !cJSON_IsString(dir)) {
		rc = key_error(
		    path, "dir",
		    "must be a string: the library's directory in the repository (\".\": its root)");
		goto done;
	}
	const char *d = dir ? dir->valuestring : ".";
	if (!strcmp(d, ".") || !strcmp(d, "./") || !*d)
		d = "";
	if (*d && !bv_path_lexically_inside(d)) {
		rc =
		    key_error(path, "dir", "must stay inside the repository: a relative path without \"..\"");
		goto done;
	}
	p->dir = bv_strdup(d);
	while (*p->dir && p->dir[strlen(p->dir) - 1] == '/')
		p->dir[strlen(p->dir) - 1] = '\0';
	p->name = bv_strdup(name ? name->valuestring : *p->dir ? p->dir : "the library");
	const cJSON *rel = cJSON_GetObjectItemCaseSensitive(doc, "releases");
	if (rel && !cJSON_IsString(rel)) {
		rc = key_error(path, "releases", "must be a string: a POSIX extended regex over tag names");
		goto done;
	}
	const char *rsrc = rel ? rel->valuestring : DEFAULT_RELEASES;
	rc = compile(path, "releases", rsrc, &p->releases_re, 0);
	if (rc)
		goto done;
	p->releases = bv_strdup(rsrc);
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(doc, "version");
	if (ver)
		rc = parse_version(path, ver, p);
	else {
		p->kind = BV_PROJECT_VERSION_FILE;
		p->version_file = bv_strdup("VERSION");
	}
	if (rc)
		goto done;
	const cJSON *compat = cJSON_GetObjectItemCaseSensitive(doc, "compat");
	if (compat && (rc = project_path(path, "compat", compat, root, 0, &p->compat)) != 0)
		goto done;
	const cJSON *ops = cJSON_GetObjectItemCaseSensitive(doc, "ops");
	if (ops && (rc = project_path(path, "ops", ops, root, 0, &p->ops)) != 0)
		goto done;
	const cJSON *suite = cJSON_GetObjectItemCaseSensitive(doc, "suite");
	if (suite && (rc = project_path(path, "suite", suite, root, 1, &p->suite)) != 0)
		goto done;
done:
	cJSON_Delete(doc);
	if (rc) {
		bv_project_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int bv_project_load(const char *path, const char *root, bv_project **out)
{
	*out = NULL;
	char *text = NULL;
	size_t len = 0;
	int rc = bv_read_file(path, BV_PROJECT_MAX, &text, &len);
	if (rc)
		return bv_fail_context(rc, "project file");
	rc = bv_project_parse(path, text, len, root, out);
	free(text);
	return rc;
}

/* The working tree of the repository holding path's directory, else that
 * directory: where "compat" and "ops" must stay. */
static char *root_of(const char *path)
{
	char *dir = bv_strdup(path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	char *w = bv_workdir_of(dir);
	if (w) {
		free(dir);
		return w;
	}
	return dir;
}

int bv_project_find(const char *workdir, bv_project **out)
{
	*out = NULL;
	const char *env = getenv("BENCH_VERSIONS_PROJECT");
	if (env && *env) {
		char real[PATH_MAX];
		if (!realpath(env, real) || bv_is_dir(real))
			return bv_fail(BV_EINPUT, "BENCH_VERSIONS_PROJECT %s is not a file (a %s)", env,
			               BV_PROJECT_FILE);
		char *root = root_of(real);
		int rc = bv_project_load(real, root, out);
		free(root);
		return rc;
	}
	if (workdir) {
		char *path = bv_asprintf("%s/%s", workdir, BV_PROJECT_FILE);
		if (bv_exists(path)) {
			int rc = bv_project_load(path, workdir, out);
			free(path);
			return rc;
		}
		free(path);
	}
	*out = bv_project_default();
	return 0;
}
