/*
 * measure_log.h - the logs a measure call writes, one per version
 * (measure_log.c; docs/results-format.md).
 */
#ifndef BV_MEASURE_LOG_H
#define BV_MEASURE_LOG_H

#include <stddef.h>

#include "measure_session.h"

/* The time now, UTC, as the logs record it (2024-01-02T03:04:05Z). */
void bv_ms_timestamp(char *buf, size_t len);
/* Every version's log as the run stands; status: running, complete,
 * interrupted or failed.  paths (optional, n of them) get each log's path. */
int bv_ms_write_logs(session *s, const char *status, char **paths);

#endif
