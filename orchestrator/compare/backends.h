/*
 * backends.h - the vs view (backends.c): each cell over its reference cell
 * on an axis (--vs-backend B, --vs NAME=VALUE), per version, paired by
 * process, and each cell's fastest backend.  The axis (bv_vs_axis) is in
 * table.h, since a table holds one.
 */
#ifndef BV_BACKENDS_H
#define BV_BACKENDS_H

#include <stddef.h>

#include "table.h"

struct bv_cell;
struct cJSON;

/* The vs view: every cell that has the axis with another value than the
 * reference, over its reference cell (the same but for the axis's value),
 * per version, paired by process, decided as a family of its own at BV_FDR.
 * BV_EINPUT when no cell has the axis (a parameter no op has) or none has
 * the reference value. */
int bv_table_vs(bv_table *t, const bv_vs_axis *ax);
/* The backend view: bv_table_vs on the backend axis with reference REF. */
int bv_table_backends(bv_table *t, const char *ref);
/* --vs TEXT (NAME=VALUE) into *ax: backend=B is the backend axis.
 * BV_EINPUT for a malformed TEXT and for size (ratios across sizes compare
 * different work). */
int bv_vs_parse(const char *text, bv_vs_axis *ax);
/* --vs-backend B into *ax (the backend axis). */
int bv_vs_backend(const char *ref, bv_vs_axis *ax);
/* Where a cell is on the axis: its value (its backend, or the value of
 * "[param=...]" in its op) into value, and the cell without it ("bench/op/
 * size" on the backend axis, "bench/op-without-[param=...]/backend/size"
 * on a parameter axis) into key; 0 when the cell does not have the axis
 * (its op has no such parameter) or a buffer is too small. */
int bv_vs_place(const bv_vs_axis *ax, const char *bench, const char *op, const char *backend, size_t size,
                char *value, size_t vlen, char *key, size_t klen);
/* A suite's variant parameter takes the backend's place (its value is the
 * cell's backend): a parameter axis naming the variant parameter of a
 * benchmark in desc (a suite description, docs/suites-design.md) becomes
 * the backend axis.  desc NULL: nothing. */
void bv_vs_settle_variant(bv_vs_axis *ax, const struct cJSON *desc);
/* The same from a run directory's suite.json (or raw/suite.json), if any. */
void bv_vs_settle_variant_dir(bv_vs_axis *ax, const char *dir);
/* Checks ax against the n selected cells before they are measured: a
 * parameter no cell has, a reference value none has (the view needs the
 * reference's cells measured).  BV_EINPUT saying which, with what is
 * there. */
int bv_vs_check_cells(const bv_vs_axis *ax, const struct bv_cell *cells, long n);
/* Words for the exporters: the axis as a noun ("backend", "level") and its
 * plural, a row's value on it ("simd", "level=9"), the reference's
 * ("scalar", "level=1"), and the name of the group of cells a fastest is
 * chosen among ("unary/relu/64K", "lumen/pack/default/16K"). */
const char *bv_vs_noun(const bv_table *t);
void bv_vs_plural(const bv_table *t, char *buf, size_t len);
void bv_vs_value(const bv_table *t, const bv_row *r, char *buf, size_t len);
void bv_vs_ref(const bv_table *t, char *buf, size_t len);
void bv_vs_group(const bv_table *t, const bv_row *r, char *buf, size_t len);
/* The quotients x / ref of the per-process medians of the processes both
 * results were measured in (proc_id equal), into out (room for
 * x->nproc_ns); how many.  The backend view pairs two backends' cells by
 * it, history two versions' cells where no ratio pairs them. */
size_t bv_result_pair_by_process(const bv_result *x, const bv_result *ref, double *out);
void bv_backend_view_free(bv_table *t);
/* One line saying how the backend view was decided, for every exporter. */
char *bv_backends_control(const bv_table *t);
/* One line saying how the fastest backends were decided. */
char *bv_wins_control(const bv_table *t);

#endif
