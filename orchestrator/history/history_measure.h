/*
 * history_measure.h - what `bench-versions history` measures and keeps
 * (history_measure.c): the cells, the windows measured (or found whole in
 * the store), the steps kept in the store after, and --import.
 */
#ifndef BV_HISTORY_MEASURE_H
#define BV_HISTORY_MEASURE_H

#include "history.h"
#include "measure.h"

/* What makes two measurements of a step comparable, beyond the builds and
 * the cell: the store's "method" key (store.h). */
char *bv_hist_method_key(const bv_measure_opts *mo);
/* --import RUN_DIR: a run's paired ratios into the store, nothing measured. */
int bv_hist_import(bv_hist *h);
/* The store, and this machine's class (nothing with --no-store). */
int bv_hist_open_store(bv_hist *h);
/* The cells the options name, each with its steps and chain allocated. */
int bv_hist_plan_cells(bv_hist *h);
/* Measures every window not found in the store. */
int bv_hist_measure(bv_hist *h);
/* Keeps every step measured paired in this run in the store. */
int bv_hist_keep_steps(bv_hist *h);

#endif
