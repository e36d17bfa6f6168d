/*
 * measure_process.h - one runner process over the active cells, and one
 * trial (a process with every version, or one per version when isolated)
 * absorbed into the session (measure_process.c).
 */
#ifndef BV_MEASURE_PROCESS_H
#define BV_MEASURE_PROCESS_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "measure_session.h"

/* The state of the random orders of versions in a process (seeded from
 * the run's seed, so a resumed run goes on the same way). */
extern uint64_t bv_ms_shuffle_state;

/* The machine's state around a process, as a log records it. */
cJSON *bv_ms_state_json(const pstate *p);

/* One trial over the active cells: its processes run, their documents
 * absorbed, each cell's trial closed (its ratios, bv_ms_close_trial). */
int bv_ms_trial(session *s);

#endif
