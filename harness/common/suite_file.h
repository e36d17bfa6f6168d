/*
 * suite_file.h - a benchmark suite's description (JSON, schema
 * "bench-versions-suite/1"; docs/suites-design.md): what each version's
 * plugin says its suite holds (bv-runner --describe), merged over the
 * versions by the orchestrator, then loaded by the orchestrator and every
 * runner, which register the suite's cells as one group of the registry
 * (benches.h: BV_K_SUITE ops).
 *
 * Host side, linked by the orchestrator and the runner, like ops_file.h:
 * both load the same file (the runner is told its path and hash, so the
 * cells' indices agree).  The file comes from plugins built out of the
 * user's code: every key is checked, every limit of bv_suite.h enforced.
 */
#ifndef BV_SUITE_FILE_H
#define BV_SUITE_FILE_H

#include <stddef.h>

#define BV_SUITE_FILE_MAX (4u << 20) /* bytes */
#define BV_SUITE_SCHEMA "bench-versions-suite/1"
#define BV_SUITE_NAME_MAX 32  /* a suite's, benchmark's or parameter's name, in bytes */
#define BV_SUITE_VALUE_MAX 32 /* a parameter's value, in bytes */

struct cJSON;

/* Reads, validates and registers the suite of path (its group, after the
 * catalog's and any ops file's).  Once per process, before any selection.
 * Returns 0, or -1 with a message in err naming the file, the benchmark and
 * the key ("suite file F: benchmark 'exp': key 'params': ...").  Nothing is
 * registered on an error. */
int bv_suite_file_load(const char *path, char *err, size_t errlen);
/* The same from text already read (the unit tests and the fuzzer call it);
 * path only names the file in messages. */
int bv_suite_file_parse(const char *path, const char *text, size_t len, char *err, size_t errlen);
/* The same checks, without registering anything, on one version's
 * description, which may have no benchmark (a version before the suite's
 * first; its cells are n/a): 0 or -1 with err.  What
 * the orchestrator may call on each version's description before merging
 * (so a bad plugin is named by its label, not found later in the merge). */
int bv_suite_desc_check(const char *path, const struct cJSON *doc, char *err, size_t errlen);
/* The loaded file's content hash (16 hex digits, FNV-1a 64 of its bytes),
 * or NULL when none was loaded. */
const char *bv_suite_file_hash(void);
/* The loaded file's path, or NULL. */
const char *bv_suite_file_path(void);
/* The loaded suite's name (its group), or NULL. */
const char *bv_suite_file_suite(void);
/* Forgets the loaded suite (hash, path, name) and frees its group, so that
 * another may be loaded: only after bv_bench_reset (benches.h), when the
 * registry no longer points to it.  For the unit tests and for a process
 * that loads another suite. */
void bv_suite_file_reset(void);

/* Merges `one` (a version's description, from --describe) into *into (NULL
 * at first: a copy of one).  The union of benchmarks by name, in order of
 * first appearance; "runs" is ORed.  A benchmark declared differently
 * (params, variant, tolerances) or another suite name: -1 with a message
 * naming both labels (*into is left as it was).  one is not checked here
 * (bv_suite_desc_check); what the merge needs of it is. */
int bv_suite_desc_merge(struct cJSON **into, const char *into_label, const struct cJSON *one,
			const char *one_label, char *err, size_t errlen);

#endif
