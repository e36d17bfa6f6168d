/* machine.h - what a results log records about the machine it ran on. */
#ifndef BV_MACHINE_H
#define BV_MACHINE_H
#include <cjson/cJSON.h>
/* CPU, cores, governor, OS, compiler: read fresh for every run. */
cJSON *bv_machine_info(void);
#include <stddef.h>
#include <time.h>
/* This machine's copy/read bandwidth and peak FLOP rate (harness/runner/calibrate.h),
 * kept in the cache with when and at what load it was taken; measured again
 * when force is set (reason: why, for the message), or when the stored one
 * is stale (bv_calibration_stale). */
int bv_machine_calibration(int force, const char *reason, cJSON **out);
/* A stored calibration is measured again after this long. */
#define BV_CALIBRATION_MAX_AGE_S (7 * 86400.0)
/* Whether a stored calibration should be measured again (1, with why):
 * unreadable or implausible figures, no time or load recorded (older
 * files), older than BV_CALIBRATION_MAX_AGE_S, taken at a load of at
 * least one per CPU when the load is now under half of that, or taken at
 * an unknown load (null) when the load (-1: unknown) can be read now. */
int bv_calibration_stale(const cJSON *cal, time_t now, double load, long cpus, char *why, size_t len);
/* Adds when (measured_at), at what load (load_average; null when load is
 * -1, unknown) and on how many CPUs (cpus) a calibration was taken. */
void bv_calibration_stamp(cJSON *cal, time_t now, double load, long cpus);
/* A run whose bandwidth probes (their usual level) pass the calibrated
 * copy bandwidth by this factor measures the calibration again. */
#define BV_CALIBRATION_PROBE_FACTOR 1.5
#endif
