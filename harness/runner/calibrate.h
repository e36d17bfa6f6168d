/*
 * calibrate.h - this machine's peaks, so a result can be shown as a share of
 * what the machine can do: copy and read bandwidth of one core, and its peak
 * single-precision FLOP rate.  Measured once per machine by `bv-runner
 * --calibrate` and cached by the orchestrator (machine.c).
 */
#ifndef BV_CALIBRATE_H
#define BV_CALIBRATE_H

#include <cjson/cJSON.h>

/* {"copy_gbps":..,"read_gbps":..,"peak_gflops":..,"isa":"avx512f",...} */
cJSON *bv_calibrate(void);

#endif
