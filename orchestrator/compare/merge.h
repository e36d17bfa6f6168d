/*
 * merge.h - logs to one comparison table (merge.c), and what is done to the
 * table before it is shown (merge_gates.c): --filter, --only-changes, the
 * folds, the geomeans, the gates (--fail-on-slower, --fail-on-wrong).  The
 * table's types are in table.h (why: there).
 */
#ifndef BV_MERGE_H
#define BV_MERGE_H

#include <regex.h>
#include <stddef.h>

#include "classes.h"
#include "table.h"

typedef struct bv_merge_opts {
	double threshold; /* < 0: the baseline log's method.threshold, else 1 % */
	int across_machines; /* ratios between logs from different machines */
} bv_merge_opts;

/* Logs from one run on one machine (what `run` produces). */
int bv_merge_logs(char *const *paths, size_t n, double threshold, bv_table *out);
/* Any logs: pairs only within one run (same run.id and baseline), falls
 * back to unpaired ratios across runs, and gives no ratio across machines
 * unless o->across_machines; each such caveat becomes a note. */
int bv_merge(char *const *paths, size_t n, const bv_merge_opts *o, bv_table *out);
/* bv_merge of documents already loaded and checked (bv_log_load's checks,
 * or built from such logs: shard.c's join).  Takes docs[i] (each is freed,
 * and set NULL, once its cells are in); names[i] names it in notes as a
 * path would ("main.json"). */
struct cJSON;
int bv_merge_docs(struct cJSON **docs, char *const *names, size_t n, const bv_merge_opts *o, bv_table *out);
/* The same with documents made on demand: next(ctx, i, &doc) hands over
 * document i (checked as bv_log_load checks; i = 0..n-1 in order, each
 * once), or returns an error that ends the merge.  Only one is held at a
 * time: what the join of shards (shard.c) merges through. */
typedef struct bv_doc_source {
	int (*next)(void *ctx, size_t i, struct cJSON **doc);
	void *ctx;
} bv_doc_source;
int bv_merge_source(const bv_doc_source *src, char *const *names, size_t n, const bv_merge_opts *o,
		    bv_table *out);
void bv_table_free(bv_table *t);

/* Keeps the rows whose key matches re. */
void bv_table_filter(bv_table *t, const regex_t *re);
/* --only-changes: shows only the rows a PR comment needs, those with a
 * change whose verdict is not `same` (slower, faster, inconclusive,
 * unstable, no ratio) or a version that did not produce a result; the
 * others are marked hidden, not removed, so the geomeans and the verdicts
 * line still cover every row measured.  Adds a note saying how many rows
 * were left out. */
void bv_table_only_changes(bv_table *t);
/* Whether any version ran the row (bv_status_ran; rows nobody could run,
 * a build failure's included, are folded). */
int bv_row_ran(const bv_row *r, size_t nversions);
/* Rows nobody ran (and not hidden), folded: one per backend and text, in
 * the order first met; text is "status: reason", or, when the versions'
 * differ, each with the labels that gave it ("0.1.0: skipped: A; main:
 * skipped: B").  backend points into the table. */
typedef struct bv_fold {
	const char *backend;
	char *text;
	size_t count;
} bv_fold;
size_t bv_table_folds(const bv_table *t, bv_fold **out);
void bv_table_folds_free(bv_fold *f, size_t n);
/* Geometric mean of version v's ratios over the rows of one bench group
 * (bench NULL: over every row), hidden rows included; *n gets the number of
 * cells behind it (0: no ratio, returns 0). */
double bv_table_geomean(const bv_table *t, size_t v, const char *bench, size_t *n);
/* The gate behind --fail-on-slower: any change whose verdict is slower
 * (inconclusive and unstable are not), unless its counts found the same
 * instructions and misses on both sides (placement or machine: counts.h). */
int bv_table_has_slower(const bv_table *t);
/* Each cell whose output failed the check, as a note under the table
 * ("wrong result: CELL on LABEL: REASON": the first bad element, its error
 * in ulp and the limit), so the detail is not only in the JSON log. */
void bv_table_note_wrong(bv_table *t);
/* One note naming the cells whose change is `inconclusive` and whose
 * sampling its time budget stopped (the log's "stopped", schema 1.8): the
 * budget, the processes it bought, and what to give to decide them.
 * Without it an undecided 2x read as if more measuring could not help. */
void bv_table_note_budget(bv_table *t);
/* The gate behind --fail-on-wrong (and --fail-on-slower): how many cells
 * of a candidate (a column that is no baseline; in a table of one version,
 * that version) gave a wrong result; first gets "CELL on LABEL" of the
 * first.  A baseline's wrong result is not the candidate's failure: a fix
 * must pass the gate. */
size_t bv_table_wrong(const bv_table *t, char *first, size_t len);
/* Says on stderr that the gate failed on n wrong results (flag: the option
 * that asked), naming the first. */
void bv_say_wrong(size_t n, const char *first, const char *flag);

/* compare's merge: logs of one class as bv_merge; of several, each class
 * merged on its own (its own baseline: its first log) and the tables set
 * side by side in *out, one column group per class (bv_table_join). */
int bv_merge_classes(char *const *paths, size_t n, const bv_merge_opts *o, bv_table *out);
/* Tables of different classes side by side: takes over t[0..n-1] (each left
 * empty); a version's label becomes LABEL@CLASS. */
void bv_table_join(bv_table *t, const bv_class *classes, size_t n, bv_table *out);

#endif
