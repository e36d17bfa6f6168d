/*
 * project.h - the project file, bench-versions.json: where a kernel library
 * is in its repository, how a tree's version is found, which tags are
 * releases and where its compat rules and ops are (project.c; docs/project.md).
 *
 * Without a project file the built-in default applies, exactly as before
 * project files existed: the library in kernels/, its version in the file
 * VERSION (X.Y.Z), release tags vX.Y.Z or X.Y.Z (vX.Y.Z first), the tool's
 * own compat/compat.json.
 */
#ifndef BV_PROJECT_H
#define BV_PROJECT_H

#include <regex.h>
#include <stddef.h>

#define BV_PROJECT_FILE "bench-versions.json"
#define BV_PROJECT_MAX (64 * 1024)
/* How much text a regex of the project file is matched against.  glibc's
 * matcher (no back-references: project.c refuses them) tries each start in
 * the text, so a hostile regex costs the square of its length: the worst
 * found took 1.4 s over 16 KiB, 31 s over 64 KiB (docs/project.md).  A
 * version file's first 16 KiB hold its version line; a longer tag name is
 * no release. */
#define BV_PROJECT_REGEX_TEXT_MAX (16 * 1024)
#define BV_PROJECT_TAG_MAX 256

typedef enum {
	BV_PROJECT_VERSION_FILE,  /* a VERSION-like file holding the number */
	BV_PROJECT_VERSION_REGEX, /* a regex over a file's text, a capture group holds it */
	BV_PROJECT_VERSION_TAG,   /* the nearest release tag reachable from the commit */
} bv_project_version_kind;

typedef struct bv_project {
	int builtin; /* 1: no project file, today's default */
	char *path;  /* the project file, for messages ("built-in default" when builtin) */
	char *name;  /* shown in messages */
	char *dir;   /* the library inside the repository, "" = its root */
	bv_project_version_kind kind;
	char *version_file;  /* FILE and REGEX: relative to dir */
	char *version_regex; /* REGEX and TAG: the source text, for messages */
	regex_t version_re;  /* REGEX and TAG (TAG: the releases regex when none given) */
	char *releases;      /* source text of the releases regex */
	regex_t releases_re;
	char *compat; /* absolute path, or NULL: builtin -> the tool's, else no rules */
	char *ops;    /* absolute path of the user's ops file, or NULL */
	char *suite;  /* absolute path of the benchmark suite's directory, or NULL */
} bv_project;

/* The built-in default (kernels/, VERSION, vX.Y.Z / X.Y.Z tags). */
bv_project *bv_project_default(void);

/* Parses and validates a project file's text: unknown keys, wrong types,
 * regexes that do not compile, paths leaving the repository are BV_EINPUT
 * errors naming PATH and the key.  ROOT is the repository's working tree
 * that "compat", "ops" and "suite" (relative to the project file's
 * directory) must stay inside, checked through symlinks and as existing
 * regular files ("suite": a directory); NULL (a project file read from a
 * bare repository) checks them lexically only and leaves them unset. */
int bv_project_parse(const char *path, const char *text, size_t len, const char *root, bv_project **out);
int bv_project_load(const char *path, const char *root, bv_project **out);
void bv_project_free(bv_project *p);

/* The project of the repository whose working tree is WORKDIR (NULL: none
 * around): BENCH_VERSIONS_PROJECT where set, else WORKDIR/bench-versions.json
 * where it exists, else the built-in default.  Never NULL on success. */
int bv_project_find(const char *workdir, bv_project **out);

/* The project of the repository opened last (bv_repo_open), else the
 * built-in default; never NULL.  bv_compat_path and the ops loader read it. */
const bv_project *bv_project_current(void);
void bv_project_set_current(const bv_project *p);
/* The user's ops file named by the current project, or NULL. */
const char *bv_project_ops_path(void);
/* The benchmark suite's directory named by the current project, or NULL. */
const char *bv_project_suite_path(void);

/* "3.6" -> "3.6.0"; "3.6.1" and "3.6.1-rc1" as they are; NULL when s is no
 * version number (the caller frees). */
char *bv_project_pad(const char *s, size_t len);

/* The release number (padded X.Y.Z) a tag name stands for under the
 * project's "releases" (builtin: vX.Y.Z or X.Y.Z), or NULL (caller frees). */
char *bv_project_tag_number(const bv_project *p, const char *tag);
/* The same under the "version": {"tag": R} regex. */
char *bv_project_version_tag_number(const bv_project *p, const char *tag);

/* The version (padded X.Y.Z) held by TEXT, the content of the project's
 * version file: trimmed for FILE, the regex's first capture group holding a
 * number for REGEX.  WHERE names the tree for messages ("commit abc1234",
 * "the working tree"); FILE_SHOWN the file read.  *out NULL and BV_EINPUT
 * with a message saying what to fix when there is none. */
int bv_project_version_of(const bv_project *p, const char *text, size_t len, const char *file_shown,
                          const char *where, char **out);

#endif
