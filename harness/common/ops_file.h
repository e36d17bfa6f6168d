/*
 * ops_file.h - user-defined ops: an ops file (JSON) adds ops to the unary
 * and binary groups with their input range, tolerance, the function the
 * plugin calls and a reference expression (expr.h), without editing
 * harness/.  docs/user-ops.md describes the format.
 *
 * Host side, linked by the orchestrator and the runner: both load the same
 * file (the runner is told its path and hash, so the cells' indices agree).
 */
#ifndef BV_OPS_FILE_H
#define BV_OPS_FILE_H

#include <stddef.h>

#define BV_OPS_FILE_MAX (1u << 20) /* bytes */
#define BV_OPS_MAX 256             /* ops in one file */

/* Reads, validates and registers the ops of path (bv_bench_add_ops).  Once
 * per process, before any selection.  Returns 0, or -1 with a message in
 * err naming the file, the op and the key ("ops file F: op 'sin': key 'lo':
 * ...").  Nothing is registered on an error. */
int bv_ops_file_load(const char *path, char *err, size_t errlen);
/* The same from text already read (what load does after reading; the unit
 * tests and the fuzzer call it).  path only names the file in messages. */
int bv_ops_file_parse(const char *path, const char *text, size_t len, char *err, size_t errlen);
/* Reads a host-side input file (what: "ops file", "suite file", for
 * messages) of at most max bytes: a regular file only, opened without
 * blocking (a FIFO would wait for a writer).  0 with *text (malloc'd, not
 * terminated) and *len, or -1 with a message in err naming what and path. */
int bv_host_file_read(const char *what, const char *path, size_t max, char **text, size_t *len, char *err,
		      size_t errlen);
/* The loaded file's content hash (16 hex digits, FNV-1a 64 of its bytes),
 * or NULL when none was loaded: the runner checks it is given the same
 * file as the orchestrator. */
const char *bv_ops_file_hash(void);
/* The loaded file's path, or NULL. */
const char *bv_ops_file_path(void);
/* Forgets the loaded file (its hash and path) and frees its ops, so that
 * another may be loaded: only after bv_bench_reset (benches.h), when the
 * registry no longer points to them.  For the unit tests and for a process
 * that loads another ops file. */
void bv_ops_file_reset(void);

#endif
