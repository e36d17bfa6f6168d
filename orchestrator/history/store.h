/*
 * store.h - the history store (store.c; docs/history.md, "The history
 * store"), and the step it keeps: what one cell did between two adjacent
 * versions a and b of a history, b's time over a's, measured in
 * the same processes (every process of the window that holds both ran
 * both), so its ratio and interval are paired ones.  The chain back to the
 * first version is the product of the steps.
 */
#ifndef BV_STORE_H
#define BV_STORE_H

#include <stddef.h>

#include "stats.h"

typedef struct bv_step {
	char *cell;          /* "bench/op/backend/size" as bv_row_key writes it (size as 64K) */
	double ratio;        /* b / a: median over processes of each process's ratio */
	double lo, hi;       /* its 95 % interval (order statistics), NAN without one */
	double *proc_ratio;  /* each process's b / a ratio */
	size_t nproc;
	bv_verdict verdict;  /* verdict.c's; BV_NO_VERDICT without a ratio */
	double p;            /* the evidence's p (bv_change.p), NAN where none */
	/* A step that has no ratio for a reason the two builds decide, so
	 * measuring again would give none either: one version lacks the cell
	 * ("n/a": an op or backend it does not have) or cannot run it on this
	 * machine class ("skipped": no GPU).  absent is that status (static;
	 * NULL for a step with a ratio), absent_side which version (0: a, 1:
	 * b), absent_reason that version's own words (NULL: none).  ratio and
	 * the rest are NAN / empty then.  Failures (crashed, wrong result,
	 * timeout) are never absent steps: they are measured again. */
	const char *absent;
	int absent_side;
	char *absent_reason;
} bv_step;

void bv_step_free(bv_step *s);

/*
 * One SQLite database (default <cache>/history.sqlite): steps keyed by the
 * machine class, the two builds' keys, the cell and the method (what makes
 * two measurements comparable: threshold, quick, ...; a short string).
 * WAL mode and a busy timeout: several runs may write at once.  The schema
 * is versioned (PRAGMA user_version) and migrated forward on open; a
 * database from a newer bench-versions, or one holding objects its
 * schema's version does not create (a trigger, a view, another table or
 * index, one of ours changed or missing), is refused (BV_EINPUT) before
 * anything is written. */
typedef struct bv_store bv_store;
int bv_store_open(const char *path, bv_store **out);
void bv_store_close(bv_store *s);
/* *found 0 when the store has no such step (out untouched); 1 with the
 * step in *out, which may be an absent one (out->absent set, ratio NAN). */
int bv_store_get_step(bv_store *s, const char *cls, const char *key_a, const char *key_b, const char *cell,
		      const char *method, bv_step *out, int *found);
/* Inserts or replaces.  BV_EINPUT for a step that is not one (a ratio not
 * finite and > 0, one bound without the other, bounds out of order, a
 * process ratio not finite and > 0, p outside [0, 1], a verdict not in
 * verdict.c's list; an absent step whose status is not n/a or skipped,
 * whose side is not 0 or 1, or whose reason is over 1024 bytes or holds a
 * control character): nothing is written.  An absent step and a measured
 * one of the same key replace each other. */
int bv_store_put_step(bv_store *s, const char *cls, const char *key_a, const char *key_b, const char *cell,
		      const char *method, const bv_step *step);
/* <cache>/history.sqlite (bv_cache_dir()); the store's directory is made
 * on open when missing. */
const char *bv_store_default_path(void);
/* The path the store was opened with (for messages). */
const char *bv_store_path(const bv_store *s);
/* What the steps put from now on record as their source (which run or log
 * they came from: "results/2024.../main.json (run 2024...)"); NULL: not
 * said.  Copied. */
void bv_store_set_source(bv_store *s, const char *source);
/* One transaction around many puts: all of them or none, and one commit
 * instead of one per step.  BEGIN IMMEDIATE: it waits (the busy timeout,
 * 10 s) for another run's transaction to end.  Without one, each put is its
 * own transaction. */
int bv_store_begin(bv_store *s);
int bv_store_commit(bv_store *s);
void bv_store_rollback(bv_store *s);
/* Imports a run's results logs as steps: path is a run's directory (every
 * version but the baseline) or one log in it (that version only; its run's
 * baseline log must be beside it).  The logs are merged as compare DIR
 * merges them (bv_merge_docs: verdicts decided over the run's table) and
 * each cell with a paired change becomes a step: class = the baseline
 * log's machine.class, else the name classes.c derives; key_a = the
 * baseline's version.build.key, key_b = the version's; cell as bv_row_key;
 * method as given.  Isolated and unpaired ratios are not steps and are
 * left out.  Existing steps of the same key are replaced.  In one
 * transaction (or the caller's, when one is open): on error nothing is
 * imported.  *imported: the steps written. */
int bv_store_import_log(bv_store *s, const char *path, const char *method, size_t *imported);

#endif
