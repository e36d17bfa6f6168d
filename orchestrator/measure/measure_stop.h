/*
 * measure_stop.h - when a cell has been sampled enough (measure_stop.c):
 * each trial's ratios, the intervals that decide, the budgets, the cells
 * measured again when their ratio followed the machine's state, and the
 * calibration checked after measuring.
 */
#ifndef BV_MEASURE_STOP_H
#define BV_MEASURE_STOP_H

#include <stddef.h>

#include "measure_session.h"

/* After every version's part of the current trial: its ratios, then the
 * count of trials. */
void bv_ms_close_trial(session *s, cstate *c);
/* The finite values of x[0..n) into out (the same order); their count. */
size_t bv_ms_finite_of(const double *x, int n, double *out);
/* Each cell's reference cell on the --vs axis (cstate.ref). */
void bv_ms_find_references(session *s);
/* Stops the cells whose interval decided or whose budget is spent. */
void bv_ms_update_active(session *s);
/* The cells whose ratio followed the machine's state made active again;
 * their count. */
size_t bv_ms_measure_again(session *s);
/* The machine's calibration measured again after measuring. */
int bv_ms_check_calibration(session *s);

#endif
