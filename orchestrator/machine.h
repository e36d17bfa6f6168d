/* machine.h - what a results log records about the machine it ran on. */
#ifndef BV_MACHINE_H
#define BV_MACHINE_H
#include <cjson/cJSON.h>
/* CPU, cores, governor, OS, compiler: read fresh for every run. */
cJSON *bv_machine_info(void);
/* This machine's copy/read bandwidth and peak FLOP rate (harness/calibrate.h),
 * measured once per machine and kept in the cache. */
int bv_machine_calibration(cJSON **out);
#endif
